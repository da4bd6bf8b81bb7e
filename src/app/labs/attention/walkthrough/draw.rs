//! Drawing the walkthrough: step chips, the query picker and one step's matrices.

use super::{weighted_sum, Chain};
use crate::app::labs::attention::{Explorer, Selection};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::math_text;
use crate::t;

/// Panels wider than this many columns are drawn as strips, with the selected row's values
/// written out first and last.
const WIDE: usize = 16;

/// `[a, b, c, …, y, z]`: the first `head` and last `tail` values of a row, two decimals.
pub fn elided_row(row: &[f32], head: usize, tail: usize) -> String {
    let fmt = |v: &f32| format!("{v:.2}");
    let parts: Vec<String> = if row.len() <= head + tail + 1 {
        row.iter().map(fmt).collect()
    } else {
        let mut p: Vec<String> = row[..head].iter().map(fmt).collect();
        p.push("…".into());
        p.extend(row[row.len() - tail..].iter().map(fmt));
        p
    };
    format!("[{}]", parts.join(", "))
}

/// Draw the walkthrough; arrow keys step when no control has the focus (a focused slider
/// takes the arrows; Escape lets go of it).
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
            .add_enabled(ex.step > 0, egui::Button::new(t!("attention-walk-back")))
            .clicked()
        {
            ex.step -= 1;
        }
        for (i, s) in chain.steps.iter().enumerate() {
            let chip = math_text::selectable_value(ui, &mut ex.step, i, &s.label());
            crate::app::probe::control(&format!("step:{}", s.title), chip.rect);
        }
        if ui
            .add_enabled(
                ex.step + 1 < n,
                egui::Button::new(t!("attention-walk-next")),
            )
            .clicked()
        {
            ex.step += 1;
        }
        ui.weak(t!("attention-walk-keys"));
    });
    ui.horizontal_wrapped(|ui| {
        ui.label(t!("attention-walk-query"));
        for (i, t) in chain.query_tokens.iter().enumerate() {
            ui.selectable_value(&mut sel.query, i, format!("{i} {t}"));
        }
    });
    let step = &chain.steps[ex.step];
    let heading = t!(
        "attention-walk-heading",
        step = ex.step + 1,
        steps = n,
        formula = &step.formula
    );
    math_text::heading(ui, &heading);
    math_text::label(ui, &format!("{} ({})", step.explain, sel.describe()));
    if let Some(name) = step.display() {
        crate::app::formulas::show(ui, name);
    }
    if step.title == "A·V" {
        ui.monospace(weighted_sum(chain, sel.query));
    }
    let count = step.panels.len() as f32;
    let width = (ui.available_width() / count - 8.0).max(120.0);
    let (query, key, column) = (
        t!("attention-axis-query"),
        t!("attention-axis-key"),
        t!("attention-walk-axis-column"),
    );
    ui.horizontal_top(|ui| {
        for p in &step.panels {
            ui.allocate_ui(egui::vec2(width, ui.available_height()), |ui| {
                ui.vertical(|ui| {
                    let name = format!("{}  ({} × {})", p.name, p.matrix.nrows(), p.matrix.ncols());
                    math_text::strong(ui, &name);
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
                    let wide = p.matrix.ncols() > WIDE;
                    if wide {
                        ui.weak(t!("attention-walk-strips", columns = p.matrix.ncols()));
                    }
                    let out = Heatmap {
                        allowed: p.mask.as_ref().map(|m| m.view()),
                        show_numbers: true,
                        stretch: true,
                        max_cell: 44.0,
                        axis_names: if p.query_rows {
                            (&query, &column)
                        } else {
                            (&key, &column)
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
                    // A strip shows a wide row's shape, not its numbers: write the selected
                    // row's first and last values out.
                    if wide && sel.query < p.matrix.nrows() {
                        let row = p.matrix.row(sel.query).to_vec();
                        let label = p.rows.get(sel.query).map_or("?", String::as_str);
                        ui.add(egui::Label::new(
                            egui::RichText::new(t!(
                                "attention-walk-row",
                                row = sel.query,
                                token = label,
                                values = elided_row(&row, 3, 2)
                            ))
                            .monospace(),
                        ));
                    }
                });
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::elided_row;

    #[test]
    fn a_wide_row_is_written_first_and_last_with_an_ellipsis() {
        let row: Vec<f32> = (0..64).map(|i| i as f32 / 10.0).collect();
        assert_eq!(elided_row(&row, 3, 2), "[0.00, 0.10, 0.20, …, 6.20, 6.30]");
        assert_eq!(
            elided_row(&row[..6], 3, 2),
            "[0.00, 0.10, 0.20, 0.30, 0.40, 0.50]"
        );
    }
}
