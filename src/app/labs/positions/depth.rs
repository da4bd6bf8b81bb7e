//! Does position survive depth? On the picked model, the position probe
//! (`analysis::position_probe`): 96 chunks run through the store a few a frame, then a linear
//! probe fitted per layer a slice of rows a frame, its held-out accuracy drawn layer by layer
//! beside the positional component's share of the stream.

use crate::analysis::position_probe::chunks::{probe_inputs, ProbeInputs, Source};
use crate::analysis::position_probe::{streams, LayerFit, LayerProbe, ProbeData, ROWS_PER_ADVANCE};
use crate::app::models::store::{is_unfinished, ModelStore};
use crate::app::widgets::plot_words::PlotWords;
use crate::model::{ForwardOptions, Model, Positional};
use crate::t;
use egui::{RichText, Ui};
use egui_plot::{HLine, Plot};

/// How long one frame may run passes or fit before it draws.
const FRAME_BUDGET_MS: u128 = 30;
/// Seed of a task model's random symbols.
const SEED: u64 = 1;

/// One model's probe, as far as it has got.
struct Run {
    model: String,
    inputs: Result<ProbeInputs, String>,
    data: ProbeData,
    /// The layer being fitted.
    fit: Option<(usize, LayerFit)>,
    layers: Vec<LayerProbe>,
    failed: Option<String>,
    started: web_time::Instant,
    seconds: Option<f64>,
}

#[derive(Default)]
pub struct DepthPanel {
    run: Option<Run>,
}

impl DepthPanel {
    /// Passes or fits still to run for the model it was started on.
    pub fn pending(&self) -> bool {
        self.run
            .as_ref()
            .is_some_and(|r| r.failed.is_none() && r.inputs.is_ok() && r.seconds.is_none())
    }

    /// The finished probe's layers (the tests read them).
    pub fn layers(&self) -> &[LayerProbe] {
        self.run.as_ref().map_or(&[], |r| r.layers.as_slice())
    }

    pub fn ui(&mut self, ui: &mut Ui, store: &ModelStore, name: &str, model: Result<&Model, &str>) {
        ui.heading(t!("positions-depth-heading"));
        ui.label(t!("positions-depth-intro"));
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.weak(e);
                return;
            }
        };
        if self.run.as_ref().is_none_or(|r| r.model != name) {
            self.run = Some(Run {
                model: name.to_string(),
                inputs: probe_inputs(model, SEED),
                data: ProbeData::default(),
                fit: None,
                layers: Vec::new(),
                failed: None,
                started: web_time::Instant::now(),
                seconds: None,
            });
        }
        let Some(run) = self.run.as_mut() else {
            return;
        };
        // Copied out: the passes below borrow the inputs themselves, frame after frame.
        let (source, positions, all) = match &run.inputs {
            Ok(i) => (i.source, i.positions, i.inputs.len()),
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        ui.label(match source {
            Source::Text => t!("positions-depth-text", chunks = all, tokens = positions),
            Source::Symbols => t!("positions-depth-symbols", chunks = all, tokens = positions),
        });
        ui.label(positional_words(model));
        if run.data.positions != positions {
            run.data = ProbeData::new(positions);
        }
        if let Some(e) = advance(run, store) {
            if is_unfinished(&e) {
                crate::app::models::pass_answer::show(ui, store, &e);
            } else {
                run.failed = Some(e);
            }
        }
        if let Some(e) = &run.failed {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
        let passed = run.data.chunks();
        if run.seconds.is_none() {
            ui.ctx().request_repaint();
            let (done, total, what) = match passed < all {
                true => (
                    passed,
                    all,
                    t!("positions-depth-running", done = passed, all = all),
                ),
                false => (
                    run.layers.len(),
                    run.data.depth(),
                    t!(
                        "positions-depth-fitting",
                        layer = run.layers.len(),
                        layers = run.data.depth()
                    ),
                ),
            };
            ui.horizontal_wrapped(|ui| {
                ui.spinner();
                ui.label(what);
            });
            ui.add(egui::ProgressBar::new(done as f32 / total.max(1) as f32).show_percentage());
        }
        if run.layers.is_empty() {
            return;
        }
        let chance = 1.0 / positions as f64;
        charts(ui, &run.layers, chance);
        table(ui, &run.layers);
        if let Some(seconds) = run.seconds {
            ui.label(RichText::new(verdict(&run.layers, chance, seconds)).strong());
        }
    }
}

/// Passes, then fits, within the frame's budget. An error ends the run (or, for a pass still
/// computing on another thread, this frame's share).
fn advance(run: &mut Run, store: &ModelStore) -> Option<String> {
    if run.failed.is_some() || run.seconds.is_some() {
        return None;
    }
    let Ok(inputs) = &run.inputs else {
        return None;
    };
    let start = web_time::Instant::now();
    while start.elapsed().as_millis() < FRAME_BUDGET_MS {
        let k = run.data.chunks();
        if let Some(input) = inputs.inputs.get(k) {
            let trace = match store.forward(&run.model, input, &ForwardOptions::default()) {
                Ok(t) => t,
                Err(e) => return Some(e),
            };
            if let Err(e) = streams(&trace).and_then(|s| run.data.push(&s)) {
                return Some(e);
            }
            continue;
        }
        let l = run.layers.len();
        if l >= run.data.depth() {
            run.seconds = Some(run.started.elapsed().as_secs_f64());
            return None;
        }
        if run.fit.as_ref().is_none_or(|(at, _)| *at != l) {
            match run.data.fit(l) {
                Some(f) => run.fit = Some((l, f)),
                None => return Some(t!("positions-depth-too-few")),
            }
            continue;
        }
        if let Some(p) = run
            .fit
            .as_mut()
            .and_then(|(_, f)| f.advance(ROWS_PER_ADVANCE))
        {
            run.layers.push(p);
            run.fit = None;
        }
    }
    None
}

/// Where the model's positions come from, in one sentence.
fn positional_words(model: &Model) -> String {
    match model.config.positional {
        Positional::Sinusoidal { .. } | Positional::Learned => t!("positions-depth-absolute"),
        Positional::Rope { .. } => t!("positions-depth-rope"),
        _ => t!("positions-depth-in-attention"),
    }
}

/// Held-out accuracy by layer (with chance), and the positional share by layer.
fn charts(ui: &mut Ui, layers: &[LayerProbe], chance: f64) {
    let axis = t!("positions-depth-axis");
    let points = |f: &dyn Fn(&LayerProbe) -> f32| -> Vec<[f64; 2]> {
        layers
            .iter()
            .enumerate()
            .map(|(l, p)| [l as f64, f64::from(f(p))])
            .collect()
    };
    crate::app::widgets::fit::columns(ui, 2, 280.0, |cols| {
        let title = t!("positions-depth-accuracy-title");
        cols[0].label(&title);
        let (exact, within) = (t!("positions-depth-exact"), t!("positions-depth-within"));
        crate::app::widgets::series_key(&mut cols[0], [exact.as_str(), within.as_str()]);
        let mut words = PlotWords::new(title, axis.clone());
        words.mark(&t!("positions-depth-chance"), chance);
        let plot = fraction_plot("position_probe_accuracy", &axis).show(&mut cols[0], |p| {
            p.line(words.line(exact.clone(), points(&|p| p.exact)));
            p.line(words.line(within.clone(), points(&|p| p.within_one)));
            // The chance level, named in the plot's words (its mark) and on hover.
            p.hline(HLine::new(t!("positions-depth-chance"), chance));
        });
        words.add(&mut cols[0], &plot.response);
        let title = t!("positions-depth-share-title");
        cols[1].label(&title);
        let mut words = PlotWords::new(title, axis.clone());
        let plot = fraction_plot("position_probe_share", &axis).show(&mut cols[1], |p| {
            p.line(words.line(t!("positions-depth-share"), points(&|p| p.share)));
        });
        words.add(&mut cols[1], &plot.response);
    });
}

/// A plot of a fraction (0 to 1) by layer.
fn fraction_plot(id: &str, axis: &str) -> Plot<'static> {
    Plot::new(id)
        .height(170.0)
        .allow_scroll(false)
        .allow_drag(false)
        .include_y(0.0)
        .include_y(1.0)
        .x_axis_label(axis.to_string())
}

fn table(ui: &mut Ui, layers: &[LayerProbe]) {
    egui::Grid::new("position_probe_table")
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            for title in [
                t!("positions-depth-axis"),
                t!("positions-depth-exact"),
                t!("positions-depth-within"),
                t!("positions-depth-share"),
                "‖μ_t − μ‖".to_string(),
                "‖x − μ‖".to_string(),
            ] {
                crate::app::widgets::math_text::strong(ui, &title);
            }
            ui.end_row();
            for (l, p) in layers.iter().enumerate() {
                ui.label(format!("resid[{l}]"));
                ui.label(format!("{:.1} %", 100.0 * p.exact));
                ui.label(format!("{:.1} %", 100.0 * p.within_one));
                ui.label(format!("{:.3}", p.share));
                ui.label(format!("{:.2}", p.positional_norm));
                ui.label(format!("{:.2}", p.stream_norm));
                ui.end_row();
            }
        });
}

/// First and last layer against chance, and the time the whole probe took.
pub fn verdict(layers: &[LayerProbe], chance: f64, seconds: f64) -> String {
    let (Some(first), Some(last)) = (layers.first(), layers.last()) else {
        return String::new();
    };
    let best = crate::util::argmax(layers.iter().map(|p| p.exact)).map_or(0, |b| b.0);
    t!(
        "positions-depth-verdict",
        first = format!("{:.1}", 100.0 * first.exact),
        last = format!("{:.1}", 100.0 * last.exact),
        best = best,
        best_exact = format!("{:.1}", 100.0 * layers[best].exact),
        chance = format!("{:.1}", 100.0 * chance),
        first_share = format!("{:.3}", first.share),
        last_share = format!("{:.3}", last.share),
        seconds = format!("{seconds:.1}")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::labs::positions::PositionsLab;
    use crate::app::tests::open;
    use egui_kittest::kittest::Queryable;

    /// On the reverse model the section runs the probe to the end, slice by slice, and shows
    /// what the headless probe computes: the same numbers, drawn and tabled, with the verdict.
    #[test]
    fn the_section_runs_the_probe_and_shows_the_headless_numbers() {
        let mut h = open("view=positions&ps=8&model=reverse");
        for _ in 0..400 {
            h.run_steps(1);
            if !h.state().lab::<PositionsLab>().depth.pending() {
                break;
            }
        }
        let shown = h.state().lab::<PositionsLab>().depth.layers().to_vec();
        let model = crate::model::builtin::load("reverse").unwrap();
        let (_, want) = crate::analysis::position_probe::probe_model(&model, SEED).unwrap();
        assert_eq!(shown, want);
        // An encoder that must reverse keeps position: well above chance (12.5 %) at every
        // layer, and within one position everywhere; its positional share grows with depth.
        assert!(
            shown.iter().all(|p| p.exact > 0.5 && p.within_one > 0.99),
            "{shown:?}"
        );
        assert!(shown[2].share > 3.0 * shown[0].share, "{shown:?}");
        h.get_by_label_contains("random sequences of this model's own symbols");
        h.get_by_label_contains("adds its positional encoding to the token embeddings once");
        h.get_by_label_contains("chance 12.5 %");
        h.get_by_label("resid[2]");
        assert!(
            h.query_all_by_label_contains("held-out position read by the probe")
                .count()
                >= 1
        );
    }

    /// A model change starts a new probe; the character model reads the text, and its RoPE
    /// adds nothing to the stream at resid[0]: near chance there.
    #[test]
    fn a_rope_model_reads_position_near_chance_at_the_embeddings() {
        let mut h = open("view=positions&ps=8&model=lm");
        for _ in 0..400 {
            h.run_steps(1);
            if !h.state().lab::<PositionsLab>().depth.pending() {
                break;
            }
        }
        h.get_by_label_contains("passages of Glimpse's own English text, 32 tokens each");
        h.get_by_label_contains("RoPE rotates queries and keys");
        let layers = h.state().lab::<PositionsLab>().depth.layers().to_vec();
        assert_eq!(layers.len(), 3);
        assert!(
            layers[0].exact < 0.1 && layers[0].share < 0.05,
            "{layers:?}"
        );
    }
}
