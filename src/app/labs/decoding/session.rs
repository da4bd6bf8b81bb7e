//! The search being shown: the settings it was built from, its source of probabilities, and
//! the beam tree so far. Rebuilt from scratch whenever a setting changes; "back" replays.

use super::pass_slot::PassSlot;
use crate::app::models::store::ModelStore;
use crate::decode::beam::most_likely;
use crate::decode::source::Work;
use crate::decode::{BeamConfig, BeamSearch, ModelSource, Source, TableSource};
use crate::model::builtin;
use crate::model::tokenizer::BOS;
use crate::model::Model;
use crate::t;
use std::collections::HashMap;
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

    /// The source's name on its chip, in the reader's language.
    pub fn label(self) -> String {
        match self {
            SourceKind::Translate => t!("decoding-source-translate"),
            SourceKind::Lm => t!("decoding-source-lm"),
            SourceKind::Table => t!("decoding-source-table"),
            SourceKind::Picked => t!("decoding-source-picked"),
        }
    }

    /// The chip's name for the test probe (`decoding:typed table`): the English label, the
    /// same in every language.
    pub fn probe_name(self) -> &'static str {
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
    /// The store's name for the source's model (none for a typed table).
    pub fn model_name(&self) -> Option<&str> {
        match self.kind {
            SourceKind::Picked => Some(&self.picked_model),
            kind => kind.model_name(),
        }
    }

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
        let none = || Err(t!("decoding-error-not-loaded"));
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
            picked: Err(t!("decoding-error-no-model")),
        }
    }

    pub fn get(&self, kind: SourceKind) -> Result<&Arc<Model>, String> {
        let slot = match kind {
            SourceKind::Translate => &self.translate,
            SourceKind::Lm => &self.lm,
            SourceKind::Picked => &self.picked,
            SourceKind::Table => return Err(t!("decoding-error-table-model")),
        };
        slot.as_ref().map_err(Clone::clone)
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
    // Shared, not copied: SmolLM2's weights are 93 MiB.
    let model = Arc::clone(models.get(settings.kind)?);
    if !model.config.family.has_decoder() {
        return Err(t!("decoding-error-encoder", model = &model.config.name));
    }
    let prepared = model.prepare(text, "");
    if prepared.unknown > 0 {
        return Err(t!(
            "decoding-error-unknown",
            count = prepared.unknown,
            model = &model.config.name
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
        return Err(t!(
            "decoding-error-prompt-fills",
            count = model.config.max_len
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

/// Greedy decoding's tokens (as shown) and cumulative log p.
pub type GreedyResult = Result<(Vec<String>, f32), String>;

/// A beam search under way, with everything needed to replay it. On a large model every
/// hypothesis a step expands costs a forward pass, so the work comes in units (one pass
/// each) that the lab spreads over frames: a step's hypotheses one at a time, then the step
/// itself from the remembered results, and greedy decoding a token at a time beside it.
pub struct Search {
    pub settings: Settings,
    pub built: Built,
    pub beam: BeamSearch,
    /// An error from the source while stepping (the search stops there).
    pub error: Option<String>,
    /// Greedy decoding with the same source settings, once it has run to its end.
    pub greedy: Option<GreedyResult>,
    greedy_run: Option<GreedyRun>,
    /// Steps asked for and not taken yet.
    pub pending: usize,
    /// log p(next | prefix) for every prefix computed so far: a step takes its hypotheses'
    /// from here, and going back replays from here without a pass.
    memo: HashMap<Vec<u32>, Vec<f32>>,
    /// The hypothesis pass running off the page's thread, if any.
    slot: PassSlot,
}

impl Search {
    /// A search at step 0; nothing is computed yet.
    pub fn new(settings: &Settings, models: &Models) -> Result<Self, String> {
        let built = build(settings, models, settings.temperature, settings.use_cache)?;
        let config = BeamConfig {
            width: settings.width,
            alpha: settings.alpha,
            max_len: built.max_len,
        };
        let beam = BeamSearch::new(built.source.as_ref(), config, &built.prompt);
        let fresh = build(settings, models, settings.temperature, settings.use_cache)?;
        Ok(Self {
            settings: settings.clone(),
            built,
            beam,
            error: None,
            greedy: None,
            greedy_run: Some(GreedyRun::new(fresh)),
            pending: 0,
            memo: HashMap::new(),
            slot: PassSlot::default(),
        })
    }

    /// Take over what `old` (the same settings) computed: its passes and its greedy run.
    pub fn reuse(&mut self, old: Search) {
        if old.settings == self.settings {
            self.memo = old.memo;
            self.greedy = old.greedy;
            self.greedy_run = old.greedy_run;
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.beam.candidates.len()
    }

    pub fn done(&self) -> bool {
        self.beam.done || self.error.is_some()
    }

    /// Work is left: a step asked for, or greedy decoding.
    pub fn busy(&self) -> bool {
        (self.pending > 0 && !self.done()) || self.greedy_run.is_some()
    }

    /// The pending step's hypotheses computed so far, and how many it expands.
    pub fn computing(&self) -> Option<(usize, usize)> {
        (self.pending > 0 && !self.done()).then(|| {
            let live = self.live_prefixes();
            let ready = live.iter().filter(|p| self.memo.contains_key(*p)).count();
            (ready, live.len())
        })
    }

    /// Tokens greedy decoding has chosen so far, while it runs.
    pub fn greedy_so_far(&self) -> Option<usize> {
        self.greedy_run.as_ref().map(|g| g.steps.len())
    }

    fn live_prefixes(&self) -> Vec<Vec<u32>> {
        self.beam
            .live()
            .into_iter()
            .map(|n| self.prefix(n))
            .collect()
    }

    /// One unit of the pending step: a hypothesis's pass, or the step once all are there.
    /// False when no step is pending, or (`here` false) while the pass runs elsewhere.
    fn beam_unit(&mut self, here: bool) -> bool {
        if self.done() {
            self.pending = 0;
        }
        if self.pending == 0 {
            return false;
        }
        if let Some(prefix) = self
            .live_prefixes()
            .into_iter()
            .find(|p| !self.memo.contains_key(p))
        {
            let source = self.built.source.as_mut();
            let Some(answer) = self.slot.log_probs(source, &prefix, here) else {
                return false;
            };
            match answer {
                Ok(lp) => {
                    self.memo.insert(prefix, lp);
                }
                Err(e) => self.error = Some(e),
            }
            return true;
        }
        let mut source = Remembered {
            source: self.built.source.as_mut(),
            memo: &self.memo,
        };
        if let Err(e) = self.beam.step(&mut source, &self.built.prompt) {
            self.error = Some(e);
        }
        self.pending -= 1;
        true
    }

    /// One token of greedy decoding; false once it has finished, or (`here` false) while its
    /// pass runs elsewhere.
    fn greedy_unit(&mut self, here: bool) -> bool {
        let Some(run) = self.greedy_run.as_mut() else {
            return false;
        };
        let unit = if here {
            run.unit().map(Some)
        } else {
            run.unit_or_wait()
        };
        match unit {
            Ok(None) => return false,
            Ok(Some(true)) => {}
            Ok(Some(false)) => {
                self.greedy = Some(Ok(run.result()));
                self.greedy_run = None;
            }
            Err(e) => {
                self.greedy = Some(Err(e));
                self.greedy_run = None;
            }
        }
        true
    }

    /// One unit of work, here and now (the pending step first); false when nothing is left.
    pub fn work(&mut self) -> bool {
        self.beam_unit(true) || self.greedy_unit(true)
    }

    /// Units of work until `budget` is spent (at least one) or nothing is left; in the
    /// threaded browser build the passes run on the engine, and this frame takes what they
    /// have answered and hands out the next.
    pub fn advance(&mut self, budget: web_time::Duration) {
        crate::app::models::running::within(budget, || {
            self.beam_unit(false) || self.greedy_unit(false)
        });
    }

    /// One whole step now; false when there was nothing left to do.
    pub fn step(&mut self) -> bool {
        if self.done() {
            return false;
        }
        let before = self.steps();
        self.pending += 1;
        while self.beam_unit(true) {}
        self.steps() > before
    }

    /// Every step to the end, and greedy decoding.
    pub fn run_to_end(&mut self) {
        while self.step() {}
        while self.work() {}
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

/// A source answering from remembered results first.
struct Remembered<'a> {
    source: &'a mut dyn Source,
    memo: &'a HashMap<Vec<u32>, Vec<f32>>,
}

impl Source for Remembered<'_> {
    fn vocab_size(&self) -> usize {
        self.source.vocab_size()
    }
    fn token(&self, id: u32) -> String {
        self.source.token(id)
    }
    fn bos(&self) -> u32 {
        self.source.bos()
    }
    fn eos(&self) -> u32 {
        self.source.eos()
    }
    fn log_probs(&mut self, prefix: &[u32]) -> Result<Vec<f32>, String> {
        match self.memo.get(prefix) {
            Some(lp) => Ok(lp.clone()),
            None => self.source.log_probs(prefix),
        }
    }
}

/// One token of greedy decoding: the token, its log p, the work the source did for it, and
/// the length of the prefix it was fed.
pub struct GreedyStep {
    pub id: u32,
    pub log_p: f32,
    pub work: Work,
    pub fed: usize,
}

/// Greedy decoding a token (a pass) at a time (`decode::beam::greedy` with one token per
/// call): the search's greedy column and the KV-cache comparison's two runs.
pub struct GreedyRun {
    pub built: Built,
    prefix: Vec<u32>,
    pub steps: Vec<GreedyStep>,
    over: bool,
    slot: PassSlot,
}

impl GreedyRun {
    pub fn new(built: Built) -> Self {
        Self {
            prefix: built.prompt.clone(),
            built,
            steps: Vec::new(),
            over: false,
            slot: PassSlot::default(),
        }
    }

    /// The next token, here and now; false once the run has ended (the length reached,
    /// `<eos>` chosen, or no token possible).
    pub fn unit(&mut self) -> Result<bool, String> {
        self.next(true).map(|token| token.unwrap_or(true))
    }

    /// The next token where its pass runs off the page's thread: `None` while it runs.
    pub fn unit_or_wait(&mut self) -> Result<Option<bool>, String> {
        self.next(false)
    }

    fn next(&mut self, here: bool) -> Result<Option<bool>, String> {
        if self.over || self.steps.len() >= self.built.max_len {
            self.over = true;
            return Ok(Some(false));
        }
        let src = self.built.source.as_mut();
        // Before the answer is taken in: the work it adds is this token's.
        let before = src.work();
        let Some(log_probs) = self.slot.log_probs(src, &self.prefix, here) else {
            return Ok(None);
        };
        let log_probs = log_probs?;
        let Some((id, log_p)) = most_likely(&log_probs) else {
            self.over = true;
            return Ok(Some(false));
        };
        let after = src.work();
        self.steps.push(GreedyStep {
            id,
            log_p,
            work: Work {
                calls: after.calls - before.calls,
                positions: after.positions - before.positions,
                seconds: after.seconds - before.seconds,
            },
            fed: self.prefix.len(),
        });
        self.prefix.push(id);
        self.over = id == src.eos();
        Ok(Some(true))
    }

    /// The tokens as the source shows them, and their cumulative log p.
    pub fn result(&self) -> (Vec<String>, f32) {
        let tokens = self
            .steps
            .iter()
            .map(|s| self.built.source.token(s.id))
            .collect();
        (tokens, self.steps.iter().fold(0.0, |cum, s| cum + s.log_p))
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
mod tests;
