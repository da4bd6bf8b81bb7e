//! The positional-encoding lab: every scheme's mathematics, drawn with the functions the
//! model runs (`model::position`), beside the attention of a trained model that uses it.

pub mod bias;
pub mod depth;
pub mod extrapolation;
pub mod learned;
pub mod naive;
pub mod own;
pub mod permutation;
pub mod rope;
pub mod sinusoidal;

use crate::app::export;
use crate::app::labs::{Lab, Shared};
use crate::app::link::{at_index, index_of, LinkReader, LinkWriter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Sinusoidal,
    Naive,
    Learned,
    Bias,
    Rope,
    Permutation,
    Extrapolation,
    /// The model picked in the top bar (after the others, so older links keep their section
    /// numbers).
    OwnModel,
    /// Does position survive depth: the probe on the picked model.
    Depth,
}

impl Section {
    pub const ALL: [Section; 9] = [
        Section::Sinusoidal,
        Section::Naive,
        Section::Learned,
        Section::Bias,
        Section::Rope,
        Section::Permutation,
        Section::Extrapolation,
        Section::OwnModel,
        Section::Depth,
    ];

    /// Its chip's text, in the reader's language.
    pub fn label(self) -> String {
        match self {
            Section::Sinusoidal => crate::t!("positions-section-sinusoidal"),
            Section::Naive => crate::t!("positions-section-naive"),
            Section::Learned => crate::t!("positions-section-learned"),
            Section::Bias => crate::t!("positions-section-bias"),
            Section::Rope => crate::t!("positions-section-rope"),
            Section::Permutation => crate::t!("positions-section-permutation"),
            Section::Extrapolation => crate::t!("positions-section-extrapolation"),
            Section::OwnModel => crate::t!("positions-section-own"),
            Section::Depth => crate::t!("positions-section-depth"),
        }
    }

    /// Its name for the tests' and browser scripts' control probes (the English chip text,
    /// whatever the reader's language).
    pub fn probe_name(self) -> &'static str {
        match self {
            Section::Sinusoidal => "Sinusoidal",
            Section::Naive => "Naive (t, t/N)",
            Section::Learned => "Learned table",
            Section::Bias => "ALiBi & relative",
            Section::Rope => "RoPE",
            Section::Permutation => "Why at all: reorder",
            Section::Extrapolation => "Longer than trained",
            Section::OwnModel => "The picked model",
            Section::Depth => "Through depth",
        }
    }
}

pub struct PositionsLab {
    pub section: Section,
    pub sinusoidal: sinusoidal::SinusoidalPanel,
    pub naive: naive::NaivePanel,
    pub learned: learned::LearnedPanel,
    pub bias: bias::BiasPanel,
    pub rope: rope::RopePanel,
    pub permutation: permutation::PermutationPanel,
    pub extrapolation: extrapolation::ExtrapolationPanel,
    pub own: own::OwnPanel,
    pub depth: depth::DepthPanel,
}

impl Default for PositionsLab {
    fn default() -> Self {
        Self {
            section: Section::Sinusoidal,
            sinusoidal: Default::default(),
            naive: Default::default(),
            learned: Default::default(),
            bias: Default::default(),
            rope: Default::default(),
            permutation: Default::default(),
            extrapolation: Default::default(),
            own: Default::default(),
            depth: Default::default(),
        }
    }
}

impl Lab for PositionsLab {
    fn id(&self) -> &'static str {
        "positions"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    /// Only its last two sections read the shared model (the picker then applies).
    fn uses_shared_model(&self) -> bool {
        matches!(self.section, Section::OwnModel | Section::Depth)
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            export::view_menu(ui, shared.exporter, rect, "glimpse-positions.png", &[]);
        });
        if self.section == Section::OwnModel {
            self.tabs(ui);
            let model = shared.bench.model.as_deref().map_err(String::as_str);
            self.own.ui(ui, model);
            return;
        }
        if self.section == Section::Depth {
            self.tabs(ui);
            let model = shared.bench.model.as_deref().map_err(String::as_str);
            let name = shared.bench.model_name.clone();
            egui::ScrollArea::vertical()
                .id_salt("positions_depth")
                .show(ui, |ui| self.depth.ui(ui, shared.store, &name, model));
            return;
        }
        self.draw(ui, shared.store);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["ps", "pm", "pt", "pr", "psd", "psb", "psc", "psn", "prt"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("ps", index_of(&Section::ALL, &self.section));
        // The permutation panel's encoder and, on the real one, its two sentences.
        let p = &self.permutation;
        if p.encoder == permutation::Encoder::Real {
            w.put("pm", "real");
            w.put("pt", &p.sentence);
            w.put("pr", &p.reordered);
        }
        // The sinusoidal panel's width, when a page set it (the notes' d = 4 table).
        if self.sinusoidal.d != sinusoidal::SinusoidalPanel::default().d {
            w.put("psd", self.sinusoidal.d);
        }
        // The unit-circle view's band, position and the notes' angles, when set.
        let (sin, fresh) = (&self.sinusoidal, sinusoidal::SinusoidalPanel::default());
        if sin.band != fresh.band {
            w.put("psb", sin.band);
        }
        if sin.circle_t != fresh.circle_t {
            w.put("psc", sin.circle_t);
        }
        if sin.notes_angles {
            w.put("psn", 1);
        }
        // The RoPE table, when it holds the notes' "the dog slept".
        if self.rope.shows_notes_example() {
            w.put("prt", "notes");
        }
    }

    fn load(&mut self, r: &mut LinkReader) {
        // A link that names a section speaks for the whole lab: the keys it leaves out are
        // the ones `save` writes only when they differ from the defaults, so they are defaults
        // (a lesson page would otherwise keep the real encoder an earlier page chose).
        let whole = r.get("ps").is_some();
        if let Some(x) = r.read("ps", |v| at_index(&Section::ALL, v)) {
            self.section = x;
        }
        let fresh = permutation::PermutationPanel::default();
        let p = &mut self.permutation;
        match r.read("pm", |v| match v {
            "real" => Some(permutation::Encoder::Real),
            "toy" => Some(permutation::Encoder::Toy),
            _ => None,
        }) {
            Some(e) => p.encoder = e,
            None if whole => p.encoder = fresh.encoder,
            None => {}
        }
        match r.get("pt") {
            Some(v) => p.sentence = v.chars().take(1000).collect(),
            None if whole => p.sentence = fresh.sentence,
            None => {}
        }
        match r.get("pr") {
            Some(v) => p.reordered = v.chars().take(1000).collect(),
            None if whole => p.reordered = fresh.reordered,
            None => {}
        }
        if whole {
            let fresh = sinusoidal::SinusoidalPanel::default();
            let sin = &mut self.sinusoidal;
            (sin.d, sin.band, sin.circle_t) = (fresh.d, fresh.band, fresh.circle_t);
            sin.notes_angles = fresh.notes_angles;
        }
        // Out-of-range numbers are clamped by the panel before it draws.
        if let Some(b) = r.read("psb", |v| v.parse::<usize>().ok()) {
            self.sinusoidal.band = b;
        }
        if let Some(t) = r.read("psc", |v| v.parse::<usize>().ok()) {
            self.sinusoidal.circle_t = t;
        }
        if let Some(on) = r.read("psn", |v| match v {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        }) {
            self.sinusoidal.notes_angles = on;
        }
        if let Some(d) = r.read("psd", |v| {
            v.parse::<usize>()
                .ok()
                .filter(|d| d % 2 == 0 && sinusoidal::D_RANGE.contains(d))
        }) {
            self.sinusoidal.d = d;
        }
        if r.read("prt", |v| (v == "notes").then_some(())).is_some() {
            self.rope.set_notes_example();
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..Section::ALL.len())
            .map(|s| format!("view=positions&ps={s}"))
            .collect()
    }
}

impl PositionsLab {
    /// The section chips.
    fn tabs(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for s in Section::ALL {
                let tab = ui.selectable_value(&mut self.section, s, s.label());
                crate::app::probe::control(&format!("positions:{}", s.probe_name()), tab.rect);
            }
        });
        ui.separator();
    }

    pub fn draw(&mut self, ui: &mut egui::Ui, store: &crate::app::models::store::ModelStore) {
        self.tabs(ui);
        // Panels with their own scroll areas draw directly; the others get one here.
        match self.section {
            Section::Sinusoidal => self.sinusoidal.ui(ui, store),
            Section::Naive => self.naive.ui(ui),
            Section::Rope => self.rope.ui(ui, store),
            section => {
                egui::ScrollArea::vertical().id_salt("positions_lab").show(
                    ui,
                    |ui| match section {
                        Section::Learned => self.learned.ui(ui, store),
                        Section::Bias => self.bias.ui(ui, store),
                        Section::Permutation => self.permutation.ui(ui, store),
                        Section::Extrapolation => self.extrapolation.ui(ui, store),
                        // Drawn by the lab itself, on the shared model (from the next frame).
                        _ => {}
                    },
                );
            }
        }
    }
}
