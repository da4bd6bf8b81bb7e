//! The sinusoidal lab's maths: the similarity of positions, its closed form, and the rotation R(k).

use crate::model::position::{sinusoidal, sinusoidal_frequency};
use ndarray::{Array2, ArrayView2};

/// p_i·p_j for every pair of rows of an encoding: the Gram matrix PE·PEᵀ.
pub fn similarity(pe: ArrayView2<'_, f32>) -> Array2<f32> {
    pe.dot(&pe.t())
}

/// p_t·p_{t+o} for o = 0 … `max_offset`, from the model's own encoding of positions t … t+max.
pub fn offset_curve(t: usize, max_offset: usize, d: usize, base: f32) -> Vec<f32> {
    let positions: Vec<usize> = (t..=t + max_offset).collect();
    let pe = sinusoidal(&positions, d, base);
    let first = pe.row(0);
    pe.rows().into_iter().map(|row| first.dot(&row)).collect()
}

/// Σ_k cos(ω_k·o): what p_t·p_{t+o} must be, since each band contributes
/// sin(tω)sin((t+o)ω) + cos(tω)cos((t+o)ω) = cos(oω), whatever t is.
pub fn closed_form_offset(o: usize, d: usize, base: f32) -> f64 {
    (0..d / 2)
        .map(|k| (o as f64 * sinusoidal_frequency(k, d, base)).cos())
        .sum()
}

/// The 2×2 block of R(shift) for one band, acting on (sin, cos) = (PE(t,2b), PE(t,2b+1)).
///
/// With θ = shift·ω_b, the angle-addition formulas give
/// sin(tω + θ) = sin(tω)·cos θ + cos(tω)·sin θ and cos(tω + θ) = −sin(tω)·sin θ + cos(tω)·cos θ,
/// so the block is [[cos θ, sin θ], [−sin θ, cos θ]]. Because the pair is (sin, cos) rather
/// than (cos, sin), the sign of sin θ sits opposite to RoPE's matrix.
pub fn rotation_block(shift: usize, band: usize, d: usize, base: f32) -> [[f64; 2]; 2] {
    let (sin, cos) = (shift as f64 * sinusoidal_frequency(band, d, base)).sin_cos();
    [[cos, sin], [-sin, cos]]
}

/// R(k)·PE(t): every (sin, cos) pair of `pe_row` turned by its band's block. Equal to PE(t+k),
/// which is why a fixed linear map can move attention a fixed distance along the input.
pub fn rotate_by(pe_row: &[f32], k: usize, d: usize, base: f32) -> Vec<f32> {
    let mut out = pe_row.to_vec();
    for (band, pair) in out.chunks_exact_mut(2).enumerate() {
        let [[a, b], [c, e]] = rotation_block(k, band, d, base);
        let (s, co) = (pair[0] as f64, pair[1] as f64);
        pair[0] = (a * s + b * co) as f32;
        pair[1] = (c * s + e * co) as f32;
    }
    out
}

/// Band `band` of PE(t) as the notes' point b_t = (sin(ω_k t), cos(ω_k t)), read from the
/// model's own encoding.
pub fn band_point(t: usize, band: usize, d: usize, base: f32) -> (f32, f32) {
    let pe = sinusoidal(&[t], d, base);
    (pe[[0, 2 * band]], pe[[0, 2 * band + 1]])
}

/// The other positions 0 … n−1 that one band cannot tell from `t` within `tolerance`: by its
/// sine alone (|Δ sin| ≤ tolerance), and by the whole point (|Δ(sin, cos)| ≤ tolerance).
/// The second list is part of the first, since the distance between points is at least the
/// difference of their sines; what it keeps are the positions a whole number of turns away.
pub struct Confusions {
    pub by_sine: Vec<usize>,
    pub by_point: Vec<usize>,
}

pub fn confusions(
    t: usize,
    band: usize,
    d: usize,
    base: f32,
    n: usize,
    tolerance: f32,
) -> Confusions {
    let (s, c) = band_point(t, band, d, base);
    let positions: Vec<usize> = (0..n).collect();
    let pe = sinusoidal(&positions, d, base);
    let mut out = Confusions {
        by_sine: Vec::new(),
        by_point: Vec::new(),
    };
    for (other, row) in pe.rows().into_iter().enumerate() {
        if other == t {
            continue;
        }
        let (s2, c2) = (row[2 * band], row[2 * band + 1]);
        if (s2 - s).abs() <= tolerance {
            out.by_sine.push(other);
        }
        if (s2 - s).hypot(c2 - c) <= tolerance {
            out.by_point.push(other);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::position;

    #[test]
    fn offset_curve_depends_only_on_the_offset_and_matches_the_closed_form() {
        for (d, base) in [(64, 10_000.0), (16, 100.0), (128, 100_000.0)] {
            let curves: Vec<Vec<f32>> = [0, 5, 40]
                .iter()
                .map(|&t| offset_curve(t, 100, d, base))
                .collect();
            for o in 0..=100 {
                let closed = closed_form_offset(o, d, base);
                for c in &curves {
                    assert!((c[o] - curves[0][o]).abs() < 1e-4, "d {d} o {o}");
                    assert!((c[o] as f64 - closed).abs() < 1e-4, "d {d} o {o}");
                }
            }
        }
    }

    #[test]
    fn closed_form_by_hand() {
        // o = 0: every band gives cos 0 = 1.
        assert_eq!(closed_form_offset(0, 64, 10_000.0), 32.0);
        // d = 4, base 10000: ω = 1, 0.01, so o = 3 gives cos 3 + cos 0.03.
        let want = 3f64.cos() + 0.03f64.cos();
        assert!((closed_form_offset(3, 4, 10_000.0) - want).abs() < 1e-12);
    }

    #[test]
    fn rotating_pe_t_by_k_gives_pe_t_plus_k() {
        for (d, base) in [(4, 10_000.0), (16, 100.0), (64, 10_000.0), (128, 100_000.0)] {
            for t in [0, 1, 7, 100, 499] {
                for k in [0, 1, 3, 50, 400] {
                    let start = position::sinusoidal(&[t], d, base).row(0).to_vec();
                    let want = position::sinusoidal(&[t + k], d, base);
                    let got = rotate_by(&start, k, d, base);
                    for (a, b) in got.iter().zip(want.row(0)) {
                        assert!((a - b).abs() < 1e-5, "d {d} t {t} k {k}: {a} vs {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn rotation_block_by_hand() {
        // Band 0 has ω = 1, so a shift of 1 turns by θ = 1 rad; PE(0) = (sin 0, cos 0) = (0, 1)
        // goes to (sin 1, cos 1) = PE(1) through the block [[cos 1, sin 1], [−sin 1, cos 1]].
        let [[a, b], [c, e]] = rotation_block(1, 0, 8, 10_000.0);
        let (s, co) = 1f64.sin_cos();
        assert_eq!([[a, b], [c, e]], [[co, s], [-s, co]]);
        let r = rotate_by(&[0.0, 1.0], 1, 2, 10_000.0);
        assert!((r[0] - 1f32.sin()).abs() < 1e-7 && (r[1] - 1f32.cos()).abs() < 1e-7);
        // A rotation: determinant 1.
        let [[a, b], [c, e]] = rotation_block(37, 3, 16, 100.0);
        assert!((a * e - b * c - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_band_is_a_point_on_the_unit_circle_and_only_its_sine_is_ambiguous() {
        for (t, band, d, base) in [
            (0, 0, 8, 10_000.0),
            (7, 2, 64, 10_000.0),
            (300, 5, 16, 100.0),
        ] {
            let (s, c) = band_point(t, band, d, base);
            assert!((s.hypot(c) - 1.0).abs() < 1e-6, "on the unit circle");
            let theta = t as f64 * sinusoidal_frequency(band, d, base);
            assert!((s as f64 - theta.sin()).abs() < 1e-5);
        }
        // Band 0 turns by ω = 1 rad per position. sin 2 = 0.909; within 0.05 of it over
        // positions 0 … 63: sin 20 = 0.913, sin 27 = 0.956 and sin 46 = 0.902. 20 and 27 sit
        // near the mirrored angle π − 2 (plus whole turns), with the opposite cosine; 46 is
        // seven whole turns on (7·2π = 43.98 ≈ 44), so only it matches as a point.
        let got = confusions(2, 0, 8, 10_000.0, 64, 0.05);
        assert_eq!(got.by_sine, vec![20, 27, 46]);
        assert_eq!(got.by_point, vec![46]);
        for (t, band) in [(3, 2), (8, 2), (40, 1)] {
            let got = confusions(t, band, 64, 10_000.0, 64, 0.05);
            for o in &got.by_point {
                assert!(got.by_sine.contains(o), "a point match is a sine match");
            }
            assert!(!got.by_sine.contains(&t));
        }
    }

    #[test]
    fn similarity_has_d_over_two_on_the_diagonal_and_is_symmetric() {
        let positions: Vec<usize> = (0..20).collect();
        let pe = position::sinusoidal(&positions, 32, 10_000.0);
        let sim = similarity(pe.view());
        assert_eq!(sim.dim(), (20, 20));
        for i in 0..20 {
            assert!((sim[[i, i]] - 16.0).abs() < 1e-5);
            for j in 0..20 {
                assert!((sim[[i, j]] - sim[[j, i]]).abs() < 1e-5);
                let closed = closed_form_offset(i.abs_diff(j), 32, 10_000.0);
                assert!((sim[[i, j]] as f64 - closed).abs() < 1e-4);
            }
        }
    }
}
