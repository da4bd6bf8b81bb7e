//! Sections 1–3 of the panel: a query and a key on the circle, the score against the position
//! and against the offset, and the angle of every pair and position.

use super::maths::{
    angle_between, angle_values, norm, offset_score, pair_score, rotate_pair, scores_agree,
    scores_along_i, scores_along_offset, AngleView, MAX_POSITION,
};
use super::{RopePanel, KEY, QUERY};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::widgets::math_text;
use crate::app::widgets::plot_words::PlotWords;
use crate::model::position;
use egui::{Align2, Color32, FontId, Pos2, Sense, Shape, Stroke, Vec2};
use egui_plot::{Corner, Legend, Line, LineStyle, Plot, VLine};

impl RopePanel {
    pub(super) fn circle_section(&mut self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-rope-circle-title"));
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(440.0);
                pair_editor(ui, &crate::t!("positions-rope-query-q"), &mut self.q);
                pair_editor(ui, &crate::t!("positions-rope-key-k"), &mut self.k);
                let width = crate::t!("positions-rope-head-width");
                let slider = crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.d_head, 2..=64)
                        .step_by(2.0)
                        .text(math_text::widget_text(ui, &width)),
                );
                math_text::name_slider(&slider, &width, self.d_head as f64);
                self.pair = self.pair.min(self.d_head / 2 - 1);
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.pair, 0..=self.d_head / 2 - 1)
                        .text(crate::t!("positions-rope-pair-p")),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.base, 2.0..=1.0e6)
                        .logarithmic(true)
                        .text(crate::t!("positions-slider-base")),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.i, 0..=MAX_POSITION)
                        .text(crate::t!("positions-rope-query-position-i")),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.j, 0..=MAX_POSITION)
                        .text(crate::t!("positions-rope-key-position-j")),
                );
                ui.checkbox(&mut self.animate, crate::t!("positions-rope-animate"));
                let omega = position::rope_angle(1, self.pair, self.d_head, self.base);
                math_text::weak(
                    ui,
                    &crate::t!(
                        "positions-rope-pair-speed",
                        pair = self.pair,
                        omega = format!("{omega:.4}"),
                        turn = format!("{:.1}", std::f64::consts::TAU / omega),
                    ),
                );
            });
            self.draw_circle(ui);
        });
        let (p, d, b) = (self.pair, self.d_head, self.base);
        let theta_i = position::rope_angle(self.i, p, d, b);
        let theta_j = position::rope_angle(self.j, p, d, b);
        let qi = rotate_pair(self.q, theta_i);
        let kj = rotate_pair(self.k, theta_j);
        let phi = angle_between(qi, kj);
        let by_positions = pair_score(self.q, self.k, self.i, self.j, p, d, b);
        let by_offset = offset_score(self.q, self.k, self.offset(), p, d, b);
        math_text::monospace(
            ui,
            &crate::t!(
                "positions-rope-angles-now",
                theta_i = format!("{theta_i:.4}"),
                theta_j = format!("{theta_j:.4}"),
                phi = format!("{phi:.4}"),
                degrees = format!("{:.1}", phi.to_degrees()),
            ),
        );
        math_text::monospace(
            ui,
            &crate::t!(
                "positions-rope-score-by-positions",
                score = format!("{by_positions:.4}")
            ),
        );
        math_text::monospace(
            ui,
            &crate::t!(
                "positions-rope-score-by-offset",
                offset = format!("{:>3}", self.offset()),
                score = format!("{by_offset:.4}"),
            ),
        );
        if scores_agree(by_positions, by_offset) {
            math_text::label(ui, &crate::t!("positions-rope-agree"));
        } else {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                crate::t!(
                    "positions-rope-differ",
                    difference = format!("{:.2e}", by_positions - by_offset)
                ),
            );
        }
    }

    /// The circle: q and k as given (faint) and rotated to positions i and j (bright), with
    /// the angle φ between the rotated ones.
    fn draw_circle(&self, ui: &mut egui::Ui) {
        let size = 300.0;
        let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), Sense::hover());
        response.widget_info(|| {
            egui::WidgetInfo::labeled(
                egui::Role::Image,
                true,
                crate::t!("positions-rope-circle-name"),
            )
        });
        let painter = ui.painter_at(rect);
        let c = rect.center();
        let (p, d, b) = (self.pair, self.d_head, self.base);
        let qi = rotate_pair(self.q, position::rope_angle(self.i, p, d, b));
        let kj = rotate_pair(self.k, position::rope_angle(self.j, p, d, b));
        let extent = norm(self.q).max(norm(self.k)).max(1.0);
        let radius = size * 0.5 - 30.0;
        let scale = radius / extent;
        let at = |v: [f32; 2]| Vec2::new(v[0] * scale, -v[1] * scale);
        let weak = ui.visuals().weak_text_color();
        let axis = Stroke::new(1.0, weak.gamma_multiply(0.5));
        painter.line_segment(
            [
                c - Vec2::new(radius + 10.0, 0.0),
                c + Vec2::new(radius + 10.0, 0.0),
            ],
            axis,
        );
        painter.line_segment(
            [
                c - Vec2::new(0.0, radius + 10.0),
                c + Vec2::new(0.0, radius + 10.0),
            ],
            axis,
        );
        painter.circle_stroke(c, scale, Stroke::new(1.0, weak));
        painter.arrow(c, at(self.q), Stroke::new(1.5, QUERY.gamma_multiply(0.35)));
        painter.arrow(c, at(self.k), Stroke::new(1.5, KEY.gamma_multiply(0.35)));
        painter.arrow(c, at(qi), Stroke::new(3.0, QUERY));
        painter.arrow(c, at(kj), Stroke::new(3.0, KEY));
        let font = FontId::proportional(14.0);
        let tip_label = |v: [f32; 2], text: &str, color: Color32| {
            let dir = at(v);
            let pos = c + dir + dir.normalized() * 14.0;
            painter.text(pos, Align2::CENTER_CENTER, text, font.clone(), color);
        };
        tip_label(qi, "q_i", QUERY);
        tip_label(kj, "k_j", KEY);
        // The arc of φ, from q_i to k_j, at a radius that fits inside both arrows.
        let a0 = (qi[1] as f64).atan2(qi[0] as f64);
        let phi = angle_between(qi, kj);
        let r_arc = (norm(qi).min(norm(kj)) * scale * 0.35).max(12.0);
        let arc_point = |t: f64| {
            let a = a0 + t * phi;
            Pos2::new(c.x + r_arc * a.cos() as f32, c.y - r_arc * a.sin() as f32)
        };
        let points: Vec<Pos2> = (0..=32).map(|s| arc_point(s as f64 / 32.0)).collect();
        let ink = ui.visuals().text_color();
        painter.add(Shape::line(points, Stroke::new(1.5, ink)));
        let mid = arc_point(0.5);
        let label_pos = c + (mid - c) * 1.6;
        painter.text(label_pos, Align2::CENTER_CENTER, "φ", font, ink);
    }

    pub(super) fn offset_section(&self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-rope-offset-title"));
        let (p, d, b) = (self.pair, self.d_head, self.base);
        let o = self.offset();
        let limit = (norm(self.q) * norm(self.k)) as f64;
        ui.label(crate::t!(
            "positions-rope-offset-about",
            sign = if o < 0 { "−" } else { "+" },
            offset = o.unsigned_abs(),
        ));
        let along_i = scores_along_i(self.q, self.k, o, p, d, b);
        let along_o = scores_along_offset(self.q, self.k, p, d, b);
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            let (score, chosen_i) = (
                crate::t!("positions-rope-score"),
                crate::t!("positions-rope-chosen-i"),
            );
            let mut words = PlotWords::new(
                crate::t!("positions-rope-fixed-offset-plot", offset = o),
                "i",
            );
            let name = words.record("q_iᵀ k_(i+o)", &along_i);
            words.mark(&chosen_i, self.i as f64);
            let plot = Plot::new("rope_score_vs_i")
                .height(200.0)
                .allow_scroll(false)
                .allow_drag(false)
                .allow_zoom(false)
                .include_y(-limit)
                .include_y(limit)
                .legend(Legend::default().position(Corner::LeftBottom))
                .x_axis_label(crate::t!("positions-rope-axis-query-position"))
                .y_axis_label(score.clone())
                .show(&mut cols[0], |plot| {
                    plot.line(Line::new(name, along_i).width(2.0).color(QUERY));
                    plot.vline(
                        VLine::new(chosen_i, self.i as f64)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_loose()),
                    );
                });
            words.add(&mut cols[0], &plot.response);
            let chosen_o = crate::t!("positions-rope-chosen-o");
            let mut words = PlotWords::new(
                crate::t!("positions-rope-offset-plot"),
                crate::t!("positions-offset-o"),
            );
            let name = words.record(crate::t!("positions-rope-score-at-offset"), &along_o);
            words.mark(&chosen_o, o as f64);
            let plot = Plot::new("rope_score_vs_offset")
                .height(200.0)
                .allow_scroll(false)
                .allow_drag(false)
                .allow_zoom(false)
                .include_y(-limit)
                .include_y(limit)
                .legend(Legend::default().position(Corner::LeftBottom))
                .x_axis_label(crate::t!("positions-rope-axis-offset"))
                .y_axis_label(score)
                .show(&mut cols[1], |plot| {
                    plot.line(Line::new(name, along_o).width(2.0).color(KEY));
                    plot.vline(
                        VLine::new(chosen_o, o as f64)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_loose()),
                    );
                });
            words.add(&mut cols[1], &plot.response);
        });
    }

    pub(super) fn angles_section(&mut self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-rope-angles-title"));
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.n_positions, 1..=MAX_POSITION + 1)
                    .text(crate::t!("positions-slider-n")),
            );
            ui.selectable_value(
                &mut self.angle_view,
                AngleView::Angle,
                crate::t!("positions-rope-angle-theta"),
            );
            ui.selectable_value(&mut self.angle_view, AngleView::Wrapped, "θ mod 2π");
            ui.selectable_value(&mut self.angle_view, AngleView::Cos, "cos θ");
        });
        let positions: Vec<usize> = (0..self.n_positions).collect();
        let angles = position::rope_angles(&positions, self.d_head, self.base);
        let values = angle_values(&angles, self.angle_view);
        let (scale, caption) = match self.angle_view {
            AngleView::Angle => {
                let top = values.iter().fold(0.0f32, |m, &a| m.max(a));
                let top = if top > 0.0 { top } else { 1.0 };
                (ColorScale::Sequential { min: 0.0, max: top }, "θ (rad)")
            }
            AngleView::Wrapped => (
                ColorScale::Sequential {
                    min: 0.0,
                    max: std::f32::consts::TAU,
                },
                "θ mod 2π",
            ),
            AngleView::Cos => (ColorScale::Diverging { limit: 1.0 }, "cos θ"),
        };
        math_text::label(
            ui,
            &crate::t!(
                "positions-rope-angles-about",
                last = self.n_positions - 1,
                d_head = self.d_head,
                base = format!("{}", self.base),
            ),
        );
        let rows: Vec<String> = (0..self.d_head / 2)
            .map(|p| crate::t!("positions-rope-pair", pair = p))
            .collect();
        let (pair, position) = (
            crate::t!("positions-rope-pair-axis"),
            crate::t!("positions-axis-position"),
        );
        let context = crate::t!("positions-rope-angles-context");
        let cols: Vec<String> = positions.iter().map(usize::to_string).collect();
        let transposed = values.t();
        let height = (rows.len() as f32 * 18.0 + 60.0).clamp(150.0, 520.0);
        ui.allocate_ui(Vec2::new(ui.available_width(), height), |ui| {
            Heatmap {
                max_cell: 18.0,
                axis_names: (&pair, &position),
                context: &context,
                highlight_row: Some(self.pair),
                ..Heatmap::new(transposed, &rows, &cols, scale)
            }
            .show_with_legend(ui, height - 40.0, caption);
        });
    }
}

/// Two DragValues for a 2-D vector, each named for screen readers and tests.
fn pair_editor(ui: &mut egui::Ui, name: &str, v: &mut [f32; 2]) {
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("{name} = ("));
        ui.add(
            egui::DragValue::new(&mut v[0])
                .speed(0.01)
                .range(-2.0..=2.0)
                .max_decimals(3),
        )
        .accessible_name(crate::t!("positions-rope-first-component", vector = name));
        ui.label(",");
        ui.add(
            egui::DragValue::new(&mut v[1])
                .speed(0.01)
                .range(-2.0..=2.0)
                .max_decimals(3),
        )
        .accessible_name(crate::t!("positions-rope-second-component", vector = name));
        ui.label(")");
    });
}
