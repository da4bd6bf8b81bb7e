//! Opening a model of one's own: the Open window (files or a folder, a Hugging Face model by
//! name, any URL; a path natively), files dropped on the page or window, and the queue through
//! which the browser page hands over the files a user picked or dropped (`web/open_files.js`
//! reads them and calls `glimpse_open_files`).

use crate::app::models::sources;
use crate::model::import::CheckpointFiles;
use crate::t;
use std::sync::Mutex;

/// What the user asked to open.
pub enum OpenRequest {
    /// A name the store downloads: `hf:ORG/NAME`, `url:URL`, a served checkpoint.
    Name(String),
    /// Files read in memory (the browser), with the folder they came in if any.
    Files(Option<String>, CheckpointFiles),
    /// A folder or `.gguf` file on disk (natively).
    #[cfg(not(target_arch = "wasm32"))]
    Path(std::path::PathBuf),
}

/// Files the page has read for the app (picked in the dialog or dropped), waiting for the
/// next frame.
static PENDING: Mutex<Vec<(Option<String>, CheckpointFiles)>> = Mutex::new(Vec::new());

/// The app's context, so files handed over between frames wake it (egui draws only on input).
static WAKE: Mutex<Option<egui::Context>> = Mutex::new(None);

/// Wake `ctx` when files are handed over.
pub fn wake_with(ctx: &egui::Context) {
    if let Ok(mut w) = WAKE.lock() {
        *w = Some(ctx.clone());
    }
}

/// Hand over files the page read: `paths` relative to what was picked or dropped
/// (`MiniLM/config.json` for a folder), `contents` in the same order.
pub fn hand_over(paths: Vec<String>, contents: Vec<Vec<u8>>) {
    let folder = paths
        .first()
        .and_then(|p| p.split_once('/'))
        .map(|(dir, _)| dir.to_string())
        .filter(|dir| paths.iter().all(|p| p.starts_with(&format!("{dir}/"))));
    let mut files = CheckpointFiles::new();
    for (path, bytes) in paths.iter().zip(contents) {
        files.add(path, bytes);
    }
    if let Ok(mut p) = PENDING.lock() {
        p.push((folder, files));
    }
    if let Some(ctx) = WAKE.lock().ok().and_then(|w| w.clone()) {
        ctx.request_repaint();
    }
}

/// The Open window's state.
#[derive(Default)]
pub struct OpenDialog {
    pub open: bool,
    repo: String,
    url: String,
    #[cfg(not(target_arch = "wasm32"))]
    path: String,
}

impl OpenDialog {
    /// What the user asked to open this frame: from the window, dropped files, or the page.
    pub fn requests(&mut self, ctx: &egui::Context) -> Vec<OpenRequest> {
        let mut out = Vec::new();
        if let Ok(mut p) = PENDING.lock() {
            out.extend(
                p.drain(..)
                    .map(|(dir, files)| OpenRequest::Files(dir, files)),
            );
        }
        #[cfg(not(target_arch = "wasm32"))]
        out.extend(dropped_paths(ctx).map(OpenRequest::Path));
        if self.open {
            self.window(ctx, &mut out);
        }
        if !out.is_empty() {
            self.open = false;
        }
        out
    }

    fn window(&mut self, ctx: &egui::Context, out: &mut Vec<OpenRequest>) {
        let mut open = self.open;
        egui::Window::new(t!("models-open-title"))
            // The same window whatever the language of its title.
            .id(egui::Id::unique("Open a model"))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .default_width(420.0)
            .show(ctx, |ui| {
                ui.label(t!("models-open-intro"));
                ui.add_space(6.0);
                self.local_files(ui, out);
                ui.separator();
                ui.label(t!("models-open-hub"));
                let hint = t!("models-open-hub-hint");
                if let Some(repo) = entry(ui, "hf:", &mut self.repo, &hint) {
                    out.push(OpenRequest::Name(format!("hf:{repo}")));
                }
                ui.label(t!("models-open-url"));
                let hint = t!("models-open-url-hint");
                if let Some(url) = entry(ui, "", &mut self.url, &hint) {
                    out.push(OpenRequest::Name(format!("url:{url}")));
                }
                ui.weak(t!(
                    "models-open-budget",
                    size = sources::megabytes(sources::BROWSER_MEMORY_BUDGET)
                ));
            });
        self.open = open;
    }

    /// Files on this computer: the page's file dialogs in the browser.
    #[cfg(target_arch = "wasm32")]
    fn local_files(&mut self, ui: &mut egui::Ui, _out: &mut [OpenRequest]) {
        ui.horizontal(|ui| {
            if ui.button(t!("models-open-files")).clicked() {
                pick_files(false);
            }
            if ui.button(t!("models-open-folder")).clicked() {
                pick_files(true);
            }
            ui.weak(t!("models-open-drop-page"));
        });
    }

    /// A path on this computer natively (or drop the folder or file on the window).
    #[cfg(not(target_arch = "wasm32"))]
    fn local_files(&mut self, ui: &mut egui::Ui, out: &mut Vec<OpenRequest>) {
        if let Some(path) = entry(ui, "", &mut self.path, &t!("models-open-path-hint")) {
            out.push(OpenRequest::Path(path.into()));
        }
        ui.weak(t!("models-open-drop-window"));
    }
}

/// A text field with an Open button: the trimmed text when Open is clicked or Enter pressed.
fn entry(ui: &mut egui::Ui, prefix: &str, text: &mut String, hint: &str) -> Option<String> {
    ui.horizontal(|ui| {
        if !prefix.is_empty() {
            ui.label(prefix);
        }
        let edit = ui.add(
            egui::TextEdit::singleline(text)
                .hint_text(hint)
                .desired_width(300.0),
        );
        let go = ui.button(t!("models-open-button")).clicked()
            || (edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        (go && !text.trim().is_empty()).then(|| text.trim().to_string())
    })
    .inner
}

/// Open the page's file dialog (`web/open_files.js`); the files come back through
/// `hand_over`. Browsers allow it only just after a click, which this follows.
#[cfg(target_arch = "wasm32")]
fn pick_files(folder: bool) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return;
    };
    let pick = js_sys::Reflect::get(&window, &"glimpseOpenFiles".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match pick {
        Some(f) => {
            let _ = f.call1(&window, &folder.into());
        }
        None => log::warn!("glimpse: the page has no file dialog (open_files.js missing)"),
    }
}

/// Files or folders dropped on the window: a folder or a `.gguf` file as it is; files of a
/// folder (config.json, …) as the folder they are in.
#[cfg(not(target_arch = "wasm32"))]
fn dropped_paths(ctx: &egui::Context) -> impl Iterator<Item = std::path::PathBuf> {
    let paths: Vec<std::path::PathBuf> = ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .collect()
    });
    let mut out: Vec<std::path::PathBuf> = Vec::new();
    for p in paths.into_iter().filter(|p| !p.as_os_str().is_empty()) {
        let gguf = p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gguf"));
        let target = if p.is_dir() || gguf {
            p
        } else {
            p.parent().map(|d| d.to_path_buf()).unwrap_or(p)
        };
        if !out.contains(&target) {
            out.push(target);
        }
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_handed_over_keep_their_folder() {
        hand_over(
            vec!["MiniLM/config.json".into(), "MiniLM/tokenizer.json".into()],
            vec![b"{}".to_vec(), b"{}".to_vec()],
        );
        hand_over(vec!["tiny.gguf".into()], vec![b"GGUF".to_vec()]);
        let mut dialog = OpenDialog::default();
        let requests = dialog.requests(&egui::Context::default());
        let got: Vec<(Option<String>, Vec<String>)> = requests
            .into_iter()
            .filter_map(|r| match r {
                OpenRequest::Files(dir, files) => {
                    Some((dir, files.names().map(str::to_string).collect()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    Some("MiniLM".to_string()),
                    vec!["config.json".to_string(), "tokenizer.json".to_string()]
                ),
                (None, vec!["tiny.gguf".to_string()]),
            ]
        );
    }
}
