//! The forward pass on the GPU, step for step the one in `model/transformer/`: the same
//! plan (ids, tokens, masks), the same sub-layers and the same `Trace`. The embeddings
//! (a row lookup) and the tables of positional schemes come from the CPU code the labs teach
//! with; every matrix product, mask, softmax, LayerNorm and activation runs in a kernel.

mod pending;

use super::kernels::{MatmulSpec, Pointwise, Recorder, ScoreBias};
use super::readback::Reads;
use super::tensor::Tensor;
use super::weights::{Attention, Block, GpuModel, Norm, Projections, Score, Stack};
use super::{Gpu, GpuError};
use crate::model::attention::{score_divisor, AttentionShape};
use crate::model::config::{Activation, Extensions, NormKind, NormPlacement, Positional};
use crate::model::position;
use crate::model::trace::Trace;
use crate::model::transformer::{cross_attention_mask, ForwardPlan, StackPlan};
use crate::model::{ForwardOptions, Model, ModelInput};
use ndarray::Array2;
use pending::{
    PendingAttention, PendingBlock, PendingFfn, PendingNorm, PendingStack, PendingSublayer,
};

/// The traced forward pass of `model` (whose weights `weights` holds) on the GPU. Bad input
/// gives the CPU path's error; what the GPU cannot do (dropout, buffers past the adapter's
/// limits) gives `GpuError`, and the caller runs the CPU path instead.
pub async fn forward(
    gpu: &Gpu,
    weights: &GpuModel,
    model: &Model,
    input: &ModelInput,
    opts: &ForwardOptions,
) -> Result<Trace, GpuError> {
    if !weights.holds(model) {
        return Err(GpuError::Unsupported(format!(
            "the GPU holds the weights of {:?}, not {:?}",
            weights.name, model.config.name
        )));
    }
    let plan = model.plan(input, opts)?;
    let cfg = &model.config;
    let activation = match cfg.extensions.gated_ffn {
        false => matches!(
            cfg.activation,
            Activation::Relu | Activation::Gelu | Activation::GeluTanh
        ),
        true => cfg.activation == Activation::Silu,
    };
    if !on_the_gpu(&cfg.extensions) || !activation {
        return Err(GpuError::Unsupported(format!(
            "{}: the GPU kernels cover the textbook block (LayerNorm, ReLU/GELU), BERT's \
             embedding extras and masked-LM head, GPT-2's tanh GELU and Llama's RMSNorm, \
             SwiGLU and RoPE forms; this model's {} and {:?} run on the CPU",
            cfg.name,
            cfg.extensions.summary(),
            cfg.activation
        )));
    }
    if opts.dropout.is_some_and(|d| d.active()) {
        return Err(GpuError::Unsupported(
            "dropout (used in training) runs on the CPU".into(),
        ));
    }
    if !opts.interventions.is_empty() {
        return Err(GpuError::Unsupported(
            "activation patching runs on the CPU".into(),
        ));
    }
    if !opts.heads_off.is_empty() {
        return Err(GpuError::Unsupported(
            "switching heads off (ablation) runs on the CPU".into(),
        ));
    }
    check_sizes(gpu, model, &plan)?;

    let device = &gpu.device;
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let memory_errors = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let mut run = Encode {
        rec: Recorder::new(device, &gpu.kernels),
        reads: Reads::default(),
        model,
        temperature: opts.temperature,
    };
    let encoder = match (&weights.encoder, &plan.encoder) {
        (Some(w), Some(p)) => Some(run.stack(w, p, None)?),
        _ => None,
    };
    let decoder = match (&weights.decoder, &plan.decoder) {
        (Some(w), Some(p)) => {
            let memory = encoder.as_ref().zip(plan.encoder.as_ref());
            let memory = memory.map(|((_, out), ep)| (out, ep));
            Some(run.stack(w, p, memory)?)
        }
        _ => None,
    };
    let last = decoder.as_ref().or(encoder.as_ref()).map(|(_, out)| out);
    // A sentence encoder (no output head) has logits `[T, 0]`, as on the CPU; a masked-LM
    // head first transforms the output, `LN(act(h Wᵀ + b))` (`Model::logits_input`).
    let logits = match (last, &weights.lm) {
        (Some(out), Some(lm)) => {
            let h = match &weights.mlm {
                Some((t, norm)) => {
                    let z = run.rec.linear(out, &t.w, &t.b);
                    let act = run
                        .rec
                        .pointwise(pointwise_activation(cfg.activation), &z, None);
                    let eps = cfg.ln_eps;
                    run.rec
                        .layer_norm(&act, &norm.gamma, &norm.beta, eps, false)
                        .2
                }
                None => out.clone(),
            };
            let l = run.rec.linear(&h, &lm.w, &lm.b);
            Some(run.reads.add(&l))
        }
        _ => None,
    };
    let rows = last.map_or(0, |out| out.rows());
    let Encode { rec, reads, .. } = run;
    let pending = reads.submit(device, &gpu.queue, rec.encoder);
    // Close both scopes before the first await: in a browser another forward pass may begin
    // while this one waits, and scopes must be closed in the order they were opened.
    let memory_check = memory_errors.pop();
    let validation_check = validation.pop();
    let values = pending.wait(device).await;
    if let Some(e) = memory_check.await {
        return Err(GpuError::Device(e.to_string()));
    }
    if let Some(e) = validation_check.await {
        return Err(GpuError::Device(e.to_string()));
    }
    let values = values?;
    Ok(Trace {
        model: model.config.name.clone(),
        family: model.config.family,
        encoder: encoder.map(|(s, _)| s.finish(&values)),
        decoder: decoder.map(|(s, _)| s.finish(&values)),
        logits: logits.map_or_else(|| ndarray::Array2::zeros((rows, 0)), |s| values.a2(s)),
    })
}

/// The element-wise kernel of an ungated activation (`forward` refuses SiLU without a gate
/// before anything runs).
fn pointwise_activation(act: Activation) -> Pointwise {
    match act {
        Activation::Relu => Pointwise::Relu,
        Activation::GeluTanh => Pointwise::GeluTanh,
        _ => Pointwise::Gelu,
    }
}

/// What the GPU path runs: the textbook block, plus what the CPU does before the first block
/// (BERT's token-type embeddings and embedding LayerNorm, in `Model::embed`), a model
/// without an output head (a sentence encoder such as all-MiniLM-L6-v2), and Llama's RMSNorm,
/// gated FFN and RoPE forms (rotate-half pairs, Llama 3's frequency scaling), and BERT's
/// masked-LM head. Not yet: a head size other than d_model / heads.
fn on_the_gpu(x: &Extensions) -> bool {
    let textbook = Extensions {
        norm_kind: x.norm_kind,
        gated_ffn: x.gated_ffn,
        rope_pairing: x.rope_pairing,
        rope_scaling: x.rope_scaling,
        embed_norm: x.embed_norm,
        token_types: x.token_types,
        output: x.output,
        ..Extensions::default()
    };
    *x == textbook
}

/// Refuses inputs whose biggest tensor would not fit in one storage binding of this adapter.
fn check_sizes(gpu: &Gpu, model: &Model, plan: &ForwardPlan) -> Result<(), GpuError> {
    let c = &model.config;
    let src = plan.encoder.as_ref().map_or(0, |p| p.ids.len());
    let tgt = plan.decoder.as_ref().map_or(0, |p| p.ids.len());
    let t = src.max(tgt);
    let largest = [
        c.n_heads * t * t,
        c.n_heads * tgt * src,
        t * c.vocab_size(),
        t * c.d_ff.max(3 * c.d_model),
    ]
    .into_iter()
    .max()
    .unwrap_or(0) as u64
        * 4;
    if largest > gpu.max_binding {
        return Err(GpuError::Unsupported(format!(
            "this input needs a {:.0} MB buffer; {} allows {:.0} MB",
            largest as f64 / 1e6,
            gpu.adapter.name,
            gpu.max_binding as f64 / 1e6
        )));
    }
    Ok(())
}

/// The recorder plus the tensors the trace will read back.
struct Encode<'a> {
    rec: Recorder<'a>,
    reads: Reads,
    model: &'a Model,
    temperature: f32,
}

/// Where keys and values come from, and the queries' and keys' bookkeeping.
struct AttentionInput<'p> {
    memory: Option<&'p Tensor>,
    q_pos: &'p [usize],
    k_pos: Vec<usize>,
    allowed: Array2<bool>,
    query_tokens: &'p [String],
    key_tokens: &'p [String],
}

impl Encode<'_> {
    fn stack(
        &mut self,
        w: &Stack,
        plan: &StackPlan,
        memory: Option<(&Tensor, &StackPlan)>,
    ) -> Result<(PendingStack, Tensor), GpuError> {
        let embedded = self.model.embed(&plan.ids, &plan.types, &plan.positions);
        let (embed, positional) = (embedded.x, embedded.positional);
        let (token_types, embed_norm) = (embedded.token_types, embedded.norm);
        let mut x = Tensor::from_array(self.rec.device, &embed);
        let embed_slot = self.reads.add(&x);
        let mut blocks = Vec::with_capacity(w.blocks.len());
        for b in &w.blocks {
            let (block, out) = self.block(b, x, plan, memory)?;
            blocks.push(block);
            x = out;
        }
        let (final_norm, output) = match &w.ln_f {
            Some(ln) => {
                let (n, out) = self.norm(&x, ln);
                (Some(n), out)
            }
            None => (None, x),
        };
        let pending = PendingStack {
            tokens: plan.tokens.clone(),
            ids: plan.ids.clone(),
            embed: embed_slot,
            positional,
            token_types,
            embed_norm,
            blocks,
            final_norm,
            output: self.reads.add(&output),
        };
        Ok((pending, output))
    }

    fn block(
        &mut self,
        b: &Block,
        x: Tensor,
        plan: &StackPlan,
        memory: Option<(&Tensor, &StackPlan)>,
    ) -> Result<(PendingBlock, Tensor), GpuError> {
        let input = self.reads.add(&x);
        let shape = self.model.attention_shape(false);
        let self_input = AttentionInput {
            memory: None,
            q_pos: &plan.positions,
            k_pos: plan.positions.clone(),
            allowed: plan.allowed.clone(),
            query_tokens: &plan.tokens,
            key_tokens: &plan.tokens,
        };
        let (self_attn, mut stream) = self.sublayer(&x, &b.ln_attn, |e, h| {
            e.attention(&b.self_attn, shape, h, self_input)
        })?;
        let cross_attn = match (&b.cross, memory) {
            (Some((ln, w)), Some((mem, mem_plan))) => {
                let cross_input = AttentionInput {
                    memory: Some(mem),
                    q_pos: &plan.positions,
                    k_pos: (0..mem.rows()).collect(),
                    allowed: cross_attention_mask(
                        plan.cross_allowed.as_ref(),
                        plan.ids.len(),
                        &mem_plan.pads,
                    ),
                    query_tokens: &plan.tokens,
                    key_tokens: &mem_plan.tokens,
                };
                let shape = self.model.attention_shape(true);
                let (t, out) =
                    self.sublayer(&stream, ln, |e, h| e.attention(w, shape, h, cross_input))?;
                stream = out;
                Some(t)
            }
            _ => None,
        };
        let act = self.model.config.activation;
        let (ffn, out) = self.sublayer(&stream, &b.ln_ffn, |e, h| Ok(e.ffn(b, h, act)))?;
        let block = PendingBlock {
            input,
            self_attn,
            cross_attn,
            ffn,
        };
        Ok((block, out))
    }

    /// `x + f(LN(x))` (pre-norm) or `LN(x + f(x))` (post-norm), as `Model::sublayer`.
    fn sublayer<T>(
        &mut self,
        x: &Tensor,
        ln: &Norm,
        f: impl FnOnce(&mut Self, &Tensor) -> Result<(T, Tensor), GpuError>,
    ) -> Result<(PendingSublayer<T>, Tensor), GpuError> {
        let (norm, inner, residual) = match self.model.config.norm {
            NormPlacement::Pre => {
                let (norm, normed) = self.norm(x, ln);
                let (inner, out) = f(self, &normed)?;
                let residual = self.rec.pointwise(Pointwise::Add, x, Some(&out));
                (norm, inner, residual)
            }
            NormPlacement::Post => {
                let (inner, out) = f(self, x)?;
                let sum = self.rec.pointwise(Pointwise::Add, x, Some(&out));
                let (norm, normed) = self.norm(&sum, ln);
                (norm, inner, normed)
            }
        };
        let pending = PendingSublayer {
            norm,
            inner,
            residual: self.reads.add(&residual),
        };
        Ok((pending, residual))
    }

    fn norm(&mut self, x: &Tensor, ln: &Norm) -> (PendingNorm, Tensor) {
        let cfg = &self.model.config;
        let rms = cfg.extensions.norm_kind == NormKind::RmsNorm;
        let (mean, var, out) = self.rec.layer_norm(x, &ln.gamma, &ln.beta, cfg.ln_eps, rms);
        let pending = PendingNorm {
            mean: self.reads.add(&mean),
            var: self.reads.add(&var),
            output: self.reads.add(&out),
        };
        (pending, out)
    }

    /// `W₂ act(W₁x + b₁) + b₂`, or gated: `W₂ (silu(W_g x) ⊙ W₁x) + b₂`, as `layers::ffn`.
    fn ffn(&mut self, b: &Block, x: &Tensor, act: Activation) -> (PendingFfn, Tensor) {
        let f = &b.ffn;
        let first = self.rec.linear(x, &f.w1.w, &f.w1.b);
        let (pre, up, hidden) = match &f.gate {
            // `forward` lets a gated FFN through with SiLU only (SwiGLU).
            Some(g) => {
                let gate = self.rec.linear(x, &g.w, &g.b);
                let hidden = self
                    .rec
                    .pointwise(Pointwise::SiluTimes, &gate, Some(&first));
                (gate, Some(first), hidden)
            }
            None => {
                let hidden = self.rec.pointwise(pointwise_activation(act), &first, None);
                (first, None, hidden)
            }
        };
        let output = self.rec.linear(&hidden, &f.w2.w, &f.w2.b);
        let pending = PendingFfn {
            pre_activation: self.reads.add(&pre),
            up: up.map(|u| self.reads.add(&u)),
            hidden: self.reads.add(&hidden),
            output: self.reads.add(&output),
        };
        (pending, output)
    }

    /// One multi-head attention layer, as `attention::multi_head` without a cache.
    fn attention(
        &mut self,
        w: &Attention,
        shape: AttentionShape,
        x: &Tensor,
        input: AttentionInput,
    ) -> Result<(PendingAttention, Tensor), GpuError> {
        let AttentionShape {
            n_heads: nh,
            n_kv_heads: g,
            d_head: h,
            scoring,
            positional,
            ..
        } = shape;
        let device = self.rec.device;
        // The model's own RoPE (base, scaling, pairing; self-attention only), as
        // `attention::project` turns heads.
        let table = shape.rope.map(|r| {
            let turns = position::rope_turns(input.q_pos, h, &r);
            let flat: Vec<f32> = turns.iter().flat_map(|&(s, c)| [s, c]).collect();
            (Tensor::from_f32(device, &flat, &[flat.len()]), r.pairing)
        });
        let turns = table.as_ref().map(|(t, pairing)| (t, *pairing));
        let (q, k, v) = match (&w.projection, input.memory) {
            (Projections::Fused(lin), _) => {
                let qkv = self.rec.linear(x, &lin.w, &lin.b);
                let q = self.rec.split_heads(&qkv, 0, nh, h, turns);
                let k = self.rec.split_heads(&qkv, nh * h, g, h, turns);
                let v = self.rec.split_heads(&qkv, (nh + g) * h, g, h, None);
                (q, k, v)
            }
            (Projections::Cross { q, kv }, Some(memory)) => {
                let ql = self.rec.linear(x, &q.w, &q.b);
                let kvl = self.rec.linear(memory, &kv.w, &kv.b);
                let q = self.rec.split_heads(&ql, 0, nh, h, None);
                let k = self.rec.split_heads(&kvl, 0, g, h, None);
                let v = self.rec.split_heads(&kvl, g * h, g, h, None);
                (q, k, v)
            }
            (Projections::Cross { .. }, None) => {
                return Err(GpuError::Unsupported(
                    "cross-attention without an encoder memory".into(),
                ))
            }
        };
        let (tq, tk) = (x.rows(), k.shape[1]);
        let group = nh / g.max(1);
        let mut qk = MatmulSpec::dense(nh, tq, h, tk).b_transposed();
        qk.b_group = group;
        let scores = match &w.score {
            Score::Dot => self.rec.matmul(qk, &q, &k, None),
            Score::Bilinear { w } => {
                let qw = self
                    .rec
                    .matmul(MatmulSpec::dense(nh, tq, h, h), &q, w, None);
                self.rec.matmul(qk, &qw, &k, None)
            }
            Score::Additive { w, u, v } => {
                let wq_spec = MatmulSpec::dense(nh, tq, h, h).b_transposed();
                let wq = self.rec.matmul(wq_spec, &q, w, None);
                let mut uk_spec = MatmulSpec::dense(nh, tk, h, h).b_transposed();
                uk_spec.a_group = group;
                let uk = self.rec.matmul(uk_spec, &k, u, None);
                self.rec.additive_scores(&wq, &uk, v)
            }
        };
        let divisor = score_divisor(scoring, h, self.temperature);
        let slopes;
        let bias = match (positional, &w.rel_bias) {
            (Positional::Alibi, _) => {
                let s = position::alibi_slopes(nh);
                slopes = Tensor::from_array(device, &s);
                ScoreBias::Alibi { slopes: &slopes }
            }
            (Positional::Relative { max_distance }, Some(table)) => ScoreBias::Relative {
                table,
                max_distance,
            },
            _ => ScoreBias::None,
        };
        let mask_words: Vec<u32> = input.allowed.iter().map(|&a| a as u32).collect();
        let mask = Tensor::from_u32(device, &mask_words, &[tq, tk]);
        let pos: Vec<u32> = input
            .q_pos
            .iter()
            .chain(&input.k_pos)
            .map(|&p| p as u32)
            .collect();
        let positions = Tensor::from_u32(device, &pos, &[pos.len()]);
        let (scaled, bias, logits) = self
            .rec
            .score_logits(&scores, &mask, &positions, divisor, bias);
        let weights = self.rec.softmax(&logits, &mask);
        let mut av = MatmulSpec::dense(nh, tq, tk, h);
        av.b_group = group;
        let head_out = self.rec.matmul(av, &weights, &v, None);
        let concat = self.rec.merge_heads(&head_out);
        let out = self.rec.linear(&concat, &w.o.w, &w.o.b);
        let r = &mut self.reads;
        let pending = PendingAttention {
            query_tokens: input.query_tokens.to_vec(),
            key_tokens: input.key_tokens.to_vec(),
            mask: input.allowed,
            q: r.add(&q),
            k: r.add(&k),
            v: r.add(&v),
            scores: r.add(&scores),
            scaled: r.add(&scaled),
            bias: bias.as_ref().map(|b| r.add(b)),
            logits: r.add(&logits),
            weights: r.add(&weights),
            head_out: r.add(&head_out),
            concat: r.add(&concat),
            out: r.add(&out),
        };
        Ok((pending, out))
    }
}
