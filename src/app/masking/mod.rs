//! The masking lab: causal, padding, prefix-LM and custom masks switched live on the real
//! models, padding in a batch, the three families side by side, and teacher forcing.

pub mod batch;
pub mod families;
pub mod modes;
pub mod teacher;

use crate::model::Model;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Modes,
    Batch,
    Families,
    TeacherForcing,
}

impl Section {
    pub const ALL: [Section; 4] = [
        Section::Modes,
        Section::Batch,
        Section::Families,
        Section::TeacherForcing,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Section::Modes => "Mask modes",
            Section::Batch => "Padding in a batch",
            Section::Families => "Three families",
            Section::TeacherForcing => "Teacher forcing",
        }
    }
}

pub struct MaskingLab {
    pub section: Section,
    pub modes: modes::ModesState,
    pub batch: batch::BatchState,
    pub families: families::Families,
    pub teacher: teacher::TeacherForcing,
}

impl Default for MaskingLab {
    fn default() -> Self {
        Self {
            section: Section::Modes,
            modes: Default::default(),
            batch: Default::default(),
            families: Default::default(),
            teacher: Default::default(),
        }
    }
}

impl MaskingLab {
    /// The lab over the app's model, input and selected layer/head (the first two sections);
    /// the last two bring their own shipped models.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        model: Option<&Model>,
        source: &str,
        target: &str,
        layer: usize,
        head: usize,
    ) {
        ui.horizontal_wrapped(|ui| {
            for s in Section::ALL {
                let tab = ui.selectable_value(&mut self.section, s, s.label());
                crate::app::probe::control(&format!("masking:{}", s.label()), tab.rect);
            }
        });
        ui.separator();
        // The last two sections scroll by themselves.
        match (self.section, model) {
            (Section::Families, _) => self.families.ui(ui),
            (Section::TeacherForcing, _) => self.teacher.ui(ui),
            (section, Some(m)) => {
                egui::ScrollArea::vertical()
                    .id_salt("masking_lab")
                    .show(ui, |ui| match section {
                        Section::Batch => batch::ui(ui, m, layer, head, &mut self.batch),
                        _ => modes::ui(ui, m, source, target, layer, head, &mut self.modes),
                    });
            }
            (_, None) => {
                ui.label("load a model first (the model picker above)");
            }
        }
    }
}
