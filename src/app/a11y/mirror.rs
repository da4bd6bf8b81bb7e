//! The accessibility tree egui builds every frame (AccessKit), flattened into what the page's
//! DOM mirror shows: one element per thing a screen reader meets, in reading order, with its
//! ARIA role, name, state and place. Pure, so it is tested natively; `web.rs` puts it in the page
//! and sends a screen reader's actions back.

use egui::accesskit::{Live, Node, NodeId, Role, Toggled, TreeUpdate};
use std::collections::HashMap;

/// What an element is in the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Activated by a click: `role` is `button`, `checkbox`, `radio` or `link`.
    Control { role: &'static str },
    /// `<input type="range">`.
    Slider {
        min: f64,
        max: f64,
        step: f64,
        value: f64,
    },
    /// `<input type="number">` (egui's drag values).
    Number { value: f64 },
    /// `<input type="text">`, or a `<textarea>`.
    Text { multiline: bool, value: String },
    /// A progress bar, 0 to 1.
    Progress { value: f64 },
    /// Text read in order (labels, headings, the lessons' prose).
    Static,
    /// A table (a heatmap's numbers): rows of cells, the first row and column the headers.
    Table { rows: Vec<Vec<Cell>> },
}

/// One cell of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub header: bool,
}

/// One element of the mirror.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// egui's AccessKit node id: the element's DOM id is `a11y-{id}`, and actions name it.
    pub id: u64,
    pub kind: Kind,
    /// The accessible name (for `Static`, the text itself).
    pub name: String,
    /// Pressed, checked or selected: `aria-pressed` / `aria-checked`.
    pub on: Option<bool>,
    pub disabled: bool,
    /// A polite live region: a screen reader says its text when it changes.
    pub live: bool,
    /// CSS pixels over the canvas: left, top, width, height.
    pub rect: [f32; 4],
}

/// The whole mirror of one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mirror {
    pub elements: Vec<Element>,
    /// The element egui's keyboard focus is on, if it is in the mirror.
    pub focus: Option<u64>,
}

/// Flattens a full tree update (egui sends the whole tree every frame) into the mirror, depth
/// first from the root, so the page reads in egui's layout order. Bounds are in egui points;
/// `css_per_point` (egui's zoom factor) turns them into CSS pixels.
pub fn flatten(update: &TreeUpdate, css_per_point: f32) -> Mirror {
    let nodes: HashMap<NodeId, &Node> = update.nodes.iter().map(|(id, n)| (*id, n)).collect();
    // At most one element a node: growing the vector instead cost 7 ms in a frame that
    // brought the head grid's 741 elements.
    let mut elements = Vec::with_capacity(update.nodes.len());
    if let Some(tree) = &update.tree {
        let mut stack = vec![tree.root];
        while let Some(id) = stack.pop() {
            let Some(node) = nodes.get(&id) else {
                continue;
            };
            if let Some(e) = element(id, node, &nodes, css_per_point) {
                elements.push(e);
            }
            // A control's own text (a button's label) is its name, not a second element; a
            // table's rows are in its element.
            let inside = matches!(node.role(), Role::TextRun | Role::Table);
            if !inside && !is_control(node.role()) {
                stack.extend(node.children().iter().rev());
            }
        }
    }
    let focus = Some(update.focus.0).filter(|f| elements.iter().any(|e| e.id == *f));
    Mirror { elements, focus }
}

fn is_control(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::DefaultButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::Switch
            | Role::Link
            | Role::Tab
            | Role::ComboBox
            | Role::DisclosureTriangle
            | Role::MenuItem
            | Role::ListBoxOption
            | Role::Slider
            | Role::Splitter
            | Role::SpinButton
            | Role::TextInput
            | Role::MultilineTextInput
            | Role::SearchInput
    )
}

/// The mirror element of one node, or `None` for what a screen reader has nothing to read in
/// (layout containers, scroll bars, splitters, unnamed shapes).
fn element(
    id: NodeId,
    node: &Node,
    nodes: &HashMap<NodeId, &Node>,
    css_per_point: f32,
) -> Option<Element> {
    let mut name = name(node, nodes);
    // egui names a panel's divider itself, in English.
    if node.role() == Role::Splitter {
        name = crate::t!("a11y-resize-panel");
    }
    let live = node.live().is_some_and(|l| l != Live::Off);
    let kind = match node.role() {
        Role::Button
        | Role::DefaultButton
        | Role::ComboBox
        | Role::DisclosureTriangle
        | Role::Tab
        | Role::MenuItem
        | Role::ListBoxOption => Kind::Control { role: "button" },
        Role::CheckBox | Role::Switch => Kind::Control { role: "checkbox" },
        Role::RadioButton => Kind::Control { role: "radio" },
        Role::Link => Kind::Control { role: "link" },
        // A panel's divider ("Resize panel"): a range of the panel's share of the window, which
        // a screen reader sets or steps as egui's own AccessKit actions allow.
        Role::Slider | Role::Splitter => Kind::Slider {
            min: node.min_numeric_value().unwrap_or(0.0),
            max: node.max_numeric_value().unwrap_or(1.0),
            step: node.numeric_value_step().unwrap_or(0.0),
            value: node.numeric_value().unwrap_or(0.0),
        },
        Role::SpinButton => Kind::Number {
            value: node.numeric_value().unwrap_or(0.0),
        },
        Role::TextInput | Role::SearchInput | Role::MultilineTextInput => Kind::Text {
            multiline: node.role() == Role::MultilineTextInput,
            value: node.value().unwrap_or_default().to_string(),
        },
        Role::ProgressIndicator => Kind::Progress {
            value: node.numeric_value().unwrap_or(0.0),
        },
        Role::Table => Kind::Table {
            rows: table_rows(node, nodes),
        },
        // A picture (a heatmap): named, and focusable for its keyboard cell.
        Role::Canvas if !name.is_empty() => Kind::Control { role: "img" },
        Role::Label | Role::Heading | Role::Paragraph | Role::Image | Role::Window
            if !name.is_empty() || live =>
        {
            Kind::Static
        }
        _ => return None,
    };
    let has_name =
        live || !name.is_empty() || matches!(kind, Kind::Text { .. } | Kind::Slider { .. });
    if !has_name {
        return None;
    }
    let on = node.toggled().map(|t| t == Toggled::True).or_else(|| {
        node.is_selected()
            .filter(|_| matches!(kind, Kind::Control { .. }))
    });
    let rect = node.bounds().map_or([0.0; 4], |b| {
        let s = f64::from(css_per_point);
        [b.x0 * s, b.y0 * s, (b.x1 - b.x0) * s, (b.y1 - b.y0) * s].map(|v| v as f32)
    });
    Some(Element {
        id: id.0,
        kind,
        name,
        on,
        disabled: node.is_disabled(),
        live,
        rect,
    })
}

/// The accessible name: the node's label, else the labels it is labelled by, else a text
/// field's hint, else (for text and a control's own text) its value or its children's.
fn name(node: &Node, nodes: &HashMap<NodeId, &Node>) -> String {
    if let Some(label) = node.label().filter(|l| !l.is_empty()) {
        return label.to_string();
    }
    let by = texts(node.labelled_by(), nodes);
    if !by.is_empty() {
        return by;
    }
    if let Some(hint) = node.placeholder().filter(|h| !h.is_empty()) {
        return hint.to_string();
    }
    if matches!(node.role(), Role::Label | Role::Heading | Role::Paragraph) {
        return node.value().unwrap_or_default().to_string();
    }
    if is_control(node.role()) && !matches!(node.role(), Role::TextInput | Role::MultilineTextInput)
    {
        return texts(node.children(), nodes);
    }
    String::new()
}

/// The text of the nodes `ids` (each one's label, else its value), joined by spaces.
fn texts(ids: &[NodeId], nodes: &HashMap<NodeId, &Node>) -> String {
    let texts: Vec<&str> = ids
        .iter()
        .filter_map(|id| nodes.get(id))
        .filter_map(|n| n.label().or(n.value()))
        .collect();
    texts.join(" ")
}

/// A table node's rows (its `Row` children) and their cells.
fn table_rows(table: &Node, nodes: &HashMap<NodeId, &Node>) -> Vec<Vec<Cell>> {
    let children = |n: &Node| -> Vec<&Node> {
        n.children()
            .iter()
            .filter_map(|id| nodes.get(id).copied())
            .collect()
    };
    children(table)
        .into_iter()
        .filter(|r| r.role() == Role::Row)
        .map(|row| {
            children(row)
                .into_iter()
                .filter_map(|c| {
                    let header = match c.role() {
                        Role::ColumnHeader | Role::RowHeader => true,
                        Role::Cell => false,
                        _ => return None,
                    };
                    let text = c.label().unwrap_or_default().to_string();
                    Some(Cell { text, header })
                })
                .collect()
        })
        .collect()
}
