//! How a model's files reach the store: the browser fetches trained built-ins, served
//! checkpoints and hub or URL links in the background (progress and finished downloads are
//! handed to the store, which turns them into models on the UI thread); natively the
//! built-ins are compiled in and served checkpoints are read from the model cache.

use crate::app::models::sources::{Location, ServedModel, SERVED};
use crate::model::import::CheckpointFiles;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What to fetch for a model.
pub enum Fetch {
    /// A trained built-in's config and weights beside the app.
    Builtin,
    /// A checkpoint's files (served beside the app, on a hub, at a URL).
    Remote(Location),
}

/// What a finished fetch brought.
pub enum Payload {
    /// A built-in's files, handed to `builtin::provide`.
    Builtin,
    /// A checkpoint's files and where they came from.
    Files(CheckpointFiles, String),
}

/// A fetch that ended: the model's name, and what came or why nothing did.
pub type Arrival = (String, Result<Payload, String>);

/// Bytes received and expected, per model being downloaded.
type Progress = HashMap<String, (u64, Option<u64>)>;

/// Served checkpoints present, with their sizes; `None` until known.
type Present = Option<Vec<(String, u64)>>;

/// Asks the app (once it has given its context) for another frame.
fn wake(repaint: &Mutex<Option<egui::Context>>) {
    if let Some(ctx) = repaint.lock().ok().and_then(|r| r.clone()) {
        ctx.request_repaint();
    }
}

/// Shared with the background fetches: what they report, and how they wake the app.
#[derive(Default)]
pub struct Loader {
    arrived: Arc<Mutex<Vec<Arrival>>>,
    /// Bytes received and expected, per model being downloaded.
    progress: Arc<Mutex<Progress>>,
    /// Asked for a frame when a fetch reports (set once the app has a context).
    repaint: Arc<Mutex<Option<egui::Context>>>,
    /// The served checkpoints present beside the app, with their sizes (`models/served.json`
    /// in the browser, the model cache natively); `None` until known.
    served: Arc<Mutex<Present>>,
}

impl Loader {
    pub fn set_repaint(&self, ctx: &egui::Context) {
        if let Ok(mut r) = self.repaint.lock() {
            *r = Some(ctx.clone());
        }
    }

    /// Asks the app for another frame.
    pub fn wake(&self) {
        wake(&self.repaint);
    }

    /// Fetches that ended since the last call.
    pub fn arrivals(&self) -> Vec<Arrival> {
        match self.arrived.lock() {
            Ok(mut a) => a.drain(..).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Progress of the downloads under way: name, bytes received, bytes expected.
    pub fn progress(&self) -> Vec<(String, u64, Option<u64>)> {
        match self.progress.lock() {
            Ok(p) => p.iter().map(|(n, (r, t))| (n.clone(), *r, *t)).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// A fetch ended: report it, stop its progress, and wake the app.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    fn finish(
        arrived: &Mutex<Vec<Arrival>>,
        progress: &Mutex<Progress>,
        repaint: &Mutex<Option<egui::Context>>,
        arrival: Arrival,
    ) {
        if let Ok(mut p) = progress.lock() {
            p.remove(&arrival.0);
        }
        if let Ok(mut a) = arrived.lock() {
            a.push(arrival);
        }
        wake(repaint);
    }

    /// A fetch ending, as the background task reports it (tests).
    #[cfg(test)]
    pub fn arrive(&self, arrival: Arrival) {
        Self::finish(&self.arrived, &self.progress, &self.repaint, arrival);
    }

    /// Download progress, as the background task reports it (tests).
    #[cfg(test)]
    pub fn report(&self, name: &str, received: u64, total: Option<u64>) {
        if let Ok(mut p) = self.progress.lock() {
            p.insert(name.to_string(), (received, total));
        }
    }

    /// The served checkpoints that are present, with their download sizes.
    pub fn served(&self) -> Vec<(&'static ServedModel, u64)> {
        let present = self.served.lock().ok().and_then(|s| s.clone());
        SERVED
            .iter()
            .filter_map(|s| {
                let (_, bytes) = present.as_ref()?.iter().find(|(n, _)| n == s.name)?;
                Some((s, *bytes))
            })
            .collect()
    }
}

#[cfg(target_arch = "wasm32")]
impl Loader {
    /// Start fetching `name`'s files in the background.
    pub fn start(&self, name: &str, fetch: Fetch) {
        use crate::model::builtin;
        let name = name.to_string();
        let (arrived, progress) = (self.arrived.clone(), self.progress.clone());
        let repaint = self.repaint.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = match fetch {
                Fetch::Builtin => {
                    let (config_url, weights_url, tokenizer_url) = builtin::file_urls(&name);
                    async {
                        let config = crate::app::models::fetch::bytes(&config_url).await?;
                        let config = String::from_utf8(config)
                            .map_err(|_| crate::t!("models-url-not-utf8", url = &config_url))?;
                        let weights = crate::app::models::fetch::bytes(&weights_url).await?;
                        let tokenizer = match tokenizer_url {
                            Some(url) => Some(crate::app::models::fetch::bytes(&url).await?),
                            None => None,
                        };
                        let files = builtin::TrainedFiles {
                            config,
                            weights,
                            tokenizer,
                        };
                        builtin::provide(&name, files);
                        Ok(Payload::Builtin)
                    }
                    .await
                }
                Fetch::Remote(loc) => {
                    let report = |received: u64, total: Option<u64>| {
                        if let Ok(mut p) = progress.lock() {
                            p.insert(name.clone(), (received, total));
                        }
                        wake(&repaint);
                    };
                    crate::app::models::remote::download(&loc, &report)
                        .await
                        .map(|files| Payload::Files(files, loc.label.clone()))
                }
            };
            Self::finish(&arrived, &progress, &repaint, (name, result));
        });
    }

    /// Learn which served checkpoints the build placed beside the app.
    pub fn look_for_served(&self) {
        let served = self.served.clone();
        let repaint = self.repaint.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // A build without the real models has no list: then none are offered.
            let list = crate::app::models::fetch::bytes("models/served.json")
                .await
                .ok()
                .and_then(|b| serde_json::from_slice::<Vec<(String, u64)>>(&b).ok())
                .unwrap_or_default();
            if let Ok(mut s) = served.lock() {
                *s = Some(list);
            }
            wake(&repaint);
        });
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Loader {
    /// Natively the built-ins are compiled in; hub and URL downloads are the browser's.
    pub fn start(&self, name: &str, fetch: Fetch) {
        let reason = match fetch {
            Fetch::Builtin => crate::t!("models-builtin-compiled-in", model = name),
            Fetch::Remote(loc) => crate::t!("models-remote-in-browser", model = &loc.label),
        };
        Self::finish(
            &self.arrived,
            &self.progress,
            &self.repaint,
            (name.to_string(), Err(reason)),
        );
    }

    /// The served checkpoints found in the model cache (`scripts/fetch_models.sh`).
    pub fn look_for_served(&self) {
        let present = SERVED
            .iter()
            .filter_map(|s| Some((s.name.to_string(), cache_bytes(&cached_path(s)?))))
            .collect();
        if let Ok(mut s) = self.served.lock() {
            *s = Some(present);
        }
    }
}

/// Where `scripts/fetch_models.sh` keeps a served checkpoint, if it is there.
#[cfg(not(target_arch = "wasm32"))]
pub fn cached_path(s: &ServedModel) -> Option<std::path::PathBuf> {
    let dir = crate::util::real_models::cache_dir();
    // `models/hf/NAME/` beside the app is `NAME/` in the cache.
    let folder = s.folder.trim_start_matches("models/hf/");
    let path = match s.gguf {
        Some(file) => dir.join(folder).join(file),
        None => dir.join(folder),
    };
    path.exists().then_some(path)
}

/// Bytes of a file, or of the files in a folder.
#[cfg(not(target_arch = "wasm32"))]
fn cache_bytes(path: &std::path::Path) -> u64 {
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    match std::fs::read_dir(path) {
        Ok(entries) => entries.flatten().map(|e| size(&e.path())).sum(),
        Err(_) => size(path),
    }
}
