//! What one attention head does on one input, read off its weight matrix alone: how spread
//! out it is (entropy), how far it looks (mean distance), and which textbook pattern it
//! resembles (self, previous token, next token, first token, last token, the rest of its own
//! word, broad, induction), each as a score in [0, 1].

use ndarray::{Array3, ArrayView2};

/// A pattern a head can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    SelfToken,
    PreviousToken,
    NextToken,
    FirstToken,
    LastToken,
    SameWord,
    Broad,
    InductionLike,
    /// Cross-attention only: each target token reads mostly one source token, wherever it is.
    Aligned,
}

impl Pattern {
    pub fn label(self) -> &'static str {
        match self {
            Pattern::SelfToken => "self / diagonal",
            Pattern::PreviousToken => "previous token",
            Pattern::NextToken => "next token",
            Pattern::FirstToken => "first token",
            Pattern::LastToken => "last token",
            Pattern::SameWord => "own word",
            Pattern::Broad => "broad",
            Pattern::InductionLike => "induction-like",
            Pattern::Aligned => "word alignment",
        }
    }

    /// How the score is computed, in one sentence for a hover text.
    pub fn explain(self) -> &'static str {
        match self {
            Pattern::SelfToken => "Average attention each query pays to its own position.",
            Pattern::PreviousToken => {
                "Average attention each query (from the second on) pays to the position right before it."
            }
            Pattern::NextToken => {
                "Average attention each query (but the last) pays to the position right after it: only a model without the causal mask can have it."
            }
            Pattern::FirstToken => {
                "Average attention each query pays to the first key (in self-attention the first query is left out: in a causal model it can only see itself). BERT's [CLS], a decoder's <bos>."
            }
            Pattern::LastToken => {
                "Average attention each query (but the last) pays to the last key: BERT's [SEP] closes every input."
            }
            Pattern::SameWord => {
                "For each token of a word cut into several pieces (token ##ization), the attention it pays to the other pieces of that word, averaged."
            }
            Pattern::Broad => {
                "Each row's entropy divided by the most it could be (log2 of its visible keys), averaged: 1 means attention spread evenly."
            }
            Pattern::InductionLike => {
                "For each query whose token occurred earlier, the attention it pays to the token that followed that earlier occurrence, averaged."
            }
            Pattern::Aligned => {
                "Cross-attention: the largest weight of each query's row, averaged, times the share of distinct source tokens those largest weights fall on. High when each target token reads mostly its own source token, wherever it stands: a word alignment, as when a translation reorders the words."
            }
        }
    }

    /// The score from which a head gets this label.
    ///
    /// The four "looks at one place" patterns need 0.5: more than half of the attention, on
    /// average, goes to that place, so it is what the head mostly does. Broad needs 0.85 of
    /// the maximum entropy: rows that are nearly uniform, not merely unfocused (a row split
    /// evenly between two of eight keys reaches only 1/3).
    pub fn threshold(self) -> f32 {
        match self {
            Pattern::SelfToken
            | Pattern::PreviousToken
            | Pattern::NextToken
            | Pattern::FirstToken
            | Pattern::LastToken
            | Pattern::SameWord
            | Pattern::InductionLike
            | Pattern::Aligned => 0.5,
            Pattern::Broad => 0.85,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PatternScore {
    pub pattern: Pattern,
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeadStats {
    /// Mean over queries (rows with at least one allowed key) of the row's entropy in bits.
    pub entropy_bits: f32,
    /// Mean over the same rows of log2(number of allowed keys): the most a row could have.
    pub max_entropy_bits: f32,
    /// Mean over the same rows of Σ_j a_ij·|i − j| (positions = row / column indices).
    pub mean_distance: f32,
    /// Every pattern that applies to this kind of attention, best first.
    pub scores: Vec<PatternScore>,
    /// The best pattern whose score reaches its threshold, if any.
    pub label: Option<PatternScore>,
    /// Rows that had no allowed key (they are skipped everywhere).
    pub empty_rows: usize,
}

/// A running mean that is 0 (not NaN) when nothing was added.
#[derive(Default)]
struct Mean {
    sum: f64,
    n: usize,
}

impl Mean {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }

    fn get(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }
}

/// One word holds more than half of the positions.
fn one_word_dominates(words: &[usize]) -> bool {
    let mut counts = std::collections::HashMap::new();
    for w in words {
        *counts.entry(w).or_insert(0usize) += 1;
    }
    counts.values().any(|&c| 2 * c > words.len())
}

/// `weights`: [T_q, T_k], each row over its allowed keys sums to 1, masked cells are exactly 0,
/// a row with no allowed key is all 0. `allowed`: same shape, true = the query may see the key.
/// The head whose attention rows have the lowest mean entropy: the most decided pattern.
/// The app opens a model on it, and the labs pick it to show a clear example.
pub fn sharpest_head(weights: &Array3<f32>) -> usize {
    let negated = weights.outer_iter().map(|w| {
        -crate::model::softmax::row_entropy_bits(w)
            .mean()
            .unwrap_or(f32::INFINITY)
    });
    crate::util::argmax(negated).map_or(0, |(h, _)| h)
}

/// The statistics of every head of `kind` in `trace`, `[layer][head]`. `seq` is the sequence
/// the queries come from (the source for the encoder, the target otherwise).
pub fn every_head(
    trace: &crate::model::Trace,
    kind: crate::model::AttentionKind,
    seq: Sequence,
) -> Vec<Vec<HeadStats>> {
    let self_attention = kind != crate::model::AttentionKind::Cross;
    (0..trace.layers(kind))
        .filter_map(|l| trace.attention(kind, l))
        .map(|a| {
            a.weights
                .outer_iter()
                .map(|w| head_stats(w, a.mask.view(), seq, self_attention))
                .collect()
        })
        .collect()
}

/// One head found for a pattern: where it is and how strongly it shows the pattern.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Found {
    pub pattern: Pattern,
    pub layer: usize,
    pub head: usize,
    pub score: f32,
    /// Whether the score reaches the pattern's threshold (the head is labelled with it, or
    /// with a pattern it shows even more strongly).
    pub clear: bool,
}

/// For every pattern some head was scored on, the head that shows it most strongly (the
/// earliest layer and head on a tie), in `Pattern` order. Broad is left out: it is what a head
/// does when it does nothing in particular.
pub fn best_heads(stats: &[Vec<HeadStats>]) -> Vec<Found> {
    let mut best: Vec<Found> = Vec::new();
    for (layer, row) in stats.iter().enumerate() {
        for (head, s) in row.iter().enumerate() {
            for p in s.scores.iter().filter(|p| p.pattern != Pattern::Broad) {
                let found = Found {
                    pattern: p.pattern,
                    layer,
                    head,
                    score: p.score,
                    clear: p.score >= p.pattern.threshold(),
                };
                match best.iter_mut().find(|b| b.pattern == p.pattern) {
                    Some(b) if b.score < p.score => *b = found,
                    Some(_) => {}
                    None => best.push(found),
                }
            }
        }
    }
    best.sort_by_key(|f| f.pattern as u8);
    best
}

/// The sequence a head attended over, for the patterns that need more than positions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sequence<'a> {
    /// The token ids (self-attention: queries and keys are the same sequence); used by the
    /// induction pattern.
    pub tokens: &'a [u32],
    /// The word of every token (`model::words`); used by the own-word pattern.
    pub words: &'a [usize],
}

/// `weights`: [T_q, T_k], each row over its allowed keys sums to 1, masked cells are exactly 0,
/// a row with no allowed key is all 0. `allowed`: same shape, true = the query may see the key.
/// `self_attention`: false for cross-attention (queries from one sequence, keys from another),
/// where only FirstToken, LastToken and Broad apply (diagonal, neighbours, words and induction
/// are meaningless across sequences). A pattern no query can show (next token under a causal
/// mask, own word when no word has two pieces) is left out of the scores.
pub fn head_stats(
    weights: ArrayView2<f32>,
    allowed: ArrayView2<bool>,
    seq: Sequence,
    self_attention: bool,
) -> HeadStats {
    let (tq, tk) = weights.dim();
    let tokens = seq.tokens;
    // Induction compares each query's token with earlier ones, so it needs every query's token.
    let induction_possible = self_attention && tokens.len() >= tq;
    // Own word needs words to tell apart: where one word holds most of the input (letters
    // typed without spaces, "glimpsehowglimpsehow"), attending to its pieces is attending to
    // nearly everything, which says nothing about words.
    let words_known = self_attention
        && seq.words.len() >= tq.max(tk)
        && !one_word_dominates(&seq.words[..tq.max(tk)]);
    let (mut entropy, mut max_entropy, mut distance) =
        (Mean::default(), Mean::default(), Mean::default());
    let (mut diagonal, mut previous, mut next, mut first, mut last) = (
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
    );
    let (mut same_word, mut broad, mut induction, mut aligned) = (
        Mean::default(),
        Mean::default(),
        Mean::default(),
        Mean::default(),
    );
    let mut aligned_keys = Vec::new();
    let mut empty_rows = 0;

    for i in 0..tq {
        let visible = |j: usize| j < tk && allowed.get((i, j)).copied().unwrap_or(false);
        // Masked cells are 0 by contract; reading through the mask (and dropping non-finite
        // or negative values) keeps a malformed input from turning into NaN.
        let at = |j: usize| {
            let a = if visible(j) {
                weights[[i, j]] as f64
            } else {
                0.0
            };
            if a.is_finite() && a > 0.0 {
                a
            } else {
                0.0
            }
        };
        let keys = (0..tk).filter(|&j| visible(j)).count();
        if keys == 0 {
            empty_rows += 1;
            continue;
        }
        let h: f64 = (0..tk)
            .map(at)
            .filter(|&a| a > 0.0)
            .map(|a| -a * a.log2())
            .sum::<f64>()
            .max(0.0);
        let h_max = (keys as f64).log2();
        entropy.add(h);
        max_entropy.add(h_max);
        distance.add((0..tk).map(|j| at(j) * i.abs_diff(j) as f64).sum());
        if keys >= 2 {
            broad.add(h / h_max);
        }
        // The last key, for every query that sees it and is not it.
        if tk >= 2 && visible(tk - 1) && (!self_attention || i != tk - 1) {
            last.add(at(tk - 1));
        }
        if !self_attention {
            first.add(at(0));
            // The row's largest weight, and which key has it.
            let (best, top) = (0..tk).fold(
                (0, 0.0),
                |(b, m), j| {
                    if at(j) > m {
                        (j, at(j))
                    } else {
                        (b, m)
                    }
                },
            );
            aligned.add(top);
            aligned_keys.push(best);
            continue;
        }
        diagonal.add(at(i));
        if i >= 1 {
            previous.add(at(i - 1));
            first.add(at(0));
        }
        if visible(i + 1) {
            next.add(at(i + 1));
        }
        if words_known {
            // The other pieces of this query's word that it may see.
            let mut mates = (0..tk)
                .filter(|&j| j != i && visible(j) && seq.words[j] == seq.words[i])
                .peekable();
            if mates.peek().is_some() {
                same_word.add(mates.map(at).sum());
            }
        }
        if induction_possible {
            // Earlier occurrences j of this query's token whose successor j + 1 is strictly
            // before the query (j + 1 == i would just be attending to itself).
            let mut found = false;
            let mut mass = 0.0;
            for j in (0..i.saturating_sub(1)).filter(|&j| tokens[j] == tokens[i]) {
                found = true;
                mass += at(j + 1);
            }
            if found {
                induction.add(mass);
            }
        }
    }

    let score = |pattern, mean: &Mean| PatternScore {
        pattern,
        score: mean.get().clamp(0.0, 1.0) as f32,
    };
    let mut scores = Vec::new();
    if self_attention {
        scores.push(score(Pattern::SelfToken, &diagonal));
        scores.push(score(Pattern::PreviousToken, &previous));
    }
    // Patterns that only some inputs and masks allow: scored where some query could show them.
    if next.n > 0 {
        scores.push(score(Pattern::NextToken, &next));
    }
    scores.push(score(Pattern::FirstToken, &first));
    if last.n > 0 {
        scores.push(score(Pattern::LastToken, &last));
    }
    if same_word.n > 0 {
        scores.push(score(Pattern::SameWord, &same_word));
    }
    scores.push(score(Pattern::Broad, &broad));
    if induction.n > 0 {
        scores.push(score(Pattern::InductionLike, &induction));
    }
    if aligned.n > 0 {
        // Focused rows on different keys: the mean top weight times the share of rows whose
        // top key is their own (a head that sends every row to one key is "first/last token").
        let rows = aligned_keys.len();
        aligned_keys.sort_unstable();
        aligned_keys.dedup();
        let spread = aligned_keys.len() as f64 / rows as f64;
        scores.push(PatternScore {
            pattern: Pattern::Aligned,
            score: (aligned.get() * spread).clamp(0.0, 1.0) as f32,
        });
    }
    // Stable sort: equal scores keep the enum order they were pushed in.
    scores.sort_by(|a, b| b.score.total_cmp(&a.score));
    let label = scores
        .iter()
        .find(|s| s.score >= s.pattern.threshold())
        .copied();

    HeadStats {
        entropy_bits: entropy.get() as f32,
        max_entropy_bits: max_entropy.get() as f32,
        mean_distance: distance.get() as f32,
        scores,
        label,
        empty_rows,
    }
}

#[cfg(test)]
mod tests;
