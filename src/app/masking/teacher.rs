//! Teacher forcing and what the causal mask is for (being written).

#[derive(Default)]
pub struct TeacherForcing {}

impl TeacherForcing {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label("teacher forcing");
    }
}
