//! Mask modes on the loaded model and the user's input: none, causal, padding, causal +
//! padding, prefix-LM and custom (click cells), for self- or cross-attention; shown as
//! E (scaled scores), M (0 / −∞), E + M and the weights A with their exact zeros.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::tokenizer::PAD;
use crate::model::{AttentionKind, ForwardOptions, MaskChoice, Model, ModelInput, Trace};
use egui::{Align2, Color32, FontId, Rect, Sense, Stroke, Ui, Vec2};
use ndarray::{Array2, Axis};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskMode {
    None,
    Causal,
    Padding,
    CausalPadding,
    Prefix,
    Custom,
}

impl MaskMode {
    pub const ALL: [MaskMode; 6] = [
        MaskMode::None,
        MaskMode::Causal,
        MaskMode::Padding,
        MaskMode::CausalPadding,
        MaskMode::Prefix,
        MaskMode::Custom,
    ];

    pub fn label(self) -> &'static str {
        match self {
            MaskMode::None => "none",
            MaskMode::Causal => "causal",
            MaskMode::Padding => "padding",
            MaskMode::CausalPadding => "causal + padding",
            MaskMode::Prefix => "prefix-LM",
            MaskMode::Custom => "custom (click M)",
        }
    }

    fn explain(self) -> &'static str {
        match self {
            MaskMode::None => "Every query sees every key, <pad> included.",
            MaskMode::Causal => "A query sees itself and earlier positions only: what a decoder needs so it cannot read the answer it is asked to predict.",
            MaskMode::Padding => "Keys that are <pad> are blocked for every query; everything else is visible.",
            MaskMode::CausalPadding => "Both: earlier positions only, and never <pad>.",
            MaskMode::Prefix => "The first n positions see each other both ways (the prompt); after them, causal.",
            MaskMode::Custom => "Your own mask: click a cell of M to block or allow it.",
        }
    }
}

/// Which attention the mask is applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    SelfAttention,
    Cross,
}

pub struct ModesState {
    pub target: Target,
    pub mode: MaskMode,
    /// Prefix length for prefix-LM.
    pub prefix: usize,
    /// `<pad>` tokens appended to the masked sequence, as in a batch.
    pub pads: usize,
    /// The user's own mask (custom mode).
    pub custom: Option<Array2<bool>>,
    /// The weights A last drawn (NaN where masked) with their query and key tokens: what the
    /// lab's CSV/JSON export saves.
    pub shown: Option<(Array2<f32>, Vec<String>, Vec<String>)>,
}

impl Default for ModesState {
    fn default() -> Self {
        Self {
            target: Target::SelfAttention,
            mode: MaskMode::CausalPadding,
            prefix: 3,
            pads: 2,
            custom: None,
            shown: None,
        }
    }
}

/// The mask options of a mode.
pub fn options(
    mode: MaskMode,
    prefix: usize,
    custom: Option<&Array2<bool>>,
    target: Target,
) -> ForwardOptions {
    let (choice, mask_padding) = match mode {
        MaskMode::None => (MaskChoice::None, false),
        MaskMode::Causal => (MaskChoice::Causal, false),
        MaskMode::Padding => (MaskChoice::None, true),
        MaskMode::CausalPadding => (MaskChoice::Causal, true),
        MaskMode::Prefix => (MaskChoice::Prefix(prefix), true),
        MaskMode::Custom => (
            custom.map_or(MaskChoice::None, |m| MaskChoice::Custom(m.clone())),
            false,
        ),
    };
    let mut opts = ForwardOptions {
        mask_padding,
        ..Default::default()
    };
    match target {
        Target::SelfAttention => opts.self_mask = choice,
        Target::Cross => opts.cross_mask = choice,
    }
    opts
}

/// The attention a target means for a model.
pub fn kind(model: &Model, target: Target) -> AttentionKind {
    match (target, model.config.family.has_decoder()) {
        (Target::Cross, _) => AttentionKind::Cross,
        (Target::SelfAttention, true) => AttentionKind::DecoderSelf,
        (Target::SelfAttention, false) => AttentionKind::EncoderSelf,
    }
}

/// The user's text with `pads` `<pad>` tokens after the sequence the mask looks at: the keys
/// of cross-attention are the source; self-attention's are the decoder's (or encoder's).
pub fn padded_input(
    model: &Model,
    source: &str,
    target_text: &str,
    target: Target,
    pads: usize,
) -> ModelInput {
    let mut input = model.prepare(source, target_text).input;
    let max = model.config.max_len;
    let side = match (target, model.config.family.has_decoder()) {
        (Target::SelfAttention, true) => &mut input.target,
        _ => &mut input.source,
    };
    let room = max.saturating_sub(side.len());
    side.extend(std::iter::repeat_n(PAD, pads.min(room)));
    input
}

/// Run the mode; keeps the custom mask the right size (starting from the current mask).
pub fn run(
    model: &Model,
    source: &str,
    target_text: &str,
    st: &mut ModesState,
) -> Result<Trace, String> {
    let input = padded_input(model, source, target_text, st.target, st.pads);
    let kind = kind(model, st.target);
    let shape_now = |t: &Trace| t.attention(kind, 0).map(|a| a.mask.dim());
    if st.mode == MaskMode::Custom {
        // Size the custom mask to the input: from causal + padding when it does not fit.
        let base = model
            .forward(
                &input,
                &options(MaskMode::CausalPadding, st.prefix, None, st.target),
            )
            .map_err(|e| e.to_string())?;
        let dim = shape_now(&base);
        if st.custom.as_ref().map(|m| m.dim()) != dim {
            st.custom = base.attention(kind, 0).map(|a| a.mask.clone());
        }
    }
    let opts = options(st.mode, st.prefix, st.custom.as_ref(), st.target);
    model.forward(&input, &opts).map_err(|e| e.to_string())
}

/// "row 2: 3 visible keys, weights sum to 1.000000" for every query row.
pub fn row_sums(
    weights: ndarray::ArrayView2<f32>,
    allowed: ndarray::ArrayView2<bool>,
) -> Vec<String> {
    weights
        .outer_iter()
        .zip(allowed.outer_iter())
        .enumerate()
        .map(|(i, (w, a))| {
            let visible = a.iter().filter(|&&ok| ok).count();
            if visible == 0 {
                format!("row {i}: no visible key, so all weights are 0 and this head passes nothing to this token")
            } else {
                let sum: f64 = w.iter().map(|&x| x as f64).sum();
                format!("row {i}: {visible} visible key(s); remaining weights sum to {sum:.6}")
            }
        })
        .collect()
}

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
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "mask M"));
    let painter = ui.painter_at(rect);
    let origin = rect.min + Vec2::new(left, top);
    let font = FontId::monospace((cell * 0.4).clamp(8.0, 12.0));
    for ((i, j), &ok) in allowed.indexed_iter() {
        let r = Rect::from_min_size(
            origin + Vec2::new(j as f32 * cell, i as f32 * cell),
            Vec2::splat(cell),
        );
        if ok {
            painter.rect_filled(r, 0.0, Color32::from_gray(35));
            painter.text(
                r.center(),
                Align2::CENTER_CENTER,
                "0",
                font.clone(),
                Color32::from_gray(200),
            );
        } else {
            painter.rect_filled(r, 0.0, Color32::from_rgb(120, 120, 120));
            let s = Stroke::new(1.0, Color32::from_rgb(90, 90, 90));
            painter.line_segment([r.left_center(), r.center_top()], s);
            painter.line_segment([r.center_bottom(), r.right_center()], s);
            painter.text(
                r.center(),
                Align2::CENTER_CENTER,
                "−∞",
                font.clone(),
                Color32::BLACK,
            );
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
    for (i, t) in rows.iter().enumerate().take(t_q) {
        let y = origin.y + (i as f32 + 0.5) * cell;
        painter.text(
            egui::pos2(origin.x - 4.0, y),
            Align2::RIGHT_CENTER,
            t,
            small.clone(),
            text,
        );
    }
    for (j, _) in cols.iter().enumerate().take(t_k) {
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
            "0: allowed"
        } else {
            "−∞: blocked"
        };
        response.clone().on_hover_text_at_pointer(format!(
            "query {i} “{}” → key {j} “{}”: {what}\nclick to toggle (custom mask)",
            rows.get(i).map_or("?", |s| s.as_str()),
            cols.get(j).map_or("?", |s| s.as_str())
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
    model: &Model,
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
        ui.label("attention:");
        ui.selectable_value(
            &mut st.target,
            Target::SelfAttention,
            kind(model, Target::SelfAttention).label(),
        );
        if has_cross {
            ui.selectable_value(&mut st.target, Target::Cross, "cross-attention");
        }
        ui.separator();
        ui.label("mask:");
        for m in MaskMode::ALL {
            let chip = ui.selectable_value(&mut st.mode, m, m.label());
            crate::app::probe::control(&format!("mask:{}", m.label()), chip.rect);
        }
    });
    ui.horizontal_wrapped(|ui| {
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut st.pads, 0..=6).text("<pad> tokens appended"),
        );
        if st.mode == MaskMode::Prefix {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut st.prefix, 0..=12).text("prefix length n"),
            );
        }
    });
    ui.label(st.mode.explain());
    let trace = match run(model, source, target_text, st) {
        Ok(t) => t,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
    };
    let kind = kind(model, st.target);
    let layer = layer.min(trace.layers(kind).saturating_sub(1));
    let Some(a) = trace.attention(kind, layer) else {
        ui.label("this model has no such attention");
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
    ui.strong(format!("layer {layer} · head {head} · {}", kind.label()));
    let (t_q, t_k) = a.mask.dim();
    let width = ui.available_width() / 4.0 - 10.0;
    let cell = ((width - 80.0) / t_k.max(1) as f32)
        .min(280.0 / t_q.max(1) as f32)
        .clamp(6.0, 34.0);
    let notes = row_sums(weights, a.mask.view());
    let mut clicked = None;
    ui.horizontal_top(|ui| {
        let scale = ColorScale::diverging_for(e.iter().chain(logits.iter()));
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong("E = QKᵀ/√d_k (+ bias)");
            Heatmap {
                max_cell: cell,
                axis_names: ("query", "key"),
                context: "E: scaled scores",
                ..Heatmap::new(e.view(), &a.query_tokens, &a.key_tokens, scale)
            }
            .show(ui);
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong("M (0 or −∞)");
            clicked = mask_panel(ui, &a.mask, &a.query_tokens, &a.key_tokens, cell);
        });
        ui.vertical(|ui| {
            ui.set_width(width);
            ui.strong("E + M");
            Heatmap {
                allowed: Some(a.mask.view()),
                max_cell: cell,
                axis_names: ("query", "key"),
                context: "E + M: the softmax input",
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
                axis_names: ("query", "key"),
                context: "A: weights (blocked cells are exactly 0)",
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
    ui.label(format!(
        "{zeros} blocked cell(s); their weights are exactly 0 in {exact} of them. Hover a row of A: its remaining weights still sum to 1."
    ));
    if st.mode == MaskMode::Custom {
        ui.horizontal_wrapped(|ui| {
            if ui.button("block every key of query row 0").clicked() {
                if let Some(m) = st.custom.as_mut() {
                    m.row_mut(0).fill(false);
                }
            }
            if ui.button("reset to causal + padding").clicked() {
                st.custom = None;
            }
            let code = st.custom.as_ref().map(encode_mask).unwrap_or_default();
            ui.label("mask code:");
            ui.monospace(code);
        });
    }
    for i in empty_rows {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "Query row {i} (“{}”) has no visible key. A softmax over nothing is undefined (PyTorch gives NaN, which would spread through every later layer); Glimpse gives the row all-zero weights, so this head passes nothing to that token and its residual stream carries on unchanged.",
                a.query_tokens.get(i).map_or("?", |s| s.as_str())
            ),
        );
    }
    let _ = t_q;
}

/// A mask as text, for links and saved state: `ROWSxCOLS:` then the cells row-major as
/// hex digits of four cells each (1 = allowed).
pub fn encode_mask(m: &Array2<bool>) -> String {
    let (r, c) = m.dim();
    let bits: Vec<bool> = m.iter().copied().collect();
    let hex: String = bits
        .chunks(4)
        .map(|ch| {
            let v = ch
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | ((b as u32) << (3 - i)));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect();
    format!("{r}x{c}:{hex}")
}

/// The inverse of `encode_mask`; a clear message for anything else.
pub fn decode_mask(text: &str) -> Result<Array2<bool>, String> {
    let bad = || {
        format!(
            "not a mask code: {:?} (expected ROWSxCOLS:HEX)",
            text.chars().take(40).collect::<String>()
        )
    };
    let (dims, hex) = text.split_once(':').ok_or_else(bad)?;
    let (r, c) = dims.split_once('x').ok_or_else(bad)?;
    let (r, c): (usize, usize) = (r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?);
    if r == 0 || c == 0 || r > 512 || c > 512 {
        return Err(format!(
            "a mask must be 1 to 512 cells each way, not {r}×{c}"
        ));
    }
    if hex.len() != (r * c).div_ceil(4) {
        return Err(format!(
            "a {r}×{c} mask needs {} hex digits, got {}",
            (r * c).div_ceil(4),
            hex.len()
        ));
    }
    let mut bits = Vec::with_capacity(r * c);
    for ch in hex.chars() {
        let v = ch.to_digit(16).ok_or_else(bad)?;
        for i in 0..4 {
            bits.push(v & (1 << (3 - i)) != 0);
        }
    }
    bits.truncate(r * c);
    Array2::from_shape_vec((r, c), bits).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    fn trace_for(name: &str, mode: MaskMode, target: Target) -> (Model, Trace) {
        let model = builtin::load(name).unwrap();
        let info = builtin::info(name).unwrap();
        let mut st = ModesState {
            mode,
            target,
            ..Default::default()
        };
        let t = run(&model, info.example_source, info.example_target, &mut st).unwrap();
        (model, t)
    }

    #[test]
    fn blocked_weights_are_exactly_zero_in_every_mode() {
        for name in ["translate", "lm", "reverse"] {
            for mode in MaskMode::ALL {
                for target in [Target::SelfAttention, Target::Cross] {
                    let (model, t) = trace_for(name, mode, target);
                    let kind = kind(&model, target);
                    let Some(a) = t.attention(kind, 0) else {
                        continue;
                    };
                    for w in a.weights.outer_iter() {
                        for (x, &ok) in w.iter().zip(&a.mask) {
                            assert!(ok || *x == 0.0, "{name} {mode:?} {target:?}");
                        }
                        for (row, m) in w.outer_iter().zip(a.mask.outer_iter()) {
                            if m.iter().any(|&ok| ok) {
                                assert!((row.sum() - 1.0).abs() < 1e-5);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn modes_build_the_masks_they_name() {
        let model = builtin::load("lm").unwrap();
        let mut st = ModesState {
            mode: MaskMode::Prefix,
            prefix: 4,
            pads: 2,
            ..Default::default()
        };
        let t = run(&model, "the cat", "", &mut st).unwrap();
        let a = t.attention(AttentionKind::DecoderSelf, 0).unwrap();
        let n = a.mask.nrows();
        let pad: Vec<bool> = a.key_tokens.iter().map(|k| k == "<pad>").collect();
        assert_eq!(pad.iter().filter(|&&p| p).count(), 2);
        for ((i, j), &ok) in a.mask.indexed_iter() {
            assert_eq!(
                ok,
                (j <= i || j < 4) && !pad[j],
                "prefix-LM at ({i}, {j}) of {n}"
            );
        }
        st.mode = MaskMode::None;
        let t = run(&model, "the cat", "", &mut st).unwrap();
        assert!(t
            .attention(AttentionKind::DecoderSelf, 0)
            .unwrap()
            .mask
            .iter()
            .all(|&ok| ok));
        st.mode = MaskMode::Padding;
        let t = run(&model, "the cat", "", &mut st).unwrap();
        let a = t.attention(AttentionKind::DecoderSelf, 0).unwrap();
        for ((_, j), &ok) in a.mask.indexed_iter() {
            assert_eq!(ok, !pad[j]);
        }
    }

    #[test]
    fn cross_attention_masks_apply_to_cross_attention_only() {
        let (model, t) = trace_for("translate", MaskMode::Causal, Target::Cross);
        let cross = t.attention(AttentionKind::Cross, 1).unwrap();
        for ((i, j), &ok) in cross.mask.indexed_iter() {
            assert_eq!(ok, j <= i);
        }
        // The decoder's own mask stays causal, the encoder's open.
        let own = t.attention(AttentionKind::DecoderSelf, 0).unwrap();
        assert!(own.mask.indexed_iter().all(|((i, j), &ok)| ok == (j <= i)));
        assert!(t
            .attention(AttentionKind::EncoderSelf, 0)
            .unwrap()
            .mask
            .iter()
            .all(|&ok| ok));
        let _ = model;
    }

    #[test]
    fn a_custom_mask_with_a_blocked_row_gives_zeros_not_nan() {
        let model = builtin::load("translate").unwrap();
        let mut st = ModesState {
            mode: MaskMode::Custom,
            ..Default::default()
        };
        run(&model, "la zone", "the area", &mut st).unwrap();
        st.custom.as_mut().unwrap().row_mut(0).fill(false);
        let t = run(&model, "la zone", "the area", &mut st).unwrap();
        let a = t.attention(AttentionKind::DecoderSelf, 1).unwrap();
        assert!(a.weights.index_axis(Axis(1), 0).iter().all(|&w| w == 0.0));
        assert!(t.logits.iter().all(|x| x.is_finite()));
        assert!(
            row_sums(a.weights.index_axis(Axis(0), 0), a.mask.view())[0].contains("no visible key")
        );
    }

    #[test]
    fn custom_masks_round_trip_through_their_code() {
        let m = Array2::from_shape_fn((5, 7), |(i, j)| (i * 7 + j) % 3 != 0);
        let code = encode_mask(&m);
        assert!(code.starts_with("5x7:"));
        assert_eq!(decode_mask(&code).unwrap(), m);
        for bad in [
            "",
            "5x7",
            "5x7:zz",
            "0x3:",
            "5x7:fff",
            "axb:00",
            "600x600:0",
        ] {
            assert!(decode_mask(bad).is_err(), "{bad}");
        }
    }
}
