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
    use super::{argmax, panic_text};

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
}
