//! Positional schemes as pure functions. The model calls these, and so do the labs that
//! teach them: what a student sees is what runs. Angles are computed in f64 so that large
//! positions stay exact before the cast to f32.

use super::config::{RopePairing, RopeScaling};
use ndarray::{Array1, Array2, ArrayView1, ArrayViewMut2, Axis};

/// Angular frequency of sinusoidal band `k` (dimensions 2k and 2k+1): `base^(−2k/d)`.
pub fn sinusoidal_frequency(k: usize, d: usize, base: f32) -> f64 {
    (base as f64).powf(-2.0 * k as f64 / d as f64)
}

/// Wavelength of band `k` in positions: `2π · base^(2k/d)`.
pub fn sinusoidal_wavelength(k: usize, d: usize, base: f32) -> f64 {
    std::f64::consts::TAU / sinusoidal_frequency(k, d, base)
}

/// `PE(t, 2k) = sin(t ω_k)`, `PE(t, 2k+1) = cos(t ω_k)`, one row per position. `d` even.
pub fn sinusoidal(positions: &[usize], d: usize, base: f32) -> Array2<f32> {
    let mut pe = Array2::zeros((positions.len(), d));
    for (row, &t) in positions.iter().enumerate() {
        for k in 0..d / 2 {
            let angle = t as f64 * sinusoidal_frequency(k, d, base);
            pe[[row, 2 * k]] = angle.sin() as f32;
            pe[[row, 2 * k + 1]] = angle.cos() as f32;
        }
    }
    pe
}

/// RoPE as a model applies it: the base, which dimensions turn together, and any stretching
/// of the frequencies. `Rope::textbook(base)` is the RoFormer paper's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rope {
    pub base: f32,
    pub pairing: RopePairing,
    pub scaling: Option<RopeScaling>,
}

impl Rope {
    pub fn textbook(base: f32) -> Self {
        Self {
            base,
            pairing: RopePairing::Interleaved,
            scaling: None,
        }
    }

    /// Angular frequency of pair `p` of a `d_head`-wide head: `θ_p = base^(−2p/d_head)`,
    /// then stretched by the scaling (Llama 3: long wavelengths λ = 2π/θ divided by `factor`,
    /// short ones kept, a smooth blend between).
    pub fn frequency(&self, p: usize, d_head: usize) -> f64 {
        let f = (self.base as f64).powf(-2.0 * p as f64 / d_head as f64);
        match self.scaling {
            None => f,
            Some(RopeScaling::Linear { factor }) => f / factor as f64,
            Some(RopeScaling::Llama3 {
                factor,
                low_freq_factor: lo,
                high_freq_factor: hi,
                original_max,
            }) => {
                let (factor, lo, hi, original) =
                    (factor as f64, lo as f64, hi as f64, original_max as f64);
                let wavelength = std::f64::consts::TAU / f;
                if wavelength > original / lo {
                    f / factor
                } else if wavelength < original / hi {
                    f
                } else {
                    let smooth = (original / wavelength - lo) / (hi - lo);
                    (1.0 - smooth) * f / factor + smooth * f
                }
            }
        }
    }

    /// The two dimensions pair `p` turns: `(2p, 2p+1)` interleaved, `(p, p + d_head/2)` halves.
    pub fn pair(&self, p: usize, d_head: usize) -> (usize, usize) {
        match self.pairing {
            RopePairing::Interleaved => (2 * p, 2 * p + 1),
            RopePairing::Half => (p, p + d_head / 2),
        }
    }

    /// Rotate every pair of each row by its position's angle `t·θ_p`, in place. Row `r` is at
    /// position `positions[r]`. Rows must have an even width.
    pub fn rotate_in_place(&self, x: ArrayViewMut2<f32>, positions: &[usize]) {
        turn_pairs(x, positions, self, 1.0);
    }
}

/// RoPE rotation angle for position `t` and pair `p` of a `d_head`-wide head:
/// `t · base^(−2p/d_head)`.
pub fn rope_angle(t: usize, p: usize, d_head: usize, base: f32) -> f64 {
    t as f64 * Rope::textbook(base).frequency(p, d_head)
}

/// Angles for every position × pair.
pub fn rope_angles(positions: &[usize], d_head: usize, base: f32) -> Array2<f32> {
    Array2::from_shape_fn((positions.len(), d_head / 2), |(r, p)| {
        rope_angle(positions[r], p, d_head, base) as f32
    })
}

/// Rotate every interleaved pair (2p, 2p+1) of each row by its position's angle, in place.
/// Row `r` is at position `positions[r]`. Rows must have an even width.
pub fn rope_rotate_in_place(x: ArrayViewMut2<f32>, positions: &[usize], base: f32) {
    turn_pairs(x, positions, &Rope::textbook(base), 1.0);
}

/// The inverse rotation (by −θ): RoPE's backward pass, since a rotation's transpose is its
/// inverse.
pub fn rope_unrotate_in_place(x: ArrayViewMut2<f32>, positions: &[usize], base: f32) {
    turn_pairs(x, positions, &Rope::textbook(base), -1.0);
}

/// `(sin, cos)` of every position's angle for every pair, under a model's own RoPE (its base
/// and scaling): row `r`, pair `p` at `r · width/2 + p`. The table the CPU rotation applies
/// (`turn_pairs`), handed to the GPU kernel.
pub fn rope_turns(positions: &[usize], width: usize, rope: &Rope) -> Vec<(f32, f32)> {
    turns(positions, width, rope, 1.0)
}

fn turns(positions: &[usize], width: usize, rope: &Rope, direction: f64) -> Vec<(f32, f32)> {
    let pairs = width / 2;
    let frequencies: Vec<f64> = (0..pairs).map(|p| rope.frequency(p, width)).collect();
    let mut sin_cos = Vec::with_capacity(positions.len() * pairs);
    for &t in positions {
        for f in &frequencies {
            let (sin, cos) = (direction * t as f64 * f).sin_cos();
            sin_cos.push((sin as f32, cos as f32));
        }
    }
    sin_cos
}

struct Turns {
    key: (Vec<usize>, usize, Rope, bool),
    sin_cos: Vec<(f32, f32)>,
}

thread_local! {
    /// The last rotation computed on this thread. Every head of every layer of a forward pass
    /// turns the same positions by the same angles, so they share one table instead of each
    /// calling `sin_cos` T·d/2 times (a tenth of a large forward pass). Same numbers either way.
    static LAST_TURNS: std::cell::RefCell<Option<Turns>> = const { std::cell::RefCell::new(None) };
}

/// Turn each pair `(i, j)` by `direction · t·θ_p`: `x_i' = x_i cos − x_j sin`,
/// `x_j' = x_i sin + x_j cos`.
fn turn_pairs(mut x: ArrayViewMut2<f32>, positions: &[usize], rope: &Rope, direction: f64) {
    let width = x.ncols();
    let pairs = width / 2;
    let backwards = direction < 0.0;
    LAST_TURNS.with_borrow_mut(|last| {
        // Compared in place: a hit (every head after the first) allocates nothing.
        let hit = last.as_ref().is_some_and(|t| {
            t.key.0 == positions && (t.key.1, &t.key.2, t.key.3) == (width, rope, backwards)
        });
        if !hit {
            let sin_cos = turns(positions, width, rope, direction);
            let key = (positions.to_vec(), width, *rope, backwards);
            *last = Some(Turns { key, sin_cos });
        }
        let Some(turns) = last.as_ref() else { return };
        for (r, mut row) in x.axis_iter_mut(Axis(0)).enumerate().take(positions.len()) {
            for p in 0..pairs {
                let (sin, cos) = turns.sin_cos[r * pairs + p];
                let (i, j) = rope.pair(p, width);
                let (a, b) = (row[i], row[j]);
                row[i] = a * cos - b * sin;
                row[j] = a * sin + b * cos;
            }
        }
    });
}

/// A rotated copy (for the CLI's `--apply` and the RoPE table lab).
pub fn rope_rotate(x: &Array2<f32>, positions: &[usize], base: f32) -> Array2<f32> {
    let mut out = x.clone();
    rope_rotate_in_place(out.view_mut(), positions, base);
    out
}

/// ALiBi head slopes `m_h = 2^(−8(h+1)/H)`, a geometric sequence from `2^(−8/H)` to `2^(−8)`.
pub fn alibi_slopes(n_heads: usize) -> Array1<f32> {
    Array1::from_shape_fn(n_heads, |h| {
        2f64.powf(-8.0 * (h + 1) as f64 / n_heads as f64) as f32
    })
}

/// ALiBi bias for one head: `−m · |i − j|` for query positions × key positions.
pub fn alibi_bias(slope: f32, q_pos: &[usize], k_pos: &[usize]) -> Array2<f32> {
    Array2::from_shape_fn((q_pos.len(), k_pos.len()), |(r, c)| {
        -slope * q_pos[r].abs_diff(k_pos[c]) as f32
    })
}

/// Column of the relative-bias table for offset `j − i`, clipped to ±`max_distance`.
pub fn relative_index(i: usize, j: usize, max_distance: usize) -> usize {
    let k = max_distance as i64;
    ((j as i64 - i as i64).clamp(-k, k) + k) as usize
}

/// Learned relative bias for one head: `table[clip(j − i) + K]`.
pub fn relative_bias(
    table: ArrayView1<f32>,
    max_distance: usize,
    q_pos: &[usize],
    k_pos: &[usize],
) -> Array2<f32> {
    Array2::from_shape_fn((q_pos.len(), k_pos.len()), |(r, c)| {
        table[relative_index(q_pos[r], k_pos[c], max_distance)]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_half_is_interleaved_on_permuted_dimensions() {
        // Moving dimension p to 2p and p + h/2 to 2p+1 turns one pairing into the other.
        let (h, positions) = (6, [0usize, 3, 11]);
        let x = Array2::from_shape_fn((3, h), |(r, c)| (r * 7 + c) as f32 * 0.1 - 0.5);
        let to_interleaved = |m: &Array2<f32>| {
            Array2::from_shape_fn(m.dim(), |(r, c)| {
                let p = c / 2;
                m[[r, if c % 2 == 0 { p } else { p + h / 2 }]]
            })
        };
        let half = Rope {
            pairing: RopePairing::Half,
            ..Rope::textbook(100.0)
        };
        let mut a = x.clone();
        half.rotate_in_place(a.view_mut(), &positions);
        let mut b = to_interleaved(&x);
        Rope::textbook(100.0).rotate_in_place(b.view_mut(), &positions);
        let diff = (&to_interleaved(&a) - &b)
            .mapv(f32::abs)
            .fold(0f32, |m, &v| m.max(v));
        assert!(diff < 1e-6, "{diff}");
    }

    #[test]
    fn llama3_scaling_has_three_regimes() {
        // base 10000, d 64: wavelengths 2π·10000^(2p/64); original 64, low 1, high 4:
        // λ > 64 → θ/8, λ < 16 → θ, between → blend.
        let scaling = Some(RopeScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max: 64.0,
        });
        let plain = Rope::textbook(10000.0);
        let scaled = Rope { scaling, ..plain };
        let mut seen = [false; 3];
        for p in 0..32 {
            let (f, g) = (plain.frequency(p, 64), scaled.frequency(p, 64));
            let wavelength = std::f64::consts::TAU / f;
            if wavelength > 64.0 {
                assert!((g - f / 8.0).abs() < 1e-15);
                seen[0] = true;
            } else if wavelength < 16.0 {
                assert_eq!(g, f);
                seen[1] = true;
            } else {
                let s = (64.0 / wavelength - 1.0) / 3.0;
                assert!((g - ((1.0 - s) * f / 8.0 + s * f)).abs() < 1e-15);
                assert!(g < f && g > f / 8.0);
                seen[2] = true;
            }
        }
        assert_eq!(seen, [true; 3]);
        let linear = Rope {
            scaling: Some(RopeScaling::Linear { factor: 2.0 }),
            ..plain
        };
        assert_eq!(linear.frequency(3, 64), plain.frequency(3, 64) / 2.0);
    }
    use ndarray::array;

    #[test]
    fn sinusoidal_matches_closed_form() {
        let pe = sinusoidal(&[0, 1, 5], 4, 10000.0);
        // position 0: sin 0 = 0, cos 0 = 1
        assert_eq!(pe.row(0).to_vec(), vec![0.0, 1.0, 0.0, 1.0]);
        // band 1 frequency = 10000^(-2/4) = 0.01
        assert!((pe[[2, 2]] - (0.05f64).sin() as f32).abs() < 1e-7);
        assert!((pe[[1, 0]] - 1f32.sin()).abs() < 1e-7);
        assert!((sinusoidal_wavelength(0, 4, 10000.0) - std::f64::consts::TAU).abs() < 1e-12);
    }

    #[test]
    fn every_band_is_a_point_on_the_unit_circle() {
        let pe = sinusoidal(&[0, 3, 17, 400], 16, 10000.0);
        for row in pe.rows() {
            for k in 0..8 {
                let r2 = row[2 * k].powi(2) + row[2 * k + 1].powi(2);
                assert!((r2 - 1.0).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn rope_textbook_example() {
        // One pair, position 1, base such that θ = 1 rad: (1, 0) → (cos 1, sin 1).
        let x = array![[1.0f32, 0.0], [1.0, 0.0]];
        let r = rope_rotate(&x, &[0, 1], 10000.0);
        assert_eq!(r.row(0).to_vec(), vec![1.0, 0.0]);
        assert!((r[[1, 0]] - 1f32.cos()).abs() < 1e-7);
        assert!((r[[1, 1]] - 1f32.sin()).abs() < 1e-7);
    }

    #[test]
    fn rope_unrotate_undoes_rotate() {
        let x = array![[0.3f32, -1.2, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]];
        let mut r = rope_rotate(&x, &[7, 123], 10000.0);
        rope_unrotate_in_place(r.view_mut(), &[7, 123], 10000.0);
        assert!(r.iter().zip(&x).all(|(a, b)| (a - b).abs() < 1e-5));
    }

    #[test]
    fn rope_preserves_norms() {
        let x = array![[0.3f32, -1.2, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]];
        let r = rope_rotate(&x, &[7, 123], 10000.0);
        for (a, b) in x.rows().into_iter().zip(r.rows()) {
            assert!((a.dot(&a) - b.dot(&b)).abs() < 1e-4);
        }
    }

    #[test]
    fn alibi_slopes_for_eight_heads_are_powers_of_half() {
        let s = alibi_slopes(8);
        assert_eq!(
            s.to_vec(),
            (1..=8).map(|h| 0.5f32.powi(h)).collect::<Vec<_>>()
        );
        let b = alibi_bias(0.5, &[2], &[0, 1, 2, 3]);
        assert_eq!(b.row(0).to_vec(), vec![-1.0, -0.5, 0.0, -0.5]);
    }

    #[test]
    fn relative_offsets_are_clipped() {
        assert_eq!(relative_index(5, 0, 2), 0);
        assert_eq!(relative_index(5, 4, 2), 1);
        assert_eq!(relative_index(5, 5, 2), 2);
        assert_eq!(relative_index(0, 9, 2), 4);
        let t = array![10.0f32, 11.0, 12.0, 13.0, 14.0];
        let b = relative_bias(t.view(), 2, &[1], &[0, 1, 2, 3, 4]);
        assert_eq!(b.row(0).to_vec(), vec![11.0, 12.0, 13.0, 14.0, 14.0]);
    }
}
