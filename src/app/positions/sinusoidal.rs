//! Sinusoidal and naive positional encodings (being written).

#[derive(Default)]
pub struct SinusoidalPanel {}

impl SinusoidalPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label("sinusoidal");
    }
}
