//! Opening a model the user asked for (a path, files, a name) into the store and the view, and
//! falling back to the model shown before when one fails.

use super::open_dialog;
use super::sources;
use super::store::{self, ModelStore};
use crate::app::GlimpseApp;

impl GlimpseApp {
    /// Open a checkpoint (a Hugging Face folder or a `.gguf` file) and show it; natively, for
    /// `glimpse --model PATH`. On failure the reason is shown in place of the link notices and
    /// the current model stays.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_model_path(&mut self, path: &std::path::Path) -> Result<String, String> {
        use crate::model::import::open::open_path;
        let (model, info) = open_path(path, &mut |_| {}).map_err(|e| {
            let e = crate::t!(
                "models-could-not-open",
                path = path.display().to_string(),
                error = e.to_string()
            );
            self.nav.notices = vec![e.clone()];
            e
        })?;
        let name = model.config.name.clone();
        log::info!(
            "glimpse: opened {} ({}, {} parameters)",
            name,
            info.format,
            info.parameters
        );
        self.store.insert_opened(&name, model, info);
        self.bench.select_model(&self.store, &name);
        self.bench.refresh(&self.store);
        Ok(name)
    }

    /// Open what the user asked for in the Open window, by dropping files, or in the page's
    /// file dialog. A failure is shown under the top bar and the current model stays.
    pub fn open_request(&mut self, request: open_dialog::OpenRequest) {
        use open_dialog::OpenRequest;
        match request {
            OpenRequest::Name(name) => {
                self.store.retry(&name);
                self.bench.select_model(&self.store, &name);
                self.bench.refresh(&self.store);
            }
            OpenRequest::Files(folder, files) => {
                let mut name = files.model_name(folder.as_deref(), "opened files");
                // Never replace a built-in or a served model under its own name.
                if !matches!(
                    sources::Source::of(&name, &self.store.hub()),
                    Ok(sources::Source::Opened)
                ) {
                    name.push_str(" (opened)");
                }
                let names = files.names().collect::<Vec<_>>().join(", ");
                let source = crate::t!("models-source-files", names = names);
                match self.store.open_files(&name, files, &source) {
                    Ok(()) => {
                        self.nav.notices.clear();
                        self.bench.select_model(&self.store, &name);
                        self.bench.refresh(&self.store);
                    }
                    Err(e) => {
                        let e = crate::t!("models-could-not-open-files", error = e);
                        log::warn!("glimpse: {e}");
                        self.nav.notices = vec![e];
                    }
                }
            }
            #[cfg(not(target_arch = "wasm32"))]
            OpenRequest::Path(path) => {
                let _ = self.open_model_path(&path);
            }
        }
    }

    /// A model that failed to download or open leaves the view: the reason goes under the
    /// top bar and the model shown before comes back.
    pub(crate) fn fall_back_from_failed_model(&mut self) {
        let name = &self.bench.model_name;
        if builtin_or_loading(&self.store, name) {
            return;
        }
        if let Some(previous) = self.bench.previous.take() {
            if let Err(e) = self.store.get(name) {
                log::warn!("glimpse: {e}");
                self.nav.notices = vec![e];
            }
            self.bench.select_model(&self.store, &previous);
            self.bench.refresh(&self.store);
        }
    }
}

/// Whether `name` is a built-in or still on its way (neither falls back).
fn builtin_or_loading(store: &ModelStore, name: &str) -> bool {
    crate::model::builtin::info(name).is_some()
        || !matches!(store.state(name), store::ModelState::Failed(_))
}
