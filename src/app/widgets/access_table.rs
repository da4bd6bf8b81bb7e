//! A table in the accessibility tree only: a caption, column headers, and rows that each start
//! with a header. Built from child `Ui`s so AccessKit nests it (table, rows, cells) and the
//! page's mirror gives it to a screen reader as a `<table>`; nothing is painted.

use egui::accesskit::Role;
use egui::{Rect, Ui, UiBuilder};

/// What the table says.
pub struct AccessTable {
    /// What the numbers are (the table's name).
    pub caption: String,
    /// The top-left header: what the row headers and the columns are.
    pub corner: String,
    pub columns: Vec<String>,
    /// Each row: its header, then one text per column.
    pub rows: Vec<(String, Vec<String>)>,
}

/// Adds `table` under `ui`. `place(row, col)` is where a node sits on the screen, in grid
/// coordinates: row 0 is the header row, col 0 the row headers.
pub fn add(ui: &mut Ui, salt: &str, table: AccessTable, place: impl Fn(usize, usize) -> Rect) {
    // Only while AccessKit is on (every `Ui` then has a node).
    if !ui.ctx().has_accesskit_node(ui.unique_id()) {
        return;
    }
    let node = |ui: &mut Ui, salt: (usize, usize), role: Role, rect: Rect, label: String| {
        ui.new_child(
            UiBuilder::new()
                .id_salt(salt)
                .max_rect(rect)
                .accessibility_role(role)
                .accessibility_label(label),
        )
    };
    let whole = place(0, 0).union(place(table.rows.len(), table.columns.len()));
    let mut root = ui.new_child(
        UiBuilder::new()
            .id_salt(("a11y table", salt))
            .max_rect(whole)
            .accessibility_role(Role::Table)
            .accessibility_label(table.caption),
    );
    let width = table.columns.len();
    let row_rect = |r: usize| place(r, 0).union(place(r, width));
    let header = std::iter::once((table.corner, table.columns));
    for (r, (first, cells)) in header.chain(table.rows).enumerate() {
        let mut row = node(&mut root, (r, 0), Role::Row, row_rect(r), String::new());
        let (first_role, cell_role) = if r == 0 {
            (Role::ColumnHeader, Role::ColumnHeader)
        } else {
            (Role::RowHeader, Role::Cell)
        };
        node(&mut row, (r, usize::MAX), first_role, place(r, 0), first);
        for (c, text) in cells.into_iter().enumerate() {
            node(&mut row, (r, c), cell_role, place(r, c + 1), text);
        }
    }
}
