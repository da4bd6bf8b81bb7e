//! What a view draws while its pass is not a trace: for a store pass, a spinner, how far it is
//! and Cancel, once cancelled a line saying so and Run again, else the failure; for the shared
//! input's pass, the progress line with Cancel.

use crate::app::models::store::{is_cancelled, is_computing, ModelStore};
use crate::t;

/// Shows `e`, an answer of `ModelStore::forward` that is not a trace (or an error the view's
/// own work derived from one).
pub fn show(ui: &mut egui::Ui, store: &ModelStore, e: &str) {
    if is_computing(e) {
        ui.horizontal_wrapped(|ui| {
            ui.spinner();
            ui.label(e);
            let cancel = ui
                .button(t!("models-cancel"))
                .on_hover_text(t!("models-cancel-store-hover"));
            crate::app::probe::control("cancel store pass", cancel.rect);
            if cancel.clicked() {
                store.cancel_asked();
            }
        });
    } else if is_cancelled(e) {
        ui.horizontal_wrapped(|ui| {
            ui.label(e);
            let again = ui.button(t!("models-run-again"));
            crate::app::probe::control("run store pass again", again.rect);
            if again.clicked() {
                store.resume_asked();
            }
        });
    } else {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
}

/// The progress line: a spinner, the steps done, and Cancel. True when Cancel was clicked.
pub fn progress_line(ui: &mut egui::Ui, model: &str, (done, all): (usize, usize)) -> bool {
    ui.horizontal(|ui| {
        ui.spinner();
        let text = t!("models-progress", model = model, done = done, all = all);
        ui.add(
            egui::ProgressBar::new(done as f32 / all.max(1) as f32)
                .text(text)
                .desired_width(420.0),
        );
        let cancel = ui
            .button(t!("models-cancel"))
            .on_hover_text(t!("models-cancel-pass-hover"));
        crate::app::probe::control("cancel pass", cancel.rect);
        cancel.clicked()
    })
    .inner
}
