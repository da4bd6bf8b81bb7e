//! Attention against influence, for one query token: how hard each head looks (its largest
//! weight, and its mass on the first token), the "sinks" that park their weight on the first
//! token, and a sentence naming where looking and mattering disagree. The effects compared
//! come from elsewhere (ablation, patching or attribution), one number per head.

use crate::model::trace::StackTrace;
use ndarray::Axis;

/// Where one head of one block looks from the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    pub layer: usize,
    pub head: usize,
    /// Its weight on the first token.
    pub first: f32,
    /// The key it weights most apart from the first token, and that weight.
    pub key: usize,
    pub weight: f32,
}

/// A head that puts at least half its weight on the first token, with the norms of the value
/// vectors it reads there and (on average) elsewhere: a small first value means the weight
/// there adds little to the output.
#[derive(Debug, Clone, PartialEq)]
pub struct Sink {
    pub layer: usize,
    pub head: usize,
    pub first: f32,
    pub value_norm_first: f32,
    pub value_norm_rest: f32,
}

/// Mass on the first token from which a head counts as a sink.
pub const SINK_MASS: f32 = 0.5;

/// Every head's look from `query`, `[block][head]`.
pub fn looks(stack: &StackTrace, query: usize) -> Vec<Vec<Look>> {
    stack
        .blocks
        .iter()
        .enumerate()
        .map(|(layer, b)| {
            let w = &b.self_attn.inner.weights;
            (0..w.shape()[0])
                .map(|head| {
                    let row = w.index_axis(Axis(0), head);
                    let row = row.row(query.min(row.nrows().saturating_sub(1)));
                    let first = row.first().copied().unwrap_or(0.0);
                    let (key, weight) =
                        row.iter()
                            .enumerate()
                            .skip(1)
                            .fold((0, first), |best, (j, &x)| {
                                match x > best.1 || best.0 == 0 {
                                    true => (j, x),
                                    false => best,
                                }
                            });
                    Look {
                        layer,
                        head,
                        first,
                        key,
                        weight,
                    }
                })
                .collect()
        })
        .collect()
}

/// The heads with at least [`SINK_MASS`] on the first token from `query`.
pub fn sinks(stack: &StackTrace, query: usize) -> Vec<Sink> {
    let mut found = Vec::new();
    for (layer, row) in looks(stack, query).into_iter().enumerate() {
        let attn = &stack.blocks[layer].self_attn.inner;
        let (n_heads, groups) = (attn.weights.shape()[0], attn.v.shape()[0].max(1));
        for look in row.into_iter().filter(|l| l.first >= SINK_MASS) {
            // Query head h reads key/value head h / (H / G) (grouped-query attention).
            let v = attn
                .v
                .index_axis(Axis(0), look.head / (n_heads / groups).max(1));
            let norm = |j: usize| v.row(j).iter().map(|x| x * x).sum::<f32>().sqrt();
            let rest: Vec<f32> = (1..=query.min(v.nrows() - 1)).map(norm).collect();
            found.push(Sink {
                layer,
                head: look.head,
                first: look.first,
                value_norm_first: norm(0),
                value_norm_rest: rest.iter().sum::<f32>() / rest.len().max(1) as f32,
            });
        }
    }
    found
}

/// Spearman's rank correlation of two equally long lists (average ranks for ties).
pub fn rank_correlation(a: &[f64], b: &[f64]) -> f64 {
    let ranks = |x: &[f64]| {
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
        let mut r = vec![0.0; x.len()];
        let mut i = 0;
        while i < order.len() {
            let mut j = i;
            while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
                j += 1;
            }
            for &k in &order[i..=j] {
                r[k] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        r
    };
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let mean = (n - 1.0) / 2.0;
    let cov: f64 = ra
        .iter()
        .zip(&rb)
        .map(|(x, y)| (x - mean) * (y - mean))
        .sum();
    let var = |r: &[f64]| r.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
    let d = (var(&ra) * var(&rb)).sqrt();
    if d == 0.0 {
        0.0
    } else {
        cov / d
    }
}

/// Looking against mattering, the numbers of one paragraph (see [`disagreement`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// The head that looks hardest at one token (first token aside) while its effect is at
    /// most a tenth of the largest, and that effect.
    pub looker: Option<(Look, f64)>,
    /// The head with the largest effect, and that effect.
    pub strongest: (Look, f64),
    /// Heads measured.
    pub heads: usize,
    /// Spearman's rank correlation of how hard each head looks and the size of its effect.
    pub rank_correlation: f64,
}

/// Looking against mattering: `None` until some head's effect is measured. `effects` is
/// `[block][head]` (`NaN` where not measured yet).
pub fn disagreement_of(looks: &[Vec<Look>], effects: &[Vec<f64>]) -> Option<Disagreement> {
    let pairs: Vec<(&Look, f64)> = looks
        .iter()
        .flatten()
        .filter_map(|l| {
            let e = *effects.get(l.layer)?.get(l.head)?;
            e.is_finite().then_some((l, e))
        })
        .collect();
    let strongest = pairs
        .iter()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))?;
    let small = 0.1 * strongest.1.abs();
    let looker = pairs
        .iter()
        .filter(|p| p.1.abs() <= small)
        .max_by(|a, b| a.0.weight.total_cmp(&b.0.weight));
    let weight: Vec<f64> = pairs.iter().map(|p| f64::from(p.0.weight)).collect();
    let size: Vec<f64> = pairs.iter().map(|p| p.1.abs()).collect();
    Some(Disagreement {
        looker: looker.map(|(l, e)| ((*l).clone(), *e)),
        strongest: (strongest.0.clone(), strongest.1),
        heads: pairs.len(),
        rank_correlation: rank_correlation(&weight, &size),
    })
}

/// Looking against mattering, in one paragraph (English, for the command line and the
/// tests): the head that looks hardest at one token (first token aside) while its effect is
/// small, the head with the largest effect and how hard it looks, and the rank correlation
/// over every head. `effects` is `[block][head]` (`NaN` where not measured yet), described by
/// `what` ("ablation effect").
pub fn disagreement(
    looks: &[Vec<Look>],
    effects: &[Vec<f64>],
    tokens: &[String],
    what: &str,
) -> String {
    let Some(d) = disagreement_of(looks, effects) else {
        return format!("No {what} is measured yet.");
    };
    let token = |j: usize| tokens.get(j).map_or("?", |t| t.as_str()).to_string();
    let mut text = String::new();
    if let Some((looker, effect)) = &d.looker {
        text += &format!(
            "Head {}.{} puts {:.2} of its weight on “{}” (position {}) yet its {what} is only \
             {:+.3}. ",
            looker.layer,
            looker.head,
            looker.weight,
            token(looker.key),
            looker.key,
            effect
        );
    }
    let (l, e) = &d.strongest;
    text += &format!(
        "Head {}.{} has the largest {what} ({:+.3}) with at most {:.2} on one token (“{}”, \
         position {}). ",
        l.layer,
        l.head,
        e,
        l.weight,
        token(l.key),
        l.key
    );
    text += &format!(
        "Over {} heads, how hard a head looks and how much it matters have rank correlation \
         {:.2}.",
        d.heads, d.rank_correlation
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_correlation_is_one_for_the_same_order_and_minus_one_reversed() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((rank_correlation(&a, &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
        assert!((rank_correlation(&a, &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // Ties share a rank: Spearman of (1,2,2,3) with itself is 1.
        let t = [1.0, 2.0, 2.0, 3.0];
        assert!((rank_correlation(&t, &t) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn disagreement_names_the_looker_and_the_mover() {
        let look = |layer, head, weight| Look {
            layer,
            head,
            first: 0.0,
            key: 1,
            weight,
        };
        let looks = vec![vec![look(0, 0, 0.9), look(0, 1, 0.2)]];
        let effects = vec![vec![0.01, -2.0]];
        let tokens = vec!["a".to_string(), "b".to_string()];
        let s = disagreement(&looks, &effects, &tokens, "effect");
        assert!(
            s.contains("Head 0.0 puts 0.90 of its weight on “b” (position 1)"),
            "{s}"
        );
        assert!(
            s.contains("Head 0.1 has the largest effect (-2.000)"),
            "{s}"
        );
        assert!(s.contains("rank correlation -1.00"), "{s}");
    }
}
