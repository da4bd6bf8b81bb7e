//! The three families side by side (being written).

#[derive(Default)]
pub struct Families {}

impl Families {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label("families");
    }
}
