//! The egui app: the frame loop, the top bar and the body. What it draws is the registry's
//! labs (`labs`), on models from one store (`store`) and the shared input (`workbench`); the
//! address bar's hash is the view as a link (`link`).

pub mod compute;
pub mod crash;
pub mod decoding;
pub mod explorer;
pub mod export;
#[cfg(target_arch = "wasm32")]
pub mod fetch;
pub mod fonts;
pub mod labs;
pub mod lessons;
pub mod link;
pub mod loading;
pub mod masking;
pub mod open_dialog;
pub mod pass_answer;
pub mod positions;
pub mod probe;
#[cfg(target_arch = "wasm32")]
pub mod remote;
pub mod running;
pub mod sources;
pub mod store;
#[cfg(test)]
pub(crate) mod tests;
pub mod widgets;
pub mod workbench;

use labs::{Labs, Layout, Shared};
use probe::scrolling_view;
use store::ModelStore;
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
}

/// How the app looks: presenter mode (large type for a projector; F toggles it) and theme.
#[derive(Default)]
pub struct Look {
    pub presenter: bool,
    /// Light theme instead of dark.
    pub light: bool,
    /// The zoom and theme last applied to the context.
    applied: Option<(bool, bool)>,
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
            },
            look: Look::default(),
            store: ModelStore::default(),
            bench: Workbench::default(),
            labs: Labs::default(),
            lessons: Default::default(),
            exporter: Default::default(),
            open_dialog: Default::default(),
            frames: 0,
            probe_written: false,
            models_published: u64::MAX,
            served_published: usize::MAX,
        };
        let first = crate::model::builtin::BUILTINS[0].name;
        app.bench.select_model(&app.store, first);
        app
    }
}

/// egui draws only on input; a hash change is not input, so ask for a frame.
#[cfg(target_arch = "wasm32")]
fn repaint_on_hash_change(ctx: &egui::Context) {
    use wasm_bindgen::JsCast;
    let ctx = ctx.clone();
    let callback = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || ctx.request_repaint());
    if let Some(window) = web_sys::window() {
        let _ = window
            .add_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    callback.forget();
}

impl GlimpseApp {
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        Self::style(&cc.egui_ctx);
        let mut app = Self::default();
        app.bench.compute.look_for_gpu(&cc.egui_ctx);
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
            }
            repaint_on_hash_change(&cc.egui_ctx);
            app
        };
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

    /// A link pasted into the address bar of an open tab changes only the hash (no reload):
    /// open it as the page load would have.
    #[cfg(target_arch = "wasm32")]
    fn follow_address_bar(&mut self) {
        let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) else {
            return;
        };
        let hash = hash.trim_start_matches('#');
        if hash.is_empty() || hash == self.nav.last_hash {
            return;
        }
        // Links leave out these three at their defaults; start from the defaults so the view
        // is the one the link was copied from.
        self.look.presenter = false;
        self.look.light = false;
        self.nav.hidden = link::Hidden::default();
        self.open_link(hash);
        self.nav.last_hash = hash.to_string();
    }

    /// Open a checkpoint (a Hugging Face folder or a `.gguf` file) and show it; natively, for
    /// `glimpse --model PATH`. On failure the reason is shown in place of the link notices and
    /// the current model stays.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_model_path(&mut self, path: &std::path::Path) -> Result<String, String> {
        use crate::model::import::open::open_path;
        let (model, info) = open_path(path, &mut |_| {}).map_err(|e| {
            let e = format!("could not open {}: {e}", path.display());
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
                let source = format!("files: {}", files.names().collect::<Vec<_>>().join(", "));
                match self.store.open_files(&name, files, &source) {
                    Ok(()) => {
                        self.nav.notices.clear();
                        self.bench.select_model(&self.store, &name);
                        self.bench.refresh(&self.store);
                    }
                    Err(e) => {
                        let e = format!("could not open the files: {e}");
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
    fn fall_back_from_failed_model(&mut self) {
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

    /// Reproduce the view a link describes; what it cannot read is listed in the notices.
    pub fn open_link(&mut self, link: &str) {
        self.nav.notices = link::apply(self, link);
        self.bench.refresh(&self.store);
    }

    /// Zoom and theme for presenter mode and the light theme; F toggles presenter mode.
    fn look(&mut self, ctx: &egui::Context) {
        let look = &mut self.look;
        if !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(egui::Key::F)) {
            look.presenter = !look.presenter;
        }
        let want = (look.presenter, look.light);
        if look.applied != Some(want) {
            ctx.set_zoom_factor(if look.presenter { 1.5 } else { 1.0 });
            // On a projector faint grey text disappears: presenter mode writes everything in
            // the theme's strongest colour.
            let presenter = look.presenter;
            ctx.style_mut_of(egui::Theme::Dark, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::WHITE);
            });
            ctx.style_mut_of(egui::Theme::Light, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::BLACK);
            });
            ctx.set_theme(if look.light {
                egui::Theme::Light
            } else {
                egui::Theme::Dark
            });
            look.applied = Some(want);
        }
    }

    /// Keep the address bar's hash in step with the view, so copying the URL shares it.
    fn sync_hash(&mut self) {
        let hash = link::encode(self);
        if hash == self.nav.last_hash {
            return;
        }
        #[cfg(target_arch = "wasm32")]
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let url = format!("#{hash}");
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.nav.last_hash = hash;
    }

    /// Fonts and theme: the same natively and in the browser, whatever the system prefers.
    pub fn style(ctx: &egui::Context) {
        fonts::install(ctx);
        ctx.options_mut(|o| o.theme_preference = egui::ThemePreference::Dark);
        // Scroll bars always drawn: a wide table cut at the right edge must show that it
        // scrolls (egui's floating bars appear only under the pointer, and a projector has none).
        ctx.all_styles_mut(|s| s.spacing.scroll = egui::style::ScrollStyle::solid());
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
        probe::start_frame(ui.ctx());
        self.look(ui.ctx());
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
                    if ui.small_button("dismiss").clicked() {
                        self.nav.notices.clear();
                    }
                });
            });
        }
        // A focused embed (`hide=tabs`): no tabs, no model picker; the view alone.
        let top = match self.nav.hidden.tabs {
            false => self.top_bar(ui),
            true => ui.max_rect().top(),
        };
        self.bench.computing_overlay(ui.ctx(), top, &self.store);
        if self.nav.view == link::LESSONS {
            lessons::show(self, ui);
        } else {
            self.body(ui);
        }
        self.write_probe_file(ui);
    }

    /// Tabs, the presenter switch, and the model picker (or the lab's own line).
    /// Returns where the bar ends (points from the top).
    fn top_bar(&mut self, ui: &mut egui::Ui) -> f32 {
        egui::Panel::top("top")
            .show(ui, |ui| {
                // Wraps onto a second line on a tablet or at presenter zoom, instead of running off.
                ui.horizontal_wrapped(|ui| {
                    ui.heading("Glimpse");
                    ui.separator();
                    let tabs = std::iter::once((link::LESSONS, "Lessons"))
                        .chain(self.labs.iter().map(|l| (l.id(), l.title())));
                    for (id, title) in tabs {
                        let tab = ui.selectable_value(&mut self.nav.view, id, title);
                        probe::control(&format!("tab:{title}"), tab.rect);
                    }
                    ui.separator();
                    ui.toggle_value(&mut self.look.presenter, "presenter (F)")
                        .on_hover_text("large type for a projector");
                    ui.toggle_value(&mut self.look.light, "light");
                    ui.separator();
                    let shared_model = if self.nav.view == link::LESSONS {
                        lessons::uses_shared_model(self)
                    } else {
                        self.labs
                            .by_id(self.nav.view)
                            .is_some_and(|l| l.uses_shared_model())
                    };
                    if shared_model {
                        self.bench
                            .model_picker(ui, &self.store, self.look.presenter);
                        let open = ui.button("Open…").on_hover_text(
                            "open your own model: files, a folder, a hub name or a URL",
                        );
                        probe::control("open model", open.rect);
                        if open.clicked() {
                            self.open_dialog.open = true;
                        }
                    } else if !self.look.presenter {
                        let about = match self.labs.by_id(self.nav.view) {
                            Some(lab) => lab.about(),
                            None => {
                                "guided lessons: read on the left, play with the lab on the right"
                            }
                        };
                        ui.weak(about);
                    }
                });
                self.bench.loading_line(ui, &self.store);
                export::message_label(ui, &self.exporter);
                probe::check_fits("top bar", ui);
            })
            .response
            .rect
            .bottom()
    }

    /// The open lab below the top bar, with the input controls on the left for labs on the
    /// shared input.
    fn body(&mut self, ui: &mut egui::Ui) {
        let hide_controls = self.nav.hidden.controls;
        let Some((lab, mut shared)) = self.lab_and_shared(self.nav.view) else {
            return;
        };
        if lab.layout() == Layout::OwnPanels {
            lab.ui(ui, &mut shared);
            return;
        }
        if lab.uses_shared_input() && !hide_controls {
            // A third of a narrow screen at most, so the view keeps most of a tablet.
            let width = (ui.available_width() * 0.3).clamp(180.0, 300.0);
            egui::Panel::left("controls")
                .default_size(width)
                .show(ui, |ui| {
                    shared.bench.controls(ui);
                    probe::check_fits("controls", ui);
                });
        }
        let fill = ui.visuals().panel_fill;
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).fill(fill))
            .show(ui, |ui| {
                scrolling_view(ui, "view", |ui| lab.ui(ui, &mut shared));
                probe::check_fits("view", ui);
            });
    }

    /// Native tests ask (`GLIMPSE_PROBE`) for what the app drew, written to a file.
    fn write_probe_file(&mut self, ui: &egui::Ui) {
        #[cfg(not(target_arch = "wasm32"))]
        {
            if !self.probe_written && std::env::var_os("GLIMPSE_PROBE").is_some() {
                // Keep drawing until the probe is written: under Xvfb nothing else wakes us.
                ui.ctx().request_repaint();
                if self.frames >= 5 {
                    self.probe_written = probe::write_to_env_path();
                }
            }
            probe::write_side_files();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = (self.probe_written, ui);
    }
}

/// Whether `name` is a built-in or still on its way (neither falls back).
fn builtin_or_loading(store: &ModelStore, name: &str) -> bool {
    crate::model::builtin::info(name).is_some()
        || !matches!(store.state(name), store::ModelState::Failed(_))
}
