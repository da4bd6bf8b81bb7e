//! The head view (after BertViz): query tokens on the left, key tokens on the right, a line
//! for every weight, one colour per head, line opacity = attention. Hovering a token keeps
//! only its own lines.

use crate::model::attention::AttentionTrace;
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Ui, Vec2};

/// Weights below this are not drawn (they would be invisible anyway).
const MIN_WEIGHT: f32 = 0.02;

/// The colour of head `h`.
pub fn head_color(h: usize) -> Color32 {
    let c = colorous::TABLEAU10[h % colorous::TABLEAU10.len()];
    Color32::from_rgb(c.r, c.g, c.b)
}

/// Which token the pointer is on, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Query(usize),
    Key(usize),
}

/// Draw the lines of the heads switched on in `shown` (resized to the head count).
/// Returns the token under the pointer.
pub fn show(ui: &mut Ui, attn: &AttentionTrace, shown: &mut Vec<bool>) -> Option<Side> {
    let heads = attn.weights.len_of(ndarray::Axis(0));
    shown.resize(heads, true);
    ui.horizontal_wrapped(|ui| {
        ui.label(crate::t!("attention-lines-heads"));
        for (h, on) in shown.iter_mut().enumerate() {
            let text = egui::RichText::new(crate::t!("attention-lines-head", head = h))
                .color(head_color(h));
            ui.toggle_value(on, text);
        }
    });
    ui.label(crate::t!("attention-lines-explain"));
    let (t_q, t_k) = (attn.query_tokens.len(), attn.key_tokens.len());
    let rows = t_q.max(t_k).max(1);
    let avail = ui.available_size();
    let spacing = ((avail.y - 20.0) / rows as f32).clamp(8.0, 26.0);
    let width = avail.x.clamp(200.0, 560.0);
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(width, spacing * rows as f32 + 10.0),
        Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    let label_w = 110.0;
    let (lx, rx) = (rect.left() + label_w, rect.right() - label_w);
    let y = |i: usize| rect.top() + 5.0 + (i as f32 + 0.5) * spacing;
    let hovered = response.hover_pos().and_then(|p| {
        let row = ((p.y - rect.top() - 5.0) / spacing).floor();
        if row < 0.0 {
            return None;
        }
        let row = row as usize;
        if p.x < lx + 10.0 && row < t_q {
            Some(Side::Query(row))
        } else if p.x > rx - 10.0 && row < t_k {
            Some(Side::Key(row))
        } else {
            None
        }
    });
    for (h, on) in shown.iter().enumerate() {
        if !on {
            continue;
        }
        let w = attn.weights.index_axis(ndarray::Axis(0), h);
        for ((i, j), &a) in w.indexed_iter() {
            let keep = match hovered {
                Some(Side::Query(q)) => q == i,
                Some(Side::Key(k)) => k == j,
                None => true,
            };
            if a < MIN_WEIGHT || !keep {
                continue;
            }
            let c = head_color(h);
            let alpha = (a.clamp(0.0, 1.0) * 255.0) as u8;
            let color = Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha);
            painter.line_segment(
                [Pos2::new(lx, y(i)), Pos2::new(rx, y(j))],
                Stroke::new(2.0, color),
            );
        }
    }
    let font = FontId::monospace(13.0_f32.min(spacing * 0.8));
    let text = ui.visuals().text_color();
    let strong = ui.visuals().strong_text_color();
    for (i, t) in attn.query_tokens.iter().enumerate() {
        let on = hovered == Some(Side::Query(i));
        let at = Pos2::new(lx - 6.0, y(i));
        if on {
            painter.rect_filled(
                Rect::from_center_size(at - Vec2::new(40.0, 0.0), Vec2::new(90.0, spacing)),
                3.0,
                ui.visuals().selection.bg_fill,
            );
        }
        painter.text(
            at,
            Align2::RIGHT_CENTER,
            t,
            font.clone(),
            if on { strong } else { text },
        );
    }
    for (j, t) in attn.key_tokens.iter().enumerate() {
        let on = hovered == Some(Side::Key(j));
        let at = Pos2::new(rx + 6.0, y(j));
        if on {
            painter.rect_filled(
                Rect::from_center_size(at + Vec2::new(40.0, 0.0), Vec2::new(90.0, spacing)),
                3.0,
                ui.visuals().selection.bg_fill,
            );
        }
        painter.text(
            at,
            Align2::LEFT_CENTER,
            t,
            font.clone(),
            if on { strong } else { text },
        );
    }
    hovered
}
