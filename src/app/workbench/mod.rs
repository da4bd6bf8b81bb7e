//! The shared workbench: the model picked in the top bar, the user's text, the selected
//! attention (kind, layer, head, query) and temperature, and the trace of that input, which
//! the explorer, masking and scoring labs and the lessons all read. Its forward pass runs
//! only when one of these changes (or the compute path does).

pub mod compute;
mod controls;

use crate::app::labs::attention;
use crate::app::link::{name_of, value_of, LinkReader, LinkWriter};
use crate::app::models::pass_answer::progress_line;
use crate::app::models::running::{Running, FRAME_BUDGET};
use crate::app::models::sources;
use crate::app::models::store::{ModelState, ModelStore};
use crate::app::{probe, widgets};
use crate::model::heads::every_head;
use crate::model::heads::HeadStats;
use crate::model::vocabulary::{known, unknown_pieces, Unknown};
use crate::model::{builtin, AttentionKind, ForwardOptions, Model, PreparedInput, Trace};
use attention::Selection;
use std::sync::Arc;

/// What the trace was computed from; a change re-runs the forward pass.
#[derive(Debug, Clone, PartialEq)]
struct RunKey {
    model: String,
    source: String,
    target: String,
    temperature: f32,
}

/// A trace of the shared input, with every head's summary.
pub struct Computed {
    key: RunKey,
    /// Which pass this is, unique in the process: what a view keeps derived from this trace
    /// is keyed by it (the workbench keeps each new trace where the last one was, so its
    /// address does not tell two passes apart).
    pub serial: u64,
    /// The trace is shared: the walkthrough builds its chain from it on the engine worker.
    pub result: Result<(PreparedInput, Arc<Trace>), String>,
    /// Per attention kind, every head's summary (`[layer][head]`).
    pub stats: Vec<(AttentionKind, Vec<Vec<HeadStats>>)>,
    /// The typed pieces a toy vocabulary lacks, with the known tokens nearest to each: found
    /// once per input, not every frame.
    pub unknown: Vec<Unknown>,
}

/// The text a model without an example of its own (an opened checkpoint) starts on: a
/// sentence whose "it" a student can ask the heads about.
pub const ENGLISH_EXAMPLE: &str = "The cat sat on the mat because it was tired.";

const KINDS: [(AttentionKind, &str); 3] = [
    (AttentionKind::EncoderSelf, "enc"),
    (AttentionKind::DecoderSelf, "dec"),
    (AttentionKind::Cross, "cross"),
];

pub struct Workbench {
    pub model_name: String,
    pub model: Result<Arc<Model>, String>,
    pub source: String,
    pub target: String,
    pub sel: Selection,
    pub temperature: f32,
    pub computed: Option<Computed>,
    /// CPU or GPU, and how long each took.
    pub compute: compute::Compute,
    /// Choose the sharpest head once the first trace of a newly selected model exists.
    pub pick_head: bool,
    /// The model shown before this one, to go back to if this one fails to arrive.
    pub previous: Option<String>,
    /// The model was picked while still on its way: set its most telling attention and
    /// layer when it arrives (unless a link named them).
    awaiting_defaults: bool,
    /// A pass spread over frames (a large model in the browser); `computed` still shows the
    /// input before it until it is done.
    running: Option<Running<RunKey>>,
    /// The input whose pass the user cancelled: not started again until the input changes.
    cancelled: Option<RunKey>,
    /// How long one frame may compute before it draws; `None`: the whole pass at once.
    pub frame_budget: Option<web_time::Duration>,
    /// A lab asks for another tab to show the selection (e.g. a head's attention map).
    pub open_view: Option<&'static str>,
}

impl Default for Workbench {
    /// No model yet: `GlimpseApp` opens the first built-in through the store.
    fn default() -> Self {
        Self {
            model_name: String::new(),
            model: Err(String::new()),
            source: String::new(),
            target: String::new(),
            sel: Selection {
                kind: AttentionKind::DecoderSelf,
                layer: 0,
                head: 0,
                query: 0,
            },
            temperature: 1.0,
            computed: None,
            compute: Default::default(),
            pick_head: false,
            previous: None,
            awaiting_defaults: false,
            running: None,
            cancelled: None,
            frame_budget: FRAME_BUDGET,
            open_view: None,
        }
    }
}

impl Workbench {
    pub const KEYS: [&'static str; 9] = [
        "hub", "model", "src", "tgt", "kind", "layer", "head", "tau", "q",
    ];

    /// Open `name` on its example text, at its most telling attention: cross-attention when
    /// there is one, in the last layer, where trained models show their clearest alignment.
    pub fn select_model(&mut self, store: &ModelStore, name: &str) {
        if self.model.is_ok() && self.model_name != name {
            self.previous = Some(self.model_name.clone());
        }
        self.model_name = name.to_string();
        self.model = store.get(name);
        match builtin::info(name) {
            Some(info) => {
                self.source = info.example_source.to_string();
                self.target = info.example_target.to_string();
            }
            None => {
                self.source = ENGLISH_EXAMPLE.to_string();
                self.target.clear();
            }
        }
        // The same model again (a link naming it) keeps its trace on screen until the new
        // input's pass is done; another model's trace must go.
        if self.computed.as_ref().is_none_or(|c| c.key.model != name) {
            self.computed = None;
        }
        self.awaiting_defaults = self.model.is_err();
        self.model_defaults();
        self.sel.head = 0;
        self.pick_head = true;
    }

    /// The model's most telling attention, in its last layer.
    fn model_defaults(&mut self) {
        if let Ok(m) = &self.model {
            self.sel.kind = AttentionKind::most_telling(m.config.family);
            self.sel.layer = m.config.n_layers.saturating_sub(1);
        }
    }

    /// Every head's summary for the selected kind of attention, when there is a trace.
    pub fn stats(&self) -> Option<&[Vec<HeadStats>]> {
        let computed = self.computed.as_ref()?;
        computed
            .stats
            .iter()
            .find(|(k, _)| *k == self.sel.kind)
            .map(|(_, s)| s.as_slice())
    }

    /// The text whose trace is shown (while a pass runs, the text before the edit).
    pub fn shown_source(&self) -> &str {
        self.computed
            .as_ref()
            .map_or(self.source.as_str(), |c| c.key.source.as_str())
    }

    /// The trace of the shared input, when the forward pass succeeded.
    pub fn trace(&self) -> Option<&Trace> {
        match self.computed.as_ref().map(|c| &c.result) {
            Some(Ok((_, t))) => Some(t.as_ref()),
            _ => None,
        }
    }

    fn key(&self) -> RunKey {
        RunKey {
            model: self.model_name.clone(),
            source: self.source.clone(),
            target: self.target.clone(),
            temperature: self.temperature,
        }
    }

    /// Re-run the forward pass when anything it depends on changed. With a frame budget the
    /// pass is only started here: the app runs one slice of it per frame (`advance`).
    pub fn refresh(&mut self, store: &ModelStore) {
        // A model still loading when it was picked is taken as soon as the store has it.
        if self.model.is_err() {
            if let Ok(m) = store.get(&self.model_name) {
                self.model = Ok(m);
                self.computed = None;
                if std::mem::take(&mut self.awaiting_defaults) {
                    self.model_defaults();
                }
            }
        }
        let key = self.key();
        if self.computed.as_ref().is_some_and(|c| c.key == key) && !self.compute.wants_rerun() {
            self.running = None;
            self.take_gpu_answer();
            self.pick_sharpest_head();
            return;
        }
        if self.cancelled.as_ref() == Some(&key) {
            return;
        }
        self.cancelled = None;
        if self.running.as_ref().is_some_and(|r| r.key == key) {
            return;
        }
        // A new input: whatever pass was under way is for older input, and is dropped.
        self.running = None;
        let model = match &self.model {
            Ok(m) => m.clone(),
            Err(e) => {
                let e = e.clone();
                self.accept(key, Err(e));
                return;
            }
        };
        let prepared = model.prepare(&self.source, &self.target);
        let opts = ForwardOptions {
            temperature: self.temperature,
            ..Default::default()
        };
        if self.frame_budget.is_none() {
            // The CPU/GPU path times and compares its runs, so it is not memoised by the
            // store: the key above is its memo.
            let result = self
                .compute
                .forward(&model, &prepared.input, &opts)
                .map(|t| (prepared, t))
                .map_err(|e| e.to_string());
            self.accept(key, result);
            return;
        }
        match Running::start(key.clone(), model, prepared, opts) {
            Ok(r) => self.running = Some(r),
            Err(e) => self.accept(key, Err(e.to_string())),
        }
    }

    /// This frame's slice of the pass under way (the app calls it once a frame, however often
    /// views refresh); its trace is shown once it is done.
    pub fn advance(&mut self) {
        let (Some(r), Some(budget)) = (self.running.as_mut(), self.frame_budget) else {
            return;
        };
        let Some((cpu, cpu_ms)) = r.advance(budget) else {
            return;
        };
        let Some(r) = self.running.take() else {
            return;
        };
        let (model, opts) = r.model();
        let result = self
            .compute
            .cpu_done(model, &r.prepared.input, opts, cpu, cpu_ms)
            .map_err(|e| e.to_string());
        self.accept(r.key, result.map(|t| (r.prepared, t)));
    }

    /// The compute path's status, with the pass under way (steps done of all, frames so far)
    /// or the cancelled one, for the test probe.
    pub(crate) fn compute_summary(&self) -> serde_json::Value {
        let mut summary = self.compute.summary();
        summary["pass"] = match &self.running {
            Some(r) => {
                let (done, steps) = r.progress();
                serde_json::json!({ "done": done, "steps": steps, "frames": r.frames })
            }
            None if self.cancelled.is_some() => serde_json::json!("cancelled"),
            None => serde_json::Value::Null,
        };
        summary
    }

    /// A pass is under way: the app asks for the next frame.
    pub fn is_computing(&self) -> bool {
        self.running.is_some()
    }

    /// Stops the pass under way and goes back to what is shown: the text (and τ) of the last
    /// trace of this model, or the model before, or, with neither, stays cancelled until the
    /// input changes.
    pub fn cancel(&mut self, store: &ModelStore) {
        let Some(r) = self.running.take() else {
            return;
        };
        match &self.computed {
            Some(c) if c.key.model == self.model_name => {
                self.source = c.key.source.clone();
                self.target = c.key.target.clone();
                self.temperature = c.key.temperature;
            }
            _ => match self.previous.take() {
                Some(previous) => {
                    self.select_model(store, &previous);
                    self.refresh(store);
                }
                None => self.cancelled = Some(r.key),
            },
        }
    }

    /// While a pass spans frames: how far it is, and Cancel, floating at the top right under
    /// the top bar (`top`), so that its coming and going never moves what a user is aiming at.
    pub fn computing_overlay(&mut self, ctx: &egui::Context, top: f32, store: &ModelStore) {
        probe::publish_compute(&self.compute_summary());
        let progress = self.running.as_ref().map(|r| r.progress());
        if progress.is_none() && self.cancelled.is_none() {
            return;
        }
        let clicked = egui::Area::new(egui::Id::unique("computing"))
            .anchor(egui::Align2::RIGHT_TOP, [-12.0, top + 4.0])
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style())
                    .show(ui, |ui| match progress {
                        Some(p) => progress_line(ui, &self.model_name, p),
                        None => {
                            ui.label(crate::t!("workbench-pass-cancelled"));
                            false
                        }
                    })
                    .inner
            })
            .inner;
        if clicked {
            self.cancel(store);
        }
    }

    /// The browser's GPU answers a frame or more after the CPU: show its trace when it comes.
    fn take_gpu_answer(&mut self) {
        let Some(Computed {
            key,
            result: Ok((prepared, trace)),
            ..
        }) = &self.computed
        else {
            return;
        };
        if let Some(gpu_trace) = self.compute.poll(trace) {
            let (key, prepared) = (key.clone(), prepared.clone());
            self.accept(key, Ok((prepared, gpu_trace)));
        }
    }

    /// Shows a new trace: keeps the selection valid and summarises every head.
    fn accept(&mut self, key: RunKey, result: Result<(PreparedInput, Trace), String>) {
        if let Ok((_, trace)) = &result {
            let kinds = trace.attention_kinds();
            if !kinds.contains(&self.sel.kind) {
                self.sel.kind = kinds.last().copied().unwrap_or(AttentionKind::EncoderSelf);
            }
        }
        let stats = match &result {
            Ok((prepared, trace)) => trace
                .attention_kinds()
                .into_iter()
                .map(|k| (k, every_head(trace, k, prepared.sequence(k))))
                .collect(),
            Err(_) => vec![],
        };
        let unknown = match &self.model {
            Ok(m) => [key.source.as_str(), key.target.as_str()]
                .iter()
                .flat_map(|t| unknown_pieces(&m.tokenizer, t, 3))
                .collect(),
            Err(_) => vec![],
        };
        static PASSES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        self.computed = Some(Computed {
            key,
            serial: PASSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            result: result.map(|(prepared, trace)| (prepared, Arc::new(trace))),
            stats,
            unknown,
        });
        self.pick_sharpest_head();
    }

    /// A newly opened model starts on the sharpest head of its selected layer, once its
    /// trace (of this input) is there.
    fn pick_sharpest_head(&mut self) {
        if !self.pick_head || self.computed.as_ref().is_none_or(|c| c.key != self.key()) {
            return;
        }
        let Some(w) = self
            .trace()
            .and_then(|t| t.weights(self.sel.kind, self.sel.layer))
        else {
            return;
        };
        self.sel.head = crate::model::heads::sharpest_head(w);
        self.pick_head = false;
    }

    pub fn save(&self, w: &mut LinkWriter, store: &ModelStore) {
        if store.hub() != sources::DEFAULT_HUB {
            w.put("hub", store.hub());
        }
        w.put("model", &self.model_name);
        w.put("src", &self.source);
        w.put("tgt", &self.target);
        w.put("kind", name_of(&KINDS, self.sel.kind));
        w.put("layer", self.sel.layer);
        w.put("head", self.sel.head);
        w.put("tau", self.temperature);
        w.put("q", self.sel.query);
    }

    /// `model=` opens that model afresh (its example text, most telling attention, sharpest
    /// head, τ = 1, first query); the other keys then adjust it.
    pub fn load(&mut self, r: &mut LinkReader, store: &ModelStore) {
        // Before the model: an `hf:` name downloads from this hub.
        r.read("hub", |v| store.set_hub(v).ok());
        let known = |m: &str| store.knows(m).then(|| m.to_string());
        if let Some(m) = r.read("model", known) {
            self.select_model(store, &m);
            self.temperature = 1.0;
            self.sel.query = 0;
        }
        if let Some(v) = r.get("src") {
            self.source = v.chars().take(4000).collect();
        }
        if let Some(v) = r.get("tgt") {
            self.target = v.chars().take(4000).collect();
        }
        if r.get("kind").is_some() || r.get("layer").is_some() {
            // The link names the attention: keep it when a model still loading arrives.
            self.awaiting_defaults = false;
        }
        if let Some(x) = r.read("kind", |v| value_of(&KINDS, v)) {
            self.sel.kind = x;
        }
        if let Some(x) = r.number("layer", 0..64) {
            self.sel.layer = x;
        }
        if let Some(x) = r.number("head", 0..64) {
            self.sel.head = x;
            // The link names its head: the first trace must not swap in the sharpest one.
            self.pick_head = false;
        }
        if let Some(x) = r.number("tau", 0.05..=5.0) {
            self.temperature = x;
        }
        if let Some(x) = r.number("q", 0..4096) {
            self.sel.query = x;
        }
        // The trace on screen stays until the linked input's pass is done (the key tells
        // whether one is needed), unless it is another model's.
        if self
            .computed
            .as_ref()
            .is_some_and(|c| c.key.model != self.model_name)
        {
            self.computed = None;
        }
    }
}
