//! The compiled kernels and a recorder that encodes one dispatch per call.

use super::tensor::Tensor;
use crate::model::config::RopePairing;
use wgpu::util::DeviceExt;

pub(crate) struct Kernels {
    matmul: wgpu::ComputePipeline,
    split: wgpu::ComputePipeline,
    merge: wgpu::ComputePipeline,
    logits: wgpu::ComputePipeline,
    additive: wgpu::ComputePipeline,
    softmax: wgpu::ComputePipeline,
    layer_norm: wgpu::ComputePipeline,
    elementwise: wgpu::ComputePipeline,
}

const COMMON: &str = include_str!("shaders/common.wgsl");
const REDUCE: &str = include_str!("shaders/reduce.wgsl");

/// Compiles `entry` of `parts` (the shared preludes, then the kernel) joined into one module.
fn pipeline(
    device: &wgpu::Device,
    name: &str,
    parts: &[&str],
    entry: &str,
) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: wgpu::ShaderSource::Wgsl(parts.join("\n").into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(name),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

impl Kernels {
    pub fn new(device: &wgpu::Device) -> Self {
        let kernel = |name: &str, source: &str, entry: &str| {
            pipeline(device, name, &[COMMON, source], entry)
        };
        let row_kernel =
            |name: &str, source: &str| pipeline(device, name, &[COMMON, REDUCE, source], "main");
        let scores = include_str!("shaders/scores.wgsl");
        Kernels {
            matmul: kernel("matmul", include_str!("shaders/matmul.wgsl"), "main"),
            split: kernel("split", include_str!("shaders/heads.wgsl"), "split"),
            merge: kernel("merge", include_str!("shaders/merge.wgsl"), "main"),
            logits: kernel("logits", scores, "logits_of"),
            additive: kernel("additive", include_str!("shaders/additive.wgsl"), "main"),
            softmax: row_kernel("softmax", include_str!("shaders/softmax.wgsl")),
            layer_norm: row_kernel("layer_norm", include_str!("shaders/layer_norm.wgsl")),
            elementwise: kernel(
                "elementwise",
                include_str!("shaders/elementwise.wgsl"),
                "main",
            ),
        }
    }
}

/// How `matmul` reads its operands: `A[b][i][k] = a[(b / a_group)·a_bs + i·a_rs + k·a_cs]`,
/// `B[b][k][j] = b[(b / b_group)·b_bs + k·b_ks + j·b_ns]`; C is dense
/// `[batch, m, n]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatmulSpec {
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_bs: usize,
    pub a_rs: usize,
    pub a_cs: usize,
    pub a_group: usize,
    pub b_bs: usize,
    pub b_ks: usize,
    pub b_ns: usize,
    pub b_group: usize,
}

impl MatmulSpec {
    /// Dense per-batch `A [m, k]` times dense `B [k, n]`.
    pub fn dense(batch: usize, m: usize, k: usize, n: usize) -> Self {
        MatmulSpec {
            batch,
            m,
            n,
            k,
            a_bs: m * k,
            a_rs: k,
            a_cs: 1,
            a_group: 1,
            b_bs: k * n,
            b_ks: n,
            b_ns: 1,
            b_group: 1,
        }
    }

    /// B stored as `[n, k]` (a weight matrix, or keys): the product with its transpose.
    pub fn b_transposed(mut self) -> Self {
        self.b_ks = 1;
        self.b_ns = self.k;
        self
    }
}

/// Element-wise operations of `elementwise.wgsl`.
#[derive(Clone, Copy)]
pub(crate) enum Pointwise {
    Add,
    Relu,
    Gelu,
    /// `silu(a) ⊙ b`: a gated FFN's hidden layer (SwiGLU).
    SiluTimes,
    /// GELU's tanh form (GPT-2).
    GeluTanh,
}

/// How `logits_of` adds a positional bias.
pub(crate) enum ScoreBias<'a> {
    None,
    Alibi {
        slopes: &'a Tensor,
    },
    Relative {
        table: &'a Tensor,
        max_distance: usize,
    },
}

/// Records dispatches into one command encoder.
pub(crate) struct Recorder<'a> {
    pub device: &'a wgpu::Device,
    kernels: &'a Kernels,
    pub encoder: wgpu::CommandEncoder,
    /// Bound where a kernel's optional input is absent.
    placeholder: Tensor,
}

/// Work groups for `n` threads of 256 in a 2-D grid (a dimension holds at most 65535).
fn grid(n: usize, per_group: usize) -> (u32, u32) {
    let groups = n.div_ceil(per_group).max(1);
    let x = groups.min(65535);
    (x as u32, groups.div_ceil(x) as u32)
}

fn u(x: usize) -> u32 {
    x as u32
}

impl<'a> Recorder<'a> {
    pub fn new(device: &'a wgpu::Device, kernels: &'a Kernels) -> Self {
        Recorder {
            device,
            kernels,
            encoder: device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("forward"),
            }),
            placeholder: Tensor::empty(device, &[1]),
        }
    }

    pub fn empty(&self, shape: &[usize]) -> Tensor {
        Tensor::empty(self.device, shape)
    }

    fn dispatch(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        tensors: &[&Tensor],
        params: &[u32],
        groups: (u32, u32, u32),
    ) {
        let uniform = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: &super::tensor::words(params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries: Vec<wgpu::BindGroupEntry> = tensors
            .iter()
            .enumerate()
            .map(|(i, t)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: t.buffer.as_entire_binding(),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: tensors.len() as u32,
            resource: uniform.as_entire_binding(),
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut pass = self
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
    }

    /// `out = A · B (+ bias)` per batch, as `spec` reads them.
    pub fn matmul(
        &mut self,
        spec: MatmulSpec,
        a: &Tensor,
        b: &Tensor,
        bias: Option<&Tensor>,
    ) -> Tensor {
        let out = self.empty(&[spec.batch, spec.m, spec.n]);
        if spec.batch * spec.m * spec.n == 0 {
            return out;
        }
        let s = spec;
        let params = [
            u(s.m),
            u(s.n),
            u(s.k),
            0,
            u(s.a_bs),
            u(s.a_rs),
            u(s.a_cs),
            u(s.a_group.max(1)),
            0,
            u(s.b_bs),
            u(s.b_ks),
            u(s.b_ns),
            u(s.b_group.max(1)),
            u(bias.is_some() as usize),
            0,
            0,
        ];
        let placeholder = self.placeholder.clone();
        let groups = (u(s.n.div_ceil(64)), u(s.m.div_ceil(64)), u(s.batch));
        let kernel = &self.kernels.matmul;
        self.dispatch(
            kernel,
            &[a, b, bias.unwrap_or(&placeholder), &out],
            &params,
            groups,
        );
        out
    }

    /// `x · Wᵀ + b` for `x [rows, k]` and `W [n, k]`: `[rows, n]`.
    pub fn linear(&mut self, x: &Tensor, w: &Tensor, b: &Tensor) -> Tensor {
        let spec = MatmulSpec::dense(1, x.rows(), x.cols(), w.rows()).b_transposed();
        let mut y = self.matmul(spec, x, w, Some(b));
        y.shape = vec![x.rows(), w.rows()];
        y
    }

    /// Columns `[col_off, col_off + n·h)` of `src [rows, width]` as `[n, rows, h]`, turned
    /// by RoPE when `turns` (sin, cos per row and pair) is given.
    pub fn split_heads(
        &mut self,
        src: &Tensor,
        col_off: usize,
        n: usize,
        h: usize,
        turns: Option<(&Tensor, RopePairing)>,
    ) -> Tensor {
        let rows = src.rows();
        let rope = match turns {
            None => 0,
            Some((_, RopePairing::Interleaved)) => 1,
            Some((_, RopePairing::Half)) => 2,
        };
        let turns = turns.map(|(t, _)| t);
        let out = self.empty(&[n, rows, h]);
        let params = [u(rows), u(src.cols()), u(col_off), u(n), u(h), rope, 0, 0];
        let (x, y) = grid(out.len(), 256);
        let placeholder = self.placeholder.clone();
        let kernel = &self.kernels.split;
        self.dispatch(
            kernel,
            &[src, turns.unwrap_or(&placeholder), &out],
            &params,
            (x, y, 1),
        );
        out
    }

    /// `[n, rows, h]` → `[rows, n·h]`.
    pub fn merge_heads(&mut self, src: &Tensor) -> Tensor {
        let (n, rows, h) = (src.shape[0], src.shape[1], src.shape[2]);
        let out = self.empty(&[rows, n * h]);
        let (x, y) = grid(out.len(), 256);
        let kernel = &self.kernels.merge;
        self.dispatch(kernel, &[src, &out], &[u(rows), u(n), u(h), 0], (x, y, 1));
        out
    }

    /// Scores `[H, Tq, Tk]` → (scaled, bias, logits).
    pub fn score_logits(
        &mut self,
        scores: &Tensor,
        mask: &Tensor,
        positions: &Tensor,
        divisor: f32,
        bias: ScoreBias,
    ) -> (Tensor, Option<Tensor>, Tensor) {
        let (heads, tq, tk) = (scores.shape[0], scores.shape[1], scores.shape[2]);
        let scaled = self.empty(&scores.shape);
        let logits = self.empty(&scores.shape);
        let placeholder = self.placeholder.clone();
        let (kind, max_distance, width, params_t) = match bias {
            ScoreBias::None => (0, 0, 0, &placeholder),
            ScoreBias::Alibi { slopes } => (1, 0, 0, slopes),
            ScoreBias::Relative {
                table,
                max_distance,
            } => (2, max_distance, table.cols(), table),
        };
        let bias_out = self.empty(if kind == 0 { &[1] } else { &scores.shape[..] });
        let params = [
            u(heads),
            u(tq),
            u(tk),
            kind,
            u(max_distance),
            u(width),
            f32::NEG_INFINITY.to_bits(),
            divisor.to_bits(),
        ];
        let (x, y) = grid(scores.len(), 256);
        let kernel = &self.kernels.logits;
        self.dispatch(
            kernel,
            &[
                scores, mask, positions, params_t, &scaled, &bias_out, &logits,
            ],
            &params,
            (x, y, 1),
        );
        (scaled, (kind != 0).then_some(bias_out), logits)
    }

    /// Additive scores from `wq [H, Tq, h]`, `uk [H, Tk, h]` and `v [H, h]`.
    pub fn additive_scores(&mut self, wq: &Tensor, uk: &Tensor, v: &Tensor) -> Tensor {
        let (heads, tq, h) = (wq.shape[0], wq.shape[1], wq.shape[2]);
        let tk = uk.shape[1];
        let out = self.empty(&[heads, tq, tk]);
        let (x, y) = grid(out.len(), 256);
        let kernel = &self.kernels.additive;
        self.dispatch(
            kernel,
            &[wq, uk, v, &out],
            &[u(heads), u(tq), u(tk), u(h)],
            (x, y, 1),
        );
        out
    }

    /// Row-wise masked softmax of `logits [H, Tq, Tk]` with `mask [Tq, Tk]`.
    pub fn softmax(&mut self, logits: &Tensor, mask: &Tensor) -> Tensor {
        let (heads, tq, tk) = (logits.shape[0], logits.shape[1], logits.shape[2]);
        let out = self.empty(&logits.shape);
        let rows = heads * tq;
        let (x, y) = grid(rows, 1);
        let kernel = &self.kernels.softmax;
        self.dispatch(
            kernel,
            &[logits, mask, &out],
            &[u(rows), u(tq), u(tk), 0],
            (x, y, 1),
        );
        out
    }

    /// LayerNorm of every row, or RMSNorm (`rms`: no centring, no β): (mean, var, output).
    pub fn layer_norm(
        &mut self,
        x: &Tensor,
        gamma: &Tensor,
        beta: &Tensor,
        eps: f32,
        rms: bool,
    ) -> (Tensor, Tensor, Tensor) {
        let (rows, d) = (x.rows(), x.cols());
        let mean = self.empty(&[rows]);
        let var = self.empty(&[rows]);
        let out = self.empty(&x.shape);
        let (gx, gy) = grid(rows, 1);
        let kernel = &self.kernels.layer_norm;
        self.dispatch(
            kernel,
            &[x, gamma, beta, &mean, &var, &out],
            &[u(rows), u(d), eps.to_bits(), u32::from(rms)],
            (gx, gy, 1),
        );
        (mean, var, out)
    }

    /// `a + b`, an activation of `a`, or `silu(a) ⊙ b`.
    pub fn pointwise(&mut self, op: Pointwise, a: &Tensor, b: Option<&Tensor>) -> Tensor {
        let out = self.empty(&a.shape);
        let kind = match op {
            Pointwise::Add => 0,
            Pointwise::Relu => 1,
            Pointwise::Gelu => 2,
            Pointwise::SiluTimes => 3,
            Pointwise::GeluTanh => 4,
        };
        let (x, y) = grid(a.len(), 256);
        let placeholder = self.placeholder.clone();
        let kernel = &self.kernels.elementwise;
        self.dispatch(
            kernel,
            &[a, b.unwrap_or(&placeholder), &out],
            &[u(a.len()), kind, 0, 0],
            (x, y, 1),
        );
        out
    }
}
