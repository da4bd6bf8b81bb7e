//! When the picked model is an encoder it predicts no next token: it fills in blanks instead
//! (BERT's masked-language-model task). The student writes a sentence with the mask token and
//! sees the model's candidates for each blank, p = softmax(logits at the blank).

use crate::model::mlm::{self, MaskSlot};
use crate::model::Model;
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

    pub fn show(&mut self, ui: &mut Ui, name: &str, model: &Arc<Model>) {
        ui.label(format!(
            "{name} is an encoder: it reads the whole sentence at once, in both directions, and \
             predicts no next token. Its pre-training task was to fill in blanks: hide a word \
             behind the mask token and it proposes the words that fit, from the words on both \
             sides."
        ));
        let mask = match mlm::mask_token(model) {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, &e);
                ui.weak("Pick a decoder LM (SmolLM2, lm) in the top bar for beam search.");
                self.result = Some(Err(e));
                self.computed_for = None;
                return;
            }
        };
        if !self.text.contains(&mask) {
            self.text = format!("The capital of France is {mask}.");
        }
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(format!("sentence with {mask}:"));
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(420.0))
                .labelled_by(l.id);
        });
        // One forward pass per change of model or text, not per frame.
        let key = (name.to_string(), self.text.clone());
        if self.computed_for.as_ref() != Some(&key) {
            self.result = Some(mlm::fill_mask(model, &self.text, TOP));
            self.computed_for = Some(key);
        }
        match &self.result {
            Some(Ok(slots)) => {
                for (i, slot) in slots.iter().enumerate() {
                    candidates(ui, i, slot);
                }
            }
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
    ui.label(RichText::new(format!("blank {} (token {})", index + 1, slot.position)).strong());
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
