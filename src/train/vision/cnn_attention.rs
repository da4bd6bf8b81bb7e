//! Self-attention inside a convolutional network (the block of SAGAN, Zhang et al. 2018), on
//! the Vision tab's 16 × 16 images:
//!
//! 1. a 3×3 convolution makes a feature map X of C × H × W (C = 4 named channels, set by hand);
//! 2. three 1×1 convolutions make Q = W_Q * X + b_Q, K = W_K * X + b_K, V = W_V * X + b_V, each
//!    C′ × H × W: a 1×1 convolution is the same C′ × C matrix applied at every pixel;
//! 3. each is flattened to C′ × N, N = H · W pixels, and every pixel scores every other:
//!    S = Q′ᵀ K′ / √C′, N × N;
//! 4. A = softmax(S), row by row;
//! 5. O′ = V′ Aᵀ, C′ × N, reshaped to C′ × H × W;
//! 6. O = W_O * O′ + b_O (a fourth 1×1 convolution, back to C channels), O_final = O + X.
//!
//! A convolution at a pixel sees its 3×3 neighbourhood; one attention step sees all N pixels.

use crate::util::rng::Rng;
use ndarray::{Array1, Array2, Array3, ArrayView2, Axis};

/// Channels of the feature map X (C).
pub const CHANNELS: usize = 4;
/// Channels of Q, K and V (C′), fewer than C to save work as in the notes.
pub const REDUCED: usize = 2;

/// The 3×3 filters of the first convolution, applied as a cross-correlation (no flip), zero
/// padding, stride 1: ink (the pixel itself), surround (the 3×3 mean), top edge (row below
/// minus row above: + at a shape's top, − at its bottom), left edge (column right minus column
/// left: + at a shape's left, − at its right).
const FILTERS: [[[f32; 3]; 3]; CHANNELS] = [
    [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
    [[1.0 / 9.0; 3]; 3],
    [[-1.0 / 3.0; 3], [0.0; 3], [1.0 / 3.0; 3]],
    [
        [-1.0 / 3.0, 0.0, 1.0 / 3.0],
        [-1.0 / 3.0, 0.0, 1.0 / 3.0],
        [-1.0 / 3.0, 0.0, 1.0 / 3.0],
    ],
];

/// X = the image convolved with the four 3×3 filters: C × H × W, the same H × W as the image.
pub fn feature_map(image: ArrayView2<f32>) -> Array3<f32> {
    let (h, w) = image.dim();
    let mut x = Array3::zeros((CHANNELS, h, w));
    for (c, filter) in FILTERS.iter().enumerate() {
        for i in 0..h {
            for j in 0..w {
                let mut sum = 0.0;
                for (a, row) in filter.iter().enumerate() {
                    for (b, &f) in row.iter().enumerate() {
                        let (r, k) = ((i + a).checked_sub(1), (j + b).checked_sub(1));
                        if let (Some(r), Some(k)) = (r, k) {
                            if r < h && k < w {
                                sum += f * image[[r, k]];
                            }
                        }
                    }
                }
                x[[c, i, j]] = sum;
            }
        }
    }
    x
}

/// A 1×1 convolution, `out[o, i, j] = Σ_c w[o, c] · x[c, i, j] + b[o]`: one matrix, the same
/// at every pixel, so the map keeps its H × W.
pub fn conv1x1(w: &Array2<f32>, b: &Array1<f32>, x: &Array3<f32>) -> Array3<f32> {
    let (_, h, wd) = x.dim();
    let mut out = Array3::zeros((w.nrows(), h, wd));
    for i in 0..h {
        for j in 0..wd {
            let pixel = x.slice(ndarray::s![.., i, j]);
            let mapped = w.dot(&pixel) + b;
            out.slice_mut(ndarray::s![.., i, j]).assign(&mapped);
        }
    }
    out
}

/// C × H × W as C × N, pixels in row-major order.
fn flatten(x: &Array3<f32>) -> Array2<f32> {
    let (c, h, w) = x.dim();
    x.to_shape((c, h * w))
        .map(|v| v.to_owned())
        .unwrap_or_else(|_| Array2::zeros((c, h * w)))
}

/// How W_Q, W_K, W_V and W_O are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CnnWeights {
    /// Q and K read the ink channel: a pixel on a shape looks at every inked pixel alike, near
    /// or far.
    Ink,
    /// Q and K read the two edge channels: a top edge looks at top edges (of any shape), a
    /// left edge at left edges, and away from the opposite edges.
    Edges,
    /// Random 1×1 convolutions from a seed, as an untrained network has.
    Random(u64),
}

impl CnnWeights {
    /// The short name links use: `ink`, `edges`, or `r` and a seed.
    pub fn code(&self) -> String {
        match self {
            CnnWeights::Ink => "ink".into(),
            CnnWeights::Edges => "edges".into(),
            CnnWeights::Random(seed) => format!("r{seed}"),
        }
    }

    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "ink" => Some(CnnWeights::Ink),
            "edges" => Some(CnnWeights::Edges),
            _ => code
                .strip_prefix('r')?
                .parse::<u64>()
                .ok()
                .filter(|&s| s >= 1)
                .map(CnnWeights::Random),
        }
    }
}

/// The four 1×1 convolutions of the block.
#[derive(Debug, Clone)]
pub struct CnnAttention {
    pub wq: Array2<f32>,
    pub bq: Array1<f32>,
    pub wk: Array2<f32>,
    pub bk: Array1<f32>,
    pub wv: Array2<f32>,
    pub bv: Array1<f32>,
    pub wo: Array2<f32>,
    pub bo: Array1<f32>,
}

/// C′ × C with `scale` at (row, channel) for each pair, zeros elsewhere.
fn picking(pairs: [(usize, usize); REDUCED], scale: f32) -> Array2<f32> {
    let mut w = Array2::zeros((REDUCED, CHANNELS));
    for (row, channel) in pairs {
        w[[row, channel]] = scale;
    }
    w
}

impl CnnAttention {
    /// The block for a choice of weights; `scale` multiplies W_Q and W_K, so the scores grow
    /// as its square and the softmax sharpens.
    pub fn new(choice: CnnWeights, scale: f32) -> Self {
        let zeros = |n| Array1::zeros(n);
        // V carries ink and surround; W_O writes them back into those channels.
        let wv = picking([(0, 0), (1, 1)], 1.0);
        let wo = wv.t().to_owned();
        match choice {
            CnnWeights::Ink | CnnWeights::Edges => {
                let wq = match choice {
                    // Only the ink channel: every inked pixel scores alike, near or far.
                    CnnWeights::Ink => {
                        let mut w = Array2::zeros((REDUCED, CHANNELS));
                        w[[0, 0]] = scale;
                        w
                    }
                    _ => picking([(0, 2), (1, 3)], scale),
                };
                Self {
                    wk: wq.clone(),
                    wq,
                    bq: zeros(REDUCED),
                    bk: zeros(REDUCED),
                    wv,
                    bv: zeros(REDUCED),
                    wo,
                    bo: zeros(CHANNELS),
                }
            }
            CnnWeights::Random(seed) => {
                let mut rng = Rng::new(seed);
                let mut normal = |rows, cols, std: f32| {
                    Array2::from_shape_fn((rows, cols), |_| rng.normal() as f32 * std)
                };
                let std = 1.0 / (CHANNELS as f32).sqrt();
                Self {
                    wq: normal(REDUCED, CHANNELS, std * scale),
                    wk: normal(REDUCED, CHANNELS, std * scale),
                    wv: normal(REDUCED, CHANNELS, std),
                    wo: normal(CHANNELS, REDUCED, 1.0 / (REDUCED as f32).sqrt()),
                    bq: zeros(REDUCED),
                    bk: zeros(REDUCED),
                    bv: zeros(REDUCED),
                    bo: zeros(CHANNELS),
                }
            }
        }
    }

    /// The numbers in the four 1×1 convolutions: the same for any image size.
    pub fn parameters(&self) -> usize {
        [&self.wq, &self.wk, &self.wv, &self.wo]
            .iter()
            .map(|w| w.len())
            .sum::<usize>()
            + self.bq.len()
            + self.bk.len()
            + self.bv.len()
            + self.bo.len()
    }

    /// Every step of the block on `image`.
    pub fn forward(&self, image: ArrayView2<f32>) -> CnnTrace {
        let x = feature_map(image);
        let (c, h, w) = x.dim();
        let q = flatten(&conv1x1(&self.wq, &self.bq, &x));
        let k = flatten(&conv1x1(&self.wk, &self.bk, &x));
        let v = flatten(&conv1x1(&self.wv, &self.bv, &x));
        // S = Q′ᵀ K′ / √C′
        let scores = q.t().dot(&k) / (q.nrows() as f32).sqrt();
        let mut weights = scores.clone();
        for mut row in weights.axis_iter_mut(Axis(0)) {
            let probs = crate::model::softmax::softmax(row.as_slice().unwrap_or(&[]));
            if probs.len() == row.len() {
                row.assign(&Array1::from(probs));
            }
        }
        // O′ = V′ Aᵀ, then back to C′ × H × W and through W_O.
        let mixed = v.dot(&weights.t());
        let mixed_map = mixed
            .to_shape((mixed.nrows(), h, w))
            .map(|m| m.to_owned())
            .unwrap_or_else(|_| Array3::zeros((mixed.nrows(), h, w)));
        let output = conv1x1(&self.wo, &self.bo, &mixed_map) + &x;
        debug_assert_eq!(output.dim(), (c, h, w));
        CnnTrace {
            features: x,
            queries: q,
            keys: k,
            scores,
            weights,
            mixed,
            output,
        }
    }
}

/// The block's intermediate values on one image.
#[derive(Debug, Clone)]
pub struct CnnTrace {
    /// X, C × H × W.
    pub features: Array3<f32>,
    /// Q′ and K′, C′ × N.
    pub queries: Array2<f32>,
    pub keys: Array2<f32>,
    /// S = Q′ᵀ K′ / √C′ and A = softmax(S), N × N.
    pub scores: Array2<f32>,
    pub weights: Array2<f32>,
    /// O′ = V′ Aᵀ, C′ × N.
    pub mixed: Array2<f32>,
    /// O_final = W_O * O′ + b_O + X, C × H × W.
    pub output: Array3<f32>,
}

impl CnnTrace {
    /// Image side (H, W).
    pub fn size(&self) -> (usize, usize) {
        let (_, h, w) = self.features.dim();
        (h, w)
    }

    /// The weight pixel `query` gives to pixels more than one step away in a row or column:
    /// where a 3×3 convolution centred on it cannot see.
    pub fn weight_beyond_kernel(&self, query: usize) -> f32 {
        let (_, w) = self.size();
        let (qi, qj) = (query / w, query % w);
        self.weights
            .row(query)
            .iter()
            .enumerate()
            .filter(|(k, _)| (k / w).abs_diff(qi) > 1 || (k % w).abs_diff(qj) > 1)
            .map(|(_, &a)| a)
            .sum()
    }
}

#[cfg(test)]
#[path = "cnn_attention_tests.rs"]
mod tests;
