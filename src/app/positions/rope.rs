//! RoPE (being written).

#[derive(Default)]
pub struct RopePanel {}

impl RopePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label("rope");
    }
}
