//! Guided lessons: short pages of text beside the real labs. Each page carries a link
//! fragment that puts the labs into the state the text talks about; it is applied through the
//! link reader once when the page opens, so the student can then change anything and play.
//! There is no other way a lesson sets state.

pub mod content;
#[cfg(test)]
mod formula_tests;
mod influence;
#[cfg(test)]
mod influence_tests;
#[cfg(test)]
mod lab_numbers_tests;
#[cfg(test)]
mod notes_examples_tests;
#[cfg(test)]
mod real_model_tests;
#[cfg(test)]
mod tests;

use crate::app::labs::Layout;
use crate::app::link::{LinkReader, LinkWriter, LESSONS as VIEW};
use crate::app::probe::scrolling_view;
use crate::app::{link, probe, GlimpseApp};
use crate::{i18n, t};
use egui::{Key, Modifiers, RichText, Ui};

/// One lesson: a title and its pages, read in order. Its words are Fluent messages
/// (`assets/locales/<language>/lesson-*.ftl`): the title is `lesson-<id>`.
pub struct Lesson {
    pub id: &'static str,
    pub pages: &'static [Page],
}

impl Lesson {
    pub fn title(&self) -> String {
        i18n::tr(&format!("lesson-{}", self.id), &[])
    }
}

/// One page: a title, a few short paragraphs, and the link that sets up the lab it shows. The
/// title is the message `lesson-page-<id>`, the paragraphs `lesson-page-<id>-text`, one per
/// block of lines; a paragraph that is only `$$name$$` draws the display formula of that name
/// (`crate::app::formulas`).
pub struct Page {
    pub id: &'static str,
    /// A link fragment; its `view=` names the lab drawn beside the text.
    pub link: &'static str,
}

impl Page {
    pub fn title(&self) -> String {
        i18n::tr(&format!("lesson-page-{}", self.id), &[])
    }

    /// The page's paragraphs in the current language: blank lines separate them, and a
    /// paragraph's lines are one line of text (the file wraps them for the translator).
    pub fn paragraphs(&self) -> Vec<String> {
        let text = i18n::tr(&format!("lesson-page-{}-text", self.id), &[]);
        text.split("\n\n")
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect()
    }

    /// The id of the lab the page shows.
    pub fn lab(&self) -> &'static str {
        let link: &'static str = self.link;
        link.split('&')
            .find_map(|pair| pair.strip_prefix("view="))
            .unwrap_or("")
    }
}

/// Where the student is. The setup of `(lesson, page)` is applied once when it changes.
#[derive(Debug, Clone, Default)]
pub struct Lessons {
    pub lesson: usize,
    pub page: usize,
    applied: Option<(usize, usize)>,
    /// The lab the current page shows (set when its link is applied).
    lab: Option<&'static str>,
}

impl Lessons {
    pub const KEYS: [&'static str; 2] = ["lesson", "page"];

    pub fn save(&self, w: &mut LinkWriter) {
        w.put("lesson", self.lesson);
        w.put("page", self.page);
    }

    /// A lesson and a page that exist (the page checked against the lesson read).
    pub fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.number("lesson", 0..content::LESSONS.len()) {
            self.lesson = x;
            self.page = 0;
        }
        let pages = content::LESSONS[self.lesson.min(content::LESSONS.len() - 1)]
            .pages
            .len();
        if let Some(x) = r.number("page", 0..pages) {
            self.page = x;
        }
    }

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
        t!(
            "lessons-position",
            lesson = self.lesson + 1,
            lessons = content::LESSONS.len(),
            page = self.page + 1,
            pages = content::LESSONS[self.lesson].pages.len()
        )
    }
}

/// A link to every lesson page (for the tests' walk over every view).
pub fn every_page() -> Vec<String> {
    let mut links = Vec::new();
    for (l, lesson) in content::LESSONS.iter().enumerate() {
        links.extend((0..lesson.pages.len()).map(|p| format!("view={VIEW}&lesson={l}&page={p}")));
    }
    links
}

/// Apply the current page's link if it has not been applied yet.
fn settle(app: &mut GlimpseApp) {
    let here = (app.lessons.lesson, app.lessons.page);
    if app.lessons.applied != Some(here) {
        let (lab, notices) = link::apply_page(app, app.lessons.current().link);
        // A page's link is ours: anything it cannot read is a defect the tests catch.
        for n in notices {
            log::warn!("lesson page {here:?}: {n}");
        }
        app.lessons.lab = lab;
        app.lessons.applied = Some(here);
        // Compute now, so the sharpest head is chosen for this page's layer.
        app.bench.refresh(&app.store);
    }
}

/// Whether the current page's lab runs the shared input (so its controls apply).
pub fn uses_shared_input(app: &GlimpseApp) -> bool {
    let id = app.lessons.current().lab();
    app.labs.by_id(id).is_some_and(|l| l.uses_shared_input())
}

/// Whether the current page's lab runs the shared model (so the model picker applies).
pub fn uses_shared_model(app: &GlimpseApp) -> bool {
    let id = app.lessons.current().lab();
    app.labs.by_id(id).is_some_and(|l| l.uses_shared_model())
}

/// The Lessons view: the page's text and navigation on the left, its live lab on the right.
pub fn show(app: &mut GlimpseApp, ui: &mut Ui) {
    // Page keys are taken before the labs draw, so their scroll areas never see them. Only a
    // text field keeps them: a focused button (the Lessons tab just pressed) does not.
    if !ui.ctx().text_edit_focused() {
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
            let id = app.lessons.lab.unwrap_or_default();
            let Some((lab, mut shared)) = app.lab_and_shared(id) else {
                return;
            };
            if lab.layout() == Layout::OwnPanels {
                lab.ui(ui, &mut shared);
                return;
            }
            scrolling_view(ui, "lesson lab", |ui| lab.ui(ui, &mut shared));
            probe::check_fits("view", ui);
        });
}

fn text_column(app: &mut GlimpseApp, ui: &mut Ui) {
    ui.weak(app.lessons.position());
    ui.horizontal_wrapped(|ui| {
        let first = app.lessons.is_first();
        if ui
            .add_enabled(!first, egui::Button::new(t!("lessons-previous")))
            .clicked()
        {
            app.lessons.previous();
        }
        let last = app.lessons.is_last();
        if ui
            .add_enabled(!last, egui::Button::new(t!("lessons-next")))
            .clicked()
        {
            app.lessons.next();
        }
        ui.weak(t!("lessons-page-keys"));
    });
    contents(app, ui);
    let lesson = &content::LESSONS[app.lessons.lesson];
    let page = app.lessons.current();
    ui.separator();
    ui.label(RichText::new(format!("{}. {}", app.lessons.lesson + 1, lesson.title())).weak());
    crate::app::widgets::math_text::heading(ui, &page.title());
    for p in page.paragraphs() {
        ui.add_space(4.0);
        // A paragraph that is only `$$name$$` is a display formula.
        match crate::app::formulas::display_name(&p) {
            Some(name) => crate::app::formulas::show(ui, name),
            None => crate::app::widgets::math_text::label(ui, &p),
        };
    }
    ui.add_space(8.0);
    if app
        .labs
        .by_id(page.lab())
        .is_some_and(|l| l.uses_shared_model())
    {
        model_note(app, ui);
    }
    if ui.button(t!("lessons-set-up-again")).clicked() {
        app.lessons.applied = None;
    }
    if uses_shared_input(app) {
        egui::CollapsingHeader::new(t!("lessons-input-controls"))
            .default_open(false)
            .show(ui, |ui| app.bench.controls(ui));
    }
}

/// Which model the lab beside the text runs; a toy one says so and lists all it knows.
fn model_note(app: &GlimpseApp, ui: &mut Ui) {
    let name = &app.bench.model_name;
    let Ok(model) = &app.bench.model else {
        return;
    };
    let c = &model.config;
    ui.label(
        RichText::new(t!(
            "lessons-model",
            name = name,
            layers = c.n_layers,
            heads = c.n_heads,
            d = c.d_model
        ))
        .strong(),
    );
    // The text the lab is showing, so "on this sentence" never leaves the reader guessing
    // (the input box itself sits folded under the page).
    if uses_shared_input(app) {
        let b = &app.bench;
        let text = match (b.source.trim(), b.target.trim()) {
            (s, "") => t!("lessons-input", text = s),
            ("", t) => t!("lessons-input", text = t),
            (s, t) => t!("lessons-input-pair", source = s, target = t),
        };
        ui.label(text);
    }
    let vocabulary = crate::model::vocabulary::known(&model.tokenizer);
    if !vocabulary.is_empty() {
        ui.weak(t!(
            "lessons-toy-vocabulary",
            count = vocabulary.len(),
            tokens = vocabulary.join(" ")
        ));
    }
    ui.add_space(4.0);
}

/// The table of contents: every lesson and page, the current one selected; click to jump.
fn contents(app: &mut GlimpseApp, ui: &mut Ui) {
    egui::CollapsingHeader::new(t!("lessons-contents"))
        .default_open(false)
        .show(ui, |ui| {
            for (l, lesson) in content::LESSONS.iter().enumerate() {
                let here = app.lessons.lesson == l;
                let title = format!("{} {}", l + 1, lesson.title());
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
                        let label = format!("{}.{} {}", l + 1, p + 1, page.title());
                        let math = crate::app::widgets::math_text::selectable_label;
                        if math(ui, current, &label).clicked() {
                            app.lessons.lesson = l;
                            app.lessons.page = p;
                        }
                    }
                });
            }
        });
}
