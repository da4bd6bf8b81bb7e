//! The egui app: the frame loop. Around it, `shell` draws the frame (top bar, body, look,
//! address bar, crash overlay); what it shows is the registry's labs (`labs`, one folder each),
//! on models from one store (`models`) and the shared input (`workbench`); the address bar's
//! hash is the view as a link (`link`); `lessons` are pages that set the labs.

pub mod a11y;
pub mod export;
pub mod formulas;
#[cfg(test)]
mod formulas_tests;
pub mod labs;
pub mod lessons;
pub mod link;
pub mod models;
pub mod probe;
pub mod shell;
pub mod stepped;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub mod threads;
pub mod widgets;
pub mod words;
pub mod workbench;
#[cfg(target_arch = "wasm32")]
pub mod worker;

use labs::{Labs, Shared};
use models::open_dialog;
use models::store::ModelStore;
use shell::first_frames::{FirstFrames, Part};
use shell::look::Look;
use workbench::Workbench;

/// Where the user is: the open tab, what a link asked to hide, what it could not read.
pub struct Navigation {
    /// `lessons` or a lab's id.
    pub view: &'static str,
    /// Parts of the window a link asked to hide.
    pub hidden: link::Hidden,
    /// What the last opened link could not read.
    pub notices: Vec<String>,
    /// The hash last written to the address bar (browser).
    last_hash: String,
    /// The list of keyboard shortcuts is open (`?`).
    pub shortcuts_open: bool,
}

pub struct GlimpseApp {
    pub nav: Navigation,
    pub look: Look,
    /// Every loaded model, and memoised forward passes.
    pub store: ModelStore,
    /// The shared model, input, selection and trace.
    pub bench: Workbench,
    /// Every lab, in tab order.
    pub labs: Labs,
    pub lessons: lessons::Lessons,
    /// PNG / CSV / JSON export of figures (menus in the views, outcome under the top bar).
    pub exporter: export::Exporter,
    /// The Open window, and files dropped or picked.
    pub open_dialog: open_dialog::OpenDialog,
    frames: u64,
    /// The browser's first frames, which bring the window in parts.
    first_frames: FirstFrames,
    probe_written: bool,
    /// The store's version last published to the probe.
    models_published: u64,
    /// How many served checkpoints the probe was last told of.
    served_published: usize,
}

impl Default for GlimpseApp {
    fn default() -> Self {
        let mut app = Self {
            nav: Navigation {
                view: "attention",
                hidden: Default::default(),
                notices: Vec::new(),
                last_hash: String::new(),
                shortcuts_open: false,
            },
            look: Look::default(),
            store: ModelStore::default(),
            bench: Workbench::default(),
            labs: Labs::default(),
            lessons: Default::default(),
            exporter: Default::default(),
            open_dialog: Default::default(),
            frames: 0,
            first_frames: FirstFrames::default(),
            probe_written: false,
            models_published: u64::MAX,
            served_published: usize::MAX,
        };
        let first = crate::model::builtin::BUILTINS[0].name;
        app.bench.select_model(&app.store, first);
        app
    }
}

impl GlimpseApp {
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        Self::style(&cc.egui_ctx);
        // In the browser, the page mirrors egui's accessibility tree for screen readers.
        #[cfg(target_arch = "wasm32")]
        cc.egui_ctx.add_plugin(a11y::web::Plugin);
        // In the browser a frame is laid out once: egui lays a frame out again at once when a
        // widget's size was not known yet (a view's first frame), which made that frame one
        // task of twice the time on the page's thread. The second layout comes in the next
        // frame instead (`show` asks for it).
        #[cfg(target_arch = "wasm32")]
        cc.egui_ctx
            .options_mut(|o| o.max_passes = std::num::NonZeroUsize::MIN);
        let mut app = Self::default();
        app.look.language = shell::language::readers_language();
        app.bench.compute.look_for_gpu(&cc.egui_ctx);
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        threads::set_repaint(&cc.egui_ctx);
        app.store.prefetch_builtins(&cc.egui_ctx);
        open_dialog::wake_with(&cc.egui_ctx);
        // In the browser, a link's hash reproduces the view it was copied from.
        #[cfg(target_arch = "wasm32")]
        let app = {
            let mut app = app;
            if let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) {
                if hash.len() > 1 {
                    app.open_link(&hash);
                }
                app.nav.last_hash = hash.trim_start_matches('#').to_string();
                shell::address_bar::later::opened(&app.nav.last_hash);
            }
            shell::address_bar::repaint_on_hash_change(&cc.egui_ctx);
            app
        };
        let mut app = app;
        app.apply_look(&cc.egui_ctx);
        app
    }

    /// The registered lab of type `T` (tests and the browser hooks read labs this way).
    pub fn lab<T: labs::Lab>(&self) -> &T {
        self.labs.get().expect("every lab type is registered")
    }

    pub fn lab_mut<T: labs::Lab>(&mut self) -> &mut T {
        self.labs.get_mut().expect("every lab type is registered")
    }

    /// The lab `id`, and what it is given to draw (the app borrowed field by field).
    fn lab_and_shared(&mut self, id: &str) -> Option<(&mut Box<dyn labs::Lab>, Shared<'_>)> {
        let Self {
            store,
            bench,
            labs,
            exporter,
            frames,
            ..
        } = self;
        let lab = labs.by_id_mut(id)?;
        let shared = Shared {
            store,
            bench,
            exporter,
            frames: *frames,
        };
        Some((lab, shared))
    }

    /// Reproduce the view a link describes; what it cannot read is listed in the notices.
    pub fn open_link(&mut self, link: &str) {
        self.nav.notices = link::apply(self, link);
        self.bench.refresh(&self.store);
    }
}

impl eframe::App for GlimpseApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        // CPU time of the previous frame (the app's UI code and tessellation), for benchmarks.
        if let Some(seconds) = frame.info().cpu_usage {
            probe::frame_time(seconds);
        }
        self.show(ui);
    }
}

impl GlimpseApp {
    /// One frame of the whole app (eframe calls this; so do the UI tests).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.frames += 1;
        self.use_language();
        probe::start_frame(ui.ctx());
        self.look(ui.ctx());
        self.shortcuts(ui.ctx());
        self.store.take_arrivals();
        for request in self.open_dialog.requests(ui.ctx()) {
            self.open_request(request);
        }
        self.bench.refresh(&self.store);
        // Once a frame: egui may lay a frame out twice (a discarded first pass).
        if ui.ctx().current_pass_index() == 0 {
            self.bench.advance();
        }
        if self.bench.is_computing() {
            // The next slice of the pass runs in the next frame.
            ui.ctx().request_repaint();
        }
        self.fall_back_from_failed_model();
        if self.store.version() != self.models_published {
            probe::publish_models(&self.store.summary());
            self.models_published = self.store.version();
        }
        let served = self.store.served();
        if served.len() != self.served_published {
            let list: Vec<_> = served
                .iter()
                .map(|(s, bytes)| serde_json::json!({ "name": s.name, "bytes": bytes }))
                .collect();
            probe::publish_served(&list);
            self.served_published = served.len();
        }
        self.exporter.frame(ui.ctx());
        #[cfg(target_arch = "wasm32")]
        self.follow_address_bar();
        self.sync_hash();
        if !self.nav.notices.is_empty() {
            egui::Panel::top("link_notices").show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(ui.visuals().warn_fg_color, self.nav.notices.join("; "));
                    if ui.small_button(crate::t!("shell-dismiss")).clicked() {
                        self.nav.notices.clear();
                    }
                });
            });
        }
        // In the browser the first frames bring the window a part at a time.
        let part = self.first_frames.next(ui.ctx());
        if part < Part::All {
            ui.ctx().request_repaint();
        }
        if part != Part::Fonts {
            self.draw(ui, part);
        }
        if let Some(view) = self.bench.open_view.take() {
            self.nav.view = view;
            ui.ctx().request_repaint();
        }
        // Counted once the views have asked for this frame's passes.
        probe::publish_store_passes(self.store.passes_under_way());
        self.write_probe_file(ui);
        // A layout egui wanted to redo (and, with one pass a frame, did not) is redone next
        // frame.
        if ui.ctx().output(|o| o.requested_discard()) && !ui.ctx().will_discard() {
            ui.ctx().request_repaint();
        }
    }
}

impl GlimpseApp {
    /// The window: top bar, then the body (from `part` on: controls, then the view).
    fn draw(&mut self, ui: &mut egui::Ui, part: Part) {
        // A focused embed (`hide=tabs`): no tabs, no model picker; the view alone.
        let top = match self.nav.hidden.tabs {
            false => self.top_bar(ui),
            true => ui.max_rect().top(),
        };
        self.bench.computing_overlay(ui.ctx(), top, &self.store);
        if part == Part::TopBar {
            return;
        }
        if self.nav.view == link::LESSONS {
            if part == Part::All {
                lessons::show(self, ui);
            }
        } else {
            self.body(ui, part == Part::All);
        }
    }
}
