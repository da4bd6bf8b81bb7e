//! The beam tree painted: one column per step, a rounded box per hypothesis, edges from
//! parent to child, the greedy path in orange. Every box is also a button (hover for the
//! numbers, click to select), named with its numbers for screen readers, and walked with the
//! arrows once Tab has reached it: ← parent, → the child drawn highest, ↑ ↓ the box above or
//! below. (The lab's own arrow keys step the search only while nothing has the focus.)

use super::layout::{layout, Cell};
use super::session::Search;
use crate::decode::BeamSearch;
use crate::decode::{Node, NodeState};
use crate::t;
use egui::{
    Color32, EventFilter, Id, Key, Modifiers, Pos2, Rect, Sense, Stroke, StrokeKind, Ui, Vec2,
};

const COLUMN: f32 = 132.0;
const ROW: f32 = 30.0;
const BOX: Vec2 = Vec2::new(112.0, 22.0);
const MARGIN: f32 = 8.0;
pub const GREEDY: Color32 = Color32::from_rgb(255, 150, 30);

/// Fill colour by state: blue live, neutral expanded, green finished, teal stopped, brown
/// outscored, grey pruned.
pub fn fill(state: &NodeState) -> Color32 {
    match state {
        NodeState::Live => Color32::from_rgb(50, 100, 190),
        NodeState::Expanded => Color32::from_gray(75),
        NodeState::Finished => Color32::from_rgb(40, 135, 60),
        NodeState::Stopped => Color32::from_rgb(30, 130, 130),
        NodeState::Outscored => Color32::from_rgb(90, 80, 40),
        NodeState::Pruned { .. } => Color32::from_gray(45),
    }
}

/// The state in words, pruning with its reason.
pub fn describe(state: &NodeState) -> String {
    match state {
        NodeState::Live => t!("decoding-state-live"),
        NodeState::Expanded => t!("decoding-state-expanded"),
        NodeState::Finished => t!("decoding-state-finished"),
        NodeState::Stopped => t!("decoding-state-stopped"),
        NodeState::Outscored => t!("decoding-state-outscored"),
        NodeState::Pruned { rank, of } => t!("decoding-state-pruned", rank = *rank, of = *of),
    }
}

/// A token as a box shows it: whitespace made visible.
pub fn visible(token: &str) -> String {
    if token.trim().is_empty() {
        "·".repeat(token.chars().count().max(1))
    } else {
        token.to_string()
    }
}

/// The box's caption, e.g. "cat −0.92".
pub fn caption(node: &Node) -> String {
    if node.parent.is_none() {
        return t!("decoding-node-start");
    }
    format!("{} {}", visible(&node.text), signed(node.cum))
}

/// A number with a real minus sign.
pub fn signed(x: f32) -> String {
    format!("{x:.2}").replace('-', "−")
}

fn hover(node: &Node) -> String {
    let mut lines = vec![
        t!("decoding-hover-token", token = visible(&node.text)),
        t!("decoding-hover-log-p", value = signed(node.log_p)),
        t!("decoding-hover-cumulative", value = signed(node.cum)),
        t!("decoding-hover-score", value = signed(node.score)),
        t!("decoding-hover-length", length = node.length),
        describe(&node.state),
    ];
    if node.greedy {
        lines.push(t!("decoding-hover-greedy"));
    }
    lines.join("\n")
}

fn node_rect(origin: Pos2, cell: Cell) -> Rect {
    let min = origin + Vec2::new(MARGIN + cell.col as f32 * COLUMN, MARGIN + cell.row * ROW);
    Rect::from_min_size(min, BOX)
}

/// The node the arrow `key` leads to from node `from`: ← its parent, → its child drawn
/// highest, ↑ ↓ the nearest box above or below in the same step. `None` at an edge.
pub fn neighbour(beam: &BeamSearch, cells: &[Cell], from: usize, key: Key) -> Option<usize> {
    let here = cells[from];
    let highest = |ids: &mut dyn Iterator<Item = usize>| {
        ids.min_by(|&a, &b| cells[a].row.total_cmp(&cells[b].row))
    };
    let lowest = |ids: &mut dyn Iterator<Item = usize>| {
        ids.max_by(|&a, &b| cells[a].row.total_cmp(&cells[b].row))
    };
    let column = (0..cells.len()).filter(|&i| cells[i].col == here.col);
    match key {
        Key::ArrowLeft => beam.nodes[from].parent,
        Key::ArrowRight => {
            highest(&mut (0..cells.len()).filter(|&i| beam.nodes[i].parent == Some(from)))
        }
        Key::ArrowUp => lowest(&mut column.filter(|&i| cells[i].row < here.row)),
        Key::ArrowDown => highest(&mut column.filter(|&i| cells[i].row > here.row)),
        _ => None,
    }
}

/// Draw the tree in a scrollable area; clicking a node selects it.
pub fn show(ui: &mut Ui, search: &Search, selected: &mut Option<usize>) {
    let cells = layout(&search.beam);
    let cols = cells.iter().map(|c| c.col).max().unwrap_or(0) as f32 + 1.0;
    let rows = cells.iter().map(|c| c.row).fold(0.0, f32::max) + 1.0;
    let size = Vec2::new(2.0 * MARGIN + cols * COLUMN, 2.0 * MARGIN + rows * ROW);
    egui::ScrollArea::both()
        .id_salt("decoding_tree")
        .max_height(380.0)
        .stick_to_right(true)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            let (rect, _) = ui.allocate_exact_size(size, Sense::hover());
            let rects: Vec<Rect> = cells.iter().map(|&c| node_rect(rect.min, c)).collect();
            edges(ui, search, &rects);
            let node_id = |ui: &Ui, n: usize| ui.scope_id().with(("node", n));
            let mut focused = None;
            for (node, &r) in search.beam.nodes.iter().zip(&rects) {
                if node_box(ui, node_id(ui, node.id), node, r, selected) {
                    focused = Some(node.id);
                }
            }
            let Some(from) = focused else { return };
            // The arrows stay with the tree instead of moving the focus; Tab leaves it.
            let filter = EventFilter {
                horizontal_arrows: true,
                vertical_arrows: true,
                ..Default::default()
            };
            ui.memory_mut(|m| m.set_focus_lock_filter(node_id(ui, from), filter));
            let keys = [
                Key::ArrowLeft,
                Key::ArrowRight,
                Key::ArrowUp,
                Key::ArrowDown,
            ];
            let pressed = keys
                .into_iter()
                .find(|&k| ui.input_mut(|i| i.consume_key(Modifiers::NONE, k)));
            if let Some(to) = pressed.and_then(|k| neighbour(&search.beam, &cells, from, k)) {
                ui.memory_mut(|m| m.request_focus(node_id(ui, to)));
                ui.scroll_to_rect(rects[to].expand(MARGIN), None);
                *selected = Some(to);
            }
        });
}

fn edges(ui: &Ui, search: &Search, rects: &[Rect]) {
    let painter = ui.painter();
    for node in &search.beam.nodes {
        let Some(p) = node.parent else { continue };
        let on_greedy = node.greedy && search.beam.nodes[p].greedy;
        let stroke = if on_greedy {
            Stroke::new(2.5, GREEDY)
        } else if matches!(node.state, NodeState::Pruned { .. }) {
            Stroke::new(1.0, Color32::from_gray(70))
        } else {
            Stroke::new(1.5, Color32::from_gray(150))
        };
        painter.line_segment(
            [rects[p].right_center(), rects[node.id].left_center()],
            stroke,
        );
    }
}

/// One box; true when it has the keyboard focus.
fn node_box(ui: &mut Ui, id: Id, node: &Node, rect: Rect, selected: &mut Option<usize>) -> bool {
    let response = ui.interact(rect, id, Sense::click());
    response.widget_info(|| {
        egui::WidgetInfo::labeled(
            egui::Role::Button,
            true,
            t!(
                "decoding-node-name",
                id = node.id,
                token = &node.text,
                step = node.step,
                log_p = signed(node.log_p),
                cumulative = signed(node.cum),
                state = describe(&node.state)
            ),
        )
    });
    let focused = response.has_focus();
    let painter = ui.painter();
    painter.rect_filled(rect, 5.0, fill(&node.state));
    if node.greedy {
        painter.rect_stroke(rect, 5.0, Stroke::new(2.0, GREEDY), StrokeKind::Outside);
    }
    if *selected == Some(node.id) {
        painter.rect_stroke(
            rect.expand(3.0),
            7.0,
            Stroke::new(2.0, Color32::WHITE),
            StrokeKind::Outside,
        );
    } else if response.hovered() {
        painter.rect_stroke(
            rect,
            5.0,
            Stroke::new(1.0, Color32::LIGHT_GRAY),
            StrokeKind::Outside,
        );
    }
    let text = if matches!(node.state, NodeState::Pruned { .. }) {
        Color32::from_gray(140)
    } else {
        Color32::WHITE
    };
    painter.text(
        rect.center(),
        egui::Align2::CENTER_CENTER,
        caption(node),
        egui::FontId::proportional(12.0),
        text,
    );
    if response.clicked() {
        *selected = Some(node.id);
    }
    response.on_hover_text(hover(node));
    focused
}

/// The colour key under the tree.
pub fn legend(ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        for (state, name) in [
            (NodeState::Live, t!("decoding-legend-live")),
            (NodeState::Expanded, t!("decoding-legend-expanded")),
            (NodeState::Finished, t!("decoding-legend-finished")),
            (NodeState::Stopped, t!("decoding-legend-stopped")),
            (NodeState::Outscored, t!("decoding-legend-outscored")),
            (
                NodeState::Pruned { rank: 0, of: 0 },
                t!("decoding-legend-pruned"),
            ),
        ] {
            swatch(ui, fill(&state), None);
            ui.label(name);
        }
        swatch(ui, Color32::from_gray(75), Some(GREEDY));
        ui.label(t!("decoding-legend-greedy"));
    });
}

fn swatch(ui: &mut Ui, color: Color32, outline: Option<Color32>) {
    let (r, _) = ui.allocate_exact_size(Vec2::new(14.0, 14.0), Sense::hover());
    ui.painter().rect_filled(r, 3.0, color);
    if let Some(o) = outline {
        ui.painter()
            .rect_stroke(r, 3.0, Stroke::new(2.0, o), StrokeKind::Inside);
    }
}
