//! The ViT forward pass. It keeps every intermediate in a `VitTrace`: the app draws the
//! patches, embeddings and attention, and the backward pass reads the rest.
//!
//! Block (pre-norm, as in ViT):   x ← x + MHSA(LN₁(x));   x ← x + FFN(LN₂(x)).
//! FFN(h) = GELU(h W₁ + b₁) W₂ + b₂, with the tanh form of GELU (as in BERT and GPT-2).

use super::config::VitConfig;
use super::weights::{NormWeights, VitWeights};
use super::PatchGrid;
use ndarray::{s, Array1, Array2, Array3, ArrayView2, Axis};

/// LayerNorm's ε under the square root.
const NORM_EPS: f32 = 1e-5;
/// √(2/π), in GELU's tanh approximation.
const GELU_C: f32 = 0.797_884_6;

/// A Vision Transformer: its shape and its weights. The fields are private so that the
/// weights always have the config's shapes (checked by `new` and `from_parts`).
#[derive(Debug, Clone, PartialEq)]
pub struct Vit {
    pub(super) config: VitConfig,
    pub(super) weights: VitWeights,
}

/// What LayerNorm's backward needs: x̂ = (x − μ)/σ and 1/σ for each row.
#[derive(Debug, Clone, PartialEq)]
pub struct NormCache {
    pub xhat: Array2<f32>,
    pub inv_std: Array1<f32>,
}

/// One encoder block's intermediates. Rows are tokens: row 0 the class token, row 1 + i
/// patch i.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockTrace {
    pub(crate) norm1: NormCache,
    /// h₁ = LN₁(x), the attention's input.
    pub(crate) h1: Array2<f32>,
    pub(crate) q: Array2<f32>,
    pub(crate) k: Array2<f32>,
    pub(crate) v: Array2<f32>,
    /// Attention weights [heads, N+1, N+1]; row t is what token t reads, each row sums to 1.
    pub attention: Array3<f32>,
    /// The heads' outputs side by side, before W_O.
    pub(crate) z: Array2<f32>,
    pub(crate) norm2: NormCache,
    pub(crate) h2: Array2<f32>,
    /// u = h₂ W₁ + b₁ and GELU(u).
    pub(crate) pre: Array2<f32>,
    pub(crate) act: Array2<f32>,
    /// The residual stream after the block [N+1, d].
    pub output: Array2<f32>,
}

/// Everything one forward pass computed.
#[derive(Debug, Clone, PartialEq)]
pub struct VitTrace {
    pub grid: PatchGrid,
    /// The flattened patches [N, P²]: the pixels each token starts from.
    pub patches: Array2<f32>,
    /// The encoder's input [N+1, d]: class token and patch embeddings, positions added.
    pub embeddings: Array2<f32>,
    pub blocks: Vec<BlockTrace>,
    pub(crate) final_norm: NormCache,
    /// LN_f of the class token's last vector: the only thing the head sees.
    pub class_vector: Array1<f32>,
    pub logits: Array1<f32>,
    pub probs: Array1<f32>,
}

/// One row of attention as the app shows it on the patch grid: the weight on each of the N
/// patches (row-major, like the grid) and, separately, the weight on the class token.
/// `to_class + Σ to_patches = 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchWeights {
    pub to_class: f32,
    pub to_patches: Vec<f32>,
}

impl Vit {
    /// A freshly initialised model, or why the config is refused.
    pub fn new(config: VitConfig, seed: u64) -> Result<Self, String> {
        config.validate()?;
        Ok(Self {
            weights: VitWeights::init(&config, seed),
            config,
        })
    }

    /// A model from saved weights: refused unless every tensor has the shape `config` asks
    /// for and holds finite numbers (a damaged file must not crash the app later).
    pub fn from_parts(config: VitConfig, weights: VitWeights) -> Result<Self, String> {
        config.validate()?;
        let expected = VitWeights::init(&config, 0);
        let (want, got) = (expected.tensors(), weights.tensors());
        if want.len() != got.len() {
            return Err(format!(
                "the weights have {} tensors, this config needs {}",
                got.len(),
                want.len()
            ));
        }
        for ((name, w, _), (_, g, _)) in want.iter().zip(&got) {
            if w.shape() != g.shape() {
                return Err(format!(
                    "{name} has shape {:?}, this config needs {:?}",
                    g.shape(),
                    w.shape()
                ));
            }
            if g.iter().any(|v| !v.is_finite()) {
                return Err(format!("{name} holds a number that is not finite"));
            }
        }
        Ok(Self { config, weights })
    }

    pub fn config(&self) -> &VitConfig {
        &self.config
    }

    pub fn weights(&self) -> &VitWeights {
        &self.weights
    }

    /// Runs the model on one `image`×`image` picture.
    pub fn forward(&self, image: &Array2<f32>) -> Result<VitTrace, String> {
        let grid = self.config.grid()?;
        if image.iter().any(|v| !v.is_finite()) {
            return Err("the image has a pixel that is not a finite number".into());
        }
        let patches = grid.extract(image.view())?;
        Ok(self.forward_patches(grid, patches))
    }

    /// The most probable class for `image`.
    pub fn predict(&self, image: &Array2<f32>) -> Result<usize, String> {
        Ok(self.forward(image)?.predicted())
    }

    /// The forward pass proper, on already extracted patches of the right shape.
    pub(crate) fn forward_patches(&self, grid: PatchGrid, patches: Array2<f32>) -> VitTrace {
        let w = &self.weights;
        // x₀ = [cls; patches W_E + b_E] + positions
        let mut x = Array2::zeros((grid.tokens(), self.config.d_model));
        x.row_mut(0).assign(&w.class_token);
        x.slice_mut(s![1.., ..])
            .assign(&(patches.dot(&w.patch_w) + &w.patch_b));
        x += &w.positions;
        let embeddings = x.clone();

        let mut blocks = Vec::with_capacity(w.blocks.len());
        for b in &w.blocks {
            // h₁ = LN₁(x);  q = h₁W_Q + b_Q, k = h₁W_K + b_K, v = h₁W_V + b_V
            let (h1, norm1) = layer_norm(x.view(), &b.norm1);
            let q = h1.dot(&b.w_q) + &b.b_q;
            let k = h1.dot(&b.w_k) + &b.b_k;
            let v = h1.dot(&b.w_v) + &b.b_v;
            let (z, attention) = self.attend(&q, &k, &v);
            // x ← x + z W_O + b_O   (residual)
            x = x + z.dot(&b.w_o) + &b.b_o;
            // x ← x + GELU(LN₂(x) W₁ + b₁) W₂ + b₂
            let (h2, norm2) = layer_norm(x.view(), &b.norm2);
            let pre = h2.dot(&b.w_1) + &b.b_1;
            let act = pre.mapv(gelu);
            x = x + act.dot(&b.w_2) + &b.b_2;
            blocks.push(BlockTrace {
                norm1,
                h1,
                q,
                k,
                v,
                attention,
                z,
                norm2,
                h2,
                pre,
                act,
                output: x.clone(),
            });
        }

        // Only the class token's vector is classified, so only it goes through LN_f.
        let (class_vector, final_norm) = layer_norm(x.slice(s![0..1, ..]), &w.final_norm);
        let class_vector = class_vector.row(0).to_owned();
        // logits = LN_f(x_CLS) W_H + b_H;  p = softmax(logits)
        let logits = class_vector.dot(&w.head_w) + &w.head_b;
        let mut probs = logits.clone();
        softmax_in_place(probs.as_slice_mut().unwrap_or(&mut []));
        VitTrace {
            grid,
            patches,
            embeddings,
            blocks,
            final_norm,
            class_vector,
            logits,
            probs,
        }
    }

    /// Multi-head self-attention without a mask: for each head h (a d_k-wide column slice),
    /// z_h = softmax(q_h k_hᵀ / √d_k) v_h. Returns the heads side by side and the weights.
    fn attend(
        &self,
        q: &Array2<f32>,
        k: &Array2<f32>,
        v: &Array2<f32>,
    ) -> (Array2<f32>, Array3<f32>) {
        let (t, dk, heads) = (q.nrows(), self.config.d_head(), self.config.heads);
        let scale = 1.0 / (dk as f32).sqrt();
        let mut z = Array2::zeros(q.raw_dim());
        let mut attention = Array3::zeros((heads, t, t));
        for h in 0..heads {
            let cols = s![.., h * dk..(h + 1) * dk];
            let mut a = q.slice(cols).dot(&k.slice(cols).t()) * scale;
            for mut row in a.rows_mut() {
                if let Some(r) = row.as_slice_mut() {
                    softmax_in_place(r);
                }
            }
            z.slice_mut(cols).assign(&a.dot(&v.slice(cols)));
            attention.index_axis_mut(Axis(0), h).assign(&a);
        }
        (z, attention)
    }
}

impl VitTrace {
    pub fn layers(&self) -> usize {
        self.blocks.len()
    }

    pub fn heads(&self) -> usize {
        self.blocks.first().map_or(0, |b| b.attention.dim().0)
    }

    /// Index of the largest probability.
    pub fn predicted(&self) -> usize {
        argmax(self.probs.iter().copied())
    }

    /// One head's full (N+1)×(N+1) attention matrix.
    pub fn attention(&self, layer: usize, head: usize) -> Result<ArrayView2<'_, f32>, String> {
        let block = self.blocks.get(layer).ok_or_else(|| {
            format!(
                "layer {layer} does not exist (the model has {})",
                self.layers()
            )
        })?;
        if head >= self.heads() {
            return Err(format!(
                "head {head} does not exist (each layer has {})",
                self.heads()
            ));
        }
        Ok(block.attention.index_axis(Axis(0), head))
    }

    /// Where the class token looks (row 0), split into class token and the N patches.
    pub fn cls_attention(&self, layer: usize, head: usize) -> Result<PatchWeights, String> {
        let a = self.attention(layer, head)?;
        let row = a
            .rows()
            .into_iter()
            .next()
            .ok_or("the attention matrix is empty")?;
        Ok(split_row(row.to_vec()))
    }

    /// Where patch `patch` (0..N, row-major) looks.
    pub fn patch_attention(
        &self,
        layer: usize,
        head: usize,
        patch: usize,
    ) -> Result<PatchWeights, String> {
        let a = self.attention(layer, head)?;
        if patch + 1 >= a.nrows() {
            return Err(format!(
                "patch {patch} does not exist (the image has {})",
                a.nrows().saturating_sub(1)
            ));
        }
        Ok(split_row(a.row(patch + 1).to_vec()))
    }

    /// `cls_attention` averaged over the layer's heads.
    pub fn cls_attention_mean(&self, layer: usize) -> Result<PatchWeights, String> {
        self.head_mean(|h| self.cls_attention(layer, h))
    }

    /// `patch_attention` averaged over the layer's heads.
    pub fn patch_attention_mean(&self, layer: usize, patch: usize) -> Result<PatchWeights, String> {
        self.head_mean(|h| self.patch_attention(layer, h, patch))
    }

    fn head_mean(
        &self,
        row: impl Fn(usize) -> Result<PatchWeights, String>,
    ) -> Result<PatchWeights, String> {
        let heads = self.heads();
        let mut sum = row(0)?;
        for h in 1..heads {
            let next = row(h)?;
            sum.to_class += next.to_class;
            sum.to_patches
                .iter_mut()
                .zip(&next.to_patches)
                .for_each(|(s, n)| *s += n);
        }
        let n = heads.max(1) as f32;
        sum.to_class /= n;
        sum.to_patches.iter_mut().for_each(|s| *s /= n);
        Ok(sum)
    }
}

fn split_row(row: Vec<f32>) -> PatchWeights {
    let mut it = row.into_iter();
    PatchWeights {
        to_class: it.next().unwrap_or(0.0),
        to_patches: it.collect(),
    }
}

pub(crate) fn argmax(values: impl Iterator<Item = f32>) -> usize {
    let mut best = (0, f32::NEG_INFINITY);
    for (i, v) in values.enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    best.0
}

/// softmax(x)ᵢ = exp(xᵢ − max x) / Σⱼ exp(xⱼ − max x); subtracting the max keeps exp finite.
pub(crate) fn softmax_in_place(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    if sum > 0.0 {
        x.iter_mut().for_each(|v| *v /= sum);
    }
}

/// Row-wise LayerNorm: y = γ ⊙ (x − μ)/√(σ² + ε) + β.
pub(crate) fn layer_norm(x: ArrayView2<f32>, w: &NormWeights) -> (Array2<f32>, NormCache) {
    let d = x.ncols() as f32;
    let mut xhat = x.to_owned();
    let mut inv_std = Array1::zeros(x.nrows());
    for (mut row, s) in xhat.rows_mut().into_iter().zip(inv_std.iter_mut()) {
        let mean = row.sum() / d;
        row -= mean;
        let var = row.dot(&row) / d;
        *s = 1.0 / (var + NORM_EPS).sqrt();
        row *= *s;
    }
    let y = &xhat * &w.gain + &w.bias;
    (y, NormCache { xhat, inv_std })
}

/// GELU(u) ≈ ½u(1 + tanh(√(2/π)(u + 0.044715u³))).
pub(crate) fn gelu(u: f32) -> f32 {
    0.5 * u * (1.0 + (GELU_C * (u + 0.044_715 * u * u * u)).tanh())
}

/// dGELU/du = ½(1 + t) + ½u(1 − t²)·√(2/π)(1 + 3·0.044715u²), t = tanh(…).
pub(crate) fn gelu_grad(u: f32) -> f32 {
    let t = (GELU_C * (u + 0.044_715 * u * u * u)).tanh();
    0.5 * (1.0 + t) + 0.5 * u * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * 0.044_715 * u * u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::vision::images::{example, VisionTask};

    fn model() -> Vit {
        Vit::new(VitConfig::for_task(VisionTask::Count), 7).unwrap()
    }

    #[test]
    fn attention_rows_sum_to_one_and_the_trace_has_the_right_shapes() {
        let m = model();
        let (image, _) = example(VisionTask::Count, 2).unwrap();
        let t = m.forward(&image).unwrap();
        assert_eq!(t.patches.dim(), (16, 16));
        assert_eq!(t.embeddings.dim(), (17, 32));
        assert_eq!((t.layers(), t.heads()), (2, 4));
        for b in &t.blocks {
            assert_eq!(b.attention.dim(), (4, 17, 17));
            for row in b.attention.lanes(Axis(2)) {
                assert!((row.sum() - 1.0).abs() < 1e-5);
                assert!(row.iter().all(|&a| a >= 0.0));
            }
        }
        assert!((t.probs.sum() - 1.0).abs() < 1e-5);
        assert_eq!(t.probs.len(), 4);
        let c = t.cls_attention(1, 1).unwrap();
        assert_eq!(c.to_patches.len(), 16);
        assert!((c.to_class + c.to_patches.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        let p = t.patch_attention(0, 0, 15).unwrap();
        assert_eq!(p.to_class, t.attention(0, 0).unwrap()[(16, 0)]);
        let mean = t.cls_attention_mean(0).unwrap();
        let by_head: f32 = (0..4)
            .map(|h| t.cls_attention(0, h).unwrap().to_patches[3])
            .sum();
        assert!((mean.to_patches[3] - by_head / 4.0).abs() < 1e-6);
        assert!(t.patch_attention_mean(1, 4).is_ok());
    }

    #[test]
    fn bad_requests_are_refused_not_panicked() {
        let m = model();
        assert!(m
            .forward(&Array2::zeros((8, 8)))
            .unwrap_err()
            .contains("8×8"));
        let mut nan = Array2::zeros((16, 16));
        nan[(3, 3)] = f32::NAN;
        assert!(m.forward(&nan).unwrap_err().contains("finite"));
        let t = m.forward(&Array2::zeros((16, 16))).unwrap();
        assert!(t.cls_attention(2, 0).unwrap_err().contains("layer 2"));
        assert!(t.cls_attention(0, 4).unwrap_err().contains("head 4"));
        assert!(t
            .patch_attention(0, 0, 16)
            .unwrap_err()
            .contains("patch 16"));
        let bad = VitConfig {
            heads: 5,
            ..VitConfig::default()
        };
        assert!(Vit::new(bad, 1).unwrap_err().contains("heads"));
    }

    #[test]
    fn saved_weights_are_checked_before_use() {
        let m = model();
        let ok = Vit::from_parts(*m.config(), m.weights().clone()).unwrap();
        assert_eq!(ok, m);
        let small = Vit::new(
            VitConfig {
                d_model: 16,
                ..*m.config()
            },
            1,
        )
        .unwrap();
        let err = Vit::from_parts(*m.config(), small.weights().clone()).unwrap_err();
        assert!(err.contains("patch_w has shape [16, 16]"), "{err}");
        let mut bad = m.weights().clone();
        bad.head_b[1] = f32::INFINITY;
        let err = Vit::from_parts(*m.config(), bad).unwrap_err();
        assert!(err.contains("head_b"), "{err}");
    }

    #[test]
    fn layer_norm_and_gelu_match_their_formulas() {
        let x = Array2::from_shape_vec((1, 4), vec![1.0, 2.0, 3.0, 6.0]).unwrap();
        let w = NormWeights {
            gain: Array1::from(vec![1.0, 2.0, 1.0, 1.0]),
            bias: Array1::from(vec![0.0, 0.0, 0.5, 0.0]),
        };
        let (y, _) = layer_norm(x.view(), &w);
        // μ = 3, σ² = (4 + 1 + 0 + 9)/4 = 3.5
        let s = (3.5f32 + NORM_EPS).sqrt();
        let want = [-2.0 / s, -2.0 / s, 0.5, 3.0 / s];
        for (a, b) in y.iter().zip(want) {
            assert!((a - b).abs() < 1e-6);
        }
        assert_eq!(gelu(0.0), 0.0);
        assert!((gelu(1.0) - 0.841_192).abs() < 1e-5);
        for u in [-2.0f32, -0.3, 0.0, 0.7, 3.0] {
            let num = (gelu(u + 1e-3) - gelu(u - 1e-3)) / 2e-3;
            assert!((num - gelu_grad(u)).abs() < 1e-3, "{u}");
        }
    }
}
