//! Guided lessons: short pages of text beside the real labs. Each page carries a [`Setup`]
//! that puts the app into the state the text talks about; it is applied once when the page
//! opens, so the student can then change anything and play.

pub mod content;
#[cfg(test)]
mod tests;

use super::decoding::session::SourceKind;
use super::explorer::ExplorerView;
use super::masking::modes::MaskMode;
use super::probe::scrolling_view;
use super::{decoding, masking, positions, probe, GlimpseApp};
use crate::model::{builtin, AttentionKind};
use crate::train::tasks::TaskKind;
use crate::train::trainer::TrainConfig;
use egui::{Key, Modifiers, RichText, Ui};

/// One lesson: a title and its pages, read in order.
pub struct Lesson {
    pub title: &'static str,
    pub pages: &'static [Page],
}

/// One page: a title, a few short paragraphs, and the app state it shows.
pub struct Page {
    pub title: &'static str,
    pub paragraphs: &'static [&'static str],
    pub setup: Setup,
}

/// The model and input a page runs, and which attention it selects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Input {
    pub model: &'static str,
    /// `None`: the model's example text.
    pub source: Option<&'static str>,
    pub target: Option<&'static str>,
    /// `None`: the model's most telling kind (cross-attention when there is one).
    pub kind: Option<AttentionKind>,
    /// `None`: the last layer.
    pub layer: Option<usize>,
    /// `None`: the sharpest head of the layer, as when a model is first opened.
    pub head: Option<usize>,
    pub temperature: f32,
}

impl Input {
    pub const fn model(model: &'static str) -> Self {
        Self {
            model,
            source: None,
            target: None,
            kind: None,
            layer: None,
            head: None,
            temperature: 1.0,
        }
    }

    pub const fn source(mut self, s: &'static str) -> Self {
        self.source = Some(s);
        self
    }

    pub const fn target(mut self, t: &'static str) -> Self {
        self.target = Some(t);
        self
    }

    pub const fn kind(mut self, k: AttentionKind) -> Self {
        self.kind = Some(k);
        self
    }

    pub const fn layer(mut self, l: usize) -> Self {
        self.layer = Some(l);
        self
    }

    pub const fn head(mut self, h: usize) -> Self {
        self.head = Some(h);
        self
    }

    pub const fn temperature(mut self, t: f32) -> Self {
        self.temperature = t;
        self
    }
}

/// What a page configures, as data: which lab, and the few settings the text relies on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setup {
    /// The attention explorer on a model and input.
    Explorer {
        input: Input,
        view: ExplorerView,
        query: usize,
        step: usize,
    },
    /// The scoring lab on one query of the selected head.
    Scoring {
        input: Input,
        query: usize,
        temperature: f32,
        d_k: usize,
    },
    /// The masking lab; the first two sections run `input`.
    Masking {
        input: Input,
        section: masking::Section,
        mode: MaskMode,
        pads: usize,
    },
    Positions {
        section: positions::Section,
    },
    Decoding {
        kind: SourceKind,
        width: usize,
        alpha: f32,
        /// A part below the tree to open (sampling, the KV cache).
        open: Option<decoding::Part>,
    },
    /// The training lab on a task, from fresh weights.
    Training {
        task: TaskKind,
    },
}

/// The labs a page can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lab {
    Explorer,
    Scoring,
    Masking,
    Positions,
    Decoding,
    Training,
}

impl Setup {
    pub fn lab(&self) -> Lab {
        match self {
            Setup::Explorer { .. } => Lab::Explorer,
            Setup::Scoring { .. } => Lab::Scoring,
            Setup::Masking { .. } => Lab::Masking,
            Setup::Positions { .. } => Lab::Positions,
            Setup::Decoding { .. } => Lab::Decoding,
            Setup::Training { .. } => Lab::Training,
        }
    }

    /// The built-in model the page runs (the positions lab brings its own models).
    pub fn model(&self) -> Option<&'static str> {
        match self {
            Setup::Explorer { input, .. }
            | Setup::Scoring { input, .. }
            | Setup::Masking { input, .. } => Some(input.model),
            Setup::Positions { .. } | Setup::Training { .. } => None,
            Setup::Decoding { kind, .. } => kind.model_name(),
        }
    }
}

/// Where the student is. The setup of `(lesson, page)` is applied once when it changes.
#[derive(Debug, Clone, Default)]
pub struct Lessons {
    pub lesson: usize,
    pub page: usize,
    applied: Option<(usize, usize)>,
}

impl Lessons {
    pub fn current(&self) -> &'static Page {
        let lesson = &content::LESSONS[self.lesson.min(content::LESSONS.len() - 1)];
        &lesson.pages[self.page.min(lesson.pages.len() - 1)]
    }

    /// The next page, across lessons; stays on the last one.
    pub fn next(&mut self) {
        if self.page + 1 < content::LESSONS[self.lesson].pages.len() {
            self.page += 1;
        } else if self.lesson + 1 < content::LESSONS.len() {
            self.lesson += 1;
            self.page = 0;
        }
    }

    /// The previous page, across lessons; stays on the first one.
    pub fn previous(&mut self) {
        if self.page > 0 {
            self.page -= 1;
        } else if self.lesson > 0 {
            self.lesson -= 1;
            self.page = content::LESSONS[self.lesson].pages.len() - 1;
        }
    }

    fn is_first(&self) -> bool {
        self.lesson == 0 && self.page == 0
    }

    fn is_last(&self) -> bool {
        self.lesson + 1 == content::LESSONS.len()
            && self.page + 1 == content::LESSONS[self.lesson].pages.len()
    }

    /// "Lesson 2 of 7 · page 3 of 4"
    pub fn position(&self) -> String {
        format!(
            "Lesson {} of {} · page {} of {}",
            self.lesson + 1,
            content::LESSONS.len(),
            self.page + 1,
            content::LESSONS[self.lesson].pages.len()
        )
    }
}

/// Put the app into the state `setup` describes.
pub fn apply(setup: &Setup, app: &mut GlimpseApp) {
    match *setup {
        Setup::Explorer {
            input,
            view,
            query,
            step,
        } => {
            load(&input, app);
            app.explorer.view = view;
            app.explorer.query = query;
            app.explorer.step = step;
        }
        Setup::Scoring {
            input,
            query,
            temperature,
            d_k,
        } => {
            load(&input, app);
            app.explorer.query = query;
            app.scoring.temperature = temperature;
            app.scoring.d_k = d_k;
        }
        Setup::Masking {
            input,
            section,
            mode,
            pads,
        } => {
            load(&input, app);
            app.masking.section = section;
            app.masking.modes.mode = mode;
            app.masking.modes.pads = pads;
        }
        Setup::Positions { section } => app.positions.section = section,
        Setup::Decoding {
            kind,
            width,
            alpha,
            open,
        } => {
            // The lab restarts its search by itself when its settings change.
            let s = &mut app.decoding.settings;
            s.kind = kind;
            s.width = width;
            s.alpha = alpha;
            app.decoding.open = open;
        }
        Setup::Training { task } => {
            // A fresh run on the task, unless this task's run is already under way.
            if app.training.config.task != task {
                app.training.config = TrainConfig::for_task(task);
                app.training.reset();
            }
        }
    }
}

/// Load the model (only when it changes: loading resets the input) and select the attention.
fn load(input: &Input, app: &mut GlimpseApp) {
    if app.model_name != input.model || app.model.is_err() {
        app.select_model(input.model);
    }
    let info = builtin::info(input.model);
    app.source = input
        .source
        .or(info.map(|i| i.example_source))
        .unwrap_or_default()
        .to_string();
    app.target = input
        .target
        .or(info.map(|i| i.example_target))
        .unwrap_or_default()
        .to_string();
    app.temperature = input.temperature;
    if let Ok(m) = &app.model {
        app.sel.kind = input
            .kind
            .unwrap_or_else(|| AttentionKind::most_telling(m.config.family));
        app.sel.layer = input.layer.unwrap_or(m.config.n_layers.saturating_sub(1));
    }
    app.sel.head = input.head.unwrap_or(0);
    app.pick_head = input.head.is_none();
    // Recompute now so the sharpest head is chosen for this page's layer.
    app.computed = None;
    app.refresh();
}

/// Apply the current page's setup if it has not been applied yet.
fn settle(app: &mut GlimpseApp) {
    let here = (app.lessons.lesson, app.lessons.page);
    if app.lessons.applied != Some(here) {
        apply(&app.lessons.current().setup, app);
        app.lessons.applied = Some(here);
    }
}

/// Whether the current page runs the app's own model (so the model picker applies).
pub fn uses_app_model(app: &GlimpseApp) -> bool {
    matches!(
        app.lessons.current().setup.lab(),
        Lab::Explorer | Lab::Scoring | Lab::Masking
    )
}

/// The Lessons view: the page's text and navigation on the left, its live lab on the right.
pub fn show(app: &mut GlimpseApp, ui: &mut Ui) {
    // Page keys are taken before the labs draw, so their scroll areas never see them.
    if !ui.ctx().egui_wants_keyboard_input() {
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::PageDown)) {
            app.lessons.next();
        }
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::PageUp)) {
            app.lessons.previous();
        }
    }
    settle(app);
    // The lab needs the room more than the text does on a projector or a tablet.
    let text_width = (ui.available_width() * 0.32).clamp(220.0, 380.0);
    egui::Panel::left("lesson_text")
        .default_size(text_width)
        .max_size(ui.available_width() * 0.45)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("lesson_scroll")
                .show(ui, |ui| text_column(app, ui));
            probe::check_fits("lesson text", ui);
        });
    // A click in the text column may have moved to another page.
    settle(app);
    let fill = ui.visuals().panel_fill;
    egui::CentralPanel::default()
        .frame(egui::Frame::central_panel(ui.style()).fill(fill))
        .show(ui, |ui| {
            let lab = app.lessons.current().setup.lab();
            if lab == Lab::Training {
                // Its own panels: controls beside views that scroll by themselves.
                app.training.ui(ui, &mut app.exporter);
                return;
            }
            scrolling_view(ui, "lesson lab", |ui| match lab {
                Lab::Explorer => app.attention_view(ui),
                Lab::Scoring => app.scoring_view(ui),
                Lab::Masking => app.masking_view(ui),
                Lab::Positions => app.positions.ui(ui),
                Lab::Decoding => app.decoding.ui(ui),
                Lab::Training => {} // drawn above
            });
            probe::check_fits("view", ui);
        });
}

fn text_column(app: &mut GlimpseApp, ui: &mut Ui) {
    ui.weak(app.lessons.position());
    ui.horizontal_wrapped(|ui| {
        let first = app.lessons.is_first();
        if ui
            .add_enabled(!first, egui::Button::new("Previous"))
            .clicked()
        {
            app.lessons.previous();
        }
        let last = app.lessons.is_last();
        if ui.add_enabled(!last, egui::Button::new("Next")).clicked() {
            app.lessons.next();
        }
        ui.weak("PageUp / PageDown");
    });
    contents(app, ui);
    let lesson = &content::LESSONS[app.lessons.lesson];
    let page = app.lessons.current();
    ui.separator();
    ui.label(RichText::new(format!("{}. {}", app.lessons.lesson + 1, lesson.title)).weak());
    ui.heading(page.title);
    for p in page.paragraphs {
        ui.add_space(4.0);
        ui.label(*p);
    }
    ui.add_space(8.0);
    if ui.button("Set this page up again").clicked() {
        app.lessons.applied = None;
    }
    if uses_app_model(app) {
        egui::CollapsingHeader::new("Input and attention controls")
            .default_open(false)
            .show(ui, |ui| app.controls(ui));
    }
}

/// The table of contents: every lesson and page, the current one selected; click to jump.
fn contents(app: &mut GlimpseApp, ui: &mut Ui) {
    egui::CollapsingHeader::new("Contents")
        .default_open(false)
        .show(ui, |ui| {
            for (l, lesson) in content::LESSONS.iter().enumerate() {
                let here = app.lessons.lesson == l;
                let title = format!("{} {}", l + 1, lesson.title);
                if ui
                    .selectable_label(here, RichText::new(title).strong())
                    .clicked()
                {
                    app.lessons.lesson = l;
                    app.lessons.page = 0;
                }
                ui.indent(("lesson_toc", l), |ui| {
                    for (p, page) in lesson.pages.iter().enumerate() {
                        let current = here && app.lessons.page == p;
                        let label = format!("{}.{} {}", l + 1, p + 1, page.title);
                        if ui.selectable_label(current, label).clicked() {
                            app.lessons.lesson = l;
                            app.lessons.page = p;
                        }
                    }
                });
            }
        });
}
