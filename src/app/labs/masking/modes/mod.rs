//! Mask modes on the loaded model and the user's input: none, causal, padding, causal +
//! padding, prefix-LM and custom (click cells), for self- or cross-attention; shown as
//! E (scaled scores), M (0 / −∞), E + M and the weights A with their exact zeros.
//!
//! This file holds the modes, their state and the runs; `draw` shows them and `code` writes a
//! custom mask as text.

mod code;
mod draw;

pub use code::{decode_mask, encode_mask};
pub use draw::ui;

use crate::app::models::store::Stored;
use crate::model::{AttentionKind, ForwardOptions, MaskChoice, Model, ModelInput, Trace};
use crate::t;
use ndarray::Array2;
use std::sync::Arc;

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

    /// Its English name, for the tests' control names (`mask:prefix-LM`).
    pub fn name(self) -> &'static str {
        match self {
            MaskMode::None => "none",
            MaskMode::Causal => "causal",
            MaskMode::Padding => "padding",
            MaskMode::CausalPadding => "causal + padding",
            MaskMode::Prefix => "prefix-LM",
            MaskMode::Custom => "custom (click M)",
        }
    }

    /// Its chip's label, in the reader's language.
    pub fn label(self) -> String {
        match self {
            MaskMode::None => t!("masking-mode-none"),
            MaskMode::Causal => t!("masking-mode-causal"),
            MaskMode::Padding => t!("masking-mode-padding"),
            MaskMode::CausalPadding => t!("masking-mode-causal-padding"),
            MaskMode::Prefix => t!("masking-mode-prefix"),
            MaskMode::Custom => t!("masking-mode-custom"),
        }
    }

    fn explain(self) -> String {
        match self {
            MaskMode::None => t!("masking-mode-none-explain"),
            MaskMode::Causal => t!("masking-mode-causal-explain"),
            MaskMode::Padding => t!("masking-mode-padding-explain"),
            MaskMode::CausalPadding => t!("masking-mode-causal-padding-explain"),
            MaskMode::Prefix => t!("masking-mode-prefix-explain"),
            MaskMode::Custom => t!("masking-mode-custom-explain"),
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
    let encoder = !matches!(
        (target, model.config.family.has_decoder()),
        (Target::SelfAttention, true)
    );
    let len = if encoder {
        input.source.len()
    } else {
        input.target.len()
    };
    let padded = (len + pads).min(model.config.max_len);
    crate::app::labs::masking::pad_to(model, &mut input, encoder, padded);
    input
}

/// Run the mode; keeps the custom mask the right size (starting from the current mask).
pub fn run(
    model: &Stored<'_>,
    source: &str,
    target_text: &str,
    st: &mut ModesState,
) -> Result<Arc<Trace>, String> {
    let input = padded_input(model, source, target_text, st.target, st.pads);
    let kind = kind(model, st.target);
    let shape_now = |t: &Trace| t.attention(kind, 0).map(|a| a.mask.dim());
    if st.mode == MaskMode::Custom {
        // Size the custom mask to the input: from causal + padding when it does not fit.
        let base = model.forward(
            &input,
            &options(MaskMode::CausalPadding, st.prefix, None, st.target),
        )?;
        let dim = shape_now(&base);
        if st.custom.as_ref().map(|m| m.dim()) != dim {
            st.custom = base.attention(kind, 0).map(|a| a.mask.clone());
        }
    }
    let opts = options(st.mode, st.prefix, st.custom.as_ref(), st.target);
    model.forward(&input, &opts)
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
                t!("masking-row-no-key", row = i)
            } else {
                let sum: f64 = w.iter().map(|&x| x as f64).sum();
                t!(
                    "masking-row-sum",
                    row = i,
                    visible = visible,
                    sum = format!("{sum:.6}")
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::models::store::ModelStore;
    use crate::model::builtin;
    use ndarray::Axis;

    fn trace_for(name: &str, mode: MaskMode, target: Target) -> (Arc<Model>, Arc<Trace>) {
        let store = ModelStore::default();
        let model = store.stored(name).unwrap();
        let info = builtin::info(name).unwrap();
        let mut st = ModesState {
            mode,
            target,
            ..Default::default()
        };
        let t = run(&model, info.example_source, info.example_target, &mut st).unwrap();
        (store.get(name).unwrap(), t)
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
        let store = ModelStore::default();
        let model = store.stored("lm").unwrap();
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
        let store = ModelStore::default();
        let model = store.stored("translate").unwrap();
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
}
