//! Two attention layers stacked, without residuals or feed-forward layers, as in the notes'
//! derivation: with the weights held, Y₂ = A₂·(A₁·X·W_V1)·W_V2 = (A₂A₁)·X·(W_V1W_V2), one layer.
//! Whether the stack is a linear map of X then depends only on how the weights are made from
//! X: held fixed (linear), raw scores QKᵀ/√d (a polynomial of degree 9), or softmax (neither).

use crate::util::rng::Rng;
use ndarray::Array2;

/// Tokens and width of the example: small enough to print every number.
pub const T: usize = 4;
pub const D: usize = 3;

/// How a layer's weights come from its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// A = softmax(QKᵀ/√d): the real layer.
    Softmax,
    /// A = QKᵀ/√d: the scores with no softmax.
    Scores,
    /// The softmax weights computed once from the base input X and then kept, whatever the
    /// input (the notes' derivation treats them so).
    Held,
}

impl Weights {
    pub const ALL: [Weights; 3] = [Weights::Held, Weights::Scores, Weights::Softmax];
}

/// One layer's projections (d × d).
pub struct Layer {
    pub wq: Array2<f64>,
    pub wk: Array2<f64>,
    pub wv: Array2<f64>,
}

/// The example: an input X, a second input X′ (for the sum test) and two layers, all drawn
/// from one seed.
pub struct Stack {
    pub x: Array2<f64>,
    pub other: Array2<f64>,
    pub layers: [Layer; 2],
}

/// What a pass through both layers made.
pub struct Pass {
    /// A₁, A₂.
    pub weights: [Array2<f64>; 2],
    /// Y₁ = A₁·X·W_V1, Y₂ = A₂·Y₁·W_V2.
    pub outputs: [Array2<f64>; 2],
}

/// The notes' collapse, checked: two layers against the one layer (A₂A₁, W_V1W_V2).
pub struct Collapse {
    pub a_star: Array2<f64>,
    pub v_star: Array2<f64>,
    /// max |Y₂ − (A₂A₁)·X·(W_V1W_V2)|.
    pub difference: f64,
    /// The smallest and largest row sum of A₂A₁.
    pub row_sums: (f64, f64),
}

/// Is f(X) = the stack's output linear? Relative errors of the two tests and the range of
/// f(cX) ÷ f(X) entry by entry.
pub struct Linearity {
    /// max |f(cX) − c·f(X)| ÷ max |c·f(X)|.
    pub scaling: f64,
    /// max |f(X + X′) − f(X) − f(X′)| ÷ max |f(X) + f(X′)|.
    pub sum: f64,
    /// The smallest and largest f(cX) ÷ f(X) over the entries.
    pub ratio: (f64, f64),
}

fn random(rng: &mut Rng, rows: usize, cols: usize, spread: f64) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols), |_| rng.normal() * spread)
}

/// Softmax of each row.
fn softmax_rows(mut scores: Array2<f64>) -> Array2<f64> {
    for mut row in scores.rows_mut() {
        let max = row.fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        row.mapv_inplace(|x| (x - max).exp());
        let sum = row.sum();
        row /= sum;
    }
    scores
}

impl Stack {
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let layer = |rng: &mut Rng| Layer {
            wq: random(rng, D, D, 0.8),
            wk: random(rng, D, D, 0.8),
            wv: random(rng, D, D, 0.8),
        };
        let layers = [layer(&mut rng), layer(&mut rng)];
        Self {
            x: random(&mut rng, T, D, 1.0),
            other: random(&mut rng, T, D, 1.0),
            layers,
        }
    }

    /// A layer's weights on its input `x`: QKᵀ/√d, then the softmax if asked.
    fn weights(layer: &Layer, x: &Array2<f64>, softmax: bool) -> Array2<f64> {
        let q = x.dot(&layer.wq);
        let k = x.dot(&layer.wk);
        let scores = q.dot(&k.t()) / (D as f64).sqrt();
        if softmax {
            softmax_rows(scores)
        } else {
            scores
        }
    }

    /// Both layers on `input`, Y = A·X·W_V each, with the weights made as `how` says.
    pub fn pass(&self, input: &Array2<f64>, how: Weights) -> Pass {
        let held = (how == Weights::Held).then(|| self.pass(&self.x, Weights::Softmax).weights);
        let mut x = input.clone();
        let mut weights = Vec::new();
        let mut outputs = Vec::new();
        for (l, layer) in self.layers.iter().enumerate() {
            let a = match (&held, how) {
                (Some(held), _) => held[l].clone(),
                (None, w) => Self::weights(layer, &x, w == Weights::Softmax),
            };
            x = a.dot(&x).dot(&layer.wv);
            weights.push(a);
            outputs.push(x.clone());
        }
        let [a1, a2]: [Array2<f64>; 2] = weights.try_into().expect("two layers");
        let [y1, y2]: [Array2<f64>; 2] = outputs.try_into().expect("two layers");
        Pass {
            weights: [a1, a2],
            outputs: [y1, y2],
        }
    }

    /// The softmax stack on X against the one layer the notes collapse it into.
    pub fn collapse(&self) -> Collapse {
        let pass = self.pass(&self.x, Weights::Softmax);
        let [a1, a2] = &pass.weights;
        let a_star = a2.dot(a1);
        let v_star = self.layers[0].wv.dot(&self.layers[1].wv);
        let one_layer = a_star.dot(&self.x).dot(&v_star);
        let difference = max_abs(&(&pass.outputs[1] - &one_layer));
        let sums: Vec<f64> = a_star.rows().into_iter().map(|r| r.sum()).collect();
        let row_sums = sums
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                (lo.min(s), hi.max(s))
            });
        Collapse {
            a_star,
            v_star,
            difference,
            row_sums,
        }
    }

    /// The scaling and sum tests of linearity, with the weights made as `how` says.
    pub fn linearity(&self, how: Weights, c: f64) -> Linearity {
        let f = |input: &Array2<f64>| self.pass(input, how).outputs[1].clone();
        let fx = f(&self.x);
        let scaled = f(&(&self.x * c));
        let scaling = max_abs(&(&scaled - &(&fx * c))) / max_abs(&(&fx * c));
        let fo = f(&self.other);
        let together = f(&(&self.x + &self.other));
        let sum = max_abs(&(&together - &(&fx + &fo))) / max_abs(&(&fx + &fo));
        let ratio = scaled
            .iter()
            .zip(&fx)
            .filter(|(_, &b)| b.abs() > 1e-9)
            .map(|(a, b)| a / b)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r), hi.max(r))
            });
        Linearity {
            scaling,
            sum,
            ratio,
        }
    }
}

fn max_abs(m: &Array2<f64>) -> f64 {
    m.fold(0.0, |a, &x| a.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_layers_with_held_weights_are_one_layer() {
        for seed in [1, 2, 7, 123] {
            let s = Stack::new(seed);
            let c = s.collapse();
            assert!(c.difference < 1e-12, "seed {seed}: {}", c.difference);
            // A product of row-stochastic matrices is row-stochastic: A₂A₁ is attention weights.
            assert!((c.row_sums.0 - 1.0).abs() < 1e-12 && (c.row_sums.1 - 1.0).abs() < 1e-12);
            assert!(c.a_star.iter().all(|&w| w > 0.0));
            // Computed by hand, entry (0, 0) of A₂A₁ is Σ_j A₂[0, j]·A₁[j, 0].
            let p = s.pass(&s.x, Weights::Softmax);
            let by_hand: f64 = (0..T)
                .map(|j| p.weights[1][[0, j]] * p.weights[0][[j, 0]])
                .sum();
            assert!((c.a_star[[0, 0]] - by_hand).abs() < 1e-15);
        }
    }

    #[test]
    fn held_weights_are_linear_scores_are_a_degree_nine_polynomial_softmax_neither() {
        let s = Stack::new(1);
        for c in [0.5, 2.0, 3.0] {
            let held = s.linearity(Weights::Held, c);
            assert!(held.scaling < 1e-12 && held.sum < 1e-12, "held: linear");
            assert!((held.ratio.0 - c).abs() < 1e-9 && (held.ratio.1 - c).abs() < 1e-9);
            // Without softmax: A₁ ∝ c², Y₁ ∝ c³, A₂ ∝ c⁶, Y₂ ∝ c⁹, every entry alike.
            let scores = s.linearity(Weights::Scores, c);
            let c9 = c.powi(9);
            assert!(
                (scores.ratio.0 / c9 - 1.0).abs() < 1e-9,
                "{:?}",
                scores.ratio
            );
            assert!((scores.ratio.1 / c9 - 1.0).abs() < 1e-9);
            assert!(scores.scaling > 0.1 && scores.sum > 0.01, "not linear");
            // With softmax the entries scale by different factors: no power of c fits.
            let soft = s.linearity(Weights::Softmax, c);
            assert!(soft.scaling > 0.01 && soft.sum > 0.01, "not linear");
            assert!(soft.ratio.1 - soft.ratio.0 > 0.01, "{:?}", soft.ratio);
        }
        // c = 1 changes nothing, in every mode.
        for how in Weights::ALL {
            assert!(s.linearity(how, 1.0).scaling < 1e-12);
        }
    }

    #[test]
    fn the_scores_mode_is_qk_over_root_d() {
        let s = Stack::new(5);
        let p = s.pass(&s.x, Weights::Scores);
        let l = &s.layers[0];
        let (q, k) = (s.x.row(1).dot(&l.wq), s.x.row(2).dot(&l.wk));
        let want = q.dot(&k) / 3f64.sqrt();
        assert!((p.weights[0][[1, 2]] - want).abs() < 1e-12);
        let soft = s.pass(&s.x, Weights::Softmax);
        let row: f64 = soft.weights[0].row(1).sum();
        assert!((row - 1.0).abs() < 1e-12);
    }
}
