//! Section 4 of the panel: hand-typed vectors rotated by `position::rope_rotate`, with the
//! `glimpse pe` command that prints the same numbers.

use super::maths::{cli_command, length, rows_json, table_rotate};
use super::{RopePanel, MAX_TABLE_PAIRS, MAX_TABLE_ROWS};

impl RopePanel {
    pub(super) fn table_section(&mut self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-rope-table-title"));
        ui.label(crate::t!("positions-rope-table-about"));
        let pairs = self.table.first().map_or(1, |r| r.len() / 2);
        ui.horizontal_wrapped(|ui| {
            if ui
                .add_enabled(
                    self.table.len() < MAX_TABLE_ROWS,
                    egui::Button::new(crate::t!("positions-rope-add-token")),
                )
                .clicked()
            {
                let row = self.table.last().cloned().unwrap_or(vec![1.0, 0.0]);
                let t = self.table_positions.last().map_or(0, |t| t + 1);
                self.table.push(row);
                self.table_positions.push(t);
            }
            if ui
                .add_enabled(
                    self.table.len() > 1,
                    egui::Button::new(crate::t!("positions-rope-remove-token")),
                )
                .clicked()
            {
                self.table.pop();
                self.table_positions.pop();
            }
            if ui
                .add_enabled(
                    pairs < MAX_TABLE_PAIRS,
                    egui::Button::new(crate::t!("positions-rope-add-pair")),
                )
                .clicked()
            {
                for row in &mut self.table {
                    row.extend([1.0, 0.0]);
                }
            }
            if ui
                .add_enabled(
                    pairs > 1,
                    egui::Button::new(crate::t!("positions-rope-remove-pair")),
                )
                .clicked()
            {
                for row in &mut self.table {
                    row.truncate(row.len().saturating_sub(2).max(2));
                }
            }
            if ui
                .button(crate::t!("positions-rope-notes-example"))
                .on_hover_text(crate::t!("positions-rope-notes-example-hover"))
                .clicked()
            {
                self.set_notes_example();
            }
            let l = ui.label(crate::t!("positions-slider-base"));
            ui.add(
                egui::DragValue::new(&mut self.table_base)
                    .range(2.0..=1.0e6)
                    .speed(10.0),
            )
            .labelled_by(l.id);
        });
        self.table_positions.resize(self.table.len(), 0);
        let width = self.table.first().map_or(0, Vec::len);
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.label(crate::t!("positions-rope-input-x"));
                egui::Grid::new("rope_table_input")
                    .striped(true)
                    .show(ui, |ui| {
                        ui.label(crate::t!("positions-perm-col-token"));
                        ui.label(crate::t!("positions-axis-position"));
                        for c in 0..width {
                            ui.label(format!("x{c}"));
                        }
                        ui.end_row();
                        for (r, (row, t)) in self
                            .table
                            .iter_mut()
                            .zip(&mut self.table_positions)
                            .enumerate()
                        {
                            ui.label(crate::t!("positions-rope-token", token = r));
                            ui.add(egui::DragValue::new(t).range(0..=1000))
                                .accessible_name(crate::t!(
                                    "positions-rope-token-position",
                                    token = r
                                ));
                            for (c, v) in row.iter_mut().enumerate() {
                                ui.add(
                                    egui::DragValue::new(v)
                                        .speed(0.01)
                                        .range(-100.0..=100.0)
                                        .max_decimals(4),
                                )
                                .accessible_name(crate::t!(
                                    "positions-rope-token-component",
                                    token = r,
                                    component = c
                                ));
                            }
                            ui.end_row();
                        }
                    });
            });
            ui.add_space(24.0);
            ui.vertical(|ui| {
                crate::app::widgets::math_text::label(ui, &crate::t!("positions-rope-rotated"));
                match table_rotate(&self.table, &self.table_positions, self.table_base) {
                    Err(e) => {
                        ui.colored_label(ui.visuals().error_fg_color, e);
                    }
                    Ok(out) => {
                        egui::Grid::new("rope_table_output")
                            .striped(true)
                            .show(ui, |ui| {
                                ui.label(crate::t!("positions-perm-col-token"));
                                for c in 0..width {
                                    ui.label(format!("y{c}"));
                                }
                                ui.label("|x|");
                                ui.label("|y|");
                                ui.end_row();
                                for (r, (x, y)) in self.table.iter().zip(&out).enumerate() {
                                    ui.label(crate::t!("positions-rope-token", token = r));
                                    for v in y {
                                        ui.monospace(format!("{v:.4}"));
                                    }
                                    ui.monospace(format!("{:.4}", length(x)));
                                    ui.monospace(format!("{:.4}", length(y)));
                                    ui.end_row();
                                }
                            });
                    }
                }
            });
        });
        ui.label(crate::t!("positions-rope-cli"));
        ui.monospace(cli_command(&self.table_positions, self.table_base));
        ui.label("rows.json:");
        ui.monospace(rows_json(&self.table));
        ui.weak(crate::t!("positions-rope-cli-note"));
    }
}
