//! Teacher forcing as plain functions: shifted sequences, forced runs, generation, lookahead.

use crate::decode::beam::greedy;
use crate::decode::ModelSource;
use crate::model::attention::{AttentionTrace, MaskChoice};
use crate::model::softmax::log_sum_exp;
use crate::model::tokenizer::{BOS, EOS};
use crate::model::trace::Trace;
use crate::model::transformer::{ForwardOptions, Model, ModelInput};
use crate::t;
use crate::util::argmax;
use ndarray::ArrayView1;

/// One decoder position of a teacher-forced run.
#[derive(Debug, Clone, PartialEq)]
pub struct ForcedRow {
    /// The token the decoder reads here (`<bos>`, then the answer shifted right).
    pub input: String,
    /// The token it must predict here (the answer, then `<eos>`).
    pub label: String,
    /// The model's most likely token.
    pub predicted: String,
    pub correct: bool,
    /// softmax(logits)[label].
    pub p_label: f64,
    /// −ln p(label), natural log.
    pub loss: f64,
}

/// A whole teacher-forced pass: one row per decoder position, plus the trace it came from.
#[derive(Debug, Clone)]
pub struct ForcedRun {
    pub rows: Vec<ForcedRow>,
    pub mean_loss: f64,
    /// Fraction of positions whose argmax is the label.
    pub accuracy: f64,
    pub trace: Trace,
}

/// Greedy output of a model, with whether it stopped on `<eos>` (or ran into `max_len`).
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub text: String,
    pub ended: bool,
}

/// −ln softmax(logits)[label] and softmax(logits)[label], in f64 so a confident model's tiny
/// losses are not rounded to 0. A label outside the logits costs +∞.
pub fn token_loss(logits: ArrayView1<f32>, label: usize) -> (f64, f64) {
    let Some(&x) = logits.get(label) else {
        return (f64::INFINITY, 0.0);
    };
    let log_p = x as f64 - log_sum_exp(logits.iter().map(|&v| v as f64));
    (-log_p, log_p.exp())
}

/// Which text a model is given: the source or the answer.
#[derive(Clone, Copy)]
enum Side {
    Source,
    Target,
}

/// Token ids for `text`, or an error naming the pieces the model does not know.
fn encode_known(model: &Model, text: &str, side: Side) -> Result<Vec<u32>, String> {
    let tok = &model.tokenizer;
    let encoded = tok.encode(text);
    if encoded.unknown == 0 {
        return Ok(encoded.ids);
    }
    let mut unknown: Vec<String> = Vec::new();
    for p in tok.pieces(text) {
        if tok.encode(&p).unknown > 0 && !unknown.contains(&p) {
            unknown.push(p);
        }
    }
    let known = tok
        .spec()
        .tokens
        .get(crate::model::tokenizer::SPECIALS.len()..)
        .unwrap_or_default();
    let model_name = &model.config.name;
    let pieces = unknown
        .iter()
        .map(|p| format!("“{p}”"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut msg = match side {
        Side::Source => t!(
            "masking-teacher-unknown-source",
            model = model_name,
            pieces = pieces
        ),
        Side::Target => t!(
            "masking-teacher-unknown-target",
            model = model_name,
            pieces = pieces
        ),
    };
    if known.len() <= 40 {
        msg.push(' ');
        msg.push_str(&t!("masking-teacher-knows", tokens = known.join(" ")));
    }
    Err(msg)
}

/// The decoder input (`<bos>` + the answer shifted right) and the labels (the answer +
/// `<eos>`), as in training.
fn shifted(target: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let input = std::iter::once(BOS).chain(target.iter().copied()).collect();
    let labels = target.iter().copied().chain([EOS]).collect();
    (input, labels)
}

/// Run `model` teacher-forced on `source` → `target` with the decoder's self-attention mask
/// `self_mask`, scoring every position against its label.
pub fn teacher_forced(
    model: &Model,
    source: &str,
    target: &str,
    self_mask: MaskChoice,
) -> Result<ForcedRun, String> {
    let source_ids = if model.config.family.has_encoder() {
        encode_known(model, source, Side::Source)?
    } else {
        vec![]
    };
    let (decoder_input, labels) = shifted(&encode_known(model, target, Side::Target)?);
    let opts = ForwardOptions {
        self_mask,
        ..Default::default()
    };
    let input = ModelInput {
        source: source_ids,
        target: decoder_input.clone(),
        ..Default::default()
    };
    let trace = model.forward(&input, &opts).map_err(|e| e.to_string())?;
    let tok = &model.tokenizer;
    let rows: Vec<ForcedRow> = decoder_input
        .iter()
        .zip(&labels)
        .zip(trace.logits.rows())
        .map(|((&input, &label), logits)| {
            let (loss, p_label) = token_loss(logits, label as usize);
            let predicted = crate::util::argmax_row(logits).map_or(0, |(i, _)| i as u32);
            ForcedRow {
                input: tok.token(input).to_string(),
                label: tok.token(label).to_string(),
                predicted: tok.token(predicted).to_string(),
                correct: predicted == label,
                p_label,
                loss,
            }
        })
        .collect();
    let n = rows.len().max(1) as f64;
    Ok(ForcedRun {
        mean_loss: rows.iter().map(|r| r.loss).sum::<f64>() / n,
        accuracy: rows.iter().filter(|r| r.correct).count() as f64 / n,
        rows,
        trace,
    })
}

/// Greedy decoding token by token from `<bos>` (the model's own guesses fed back, no answer
/// to lean on) until `<eos>` or `max_len`. `source` feeds the encoder; a decoder-only model
/// continues it as a prompt.
pub fn generate_with_end(model: &Model, source: &str) -> Result<Generation, String> {
    let ids = encode_known(model, source, Side::Source)?;
    let prompt: Vec<u32> = if model.config.family.has_encoder() {
        vec![BOS]
    } else {
        shifted(&ids).0
    };
    // The decoding lab's own greedy search, with the key/value cache; it may generate until
    // the sequence fills the model's `max_len` (the last token needs no further step).
    let encoder_ids = if model.config.family.has_encoder() {
        ids
    } else {
        vec![]
    };
    let mut source = ModelSource::from_ids(model.clone(), encoder_ids, 1.0, true)?;
    let room = (model.config.max_len + 1).saturating_sub(prompt.len());
    let (mut out, _) = greedy(&mut source, &prompt, room)?;
    let ended = out.last() == Some(&EOS);
    if ended {
        out.pop();
    }
    Ok(finish(model, &out, ended))
}

fn finish(model: &Model, out: &[u32], ended: bool) -> Generation {
    Generation {
        text: model.tokenizer.decode(out),
        ended,
    }
}

/// Greedy output text, without `<bos>`/`<eos>`, joined by the tokenizer's separator.
pub fn generate(model: &Model, source: &str) -> Result<String, String> {
    generate_with_end(model, source).map(|g| g.text)
}

/// Mean weight each head puts one step into the future (key i+1 for query i).
pub fn lookahead_weights(attn: &AttentionTrace) -> Vec<f32> {
    attn.weights
        .outer_iter()
        .map(|w| {
            let n = w.nrows().min(w.ncols().saturating_sub(1));
            let sum: f32 = (0..n).map(|i| w[[i, i + 1]]).sum();
            if n == 0 {
                0.0
            } else {
                sum / n as f32
            }
        })
        .collect()
}

/// The head looking furthest into the future, and its mean weight on the next position.
pub fn lookahead_head(attn: &AttentionTrace) -> Option<(usize, f32)> {
    argmax(lookahead_weights(attn))
}

/// The reverse task's answer for a source.
pub fn reversed(source: &str) -> String {
    source.chars().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::labs::masking::teacher::{REVERSE, REVERSE_NOMASK};
    use crate::model::builtin;
    use crate::model::trace::AttentionKind;
    use ndarray::array;

    fn model(name: &str) -> Model {
        builtin::load(name).unwrap()
    }

    fn forced(name: &str, mask: MaskChoice) -> ForcedRun {
        let run = teacher_forced(&model(name), "abcdefgh", "hgfedcba", mask.clone()).unwrap();
        eprintln!(
            "{name} {mask:?}: mean loss {:.3e}, accuracy {:.3}",
            run.mean_loss, run.accuracy
        );
        run
    }

    #[test]
    fn token_loss_is_natural_log_and_stable() {
        let (loss, p) = token_loss(array![0.0f32, 0.0, 0.0, 0.0].view(), 2);
        assert!((loss - 4f64.ln()).abs() < 1e-12 && (p - 0.25).abs() < 1e-12);
        // A confident, right model: a tiny positive loss, not 0 or NaN.
        let (loss, p) = token_loss(array![30.0f32, 0.0, 0.0].view(), 0);
        assert!(loss > 0.0 && loss < 1e-12 && p <= 1.0);
        let (loss, _) = token_loss(array![1e30f32, -1e30].view(), 1);
        assert!(loss.is_finite() && loss > 1e29);
        assert_eq!(token_loss(array![1.0f32].view(), 5).0, f64::INFINITY);
    }

    #[test]
    fn shifted_right_with_bos_and_eos() {
        assert_eq!(shifted(&[7, 8]), (vec![BOS, 7, 8], vec![7, 8, EOS]));
    }

    #[test]
    fn causal_reverse_is_right_teacher_forced() {
        let a = forced(REVERSE, MaskChoice::Default);
        assert_eq!(a.rows.len(), 9);
        assert_eq!(
            (a.rows[0].input.as_str(), a.rows[0].label.as_str()),
            ("<bos>", "h")
        );
        assert_eq!(a.rows[8].label, "<eos>");
        assert!(a.accuracy >= 0.99, "accuracy {}", a.accuracy);
        assert!(a.mean_loss < 0.1, "loss {}", a.mean_loss);
    }

    #[test]
    fn removing_the_mask_of_a_causal_model_costs_loss() {
        let a = forced(REVERSE, MaskChoice::Default);
        let b = forced(REVERSE, MaskChoice::None);
        assert!(
            b.mean_loss > a.mean_loss,
            "{} vs {}",
            b.mean_loss,
            a.mean_loss
        );
    }

    #[test]
    fn the_unmasked_model_cheats_to_near_zero_loss() {
        let c = forced(REVERSE_NOMASK, MaskChoice::Default);
        assert!(c.mean_loss < 0.01, "loss {}", c.mean_loss);
        assert!(c.accuracy >= 0.99, "accuracy {}", c.accuracy);
        // It looks one step into the future to do it.
        let attn = c.trace.attention(AttentionKind::DecoderSelf, 1).unwrap();
        let (head, mean) = lookahead_head(attn).unwrap();
        eprintln!("reverse-nomask last layer: head {head} puts {mean:.3} on i+1");
        assert!(mean > 0.5, "head {head}: {mean}");
    }

    #[test]
    fn only_the_causal_model_generates() {
        assert_eq!(generate(&model(REVERSE), "abcdefgh").unwrap(), "hgfedcba");
        let broken = generate_with_end(&model(REVERSE_NOMASK), "abcdefgh").unwrap();
        eprintln!("reverse-nomask generates {broken:?}");
        assert_ne!(broken.text, "hgfedcba");
    }

    #[test]
    fn odd_input_is_an_error_not_a_panic() {
        let m = model(REVERSE);
        assert!(teacher_forced(&m, "", "", MaskChoice::Default).is_err());
        assert!(generate(&m, "").is_err());
        let unknown = teacher_forced(&m, "abz", "zba", MaskChoice::Default).unwrap_err();
        assert!(unknown.contains("“z”"), "{unknown}");
        assert!(generate(&m, "Ab").is_err());
        let long = "abcdefghij".repeat(3);
        assert!(teacher_forced(&m, &long, &reversed(&long), MaskChoice::Default).is_err());
        assert!(generate(&m, &long).is_err());
    }

    #[test]
    fn generation_stops_at_max_len_without_eos() {
        // A decoder-only model continuing a prompt never runs past max_len.
        let lm = model("lm");
        let g = generate_with_end(&lm, "the cat").unwrap();
        assert!(!g.ended);
        assert!(g.text.chars().count() + "the cat".len() <= lm.config.max_len);
    }
}
