//! `exp` and `erfc` in f32 for the forward pass's element-wise work (softmax, GELU, SiLU).
//!
//! The standard library's `f32::exp` and libm's `erff` are calls the compiler cannot turn into
//! vector code, and they took a quarter of a BERT forward pass. These two are written as plain
//! arithmetic with no branches, so a loop over a row becomes SIMD code; both stay within a few
//! parts in 10⁷ of the exact value, far inside the 10⁻⁴ the model is checked to.

/// `eˣ` to about 2·10⁻⁷ relative error; exactly 0 below `ln(f32::MIN_POSITIVE)` (so −∞ → 0).
///
/// `eˣ = 2ⁿ · eʳ` with `n = round(x · log₂e)` and `r = x − n·ln 2` in `[−ln2/2, ln2/2]`, where the
/// Taylor series of `eʳ` to `r⁷/7!` is within 6·10⁻⁹; `2ⁿ` is written straight into the
/// exponent bits.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75; // ln 2 split in two so n·LN2_HI is exact
    const LN2_LO: f32 = 1.428_606_8e-6;
    // 1.5·2²³: adding and subtracting it rounds to the nearest integer (|v| < 2²²).
    const ROUND: f32 = 12_582_912.0;
    let lowest = -87.336_54; // ln of the smallest normal f32
    let xc = x.clamp(lowest, 88.376_26);
    // v = n + 1.5·2²³ holds the integer n in its low mantissa bits.
    let v = xc * std::f32::consts::LOG2_E + ROUND;
    let n = v - ROUND;
    let r = (xc - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2ⁿ for n ∈ [−126, 127] (a normal number): the biased exponent n + 127 in bits 23…30.
    // Integer arithmetic on v's bits rather than a float-to-int cast, which does not vectorise.
    let n_bits = v.to_bits().wrapping_sub(ROUND.to_bits());
    let two_n = f32::from_bits(n_bits.wrapping_add(127) << 23);
    if x < lowest {
        0.0
    } else {
        p * two_n
    }
}

/// `erfc(a) = 1 − erf(a)` for `a ≥ 0`, to 5·10⁻⁷ absolute error (Abramowitz & Stegun 7.1.26,
/// 1.5·10⁻⁷, plus f32 rounding):
/// `erfc(a) ≈ t·(a₁ + a₂t + a₃t² + a₄t³ + a₅t⁴)·e^(−a²)` with `t = 1/(1 + p·a)`. Computing
/// the complement directly keeps its small values accurate (no `1 − erf` cancellation).
#[inline(always)]
pub fn erfc_nonnegative(a: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [
        0.254_829_6,
        -0.284_496_74,
        1.421_413_8,
        -1.453_152,
        1.061_405_4,
    ];
    let t = 1.0 / (1.0 + P * a);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    poly * exp(-a * a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_the_standard_library() {
        let mut worst = 0.0f64;
        for i in -100_000..=100_000 {
            let x = i as f32 * 8.8e-4; // −88 … 88
            let want = (x as f64).exp();
            if want < f32::MIN_POSITIVE as f64 {
                continue;
            }
            worst = worst.max(((exp(x) as f64 - want) / want).abs());
        }
        assert!(worst < 3e-7, "relative error {worst}");
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(-200.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn erfc_matches_libm() {
        let mut worst = 0.0f64;
        for i in 0..=60_000 {
            let a = i as f32 * 1e-4; // 0 … 6
            let want = 1.0 - libm::erf(a as f64);
            worst = worst.max((erfc_nonnegative(a) as f64 - want).abs());
        }
        assert!(worst < 6e-7, "absolute error {worst}");
        assert!((erfc_nonnegative(0.0) - 1.0).abs() < 1e-7);
    }
}
