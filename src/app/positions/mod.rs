//! The positional-encoding lab: every scheme's mathematics, drawn with the functions the
//! model runs (`model::position`), beside the attention of a trained model that uses it.

pub mod bias;
pub mod extrapolation;
pub mod learned;
pub mod naive;
pub mod permutation;
pub mod rope;
pub mod sinusoidal;

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

impl PositionsLab {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for s in Section::ALL {
                let tab = ui.selectable_value(&mut self.section, s, s.label());
                crate::app::probe::control(&format!("positions:{}", s.label()), tab.rect);
            }
        });
        ui.separator();
        // Panels with their own scroll areas draw directly; the others get one here.
        match self.section {
            Section::Sinusoidal => self.sinusoidal.ui(ui),
            Section::Naive => self.naive.ui(ui),
            Section::Rope => self.rope.ui(ui),
            section => {
                egui::ScrollArea::vertical().id_salt("positions_lab").show(
                    ui,
                    |ui| match section {
                        Section::Learned => self.learned.ui(ui),
                        Section::Bias => self.bias.ui(ui),
                        Section::Permutation => self.permutation.ui(ui),
                        _ => self.extrapolation.ui(ui),
                    },
                );
            }
        }
    }
}
