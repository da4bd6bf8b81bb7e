//! Drawing the walkthrough: step chips, the query picker and one step's matrices.

use super::{weighted_sum, Chain};
use crate::app::explorer::{Explorer, Selection};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;

/// Draw the walkthrough; arrow keys step when no text field has the keyboard.
pub fn show(ui: &mut egui::Ui, chain: &Chain, sel: &mut Selection, ex: &mut Explorer) {
    let n = chain.steps.len();
    if !ui.ctx().egui_wants_keyboard_input() {
        ui.input(|i| {
            if i.key_pressed(egui::Key::ArrowRight) {
                ex.step = (ex.step + 1).min(n - 1);
            }
            if i.key_pressed(egui::Key::ArrowLeft) {
                ex.step = ex.step.saturating_sub(1);
            }
        });
    }
    ex.step = ex.step.min(n - 1);
    sel.query = sel.query.min(chain.query_tokens.len().saturating_sub(1));
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(ex.step > 0, egui::Button::new("◀ Back"))
            .clicked()
        {
            ex.step -= 1;
        }
        for (i, s) in chain.steps.iter().enumerate() {
            let chip = ui.selectable_value(&mut ex.step, i, s.title);
            crate::app::probe::control(&format!("step:{}", s.title), chip.rect);
        }
        if ui
            .add_enabled(ex.step + 1 < n, egui::Button::new("Next ▶"))
            .clicked()
        {
            ex.step += 1;
        }
        ui.weak("(← → keys)");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("query:");
        for (i, t) in chain.query_tokens.iter().enumerate() {
            ui.selectable_value(&mut sel.query, i, format!("{i} {t}"));
        }
    });
    let step = &chain.steps[ex.step];
    ui.heading(format!("Step {} of {n}: {}", ex.step + 1, step.formula));
    ui.label(format!("{} ({})", step.explain, sel.describe()));
    if step.title == "A·V" {
        ui.monospace(weighted_sum(chain, sel.query));
    }
    let count = step.panels.len() as f32;
    let width = (ui.available_width() / count - 8.0).max(120.0);
    ui.horizontal_top(|ui| {
        for p in &step.panels {
            ui.allocate_ui(egui::vec2(width, ui.available_height()), |ui| {
                ui.vertical(|ui| {
                    ui.strong(format!(
                        "{}  ({} × {})",
                        p.name,
                        p.matrix.nrows(),
                        p.matrix.ncols()
                    ));
                    let scale = if p.signed {
                        ColorScale::diverging_for(p.matrix.iter())
                    } else {
                        ColorScale::Sequential { min: 0.0, max: 1.0 }
                    };
                    // Outline the selected query's row; on the A·V step, also the value rows
                    // it mixes, as strongly as it weights them.
                    let highlight = if p.query_rows { Some(sel.query) } else { None };
                    let mixing = chain.weights.row(sel.query).to_vec();
                    let emphasis =
                        (step.title == "A·V" && p.name == "V").then_some(mixing.as_slice());
                    let context = format!("{} · {}", p.name, sel.describe());
                    let out = Heatmap {
                        allowed: p.mask.as_ref().map(|m| m.view()),
                        show_numbers: true,
                        max_cell: 44.0,
                        axis_names: if p.query_rows {
                            ("query", "column")
                        } else {
                            ("key", "column")
                        },
                        context: &context,
                        highlight_row: highlight,
                        row_emphasis: emphasis,
                        ..Heatmap::new(p.matrix.view(), &p.rows, &p.cols, scale)
                    }
                    .show(ui);
                    if let (true, Some((r, _))) = (p.query_rows, out.clicked) {
                        sel.query = r;
                    }
                });
            });
        }
    });
}
