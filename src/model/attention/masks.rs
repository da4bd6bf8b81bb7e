//! Attention masks: `true` = the query may attend to the key.

use ndarray::Array2;

/// Every key allowed.
pub fn full_mask(t_q: usize, t_k: usize) -> Array2<bool> {
    Array2::from_elem((t_q, t_k), true)
}

/// Causal: a query at position p sees keys at positions ≤ p.
pub fn causal_mask(q_pos: &[usize], k_pos: &[usize]) -> Array2<bool> {
    Array2::from_shape_fn((q_pos.len(), k_pos.len()), |(i, j)| k_pos[j] <= q_pos[i])
}

/// Prefix-LM: the first `prefix` positions see each other both ways; the rest is causal.
pub fn prefix_mask(t: usize, prefix: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, t), |(i, j)| j <= i || j < prefix)
}

/// Blocks keys that are padding (`is_pad[j]`) for every query.
pub fn block_keys(mask: &mut Array2<bool>, is_pad: &[bool]) {
    for mut row in mask.rows_mut() {
        for (allowed, &pad) in row.iter_mut().zip(is_pad) {
            *allowed &= !pad;
        }
    }
}

/// The self-attention mask a user picks; `Default` is the family's own (causal in a decoder).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MaskChoice {
    #[default]
    Default,
    /// Bidirectional: every key.
    None,
    Causal,
    /// Bidirectional over the first n tokens, causal after.
    Prefix(usize),
    /// A user-drawn `[T, T]` matrix.
    Custom(Array2<bool>),
}
