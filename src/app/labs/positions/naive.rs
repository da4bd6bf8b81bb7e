//! Naive positional schemes, and why they fail: the raw index t grows without bound, and the
//! normalised index t/(N−1) stays in [0, 1] but stretches like a rubber band with the input
//! length N, so the same value means a different position in every input.

use crate::app::widgets::plot_words::PlotWords;
use egui::{Color32, RichText};
use egui_plot::{Corner, HLine, Legend, Line, LineStyle, Plot, PlotPoints, Points, VLine};

/// The raw scheme: position t is encoded as the number t itself.
pub fn raw(t: usize) -> f32 {
    t as f32
}

/// t/(N−1): 0 at the first position, 1 at the last. A one-token input (N ≤ 1) has only
/// position 0, which maps to 0 rather than 0/0.
pub fn normalised(t: usize, n: usize) -> f32 {
    if n <= 1 {
        0.0
    } else {
        t as f32 / (n - 1) as f32
    }
}

/// What one step to the next position adds under normalisation: 1/(N−1). With N ≤ 1 there is
/// no next position, so 0.
pub fn step(n: usize) -> f32 {
    if n <= 1 {
        0.0
    } else {
        1.0 / (n - 1) as f32
    }
}

/// The input lengths every view compares, besides the student's own N.
const EXAMPLE_NS: [usize; 3] = [5, 10, 50];
/// The rows of the "one step" table, besides the student's own N.
const TABLE_NS: [usize; 7] = [2, 5, 10, 50, 51, 100, 1000];
const N_RANGE: std::ops::RangeInclusive<usize> = 2..=200;
const LENGTH_RANGE: std::ops::RangeInclusive<usize> = 16..=4096;
/// Most points drawn on the raw line (it is straight; more would add nothing).
const RAW_POINTS: usize = 512;
const COLORS: [Color32; 4] = [
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(120, 220, 140),
    Color32::from_rgb(220, 120, 220),
    Color32::from_rgb(255, 196, 64),
];

pub struct NaivePanel {
    /// The student's input length N for the normalised scheme.
    pub n: usize,
    /// Input length of the raw-index plot.
    pub length: usize,
}

impl Default for NaivePanel {
    fn default() -> Self {
        Self { n: 51, length: 512 }
    }
}

/// The position whose normalised value is exactly 0.5, if there is one (N odd).
fn half_position(n: usize) -> Option<usize> {
    (!n.is_multiple_of(2)).then_some(n / 2)
}

impl NaivePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.sanitize();
        egui::ScrollArea::vertical()
            .id_salt("positions_naive")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui));
    }

    fn sanitize(&mut self) {
        self.n = self.n.clamp(*N_RANGE.start(), *N_RANGE.end());
        self.length = self
            .length
            .clamp(*LENGTH_RANGE.start(), *LENGTH_RANGE.end());
    }

    /// The lengths drawn and tabulated: the examples, then the student's N if it is new.
    fn lengths(&self, examples: &[usize]) -> Vec<usize> {
        let mut ns = examples.to_vec();
        if !ns.contains(&self.n) {
            ns.push(self.n);
        }
        ns
    }

    fn contents(&mut self, ui: &mut egui::Ui) {
        ui.heading(crate::t!("positions-naive-heading"));
        ui.label(crate::t!("positions-naive-about"));
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            self.raw_view(&mut cols[0]);
            self.normalised_view(&mut cols[1]);
        });
        ui.separator();
        self.step_view(ui);
    }

    fn raw_view(&mut self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-naive-raw-title"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.length, LENGTH_RANGE)
                .logarithmic(true)
                .text(crate::t!("positions-naive-input-length")),
        );
        let last = self.length - 1;
        ui.label(crate::t!(
            "positions-naive-raw-last",
            last = last,
            value = format!("{:.0}", raw(last)),
            ratio = format!("{:.0}", raw(last)),
        ));
        ui.weak(crate::t!("positions-naive-raw-note"));
        let every = (self.length / RAW_POINTS).max(1);
        let points: Vec<[f64; 2]> = (0..self.length)
            .step_by(every)
            .chain([last])
            .map(|t| [t as f64, raw(t) as f64])
            .collect();
        let raw_t = crate::t!("positions-naive-raw-t");
        let mut words = PlotWords::new(
            crate::t!("positions-naive-raw-plot"),
            crate::t!("positions-position-t"),
        );
        words.record(raw_t.clone(), &points);
        words.note(&crate::t!("positions-naive-raw-plot-note"));
        let plot = Plot::new("naive_raw")
            .height(260.0)
            .allow_scroll(false)
            .legend(Legend::default().position(Corner::LeftTop))
            .x_axis_label(crate::t!("positions-position-t"))
            .y_axis_label(crate::t!("positions-naive-position-value"))
            .show(ui, |plot| {
                plot.line(Line::new(raw_t, points).width(2.0).color(COLORS[3]));
                for y in [1.0, -1.0] {
                    plot.hline(
                        HLine::new(crate::t!("positions-naive-embedding-range"), y)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_dense()),
                    );
                }
            });
        words.add(ui, &plot.response);
    }

    fn normalised_view(&self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-naive-normalised-title"));
        ui.label(crate::t!("positions-naive-normalised-about"));
        ui.weak(crate::t!("positions-naive-normalised-note"));
        let ns = self.lengths(&EXAMPLE_NS);
        let mut words = PlotWords::new(
            crate::t!("positions-naive-normalised-plot"),
            crate::t!("positions-position-t"),
        );
        let plot = Plot::new("naive_normalised")
            .height(260.0)
            .allow_scroll(false)
            .legend(Legend::default().position(Corner::RightBottom))
            .include_y(0.0)
            .include_y(1.05)
            .x_axis_label(crate::t!("positions-position-t"))
            .y_axis_label(crate::t!("positions-naive-position-value"))
            .show(ui, |plot| {
                for (i, &n) in ns.iter().enumerate() {
                    let pts: Vec<[f64; 2]> = (0..n)
                        .map(|t| [t as f64, normalised(t, n) as f64])
                        .collect();
                    let color = crate::app::widgets::series_color(i);
                    plot.points(
                        Points::new(format!("N = {n}"), PlotPoints::from(pts.clone()))
                            .radius(2.0)
                            .filled(true)
                            .color(color),
                    );
                    plot.line(words.line(format!("N = {n}"), pts));
                }
            });
        words.add(ui, &plot.response);
    }

    fn step_view(&mut self, ui: &mut egui::Ui) {
        ui.strong(crate::t!("positions-naive-step-title"));
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.n, N_RANGE)
                .text(crate::t!("positions-naive-input-length-n")),
        );
        let n = self.n;
        let half = match half_position(n) {
            Some(p) => crate::t!("positions-naive-half-at", position = p),
            None => crate::t!(
                "positions-naive-half-between",
                before = n / 2 - 1,
                after = n / 2
            ),
        };
        ui.label(crate::t!(
            "positions-naive-step",
            n = n,
            gaps = n - 1,
            step = format!("{:.4}", step(n)),
            half = half,
        ));
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            let ui = &mut cols[0];
            ui.weak(crate::t!("positions-naive-step-note"));
            egui::Grid::new("naive_steps")
                .striped(true)
                .spacing([16.0, 3.0])
                .show(ui, |ui| {
                    ui.strong("N");
                    ui.strong(crate::t!("positions-naive-col-step"));
                    ui.strong(crate::t!("positions-naive-col-half"));
                    ui.strong(crate::t!("positions-naive-col-value"));
                    ui.end_row();
                    let mut ns = self.lengths(&TABLE_NS);
                    ns.sort_unstable();
                    for m in ns {
                        let mut name = RichText::new(m.to_string()).monospace();
                        if m == n {
                            name = name.strong().color(COLORS[3]);
                        }
                        ui.label(name);
                        ui.label(RichText::new(format!("{:.4}", step(m))).monospace());
                        ui.label(match half_position(m) {
                            Some(p) => p.to_string(),
                            None => crate::t!("positions-naive-none"),
                        });
                        // Positions run 0…N−1: a sentence of two has no position 2.
                        let value = if m > 2 {
                            format!("{:.4}", normalised(2, m))
                        } else {
                            "—".to_string()
                        };
                        ui.label(RichText::new(value).monospace());
                        ui.end_row();
                    }
                });
            let ui = &mut cols[1];
            ui.label(crate::t!("positions-naive-band-about"));
            let ns = self.lengths(&EXAMPLE_NS);
            let names: Vec<String> = ns.iter().map(|n| format!("N = {n}")).collect();
            let mut words = PlotWords::new(
                crate::t!("positions-naive-band-plot"),
                crate::t!("positions-position-t"),
            );
            let plot = Plot::new("naive_rubber_band")
                .height(200.0)
                .allow_scroll(false)
                .include_y(-0.5)
                .include_y(ns.len() as f64 - 0.5)
                .include_x(-0.05)
                .include_x(1.05)
                .x_axis_label(crate::t!("positions-naive-position-value"))
                .y_axis_formatter(move |m, _| crate::app::widgets::category_label(&names, m.value))
                .show(ui, |plot| {
                    for (i, &m) in ns.iter().enumerate() {
                        let pts: PlotPoints = (0..m)
                            .map(|t| [normalised(t, m) as f64, i as f64])
                            .collect();
                        let values: Vec<[f64; 2]> = (0..m)
                            .map(|t| [t as f64, normalised(t, m) as f64])
                            .collect();
                        words.record(format!("N = {m}"), &values);
                        plot.points(
                            Points::new(format!("N = {m}"), pts)
                                .radius(3.0)
                                .filled(true)
                                .color(crate::app::widgets::series_color(i)),
                        );
                    }
                    plot.vline(
                        VLine::new(crate::t!("positions-naive-value-half"), 0.5)
                            .color(Color32::GRAY)
                            .style(LineStyle::dashed_dense()),
                    );
                });
            words.add(ui, &plot.response);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn raw_is_the_index() {
        assert_eq!(raw(0), 0.0);
        assert_eq!(raw(7), 7.0);
        assert_eq!(raw(4095), 4095.0);
    }

    #[test]
    fn normalised_runs_from_zero_to_one_and_never_gives_nan() {
        for n in [2, 5, 10, 50, 1000] {
            assert_eq!(normalised(0, n), 0.0);
            assert_eq!(normalised(n - 1, n), 1.0);
        }
        assert_eq!(normalised(0, 1), 0.0);
        assert_eq!(normalised(0, 0), 0.0);
        assert_eq!(normalised(3, 5), 0.75);
        // The rubber band: 0.5 is position 2 of 5 and position 25 of 51.
        assert_eq!(normalised(2, 5), 0.5);
        assert_eq!(normalised(25, 51), 0.5);
        assert_eq!(half_position(5), Some(2));
        assert_eq!(half_position(51), Some(25));
        assert_eq!(half_position(10), None);
    }

    #[test]
    fn one_step_is_one_over_n_minus_one() {
        assert_eq!(step(2), 1.0);
        assert_eq!(step(5), 0.25);
        assert_eq!(step(11), 0.1);
        assert_eq!(step(1), 0.0);
        assert_eq!(step(0), 0.0);
        for n in [5, 10, 50] {
            assert!((normalised(1, n) - normalised(0, n) - step(n)).abs() < 1e-7);
        }
        assert!(step(51) < step(5));
    }

    #[test]
    fn the_panel_draws_and_follows_its_sliders() {
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(|ui, p: &mut NaivePanel| p.ui(ui), NaivePanel::default());
        h.run_steps(3);
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "input length N");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "input length");
        h.get_by_label_contains("N = 51: one step = 1/50 = 0.0200; 0.5 is position 25");
        h.get_by_label_contains("raw value is 511");

        h.state_mut().n = 10;
        h.state_mut().length = 2048;
        h.run_steps(2);
        h.get_by_label_contains(
            "N = 10: one step = 1/9 = 0.1111; 0.5 falls between positions 4 and 5",
        );
        h.get_by_label_contains("raw value is 2047");
        assert_eq!(h.query_all_by_label_contains("N = 51: one step").count(), 0);
    }
}
