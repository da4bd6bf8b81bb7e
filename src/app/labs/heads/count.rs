//! How many heads: the character model trained with one width split into 1, 2, 4, 8, 16 and
//! 32 heads (d_k = d_model / h), from the same seed on the same examples. Parameters and
//! multiply-adds are the same for every count, so what changes is only how the width is cut;
//! the held-out loss by head count and each run's time are drawn side by side.

use super::*;
use crate::app::widgets::plot_words::PlotWords;
use crate::train::compare::Race;
use egui_plot::{Line, Points};

/// The task and width of the sweep: the character model, 64 wide, so that 32 heads still
/// have d_k = 2 (RoPE rotates pairs of dimensions).
pub const COUNT_TASK: TaskKind = TaskKind::CharLm;
pub const COUNT_WIDTH: usize = 64;
/// Steps per head count: enough for the held-out loss to separate the counts (README).
pub const COUNT_STEPS: u64 = 500;

pub fn count_spec(seed: u64) -> RaceSpec {
    RaceSpec {
        experiment: Experiment::HeadCount {
            d_model: COUNT_WIDTH,
        },
        task: COUNT_TASK,
        seed,
        steps: COUNT_STEPS,
        examples: 48,
    }
}

/// Each finished contender's (heads, held-out loss, seconds), in the race's order.
pub fn results(race: &Race) -> Vec<(usize, f32, f64)> {
    race.contenders
        .iter()
        .filter(|c| c.steps() == race.steps && c.stopped.is_none())
        .filter_map(|c| {
            let e = c.last_eval()?;
            Some((c.trainer.config.n_heads, e.loss, c.seconds))
        })
        .collect()
}

/// The head count with the lowest held-out loss.
pub fn best(results: &[(usize, f32, f64)]) -> Option<(usize, f32)> {
    results
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|&(h, loss, _)| (h, loss))
}

impl HeadsLab {
    /// The sweep: its controls and curves (the shared race view), then loss and time by count.
    pub(super) fn head_count(&mut self, ui: &mut Ui) {
        ui.heading(t!("heads-count-heading"));
        crate::app::widgets::math_text::label(
            ui,
            &t!(
                "heads-count-intro",
                width = COUNT_WIDTH,
                steps = COUNT_STEPS
            ),
        );
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.count_seed)
                    .range(1..=u32::MAX as u64)
                    .prefix(format!("{} ", t!("heads-seed"))),
            );
            ui.weak(t!("heads-count-seed-about"));
        });
        let shape = |c: &Contender| {
            let cfg = &c.trainer.config;
            t!(
                "heads-count-shape",
                d_k = cfg.d_model / cfg.n_heads.max(1),
                parameters = crate::util::grouped(crate::model::weights::parameter_count(
                    &c.trainer.model.config
                ) as u128),
                seconds = format!("{:.1}", c.seconds)
            )
        };
        let spec = count_spec(self.count_seed.max(1));
        let column = t!("heads-count-column");
        self.count_race
            .show(ui, "count_race", spec, (&column, &shape));
        let Ok(race) = self.count_race.race(spec) else {
            return;
        };
        let results = results(race);
        if results.is_empty() {
            return;
        }
        by_count(ui, &results);
        if let (Some((heads, loss)), true) = (best(&results), race.done()) {
            let (first, last) = (results[0], results[results.len() - 1]);
            ui.label(
                RichText::new(t!(
                    "heads-count-verdict",
                    best = heads,
                    loss = format!("{loss:.3}"),
                    one = format!("{:.3}", first.1),
                    most = last.0,
                    most_loss = format!("{:.3}", last.1),
                    fast = format!("{:.1}", first.2),
                    slow = format!("{:.1}", last.2)
                ))
                .strong(),
            );
        }
        crate::app::widgets::math_text::label(ui, &t!("heads-count-why"));
    }
}

/// Held-out loss and run time against the number of heads (x = log₂ h, named by the count).
fn by_count(ui: &mut Ui, results: &[(usize, f32, f64)]) {
    let names: Vec<String> = (0..=5).map(|k| (1usize << k).to_string()).collect();
    let x = |h: usize| f64::from(h.max(1).ilog2());
    let axis = t!("heads-count-axis");
    let formatter = {
        let names = names.clone();
        move |mark: egui_plot::GridMark, _: &std::ops::RangeInclusive<f64>| {
            crate::app::widgets::category_label(&names, mark.value)
        }
    };
    crate::app::widgets::fit::columns(ui, 2, 260.0, |cols| {
        for (col, (title, id, values)) in cols.iter_mut().zip([
            (
                t!("heads-count-loss-title"),
                "count_loss",
                results
                    .iter()
                    .map(|&(h, loss, _)| [x(h), f64::from(loss)])
                    .collect::<Vec<_>>(),
            ),
            (
                t!("heads-count-time-title"),
                "count_time",
                results
                    .iter()
                    .map(|&(h, _, s)| [x(h), s])
                    .collect::<Vec<_>>(),
            ),
        ]) {
            col.label(&title);
            let mut words = PlotWords::new(title.clone(), axis.clone()).categories(&names);
            let plot = Plot::new(id)
                .height(150.0)
                .allow_scroll(false)
                .allow_drag(false)
                .include_x(-0.3)
                .include_x(5.3)
                .x_axis_label(axis.clone())
                .x_axis_formatter(formatter.clone())
                .show(col, |p| {
                    let line: Line<'static> = words.line(title.clone(), values.clone());
                    p.line(line);
                    p.points(Points::new("", values.clone()).radius(4.0));
                });
            words.add(col, &plot.response);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep trains six counts of one width with the same number of parameters, and the
    /// verdict names the lowest held-out loss.
    #[test]
    fn the_sweep_keeps_the_parameters_and_names_the_best() {
        let spec = count_spec(1);
        let entries = spec.experiment.entries(spec.task, 1, 2);
        let heads: Vec<usize> = entries.iter().map(|(_, c)| c.n_heads).collect();
        assert_eq!(heads, [1, 2, 4, 8, 16, 32]);
        let mut race = Race::new(entries, 2, 1, 2).unwrap();
        race.run_to_end();
        let params: Vec<usize> = race
            .contenders
            .iter()
            .map(|c| crate::model::weights::parameter_count(&c.trainer.model.config))
            .collect();
        assert!(params.windows(2).all(|w| w[0] == w[1]), "{params:?}");
        let r = results(&race);
        assert_eq!(r.len(), 6);
        assert!(r.iter().all(|&(_, loss, s)| loss.is_finite() && s > 0.0));
        let (h, loss) = best(&r).unwrap();
        assert!(r.iter().all(|&(_, l, _)| l >= loss));
        assert!(heads.contains(&h));
    }
}
