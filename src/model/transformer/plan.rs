//! What a forward pass settles before any arithmetic: the checked ids of each stack, their
//! tokens and positions, and every mask (causal, prefix, custom, padding, cross-attention).

use super::{ForwardOptions, Model, ModelInput};
use crate::model::attention::{self, block_keys, causal_mask, full_mask, MaskChoice};
use crate::model::error::{ModelError, Result};
use ndarray::Array2;

/// What a forward pass settles before any arithmetic: the checked ids of a stack, their
/// tokens and positions, and its masks. The CPU path and the GPU path (`gpu/`) both start here.
#[derive(Debug, Clone)]
pub(crate) struct StackPlan {
    pub ids: Vec<u32>,
    /// Token types (empty: all 0).
    pub types: Vec<u32>,
    pub tokens: Vec<String>,
    pub positions: Vec<usize>,
    /// The self-attention mask, padding keys blocked.
    pub allowed: Array2<bool>,
    /// Which rows are `<pad>` (and masked as keys) — the encoder's become cross-attention keys.
    pub pads: Vec<bool>,
    /// A user's cross-attention mask `[T, T_src]` (decoder of an encoder–decoder only).
    pub cross_allowed: Option<Array2<bool>>,
}

#[derive(Debug, Clone)]
pub(crate) struct ForwardPlan {
    pub encoder: Option<StackPlan>,
    pub decoder: Option<StackPlan>,
}

/// The cross-attention mask of `t` queries over a memory whose pad keys are `mem_pad`.
pub(crate) fn cross_attention_mask(
    user: Option<&Array2<bool>>,
    t: usize,
    mem_pad: &[bool],
) -> Array2<bool> {
    let mut allowed = user.cloned().unwrap_or_else(|| full_mask(t, mem_pad.len()));
    block_keys(&mut allowed, mem_pad);
    allowed
}

impl Model {
    fn self_mask(
        &self,
        choice: &MaskChoice,
        causal_default: bool,
        t: usize,
    ) -> Result<Array2<bool>> {
        let pos: Vec<usize> = (0..t).collect();
        Ok(match choice {
            MaskChoice::Default if causal_default => causal_mask(&pos, &pos),
            MaskChoice::Default | MaskChoice::None => full_mask(t, t),
            MaskChoice::Causal => causal_mask(&pos, &pos),
            MaskChoice::Prefix(n) => attention::prefix_mask(t, *n),
            MaskChoice::Custom(m) => {
                if m.dim() != (t, t) {
                    return Err(ModelError::Input(format!(
                        "the custom mask is {}×{} but the input has {t} tokens",
                        m.nrows(),
                        m.ncols()
                    )));
                }
                m.clone()
            }
        })
    }

    /// A user's cross-attention mask over `t` target rows and `s` source keys: causal and
    /// prefix compare target and source positions as if the two were aligned.
    fn cross_mask(&self, choice: &MaskChoice, t: usize, s: usize) -> Result<Array2<bool>> {
        let (q, k): (Vec<usize>, Vec<usize>) = ((0..t).collect(), (0..s).collect());
        Ok(match choice {
            MaskChoice::Default | MaskChoice::None => full_mask(t, s),
            MaskChoice::Causal => causal_mask(&q, &k),
            MaskChoice::Prefix(n) => Array2::from_shape_fn((t, s), |(i, j)| j <= i || j < *n),
            MaskChoice::Custom(m) => {
                if m.dim() != (t, s) {
                    return Err(ModelError::Input(format!(
                        "the custom cross-attention mask is {}×{} but the input is {t}×{s}",
                        m.nrows(),
                        m.ncols()
                    )));
                }
                m.clone()
            }
        })
    }

    fn pads(&self, ids: &[u32], opts: &ForwardOptions) -> Vec<bool> {
        // A pad id that doubles as BOS or EOS (SmolLM2 pads with its EOS) marks no padding:
        // those tokens are real input.
        let s = self.tokenizer.specials();
        let pad = s.pad.filter(|&p| s.bos != Some(p) && s.eos != Some(p));
        ids.iter()
            .map(|&i| opts.mask_padding && Some(i) == pad)
            .collect()
    }

    /// The encoder's plan over `source` (the user's mask applies here only in encoder-only
    /// models).
    pub(super) fn encoder_plan(
        &self,
        source: &[u32],
        types: &[u32],
        opts: &ForwardOptions,
        user_mask: bool,
    ) -> Result<StackPlan> {
        self.check_ids(source, "source")?;
        let t = source.len();
        self.check_types(types, t)?;
        let choice = if user_mask {
            &opts.self_mask
        } else {
            &MaskChoice::Default
        };
        let mut allowed = self.self_mask(choice, false, t)?;
        let pads = self.pads(source, opts);
        block_keys(&mut allowed, &pads);
        Ok(StackPlan {
            ids: source.to_vec(),
            types: types.to_vec(),
            tokens: self.tokenizer.tokens(source),
            positions: (0..t).collect(),
            allowed,
            pads,
            cross_allowed: None,
        })
    }

    /// Checks the input and options and settles every mask, for either path.
    pub(crate) fn plan(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<ForwardPlan> {
        self.check_options(opts)?;
        let family = self.config.family;
        let encoder = if family.has_encoder() {
            Some(self.encoder_plan(
                &input.source,
                &input.source_types,
                opts,
                !family.has_decoder(),
            )?)
        } else {
            None
        };
        let decoder = if family.has_decoder() {
            self.check_ids(&input.target, "target")?;
            let t = input.target.len();
            let mut allowed = self.self_mask(&opts.self_mask, self.config.causal, t)?;
            let pads = self.pads(&input.target, opts);
            block_keys(&mut allowed, &pads);
            let cross_allowed = match (&opts.cross_mask, &encoder) {
                (MaskChoice::Default | MaskChoice::None, _) | (_, None) => None,
                (choice, Some(_)) => Some(self.cross_mask(choice, t, input.source.len())?),
            };
            Some(StackPlan {
                ids: input.target.clone(),
                types: Vec::new(),
                tokens: self.tokenizer.tokens(&input.target),
                positions: (0..t).collect(),
                allowed,
                pads,
                cross_allowed,
            })
        } else {
            None
        };
        Ok(ForwardPlan { encoder, decoder })
    }
}
