//! One band as the notes' point b_t = (sin(ω_k t), cos(ω_k t)) on the unit circle: the point
//! turns by ω_k per position; its sine alone is the same at the mirrored angle π − θ, and the
//! pair tells the two apart.

use super::draw::{COS_COLOR, SIN_COLOR};
use super::maths::{band_point, confusions};
use super::SinusoidalPanel;
use crate::app::widgets::math_text;
use crate::model::position::{sinusoidal_frequency, sinusoidal_wavelength};
use egui::{Align2, Color32, FontId, Pos2, Sense, Shape, Stroke, Vec2};
use std::f64::consts::{PI, TAU};

/// How close two sines (or two points) must be for the view to call them the same.
pub const TOLERANCE: f32 = 0.05;
/// The notes' example: sin(π/6) = sin(5π/6).
pub const NOTES_ANGLES: [f64; 2] = [PI / 6.0, 5.0 * PI / 6.0];
const NOTES_COLOR: Color32 = Color32::from_rgb(0xcc, 0x79, 0xa7);

fn number(x: f64) -> String {
    format!("{x:+.4}").replace('-', "−")
}

/// A list of positions, or the words for none.
fn positions(list: &[usize]) -> String {
    if list.is_empty() {
        crate::t!("positions-sin-circle-none")
    } else {
        let shown: Vec<String> = list.iter().take(12).map(usize::to_string).collect();
        let more = list.len().saturating_sub(12);
        if more > 0 {
            format!("{} … (+{more})", shown.join(", "))
        } else {
            shown.join(", ")
        }
    }
}

impl SinusoidalPanel {
    pub(super) fn circle_view(&mut self, ui: &mut egui::Ui) {
        let (d, base, n, k) = (self.d, self.base, self.n, self.band);
        self.circle_t = self.circle_t.min(n - 1);
        ui.strong(crate::t!("positions-sin-circle-title"));
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.circle_t, 0..=n - 1)
                    .text(crate::t!("positions-sin-circle-position")),
            );
            ui.checkbox(
                &mut self.notes_angles,
                crate::t!("positions-sin-circle-notes-toggle"),
            );
        });
        let t = self.circle_t;
        let omega = sinusoidal_frequency(k, d, base);
        let theta = t as f64 * omega;
        let (s, c) = band_point(t, k, d, base);
        let twins = confusions(t, k, d, base, n, TOLERANCE);
        ui.horizontal_top(|ui| {
            self.draw_circle(ui, (s, c));
            ui.vertical(|ui| {
                math_text::monospace(
                    ui,
                    &crate::t!(
                        "positions-sin-circle-angle",
                        t = t,
                        omega = format!("{omega:.4}"),
                        theta = format!("{theta:.4}"),
                        turned = format!("{:.4}", theta.rem_euclid(TAU)),
                        turns = format!("{:.2}", theta / TAU),
                    ),
                );
                math_text::monospace(
                    ui,
                    &crate::t!(
                        "positions-sin-circle-point",
                        band = k,
                        sin = number(s as f64),
                        cos = number(c as f64),
                    ),
                );
                ui.label(crate::t!(
                    "positions-sin-circle-mirror",
                    mirror = format!("{:.4}", (PI - theta).rem_euclid(TAU)),
                    sin = number(s as f64),
                    cos = number(-c as f64),
                ));
                ui.add_space(6.0);
                math_text::label(
                    ui,
                    &crate::t!(
                        "positions-sin-circle-confused",
                        last = n - 1,
                        t = t,
                        tolerance = format!("{TOLERANCE}"),
                        by_sine = positions(&twins.by_sine),
                        by_point = positions(&twins.by_point),
                        wavelength = format!("{:.2}", sinusoidal_wavelength(k, d, base)),
                    ),
                );
                ui.weak(crate::t!("positions-sin-circle-note"));
                if self.notes_angles {
                    let [a, b] = NOTES_ANGLES;
                    ui.add_space(6.0);
                    let notes = crate::t!(
                        "positions-sin-circle-notes",
                        sin_a = format!("{:.4}", a.sin()),
                        sin_b = format!("{:.4}", b.sin()),
                        cos_a = number(a.cos()),
                        cos_b = number(b.cos()),
                    );
                    math_text::styled(ui, &notes, egui::TextStyle::Monospace, NOTES_COLOR);
                }
            });
        });
    }

    /// The unit circle with cos across and sin up (so θ is measured as usual): every position
    /// 0 … N−1 as a small dot, position t bright with its radius, the mirrored angle π − θ
    /// hollow on the same height, and the notes' two angles when asked for.
    fn draw_circle(&self, ui: &mut egui::Ui, (s, c): (f32, f32)) {
        let size = 300.0;
        let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::hover());
        let words = crate::t!(
            "positions-sin-circle-name",
            band = self.band,
            t = self.circle_t,
            sin = number(s as f64),
            cos = number(c as f64),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &words));
        let painter = ui.painter_at(rect);
        let center = rect.center();
        let radius = size * 0.5 - 34.0;
        let at = |sin: f64, cos: f64| {
            Pos2::new(
                center.x + radius * cos as f32,
                center.y - radius * sin as f32,
            )
        };
        let faint = ui.visuals().weak_text_color();
        let text = ui.visuals().text_color();
        let axis = Stroke::new(1.0, faint);
        painter.line_segment([at(0.0, -1.15), at(0.0, 1.15)], axis);
        painter.line_segment([at(-1.15, 0.0), at(1.15, 0.0)], axis);
        painter.circle_stroke(center, radius, Stroke::new(1.5, text));
        let font = FontId::proportional(13.0);
        painter.text(
            at(0.02, 1.15),
            Align2::RIGHT_BOTTOM,
            "cos",
            font.clone(),
            COS_COLOR,
        );
        painter.text(
            at(1.2, 0.0),
            Align2::CENTER_BOTTOM,
            "sin",
            font.clone(),
            SIN_COLOR,
        );
        let (d, base) = (self.d, self.base);
        for other in 0..self.n {
            let (s2, c2) = band_point(other, self.band, d, base);
            painter.circle_filled(at(s2 as f64, c2 as f64), 2.5, faint);
        }
        // Same height, other side: the chord every angle with this sine lies on.
        let (s, c) = (s as f64, c as f64);
        let chord = Stroke::new(1.0, SIN_COLOR);
        painter.add(Shape::dashed_line(
            &[at(s, -1.15), at(s, 1.15)],
            chord,
            5.0,
            4.0,
        ));
        painter.line_segment([center, at(s, c)], Stroke::new(2.0, text));
        painter.circle_filled(at(s, c), 6.0, SIN_COLOR);
        painter.circle_stroke(at(s, -c), 6.0, Stroke::new(2.0, SIN_COLOR));
        let label = |p: Pos2, words: String, color: Color32| {
            let outward = (p - center).normalized() * 16.0;
            painter.text(
                p + outward,
                Align2::CENTER_CENTER,
                words,
                font.clone(),
                color,
            );
        };
        label(at(s, c), format!("t = {}", self.circle_t), text);
        label(at(s, -c), "π − θ".to_string(), text);
        if self.notes_angles {
            for (angle, name) in NOTES_ANGLES.iter().zip(["π/6", "5π/6"]) {
                let p = at(angle.sin(), angle.cos());
                painter.circle_filled(p, 5.0, NOTES_COLOR);
                label(p, name.to_string(), NOTES_COLOR);
            }
        }
    }
}
