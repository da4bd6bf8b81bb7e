use super::*;
use crate::util::rng::Rng;
use ndarray::Array2;

fn causal(t: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, t), |(i, j)| j <= i)
}

fn one_hot(t: usize, target: impl Fn(usize) -> usize) -> Array2<f32> {
    Array2::from_shape_fn((t, t), |(i, j)| (j == target(i)) as u8 as f32)
}

fn score_of(stats: &HeadStats, pattern: Pattern) -> Option<f32> {
    stats
        .scores
        .iter()
        .find(|s| s.pattern == pattern)
        .map(|s| s.score)
}

fn assert_finite(stats: &HeadStats) {
    let numbers = [
        stats.entropy_bits,
        stats.max_entropy_bits,
        stats.mean_distance,
    ];
    assert!(numbers.iter().all(|x| x.is_finite()), "{stats:?}");
    for s in &stats.scores {
        assert!((0.0..=1.0).contains(&s.score), "{stats:?}");
    }
}

fn tokens(t: usize) -> Vec<u32> {
    (0..t as u32).collect()
}

fn ids(tokens: &[u32]) -> Sequence<'_> {
    Sequence { tokens, words: &[] }
}

/// Without a mask: every query sees every key.
fn open(t: usize) -> Array2<bool> {
    Array2::from_elem((t, t), true)
}

/// Cross-attention that reorders (target token i reads source token 4 − i) is a word
/// alignment; one that sends every query to the last source token is not.
#[test]
fn a_reordering_cross_attention_is_a_word_alignment() {
    let t = 5;
    let flipped = one_hot(t, |i| t - 1 - i);
    let stats = head_stats(flipped.view(), open(t).view(), ids(&tokens(t)), false);
    assert_eq!(stats.label.unwrap().pattern, Pattern::Aligned);
    assert_eq!(score_of(&stats, Pattern::Aligned), Some(1.0));
    let last = one_hot(t, |_| t - 1);
    let stats = head_stats(last.view(), open(t).view(), ids(&tokens(t)), false);
    assert_eq!(stats.label.unwrap().pattern, Pattern::LastToken);
    assert_eq!(score_of(&stats, Pattern::Aligned), Some(0.2));
    // Self-attention is never scored for it: the diagonal and its neighbours name it.
    let stats = head_stats(flipped.view(), open(t).view(), ids(&tokens(t)), true);
    assert_eq!(score_of(&stats, Pattern::Aligned), None);
}

#[test]
fn next_and_last_token_matrices_without_a_mask() {
    let t = 6;
    let next = one_hot(t, |i| (i + 1).min(t - 1));
    let stats = head_stats(next.view(), open(t).view(), ids(&tokens(t)), true);
    assert_eq!(stats.label.unwrap().pattern, Pattern::NextToken);
    assert_eq!(score_of(&stats, Pattern::NextToken), Some(1.0));
    // Under the causal mask no query sees its successor: the pattern is not scored.
    let causal_stats = head_stats(next.view(), causal(t).view(), ids(&tokens(t)), true);
    assert_eq!(score_of(&causal_stats, Pattern::NextToken), None);
    assert_eq!(score_of(&causal_stats, Pattern::LastToken), None);

    let last = one_hot(t, |_| t - 1);
    let stats = head_stats(last.view(), open(t).view(), ids(&tokens(t)), true);
    assert_eq!(stats.label.unwrap().pattern, Pattern::LastToken);
    assert_eq!(score_of(&stats, Pattern::LastToken), Some(1.0));
    assert_finite(&stats);
}

#[test]
fn own_word_matrix() {
    // [CLS] token ##ization is fun ##ny [SEP]: each piece of a two-piece word looks at
    // its other piece; the rest look at themselves.
    let words = [0, 1, 1, 2, 3, 3, 4];
    let t = words.len();
    let w = one_hot(t, |i| match i {
        1 => 2,
        2 => 1,
        4 => 5,
        5 => 4,
        i => i,
    });
    let seq = Sequence {
        tokens: &tokens(t),
        words: &words,
    };
    let stats = head_stats(w.view(), open(t).view(), seq, true);
    assert_eq!(stats.label.unwrap().pattern, Pattern::SameWord);
    assert_eq!(score_of(&stats, Pattern::SameWord), Some(1.0));
    // Only queries of multi-piece words count: the diagonal head scores 0 there.
    let diagonal = one_hot(t, |i| i);
    let stats = head_stats(diagonal.view(), open(t).view(), seq, true);
    assert_eq!(score_of(&stats, Pattern::SameWord), Some(0.0));
    // One piece per word: nothing to score.
    let single: Vec<usize> = (0..t).collect();
    let seq = Sequence {
        tokens: &tokens(t),
        words: &single,
    };
    let stats = head_stats(w.view(), open(t).view(), seq, true);
    assert_eq!(score_of(&stats, Pattern::SameWord), None);
    // Letters typed without spaces: one word is most of the input, and looking at its
    // other pieces is looking at nearly everything, so there is no own-word score.
    let run_on: Vec<usize> = (0..t).map(|i| usize::from(i > 0)).collect();
    let seq = Sequence {
        tokens: &tokens(t),
        words: &run_on,
    };
    let stats = head_stats(w.view(), open(t).view(), seq, true);
    assert_eq!(score_of(&stats, Pattern::SameWord), None);
}

#[test]
fn identity_is_self_token() {
    let t = 6;
    let stats = head_stats(
        one_hot(t, |i| i).view(),
        causal(t).view(),
        ids(&tokens(t)),
        true,
    );
    let label = stats.label.unwrap();
    assert_eq!(label.pattern, Pattern::SelfToken);
    assert_eq!(label.score, 1.0);
    assert_eq!(stats.entropy_bits, 0.0);
    assert_eq!(stats.mean_distance, 0.0);
    assert_eq!(score_of(&stats, Pattern::Broad), Some(0.0));
    assert_finite(&stats);
}

#[test]
fn previous_token_matrix() {
    let t = 8;
    let w = one_hot(t, |i| i.saturating_sub(1));
    let stats = head_stats(w.view(), causal(t).view(), ids(&tokens(t)), true);
    assert_eq!(stats.label.unwrap().pattern, Pattern::PreviousToken);
    assert_eq!(score_of(&stats, Pattern::PreviousToken), Some(1.0));
    assert!((stats.mean_distance - (t - 1) as f32 / t as f32).abs() < 1e-6);
    assert_eq!(stats.entropy_bits, 0.0);
    assert_finite(&stats);
}

#[test]
fn first_token_matrix() {
    let t = 8;
    let stats = head_stats(
        one_hot(t, |_| 0).view(),
        causal(t).view(),
        ids(&tokens(t)),
        true,
    );
    let label = stats.label.unwrap();
    assert_eq!(label.pattern, Pattern::FirstToken);
    assert_eq!(label.score, 1.0);
    assert!((stats.mean_distance - (t - 1) as f32 / 2.0).abs() < 1e-6);
    assert_finite(&stats);
}

#[test]
fn uniform_causal_is_broad() {
    let t = 9;
    let w = Array2::from_shape_fn(
        (t, t),
        |(i, j)| {
            if j <= i {
                1.0 / (i + 1) as f32
            } else {
                0.0
            }
        },
    );
    let stats = head_stats(w.view(), causal(t).view(), ids(&tokens(t)), true);
    let mean = |f: &dyn Fn(usize) -> f64| (0..t).map(f).sum::<f64>() / t as f64;
    let expected_entropy = mean(&|i| ((i + 1) as f64).log2()) as f32;
    assert!((stats.entropy_bits - expected_entropy).abs() < 1e-5);
    assert!((stats.max_entropy_bits - expected_entropy).abs() < 1e-5);
    let expected_distance = mean(&|i| i as f64 / 2.0) as f32;
    assert!((stats.mean_distance - expected_distance).abs() < 1e-5);
    let label = stats.label.unwrap();
    assert_eq!(label.pattern, Pattern::Broad);
    assert!((label.score - 1.0).abs() < 1e-5);
    assert_finite(&stats);
}

#[test]
fn induction_matrix() {
    // 5 6 7 repeats at positions 4..7; a repeated token at i looks at i − 3 + 1, the
    // token that followed it last time; the rest look at the first position.
    let seq = [1, 5, 6, 7, 5, 6, 7];
    let t = seq.len();
    let w = one_hot(t, |i| if i >= 4 { i - 2 } else { 0 });
    let stats = head_stats(w.view(), causal(t).view(), ids(&seq), true);
    let label = stats.label.unwrap();
    assert_eq!(label.pattern, Pattern::InductionLike);
    assert_eq!(label.score, 1.0);
    assert_eq!(stats.scores[0], label);
    assert_finite(&stats);

    // No repeats, or too few tokens: induction cannot be judged.
    let no_repeats = head_stats(w.view(), causal(t).view(), ids(&tokens(t)), true);
    assert_eq!(score_of(&no_repeats, Pattern::InductionLike), None);
    let short = head_stats(w.view(), causal(t).view(), ids(&seq[..t - 1]), true);
    assert_eq!(score_of(&short, Pattern::InductionLike), None);
    // An immediate repeat ("a a") points at the query itself, so it does not count.
    let stutter = head_stats(
        w.view(),
        causal(t).view(),
        ids(&[1, 1, 2, 3, 4, 8, 9]),
        true,
    );
    assert_eq!(score_of(&stutter, Pattern::InductionLike), None);
}

#[test]
fn cross_attention_has_only_first_last_broad_and_alignment() {
    let (tq, tk) = (3, 5);
    let all = Array2::from_elem((tq, tk), true);
    let first = Array2::from_shape_fn((tq, tk), |(_, j)| (j == 0) as u8 as f32);
    let stats = head_stats(first.view(), all.view(), ids(&tokens(tq)), false);
    let mut patterns: Vec<Pattern> = stats.scores.iter().map(|s| s.pattern).collect();
    patterns.sort_by_key(|p| *p as u8);
    assert_eq!(
        patterns,
        [
            Pattern::FirstToken,
            Pattern::LastToken,
            Pattern::Broad,
            Pattern::Aligned
        ]
    );
    assert_eq!(
        stats.label,
        Some(PatternScore {
            pattern: Pattern::FirstToken,
            score: 1.0
        })
    );
    assert!((stats.mean_distance - 1.0).abs() < 1e-6); // rows at distance 0, 1, 2

    let uniform = Array2::from_elem((tq, tk), 1.0 / tk as f32);
    let stats = head_stats(uniform.view(), all.view(), ids(&[]), false);
    assert_eq!(stats.label.unwrap().pattern, Pattern::Broad);
    assert!((stats.entropy_bits - (tk as f32).log2()).abs() < 1e-5);
    assert_finite(&stats);
}

#[test]
fn masked_row_only_counts_as_empty() {
    // A padded query at the end: its row is fully masked. Key 4 is invisible to every
    // other query anyway, so the stats must equal those of the 4×4 matrix.
    let t = 5;
    let w = Array2::from_shape_fn((t, t), |(i, j)| {
        if i < 4 && j <= i {
            1.0 / (i + 1) as f32
        } else {
            0.0
        }
    });
    let allowed = Array2::from_shape_fn((t, t), |(i, j)| i < 4 && j <= i);
    let seq = [3, 1, 3, 1, 0];
    let padded = head_stats(w.view(), allowed.view(), ids(&seq), true);
    let trimmed = head_stats(
        w.slice(ndarray::s![..4, ..4]),
        allowed.slice(ndarray::s![..4, ..4]),
        ids(&seq[..4]),
        true,
    );
    assert_eq!(padded.empty_rows, 1);
    assert_eq!(trimmed.empty_rows, 0);
    assert_eq!(
        HeadStats {
            empty_rows: 0,
            ..padded
        },
        trimmed
    );
}

#[test]
fn degenerate_inputs() {
    let empty = head_stats(
        Array2::<f32>::zeros((0, 0)).view(),
        Array2::<bool>::from_elem((0, 0), false).view(),
        ids(&[]),
        true,
    );
    assert_eq!(empty.entropy_bits, 0.0);
    assert_eq!(empty.max_entropy_bits, 0.0);
    assert_eq!(empty.mean_distance, 0.0);
    assert!(empty.scores.iter().all(|s| s.score == 0.0));
    assert_eq!(empty.label, None);
    assert_eq!(empty.empty_rows, 0);

    let one = head_stats(
        Array2::from_elem((1, 1), 1.0f32).view(),
        Array2::from_elem((1, 1), true).view(),
        ids(&[7]),
        true,
    );
    assert_eq!(one.label.unwrap().pattern, Pattern::SelfToken);
    assert_eq!(one.entropy_bits, 0.0);
    assert_eq!(one.max_entropy_bits, 0.0);
    assert_finite(&one);

    // Everything masked: all rows empty, nothing else.
    let masked = head_stats(
        Array2::<f32>::zeros((3, 3)).view(),
        Array2::from_elem((3, 3), false).view(),
        ids(&[1, 1, 1]),
        true,
    );
    assert_eq!(masked.empty_rows, 3);
    assert_eq!(masked.label, None);
    assert_finite(&masked);
    // Cross-attention with no keys at all.
    let no_keys = head_stats(
        Array2::<f32>::zeros((2, 0)).view(),
        Array2::from_elem((2, 0), false).view(),
        ids(&[]),
        false,
    );
    assert_eq!(no_keys.empty_rows, 2);
    assert_finite(&no_keys);
}

#[test]
fn random_row_stochastic_stays_in_range() {
    let mut rng = Rng::new(42);
    for _ in 0..200 {
        let tq = rng.below(10);
        let self_attention = rng.uniform() < 0.7;
        let tk = if self_attention { tq } else { rng.below(10) };
        let is_causal = rng.uniform() < 0.5;
        let padded_row = if tq > 0 { rng.below(tq) } else { 0 };
        let allowed = Array2::from_shape_fn((tq, tk), |(i, j)| {
            (!is_causal || j <= i) && !(tq > 2 && i == padded_row)
        });
        let mut w = Array2::from_shape_fn((tq, tk), |(i, j)| {
            if allowed[[i, j]] {
                // Cubing makes some rows peaked, others spread.
                rng.uniform().powi(3) as f32 + 1e-6
            } else {
                0.0
            }
        });
        for mut row in w.rows_mut() {
            let sum = row.sum();
            if sum > 0.0 {
                row /= sum;
            }
        }
        let seq: Vec<u32> = (0..tq).map(|_| rng.below(3) as u32).collect();
        // Words of one to three pieces.
        let words: Vec<usize> = (0..tq.max(tk))
            .scan(0, |word, _| {
                *word += (rng.uniform() < 0.5) as usize;
                Some(*word)
            })
            .collect();
        let seq = Sequence {
            tokens: &seq,
            words: &words,
        };
        let stats = head_stats(w.view(), allowed.view(), seq, self_attention);
        assert!(
            stats.entropy_bits <= stats.max_entropy_bits + 1e-5,
            "{stats:?}"
        );
        assert!(stats.entropy_bits >= 0.0);
        assert!(stats.mean_distance >= 0.0);
        assert_finite(&stats);
        // The label is the best score that reaches its threshold; nothing passing beats it.
        let passing = stats
            .scores
            .iter()
            .filter(|s| s.score >= s.pattern.threshold());
        assert_eq!(
            stats.label.map(|l| l.score),
            passing.map(|s| s.score).reduce(f32::max)
        );
    }
}

#[test]
fn the_best_head_of_each_pattern_is_found() {
    let t = 6;
    let prev = one_hot(t, |i| i.saturating_sub(1));
    let first = one_hot(t, |_| 0);
    let stats_of = |w: &Array2<f32>| head_stats(w.view(), causal(t).view(), ids(&tokens(t)), true);
    // Layer 1 head 0 is the cleaner previous-token head (layer 0 head 1 mixes in its own).
    let mixed = (&prev * 0.7) + &(one_hot(t, |i| i) * 0.3);
    let stats = vec![
        vec![stats_of(&first), stats_of(&mixed)],
        vec![stats_of(&prev), stats_of(&first)],
    ];
    let found = best_heads(&stats);
    let of = |p| found.iter().find(|f| f.pattern == p).copied().unwrap();
    let previous = of(Pattern::PreviousToken);
    assert_eq!((previous.layer, previous.head, previous.score), (1, 0, 1.0));
    assert!(previous.clear);
    let first_token = of(Pattern::FirstToken);
    assert_eq!((first_token.layer, first_token.head), (0, 0));
    let diagonal = of(Pattern::SelfToken);
    assert_eq!((diagonal.layer, diagonal.head), (0, 1));
    assert!(!diagonal.clear, "(1 + 5 × 0.3) / 6 is below one half");
    assert!(found.iter().all(|f| f.pattern != Pattern::Broad));
    assert!(best_heads(&[]).is_empty());
}

#[test]
fn pattern_names() {
    let all = [
        Pattern::SelfToken,
        Pattern::PreviousToken,
        Pattern::NextToken,
        Pattern::FirstToken,
        Pattern::LastToken,
        Pattern::SameWord,
        Pattern::Broad,
        Pattern::InductionLike,
    ];
    for p in all {
        assert!(!p.label().is_empty() && !p.explain().is_empty());
        assert!(p.threshold() > 0.0 && p.threshold() <= 1.0);
    }
    assert_eq!(
        serde_json::to_string(&Pattern::InductionLike).unwrap(),
        "\"induction_like\""
    );
}
