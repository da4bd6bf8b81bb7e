//! A model's weights uploaded to the GPU once, in the layouts the kernels read.

use super::tensor::Tensor;
use super::Gpu;
use crate::model::layers::{FfnWeights, LayerNormWeights};
use crate::model::weights::{
    AttentionWeights, BlockWeights, Projection, ScoreWeights, StackWeights,
};
use crate::model::Model;
use ndarray::{Array1, Array2};

pub(crate) struct Linear {
    pub w: Tensor,
    pub b: Tensor,
}

pub(crate) struct Norm {
    pub gamma: Tensor,
    pub beta: Tensor,
}

pub(crate) enum Projections {
    Fused(Linear),
    Cross { q: Linear, kv: Linear },
}

pub(crate) enum Score {
    Dot,
    Bilinear { w: Tensor },
    Additive { w: Tensor, u: Tensor, v: Tensor },
}

pub(crate) struct Attention {
    pub projection: Projections,
    pub o: Linear,
    pub score: Score,
    pub rel_bias: Option<Tensor>,
}

pub(crate) struct Block {
    pub ln_attn: Norm,
    pub self_attn: Attention,
    pub cross: Option<(Norm, Attention)>,
    pub ln_ffn: Norm,
    pub ffn: Ffn,
}

/// A block's feed-forward weights: `W₁`, `W₂` and, in a gated FFN, the gate `W_g`.
pub(crate) struct Ffn {
    pub w1: Linear,
    pub w2: Linear,
    pub gate: Option<Linear>,
}

pub(crate) struct Stack {
    pub blocks: Vec<Block>,
    pub ln_f: Option<Norm>,
}

/// Every weight of one model on one device.
pub struct GpuModel {
    /// The model these weights came from (its name), to tell when to upload again.
    pub name: String,
    config: crate::model::ModelConfig,
    pub(crate) encoder: Option<Stack>,
    pub(crate) decoder: Option<Stack>,
    /// The output layer; none for a model without an output head.
    pub(crate) lm: Option<Linear>,
    /// BERT's masked-LM transform before it, `LN(act(h Wᵀ + b))`.
    pub(crate) mlm: Option<(Linear, Norm)>,
    /// Bytes uploaded.
    pub bytes: u64,
}

struct Uploader<'a> {
    device: &'a wgpu::Device,
    bytes: u64,
}

impl Uploader<'_> {
    fn array<D: ndarray::Dimension>(&mut self, a: &ndarray::Array<f32, D>) -> Tensor {
        self.bytes += a.len() as u64 * 4;
        Tensor::from_array(self.device, a)
    }

    fn linear(&mut self, w: &Array2<f32>, b: &Array1<f32>) -> Linear {
        Linear {
            w: self.array(w),
            b: self.array(b),
        }
    }

    fn norm(&mut self, n: &LayerNormWeights) -> Norm {
        Norm {
            gamma: self.array(&n.gamma),
            beta: self.array(&n.beta),
        }
    }

    fn attention(&mut self, a: &AttentionWeights) -> Attention {
        let projection = match &a.projection {
            Projection::Fused { w_qkv, b_qkv } => {
                Projections::Fused(self.linear(&w_qkv.to_f32(), b_qkv))
            }
            Projection::Cross {
                w_q,
                b_q,
                w_kv,
                b_kv,
            } => Projections::Cross {
                q: self.linear(&w_q.to_f32(), b_q),
                kv: self.linear(&w_kv.to_f32(), b_kv),
            },
        };
        let score = match &a.score {
            ScoreWeights::Dot => Score::Dot,
            ScoreWeights::Bilinear { w } => Score::Bilinear { w: self.array(w) },
            ScoreWeights::Additive { w, u, v } => Score::Additive {
                w: self.array(w),
                u: self.array(u),
                v: self.array(v),
            },
        };
        Attention {
            projection,
            o: self.linear(&a.w_o.to_f32(), &a.b_o),
            score,
            rel_bias: a.rel_bias.as_ref().map(|t| self.array(t)),
        }
    }

    fn ffn(&mut self, f: &FfnWeights) -> Ffn {
        Ffn {
            w1: self.linear(&f.w1.to_f32(), &f.b1),
            w2: self.linear(&f.w2.to_f32(), &f.b2),
            gate: f.gate.as_ref().map(|(w, b)| self.linear(&w.to_f32(), b)),
        }
    }

    fn block(&mut self, b: &BlockWeights) -> Block {
        Block {
            ln_attn: self.norm(&b.ln_attn),
            self_attn: self.attention(&b.self_attn),
            cross: b
                .cross
                .as_ref()
                .map(|(ln, a)| (self.norm(ln), self.attention(a))),
            ln_ffn: self.norm(&b.ln_ffn),
            ffn: self.ffn(&b.ffn),
        }
    }

    fn stack(&mut self, s: &StackWeights) -> Stack {
        Stack {
            blocks: s.blocks.iter().map(|b| self.block(b)).collect(),
            ln_f: s.ln_f.as_ref().map(|n| self.norm(n)),
        }
    }
}

impl GpuModel {
    /// Whether these are (by name and architecture) the weights of `model`. Weights changed in
    /// place under the same name are not noticed: upload again after training.
    pub fn holds(&self, model: &Model) -> bool {
        self.config == model.config
    }

    /// Uploads every weight the forward pass reads (the embeddings stay on the CPU, which
    /// looks up the input's rows).
    pub fn upload(gpu: &Gpu, model: &Model) -> GpuModel {
        let mut up = Uploader {
            device: &gpu.device,
            bytes: 0,
        };
        let w = &model.weights;
        let encoder = w.encoder.as_ref().map(|s| up.stack(s));
        let decoder = w.decoder.as_ref().map(|s| up.stack(s));
        // A table kept in a GGUF's blocks is expanded for the upload only. A model without an
        // output head (no `lm_bias`, as `Model::logits_columns` reads it) uploads none.
        let lm = w
            .lm_bias
            .as_ref()
            .map(|bias| up.linear(&w.output_matrix().to_f32(), bias));
        let mlm = w
            .mlm
            .as_ref()
            .map(|t| (up.linear(&t.w, &t.b), up.norm(&t.norm)));
        GpuModel {
            name: model.config.name.clone(),
            mlm,
            config: model.config.clone(),
            encoder,
            decoder,
            lm,
            bytes: up.bytes,
        }
    }
}
