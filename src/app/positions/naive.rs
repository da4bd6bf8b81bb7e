//! Naive positional schemes (being written).

#[derive(Default)]
pub struct NaivePanel {}

impl NaivePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label("naive");
    }
}
