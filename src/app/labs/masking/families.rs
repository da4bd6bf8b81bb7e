//! The three families side by side. Encoder-only, decoder-only and encoder–decoder models
//! are built from one block template; what tells them apart is which tokens each attention
//! may see. Shown on the shipped trained models: each attention's mask and the weights of
//! its sharpest last-layer head.

use crate::app::models::store::ModelStore;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::words::Words;
use crate::model::heads::sharpest_head;
use crate::model::trace::{AttentionKind, Trace};
use crate::model::transformer::ForwardOptions;
use crate::t;
use egui::{RichText, Ui};
use ndarray::{Array2, Axis};

/// translate's own example: adjectives move and swap, so cross-attention is not diagonal.
pub const TRANSLATE_SOURCE: &str = "la zone économique européenne";
pub const TRANSLATE_TARGET: &str = "the european economic area";
pub const LM_TEXT: &str = "the cat sat";

/// Cell side of the small heatmaps (points).
const CELL: f32 = 26.0;

/// Column headings and what each column shows.
fn columns() -> [(String, String); 3] {
    [
        (
            t!("masking-families-encoder"),
            t!("masking-families-encoder-intro", example = TRANSLATE_SOURCE),
        ),
        (
            t!("masking-families-decoder"),
            t!("masking-families-decoder-intro", example = LM_TEXT),
        ),
        (
            t!("masking-families-both"),
            t!("masking-families-both-intro"),
        ),
    ]
}

/// One attention of one family: its mask and the weights of one head.
#[derive(Debug, Clone)]
pub struct FamilyAttention {
    /// Which of the three columns it belongs to.
    pub column: usize,
    /// e.g. "translate · decoder self-attention".
    pub label: String,
    /// What its queries can and cannot see.
    pub sees: String,
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
        return Err(t!(
            "masking-families-bad-example",
            model = &model.config.name
        ));
    }
    store.forward(name, &prepared.input, &ForwardOptions::default())
}

/// The last layer of one attention kind, with its sharpest head.
fn pick(
    trace: &Trace,
    kind: AttentionKind,
    column: usize,
    sees: String,
) -> Result<FamilyAttention, String> {
    let layer = trace.layers(kind).saturating_sub(1);
    let attn = trace.attention(kind, layer).ok_or_else(|| {
        t!(
            "masking-families-no-attention",
            model = &trace.model,
            kind = kind.words()
        )
    })?;
    let head = sharpest_head(&attn.weights);
    Ok(FamilyAttention {
        column,
        label: format!("{} · {}", trace.model, kind.words()),
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
            t!("masking-families-sees-encoder"),
        )?,
        pick(
            &lm,
            AttentionKind::DecoderSelf,
            1,
            t!("masking-families-sees-lm"),
        )?,
        pick(
            &translate,
            AttentionKind::DecoderSelf,
            2,
            t!("masking-families-sees-decoder"),
        )?,
        pick(
            &translate,
            AttentionKind::Cross,
            2,
            t!("masking-families-sees-cross"),
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
    ui.heading(t!("masking-families-heading"));
    ui.label(t!("masking-families-intro"));
    ui.weak(t!("masking-families-key"));
    let attentions = match computed {
        Ok(a) => a,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
    };
    crate::app::widgets::fit::columns(ui, 3, 300.0, |cols| {
        for (i, (ui, (heading, intro))) in cols.iter_mut().zip(columns()).enumerate() {
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
    ui.label(t!("masking-families-mask"));
    let mask_context = t!("masking-families-mask-context", attention = &a.label);
    small_heatmap(ui, &a.mask_values, a, &mask_context);
    ui.label(t!(
        "masking-families-weights",
        layer = a.layer,
        head = a.head
    ));
    let weights_context = t!(
        "masking-families-weights-context",
        attention = &a.label,
        layer = a.layer,
        head = a.head
    );
    small_heatmap(ui, &a.weights, a, &weights_context);
    ui.label(&a.sees);
}

fn small_heatmap(ui: &mut Ui, values: &Array2<f32>, a: &FamilyAttention, context: &str) {
    // Room for the rotated key labels above and the cells; the heatmap fits itself inside.
    let height = 130.0 + CELL * values.nrows() as f32;
    let (query, key) = (t!("masking-axis-query"), t!("masking-axis-key"));
    ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
        let mut map = Heatmap::new(
            values.view(),
            &a.query_tokens,
            &a.key_tokens,
            ColorScale::Sequential { min: 0.0, max: 1.0 },
        );
        map.allowed = Some(a.mask.view());
        map.max_cell = CELL;
        map.axis_names = (&query, &key);
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
