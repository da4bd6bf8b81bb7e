//! When the picked model is an encoder it predicts no next token: it fills in blanks instead
//! (BERT's masked-language-model task). The student writes a sentence with the mask token and
//! sees the model's candidates for each blank, p = softmax(logits at the blank). The pass goes
//! through the model store: a large encoder's runs a slice a frame in the browser.

use crate::app::models::store::{is_unfinished, ModelStore};
use crate::model::mlm::{self, MaskSlot};
use crate::model::{ForwardOptions, Model};
use crate::t;
use egui::{RichText, Ui};
use std::sync::Arc;

/// Candidates shown per blank.
const TOP: usize = 8;

#[derive(Default)]
pub struct FillMask {
    text: String,
    /// The model and text the candidates were computed for.
    computed_for: Option<(String, String)>,
    result: Option<Result<Vec<MaskSlot>, String>>,
}

impl FillMask {
    /// The candidates shown (or why there are none).
    pub fn result(&self) -> Option<&Result<Vec<MaskSlot>, String>> {
        self.result.as_ref()
    }

    /// The sentence with its blanks (the link's `fmask`).
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn set_text(&mut self, text: String) {
        self.text = text;
    }

    pub fn show(&mut self, ui: &mut Ui, store: &ModelStore, name: &str, model: &Arc<Model>) {
        ui.label(t!("decoding-fill-intro", model = name));
        let mask = match mlm::mask_token(model) {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, &e);
                ui.weak(t!("decoding-fill-pick-decoder"));
                self.result = Some(Err(e));
                self.computed_for = None;
                return;
            }
        };
        if !self.text.contains(&mask) {
            self.text = format!("The capital of France is {mask}.");
        }
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(t!("decoding-fill-sentence", mask = &mask));
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(420.0))
                .labelled_by(l.id);
        });
        // One forward pass per change of model or text, not per frame (asked for again while
        // the store's pass runs, or stays cancelled).
        let key = (name.to_string(), self.text.clone());
        let unfinished = matches!(&self.result, Some(Err(e)) if is_unfinished(e));
        if self.computed_for.as_ref() != Some(&key) || unfinished {
            self.result = Some(mlm::fill_mask_with(model, &self.text, TOP, |input| {
                store.forward(name, input, &ForwardOptions::default())
            }));
            self.computed_for = Some(key);
        }
        match &self.result {
            Some(Ok(slots)) => {
                for (i, slot) in slots.iter().enumerate() {
                    candidates(ui, i, slot);
                }
            }
            Some(Err(e)) if is_unfinished(e) => crate::app::models::pass_answer::show(ui, store, e),
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
            }
            None => {}
        }
    }
}

/// One blank's candidates as a table with probability bars.
fn candidates(ui: &mut Ui, index: usize, slot: &MaskSlot) {
    ui.add_space(6.0);
    let title = t!(
        "decoding-fill-blank",
        blank = index + 1,
        position = slot.position
    );
    ui.label(RichText::new(title).strong());
    egui::Grid::new(("fill_mask", index))
        .num_columns(3)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            for c in &slot.candidates {
                ui.monospace(&c.token);
                ui.add(
                    egui::ProgressBar::new(c.probability)
                        .desired_width(220.0)
                        .desired_height(12.0),
                );
                ui.label(format!("{:.3}", c.probability));
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    /// On an encoder the store runs a slice a frame (the browser's way with a large one), the
    /// blanks show the pass's progress for a few frames, then exactly the whole pass's
    /// candidates.
    #[test]
    fn a_sliced_fill_mask_pass_ends_as_the_whole_pass() {
        let store = std::rc::Rc::new(ModelStore::default());
        let model = store.get("sotu-mlm").unwrap();
        let params = crate::model::weights::parameter_count(&model.config);
        store.slice_passes(web_time::Duration::ZERO, params);
        let (frame_store, m) = (store.clone(), model.clone());
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .build_ui_state(
                move |ui, f: &mut FillMask| {
                    frame_store.take_arrivals();
                    f.show(ui, &frame_store, "sotu-mlm", &m);
                },
                FillMask::default(),
            );
        // A new sentence (the harness's first frames may have finished the first one's pass).
        h.state_mut()
            .set_text("The <mask> of the Union is strong.".into());
        h.run_steps(1);
        h.get_by_label_contains("computing sotu-mlm: step");
        let mut frames = 1;
        while !matches!(h.state().result(), Some(Ok(_))) {
            h.run_steps(1);
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        }
        assert!(frames > model.config.n_layers, "{frames} frames");
        let whole = mlm::fill_mask(&model, h.state().text(), TOP).unwrap();
        assert_eq!(h.state().result(), Some(&Ok(whole)));
        h.run_steps(1);
        h.get_by_label_contains("blank 1");
    }
}
