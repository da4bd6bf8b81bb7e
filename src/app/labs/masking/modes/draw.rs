//! Drawing the mask-modes section: its controls, E, M (clickable), E + M and A.

use super::{encode_mask, kind, row_sums, run, MaskMode, ModesState, Target};
use crate::app::models::store::Stored;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::{label_stride, Heatmap, LABEL_SPACING};
use crate::app::words::Words;
use crate::t;
use egui::{Align2, Color32, FontId, Rect, Sense, Stroke, Ui, Vec2};
use ndarray::{Array2, Axis};

/// Draw M: 0 where allowed, −∞ (hatched) where blocked; returns a clicked cell.
fn mask_panel(
    ui: &mut Ui,
    allowed: &Array2<bool>,
    rows: &[String],
    cols: &[String],
    cell: f32,
) -> Option<(usize, usize)> {
    let (t_q, t_k) = allowed.dim();
    let left = 70.0;
    let top = 16.0;
    let size = Vec2::new(left + cell * t_k as f32, top + cell * t_q as f32);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, t!("masking-m-name")));
    let painter = ui.painter_at(rect);
    let origin = rect.min + Vec2::new(left, top);
    let font = FontId::monospace((cell * 0.4).clamp(8.0, 12.0));
    // "−∞" needs about 14 points: smaller cells show the mask by colour and hatch alone.
    let numbers = cell >= 14.0;
    for ((i, j), &ok) in allowed.indexed_iter() {
        let r = Rect::from_min_size(
            origin + Vec2::new(j as f32 * cell, i as f32 * cell),
            Vec2::splat(cell),
        );
        if ok {
            painter.rect_filled(r, 0.0, Color32::from_gray(35));
            if numbers {
                painter.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    "0",
                    font.clone(),
                    Color32::from_gray(200),
                );
            }
        } else {
            painter.rect_filled(r, 0.0, Color32::from_rgb(120, 120, 120));
            let s = Stroke::new(1.0, Color32::from_rgb(90, 90, 90));
            painter.line_segment([r.left_center(), r.center_top()], s);
            painter.line_segment([r.center_bottom(), r.right_center()], s);
            if numbers {
                painter.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    "−∞",
                    font.clone(),
                    Color32::BLACK,
                );
            }
        }
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(0.5, Color32::from_gray(60)),
            egui::StrokeKind::Inside,
        );
    }
    let small = FontId::monospace(11.0);
    let text = ui.visuals().text_color();
    // Thin out labels that would overlap (hover names every cell): rows need a line of text,
    // columns the width of their widest index.
    let every_row = label_stride(cell, LABEL_SPACING);
    let digits = t_k.saturating_sub(1).to_string().len() as f32;
    let every_col = label_stride(cell, digits * 7.0 + 2.0);
    for (i, t) in rows.iter().enumerate().take(t_q).step_by(every_row) {
        let y = origin.y + (i as f32 + 0.5) * cell;
        painter.text(
            egui::pos2(origin.x - 4.0, y),
            Align2::RIGHT_CENTER,
            t,
            small.clone(),
            text,
        );
    }
    for (j, _) in cols.iter().enumerate().take(t_k).step_by(every_col) {
        let x = origin.x + (j as f32 + 0.5) * cell;
        painter.text(
            egui::pos2(x, rect.top()),
            Align2::CENTER_TOP,
            j.to_string(),
            small.clone(),
            text,
        );
    }
    let cell_at = |p: egui::Pos2| {
        let d = p - origin;
        let (i, j) = ((d.y / cell).floor(), (d.x / cell).floor());
        (i >= 0.0 && j >= 0.0 && (i as usize) < t_q && (j as usize) < t_k)
            .then_some((i as usize, j as usize))
    };
    if let Some((i, j)) = response.hover_pos().and_then(cell_at) {
        let what = if allowed[[i, j]] {
            t!("masking-m-allowed")
        } else {
            t!("masking-m-blocked")
        };
        response.clone().on_hover_text_at_pointer(t!(
            "masking-m-hover",
            row = i,
            query = rows.get(i).map_or("?", |s| s.as_str()),
            col = j,
            key = cols.get(j).map_or("?", |s| s.as_str()),
            state = what
        ));
    }
    if response.clicked() {
        response.interact_pointer_pos().and_then(cell_at)
    } else {
        None
    }
}

/// The section's UI. `layer` and `head` come from the app's selection.
pub fn ui(
    ui: &mut Ui,
    model: &Stored<'_>,
    source: &str,
    target_text: &str,
    layer: usize,
    head: usize,
    st: &mut ModesState,
) {
    let has_cross = model.config.family.has_encoder() && model.config.family.has_decoder();
    if !has_cross {
        st.target = Target::SelfAttention;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(t!("masking-attention"));
        ui.selectable_value(
            &mut st.target,
            Target::SelfAttention,
            kind(model, Target::SelfAttention).words(),
        );
        if has_cross {
            ui.selectable_value(&mut st.target, Target::Cross, t!("masking-cross"));
        }
        ui.separator();
        ui.label(t!("masking-mask"));
        for m in MaskMode::ALL {
            let chip = ui.selectable_value(&mut st.mode, m, m.label());
            crate::app::probe::control(&format!("mask:{}", m.name()), chip.rect);
        }
    });
    ui.horizontal_wrapped(|ui| {
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut st.pads, 0..=6).text(t!("masking-pads-appended")),
        );
        if st.mode == MaskMode::Prefix {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut st.prefix, 0..=12).text(t!("masking-prefix-length")),
            );
        }
    });
    ui.label(st.mode.explain());
    let trace = match run(model, source, target_text, st) {
        Ok(t) => t,
        Err(e) => {
            crate::app::models::pass_answer::show(ui, model.store(), &e);
            return;
        }
    };
    let kind = kind(model, st.target);
    let layer = layer.min(trace.layers(kind).saturating_sub(1));
    let Some(a) = trace.attention(kind, layer) else {
        ui.label(t!("masking-no-such-attention"));
        return;
    };
    let head = head.min(a.weights.len_of(Axis(0)) - 1);
    let e = match &a.bias {
        Some(b) => &a.scaled.index_axis(Axis(0), head) + &b.index_axis(Axis(0), head),
        None => a.scaled.index_axis(Axis(0), head).to_owned(),
    };
    let logits = a.logits.index_axis(Axis(0), head);
    let weights = a.weights.index_axis(Axis(0), head);
    let empty_rows: Vec<usize> = a
        .mask
        .outer_iter()
        .enumerate()
        .filter(|(_, r)| r.iter().all(|&ok| !ok))
        .map(|(i, _)| i)
        .collect();
    // Blocked cells are exported as empty (CSV) or null (JSON), not as a weight of 0.
    let mut exported = weights.to_owned();
    exported.zip_mut_with(&a.mask, |w, &ok| {
        if !ok {
            *w = f32::NAN;
        }
    });
    st.shown = Some((exported, a.query_tokens.clone(), a.key_tokens.clone()));
    ui.strong(t!(
        "masking-layer-head-kind",
        layer = layer,
        head = head,
        kind = kind.words()
    ));
    let (t_q, t_k) = a.mask.dim();
    let width = ui.available_width() / 4.0 - 10.0;
    let cell = ((width - 80.0) / t_k.max(1) as f32)
        .min(280.0 / t_q.max(1) as f32)
        .clamp(6.0, 34.0);
    let notes = row_sums(weights, a.mask.view());
    let mut clicked = None;
    let axes = (t!("masking-axis-query"), t!("masking-axis-key"));
    let axis_names = (axes.0.as_str(), axes.1.as_str());
    let contexts = [
        t!("masking-e-context"),
        t!("masking-em-context"),
        t!("masking-a-context"),
    ];
    ui.horizontal_top(|ui| {
        let scale = ColorScale::diverging_for(e.iter().chain(logits.iter()));
        ui.vertical(|ui| {
            ui.set_width(width);
            crate::app::widgets::math_text::strong(ui, &t!("masking-e-title"));
            Heatmap {
                max_cell: cell,
                axis_names,
                context: &contexts[0],
                ..Heatmap::new(e.view(), &a.query_tokens, &a.key_tokens, scale)
            }
            .show(ui);
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong(t!("masking-m-title"));
            clicked = mask_panel(ui, &a.mask, &a.query_tokens, &a.key_tokens, cell);
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong("E + M");
            Heatmap {
                allowed: Some(a.mask.view()),
                max_cell: cell,
                axis_names,
                context: &contexts[1],
                ..Heatmap::new(logits, &a.query_tokens, &a.key_tokens, scale)
            }
            .show(ui);
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong("A = softmax(E + M)");
            Heatmap {
                allowed: Some(a.mask.view()),
                show_numbers: true,
                max_cell: cell,
                axis_names,
                context: &contexts[2],
                row_notes: Some(&notes),
                ..Heatmap::new(
                    weights,
                    &a.query_tokens,
                    &a.key_tokens,
                    ColorScale::Sequential { min: 0.0, max: 1.0 },
                )
            }
            .show(ui);
        });
    });
    if let Some((i, j)) = clicked {
        // A click on M edits a custom mask, starting from the mask shown.
        let mut m = a.mask.clone();
        if st.mode == MaskMode::Custom {
            if let Some(c) = &st.custom {
                m = c.clone();
            }
        }
        m[[i, j]] = !m[[i, j]];
        st.custom = Some(m);
        st.mode = MaskMode::Custom;
    }
    let zeros = weights
        .iter()
        .zip(a.mask.iter())
        .filter(|(_, &ok)| !ok)
        .count();
    let exact = weights
        .iter()
        .zip(a.mask.iter())
        .filter(|(&w, &ok)| !ok && w == 0.0)
        .count();
    ui.label(t!("masking-zeros", zeros = zeros, exact = exact));
    if st.mode == MaskMode::Custom {
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("masking-block-row")).clicked() {
                if let Some(m) = st.custom.as_mut() {
                    m.row_mut(0).fill(false);
                }
            }
            if ui.button(t!("masking-reset-custom")).clicked() {
                st.custom = None;
            }
            let code = st.custom.as_ref().map(encode_mask).unwrap_or_default();
            ui.label(t!("masking-code"));
            ui.monospace(code);
        });
    }
    for i in empty_rows {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            t!(
                "masking-empty-row",
                row = i,
                token = a.query_tokens.get(i).map_or("?", |s| s.as_str())
            ),
        );
    }
    let _ = t_q;
}
