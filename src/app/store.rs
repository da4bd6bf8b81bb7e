//! One model store: every model the app shows is loaded here once and handed out shared, and
//! forward passes are memoised by exactly what they depend on (the model, the input ids and
//! the options), so a frame that changes nothing runs no forward pass.
//!
//! A model is `Ready`, `Failed` (the reason is shown where the model would be) or `Loading`
//! (bytes so far, for checkpoints that arrive over the network or from a dropped file).

use super::loading::{Fetch, Loader, Payload};
use super::sources::{self, Source};
use crate::model::import::open::CheckpointInfo;
use crate::model::import::{CheckpointFiles, Conversion, Stage};
use crate::model::{builtin, ForwardOptions, Model, ModelInput, Trace};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Where one model is.
#[derive(Clone)]
pub enum ModelState {
    Ready(Arc<Model>),
    Failed(String),
    /// Bytes received so far, of `total` when known.
    Loading {
        received: u64,
        total: Option<u64>,
    },
}

/// Conversion work done per frame: the page keeps drawing and its progress bar moves.
const CONVERSION_BUDGET: web_time::Duration = web_time::Duration::from_millis(25);

/// "expanding tensors to f32 (37 of 210)".
pub fn stage_text(s: &Stage) -> String {
    if s.total > 1 {
        format!("{} ({} of {})", s.what, s.done, s.total)
    } else {
        s.what.to_string()
    }
}

/// Traces kept: enough for the most forward passes one view runs per frame (the padding
/// batch runs two per sentence), so drawing a view again never recomputes.
const MEMO_CAPACITY: usize = 24;

/// Models from this many parameters (SmolLM2's 135 M; not MiniLM's 23 M, whose pass takes a
/// few frames at most) run the passes the labs ask the store for a slice a frame in the browser.
const SLICED_FROM_PARAMETERS: usize = 50_000_000;

/// Passes under way at most: a view asks for two or three at once (a mask and its baseline).
const PASSES_UNDER_WAY: usize = 4;

/// How `forward` answers while a pass runs: views show it as progress, not as an error.
const COMPUTING: &str = "computing";

/// How `forward` answers a pass the user cancelled: it starts nothing until asked again after
/// a frame nobody asked for it (the input changed) or until `resume_asked`.
const CANCELLED: &str = "cancelled";

/// Which forward pass: the model's name, the input and the options, and whether its trace
/// keeps every block's intermediates (`forward`) or only the stacks' outputs and the logits
/// (`forward_logits`).
#[derive(Clone, PartialEq)]
struct PassKey {
    model: String,
    input: ModelInput,
    opts: ForwardOptions,
    blocks: bool,
}

impl PassKey {
    fn new(model: &str, input: &ModelInput, opts: &ForwardOptions, blocks: bool) -> Self {
        Self {
            model: model.to_string(),
            input: input.clone(),
            opts: opts.clone(),
            blocks,
        }
    }

    fn is(&self, model: &str, input: &ModelInput, opts: &ForwardOptions, blocks: bool) -> bool {
        self.model == model && self.input == *input && self.opts == *opts && self.blocks == blocks
    }
}

/// A trace without its blocks' intermediates (a traced SmolLM2 pass of 34 tokens took about
/// 52 MB natively, its logits 7 MB of it).
fn without_blocks(mut trace: Trace) -> Trace {
    for stack in [&mut trace.encoder, &mut trace.decoder]
        .into_iter()
        .flatten()
    {
        stack.blocks = Vec::new();
    }
    trace
}

/// A pass a lab asked for, spread over frames.
struct Pass {
    key: PassKey,
    job: crate::model::sliced::SlicedForward,
    /// A view asked for it this frame: it is on screen (it goes first; Cancel stops it).
    asked: bool,
}

/// A pass the user cancelled, and whether a view asked for it this frame (one that no view
/// asks for in a whole frame is forgotten: asked for later, it starts again).
struct Cancelled {
    key: PassKey,
    asked: bool,
}

struct Memo {
    key: PassKey,
    trace: Result<Arc<Trace>, String>,
}

/// Owns every loaded model and the memo of recent forward passes. Shared by reference: labs
/// receive `&ModelStore` each frame and ask it, never the loader.
pub struct ModelStore {
    models: RefCell<HashMap<String, ModelState>>,
    /// What was opened, for models read from checkpoint files (format, size, source).
    infos: RefCell<HashMap<String, CheckpointInfo>>,
    memo: RefCell<VecDeque<Memo>>,
    /// Background fetches and what they report.
    loader: Loader,
    /// Downloaded checkpoints being converted, a few pieces a frame (the browser has one
    /// thread): model name, the conversion, where the files came from.
    converting: RefCell<Vec<(String, Conversion, String)>>,
    /// The stage each frame of a conversion ended on, by model (for the probe: tests check
    /// the progress bar moved frame by frame, however fast the machine).
    conversion_frames: RefCell<HashMap<String, Vec<serde_json::Value>>>,
    /// Passes of large models under way, the oldest first (the oldest one on screen advances
    /// each frame).
    passes: RefCell<VecDeque<Pass>>,
    /// Passes the user cancelled, answered as such while views keep asking for them.
    cancelled: RefCell<Vec<Cancelled>>,
    /// The time a frame gives a pass, and the size of model from which passes are sliced
    /// (the browser's frame budget; none natively, where a pass runs on every core at once).
    slicing: std::cell::Cell<Option<(web_time::Duration, usize)>>,
    /// The hub `hf:` names download from (a link's `hub=` names a mirror).
    hub: RefCell<String>,
    version: std::cell::Cell<u64>,
}

impl Default for ModelStore {
    fn default() -> Self {
        Self {
            models: Default::default(),
            infos: Default::default(),
            memo: Default::default(),
            loader: Default::default(),
            converting: Default::default(),
            conversion_frames: Default::default(),
            passes: Default::default(),
            cancelled: Default::default(),
            slicing: std::cell::Cell::new(
                super::running::FRAME_BUDGET.map(|b| (b, SLICED_FROM_PARAMETERS)),
            ),
            hub: RefCell::new(sources::DEFAULT_HUB.to_string()),
            version: Default::default(),
        }
    }
}

/// A result slot a lab keeps its model in.
pub type Slot = Option<Result<Arc<Model>, String>>;

impl ModelStore {
    /// The model called `name`: a built-in is loaded on first use; a failure is remembered
    /// (and reported again) rather than retried every frame.
    pub fn get(&self, name: &str) -> Result<Arc<Model>, String> {
        match self.state(name) {
            ModelState::Ready(m) => Ok(m),
            ModelState::Failed(e) => Err(e),
            ModelState::Loading { .. } if self.is_converting(name) => {
                let stage = self.conversion_stage(name);
                Err(format!(
                    "converting {name} into Glimpse's tensors: {}…",
                    stage.map_or(String::new(), |s| stage_text(&s))
                ))
            }
            ModelState::Loading { received, total } => Err(match total {
                Some(t) => format!("loading {name} ({received} of {t} bytes)…"),
                None => format!("loading {name}…"),
            }),
        }
    }

    /// `name`'s state, loading it the first time it is asked for: a built-in (in the browser,
    /// fetching a trained one's files first), a served checkpoint, or a hub or URL link.
    pub fn state(&self, name: &str) -> ModelState {
        if let Some(s) = self.models.borrow().get(name) {
            return s.clone();
        }
        let state = match Source::of(name, &self.hub.borrow()) {
            Ok(Source::Builtin) if builtin::needs_files(name) => self.start(name, Fetch::Builtin),
            Ok(Source::Builtin) | Ok(Source::Opened) => match builtin::load(name) {
                Ok(m) => ModelState::Ready(Arc::new(m)),
                Err(e) => ModelState::Failed(format!("{name}: {e}")),
            },
            Ok(Source::Served(s)) => self.open_served(s),
            Ok(Source::Remote(loc)) => self.start(name, Fetch::Remote(loc)),
            Err(e) => ModelState::Failed(e),
        };
        self.insert(name, state.clone());
        state
    }

    /// Every model asked for, by name: its state, and for a ready one its shape. Changes only
    /// when a model is inserted (`version`).
    pub fn summary(&self) -> Vec<serde_json::Value> {
        let models = self.models.borrow();
        let infos = self.infos.borrow();
        let mut names: Vec<&String> = models.keys().collect();
        names.sort();
        names
            .into_iter()
            .map(|name| match &models[name] {
                ModelState::Ready(m) => {
                    let info = infos.get(name.as_str());
                    serde_json::json!({
                        "name": name,
                        "state": "ready",
                        "family": m.config.family.label(),
                        "layers": m.config.n_layers,
                        "heads": m.config.n_heads,
                        "kv_heads": m.config.n_kv_heads,
                        "d_model": m.config.d_model,
                        "parameters": crate::model::weights::parameter_count(&m.config),
                        "source": info.map_or("built in", |i| i.source.as_str()),
                        "format": info.map(|i| i.format.as_str()),
                        "architecture": info.map(|i| i.model_type.as_str()),
                        "memory_bytes": info.map(|i| i.memory_bytes),
                        "conversion_frames": self.conversion_frames.borrow().get(name.as_str()),
                    })
                }
                ModelState::Loading { received, total } => serde_json::json!({
                    "name": name, "state": "loading", "received": received, "total": total,
                    "converting": self.conversion_stage(name),
                }),
                ModelState::Failed(e) => serde_json::json!({
                    "name": name, "state": "failed", "error": e,
                }),
            })
            .collect()
    }

    /// Goes up by one whenever a model is inserted: what the probe publishes changed.
    pub fn version(&self) -> u64 {
        self.version.get()
    }

    /// Models opened from files or links (not built in, not served) that are ready, by name.
    pub fn opened(&self) -> Vec<String> {
        let models = self.models.borrow();
        let mut names: Vec<String> = models
            .iter()
            .filter(|(n, s)| {
                builtin::info(n).is_none()
                    && sources::served(n).is_none()
                    && matches!(s, ModelState::Ready(_))
            })
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    }

    /// Whether `name` can be asked for: a built-in, a served checkpoint, a hub or URL link
    /// (one that cannot be read fails with the reason), or a model in the store.
    pub fn knows(&self, name: &str) -> bool {
        self.models.borrow().contains_key(name)
            || !matches!(Source::of(name, &self.hub.borrow()), Ok(Source::Opened))
    }

    /// What was opened for `name`, when it came from checkpoint files.
    pub fn info(&self, name: &str) -> Option<CheckpointInfo> {
        self.infos.borrow().get(name).cloned()
    }

    /// The hub `hf:` names download from.
    pub fn hub(&self) -> String {
        self.hub.borrow().clone()
    }

    /// Download `hf:` names from `base` (a mirror); `Err` says why it is not a web address.
    pub fn set_hub(&self, base: &str) -> Result<(), String> {
        *self.hub.borrow_mut() = sources::web_base(base)?;
        Ok(())
    }

    /// Forget that `name` failed, so asking for it again tries again.
    pub fn retry(&self, name: &str) {
        let failed = matches!(self.models.borrow().get(name), Some(ModelState::Failed(_)));
        if failed {
            self.models.borrow_mut().remove(name);
        }
    }

    /// The served checkpoints present (beside the app, or in the model cache natively), with
    /// their download sizes.
    pub fn served(&self) -> Vec<(&'static sources::ServedModel, u64)> {
        self.loader.served()
    }

    /// Whether `name` is on its way (its files are being fetched).
    pub fn is_loading(&self, name: &str) -> bool {
        matches!(self.state(name), ModelState::Loading { .. })
    }

    /// The model in a lab's `slot`, asked for again until it is there (a model still loading
    /// arrives a few frames later).
    pub fn keep<'s>(&self, slot: &'s mut Slot, name: &str) -> &'s Result<Arc<Model>, String> {
        let model = match slot.take() {
            Some(Ok(m)) => Ok(m),
            _ => self.get(name),
        };
        slot.insert(model)
    }

    /// Fetch the small trained built-ins in the background (the browser: the service worker
    /// keeps them for offline use; natively they are compiled in), and learn which served
    /// checkpoints there are. The larger ones wait until they are chosen.
    pub fn prefetch_builtins(&self, ctx: &egui::Context) {
        self.loader.set_repaint(ctx);
        for name in builtin::TRAINED {
            if builtin::needs_files(name) && !builtin::ON_DEMAND.contains(&name) {
                self.state(name);
            }
        }
        self.loader.look_for_served();
    }

    /// Start fetching `name`: it is loading until its files arrive.
    fn start(&self, name: &str, fetch: Fetch) -> ModelState {
        self.loader.start(name, fetch);
        ModelState::Loading {
            received: 0,
            total: None,
        }
    }

    /// A served checkpoint: downloaded from beside the app in the browser, read from the
    /// model cache natively.
    fn open_served(&self, s: &'static sources::ServedModel) -> ModelState {
        #[cfg(target_arch = "wasm32")]
        {
            self.start(s.name, Fetch::Remote(Source::served_location(s)))
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            use crate::model::import::open::open_path;
            let Some(path) = super::loading::cached_path(s) else {
                return ModelState::Failed(format!(
                    "{} is not in the model cache ({}): run scripts/fetch_models.sh",
                    s.name,
                    crate::util::real_models::cache_dir().display()
                ));
            };
            match open_path(&path, &mut |_| {}) {
                Ok((model, info)) => self.ready(s.name, model, info),
                Err(e) => ModelState::Failed(format!("{}: {e}", s.name)),
            }
        }
    }

    /// A model opened from checkpoint files, with what was opened.
    fn ready(&self, name: &str, model: Model, info: CheckpointInfo) -> ModelState {
        self.infos.borrow_mut().insert(name.to_string(), info);
        ModelState::Ready(Arc::new(model))
    }

    /// Open checkpoint files (dropped, picked, passed with `--model`) as `name`; on failure
    /// nothing in the store changes.
    pub fn open_files(
        &self,
        name: &str,
        files: CheckpointFiles,
        source: &str,
    ) -> Result<(), String> {
        let (model, info) = files.open(name, source).map_err(|e| e.to_string())?;
        let state = self.ready(name, model, info);
        self.insert(name, state);
        Ok(())
    }

    /// Put a model opened elsewhere (`glimpse --model PATH`) in the store under `name`.
    pub fn insert_opened(&self, name: &str, model: Model, info: CheckpointInfo) {
        let state = self.ready(name, model, info);
        self.insert(name, state);
    }

    /// The files of `name` have arrived and are being converted.
    pub fn is_converting(&self, name: &str) -> bool {
        self.converting.borrow().iter().any(|(n, ..)| n == name)
    }

    /// How far the conversion of `name` has got.
    pub fn conversion_stage(&self, name: &str) -> Option<Stage> {
        self.converting
            .borrow()
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, c, _)| c.stage())
    }

    /// Turn finished fetches into models, and copy download progress into the states (the
    /// app calls it every frame, so a model that arrives is ready and reported even when no
    /// view asks for it that frame).
    pub fn take_arrivals(&self) {
        self.advance_pass();
        self.new_frame();
        for (name, received, total) in self.loader.progress() {
            let changed = match self.models.borrow().get(&name) {
                Some(ModelState::Loading {
                    received: r,
                    total: t,
                }) => (*r, *t) != (received, total),
                _ => false,
            };
            if changed {
                self.models
                    .borrow_mut()
                    .insert(name, ModelState::Loading { received, total });
                self.version.set(self.version.get() + 1);
            }
        }
        let due: Vec<_> = self.converting.borrow_mut().drain(..).collect();
        let start = web_time::Instant::now();
        for (name, mut conversion, source) in due {
            let mut finished = None;
            // The frame's longest piece and the stage it started from (for the probe).
            let mut longest = (0.0f64, conversion.stage());
            while finished.is_none() && start.elapsed() < CONVERSION_BUDGET {
                let (before, t0) = (conversion.stage(), web_time::Instant::now());
                finished = conversion.step();
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                if ms > longest.0 {
                    longest = (ms, before);
                }
            }
            // Every frame's work, for the probe: the stage it ended on and its longest piece.
            if let Some(frames) = self.conversion_frames.borrow_mut().get_mut(&name) {
                let s = conversion.stage();
                frames.push(serde_json::json!({
                    "what": s.what, "done": s.done, "total": s.total,
                    "ms": start.elapsed().as_secs_f64() * 1e3,
                    "longest_piece_ms": longest.0,
                    "longest_piece": stage_text(&longest.1),
                }));
            }
            match finished {
                Some(result) => {
                    let state = match result {
                        Ok((model, info)) => self.ready(&name, model, info),
                        Err(e) => ModelState::Failed(format!("{source}: {e}")),
                    };
                    self.insert(&name, state);
                }
                None => {
                    self.converting
                        .borrow_mut()
                        .push((name, conversion, source));
                    // The probe and the progress bar show the new stage; the next frame goes on.
                    self.version.set(self.version.get() + 1);
                    self.loader.wake();
                }
            }
        }
        for (name, result) in self.loader.arrivals() {
            let state = match result {
                Ok(Payload::Builtin) => match builtin::load(&name) {
                    Ok(m) => ModelState::Ready(Arc::new(m)),
                    Err(e) => ModelState::Failed(format!("{name}: {e}")),
                },
                Ok(Payload::Files(files, source)) => {
                    let bytes = files.total_bytes();
                    let conversion = Conversion::new(files, &name, &source);
                    self.conversion_frames
                        .borrow_mut()
                        .insert(name.clone(), Vec::new());
                    self.converting
                        .borrow_mut()
                        .push((name.clone(), conversion, source));
                    self.loader.wake();
                    ModelState::Loading {
                        received: bytes,
                        total: Some(bytes),
                    }
                }
                Err(e) if builtin::info(&name).is_some() => {
                    ModelState::Failed(format!("{name}: {e}"))
                }
                Err(e) => ModelState::Failed(e),
            };
            self.insert(&name, state);
        }
    }

    /// Put a model (or its progress, or why it failed) under `name`, replacing what was there
    /// and forgetting traces of the old one.
    pub fn insert(&self, name: &str, state: ModelState) {
        self.memo.borrow_mut().retain(|m| m.key.model != name);
        self.passes.borrow_mut().retain(|p| p.key.model != name);
        self.cancelled.borrow_mut().retain(|c| c.key.model != name);
        self.models.borrow_mut().insert(name.to_string(), state);
        self.version.set(self.version.get() + 1);
    }

    /// The forward pass of model `name` on `input`, computed once per distinct
    /// (model, input, options) among the recent ones.
    pub fn forward(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
    ) -> Result<Arc<Trace>, String> {
        self.pass(name, input, opts, true)
    }

    /// The same pass for a caller that reads only the logits (and the stacks' outputs): the
    /// memo keeps no block's intermediates for it (the heads lab scores hundreds of passes).
    pub fn forward_logits(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
    ) -> Result<Arc<Trace>, String> {
        self.pass(name, input, opts, false)
    }

    fn pass(
        &self,
        name: &str,
        input: &ModelInput,
        opts: &ForwardOptions,
        blocks: bool,
    ) -> Result<Arc<Trace>, String> {
        let cached = self
            .memo
            .borrow()
            .iter()
            .find(|m| m.key.is(name, input, opts, blocks))
            .map(|m| m.trace.clone());
        if let Some(trace) = cached {
            return trace;
        }
        let key = PassKey::new(name, input, opts, blocks);
        if let Some(answer) = self.was_cancelled(&key) {
            return answer;
        }
        let model = self.get(name)?;
        if let Some(answer) = self.sliced(&key, &model) {
            return answer;
        }
        let trace = model
            .forward(input, opts)
            .map(|t| if blocks { t } else { without_blocks(t) })
            .map(Arc::new)
            .map_err(|e| e.to_string());
        self.remember(key, trace.clone());
        trace
    }

    fn remember(&self, key: PassKey, trace: Result<Arc<Trace>, String>) {
        let mut memo = self.memo.borrow_mut();
        if memo.len() == MEMO_CAPACITY {
            memo.pop_front();
        }
        memo.push_back(Memo { key, trace });
    }

    /// A large model's pass in the browser: started (or found under way) and answered with
    /// its progress; `None` where passes run whole.
    fn sliced(&self, key: &PassKey, model: &Arc<Model>) -> Option<Result<Arc<Trace>, String>> {
        let (_, from) = self.slicing.get()?;
        if crate::model::weights::parameter_count(&model.config) < from {
            return None;
        }
        let mut passes = self.passes.borrow_mut();
        let progress = |job: &crate::model::sliced::SlicedForward| {
            Err(format!(
                "{COMPUTING} {}: step {} of {}…",
                key.model,
                job.steps_done(),
                job.steps()
            ))
        };
        if let Some(p) = passes.iter_mut().find(|p| p.key == *key) {
            p.asked = true;
            return Some(progress(&p.job));
        }
        let job =
            match crate::model::sliced::SlicedForward::new(model.clone(), &key.input, &key.opts) {
                Ok(job) => job,
                Err(e) => return Some(Err(e.to_string())),
            };
        let answer = progress(&job);
        if passes.len() == PASSES_UNDER_WAY {
            // The oldest no view asks for any more makes room; else the oldest.
            let stale = passes.iter().position(|p| !p.asked).unwrap_or(0);
            passes.remove(stale);
        }
        passes.push_back(Pass {
            key: key.clone(),
            job,
            asked: true,
        });
        self.loader.wake();
        Some(answer)
    }

    /// This frame's slice of the oldest pass a view asked for last frame (else the oldest:
    /// a view left behind does not hold up the one on screen); its trace goes to the memo
    /// when done.
    fn advance_pass(&self) {
        super::probe::publish_store_passes(self.passes.borrow().len());
        let Some((budget, _)) = self.slicing.get() else {
            return;
        };
        let (at, pass) = {
            let mut passes = self.passes.borrow_mut();
            let at = passes.iter().position(|p| p.asked).unwrap_or(0);
            (at, passes.remove(at))
        };
        let Some(mut pass) = pass else {
            return;
        };
        let done = match pass.job.run_for(budget) {
            Ok(None) => {
                self.passes.borrow_mut().insert(at, pass);
                self.loader.wake();
                return;
            }
            Ok(Some(trace)) if pass.key.blocks => Ok(Arc::new(trace)),
            Ok(Some(trace)) => Ok(Arc::new(without_blocks(trace))),
            Err(e) => Err(e.to_string()),
        };
        self.remember(pass.key, done);
        self.version.set(self.version.get() + 1);
        self.loader.wake();
    }

    /// A new frame: what views ask for from now on is what is on screen. A cancelled pass
    /// no view asked for in the frame that ended is forgotten (its input changed, or its view
    /// was left).
    fn new_frame(&self) {
        let mut cancelled = self.cancelled.borrow_mut();
        cancelled.retain(|c| c.asked);
        for c in cancelled.iter_mut() {
            c.asked = false;
        }
        for p in self.passes.borrow_mut().iter_mut() {
            p.asked = false;
        }
    }

    /// The answer for a pass the user cancelled (noting that a view still asks for it).
    fn was_cancelled(&self, key: &PassKey) -> Option<Result<Arc<Trace>, String>> {
        let mut cancelled = self.cancelled.borrow_mut();
        let c = cancelled.iter_mut().find(|c| c.key == *key)?;
        c.asked = true;
        Some(Err(format!(
            "{CANCELLED}: {}'s pass was stopped before it finished",
            key.model
        )))
    }

    /// Cancel: the passes under way that views asked for this frame (those on screen) are
    /// dropped, and answered as cancelled, starting nothing, while views keep asking for them.
    pub fn cancel_asked(&self) {
        let mut passes = self.passes.borrow_mut();
        let (asked, left): (VecDeque<Pass>, VecDeque<Pass>) =
            passes.drain(..).partition(|p| p.asked);
        *passes = left;
        self.cancelled
            .borrow_mut()
            .extend(asked.into_iter().map(|p| Cancelled {
                key: p.key,
                asked: true,
            }));
        super::probe::publish_store_passes(passes.len());
    }

    /// Run again: the cancelled passes views asked for this frame start when next asked for.
    pub fn resume_asked(&self) {
        self.cancelled.borrow_mut().retain(|c| !c.asked);
        self.loader.wake();
    }

    /// Passes under way (started and not finished or cancelled).
    pub fn passes_under_way(&self) -> usize {
        self.passes.borrow().len()
    }

    /// Run passes of models from `from_parameters` parameters a slice of `budget` a frame, as
    /// the browser does (tests).
    #[cfg(test)]
    pub fn slice_passes(&self, budget: web_time::Duration, from_parameters: usize) {
        self.slicing.set(Some((budget, from_parameters)));
    }
}

/// The answer `forward` gives while the pass runs (its progress, not a failure).
pub fn is_computing(e: &str) -> bool {
    e.starts_with(COMPUTING)
}

/// The answer `forward` gives for a pass the user cancelled (not a failure either).
pub fn is_cancelled(e: &str) -> bool {
    e.starts_with(CANCELLED)
}

/// Running or cancelled: a view that keeps what it computed asks again next frame.
pub fn is_unfinished(e: &str) -> bool {
    is_computing(e) || is_cancelled(e)
}

/// A model of the store under its name: derefs to the model, and runs its forward passes
/// through the store's memo.
pub struct Stored<'a> {
    store: &'a ModelStore,
    name: String,
    model: Arc<Model>,
}

impl ModelStore {
    /// `name`'s model, ready to run through the memo.
    pub fn stored(&self, name: &str) -> Result<Stored<'_>, String> {
        Ok(Stored {
            store: self,
            name: name.to_string(),
            model: self.get(name)?,
        })
    }
}

impl Stored<'_> {
    /// The memoised forward pass (shadows `Model::forward`, which always computes).
    pub fn forward(&self, input: &ModelInput, opts: &ForwardOptions) -> Result<Arc<Trace>, String> {
        self.store.forward(&self.name, input, opts)
    }

    /// The store it runs through (for a progress line's Cancel).
    pub fn store(&self) -> &ModelStore {
        self.store
    }
}

impl std::ops::Deref for Stored<'_> {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::AttentionKind;

    #[test]
    fn a_model_is_loaded_once_and_shared() {
        let store = ModelStore::default();
        let a = store.get("reverse").unwrap();
        let b = store.get("reverse").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let err = store.get("no-such-model").unwrap_err();
        assert!(err.contains("no-such-model"), "{err}");
    }

    #[test]
    fn forward_passes_are_memoised_by_model_input_and_options() {
        let store = ModelStore::default();
        let model = store.get("reverse").unwrap();
        let input = model.prepare("abc", "cba").input;
        let opts = ForwardOptions::default();
        let runs = crate::model::transformer::forward_passes_on_this_thread;
        let start = runs();
        let first = store.forward("reverse", &input, &opts).unwrap();
        let again = store.forward("reverse", &input, &opts).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(runs() - start, 1);
        let hotter = ForwardOptions {
            temperature: 2.0,
            ..Default::default()
        };
        store.forward("reverse", &input, &hotter).unwrap();
        let other = model.prepare("abd", "dba").input;
        store.forward("reverse", &other, &opts).unwrap();
        assert_eq!(runs() - start, 3);
        // The memo is the model's own forward pass, not an approximation of it.
        assert_eq!(first.logits, model.forward(&input, &opts).unwrap().logits);
    }

    /// Sliced as in the browser, a pass answers with its progress frame after frame, then
    /// with the very trace a whole pass gives; a small model is not sliced.
    #[test]
    fn a_large_models_pass_runs_a_slice_a_frame_and_ends_in_the_memo() {
        let store = ModelStore::default();
        let model = store.get("reverse").unwrap();
        let input = model.prepare("abcd", "dcba").input;
        let opts = ForwardOptions::default();
        let params = crate::model::weights::parameter_count(&model.config);
        store.slice_passes(web_time::Duration::ZERO, params + 1);
        assert!(
            store.forward("reverse", &input, &opts).is_ok(),
            "below the size: whole"
        );
        let other = model.prepare("abce", "ecba").input;
        store.slice_passes(web_time::Duration::ZERO, params);
        let mut frames = 0;
        let trace = loop {
            match store.forward("reverse", &other, &opts) {
                Ok(t) => break t,
                Err(e) => assert!(is_computing(&e), "{e}"),
            }
            store.take_arrivals();
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        };
        // One block a frame with no time to spare: encoder and decoder blocks, then the output.
        assert!(frames > model.config.n_layers, "{frames} frames");
        let whole = model.forward(&other, &opts).unwrap();
        assert_eq!(trace.logits, whole.logits);
        assert_eq!(
            trace
                .attention(AttentionKind::DecoderSelf, 1)
                .unwrap()
                .weights,
            whole
                .attention(AttentionKind::DecoderSelf, 1)
                .unwrap()
                .weights
        );
    }

    /// Cancel drops the pass a view asked for this frame, and the store answers "cancelled"
    /// for it, starting nothing, frame after frame while the view keeps asking; once a frame
    /// goes by without it (the input changed), asking for it again starts it afresh. A pass no
    /// view asked for that frame is left running.
    #[test]
    fn a_cancelled_pass_is_not_started_again_until_its_key_changes() {
        let store = ModelStore::default();
        let model = store.get("reverse").unwrap();
        let opts = ForwardOptions::default();
        let params = crate::model::weights::parameter_count(&model.config);
        store.slice_passes(web_time::Duration::ZERO, params);
        let (a, b) = (
            model.prepare("abcd", "dcba").input,
            model.prepare("abce", "ecba").input,
        );
        let runs = crate::model::transformer::forward_passes_on_this_thread;
        assert!(is_computing(
            &store.forward("reverse", &b, &opts).unwrap_err()
        ));
        store.take_arrivals();
        // This frame the view asks for `a` only: Cancel stops `a`, not `b`.
        assert!(is_computing(
            &store.forward("reverse", &a, &opts).unwrap_err()
        ));
        assert_eq!(store.passes_under_way(), 2);
        store.cancel_asked();
        assert_eq!(store.passes_under_way(), 1);
        let started = runs();
        for _ in 0..20 {
            let e = store.forward("reverse", &a, &opts).unwrap_err();
            assert!(is_cancelled(&e) && !is_computing(&e), "{e}");
            store.take_arrivals();
        }
        assert_eq!(runs(), started, "a cancelled pass was started again");
        // Meanwhile `b`, not cancelled, ran on to the memo.
        assert_eq!(store.passes_under_way(), 0);
        let whole = model.forward(&b, &opts).unwrap();
        assert_eq!(
            store.forward("reverse", &b, &opts).unwrap().logits,
            whole.logits
        );
        // A frame without `a` (the view moved on to `b`): asked again, `a` starts afresh.
        store.take_arrivals();
        let started = runs();
        assert!(is_computing(
            &store.forward("reverse", &a, &opts).unwrap_err()
        ));
        assert_eq!(runs(), started + 1);
        assert_eq!(store.passes_under_way(), 1);
        // Cancelled again, then Run again: it starts when next asked for, and ends in the memo.
        store.cancel_asked();
        assert!(is_cancelled(
            &store.forward("reverse", &a, &opts).unwrap_err()
        ));
        store.resume_asked();
        let mut frames = 0;
        let trace = loop {
            match store.forward("reverse", &a, &opts) {
                Ok(t) => break t,
                Err(e) => assert!(is_computing(&e), "{e}"),
            }
            store.take_arrivals();
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        };
        assert_eq!(trace.logits, model.forward(&a, &opts).unwrap().logits);
    }

    /// A pass asked for its logits is the same pass, memoised on its own without the blocks'
    /// intermediates, sliced or whole.
    #[test]
    fn a_logits_pass_keeps_no_blocks() {
        let store = ModelStore::default();
        let model = store.get("reverse").unwrap();
        let opts = ForwardOptions::default();
        let input = model.prepare("abcd", "dcba").input;
        let whole = model.forward(&input, &opts).unwrap();
        let params = crate::model::weights::parameter_count(&model.config);
        for from in [params + 1, params] {
            let store = ModelStore::default();
            store.slice_passes(web_time::Duration::ZERO, from);
            let mut frames = 0;
            let logits = loop {
                match store.forward_logits("reverse", &input, &opts) {
                    Ok(t) => break t,
                    Err(e) => assert!(is_computing(&e), "{e}"),
                }
                store.take_arrivals();
                frames += 1;
                assert!(frames < 100, "still computing after {frames} frames");
            };
            assert_eq!(frames > 0, from == params, "sliced only from its size");
            assert_eq!(logits.logits, whole.logits);
            for (kept, full) in [
                (&logits.encoder, &whole.encoder),
                (&logits.decoder, &whole.decoder),
            ] {
                let (kept, full) = (kept.as_ref().unwrap(), full.as_ref().unwrap());
                assert!(kept.blocks.is_empty() && !full.blocks.is_empty());
                assert_eq!(kept.output, full.output);
            }
            // The traced pass is another entry: asked for, it has its blocks.
            store.slice_passes(web_time::Duration::ZERO, params + 1);
            let traced = store.forward("reverse", &input, &opts).unwrap();
            assert!(!traced.decoder.as_ref().unwrap().blocks.is_empty());
        }
    }

    /// The pass a view asked for last frame advances before one left behind by a view no
    /// longer drawn, so what is on screen is not held up.
    #[test]
    fn the_pass_on_screen_goes_before_one_left_behind() {
        let store = ModelStore::default();
        let model = store.get("reverse").unwrap();
        let opts = ForwardOptions::default();
        let params = crate::model::weights::parameter_count(&model.config);
        store.slice_passes(web_time::Duration::ZERO, params);
        let (old, new) = (
            model.prepare("abcd", "dcba").input,
            model.prepare("abce", "ecba").input,
        );
        let first = store.forward("reverse", &old, &opts).unwrap_err();
        store.take_arrivals();
        let mut frames = 0;
        while store.forward("reverse", &new, &opts).is_err() {
            store.take_arrivals();
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        }
        // The old pass had its one slice before `new` was asked for, and none since.
        let left = store.forward("reverse", &old, &opts).unwrap_err();
        assert!(
            first.contains("step 0 of") && left.contains("step 1 of"),
            "{left}"
        );
    }

    /// A fetch that ends is turned into a model by the next frame's `take_arrivals`, whether
    /// or not a view asks for that model, and the published summary changes with it.
    #[test]
    fn a_fetched_model_is_taken_in_and_reported() {
        let store = ModelStore::default();
        store.insert(
            "reverse",
            ModelState::Loading {
                received: 0,
                total: None,
            },
        );
        let version = store.version();
        store
            .loader
            .arrive(("reverse".into(), Ok(Payload::Builtin)));
        store.loader.arrive((
            "nowhere".into(),
            Err("models/nowhere.json: HTTP 404".into()),
        ));
        store.take_arrivals();
        assert!(store.version() > version);
        let summary = serde_json::Value::Array(store.summary());
        assert_eq!(summary[0]["name"], "nowhere");
        assert_eq!(summary[0]["state"], "failed");
        assert!(summary[0]["error"].as_str().unwrap().contains("HTTP 404"));
        assert_eq!(summary[1]["state"], "ready");
    }

    /// A download reports its progress, then its files arrive and open as a model that the
    /// summary describes with where it came from.
    #[test]
    fn a_downloaded_checkpoint_reports_progress_then_opens() {
        let store = ModelStore::default();
        let name = "hf:test/tiny-gpt2";
        store.insert(
            name,
            ModelState::Loading {
                received: 0,
                total: None,
            },
        );
        store.loader.report(name, 1000, Some(4000));
        store.take_arrivals();
        assert!(store.get(name).unwrap_err().contains("1000 of 4000"));
        let mut files = CheckpointFiles::new();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/gpt2");
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            files.add(f, std::fs::read(dir.join(f)).unwrap());
        }
        let source = "test/tiny-gpt2 on 127.0.0.1".to_string();
        store
            .loader
            .arrive((name.into(), Ok(Payload::Files(files, source.clone()))));
        // One frame says it is converting; the next ones convert, a few pieces a frame.
        store.take_arrivals();
        assert!(store.is_converting(name));
        assert!(store.get(name).unwrap_err().contains("reading the files"));
        let mut frames = 0;
        while store.is_converting(name) {
            store.take_arrivals();
            frames += 1;
            assert!(frames < 100, "still converting after {frames} frames");
        }
        let model = store.get(name).unwrap();
        assert_eq!(model.config.n_layers, 2);
        let summary = serde_json::Value::Array(store.summary());
        assert_eq!(summary[0]["source"], source.as_str());
        assert_eq!(summary[0]["architecture"], "gpt2");
        // Every frame is logged; all but the last ended on a stage the progress bar showed.
        let logged = summary[0]["conversion_frames"].as_array().unwrap();
        assert_eq!(logged.len(), frames);
        assert_eq!(logged[frames - 1]["what"], "done");
        assert!(store.knows(name) && store.opened().contains(&name.to_string()));
        // A broken download fails with the reason; asking again after `retry` starts afresh.
        store
            .loader
            .arrive(("hf:test/broken".into(), Err("test/broken: HTTP 404".into())));
        store.take_arrivals();
        assert!(store.get("hf:test/broken").unwrap_err().contains("404"));
        store.retry("hf:test/broken");
        assert!(!store.models.borrow().contains_key("hf:test/broken"));
    }

    #[test]
    fn a_loading_or_failed_model_says_so() {
        let store = ModelStore::default();
        store.insert(
            "big",
            ModelState::Loading {
                received: 10,
                total: Some(100),
            },
        );
        assert!(store.get("big").unwrap_err().contains("10 of 100"));
        assert!(store.is_loading("big"));
        let mut slot: Slot = None;
        assert!(store.keep(&mut slot, "big").is_err());
        store.insert("big", ModelState::Ready(store.get("reverse").unwrap()));
        assert!(
            store.keep(&mut slot, "big").is_ok(),
            "a slot takes the model once it is there"
        );
        store.insert("big", ModelState::Failed("big: truncated file".into()));
        assert_eq!(store.get("big").unwrap_err(), "big: truncated file");
        store.get("reverse").unwrap();
        let summary = serde_json::Value::Array(store.summary());
        assert_eq!(summary[0]["state"], "failed");
        assert_eq!(summary[1]["name"], "reverse");
        assert_eq!(summary[1]["layers"], 2);
    }
}
