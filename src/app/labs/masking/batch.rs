//! Padding in a batch: sequences of different lengths padded with `<pad>` to the longest,
//! with and without the padding mask. Without it, weight leaks onto `<pad>` and a sequence's
//! outputs change when padding is added; with it, they do not change at all.

use crate::app::models::store::Stored;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{AttentionKind, ForwardOptions, Model, ModelInput, Trace};
use crate::t;
use egui::Ui;
use ndarray::Axis;

pub struct BatchState {
    pub texts: Vec<String>,
    /// The model the texts were made for: another model gets its own.
    pub for_model: String,
    pub mask_padding: bool,
    /// `<pad>` beyond the longest sequence, to show that more padding changes nothing.
    pub extra: usize,
}

impl Default for BatchState {
    fn default() -> Self {
        Self {
            texts: Vec::new(),
            for_model: String::new(),
            mask_padding: true,
            extra: 1,
        }
    }
}

/// One sequence of the batch.
#[derive(Debug, Clone)]
pub struct SeqReport {
    pub trace: std::sync::Arc<Trace>,
    /// Real (non-pad) tokens.
    pub real: usize,
    /// Largest attention weight any real query puts on `<pad>` keys in total (any layer, head).
    pub pad_weight: f32,
    /// Largest change of a real token's stack output against the sequence run alone.
    pub drift: f32,
}

/// The stack padding goes into: the encoder when there is one (its attention is
/// bidirectional, so padding matters there); else the decoder.
fn padded_side(model: &Model) -> AttentionKind {
    if model.config.family.has_encoder() {
        AttentionKind::EncoderSelf
    } else {
        AttentionKind::DecoderSelf
    }
}

fn side(input: &mut ModelInput, kind: AttentionKind) -> &mut Vec<u32> {
    match kind {
        AttentionKind::EncoderSelf => &mut input.source,
        _ => &mut input.target,
    }
}

fn stack_output(t: &Trace, kind: AttentionKind) -> Option<&ndarray::Array2<f32>> {
    match kind {
        AttentionKind::EncoderSelf => t.encoder.as_ref().map(|s| &s.output),
        _ => t.decoder.as_ref().map(|s| &s.output),
    }
}

/// Pad every text to the longest (+ `extra`) and measure what padding does.
pub fn batch_report(
    model: &Stored<'_>,
    texts: &[String],
    mask_padding: bool,
    extra: usize,
) -> Result<Vec<SeqReport>, String> {
    let kind = padded_side(model);
    let inputs: Vec<ModelInput> = texts.iter().map(|t| model.prepare(t, "").input).collect();
    let longest = inputs.iter().map(|i| match kind {
        AttentionKind::EncoderSelf => i.source.len(),
        _ => i.target.len(),
    });
    let width = (longest.max().unwrap_or(0) + extra).min(model.config.max_len);
    let opts = ForwardOptions {
        mask_padding,
        ..Default::default()
    };
    inputs
        .into_iter()
        .map(|input| {
            let alone = model.forward(&input, &opts)?;
            let mut padded = input.clone();
            let real = side(&mut padded, kind).len();
            let encoder = kind == AttentionKind::EncoderSelf;
            super::pad_to(model, &mut padded, encoder, width);
            let trace = model.forward(&padded, &opts)?;
            // The keys that are padding: every position past the sequence's own tokens.
            let pad_keys: Vec<bool> = (0..side(&mut padded, kind).len())
                .map(|i| i >= real)
                .collect();
            let mut pad_weight = 0.0f32;
            for l in 0..trace.layers(kind) {
                let Some(a) = trace.attention(kind, l) else {
                    continue;
                };
                for w in a.weights.outer_iter() {
                    for row in w.outer_iter().take(real) {
                        let leak: f32 = row
                            .iter()
                            .zip(&pad_keys)
                            .filter(|(_, &p)| p)
                            .map(|(x, _)| x)
                            .sum();
                        pad_weight = pad_weight.max(leak);
                    }
                }
            }
            let (a, b) = (stack_output(&alone, kind), stack_output(&trace, kind));
            let drift = match (a, b) {
                (Some(a), Some(b)) => a
                    .outer_iter()
                    .zip(b.outer_iter())
                    .take(real)
                    .flat_map(|(x, y)| {
                        x.iter()
                            .zip(y)
                            .map(|(p, q)| (p - q).abs())
                            .collect::<Vec<_>>()
                    })
                    .fold(0.0f32, f32::max),
                _ => 0.0,
            };
            Ok(SeqReport {
                trace,
                real,
                pad_weight,
                drift,
            })
        })
        .collect()
}

/// Three sequences of different lengths in the model's own vocabulary: prefixes of its
/// example input (words for a word model, characters for a character model).
pub fn default_texts(model: &Model) -> Vec<String> {
    let example = crate::model::builtin::info(&model.config.name)
        .map(|b| b.example_source)
        .unwrap_or("the cat sat on the mat");
    let pieces: Vec<String> = match model.tokenizer.kind() {
        // Sub-word models split words into pieces themselves: give them whole words.
        crate::model::tokenizer::TokenizerKind::Word
        | crate::model::tokenizer::TokenizerKind::Subword => {
            example.split_whitespace().map(String::from).collect()
        }
        crate::model::tokenizer::TokenizerKind::Char => example.chars().map(String::from).collect(),
    };
    let sep = if matches!(
        model.tokenizer.kind(),
        crate::model::tokenizer::TokenizerKind::Word
            | crate::model::tokenizer::TokenizerKind::Subword
    ) {
        " "
    } else {
        ""
    };
    let n = pieces.len();
    [n.div_ceil(3), n, (2 * n).div_ceil(3)]
        .iter()
        .map(|&k| pieces[..k.clamp(1, n.max(1)).min(n)].join(sep))
        .collect()
}

pub fn ui(ui: &mut Ui, model: &Stored<'_>, layer: usize, head: usize, st: &mut BatchState) {
    if st.for_model != model.config.name || st.texts.is_empty() {
        st.texts = default_texts(model);
        st.for_model = model.config.name.clone();
    }
    let kind = padded_side(model);
    let model_name = &model.config.name;
    ui.label(if kind == AttentionKind::EncoderSelf {
        t!(
            "masking-batch-intro-encoder",
            extra = st.extra,
            model = model_name
        )
    } else {
        t!(
            "masking-batch-intro-decoder",
            extra = st.extra,
            model = model_name
        )
    });
    let mut remove = None;
    for (i, t) in st.texts.iter_mut().enumerate() {
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(t!("masking-batch-sequence", n = i + 1));
            ui.add(egui::TextEdit::singleline(t).desired_width(240.0))
                .labelled_by(l.id);
            if ui.small_button(t!("masking-batch-remove")).clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove.filter(|_| st.texts.len() > 2) {
        st.texts.remove(i);
    }
    ui.horizontal_wrapped(|ui| {
        if st.texts.len() < 4 && ui.button(t!("masking-batch-add")).clicked() {
            st.texts.push(default_texts(model).swap_remove(0));
        }
        let toggle = ui.checkbox(&mut st.mask_padding, t!("masking-batch-padding-mask"));
        crate::app::probe::control("batch:padding mask", toggle.rect);
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut st.extra, 0..=6).text(t!("masking-batch-extra")),
        );
    });
    let reports = match batch_report(model, &st.texts, st.mask_padding, st.extra) {
        Ok(r) => r,
        Err(e) => {
            crate::app::models::pass_answer::show(ui, model.store(), &e);
            return;
        }
    };
    if kind == AttentionKind::DecoderSelf {
        ui.weak(t!("masking-batch-causal-note"));
    }
    ui.horizontal_top(|ui| {
        for (i, r) in reports.iter().enumerate() {
            let Some(a) = r
                .trace
                .attention(kind, layer.min(r.trace.layers(kind).saturating_sub(1)))
            else {
                continue;
            };
            let head = head.min(a.weights.len_of(Axis(0)) - 1);
            ui.vertical(|ui| {
                ui.set_width(ui.available_width() / (reports.len() - i) as f32 - 8.0);
                ui.strong(t!(
                    "masking-batch-sequence-counts",
                    n = i + 1,
                    real = r.real,
                    pads = a.key_tokens.len() - r.real
                ));
                let (fine, wrong) = (ui.visuals().text_color(), ui.visuals().error_fg_color);
                let ok = |good: bool| if good { fine } else { wrong };
                ui.colored_label(
                    ok(r.pad_weight == 0.0),
                    t!(
                        "masking-batch-pad-weight",
                        weight = format!("{:.4}", r.pad_weight)
                    ),
                );
                ui.colored_label(
                    ok(r.drift < 1e-6),
                    if r.drift == 0.0 {
                        t!("masking-batch-identical")
                    } else {
                        t!("masking-batch-drift", change = format!("{:.2e}", r.drift))
                    },
                );
                let context = t!(
                    "masking-batch-context",
                    n = i + 1,
                    layer = layer,
                    head = head
                );
                Heatmap {
                    max_cell: 26.0,
                    ..crate::app::labs::attention::head::weights_heatmap(a, head, &context)
                }
                .show(ui);
            });
        }
    });
    ui.label(if st.mask_padding {
        t!("masking-batch-with-mask")
    } else {
        t!("masking-batch-without-mask")
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::models::store::ModelStore;
    use crate::model::builtin;

    fn texts() -> Vec<String> {
        vec!["abc".into(), "abcdefg".into(), "hagbe".into()]
    }

    #[test]
    fn default_texts_are_prefixes_in_the_models_vocabulary() {
        let t = default_texts(&builtin::load("translate").unwrap());
        assert_eq!(
            t,
            [
                "la zone",
                "la zone économique européenne",
                "la zone économique"
            ]
        );
        let t = default_texts(&builtin::load("reverse").unwrap());
        assert_eq!(t, ["abc", "abcdefgh", "abcdef"]);
    }

    #[test]
    fn with_the_padding_mask_real_tokens_do_not_change() {
        let store = ModelStore::default();
        let model = store.stored("reverse").unwrap();
        for extra in [0, 1, 4] {
            for r in batch_report(&model, &texts(), true, extra).unwrap() {
                assert_eq!(r.pad_weight, 0.0);
                assert!(r.drift < 1e-6, "extra {extra}: drift {}", r.drift);
            }
        }
    }

    #[test]
    fn without_it_weight_leaks_onto_padding_and_outputs_change() {
        let store = ModelStore::default();
        let model = store.stored("reverse").unwrap();
        let reports = batch_report(&model, &texts(), false, 2).unwrap();
        // Every sequence is padded here (extra 2), so every one is disturbed.
        for r in &reports {
            assert!(r.pad_weight > 0.01, "{}", r.pad_weight);
            assert!(r.drift > 1e-3, "{}", r.drift);
        }
    }

    #[test]
    fn a_causal_decoder_hides_right_padding_by_itself() {
        let store = ModelStore::default();
        let model = store.stored("lm").unwrap();
        for r in batch_report(&model, &texts(), false, 3).unwrap() {
            assert_eq!(r.pad_weight, 0.0);
            assert!(r.drift < 1e-6);
        }
    }
}
