//! A store pass's answer where a view would draw its result: while the pass runs, a spinner,
//! how far it is and Cancel; once cancelled, a line saying so and Run again; else the failure.

use super::store::{is_cancelled, is_computing, ModelStore};

/// Shows `e`, an answer of `ModelStore::forward` that is not a trace (or an error the view's
/// own work derived from one).
pub fn show(ui: &mut egui::Ui, store: &ModelStore, e: &str) {
    if is_computing(e) {
        ui.horizontal_wrapped(|ui| {
            ui.spinner();
            ui.label(e);
            let cancel = ui
                .button("Cancel")
                .on_hover_text("stop this pass: nothing is computed until you run it again");
            super::probe::control("cancel store pass", cancel.rect);
            if cancel.clicked() {
                store.cancel_asked();
            }
        });
    } else if is_cancelled(e) {
        ui.horizontal_wrapped(|ui| {
            ui.label(e);
            let again = ui.button("Run again");
            super::probe::control("run store pass again", again.rect);
            if again.clicked() {
                store.resume_asked();
            }
        });
    } else {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
}
