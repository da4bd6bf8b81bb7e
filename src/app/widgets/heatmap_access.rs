//! A heatmap without the picture: for a screen reader, its numbers as a table in the
//! accessibility tree (the row tokens and the column tokens as headers, each cell's value) and
//! the keyboard's cell announced as it moves; for the keyboard, a cell moved by the arrows
//! while the heatmap has the focus, Home and End along its row, Enter to open it as a click
//! would. The table is `access_table`'s, built only while AccessKit is on.

use super::access_table::{self, AccessTable};
use super::heatmap::Heatmap;
use egui::accesskit::{Live, Role};
use egui::{EventFilter, Key, Modifiers, Rect, Response, Ui, UiBuilder, Vec2};

/// Rows and columns a table reads out at most; a larger matrix gives its first ones and says so.
pub const MAX_SIDE: usize = 24;

/// The table's title: what the matrix is, what its rows and columns are, and what is left out.
pub fn caption(map: &Heatmap<'_>) -> String {
    let (rows, cols) = map.values.dim();
    let (qn, kn) = map.axis_words();
    let what = if map.context.is_empty() {
        crate::t!("widgets-heatmap-values")
    } else {
        super::math_text::spoken(map.context)
    };
    let mut caption = crate::t!(
        "widgets-heatmap-caption",
        what = what,
        row_axis = qn,
        column_axis = kn
    );
    let (r, c) = (rows.min(MAX_SIDE), cols.min(MAX_SIDE));
    if r < rows || c < cols {
        caption.push(' ');
        caption.push_str(&crate::t!(
            "widgets-heatmap-caption-part",
            rows_shown = r,
            rows = rows,
            columns_shown = c,
            columns = cols
        ));
    }
    caption
}

/// What cell (r, c) reads: its value to two decimals, or why it has none.
pub fn cell_text(map: &Heatmap<'_>, r: usize, c: usize) -> String {
    if map.masked(r, c) {
        crate::t!("widgets-heatmap-masked")
    } else {
        format!("{:.2}", map.values[[r, c]])
    }
}

/// A row or column header: the position and the token, quoted as the hover text quotes it.
fn header(labels: &[String], i: usize) -> String {
    format!("{i} “{}”", labels.get(i).map_or("?", |s| s.trim()))
}

/// Adds the table over `cells` (the heatmap's cell area, `cell` points per cell).
pub fn add_table(ui: &mut Ui, map: &Heatmap<'_>, cells: Rect, cell: Vec2) {
    let (rows, cols) = map.values.dim();
    let (rows, cols) = (rows.min(MAX_SIDE), cols.min(MAX_SIDE));
    let table = AccessTable {
        caption: caption(map),
        corner: {
            let (rows, cols) = map.axis_words();
            format!("{rows} \\ {cols}")
        },
        columns: (0..cols).map(|c| header(map.col_labels, c)).collect(),
        rows: (0..rows)
            .map(|r| {
                let cells = (0..cols).map(|c| cell_text(map, r, c)).collect();
                (header(map.row_labels, r), cells)
            })
            .collect(),
    };
    // The header row and the header column sit on the first data row and column.
    let place = |r: usize, c: usize| {
        let at = Vec2::new(c.saturating_sub(1) as f32, r.saturating_sub(1) as f32);
        Rect::from_min_size(cells.min + at * cell, cell)
    };
    access_table::add(ui, "heatmap", table, place);
}

/// What the keyboard did to a focused heatmap this frame: the cell it is on, and whether
/// Enter opened it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyboardCell {
    pub cell: (usize, usize),
    pub entered: bool,
}

/// Moves the keyboard's cell of the heatmap `response` belongs to, while it has the focus (the
/// arrows stay with it instead of moving the focus; Tab leaves it). `None` when unfocused.
pub fn keyboard(ui: &Ui, response: &Response, rows: usize, cols: usize) -> Option<KeyboardCell> {
    if !response.has_focus() || rows == 0 || cols == 0 {
        return None;
    }
    let filter = EventFilter {
        horizontal_arrows: true,
        vertical_arrows: true,
        ..Default::default()
    };
    ui.memory_mut(|m| m.set_focus_lock_filter(response.id, filter));
    let id = response.id.with("keyboard cell");
    let (mut r, mut c) = ui
        .data(|d| d.get_temp::<(usize, usize)>(id))
        .unwrap_or((0, 0));
    // Every press of the frame counts (a fast typist or a slow frame sends several).
    let entered = ui.input_mut(|i| {
        let mut pressed = |key| i.count_and_consume_key(Modifiers::NONE, key);
        r = (r + pressed(Key::ArrowDown)).saturating_sub(pressed(Key::ArrowUp));
        c = (c + pressed(Key::ArrowRight)).saturating_sub(pressed(Key::ArrowLeft));
        if pressed(Key::Home) > 0 {
            c = 0;
        }
        if pressed(Key::End) > 0 {
            c = cols - 1;
        }
        pressed(Key::Enter) > 0
    });
    let cell = (r.min(rows - 1), c.min(cols - 1));
    ui.data_mut(|d| d.insert_temp(id, cell));
    Some(KeyboardCell { cell, entered })
}

/// Cell (r, c) in words: both tokens and the value.
pub fn cell_words(map: &Heatmap<'_>, r: usize, c: usize) -> String {
    let (qn, kn) = map.axis_words();
    let label = |labels: &[String], i: usize| labels.get(i).map_or("?", |s| s.trim()).to_string();
    let value = if map.masked(r, c) {
        crate::t!("widgets-heatmap-masked")
    } else {
        crate::t!("widgets-heatmap-value", value = cell_text(map, r, c))
    };
    crate::t!(
        "widgets-heatmap-cell",
        row_axis = qn,
        row = r,
        row_token = label(map.row_labels, r),
        column_axis = kn,
        column = c,
        column_token = label(map.col_labels, c),
        value = value
    )
}

/// What the live region says of cell (r, c): which matrix, then the cell in words.
pub fn announcement(map: &Heatmap<'_>, r: usize, c: usize) -> String {
    if map.context.is_empty() {
        cell_words(map, r, c)
    } else {
        let context = super::math_text::spoken(map.context);
        format!("{context}, {}", cell_words(map, r, c))
    }
}

/// A polite live region under the heatmap that says the keyboard's cell each time it moves
/// (empty while the heatmap is not focused, so it is in the page before it speaks).
pub fn add_live_region(ui: &mut Ui, at: Rect, text: String) {
    if !ui.ctx().has_accesskit_node(ui.unique_id()) {
        return;
    }
    let region = ui.new_child(
        UiBuilder::new()
            .id_salt("a11y live cell")
            .max_rect(at)
            .accessibility_role(Role::Label)
            .accessibility_label(text),
    );
    ui.ctx()
        .accesskit_node_builder(region.unique_id(), |n| n.set_live(Live::Polite));
}
