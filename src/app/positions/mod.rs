//! The positional-encoding lab: every scheme's mathematics, drawn with the functions the
//! model runs (`model::position`), beside the attention of a trained model that uses it.

pub mod bias;
pub mod extrapolation;
pub mod learned;
pub mod naive;
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
}

impl Section {
    pub const ALL: [Section; 7] = [
        Section::Sinusoidal,
        Section::Naive,
        Section::Learned,
        Section::Bias,
        Section::Rope,
        Section::Permutation,
        Section::Extrapolation,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Section::Sinusoidal => "Sinusoidal",
            Section::Naive => "Naive (t, t/N)",
            Section::Learned => "Learned table",
            Section::Bias => "ALiBi & relative",
            Section::Rope => "RoPE",
            Section::Permutation => "Why at all: shuffle",
            Section::Extrapolation => "Longer than trained",
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
        }
    }
}

impl Lab for PositionsLab {
    fn id(&self) -> &'static str {
        "positions"
    }

    fn title(&self) -> &'static str {
        "Positions"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn about(&self) -> &'static str {
        "every positional scheme, drawn with the functions the model runs, on models trained with it"
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            export::view_menu(ui, shared.exporter, rect, "glimpse-positions.png", &[]);
        });
        self.draw(ui, shared.store);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["ps"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("ps", index_of(&Section::ALL, &self.section));
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.read("ps", |v| at_index(&Section::ALL, v)) {
            self.section = x;
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..Section::ALL.len())
            .map(|s| format!("view=positions&ps={s}"))
            .collect()
    }
}

impl PositionsLab {
    pub fn draw(&mut self, ui: &mut egui::Ui, store: &crate::app::store::ModelStore) {
        ui.horizontal_wrapped(|ui| {
            for s in Section::ALL {
                let tab = ui.selectable_value(&mut self.section, s, s.label());
                crate::app::probe::control(&format!("positions:{}", s.label()), tab.rect);
            }
        });
        ui.separator();
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
                        _ => self.extrapolation.ui(ui, store),
                    },
                );
            }
        }
    }
}
