//! The scoring lab's maths: four score functions, their random parameters, and var(q·k) by d_k.

use super::ScoringInput;
use crate::model::softmax::softmax_with_temperature;
use crate::util::argmax;
use crate::util::rng::Rng;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// The four classic ways of turning a query and a key into one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreKind {
    Dot,
    ScaledDot,
    Bilinear,
    Additive,
}

impl ScoreKind {
    pub const ALL: [ScoreKind; 4] = [
        ScoreKind::Dot,
        ScoreKind::ScaledDot,
        ScoreKind::Bilinear,
        ScoreKind::Additive,
    ];

    /// Its name in the reader's language: the score table's column heading.
    pub fn label(self) -> String {
        match self {
            ScoreKind::Dot => crate::t!("scoring-kind-dot"),
            ScoreKind::ScaledDot => crate::t!("scoring-kind-scaled-dot"),
            ScoreKind::Bilinear => crate::t!("scoring-kind-bilinear"),
            ScoreKind::Additive => crate::t!("scoring-kind-additive"),
        }
    }

    /// Its name in the exported JSON, the same in every language.
    pub fn key(self) -> &'static str {
        match self {
            ScoreKind::Dot => "dot q·k",
            ScoreKind::ScaledDot => "scaled dot q·k/√d",
            ScoreKind::Bilinear => "bilinear qᵀWk",
            ScoreKind::Additive => "additive vᵀtanh(Wq+Uk)",
        }
    }
}

/// The learned parameters of the bilinear (Luong) and additive (Bahdanau) scorings. The loaded
/// models never learned them, so the lab draws them at random.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreParams {
    /// W of qᵀWk, [h, h].
    pub w_bilinear: Array2<f32>,
    /// W of vᵀtanh(Wq + Uk), [a, h] (here a = h).
    pub w_add: Array2<f32>,
    /// U of vᵀtanh(Wq + Uk), [a, h].
    pub u_add: Array2<f32>,
    /// v of vᵀtanh(Wq + Uk), [a].
    pub v_add: Array1<f32>,
}

impl ScoreParams {
    /// Seeded parameters for width `h`: matrix entries ~ N(0, 1/h), so Wk keeps the scale of k;
    /// v ~ N(0, 1).
    pub fn random(h: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let sd = 1.0 / (h.max(1) as f64).sqrt();
        let w_bilinear = normal_matrix(&mut rng, h, sd);
        let w_add = normal_matrix(&mut rng, h, sd);
        let u_add = normal_matrix(&mut rng, h, sd);
        let v_add = Array1::from_shape_simple_fn(h, || rng.normal() as f32);
        Self {
            w_bilinear,
            w_add,
            u_add,
            v_add,
        }
    }
}

fn normal_matrix(rng: &mut Rng, h: usize, sd: f64) -> Array2<f32> {
    Array2::from_shape_simple_fn((h, h), || (rng.normal() * sd) as f32)
}

/// One score per key (row of `keys`). Shapes that do not fit together (a query of another
/// width, parameters made for another width) give NaN for every key rather than a panic.
pub fn scores(
    query: ArrayView1<'_, f32>,
    keys: ArrayView2<'_, f32>,
    kind: ScoreKind,
    params: &ScoreParams,
) -> Vec<f32> {
    let (t, h) = keys.dim();
    let unfit = || vec![f32::NAN; t];
    if query.len() != h {
        return unfit();
    }
    match kind {
        ScoreKind::Dot => keys.dot(&query).to_vec(),
        ScoreKind::ScaledDot => {
            // A width-0 head scores 0 everywhere; dividing by √1 keeps that 0 instead of 0/0.
            let scale = (h.max(1) as f32).sqrt();
            keys.dot(&query).iter().map(|s| s / scale).collect()
        }
        ScoreKind::Bilinear => {
            if params.w_bilinear.dim() != (h, h) {
                return unfit();
            }
            // qᵀWk = (Wᵀq)·k: one matrix-vector product for all keys.
            let wq = params.w_bilinear.t().dot(&query);
            keys.dot(&wq).to_vec()
        }
        ScoreKind::Additive => {
            let a = params.v_add.len();
            if params.w_add.dim() != (a, h) || params.u_add.dim() != (a, h) {
                return unfit();
            }
            let wq = params.w_add.dot(&query);
            let uk = keys.dot(&params.u_add.t());
            uk.outer_iter()
                .map(|row| {
                    row.iter()
                        .zip(&wq)
                        .zip(&params.v_add)
                        .map(|((u, w), v)| v * (w + u).tanh())
                        .sum()
                })
                .collect()
        }
    }
}

/// Sample variances of q·k and of q·k/√d_k over `samples` draws of q and k with i.i.d. N(0, 1)
/// entries: var(q·k) = d_k in theory, the scaled one 1. Fewer than two samples give NaN.
pub fn dot_variance(d_k: usize, samples: usize, seed: u64) -> (f32, f32) {
    let mut rng = Rng::new(seed);
    let dots: Vec<f64> = (0..samples).map(|_| draw_dot(&mut rng, d_k)).collect();
    variances(&dots, d_k)
}

/// One draw of q·k = Σᵢ qᵢkᵢ with every qᵢ, kᵢ ~ N(0, 1).
fn draw_dot(rng: &mut Rng, d_k: usize) -> f64 {
    (0..d_k).map(|_| rng.normal() * rng.normal()).sum()
}

/// (var(q·k), var(q·k/√d_k)) of the draws `dots`; NaN for fewer than two.
fn variances(dots: &[f64], d_k: usize) -> (f32, f32) {
    if dots.len() < 2 {
        return (f32::NAN, f32::NAN);
    }
    let scale = (d_k.max(1) as f64).sqrt();
    let scaled: Vec<f64> = dots.iter().map(|d| d / scale).collect();
    (variance(dots) as f32, variance(&scaled) as f32)
}

/// Unbiased sample variance (n − 1 in the denominator); `xs` has at least two entries.
fn variance(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
}

/// Draws of q and k behind each printed variance.
pub(super) const SAMPLES: usize = 2000;
/// d_k = 2^1 … 2^9 = 2 … 512.
pub(super) const D_K_EXPONENTS: std::ops::RangeInclusive<u32> = 1..=9;
/// Products qᵢkᵢ drawn between two looks at the clock: the widest width is a million of
/// them (80 ms in the browser), so a width is measured over many frames; 16,384 at a look
/// took 8-9 ms on a 2-core machine's browser.
const PRODUCTS_PER_LOOK: usize = 4096;

/// The variances for every d_k of the slider, cached per seed: about four million normal
/// draws, too many to redo every frame, and too many for one frame in the browser, so they
/// are measured a slice at a time and the plot fills in.
pub(super) struct VarianceCurve {
    pub(super) seed: u64,
    /// (d_k, var(q·k), var(q·k/√d_k)), for the widths measured so far, narrowest first.
    pub(super) points: Vec<(usize, f32, f32)>,
    /// The width being measured: its generator and its draws so far.
    partial: Option<(Rng, Vec<f64>)>,
}

impl VarianceCurve {
    pub(super) fn new(seed: u64) -> Self {
        Self {
            seed,
            points: Vec::new(),
            partial: None,
        }
    }

    pub(super) fn done(&self) -> bool {
        self.points.len() == D_K_EXPONENTS.count()
    }

    /// Draw for about `budget_ms` (at least one slice). Each width has its own generator,
    /// kept between calls, so the result is [`dot_variance`]'s however the work is split.
    pub(super) fn advance(&mut self, budget_ms: f64) {
        let start = web_time::Instant::now();
        while !self.done() {
            let d = 1usize << (D_K_EXPONENTS.start() + self.points.len() as u32);
            let seed = self.seed;
            let (rng, dots) = self
                .partial
                .get_or_insert_with(|| (Rng::new(seed), Vec::with_capacity(SAMPLES)));
            let take = (PRODUCTS_PER_LOOK / d).clamp(1, SAMPLES - dots.len());
            dots.extend((0..take).map(|_| draw_dot(rng, d)));
            if dots.len() == SAMPLES {
                let (raw, scaled) = variances(dots, d);
                self.points.push((d, raw, scaled));
                self.partial = None;
            }
            if start.elapsed().as_secs_f64() * 1e3 > budget_ms {
                break;
            }
        }
    }
}

/// One scoring function's column of the table.
pub(super) struct Column {
    pub(super) kind: ScoreKind,
    pub(super) scores: Vec<f32>,
    /// Softmax at τ = 1; NaN when a score overflowed.
    pub(super) weights: Vec<f32>,
    /// The best-scoring key, highlighted.
    pub(super) best: Option<usize>,
}

impl Column {
    pub(super) fn new(kind: ScoreKind, input: &ScoringInput<'_>, params: &ScoreParams) -> Self {
        let scores = scores(input.query, input.keys, kind, params);
        let ok = all_finite(&scores);
        let weights = if ok {
            softmax_with_temperature(&scores, 1.0)
        } else {
            vec![f32::NAN; scores.len()]
        };
        let best = if ok {
            argmax(scores.iter().copied()).map(|(i, _)| i)
        } else {
            None
        };
        Self {
            kind,
            scores,
            weights,
            best,
        }
    }
}

pub(super) fn all_finite(xs: &[f32]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use ndarray::array;

    pub(crate) fn example_keys() -> (Array1<f32>, Array2<f32>) {
        let q = array![0.5, -1.0, 2.0];
        let k = array![
            [1.0, 0.0, 0.5],
            [-0.5, 2.0, 1.0],
            [0.3, 0.3, -1.2],
            [2.0, -1.0, 1.5],
        ];
        (q, k)
    }

    #[test]
    fn scaled_dot_is_dot_over_root_h() {
        let (q, k) = example_keys();
        let params = ScoreParams::random(3, 1);
        let dot = scores(q.view(), k.view(), ScoreKind::Dot, &params);
        let scaled = scores(q.view(), k.view(), ScoreKind::ScaledDot, &params);
        for (d, s) in dot.iter().zip(&scaled) {
            assert!((d / 3f32.sqrt() - s).abs() < 1e-6);
        }
        // Row 0 by hand: 0.5·1 + (−1)·0 + 2·0.5 = 1.5.
        assert!((dot[0] - 1.5).abs() < 1e-6);
    }

    #[test]
    fn bilinear_with_identity_is_dot() {
        let (q, k) = example_keys();
        let mut params = ScoreParams::random(3, 1);
        params.w_bilinear = Array2::eye(3);
        let dot = scores(q.view(), k.view(), ScoreKind::Dot, &params);
        let bilinear = scores(q.view(), k.view(), ScoreKind::Bilinear, &params);
        for (d, b) in dot.iter().zip(&bilinear) {
            assert!((d - b).abs() < 1e-6);
        }
    }

    #[test]
    fn additive_matches_a_hand_computed_example() {
        // Wq = [1, 0]; Uk = [[1, 0], [0, 2]]·[0, 1] = [0, 2]; v = [1, −1]:
        // vᵀtanh([1, 2]) = tanh 1 − tanh 2 ≈ 0.761594 − 0.964028 = −0.202434.
        let params = ScoreParams {
            w_bilinear: Array2::eye(2),
            w_add: Array2::eye(2),
            u_add: array![[1.0, 0.0], [0.0, 2.0]],
            v_add: array![1.0, -1.0],
        };
        let q = array![1.0, 0.0];
        let k = array![[0.0, 1.0], [0.0, 0.0]];
        let s = scores(q.view(), k.view(), ScoreKind::Additive, &params);
        assert!((s[0] - (-0.202_434)).abs() < 1e-5, "{}", s[0]);
        // Second key: tanh([1, 0]) = [0.761594, 0] → 0.761594.
        assert!((s[1] - 0.761_594).abs() < 1e-5, "{}", s[1]);
    }

    #[test]
    fn scores_of_odd_shapes_never_panic() {
        let params = ScoreParams::random(3, 1);
        let (q, k) = example_keys();
        let empty = Array2::<f32>::zeros((0, 3));
        for kind in ScoreKind::ALL {
            assert!(scores(q.view(), empty.view(), kind, &params).is_empty());
            // Parameters for width 3 but a query of width 2: NaN, not a panic.
            let q2 = array![1.0, 2.0];
            let s = scores(q2.view(), k.view(), kind, &params);
            assert_eq!(s.len(), 4);
            assert!(s.iter().all(|x| x.is_nan()));
        }
        let zero_width = Array2::<f32>::zeros((2, 0));
        let p0 = ScoreParams::random(0, 1);
        let q0 = Array1::<f32>::zeros(0);
        for kind in ScoreKind::ALL {
            assert_eq!(
                scores(q0.view(), zero_width.view(), kind, &p0),
                vec![0.0; 2]
            );
        }
    }

    #[test]
    fn random_params_are_seeded_with_variance_one_over_h() {
        let a = ScoreParams::random(32, 5);
        assert_eq!(a, ScoreParams::random(32, 5));
        assert_ne!(a, ScoreParams::random(32, 6));
        let var = a.w_bilinear.iter().map(|x| x * x).sum::<f32>() / (32.0 * 32.0);
        assert!((var * 32.0 - 1.0).abs() < 0.15, "h·var {}", var * 32.0);
    }

    #[test]
    fn dot_variance_grows_with_d_k_and_scaling_holds_it_at_one() {
        let (raw, scaled) = dot_variance(64, 20000, 1);
        assert!((raw / 64.0 - 1.0).abs() < 0.1, "var(q·k) {raw}");
        assert!((scaled - 1.0).abs() < 0.1, "var(q·k/√d_k) {scaled}");
        let (raw4, _) = dot_variance(4, 20000, 1);
        assert!((raw4 / 4.0 - 1.0).abs() < 0.1, "var(q·k) {raw4}");
        assert!(dot_variance(8, 1, 1).0.is_nan());
        assert_eq!(dot_variance(0, 10, 1), (0.0, 0.0));
    }

    #[test]
    fn the_curve_measured_in_slices_equals_each_width_drawn_at_once() {
        let mut curve = VarianceCurve::new(3);
        let mut calls = 0;
        while !curve.done() {
            curve.advance(0.0);
            calls += 1;
        }
        // A zero budget takes one slice a call: the widest widths need several.
        assert!(calls > D_K_EXPONENTS.count(), "{calls} calls");
        for (i, &(d, raw, scaled)) in curve.points.iter().enumerate() {
            assert_eq!(d, 1 << (i + 1));
            assert_eq!((raw, scaled), dot_variance(d, SAMPLES, 3), "d_k = {d}");
        }
    }
}
