//! The numbers of the cost calculator, as pure functions: per-layer mixing cost, sequential
//! steps and path length of self-attention, recurrence and convolution; the memory of the
//! attention matrices; the parameters of a block by the textbook formulas and, for a loaded
//! model, counted from its own tensors. Counts are exact integers (u128), never rounded.

use crate::model::weights::tensor_specs;
use crate::model::ModelConfig;
use crate::t;
pub use crate::util::grouped;

/// The sizes the calculator is set to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    /// L: tokens in the sequence.
    pub l: u64,
    /// D: the model width.
    pub d: u64,
    /// K: the convolution's kernel width.
    pub k: u64,
    /// d_ff: the feed-forward layer's hidden width.
    pub d_ff: u64,
    /// h: attention heads.
    pub heads: u64,
    /// N: layers.
    pub layers: u64,
    /// B: sequences in a batch.
    pub batch: u64,
}

impl Default for Sizes {
    /// The notes' sentence-length example: L = 100, D = 512, K = 3 (base Transformer sizes).
    fn default() -> Self {
        Self {
            l: 100,
            d: 512,
            k: 3,
            d_ff: 2048,
            heads: 8,
            layers: 6,
            batch: 1,
        }
    }
}

/// One kind of layer in the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerCost {
    pub name: String,
    /// The dominant mixing term, as the notes write it.
    pub formula: &'static str,
    /// Its value (multiply-adds per layer).
    pub mixing: u128,
    /// Steps that must run one after another (O(1) for a layer that is all parallel).
    pub sequential: u128,
    /// Layers or steps a signal crosses between the first and the last token.
    pub path: String,
}

/// Self-attention, recurrence and convolution at these sizes, as in the notes' table.
pub fn layer_costs(s: &Sizes) -> [LayerCost; 3] {
    let (l, d, k) = (s.l as u128, s.d as u128, s.k as u128);
    [
        LayerCost {
            name: t!("cost-layer-attention"),
            formula: "L²·D",
            mixing: l * l * d,
            sequential: 1,
            path: t!("cost-path-attention"),
        },
        LayerCost {
            name: t!("cost-layer-recurrent"),
            formula: "L·D²",
            mixing: l * d * d,
            sequential: l,
            path: t!("cost-path-recurrent", steps = s.l.saturating_sub(1).max(1)),
        },
        LayerCost {
            name: t!("cost-layer-convolution"),
            formula: "K·L·D²",
            mixing: k * l * d * d,
            sequential: 1,
            path: conv_path(s.l, s.k),
        },
    ]
}

/// Layers of width-K convolutions that connect the first token to the last: each layer
/// widens the reach by K − 1 (O(L/K)); with dilations doubling per layer, ⌈log_K L⌉.
fn conv_path(l: u64, k: u64) -> String {
    if k < 2 {
        return t!("cost-path-never");
    }
    let contiguous = l.saturating_sub(1).div_ceil(k - 1).max(1);
    let mut dilated = 0u32;
    while (k as u128).pow(dilated) < l as u128 {
        dilated += 1;
    }
    t!(
        "cost-path-convolution",
        layers = contiguous,
        dilated = dilated.max(1)
    )
}

/// The operations of one self-attention block at length L (multiply-adds): the four
/// projections Q, K, V, O (4·L·D²), the scores QKᵀ (L²·D) and the weighted sum AV (L²·D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttentionWork {
    pub projections: u128,
    pub scores: u128,
    pub weighted_sum: u128,
    /// The feed-forward layer beside it: two products of L·D·d_ff.
    pub ffn: u128,
}

pub fn attention_work(s: &Sizes) -> AttentionWork {
    let (l, d, ff) = (s.l as u128, s.d as u128, s.d_ff as u128);
    AttentionWork {
        projections: 4 * l * d * d,
        scores: l * l * d,
        weighted_sum: l * l * d,
        ffn: 2 * l * d * ff,
    }
}

/// Memory the notes compare, in numbers held (not bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Memory {
    /// One head's attention matrix in one layer: L².
    pub one_matrix: u128,
    /// An RNN's hidden states: L·D.
    pub rnn: u128,
    /// Self-attention's weights and representations: L² + L·D.
    pub attention: u128,
    /// Every attention matrix of a forward pass: B·N·h·L².
    pub all_weights: u128,
}

pub fn memory(s: &Sizes) -> Memory {
    let (l, d) = (s.l as u128, s.d as u128);
    Memory {
        one_matrix: l * l,
        rnn: l * d,
        attention: l * l + l * d,
        all_weights: s.batch as u128 * s.layers as u128 * s.heads as u128 * l * l,
    }
}

/// The textbook block's parameters: attention 4·D² (+ 4·D biases), feed-forward 2·D·d_ff
/// (+ d_ff + D biases), two LayerNorms (2·2·D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockParams {
    pub attention: u128,
    pub attention_bias: u128,
    pub ffn: u128,
    pub ffn_bias: u128,
    pub norms: u128,
}

impl BlockParams {
    pub fn total(&self) -> u128 {
        self.attention + self.attention_bias + self.ffn + self.ffn_bias + self.norms
    }
}

pub fn block_params(s: &Sizes) -> BlockParams {
    let (d, ff) = (s.d as u128, s.d_ff as u128);
    BlockParams {
        attention: 4 * d * d,
        attention_bias: 4 * d,
        ffn: 2 * d * ff,
        ffn_bias: ff + d,
        norms: 4 * d,
    }
}

/// A loaded model's parameters by part, counted from the tensors it holds, beside what the
/// textbook formulas give for its sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelParams {
    pub rows: Vec<PartCount>,
    pub total: u128,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PartCount {
    pub part: Part,
    /// Counted from the model's tensors.
    pub counted: u128,
    /// The formula for this part, and its value, where the notes give one.
    pub formula: Option<(String, u128)>,
}

/// A part of a model, as the parameter table lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Embeddings,
    AttentionWeights,
    AttentionBiases,
    FeedForwardWeights,
    FeedForwardBiases,
    Norms,
    Output,
}

impl Part {
    /// Its name in the table.
    pub fn name(self) -> String {
        match self {
            Part::Embeddings => t!("cost-part-embeddings"),
            Part::AttentionWeights => t!("cost-part-attention-weights"),
            Part::AttentionBiases => t!("cost-part-attention-biases"),
            Part::FeedForwardWeights => t!("cost-part-ffn-weights"),
            Part::FeedForwardBiases => t!("cost-part-ffn-biases"),
            Part::Norms => t!("cost-part-norms"),
            Part::Output => t!("cost-part-output"),
        }
    }
}

/// Which part of the model a tensor belongs to, from its name.
fn part_of(name: &str) -> Part {
    let is_bias = name.contains(".b") || name.ends_with("bias");
    if name.ends_with(".gamma") || name.ends_with(".beta") {
        Part::Norms
    } else if name.contains("_attn.") {
        if is_bias {
            Part::AttentionBiases
        } else {
            Part::AttentionWeights
        }
    } else if name.contains(".ffn.") {
        if is_bias {
            Part::FeedForwardBiases
        } else {
            Part::FeedForwardWeights
        }
    } else if name.contains("embed") {
        Part::Embeddings
    } else {
        Part::Output
    }
}

const PARTS: [Part; 7] = [
    Part::Embeddings,
    Part::AttentionWeights,
    Part::AttentionBiases,
    Part::FeedForwardWeights,
    Part::FeedForwardBiases,
    Part::Norms,
    Part::Output,
];

/// The model's parameters by part, with the textbook formula beside the weights of the blocks.
pub fn model_params(cfg: &ModelConfig) -> ModelParams {
    let specs = tensor_specs(cfg);
    let mut counts = [0u128; PARTS.len()];
    for s in &specs {
        let n: u128 = s.shape.iter().map(|&x| x as u128).product();
        let part = part_of(&s.name);
        if let Some(i) = PARTS.iter().position(|p| *p == part) {
            counts[i] += n;
        }
    }
    let d = cfg.d_model as u128;
    let ff = cfg.d_ff as u128;
    let (heads, kv, dh) = (
        cfg.n_heads as u128,
        cfg.n_kv_heads as u128,
        cfg.d_head() as u128,
    );
    let stacks = cfg.family.has_encoder() as u128 + cfg.family.has_decoder() as u128;
    let blocks = stacks * cfg.n_layers as u128;
    let cross = cfg.family.has_encoder() && cfg.family.has_decoder();
    let attentions = blocks + if cross { cfg.n_layers as u128 } else { 0 };
    let attention = if kv == heads && heads * dh == d {
        (
            t!("cost-formula-attention", layers = attentions as u64),
            attentions * 4 * d * d,
        )
    } else {
        // Grouped-query attention: Q and O are D × h·d_head, K and V only D × kv·d_head.
        (
            format!("{attentions} × (2·D·h·d_head + 2·D·kv·d_head)"),
            attentions * (2 * d * heads * dh + 2 * d * kv * dh),
        )
    };
    let ffn = if cfg.extensions.gated_ffn {
        (
            t!("cost-formula-ffn-gated", blocks = blocks as u64),
            blocks * 3 * d * ff,
        )
    } else {
        (
            t!("cost-formula-ffn", blocks = blocks as u64),
            blocks * 2 * d * ff,
        )
    };
    let rows = PARTS
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(&part, counted)| PartCount {
            part,
            counted,
            formula: match part {
                Part::AttentionWeights => Some(attention.clone()),
                Part::FeedForwardWeights => Some(ffn.clone()),
                _ => None,
            },
        })
        .collect();
    ModelParams {
        rows,
        total: counts.iter().sum(),
    }
}

/// An exact count as the notes write it: grouped digits below 10⁹ (26,214,400), a mantissa
/// and a power of ten above (2.62144 × 10⁹).
pub fn count(n: u128) -> String {
    if n < 1_000_000_000 {
        return grouped(n);
    }
    let digits = n.to_string();
    let exponent = digits.len() - 1;
    let mantissa = format!("{}.{}", &digits[..1], &digits[1..]);
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{mantissa} × 10{}", superscript(exponent))
}

fn superscript(n: usize) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|c| DIGITS[c.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// A size in bytes in binary units (1 KiB = 2¹⁰ bytes), as the notes write memory: one
/// 1,024 × 1,024 matrix of f32 is 4 MiB.
pub fn binary_bytes(n: u128) -> String {
    in_units(n, 1024.0, ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"])
}

/// A size in bytes, in the largest unit that keeps it ≥ 1 (f32: 4 bytes a number).
pub fn bytes(n: u128) -> String {
    in_units(n, 1000.0, ["bytes", "KB", "MB", "GB", "TB", "PB"])
}

/// `n` bytes in the largest of `units` (each `step` times the one before) that keeps it ≥ 1.
fn in_units(n: u128, step: f64, units: [&str; 6]) -> String {
    let mut x = n as f64;
    let mut u = 0;
    while x >= step && u + 1 < units.len() {
        x /= step;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{x:.1} {}", units[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_change_only_the_weights_memory_and_binary_units_match_the_notes() {
        // d_model 512 with 8 heads of 64 against one head of 512: the same parameters and the
        // same multiply-adds; only the B·N·h·L² weights grow, by h.
        let eight = Sizes::default();
        assert_eq!((eight.d, eight.heads, eight.d / eight.heads), (512, 8, 64));
        let one = Sizes { heads: 1, ..eight };
        assert_eq!(attention_work(&eight), attention_work(&one));
        assert_eq!(block_params(&eight), block_params(&one));
        assert_eq!(memory(&eight).all_weights, 8 * memory(&one).all_weights);
        assert_eq!(memory(&eight).one_matrix, memory(&one).one_matrix);
        // The notes' per-matrix figures, f32: 4, 16, 64 and 256 MiB at L = 1,024 … 8,192.
        for (l, mib) in [
            (1024, "4.0 MiB"),
            (2048, "16.0 MiB"),
            (4096, "64.0 MiB"),
            (8192, "256.0 MiB"),
        ] {
            let m = memory(&Sizes { l, ..eight });
            assert_eq!(binary_bytes(4 * m.one_matrix), mib);
        }
        // The same matrix in decimal units is larger-looking: 4,194,304 bytes = 4.2 MB.
        assert_eq!(bytes(4 * 1024 * 1024), "4.2 MB");
        assert_eq!(binary_bytes(1023), "1023 bytes");
    }

    #[test]
    fn the_notes_sentence_length_numbers_come_out_exactly() {
        // L = 100, D = 512, K = 3.
        let [attn, rnn, cnn] = layer_costs(&Sizes::default());
        assert_eq!(count(rnn.mixing), "26,214,400");
        assert_eq!(count(cnn.mixing), "78,643,200");
        assert_eq!(count(attn.mixing), "5,120,000");
        assert_eq!(
            (attn.sequential, rnn.sequential, cnn.sequential),
            (1, 100, 1)
        );
    }

    #[test]
    fn the_notes_long_sequence_numbers_come_out_exactly() {
        let s = Sizes {
            l: 10_000,
            ..Sizes::default()
        };
        let [attn, rnn, cnn] = layer_costs(&s);
        assert_eq!(count(rnn.mixing), "2.62144 × 10⁹");
        assert_eq!(count(cnn.mixing), "7.86432 × 10⁹");
        assert_eq!(count(attn.mixing), "5.12 × 10¹⁰");
        assert!(attn.mixing > rnn.mixing);
    }

    #[test]
    fn the_notes_memory_and_parameter_numbers() {
        let s = Sizes::default();
        let m = memory(&s);
        // "100 × 512 = 51K values" and "100² + 100 × 512 = 61K values".
        assert_eq!(m.rnn, 51_200);
        assert_eq!(m.attention, 61_200);
        let p = block_params(&s);
        // FFN 2·512·2048 "≈ 2.1M", attention 4·512².
        assert_eq!(p.ffn, 2_097_152);
        assert_eq!(p.attention, 1_048_576);
        // The notes' 61M FLOPs of attention for N = 6, T = 100: 2·T²·d per layer.
        let w = attention_work(&s);
        assert_eq!((w.scores + w.weighted_sum) * 6, 61_440_000);
    }

    #[test]
    fn quadratic_mixing_overtakes_recurrence_exactly_when_l_passes_d() {
        for l in [511u64, 512, 513] {
            let s = Sizes {
                l,
                ..Sizes::default()
            };
            let [attn, rnn, _] = layer_costs(&s);
            assert_eq!(attn.mixing.cmp(&rnn.mixing), l.cmp(&512), "L = {l}");
        }
    }

    #[test]
    fn convolution_path_lengths() {
        assert_eq!(
            conv_path(100, 3),
            "50 layers (O(L/K)); 5 with dilations (O(log_K L))"
        );
        assert!(conv_path(100, 1).starts_with("never"));
        assert!(conv_path(1, 3).starts_with("1 layers"));
    }

    #[test]
    fn counts_are_written_as_the_notes_write_them() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(count(999_999_999), "999,999,999");
        assert_eq!(count(1_000_000_000), "1 × 10⁹");
        assert_eq!(bytes(4 * 61_200), "244.8 KB");
        assert_eq!(bytes(12), "12 bytes");
    }

    #[test]
    fn a_models_tensors_match_the_textbook_formulas() {
        // The built-in translator and a grouped-query config: the weights of the blocks,
        // counted tensor by tensor, equal the formula for their sizes.
        let translate = crate::model::builtin::load("translate").unwrap().config;
        let lm = crate::model::builtin::load("lm").unwrap().config;
        let mut grouped = lm.clone();
        grouped.n_kv_heads = 1;
        grouped.extensions.gated_ffn = true;
        for cfg in [translate, lm, grouped] {
            let p = model_params(&cfg);
            assert_eq!(
                p.total,
                crate::model::weights::parameter_count(&cfg) as u128
            );
            for row in &p.rows {
                if let Some((f, n)) = &row.formula {
                    assert_eq!(row.counted, *n, "{}: {:?} against {f}", cfg.name, row.part);
                }
            }
            assert!(p.rows.iter().any(|r| r.formula.is_some()));
        }
    }
}
