//! A mask as a short text code, for links and saved state, and back.

use ndarray::Array2;

/// A mask as text, for links and saved state: `ROWSxCOLS:` then the cells row-major as
/// hex digits of four cells each (1 = allowed).
pub fn encode_mask(m: &Array2<bool>) -> String {
    let (r, c) = m.dim();
    let bits: Vec<bool> = m.iter().copied().collect();
    let hex: String = bits
        .chunks(4)
        .map(|ch| {
            let v = ch
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | ((b as u32) << (3 - i)));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect();
    format!("{r}x{c}:{hex}")
}

/// The inverse of `encode_mask`; a clear message for anything else.
pub fn decode_mask(text: &str) -> Result<Array2<bool>, String> {
    let bad = || {
        format!(
            "not a mask code: {:?} (expected ROWSxCOLS:HEX)",
            text.chars().take(40).collect::<String>()
        )
    };
    let (dims, hex) = text.split_once(':').ok_or_else(bad)?;
    let (r, c) = dims.split_once('x').ok_or_else(bad)?;
    let (r, c): (usize, usize) = (r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?);
    if r == 0 || c == 0 || r > 512 || c > 512 {
        return Err(format!(
            "a mask must be 1 to 512 cells each way, not {r}×{c}"
        ));
    }
    if hex.len() != (r * c).div_ceil(4) {
        return Err(format!(
            "a {r}×{c} mask needs {} hex digits, got {}",
            (r * c).div_ceil(4),
            hex.len()
        ));
    }
    let mut bits = Vec::with_capacity(r * c);
    for ch in hex.chars() {
        let v = ch.to_digit(16).ok_or_else(bad)?;
        for i in 0..4 {
            bits.push(v & (1 << (3 - i)) != 0);
        }
    }
    bits.truncate(r * c);
    Array2::from_shape_vec((r, c), bits).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_masks_round_trip_through_their_code() {
        let m = Array2::from_shape_fn((5, 7), |(i, j)| (i * 7 + j) % 3 != 0);
        let code = encode_mask(&m);
        assert!(code.starts_with("5x7:"));
        assert_eq!(decode_mask(&code).unwrap(), m);
        for bad in [
            "",
            "5x7",
            "5x7:zz",
            "0x3:",
            "5x7:fff",
            "axb:00",
            "600x600:0",
        ] {
            assert!(decode_mask(bad).is_err(), "{bad}");
        }
    }
}
