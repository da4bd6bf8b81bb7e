//! The model's parameters, and the one mapping between them and the named tensors of a
//! checkpoint (docs/FORMAT.md). Loading, saving and random initialisation all go through
//! `tensor_specs`, so the three can never disagree about a name or a shape.

//!
//! [`specs`] lists every tensor a config needs and checks tensors against it; this module
//! holds the weights themselves and builds them from named tensors.

use super::config::{ModelConfig, NormPlacement, OutputHead, Positional, Scoring};
use super::error::{ModelError, Result};
use super::import::QuantizedTensor;
use super::layers::{FfnWeights, LayerNormWeights};
pub use super::weight_matrix::WeightMatrix;
use ndarray::{Array1, Array2, Array3, ArrayD, ArrayViewD, ArrayViewMutD, Dimension};
use std::collections::BTreeMap;

mod specs;

pub use specs::{
    check_shapes, check_tensors, init_tensors, parameter_count, tensor_specs, Init, TensorSpec,
};

/// Lists every parameter of a `Weights` with its checkpoint name. One listing serves the
/// shared visitor (`view`) and the mutable one (`view_mut`, `mut`).
macro_rules! visit_params {
    ($w:expr, $f:expr, $q:expr, $view:ident $(, $m:tt)?) => {{
        let w = $w;
        visit_params!(@mat $f, $q, String::from("tok_embed"), & $($m)? w.tok_embed, $view);
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
                visit_params!(@attn $f, $q, format!("{p}.self_attn"), & $($m)? b.self_attn, $view $(, $m)?);
                if let Some((ln, a)) = & $($m)? b.cross {
                    $f(format!("{p}.ln_cross.gamma"), ln.gamma.$view().into_dyn());
                    $f(format!("{p}.ln_cross.beta"), ln.beta.$view().into_dyn());
                    visit_params!(@attn $f, $q, format!("{p}.cross_attn"), a, $view $(, $m)?);
                }
                $f(format!("{p}.ln_ffn.gamma"), b.ln_ffn.gamma.$view().into_dyn());
                $f(format!("{p}.ln_ffn.beta"), b.ln_ffn.beta.$view().into_dyn());
                visit_params!(@mat $f, $q, format!("{p}.ffn.w1"), & $($m)? b.ffn.w1, $view);
                $f(format!("{p}.ffn.b1"), b.ffn.b1.$view().into_dyn());
                visit_params!(@mat $f, $q, format!("{p}.ffn.w2"), & $($m)? b.ffn.w2, $view);
                $f(format!("{p}.ffn.b2"), b.ffn.b2.$view().into_dyn());
                if let Some((w_g, b_g)) = & $($m)? b.ffn.gate {
                    visit_params!(@mat $f, $q, format!("{p}.ffn.w_gate"), w_g, $view);
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
        if let Some(h) = & $($m)? w.lm_head {
            visit_params!(@mat $f, $q, String::from("lm_head.weight"), h, $view);
        }
        if let Some(b) = & $($m)? w.lm_bias {
            $f("lm_head.bias".into(), b.$view().into_dyn());
        }
    }};
    (@attn $f:expr, $q:expr, $p:expr, $a:expr, $view:ident $(, $m:tt)?) => {{
        let (p, a) = ($p, $a);
        match & $($m)? a.projection {
            Projection::Fused { w_qkv, b_qkv } => {
                visit_params!(@mat $f, $q, format!("{p}.w_qkv"), w_qkv, $view);
                $f(format!("{p}.b_qkv"), b_qkv.$view().into_dyn());
            }
            Projection::Cross { w_q, b_q, w_kv, b_kv } => {
                visit_params!(@mat $f, $q, format!("{p}.w_q"), w_q, $view);
                $f(format!("{p}.b_q"), b_q.$view().into_dyn());
                visit_params!(@mat $f, $q, format!("{p}.w_kv"), w_kv, $view);
                $f(format!("{p}.b_kv"), b_kv.$view().into_dyn());
            }
        }
        visit_params!(@mat $f, $q, format!("{p}.w_o"), & $($m)? a.w_o, $view);
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
    // A matrix kept in a quantized file's blocks is not an f32 parameter: it goes to `$q`.
    (@mat $f:expr, $q:expr, $name:expr, $x:expr, $view:ident) => {
        match $x {
            WeightMatrix::F32(t) => $f($name, t.$view().into_dyn()),
            WeightMatrix::Blocks(b) => $q($name, &*b),
        }
    };
}

/// The visitor of quantized matrices for `visit_params!` callers that want f32 tensors only.
fn no_blocks(_: String, _: &QuantizedTensor) {}

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
        w_qkv: WeightMatrix,
        b_qkv: Array1<f32>,
    },
    /// Cross-attention: queries from the decoder, keys and values from the encoder memory.
    Cross {
        w_q: WeightMatrix,
        b_q: Array1<f32>,
        w_kv: WeightMatrix,
        b_kv: Array1<f32>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttentionWeights {
    pub projection: Projection,
    pub w_o: WeightMatrix,
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
    pub tok_embed: WeightMatrix,
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
    pub lm_head: Option<WeightMatrix>,
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

    fn matrix(&mut self, name: &str) -> Result<WeightMatrix> {
        self.take(name).map(WeightMatrix::F32)
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
                w_q: self.matrix(&format!("{p}.w_q"))?,
                b_q: self.take(&format!("{p}.b_q"))?,
                w_kv: self.matrix(&format!("{p}.w_kv"))?,
                b_kv: self.take(&format!("{p}.b_kv"))?,
            }
        } else {
            Projection::Fused {
                w_qkv: self.matrix(&format!("{p}.w_qkv"))?,
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
            w_o: self.matrix(&format!("{p}.w_o"))?,
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
                    w1: self.matrix(&format!("{s}.{l}.ffn.w1"))?,
                    b1: self.take(&format!("{s}.{l}.ffn.b1"))?,
                    w2: self.matrix(&format!("{s}.{l}.ffn.w2"))?,
                    b2: self.take(&format!("{s}.{l}.ffn.b2"))?,
                    gate: if cfg.extensions.gated_ffn {
                        Some((
                            self.matrix(&format!("{s}.{l}.ffn.w_gate"))?,
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
            tok_embed: WeightMatrix::F32(t.take("tok_embed")?),
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
                Some(WeightMatrix::F32(t.take("lm_head.weight")?))
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
        for (name, q) in self.quantized_matrices() {
            let table = WeightMatrix::Blocks(q.clone());
            map.insert(name, table.to_f32().into_owned().into_dyn());
        }
        map
    }

    /// The matrices kept in a quantized file's blocks, which `visit` leaves out: they are not
    /// f32 parameters and nothing trains them as they are.
    pub fn quantized_matrices<'a>(&'a self) -> Vec<(String, &'a QuantizedTensor)> {
        let mut out = Vec::new();
        let mut blocks = |name: String, q: &'a QuantizedTensor| out.push((name, q));
        visit_params!(self, |_: String, _: ArrayViewD<f32>| {}, blocks, view);
        out
    }

    /// Every matrix kept in blocks expanded to f32, so that all of them are parameters
    /// (before training a model read from a quantized file).
    pub fn expand_quantized(&mut self) {
        for m in self.matrices_mut() {
            m.f32_mut();
        }
    }

    /// Every weight matrix of a linear map, mutably (the vocabulary tables included).
    pub(crate) fn matrices_mut(&mut self) -> Vec<&mut WeightMatrix> {
        let mut out = vec![&mut self.tok_embed];
        out.extend(self.lm_head.as_mut());
        for stack in [self.encoder.as_mut(), self.decoder.as_mut()]
            .into_iter()
            .flatten()
        {
            for b in &mut stack.blocks {
                let cross = b.cross.as_mut().map(|(_, a)| a);
                for a in std::iter::once(&mut b.self_attn).chain(cross) {
                    match &mut a.projection {
                        Projection::Fused { w_qkv, .. } => out.push(w_qkv),
                        Projection::Cross { w_q, w_kv, .. } => out.extend([w_q, w_kv]),
                    }
                    out.push(&mut a.w_o);
                }
                out.extend([&mut b.ffn.w1, &mut b.ffn.w2]);
                out.extend(b.ffn.gate.as_mut().map(|(g, _)| g));
            }
        }
        out
    }

    /// Bytes the weights take in memory.
    pub fn memory_bytes(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_, a| n += a.len() * 4);
        n + self
            .quantized_matrices()
            .iter()
            .map(|(_, q)| q.memory_bytes())
            .sum::<usize>()
    }

    /// Every parameter with its checkpoint name, in a fixed order.
    pub fn visit(&self, f: &mut dyn FnMut(String, ArrayViewD<f32>)) {
        visit_params!(self, f, no_blocks, view);
    }

    /// Every parameter, mutably, in the same order as `visit`.
    pub fn visit_mut(&mut self, f: &mut dyn FnMut(String, ArrayViewMutD<f32>)) {
        visit_params!(self, f, no_blocks, view_mut, mut);
    }

    /// Every parameter with its name, collected (for walking several `Weights` in lockstep).
    pub fn params(&self) -> Vec<(String, ArrayViewD<'_, f32>)> {
        let mut out = Vec::new();
        let mut push = |name: String, a| out.push((name, a));
        visit_params!(self, push, no_blocks, view);
        out
    }

    /// Every parameter, mutably, in the order of `params`.
    pub fn params_mut(&mut self) -> Vec<(String, ArrayViewMutD<'_, f32>)> {
        let mut out = Vec::new();
        let mut push = |name: String, a| out.push((name, a));
        visit_params!(self, push, no_blocks, view_mut, mut);
        out
    }

    /// The same structure filled with zeros (gradients, optimizer moments).
    pub fn zeros_like(&self) -> Weights {
        let mut w = self.clone();
        w.expand_quantized();
        w.visit_mut(&mut |_, mut a| a.fill(0.0));
        w
    }

    /// Total number of scalar parameters.
    pub fn len(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |_, a| n += a.len());
        n + self
            .quantized_matrices()
            .iter()
            .map(|(_, q)| q.rows() * q.cols())
            .sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The output projection W_vocab `[V, d]`, tied or not.
    pub fn output_matrix(&self) -> &WeightMatrix {
        self.lm_head.as_ref().unwrap_or(&self.tok_embed)
    }
}

#[cfg(test)]
mod tests;
