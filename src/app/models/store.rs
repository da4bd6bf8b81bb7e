//! One model store: every model the app shows is loaded here once and handed out shared, and
//! forward passes are memoised by exactly what they depend on (the model, the input ids and
//! the options), so a frame that changes nothing runs no forward pass.
//!
//! A model is `Ready`, `Failed` (the reason is shown where the model would be) or `Loading`
//! (bytes so far, for checkpoints that arrive over the network or from a dropped file).

use crate::app::models::conversion_job::{self, BuiltinLoad, ConversionJob};
use crate::app::models::loading::{Fetch, Loader, Payload};
use crate::app::models::sources::{self, Source};
use crate::app::stepped::Stepped;
use crate::model::import::open::CheckpointInfo;
use crate::model::import::{CheckpointFiles, Stage};
use crate::model::{builtin, Model};
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

/// "listing the vocabulary (3 of 6)".
pub fn stage_text(s: &Stage) -> String {
    if s.total > 1 {
        crate::t!(
            "models-stage",
            what = crate::app::words::model_says(s.what),
            done = s.done,
            total = s.total
        )
    } else {
        crate::app::words::model_says(s.what)
    }
}

mod passes;

pub use passes::{is_cancelled, is_computing, is_unfinished, Stored};
use passes::{Cancelled, Memo, Pass, SLICED_FROM_PARAMETERS};

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
    converting: RefCell<Vec<(String, ConversionJob, String)>>,
    /// Built-ins whose files arrived, waiting to be built, and those being built: each is 5-50
    /// ms of work and a dozen arrive together at the start, so they are built on the engine
    /// worker (where there is none, one a frame on the page's thread).
    builtins_arrived: RefCell<VecDeque<String>>,
    builtins_building: RefCell<Vec<(String, Stepped<BuiltinLoad>)>>,
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
            builtins_arrived: Default::default(),
            builtins_building: Default::default(),
            conversion_frames: Default::default(),
            passes: Default::default(),
            cancelled: Default::default(),
            slicing: std::cell::Cell::new(
                crate::app::models::running::FRAME_BUDGET.map(|b| (b, SLICED_FROM_PARAMETERS)),
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
                Err(crate::t!(
                    "models-converting",
                    model = name,
                    stage = stage.map_or(String::new(), |s| stage_text(&s))
                ))
            }
            ModelState::Loading { received, total } => Err(match total {
                Some(t) => crate::t!(
                    "models-loading-bytes",
                    model = name,
                    received = received,
                    total = t
                ),
                None => crate::t!("models-loading", model = name),
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
            let Some(path) = crate::app::models::loading::cached_path(s) else {
                return ModelState::Failed(crate::t!(
                    "models-not-in-cache",
                    model = s.name,
                    folder = crate::util::real_models::cache_dir().display().to_string()
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
            .map(|(_, c, _)| c.progress())
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
            let mut longest = (0.0f64, conversion.progress());
            while finished.is_none() && start.elapsed() < CONVERSION_BUDGET {
                let (before, t0) = (conversion.progress(), web_time::Instant::now());
                finished = conversion_job::poll(&mut conversion);
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                if ms > longest.0 {
                    longest = (ms, before);
                }
                if conversion.is_away() {
                    break;
                }
            }
            // Every frame's work, for the probe: the stage it ended on and its longest piece.
            if let Some(frames) = self.conversion_frames.borrow_mut().get_mut(&name) {
                let s = conversion.progress();
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
                Ok(Payload::Builtin) => {
                    self.builtins_arrived.borrow_mut().push_back(name);
                    continue;
                }
                Ok(Payload::Files(files, source)) => {
                    let bytes = files.total_bytes();
                    let conversion = conversion_job::start(files, &name, &source);
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
        self.build_builtins();
    }

    /// Starts building the built-ins that arrived (all at once on the engine, else one at a
    /// time) and stores those that are built.
    fn build_builtins(&self) {
        let mut arrived = self.builtins_arrived.borrow_mut();
        let mut jobs = self.builtins_building.borrow_mut();
        while jobs.iter().all(|(_, job)| job.is_away()) {
            let Some(name) = arrived.pop_front() else {
                break;
            };
            let job = conversion_job::load_builtin(&name);
            jobs.push((name, job));
        }
        let mut built = Vec::new();
        jobs.retain_mut(|(name, job)| match conversion_job::poll(job) {
            Some(answer) => {
                built.push((std::mem::take(name), answer));
                false
            }
            None => true,
        });
        if !jobs.is_empty() || !arrived.is_empty() {
            self.loader.wake();
        }
        drop((arrived, jobs));
        for (name, answer) in built {
            let state = match answer {
                Ok(m) => ModelState::Ready(Arc::new(m)),
                Err(e) => ModelState::Failed(format!("{name}: {e}")),
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
}

#[cfg(test)]
mod tests;
