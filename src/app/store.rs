//! One model store: every model the app shows is loaded here once and handed out shared, and
//! forward passes are memoised by exactly what they depend on (the model, the input ids and
//! the options), so a frame that changes nothing runs no forward pass.
//!
//! A model is `Ready`, `Failed` (the reason is shown where the model would be) or `Loading`
//! (bytes so far, for checkpoints that arrive over the network or from a dropped file).

use crate::model::{builtin, ForwardOptions, Model, ModelInput, Trace};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

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

/// Traces kept: enough for the most forward passes one view runs per frame (the padding
/// batch runs two per sentence), so drawing a view again never recomputes.
const MEMO_CAPACITY: usize = 24;

struct Memo {
    model: String,
    input: ModelInput,
    opts: ForwardOptions,
    trace: Result<Arc<Trace>, String>,
}

/// Owns every loaded model and the memo of recent forward passes. Shared by reference: labs
/// receive `&ModelStore` each frame and ask it, never the loader.
#[derive(Default)]
pub struct ModelStore {
    models: RefCell<HashMap<String, ModelState>>,
    memo: RefCell<VecDeque<Memo>>,
    /// Fetches finished since they were last looked at (the browser): the model's name, and
    /// why it failed if it did.
    arrived: Arc<Mutex<Vec<Arrival>>>,
    /// Asked for a frame when a fetch finishes (set by the app; read when the fetch ends).
    repaint: Arc<Mutex<Option<egui::Context>>>,
    version: std::cell::Cell<u64>,
}

/// A fetch that ended: the model's name, and why it failed if it did.
type Arrival = (String, Result<(), String>);

/// A result slot a lab keeps its model in.
pub type Slot = Option<Result<Arc<Model>, String>>;

impl ModelStore {
    /// The model called `name`: a built-in is loaded on first use; a failure is remembered
    /// (and reported again) rather than retried every frame.
    pub fn get(&self, name: &str) -> Result<Arc<Model>, String> {
        match self.state(name) {
            ModelState::Ready(m) => Ok(m),
            ModelState::Failed(e) => Err(e),
            ModelState::Loading { received, total } => Err(match total {
                Some(t) => format!("loading {name} ({received} of {t} bytes)…"),
                None => format!("loading {name}…"),
            }),
        }
    }

    /// `name`'s state, loading a built-in the first time it is asked for (in the browser,
    /// fetching a trained one's files first).
    pub fn state(&self, name: &str) -> ModelState {
        if let Some(s) = self.models.borrow().get(name) {
            return s.clone();
        }
        if builtin::needs_files(name) {
            let loading = ModelState::Loading {
                received: 0,
                total: None,
            };
            self.insert(name, loading.clone());
            self.fetch(name);
            return loading;
        }
        let state = match builtin::load(name) {
            Ok(m) => ModelState::Ready(Arc::new(m)),
            Err(e) => ModelState::Failed(format!("{name}: {e}")),
        };
        self.models
            .borrow_mut()
            .insert(name.to_string(), state.clone());
        state
    }

    /// Every model asked for, by name: its state, and for a ready one its shape. Changes only
    /// when a model is inserted (`version`).
    pub fn summary(&self) -> Vec<serde_json::Value> {
        let models = self.models.borrow();
        let mut names: Vec<&String> = models.keys().collect();
        names.sort();
        names
            .into_iter()
            .map(|name| match &models[name] {
                ModelState::Ready(m) => serde_json::json!({
                    "name": name,
                    "state": "ready",
                    "family": m.config.family.label(),
                    "layers": m.config.n_layers,
                    "heads": m.config.n_heads,
                    "kv_heads": m.config.n_kv_heads,
                    "d_model": m.config.d_model,
                    "parameters": crate::model::weights::parameter_count(&m.config),
                }),
                ModelState::Loading { received, total } => serde_json::json!({
                    "name": name, "state": "loading", "received": received, "total": total,
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

    /// Models opened from files or links (not built in) that are ready, by name.
    pub fn opened(&self) -> Vec<String> {
        let models = self.models.borrow();
        let mut names: Vec<String> = models
            .iter()
            .filter(|(n, s)| builtin::info(n).is_none() && matches!(s, ModelState::Ready(_)))
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    }

    /// Whether `name` can be opened: a built-in, or a model in the store.
    pub fn knows(&self, name: &str) -> bool {
        builtin::info(name).is_some() || self.models.borrow().contains_key(name)
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

    /// Fetch every trained built-in in the background (the browser: they are small, and the
    /// service worker keeps them for offline use); natively they are compiled in.
    pub fn prefetch_builtins(&self, ctx: &egui::Context) {
        if let Ok(mut r) = self.repaint.lock() {
            *r = Some(ctx.clone());
        }
        for name in builtin::TRAINED {
            if builtin::needs_files(name) {
                self.state(name);
            }
        }
    }

    /// Turn finished fetches into models (the app calls it every frame, so a model that
    /// arrives is ready and reported even when no view asks for it that frame).
    pub fn take_arrivals(&self) {
        let arrived: Vec<_> = match self.arrived.lock() {
            Ok(mut a) => a.drain(..).collect(),
            Err(_) => return,
        };
        for (name, result) in arrived {
            let state = match result.and_then(|()| builtin::load(&name).map_err(|e| e.to_string()))
            {
                Ok(m) => ModelState::Ready(Arc::new(m)),
                Err(e) => ModelState::Failed(format!("{name}: {e}")),
            };
            self.insert(&name, state);
        }
    }

    /// Start fetching a trained built-in's files (the browser).
    #[cfg(target_arch = "wasm32")]
    fn fetch(&self, name: &str) {
        let (name, arrived) = (name.to_string(), self.arrived.clone());
        let repaint = self.repaint.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let (config_url, weights_url) = builtin::file_urls(&name);
            let files = async {
                let config = super::fetch::bytes(&config_url).await?;
                let config = String::from_utf8(config)
                    .map_err(|_| format!("{config_url} is not UTF-8 text"))?;
                let weights = super::fetch::bytes(&weights_url).await?;
                builtin::provide(&name, config, weights);
                Ok(())
            };
            let result = files.await;
            if let Ok(mut a) = arrived.lock() {
                a.push((name, result));
            }
            if let Some(ctx) = repaint.lock().ok().and_then(|r| r.clone()) {
                ctx.request_repaint();
            }
        });
    }

    /// Natively every built-in is compiled in: nothing to fetch.
    #[cfg(not(target_arch = "wasm32"))]
    fn fetch(&self, name: &str) {
        let _ = (name, &self.repaint);
    }

    /// Put a model (or its progress, or why it failed) under `name`, replacing what was there
    /// and forgetting traces of the old one.
    pub fn insert(&self, name: &str, state: ModelState) {
        self.memo.borrow_mut().retain(|m| m.model != name);
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
        let cached = self
            .memo
            .borrow()
            .iter()
            .find(|m| m.model == name && m.input == *input && m.opts == *opts)
            .map(|m| m.trace.clone());
        if let Some(trace) = cached {
            return trace;
        }
        let trace = self.get(name).and_then(|model| {
            model
                .forward(input, opts)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        let mut memo = self.memo.borrow_mut();
        if memo.len() == MEMO_CAPACITY {
            memo.pop_front();
        }
        memo.push_back(Memo {
            model: name.to_string(),
            input: input.clone(),
            opts: opts.clone(),
            trace: trace.clone(),
        });
        trace
    }
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
            .arrived
            .lock()
            .unwrap()
            .push(("reverse".into(), Ok(())));
        store.arrived.lock().unwrap().push((
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
