//! The heads found on this input: for each pattern the classifier knows, the head that shows
//! it most strongly, with its score; a click opens that head.

use super::Selection;
use crate::app::words::Words;
use crate::model::heads::{best_heads, HeadStats};
use egui::{RichText, Ui};

/// Draw the table; a click on a head selects it and returns true (the caller opens it).
pub fn show(ui: &mut Ui, stats: &[Vec<HeadStats>], sel: &mut Selection) -> bool {
    let found = best_heads(stats);
    if found.is_empty() {
        return false;
    }
    let mut opened = false;
    ui.strong(crate::t!("attention-finder-title"));
    ui.weak(crate::t!("attention-finder-explain"));
    egui::Grid::new("head_finder")
        .striped(true)
        .spacing([16.0, 2.0])
        .show(ui, |ui| {
            for f in &found {
                let text = |t: String| {
                    let t = RichText::new(t);
                    if f.clear {
                        t
                    } else {
                        t.weak()
                    }
                };
                ui.label(text(f.pattern.words().to_string()))
                    .on_hover_text(crate::app::words::pattern_explained(f.pattern));
                let name = crate::t!("attention-layer-head", layer = f.layer, head = f.head);
                if ui.link(text(name)).clicked() {
                    sel.layer = f.layer;
                    sel.head = f.head;
                    opened = true;
                }
                ui.add(egui::ProgressBar::new(f.score).desired_width(120.0));
                ui.monospace(format!("{:.2}", f.score));
                ui.end_row();
            }
        });
    ui.separator();
    opened
}
