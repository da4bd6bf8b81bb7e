//! Small helpers shared by every layer of the crate.

pub mod any_f32;
pub mod machine;
pub mod nested;
#[cfg(not(target_arch = "wasm32"))]
pub mod real_models;
pub mod rng;
pub mod sha256;

/// Index and value of the largest item; the first one wins a tie, NaN never wins.
/// `None` for an empty sequence (or one of NaN only).
pub fn argmax(xs: impl IntoIterator<Item = f32>) -> Option<(usize, f32)> {
    let mut best: Option<(usize, f32)> = None;
    for (i, x) in xs.into_iter().enumerate() {
        if !x.is_nan() && best.is_none_or(|(_, b)| x > b) {
            best = Some((i, x));
        }
    }
    best
}

/// [`argmax`] of a slice, fast enough for a vocabulary's logits in every row (49,152 a row:
/// the item-by-item loop took 20 ms for a sentence's rows in the browser): the largest value
/// from the kernels' row loop (eight lanes at a time, NaN skipped), then its first place.
pub fn argmax_slice(xs: &[f32]) -> Option<(usize, f32)> {
    let largest = glimpse_kernels::rows::max_row(xs);
    // The element itself, not `largest`: 0.0 and -0.0 are equal, and the first one wins.
    let at = xs.iter().position(|&x| x == largest)?;
    Some((at, xs[at]))
}

/// [`argmax_slice`] of a row: contiguous rows take the fast path, others the item loop.
pub fn argmax_row(row: ndarray::ArrayView1<f32>) -> Option<(usize, f32)> {
    match row.as_slice() {
        Some(xs) => argmax_slice(xs),
        None => argmax(row.iter().copied()),
    }
}

/// What a panic said: its message when it carried text (`panic!("…")` gives a `&str` or a
/// `String`), else `None`.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

/// A count with its digits grouped in threes: 26214400 → "26,214,400".
pub fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{argmax, argmax_slice, panic_text};

    #[test]
    fn a_panic_says_its_text() {
        let caught = |f: fn()| panic_text(&*std::panic::catch_unwind(f).unwrap_err());
        assert_eq!(caught(|| panic!("plain")), Some("plain".into()));
        assert_eq!(
            caught(|| panic!("{} {}", "formatted", 2)),
            Some("formatted 2".into())
        );
        assert_eq!(caught(|| std::panic::panic_any(7u8)), None);
    }

    #[test]
    fn argmax_takes_the_first_largest_and_skips_nan() {
        assert_eq!(argmax([1.0, 3.0, 2.0, 3.0]), Some((1, 3.0)));
        assert_eq!(argmax([f32::NAN, -1.0, f32::NAN]), Some((1, -1.0)));
        assert_eq!(argmax([f32::NEG_INFINITY]), Some((0, f32::NEG_INFINITY)));
        assert_eq!(argmax(std::iter::empty()), None);
    }

    /// The slice's argmax is the item loop's on ragged lengths, ties, NaN and infinities.
    #[test]
    fn argmax_slice_agrees_with_argmax() {
        let first_zero = argmax_slice(&[-0.0, 0.0]).map(|(i, v)| (i, v.to_bits()));
        assert_eq!(first_zero, Some((0, (-0.0f32).to_bits())));
        let mut rng = crate::util::rng::Rng::new(7);
        for len in [0, 1, 7, 8, 9, 17, 64, 1001] {
            for case in 0..6 {
                let xs: Vec<f32> = (0..len)
                    .map(|_| match (case, rng.below(10)) {
                        (0, _) => rng.normal() as f32,
                        (1, 0..=4) => f32::NAN,
                        (2, _) => (rng.below(3) as f32) - 1.0,
                        (3, _) => f32::NAN,
                        (4, 0) => f32::NEG_INFINITY,
                        (4, _) => f32::NAN,
                        (5, 0) => f32::INFINITY,
                        (5, 1) => -0.0,
                        (5, 2) => 0.0,
                        _ => rng.normal() as f32,
                    })
                    .collect();
                let want = argmax(xs.iter().copied());
                let got = argmax_slice(&xs);
                assert_eq!(
                    want.map(|(i, v)| (i, v.to_bits())),
                    got.map(|(i, v)| (i, v.to_bits())),
                    "len {len} case {case}"
                );
            }
        }
    }
}
