//! The model's parameters, and the one mapping between them and the named tensors of a
//! checkpoint (docs/FORMAT.md). Loading, saving and random initialisation all go through
//! `tensor_specs`, so the three can never disagree about a name or a shape.

//!
//! [`specs`] lists every tensor a config needs and checks tensors against it; this module
//! holds the weights themselves and builds them from named tensors.

use super::config::{ModelConfig, NormPlacement, OutputHead, Positional, Scoring};
use super::error::{ModelError, Result};
use super::layers::{FfnWeights, LayerNormWeights};
pub use super::vocab_table::VocabTable;
use ndarray::{Array1, Array2, Array3, ArrayD, ArrayViewD, ArrayViewMutD, Dimension};
use std::collections::BTreeMap;

mod specs;

pub use specs::{
    check_shapes, check_tensors, init_tensors, parameter_count, tensor_specs, Init, TensorSpec,
};

/// Lists every parameter of a `Weights` with its checkpoint name. One listing serves the
/// shared visitor (`view`) and the mutable one (`view_mut`, `mut`).
macro_rules! visit_params {
    ($w:expr, $f:expr, $view:ident $(, $m:tt)?) => {{
        let w = $w;
        // A table kept in a quantized file's blocks is not an f32 parameter (`quantized_tables`).
        if let VocabTable::F32(t) = & $($m)? w.tok_embed {
            $f("tok_embed".into(), t.$view().into_dyn());
        }
        if let Some(p) = & $($m)? w.pos_embed {
            $f("pos_embed".into(), p.$view().into_dyn());
        }
        if let Some(p) = & $($m)? w.type_embed {
            $f("type_embed".into(), p.$view().into_dyn());
        }
        if let Some(ln) = & $($m)? w.embed_norm {
            $f("embed_ln.gamma".into(), ln.gamma.$view().into_dyn());
            $f("embed_ln.beta".into(), ln.beta.$view().into_dyn());
        }
        for (s, stack) in [("enc", & $($m)? w.encoder), ("dec", & $($m)? w.decoder)] {
            let Some(stack) = stack else { continue };
            for (l, b) in (& $($m)? stack.blocks).into_iter().enumerate() {
                let p = format!("{s}.{l}");
                $f(format!("{p}.ln_attn.gamma"), b.ln_attn.gamma.$view().into_dyn());
                $f(format!("{p}.ln_attn.beta"), b.ln_attn.beta.$view().into_dyn());
                visit_params!(@attn $f, format!("{p}.self_attn"), & $($m)? b.self_attn, $view $(, $m)?);
                if let Some((ln, a)) = & $($m)? b.cross {
                    $f(format!("{p}.ln_cross.gamma"), ln.gamma.$view().into_dyn());
                    $f(format!("{p}.ln_cross.beta"), ln.beta.$view().into_dyn());
                    visit_params!(@attn $f, format!("{p}.cross_attn"), a, $view $(, $m)?);
                }
                $f(format!("{p}.ln_ffn.gamma"), b.ln_ffn.gamma.$view().into_dyn());
                $f(format!("{p}.ln_ffn.beta"), b.ln_ffn.beta.$view().into_dyn());
                $f(format!("{p}.ffn.w1"), b.ffn.w1.$view().into_dyn());
                $f(format!("{p}.ffn.b1"), b.ffn.b1.$view().into_dyn());
                $f(format!("{p}.ffn.w2"), b.ffn.w2.$view().into_dyn());
                $f(format!("{p}.ffn.b2"), b.ffn.b2.$view().into_dyn());
                if let Some((w_g, b_g)) = & $($m)? b.ffn.gate {
                    $f(format!("{p}.ffn.w_gate"), w_g.$view().into_dyn());
                    $f(format!("{p}.ffn.b_gate"), b_g.$view().into_dyn());
                }
            }
            if let Some(ln) = & $($m)? stack.ln_f {
                $f(format!("{s}.ln_f.gamma"), ln.gamma.$view().into_dyn());
                $f(format!("{s}.ln_f.beta"), ln.beta.$view().into_dyn());
            }
        }
        if let Some(t) = & $($m)? w.mlm {
            $f("mlm.dense".into(), t.w.$view().into_dyn());
            $f("mlm.dense_bias".into(), t.b.$view().into_dyn());
            $f("mlm.ln.gamma".into(), t.norm.gamma.$view().into_dyn());
            $f("mlm.ln.beta".into(), t.norm.beta.$view().into_dyn());
        }
        if let Some(VocabTable::F32(h)) = & $($m)? w.lm_head {
            $f("lm_head.weight".into(), h.$view().into_dyn());
        }
        if let Some(b) = & $($m)? w.lm_bias {
            $f("lm_head.bias".into(), b.$view().into_dyn());
        }
    }};
    (@attn $f:expr, $p:expr, $a:expr, $view:ident $(, $m:tt)?) => {{
        let (p, a) = ($p, $a);
        match & $($m)? a.projection {
            Projection::Fused { w_qkv, b_qkv } => {
                $f(format!("{p}.w_qkv"), w_qkv.$view().into_dyn());
                $f(format!("{p}.b_qkv"), b_qkv.$view().into_dyn());
            }
            Projection::Cross { w_q, b_q, w_kv, b_kv } => {
                $f(format!("{p}.w_q"), w_q.$view().into_dyn());
                $f(format!("{p}.b_q"), b_q.$view().into_dyn());
                $f(format!("{p}.w_kv"), w_kv.$view().into_dyn());
                $f(format!("{p}.b_kv"), b_kv.$view().into_dyn());
            }
        }
        $f(format!("{p}.w_o"), a.w_o.$view().into_dyn());
        $f(format!("{p}.b_o"), a.b_o.$view().into_dyn());
        match & $($m)? a.score {
            ScoreWeights::Dot => {}
            ScoreWeights::Bilinear { w } => $f(format!("{p}.score_w"), w.$view().into_dyn()),
            ScoreWeights::Additive { w, u, v } => {
                $f(format!("{p}.score_w"), w.$view().into_dyn());
                $f(format!("{p}.score_u"), u.$view().into_dyn());
                $f(format!("{p}.score_v"), v.$view().into_dyn());
            }
        }
        if let Some(r) = & $($m)? a.rel_bias {
            $f(format!("{p}.rel_bias"), r.$view().into_dyn());
        }
    }};
}

/// Named tensors, as in a checkpoint file.
pub type TensorMap = BTreeMap<String, ArrayD<f32>>;

/// The score function's own parameters, per head.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreWeights {
    Dot,
    /// `vᵀ tanh(W q + U k)`: `w`, `u` are `[H, h, h]`, `v` is `[H, h]`.
    Additive {
        w: Array3<f32>,
        u: Array3<f32>,
        v: Array2<f32>,
    },
    /// `qᵀ W k`: `w` is `[H, h, h]`.
    Bilinear {
        w: Array3<f32>,
    },
}

/// How queries, keys and values are projected.
#[derive(Debug, Clone, PartialEq)]
pub enum Projection {
    /// Self-attention: one fused matrix, rows Q heads, then K heads, then V heads.
    Fused {
        w_qkv: Array2<f32>,
        b_qkv: Array1<f32>,
    },
    /// Cross-attention: queries from the decoder, keys and values from the encoder memory.
    Cross {
        w_q: Array2<f32>,
        b_q: Array1<f32>,
        w_kv: Array2<f32>,
        b_kv: Array1<f32>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttentionWeights {
    pub projection: Projection,
    pub w_o: Array2<f32>,
    pub b_o: Array1<f32>,
    pub score: ScoreWeights,
    /// `[H, 2K+1]` learned relative bias (self-attention of `relative` models).
    pub rel_bias: Option<Array2<f32>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlockWeights {
    pub ln_attn: LayerNormWeights,
    pub self_attn: AttentionWeights,
    pub cross: Option<(LayerNormWeights, AttentionWeights)>,
    pub ln_ffn: LayerNormWeights,
    pub ffn: FfnWeights,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StackWeights {
    pub blocks: Vec<BlockWeights>,
    /// Final LayerNorm of a pre-norm stack.
    pub ln_f: Option<LayerNormWeights>,
}

/// BERT's masked-LM transform before the vocabulary projection: `LN(act(h Wᵀ + b))`.
#[derive(Debug, Clone, PartialEq)]
pub struct MlmTransform {
    pub w: Array2<f32>,
    pub b: Array1<f32>,
    pub norm: LayerNormWeights,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// `[V, d]` token embeddings E.
    pub tok_embed: VocabTable,
    pub pos_embed: Option<Array2<f32>>,
    /// `[types, d]` token-type (segment) embeddings, when the config has token types.
    pub type_embed: Option<Array2<f32>>,
    /// LayerNorm over the embedding sum (BERT).
    pub embed_norm: Option<LayerNormWeights>,
    pub encoder: Option<StackWeights>,
    pub decoder: Option<StackWeights>,
    /// Masked-LM heads only.
    pub mlm: Option<MlmTransform>,
    /// `None` when the output projection is tied to `tok_embed` (or there is no head).
    pub lm_head: Option<VocabTable>,
    /// `None` when the model has no output head.
    pub lm_bias: Option<Array1<f32>>,
}

/// Takes tensors out of a map that `check_tensors` accepted.
struct Taker {
    map: TensorMap,
}

impl Taker {
    fn take<D: Dimension>(&mut self, name: &str) -> Result<ndarray::Array<f32, D>> {
        let t = self
            .map
            .remove(name)
            .ok_or_else(|| ModelError::MissingTensor(name.to_string()))?;
        let found = t.shape().to_vec();
        t.into_dimensionality::<D>()
            .map_err(|_| ModelError::ShapeMismatch {
                name: name.to_string(),
                expected: vec![],
                found,
            })
    }

    fn norm(&mut self, p: &str) -> Result<LayerNormWeights> {
        Ok(LayerNormWeights {
            gamma: self.take(&format!("{p}.gamma"))?,
            beta: self.take(&format!("{p}.beta"))?,
        })
    }

    fn attention(&mut self, cfg: &ModelConfig, p: &str, cross: bool) -> Result<AttentionWeights> {
        let projection = if cross {
            Projection::Cross {
                w_q: self.take(&format!("{p}.w_q"))?,
                b_q: self.take(&format!("{p}.b_q"))?,
                w_kv: self.take(&format!("{p}.w_kv"))?,
                b_kv: self.take(&format!("{p}.b_kv"))?,
            }
        } else {
            Projection::Fused {
                w_qkv: self.take(&format!("{p}.w_qkv"))?,
                b_qkv: self.take(&format!("{p}.b_qkv"))?,
            }
        };
        let score = match cfg.scoring {
            Scoring::ScaledDot => ScoreWeights::Dot,
            Scoring::Bilinear => ScoreWeights::Bilinear {
                w: self.take(&format!("{p}.score_w"))?,
            },
            Scoring::Additive => ScoreWeights::Additive {
                w: self.take(&format!("{p}.score_w"))?,
                u: self.take(&format!("{p}.score_u"))?,
                v: self.take(&format!("{p}.score_v"))?,
            },
        };
        let rel_bias = match (cfg.positional, cross) {
            (Positional::Relative { .. }, false) => Some(self.take(&format!("{p}.rel_bias"))?),
            _ => None,
        };
        Ok(AttentionWeights {
            projection,
            w_o: self.take(&format!("{p}.w_o"))?,
            b_o: self.take(&format!("{p}.b_o"))?,
            score,
            rel_bias,
        })
    }

    fn stack(&mut self, cfg: &ModelConfig, s: &str, cross: bool) -> Result<StackWeights> {
        let mut blocks = Vec::with_capacity(cfg.n_layers);
        for l in 0..cfg.n_layers {
            let ln_attn = self.norm(&format!("{s}.{l}.ln_attn"))?;
            let self_attn = self.attention(cfg, &format!("{s}.{l}.self_attn"), false)?;
            let cross = if cross {
                Some((
                    self.norm(&format!("{s}.{l}.ln_cross"))?,
                    self.attention(cfg, &format!("{s}.{l}.cross_attn"), true)?,
                ))
            } else {
                None
            };
            blocks.push(BlockWeights {
                ln_attn,
                self_attn,
                cross,
                ln_ffn: self.norm(&format!("{s}.{l}.ln_ffn"))?,
                ffn: FfnWeights {
                    w1: self.take(&format!("{s}.{l}.ffn.w1"))?,
                    b1: self.take(&format!("{s}.{l}.ffn.b1"))?,
                    w2: self.take(&format!("{s}.{l}.ffn.w2"))?,
                    b2: self.take(&format!("{s}.{l}.ffn.b2"))?,
                    gate: if cfg.extensions.gated_ffn {
                        Some((
                            self.take(&format!("{s}.{l}.ffn.w_gate"))?,
                            self.take(&format!("{s}.{l}.ffn.b_gate"))?,
                        ))
                    } else {
                        None
                    },
                },
            });
        }
        let ln_f = match cfg.norm {
            NormPlacement::Pre => Some(self.norm(&format!("{s}.ln_f"))?),
            NormPlacement::Post => None,
        };
        Ok(StackWeights { blocks, ln_f })
    }
}

impl Weights {
    /// Build from named tensors; refuses anything `check_tensors` would.
    pub fn from_tensors(cfg: &ModelConfig, map: TensorMap) -> Result<Self> {
        check_tensors(cfg, &map)?;
        let mut t = Taker { map };
        let has_cross = cfg.family.has_encoder() && cfg.family.has_decoder();
        let encoder = if cfg.family.has_encoder() {
            Some(t.stack(cfg, "enc", false)?)
        } else {
            None
        };
        let decoder = if cfg.family.has_decoder() {
            Some(t.stack(cfg, "dec", has_cross)?)
        } else {
            None
        };
        let x = &cfg.extensions;
        let head = x.output != OutputHead::None;
        Ok(Self {
            tok_embed: VocabTable::F32(t.take("tok_embed")?),
            pos_embed: if cfg.positional == Positional::Learned {
                Some(t.take("pos_embed")?)
            } else {
                None
            },
            type_embed: if x.token_types > 0 {
                Some(t.take("type_embed")?)
            } else {
                None
            },
            embed_norm: if x.embed_norm {
                Some(t.norm("embed_ln")?)
            } else {
                None
            },
            encoder,
            decoder,
            mlm: if x.output == OutputHead::MaskedLm {
                Some(MlmTransform {
                    w: t.take("mlm.dense")?,
                    b: t.take("mlm.dense_bias")?,
                    norm: t.norm("mlm.ln")?,
                })
            } else {
                None
            },
            lm_head: if cfg.tie_embeddings || !head {
                None
            } else {
                Some(VocabTable::F32(t.take("lm_head.weight")?))
            },
            lm_bias: if head {
                Some(t.take("lm_head.bias")?)
            } else {
                None
            },
        })
    }

    /// The inverse of `from_tensors` (tables kept in blocks are expanded).
    pub fn to_tensors(&self) -> TensorMap {
        let mut map = TensorMap::new();
        self.visit(&mut |name, a| {
            map.insert(name, a.to_owned());
        });
        for (name, table) in self.quantized_tables() {
            map.insert(name.into(), table.to_f32().into_owned().into_dyn());
        }
        map
    }

    /// The vocabulary tables kept in a quantized file's blocks, which `visit` leaves out: they
    /// are not f32 parameters and nothing trains them.
    pub fn quantized_tables(&self) -> Vec<(&'static str, &VocabTable)> {
        let mut out = vec![("tok_embed", &self.tok_embed)];
        if let Some(h) = &self.lm_head {
            out.push(("lm_head.weight", h));
        }
        out.retain(|(_, t)| t.as_f32().is_none());
        out
    }

    /// Bytes the weights take in memory.
    pub fn memory_bytes(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_, a| n += a.len() * 4);
        n + self
            .quantized_tables()
            .iter()
            .map(|(_, t)| t.memory_bytes())
            .sum::<usize>()
    }

    /// Every parameter with its checkpoint name, in a fixed order.
    pub fn visit(&self, f: &mut dyn FnMut(String, ArrayViewD<f32>)) {
        visit_params!(self, f, view);
    }

    /// Every parameter, mutably, in the same order as `visit`.
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(String, ArrayViewMutD<f32>)) {
        visit_params!(self, f, view_mut, mut);
    }

    /// Every parameter with its name, collected (for walking several `Weights` in lockstep).
    pub fn params(&self) -> Vec<(String, ArrayViewD<'_, f32>)> {
        let mut out = Vec::new();
        let mut push = |name: String, a| out.push((name, a));
        visit_params!(self, push, view);
        out
    }

    /// Every parameter, mutably, in the order of `params`.
    pub fn params_mut(&mut self) -> Vec<(String, ArrayViewMutD<'_, f32>)> {
        let mut out = Vec::new();
        let mut push = |name: String, a| out.push((name, a));
        visit_params!(self, push, view_mut, mut);
        out
    }

    /// The same structure filled with zeros (gradients, optimizer moments).
    pub fn zeros_like(&self) -> Weights {
        let mut w = self.clone();
        w.visit_mut(&mut |_, mut a| a.fill(0.0));
        w
    }

    /// Total number of scalar parameters.
    pub fn len(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_, a| n += a.len());
        n + self
            .quantized_tables()
            .iter()
            .map(|(_, t)| t.len())
            .sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The output projection W_vocab `[V, d]`, tied or not.
    pub fn output_matrix(&self) -> &VocabTable {
        self.lm_head.as_ref().unwrap_or(&self.tok_embed)
    }
}

#[cfg(test)]
mod tests;
