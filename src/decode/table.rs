//! A next-token distribution a teacher types, one row per prefix:
//!
//! ```text
//! <bos>       -> the 0.5, a 0.4, <eos> 0.1
//! <bos> the   -> cat 0.4, dog 0.35, <eos> 0.25
//! ```
//! Probabilities in a row are normalised; a prefix without a row ends the sentence (`<eos>`
//! with probability 1), so only the interesting branches need writing.

use super::source::Source;
use crate::model::tokenizer::{BOS, EOS};
use std::collections::HashMap;

pub struct TableSource {
    /// Token names, id = index; 0‥3 are `<pad> <bos> <eos> <unk>`.
    tokens: Vec<String>,
    rows: HashMap<Vec<u32>, Vec<(u32, f64)>>,
    temperature: f32,
}

/// The example that ships with the lab: greedy takes “the” (0.5) and ends with 0.5 × 0.4 =
/// 0.20, while beam search keeps “a” and finds “a cat” with 0.4 × 0.9 = 0.36.
pub const TEXTBOOK: &str = "\
<bos> -> the 0.5, a 0.4, <eos> 0.1
<bos> the -> cat 0.4, dog 0.3, <eos> 0.3
<bos> a -> cat 0.9, dog 0.05, <eos> 0.05
<bos> the cat -> <eos> 1.0
<bos> the dog -> <eos> 1.0
<bos> a cat -> <eos> 1.0
<bos> a dog -> <eos> 1.0
";

impl TableSource {
    pub fn parse(text: &str, temperature: f32) -> Result<Self, String> {
        let mut tokens: Vec<String> = ["<pad>", "<bos>", "<eos>", "<unk>"]
            .map(String::from)
            .to_vec();
        let id_of = |t: &str, tokens: &mut Vec<String>| -> u32 {
            match tokens.iter().position(|x| x == t) {
                Some(i) => i as u32,
                None => {
                    tokens.push(t.to_string());
                    (tokens.len() - 1) as u32
                }
            }
        };
        let mut rows = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |m: &str| format!("line {}: {m}", n + 1);
            let (prefix, next) = line
                .split_once("->")
                .ok_or_else(|| at("expected `prefix -> token p, token p, …`"))?;
            let mut key: Vec<u32> = prefix
                .split_whitespace()
                .map(|t| id_of(t, &mut tokens))
                .collect();
            if key.first() != Some(&BOS) {
                key.insert(0, BOS);
            }
            let mut row = Vec::new();
            for item in next.split(',') {
                let mut parts = item.split_whitespace();
                let (Some(tok), Some(p), None) = (parts.next(), parts.next(), parts.next()) else {
                    return Err(at(&format!(
                        "`{}` should be a token and a probability",
                        item.trim()
                    )));
                };
                let p: f64 = p
                    .parse()
                    .map_err(|_| at(&format!("`{p}` is not a number")))?;
                if !(p.is_finite() && p >= 0.0) {
                    return Err(at(&format!("probability {p} must be 0 or more")));
                }
                let id = id_of(tok, &mut tokens);
                // A second entry would silently replace the first when the row is looked up.
                if row.iter().any(|&(t, _)| t == id) {
                    return Err(at(&format!("`{tok}` appears twice in this row")));
                }
                row.push((id, p));
            }
            let max = row.iter().map(|&(_, p)| p).fold(0.0, f64::max);
            if max <= 0.0 {
                return Err(at("the probabilities add up to 0"));
            }
            // Scaled by the largest first, so weights near f64::MAX cannot sum to infinity.
            row.iter_mut().for_each(|(_, p)| *p /= max);
            let total: f64 = row.iter().map(|(_, p)| p).sum();
            row.iter_mut().for_each(|(_, p)| *p /= total);
            if rows.insert(key, row).is_some() {
                return Err(at("this prefix already has a row"));
            }
        }
        if rows.is_empty() {
            return Err("the table is empty: write at least `<bos> -> word 1.0`".into());
        }
        Ok(Self {
            tokens,
            rows,
            temperature,
        })
    }

    /// Token id by name (for tests and the CLI).
    pub fn id(&self, token: &str) -> Option<u32> {
        self.tokens
            .iter()
            .position(|t| t == token)
            .map(|i| i as u32)
    }
}

impl Source for TableSource {
    fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    fn token(&self, id: u32) -> String {
        self.tokens
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| "<unk>".into())
    }

    fn log_probs(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        let mut logits = vec![f32::NEG_INFINITY; self.tokens.len()];
        match self.rows.get(prefix) {
            Some(row) => {
                for &(id, p) in row {
                    logits[id as usize] = if p > 0.0 {
                        p.ln() as f32
                    } else {
                        f32::NEG_INFINITY
                    };
                }
            }
            None => logits[EOS as usize] = 0.0,
        }
        Ok(crate::model::softmax::log_softmax(
            &logits,
            self.temperature,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_normalised_and_missing_prefixes_end() {
        let mut t = TableSource::parse("<bos> -> x 2, y 2", 1.0).unwrap();
        let lp = t.log_probs(&[BOS]).unwrap();
        let x = t.id("x").unwrap() as usize;
        assert!((lp[x].exp() - 0.5).abs() < 1e-6);
        let lp = t.log_probs(&[BOS, x as u32]).unwrap();
        assert_eq!(lp[EOS as usize], 0.0);
    }

    #[test]
    fn huge_weights_normalise_without_overflow() {
        let mut t = TableSource::parse("<bos> -> x 1e308, y 1e308", 1.0).unwrap();
        let lp = t.log_probs(&[BOS]).unwrap();
        let x = t.id("x").unwrap() as usize;
        assert!((lp[x].exp() - 0.5).abs() < 1e-6, "{lp:?}");
    }

    #[test]
    fn bad_tables_say_which_line() {
        for (text, want) in [
            ("", "empty"),
            ("<bos> the 0.5", "line 1"),
            ("<bos> -> the", "line 1"),
            ("<bos> -> the x", "not a number"),
            ("<bos> -> the -1", "0 or more"),
            ("<bos> -> the 0", "add up to 0"),
            ("<bos> -> a 1\n<bos> -> b 1", "line 2: this prefix already"),
            ("<bos> -> a 1, b 1, a 0", "line 1: `a` appears twice"),
        ] {
            let e = TableSource::parse(text, 1.0).err().unwrap();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
