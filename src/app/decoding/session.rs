//! The search being shown: the settings it was built from, its source of probabilities, and
//! the beam tree so far. Rebuilt from scratch whenever a setting changes; "back" replays.

use crate::app::store::ModelStore;
use crate::decode::beam::greedy;
use crate::decode::{BeamConfig, BeamSearch, ModelSource, Source, TableSource};
use crate::model::builtin;
use crate::model::tokenizer::BOS;
use crate::model::Model;
use std::sync::Arc;

/// Where next-token probabilities come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Translate,
    Lm,
    Table,
    /// The model picked in the top bar (a decoder LM: a built-in or an opened checkpoint).
    Picked,
}

impl SourceKind {
    pub const ALL: [SourceKind; 4] = [
        SourceKind::Translate,
        SourceKind::Lm,
        SourceKind::Table,
        SourceKind::Picked,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SourceKind::Translate => "translation model",
            SourceKind::Lm => "character LM",
            SourceKind::Table => "typed table",
            SourceKind::Picked => "the picked model",
        }
    }

    /// The built-in model behind it.
    pub fn model_name(self) -> Option<&'static str> {
        match self {
            SourceKind::Translate => Some("translate"),
            SourceKind::Lm => Some("lm"),
            SourceKind::Table | SourceKind::Picked => None,
        }
    }
}

/// Everything a search depends on; a change starts it again.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub kind: SourceKind,
    /// The sentence the translation model translates.
    pub translate_text: String,
    /// The text the character LM continues.
    pub lm_text: String,
    /// The typed table of next-token probabilities.
    pub table_text: String,
    /// The prompt the picked model continues, and that model's name (a new pick rebuilds).
    pub picked_text: String,
    pub picked_model: String,
    pub width: usize,
    pub alpha: f32,
    pub max_len: usize,
    pub temperature: f32,
    pub use_cache: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            kind: SourceKind::Translate,
            translate_text: builtin::info("translate")
                .map_or("la zone économique européenne", |i| i.example_source)
                .to_string(),
            lm_text: "the cat ".into(),
            table_text: crate::decode::table::TEXTBOOK.into(),
            picked_text: "The capital of France is".into(),
            picked_model: String::new(),
            width: 3,
            alpha: 0.0,
            max_len: 12,
            temperature: 1.0,
            use_cache: true,
        }
    }
}

impl Settings {
    /// The text box of the current source.
    pub fn text(&self) -> &str {
        match self.kind {
            SourceKind::Translate => &self.translate_text,
            SourceKind::Lm => &self.lm_text,
            SourceKind::Table => &self.table_text,
            SourceKind::Picked => &self.picked_text,
        }
    }

    pub fn text_mut(&mut self) -> &mut String {
        match self.kind {
            SourceKind::Translate => &mut self.translate_text,
            SourceKind::Lm => &mut self.lm_text,
            SourceKind::Table => &mut self.table_text,
            SourceKind::Picked => &mut self.picked_text,
        }
    }
}

/// The two built-in models, as the store handed them out.
pub struct Models {
    translate: Result<Arc<Model>, String>,
    lm: Result<Arc<Model>, String>,
    /// The shared model (set by the lab each frame from the workbench).
    pub picked: Result<Arc<Model>, String>,
}

impl Default for Models {
    /// Nothing yet: the lab takes its models from the store when it first draws.
    fn default() -> Self {
        let none = || Err("the model is not loaded yet".to_string());
        Self {
            translate: none(),
            lm: none(),
            picked: none(),
        }
    }
}

impl Models {
    pub fn from_store(store: &ModelStore) -> Self {
        let get = |kind: SourceKind| store.get(kind.model_name().unwrap_or_default());
        Self {
            translate: get(SourceKind::Translate),
            lm: get(SourceKind::Lm),
            picked: Err("no model picked".into()),
        }
    }

    pub fn get(&self, kind: SourceKind) -> Result<&Model, String> {
        let slot = match kind {
            SourceKind::Translate => &self.translate,
            SourceKind::Lm => &self.lm,
            SourceKind::Picked => &self.picked,
            SourceKind::Table => return Err("a typed table has no model".into()),
        };
        slot.as_deref().map_err(Clone::clone)
    }
}

/// A source of probabilities with the prompt its hypotheses start from.
pub struct Built {
    pub source: Box<dyn Source>,
    /// `<bos>` (and, for the LM, the typed text).
    pub prompt: Vec<u32>,
    /// The encoder's input ids (translation only), for the attention view.
    pub encoder: Vec<u32>,
    /// Most tokens that can be generated: the setting, or less where the model's length ends.
    pub max_len: usize,
}

/// A fresh source for `settings`, with its own temperature and cache choice.
pub fn build(
    settings: &Settings,
    models: &Models,
    temperature: f32,
    use_cache: bool,
) -> Result<Built, String> {
    let text = settings.text();
    if settings.kind == SourceKind::Table {
        let source = TableSource::parse(text, temperature)?;
        return Ok(Built {
            source: Box::new(source),
            prompt: vec![BOS],
            encoder: vec![],
            max_len: settings.max_len,
        });
    }
    let model = models.get(settings.kind)?.clone();
    if !model.config.family.has_decoder() {
        return Err(format!(
            "{} is an encoder: it scores every token at once and predicts no next token; pick a decoder LM (SmolLM2, lm) in the top bar",
            model.config.name
        ));
    }
    let prepared = model.prepare(text, "");
    if prepared.unknown > 0 {
        return Err(format!(
            "{} piece(s) of the text are not in {}'s vocabulary",
            prepared.unknown, model.config.name
        ));
    }
    let prompt = if model.config.family.has_encoder() {
        vec![BOS]
    } else {
        prepared.input.target
    };
    // The last prefix fed to the model must fit its positions.
    let room = (model.config.max_len + 1).saturating_sub(prompt.len());
    if room == 0 {
        return Err(format!(
            "the prompt fills all {} positions of the model",
            model.config.max_len
        ));
    }
    let source = ModelSource::new(model, text, temperature, use_cache)?;
    Ok(Built {
        encoder: source.source_ids().to_vec(),
        source: Box::new(source),
        prompt,
        max_len: settings.max_len.min(room),
    })
}

/// A beam search under way, with everything needed to replay it.
pub struct Search {
    pub settings: Settings,
    pub built: Built,
    pub beam: BeamSearch,
    /// An error from the source while stepping (the search stops there).
    pub error: Option<String>,
    /// Greedy decoding with the same source settings: its tokens and cumulative log p.
    pub greedy: Result<(Vec<String>, f32), String>,
}

impl Search {
    pub fn new(settings: &Settings, models: &Models) -> Result<Self, String> {
        let built = build(settings, models, settings.temperature, settings.use_cache)?;
        let config = BeamConfig {
            width: settings.width,
            alpha: settings.alpha,
            max_len: built.max_len,
        };
        let beam = BeamSearch::new(built.source.as_ref(), config, &built.prompt);
        let mut fresh = build(settings, models, settings.temperature, settings.use_cache)?;
        let greedy = greedy(fresh.source.as_mut(), &fresh.prompt, fresh.max_len)
            .map(|(ids, cum)| (ids.iter().map(|&t| fresh.source.token(t)).collect(), cum));
        Ok(Self {
            settings: settings.clone(),
            built,
            beam,
            error: None,
            greedy,
        })
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.beam.candidates.len()
    }

    pub fn done(&self) -> bool {
        self.beam.done || self.error.is_some()
    }

    /// One step of the search; false when there was nothing left to do.
    pub fn step(&mut self) -> bool {
        if self.done() {
            return false;
        }
        match self
            .beam
            .step(self.built.source.as_mut(), &self.built.prompt)
        {
            Ok(_) => true,
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    pub fn run_to_end(&mut self) {
        while self.step() {}
    }

    /// The prefix ids of a node, prompt included.
    pub fn prefix(&self, node: usize) -> Vec<u32> {
        self.beam.prefix(&self.built.prompt, node)
    }

    /// The generated text of a node, tokens joined as the source writes them.
    pub fn hypothesis(&self, node: usize) -> String {
        join(self.settings.kind, &self.beam.tokens(node))
    }
}

/// Tokens as one string: the character LM's characters run together, words get spaces.
pub fn join(kind: SourceKind, tokens: &[String]) -> String {
    // Characters and sub-word pieces (which carry their own spaces) run together.
    let sep = if matches!(kind, SourceKind::Lm | SourceKind::Picked) {
        ""
    } else {
        " "
    };
    tokens.join(sep)
}

/// A search for `settings` that has taken `steps` steps (the engine is deterministic, so
/// going back is replaying one step fewer).
pub fn replay(settings: &Settings, models: &Models, steps: usize) -> Result<Search, String> {
    let mut s = Search::new(settings, models)?;
    for _ in 0..steps {
        if !s.step() {
            break;
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(width: usize) -> Settings {
        Settings {
            kind: SourceKind::Table,
            width,
            ..Default::default()
        }
    }

    #[test]
    fn the_textbook_table_beats_greedy_in_three_steps() {
        let models = Models::from_store(&ModelStore::default());
        let mut s = Search::new(&table(2), &models).unwrap();
        for _ in 0..3 {
            assert!(s.step());
        }
        assert!(s.done() && !s.step());
        let best = s.beam.ranking()[0];
        assert_eq!(s.hypothesis(best), "a cat <eos>");
        assert_eq!(s.greedy.as_ref().unwrap().0.join(" "), "the cat <eos>");
        let back = replay(&table(2), &models, 2).unwrap();
        assert_eq!(back.steps(), 2);
    }

    #[test]
    fn the_lm_prompt_keeps_the_search_inside_the_model() {
        let models = Models::from_store(&ModelStore::default());
        let settings = Settings {
            kind: SourceKind::Lm,
            max_len: 30,
            width: 2,
            ..Default::default()
        };
        let mut s = Search::new(&settings, &models).unwrap();
        assert_eq!(s.built.prompt[0], BOS);
        s.run_to_end();
        assert!(s.error.is_none(), "{:?}", s.error);
        assert!(!s.beam.ranking().is_empty());
    }

    #[test]
    fn bad_text_is_an_error() {
        let models = Models::from_store(&ModelStore::default());
        let bad = Settings {
            table_text: "<bos> the 0.5".into(),
            ..table(2)
        };
        assert!(Search::new(&bad, &models).is_err());
        let empty = Settings {
            translate_text: String::new(),
            ..Default::default()
        };
        assert!(Search::new(&empty, &models).is_err());
    }
}
