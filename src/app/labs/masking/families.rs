//! The three families side by side. Encoder-only, decoder-only and encoder–decoder models
//! are built from one block template; what tells them apart is which tokens each attention
//! may see. Shown on the shipped trained models: each attention's mask and the weights of
//! its sharpest last-layer head.

use crate::app::models::store::ModelStore;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::heads::sharpest_head;
use crate::model::trace::{AttentionKind, Trace};
use crate::model::transformer::ForwardOptions;
use egui::{RichText, Ui};
use ndarray::{Array2, Axis};

/// translate's own example: adjectives move and swap, so cross-attention is not diagonal.
pub const TRANSLATE_SOURCE: &str = "la zone économique européenne";
pub const TRANSLATE_TARGET: &str = "the european economic area";
pub const LM_TEXT: &str = "the cat sat";

/// Cell side of the small heatmaps (points).
const CELL: f32 = 26.0;

/// Column headings and what each column shows.
const COLUMNS: [(&str, &str); 3] = [
    (
        "encoder-only: no mask",
        "An encoder-only model (BERT-like) is this same stack on its own, with no mask. \
         Glimpse's shipped encoder-only example is the encoder of translate, here on \
         “la zone économique européenne”.",
    ),
    (
        "decoder-only: causal",
        "lm, a character-level language model (GPT-like), on “the cat sat”: one stack, \
         causal mask. The text starts with <bos>.",
    ),
    (
        "encoder–decoder: causal self + full cross",
        "translate: the encoder on the left feeds a decoder whose self-attention is causal \
         and whose cross-attention reaches every source token.",
    ),
];

/// One attention of one family: its mask and the weights of one head.
#[derive(Debug, Clone)]
pub struct FamilyAttention {
    /// Which of the three columns it belongs to.
    pub column: usize,
    /// e.g. "translate · decoder self-attention".
    pub label: String,
    /// What its queries can and cannot see.
    pub sees: &'static str,
    pub layer: usize,
    pub head: usize,
    pub query_tokens: Vec<String>,
    pub key_tokens: Vec<String>,
    /// `[T_q, T_k]`, true = allowed.
    pub mask: Array2<bool>,
    /// The mask as 1 (allowed) / 0 (blocked), for the heatmap.
    pub mask_values: Array2<f32>,
    /// `[T_q, T_k]` weights of `head` in `layer`.
    pub weights: Array2<f32>,
}

fn forward(
    store: &ModelStore,
    name: &str,
    source: &str,
    target: &str,
) -> Result<std::sync::Arc<Trace>, String> {
    let model = store.get(name)?;
    let prepared = model.prepare(source, target);
    if prepared.unknown > 0 || prepared.truncated > 0 {
        return Err(format!(
            "{}: the example has unknown or too many tokens",
            model.config.name
        ));
    }
    store.forward(name, &prepared.input, &ForwardOptions::default())
}

/// The last layer of one attention kind, with its sharpest head.
fn pick(
    trace: &Trace,
    kind: AttentionKind,
    column: usize,
    sees: &'static str,
) -> Result<FamilyAttention, String> {
    let layer = trace.layers(kind).saturating_sub(1);
    let attn = trace
        .attention(kind, layer)
        .ok_or_else(|| format!("{} has no {}", trace.model, kind.label()))?;
    let head = sharpest_head(&attn.weights);
    Ok(FamilyAttention {
        column,
        label: format!("{} · {}", trace.model, kind.label()),
        sees,
        layer,
        head,
        query_tokens: attn.query_tokens.clone(),
        key_tokens: attn.key_tokens.clone(),
        mask: attn.mask.clone(),
        mask_values: attn.mask.mapv(|ok| if ok { 1.0 } else { 0.0 }),
        weights: attn.weights.index_axis(Axis(0), head).to_owned(),
    })
}

/// The four attentions of the three families, in column order.
pub fn family_attentions(store: &ModelStore) -> Result<Vec<FamilyAttention>, String> {
    let translate = forward(store, "translate", TRANSLATE_SOURCE, TRANSLATE_TARGET)?;
    let lm = forward(store, "lm", LM_TEXT, "")?;
    Ok(vec![
        pick(
            &translate,
            AttentionKind::EncoderSelf,
            0,
            "Can see every source token, before and after itself; cannot see any output: \
             it only reads.",
        )?,
        pick(
            &lm,
            AttentionKind::DecoderSelf,
            1,
            "Can see itself and every earlier character; cannot see later ones, so it trains \
             on every position at once and then generates.",
        )?,
        pick(
            &translate,
            AttentionKind::DecoderSelf,
            2,
            "Can see <bos> and the words written so far; cannot see the words still to come.",
        )?,
        pick(
            &translate,
            AttentionKind::Cross,
            2,
            "Can see every source token at every step: the source is read in full before \
             writing starts.",
        )?,
    ])
}

/// The label and mask of each of the four attentions.
pub fn family_masks(store: &ModelStore) -> Result<Vec<(String, Array2<bool>)>, String> {
    Ok(family_attentions(store)?
        .into_iter()
        .map(|a| (a.label, a.mask))
        .collect())
}

/// The families panel; the attentions are computed on first draw and kept.
#[derive(Default)]
pub struct Families {
    computed: Option<Result<Vec<FamilyAttention>, String>>,
}

impl Families {
    pub fn ui(&mut self, ui: &mut Ui, store: &ModelStore) {
        // Computed again until it works (the models may still be loading).
        if self.computed.as_ref().is_none_or(|c| c.is_err()) {
            self.computed = Some(family_attentions(store));
        }
        let Some(computed) = &self.computed else {
            return;
        };
        egui::ScrollArea::vertical()
            .id_salt("families")
            .auto_shrink(false)
            .show(ui, |ui| contents(ui, computed));
    }
}

fn contents(ui: &mut Ui, computed: &Result<Vec<FamilyAttention>, String>) {
    ui.heading("One block, three families");
    ui.label(
        "All three stack the same block: attention, then a feed-forward layer, each with a \
         residual connection and LayerNorm. What differs is which tokens each attention may \
         see: its mask.",
    );
    ui.weak(
        "Masks: yellow = allowed (1), hatched grey = blocked (0). Weights: dark = 0, \
         yellow = 1; each row sums to 1. Hover a cell for its tokens.",
    );
    let attentions = match computed {
        Ok(a) => a,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
    };
    crate::app::widgets::fit::columns(ui, 3, 300.0, |cols| {
        for (i, (ui, (heading, intro))) in cols.iter_mut().zip(COLUMNS).enumerate() {
            ui.heading(heading);
            ui.weak(intro);
            for a in attentions.iter().filter(|a| a.column == i) {
                ui.separator();
                pane(ui, a);
            }
        }
    });
}

/// One attention: its mask, its weights, and a line on what it sees.
fn pane(ui: &mut Ui, a: &FamilyAttention) {
    ui.label(RichText::new(&a.label).strong());
    ui.label("mask (1 = allowed, 0 = blocked)");
    let mask_context = format!("{} · mask", a.label);
    small_heatmap(ui, &a.mask_values, a, &mask_context);
    ui.label(format!(
        "weights · layer {} · head {} (sharpest)",
        a.layer, a.head
    ));
    let weights_context = format!("{} · layer {} · head {}", a.label, a.layer, a.head);
    small_heatmap(ui, &a.weights, a, &weights_context);
    ui.label(a.sees);
}

fn small_heatmap(ui: &mut Ui, values: &Array2<f32>, a: &FamilyAttention, context: &str) {
    // Room for the rotated key labels above and the cells; the heatmap fits itself inside.
    let height = 130.0 + CELL * values.nrows() as f32;
    ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
        let mut map = Heatmap::new(
            values.view(),
            &a.query_tokens,
            &a.key_tokens,
            ColorScale::Sequential { min: 0.0, max: 1.0 },
        );
        map.allowed = Some(a.mask.view());
        map.max_cell = CELL;
        map.axis_names = ("query", "key");
        map.context = context;
        map.show(ui);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn the_four_masks_have_their_families_shapes() {
        let masks = family_masks(&ModelStore::default()).unwrap();
        let labels: Vec<&str> = masks.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "translate · encoder self-attention",
                "lm · decoder self-attention",
                "translate · decoder self-attention",
                "translate · cross-attention",
            ]
        );
        let (encoder, lm, decoder, cross) = (&masks[0].1, &masks[1].1, &masks[2].1, &masks[3].1);
        assert_eq!(encoder.dim(), (4, 4));
        assert!(encoder.iter().all(|&ok| ok));
        // <bos> + 11 characters.
        assert_eq!(lm.dim(), (12, 12));
        assert!(lm.indexed_iter().all(|((i, j), &ok)| ok == (j <= i)));
        // <bos> + 4 words.
        assert_eq!(decoder.dim(), (5, 5));
        assert!(decoder.indexed_iter().all(|((i, j), &ok)| ok == (j <= i)));
        assert_eq!(cross.dim(), (decoder.nrows(), encoder.nrows()));
        assert!(cross.iter().all(|&ok| ok));
    }

    #[test]
    fn weights_respect_the_masks_and_rows_sum_to_one() {
        for a in family_attentions(&ModelStore::default()).unwrap() {
            assert_eq!(a.weights.dim(), a.mask.dim(), "{}", a.label);
            for (row, mask) in a.weights.rows().into_iter().zip(a.mask.rows()) {
                assert!((row.sum() - 1.0).abs() < 1e-4, "{}", a.label);
                assert!(row.iter().zip(mask).all(|(&w, &ok)| ok || w == 0.0));
            }
        }
    }

    #[test]
    fn the_panel_draws_three_columns_of_heatmaps() {
        let store = ModelStore::default();
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                move |ui, s: &mut Families| s.ui(ui, &store),
                Families::default(),
            );
        h.run_steps(3);
        h.get_by_label("encoder-only: no mask");
        h.get_by_label("decoder-only: causal");
        h.get_by_label("encoder–decoder: causal self + full cross");
        h.get_by_label_contains("is this same stack on its own");
        assert_eq!(h.query_all_by_label_contains("heatmap ").count(), 8);
        h.get_by_label_contains("heatmap translate · cross-attention · mask");
        assert_eq!(h.query_all_by_label_contains("Can see").count(), 4);
    }
}
