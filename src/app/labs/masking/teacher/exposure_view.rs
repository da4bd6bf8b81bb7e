//! Exposure bias on a trained model: the repeat model's error rate at every answer position,
//! teacher-forced against free-running, and after a first mistake. The held-out examples are
//! taken a few per frame, so the page keeps drawing while the tally grows.

use crate::app::models::store::ModelStore;
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use crate::train::exposure::{ExposureBias, PositionTally};
use crate::train::tasks::TaskKind;
use egui::Ui;
use egui_plot::{Legend, Plot};

/// The model measured: trained teacher-forced to repeat a random sequence, 98% of its tokens
/// right but 85% of its answers.
pub const MODEL: &str = "repeat";
/// Held-out sequences measured, and at most how many are taken per frame.
pub const EXAMPLES: usize = 300;
const PER_FRAME: usize = 15;
/// Fewer when this much of the frame is spent (at least one): fifteen held the browser's page
/// 50–100 ms a frame.
const FRAME_BUDGET: web_time::Duration = web_time::Duration::from_millis(8);
const SEED: u64 = 1;

/// The measurement, grown over frames; `None` until the model is there.
#[derive(Default)]
pub struct Exposure {
    pub run: Option<ExposureBias>,
    /// Why the measurement stopped (a failed pass), kept; or why the model is not there
    /// yet (still loading in the browser), asked again next frame.
    error: Option<String>,
    waiting: Option<String>,
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or("–".into(), |r| format!("{:.1} %", 100.0 * r))
}

impl Exposure {
    /// Whether the measurement is still taking examples (it runs while its section is drawn).
    pub fn pending(&self) -> bool {
        self.error.is_none() && self.run.as_ref().is_none_or(|r| r.done < EXAMPLES)
    }

    /// Take the next few examples, if the model is loaded and the tally is not complete.
    fn advance(&mut self, ui: &Ui, store: &ModelStore) {
        if self.run.as_ref().is_some_and(|r| r.done >= EXAMPLES) || self.error.is_some() {
            return;
        }
        let model = match store.get(MODEL) {
            Ok(m) => m,
            Err(e) => {
                self.waiting = Some(e);
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(250));
                return;
            }
        };
        self.waiting = None;
        let run = self
            .run
            .get_or_insert_with(|| ExposureBias::new(TaskKind::Repeat, SEED));
        let mut left = PER_FRAME.min(EXAMPLES - run.done);
        let mut error = None;
        crate::app::models::running::within(FRAME_BUDGET, || {
            if let Err(e) = run.next_example(&model) {
                error = Some(e.to_string());
                return false;
            }
            left -= 1;
            left > 0
        });
        if error.is_some() {
            self.error = error;
            return;
        }
        if run.done < EXAMPLES {
            ui.ctx().request_repaint();
        }
    }

    pub fn ui(&mut self, ui: &mut Ui, store: &ModelStore) {
        ui.strong(t!("masking-exposure-title"));
        ui.label(t!("masking-exposure-intro", model = MODEL));
        self.advance(ui, store);
        if let Some(e) = self.error.as_ref().or(self.waiting.as_ref()) {
            ui.colored_label(ui.visuals().warn_fg_color, e);
            return;
        }
        let Some(run) = &self.run else { return };
        let (forced, free) = run.overall();
        crate::app::widgets::math_text::label(
            ui,
            &t!(
                "masking-exposure-summary",
                done = run.done,
                total = EXAMPLES,
                forced = percent(Some(forced)),
                free = percent(Some(free)),
                after = percent(run.after_error_rate()),
                exact = run.exact,
                forced_exact = run.forced_exact,
            ),
        );
        let series = |rate: fn(&PositionTally) -> Option<f64>| -> Vec<[f64; 2]> {
            run.positions
                .iter()
                .enumerate()
                .filter_map(|(i, p)| rate(p).map(|r| [(i + 1) as f64, 100.0 * r]))
                .collect()
        };
        let position = t!("masking-exposure-position");
        let mut words = PlotWords::new(t!("masking-exposure-plot"), position.clone());
        let lines = [
            words.line(
                t!("masking-exposure-forced"),
                series(PositionTally::forced_rate),
            ),
            words.line(
                t!("masking-exposure-free"),
                series(PositionTally::free_rate),
            ),
            words.line(
                t!("masking-exposure-after"),
                series(PositionTally::after_error_rate),
            ),
        ];
        let plot = Plot::new("masking_exposure_bias")
            .height(240.0)
            .allow_scroll(false)
            .include_y(0.0)
            .include_x(1.0)
            .legend(Legend::default())
            .x_axis_label(position)
            .y_axis_label(t!("masking-exposure-axis"))
            .show(ui, |plot| {
                for line in lines {
                    plot.line(line.width(2.0));
                }
            });
        words.add(ui, &plot.response);
        ui.weak(t!("masking-exposure-note"));
    }
}
