//! The probe's inputs: short passages of Glimpse's own English text for a model that reads it
//! (each with the special tokens the model's tokenizer adds), or random sequences of the
//! model's own symbols for a task model (the reverse model reads letters, the translator toy
//! French): with nothing but position ordering them, what the probe finds is position alone.

use crate::model::{Model, ModelInput};
use crate::util::rng::Rng;

/// The text: the character model's corpus, written for Glimpse (about 17,600 characters).
pub const TEXT: &str = crate::train::tasks::CORPUS;
/// Tokens per passage of text, special tokens included.
pub const TEXT_TOKENS: usize = 32;
/// Tokens per random sequence: the task models were trained on 3 to 8 symbols.
pub const SYMBOL_TOKENS: usize = 8;
/// Passages or sequences run through the model (a quarter held out).
pub const CHUNKS: usize = 96;
/// A tokenizer that leaves more of the text than this share unknown reads symbols instead.
const MAX_UNKNOWN: f64 = 0.05;

/// What the chunks are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Text,
    Symbols,
}

#[derive(Debug, Clone)]
pub struct ProbeInputs {
    pub source: Source,
    /// Tokens per chunk (every chunk has exactly this many).
    pub positions: usize,
    pub inputs: Vec<ModelInput>,
}

/// The special tokens the model's own input preparation puts before and after a text.
fn wrapping(model: &Model) -> (Vec<u32>, Vec<u32>, ModelInput) {
    let prepared = model.prepare("a", "").input;
    let stack = match model.config.family.has_encoder() {
        true => &prepared.source,
        false => &prepared.target,
    };
    let plain = model.tokenizer.encode("a").ids;
    let at = (!plain.is_empty())
        .then(|| {
            stack
                .windows(plain.len())
                .position(|w| w == plain.as_slice())
        })
        .flatten();
    match at {
        Some(i) => (
            stack[..i].to_vec(),
            stack[i + plain.len()..].to_vec(),
            prepared,
        ),
        None => (Vec::new(), Vec::new(), prepared),
    }
}

/// The model input for one chunk's ids: the probed stack gets them (the encoder where there is
/// one; an encoder–decoder's decoder reads its start token).
fn input(model: &Model, ids: Vec<u32>, template: &ModelInput) -> ModelInput {
    match (
        model.config.family.has_encoder(),
        model.config.family.has_decoder(),
    ) {
        (true, true) => ModelInput {
            source: ids,
            target: template.target.clone(),
            ..Default::default()
        },
        _ => model.input_from_ids(ids, Vec::new()),
    }
}

/// The chunks for `model`: text when its tokenizer reads [`TEXT`], else its symbols.
pub fn probe_inputs(model: &Model, seed: u64) -> Result<ProbeInputs, String> {
    let (prefix, suffix, template) = wrapping(model);
    let specials = prefix.len() + suffix.len();
    let encoded = model.tokenizer.encode(TEXT);
    let unknown = encoded.unknown as f64 / encoded.ids.len().max(1) as f64;
    let wrap = |content: &[u32]| {
        let mut ids = prefix.clone();
        ids.extend_from_slice(content);
        ids.extend_from_slice(&suffix);
        ids
    };
    let max = model.config.max_len;
    if unknown <= MAX_UNKNOWN {
        let positions = TEXT_TOKENS.min(max);
        let content = positions.saturating_sub(specials);
        if content < 2 {
            return Err(format!(
                "{} takes {max} tokens: too few for a passage",
                model.config.name
            ));
        }
        let inputs = encoded
            .ids
            .chunks_exact(content)
            .take(CHUNKS)
            .map(|c| input(model, wrap(c), &template))
            .collect();
        return Ok(ProbeInputs {
            source: Source::Text,
            positions,
            inputs,
        });
    }
    let special = model.tokenizer.specials();
    let reserved = [
        special.pad,
        special.bos,
        special.eos,
        special.unk,
        special.cls,
        special.sep,
        special.mask,
    ];
    let symbols: Vec<u32> = (0..model.config.vocab_size() as u32)
        .filter(|id| !reserved.contains(&Some(*id)))
        .collect();
    let positions = SYMBOL_TOKENS.min(max);
    let content = positions.saturating_sub(specials);
    if symbols.len() < 2 || content < 2 {
        return Err(format!(
            "{} has too few symbols or too short an input for the probe",
            model.config.name
        ));
    }
    let mut rng = Rng::new(seed);
    let inputs = (0..CHUNKS)
        .map(|_| {
            let c: Vec<u32> = (0..content)
                .map(|_| symbols[rng.below(symbols.len())])
                .collect();
            input(model, wrap(&c), &template)
        })
        .collect();
    Ok(ProbeInputs {
        source: Source::Symbols,
        positions,
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    /// The character model reads the text, 32 tokens a chunk after its `<bos>`; the reverse
    /// model gets random letters, 8 a chunk; every chunk runs.
    #[test]
    fn text_for_a_model_that_reads_it_symbols_otherwise() {
        let lm = builtin::load("lm").unwrap();
        let p = probe_inputs(&lm, 1).unwrap();
        assert_eq!(
            (p.source, p.positions, p.inputs.len()),
            (Source::Text, 32, 96)
        );
        assert!(p
            .inputs
            .iter()
            .all(|i| i.target.len() == 32 && i.target[0] == 1));
        let reverse = builtin::load("reverse").unwrap();
        let p = probe_inputs(&reverse, 1).unwrap();
        assert_eq!((p.source, p.positions), (Source::Symbols, 8));
        assert!(p
            .inputs
            .iter()
            .all(|i| i.source.len() == 8 && i.source.iter().all(|&s| s > 3)));
        assert!(reverse.forward(&p.inputs[0], &Default::default()).is_ok());
    }
}
