//! Depth: the residual stream and the gradients through a stack of N blocks, pre-norm beside
//! post-norm, on fresh models of the same task; the picked model's own stream, block by
//! block; the 2^(2N) paths the residual connections open; and the two placements trained
//! side by side, deeper than the shipped models, with and without warmup.

use super::race::{RaceSpec, RaceView};
use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::stepped::{Keyed, Steps};
use crate::app::widgets::plot_words::PlotWords;
use crate::model::config::NormPlacement;
use crate::t;
use crate::train::compare::{Contender, Experiment};
use crate::train::depth::{at_init, residual_paths, stream_norms, DepthProbe, TASK};
use crate::train::tasks::{Split, TaskKind};
use crate::train::trainer::make_example;
use egui::Ui;
use egui_plot::{Corner, Legend, Plot};

/// Blocks the slider allows.
pub const LAYERS: std::ops::RangeInclusive<usize> = 2..=24;

/// Blocks the trained comparison allows (each block is trained, in the browser too).
pub const TRAINED_LAYERS: std::ops::RangeInclusive<usize> = 2..=8;
/// The task the placements are trained on: reverse trains to 100 % in a few hundred steps at
/// two layers, so a placement that fails at six is the placement's doing.
pub const TRAINED_TASK: TaskKind = TaskKind::Reverse;
/// Steps each placement trains.
pub const TRAINED_STEPS: u64 = 1000;

/// Pre-norm's probe and post-norm's.
type Probes = [DepthProbe; 2];

pub struct DepthLab {
    pub layers: usize,
    pub seed: u64,
    /// Pre-norm and post-norm probes for (layers, seed), made off the page's thread where it
    /// can.
    probes: Keyed<(usize, u64), MakeProbes>,
    /// Blocks of the trained pair.
    pub trained_layers: usize,
    /// Whether the trained pair warms its learning rate up.
    pub warmup: bool,
    pub training: RaceView,
    /// Showing the trained pair (else the fresh models at initialisation).
    pub trained_section: bool,
    /// Each trained model's stream on one held-out example, for the steps taken when measured.
    trained_streams: Option<(u64, Vec<Vec<f32>>)>,
}

impl Default for DepthLab {
    fn default() -> Self {
        Self {
            layers: 12,
            seed: 1,
            probes: Keyed::default(),
            trained_layers: 6,
            warmup: false,
            training: RaceView::default(),
            trained_section: false,
            trained_streams: None,
        }
    }
}

impl DepthLab {
    pub fn race_spec(&self) -> RaceSpec {
        RaceSpec {
            experiment: Experiment::Depth {
                layers: self.trained_layers,
                warmup: self.warmup,
            },
            task: TRAINED_TASK,
            seed: self.seed,
            steps: TRAINED_STEPS,
            examples: 48,
        }
    }

    /// The trained pair: settings, the race, and the stream of each model once it has trained.
    fn trained(&mut self, ui: &mut Ui) {
        ui.heading(t!("depth-trained-heading"));
        ui.label(t!(
            "depth-trained-intro",
            task = TRAINED_TASK.name(),
            steps = TRAINED_STEPS
        ));
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::Slider::new(&mut self.trained_layers, TRAINED_LAYERS)
                    .text(t!("depth-blocks")),
            );
            ui.checkbox(&mut self.warmup, t!("depth-warmup"));
        });
        let spec = self.race_spec();
        let streams = self.trained_streams.as_ref().map(|(_, s)| s.clone());
        let growth = |c: &Contender| {
            // The contenders' labels are the trainer's (English) names.
            let i = usize::from(c.label != "pre-norm");
            streams
                .as_ref()
                .and_then(|s| s.get(i))
                .and_then(|s| Some(format!("{:.1} → {:.1}", s.first()?, s.last()?)))
                .unwrap_or_else(|| "–".into())
        };
        let column = t!("depth-growth-column");
        self.training
            .show(ui, "depth_race", spec, (&column, &growth));
        self.measure_trained_streams();
        if let Some((_, streams)) = &self.trained_streams {
            ui.strong(t!("depth-trained-stream-heading"));
            let mut words = PlotWords::new(t!("depth-trained-stream"), t!("depth-block"));
            let plot = Plot::new("depth_trained_stream")
                .height(170.0)
                .legend(Legend::default().position(Corner::LeftTop))
                .x_axis_label(t!("depth-block"))
                .y_axis_label("‖x‖")
                .include_y(0.0)
                .allow_scroll(false)
                .show(ui, |p| {
                    for (norm, s) in [NormPlacement::Pre, NormPlacement::Post]
                        .into_iter()
                        .zip(streams)
                    {
                        let points = s
                            .iter()
                            .enumerate()
                            .map(|(i, &v)| [i as f64, v as f64])
                            .collect();
                        p.line(words.line(name(norm), points));
                    }
                });
            words.add(ui, &plot.response);
        }
    }

    /// Each trained model's decoder stream on one held-out example, measured when training
    /// pauses or ends (not every frame while it runs).
    fn measure_trained_streams(&mut self) {
        let pending = self.training.pending();
        let Ok(race) = self.training.race(self.race_spec()) else {
            return;
        };
        let taken: u64 = race.contenders.iter().map(Contender::steps).sum();
        if pending || taken == 0 {
            if taken == 0 {
                self.trained_streams = None;
            }
            return;
        }
        if self
            .trained_streams
            .as_ref()
            .is_some_and(|(t, _)| *t == taken)
        {
            return;
        }
        let mut rng = crate::util::rng::Rng::new(self.seed ^ 0x57ea);
        let pair = TRAINED_TASK.sample(&mut rng, Split::HeldOut);
        let streams = race
            .contenders
            .iter()
            .map(|c| {
                let model = &c.trainer.model;
                let ex = make_example(TRAINED_TASK, &model.tokenizer, &pair);
                model
                    .forward(&ex.input, &crate::model::ForwardOptions::default())
                    .ok()
                    .and_then(|t| t.decoder.as_ref().map(stream_norms))
                    .unwrap_or_default()
            })
            .collect();
        self.trained_streams = Some((taken, streams));
    }

    /// Fresh models at initialisation: the paths, the stream and the gradients by block.
    fn at_init(&mut self, ui: &mut Ui) {
        ui.label(t!("depth-intro"));
        ui.horizontal_wrapped(|ui| {
            ui.add(egui::Slider::new(&mut self.layers, LAYERS).text(t!("depth-blocks-n")));
            ui.add(egui::DragValue::new(&mut self.seed).prefix(format!("{} ", t!("depth-seed"))));
        });
        let n = self.layers as u32;
        let paths = t!(
            "depth-paths",
            exponent = 2 * n,
            paths = crate::util::grouped(residual_paths(n) as u128)
        );
        crate::app::widgets::math_text::strong(ui, &paths);
        let probes = match self.probes() {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
            None => {
                ui.weak(format!("{}…", t!("models-pass-computing-word")));
                ui.ctx().request_repaint();
                return;
            }
        };
        ui.add_space(4.0);
        ui.weak(t!("depth-fresh", task = TASK.name()));
        ui.strong(t!("depth-stream-heading"));
        by_block(
            ui,
            "depth_stream",
            "‖x‖",
            probes,
            |p| p.stream.clone(),
            &t!("depth-block"),
        );
        ui.strong(t!("depth-gradients-heading"));
        by_block(
            ui,
            "depth_gradients",
            "‖∂loss/∂θ‖",
            probes,
            |p| p.gradients.clone(),
            &t!("depth-block-nearest"),
        );
        let [pre, post] = probes;
        let last = |p: &DepthProbe| p.gradients.last().copied().unwrap_or(0.0);
        let first = |p: &DepthProbe| p.gradients.first().copied().unwrap_or(0.0);
        crate::app::widgets::math_text::label(
            ui,
            &t!(
                "depth-summary",
                post_last = format!("{:.2}", last(post)),
                post_first = format!("{:.2}", first(post)),
                stream_first = format!("{:.1}", pre.stream.first().copied().unwrap_or(0.0)),
                stream_last = format!("{:.1}", pre.stream.last().copied().unwrap_or(0.0)),
                pre_first = format!("{:.2}", first(pre)),
                pre_last = format!("{:.2}", last(pre)),
            ),
        );
    }

    /// The two probes for the current settings, computed once: `None` while they are made.
    fn probes(&mut self) -> Option<Result<&Probes, String>> {
        let (layers, seed) = (self.layers, self.seed);
        let make = || MakeProbes {
            layers,
            seed,
            pre: None,
        };
        match self.probes.get(&(layers, seed), make)? {
            Ok(Ok(p)) => Some(Ok(p)),
            Ok(Err(e)) | Err(e) => Some(Err(e.clone())),
        }
    }
}

/// Pre-norm's probe, then post-norm's: each is a batch of gradients (30–40 ms in the
/// browser), so here they take a frame each.
struct MakeProbes {
    layers: usize,
    seed: u64,
    pre: Option<DepthProbe>,
}

impl Steps for MakeProbes {
    type Output = Result<Probes, String>;
    type Progress = ();

    fn step(&mut self) -> Option<Self::Output> {
        let probe = |norm| at_init(self.layers, norm, self.seed).map_err(|e| e.to_string());
        match self.pre.take() {
            None => match probe(NormPlacement::Pre) {
                Ok(pre) => {
                    self.pre = Some(pre);
                    None
                }
                Err(e) => Some(Err(e)),
            },
            Some(pre) => Some(probe(NormPlacement::Post).map(|post| [pre, post])),
        }
    }

    fn progress(&self) {}
}

fn name(norm: NormPlacement) -> String {
    match norm {
        NormPlacement::Pre => t!("depth-pre-norm"),
        NormPlacement::Post => t!("depth-post-norm"),
    }
}

/// One line per placement of `values(probe)` against the block index.
fn by_block(
    ui: &mut Ui,
    id: &str,
    y_label: &str,
    probes: &Probes,
    values: impl Fn(&DepthProbe) -> Vec<f32>,
    x_label: &str,
) {
    let mut words = PlotWords::new(t!("depth-by-block", quantity = y_label), t!("depth-block"));
    let plot = Plot::new(id)
        .height(200.0)
        .legend(Legend::default().position(Corner::LeftTop))
        .x_axis_label(x_label)
        .y_axis_label(y_label)
        .include_y(0.0)
        .allow_scroll(false)
        .show(ui, |p| {
            for probe in probes {
                let points = values(probe)
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| [i as f64, v as f64])
                    .collect();
                p.line(words.line(name(probe.norm), points));
            }
        });
    words.add(ui, &plot.response);
}

impl Lab for DepthLab {
    fn id(&self) -> &'static str {
        "depth"
    }

    /// At initialisation the picked model is measured too; trained side by side, the lab
    /// trains and shows its own pre- and post-norm models.
    fn uses_shared_input(&self) -> bool {
        !self.trained_section
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        // The probes exist once drawn; the JSON is made only when asked for.
        let this = &*self;
        ui.horizontal_wrapped(|ui| {
            let json = || match (this.trained_section, this.probes.done()) {
                (true, _) => this.training.json(),
                (false, Some(Ok(Ok(p)))) => serde_json::to_vec_pretty(p).ok(),
                _ => None,
            };
            let label = t!("depth-export-data");
            let files: [export::DataFile<'_>; 1] = [(&label, "glimpse-depth.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-depth.png", &files);
        });
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut self.trained_section, false, t!("depth-section-init"));
            ui.selectable_value(&mut self.trained_section, true, t!("depth-section-trained"));
        });
        if self.trained_section {
            self.trained(ui);
        } else {
            self.at_init(ui);
            picked_model(ui, shared);
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..2).map(|s| format!("view=depth&dsec={s}")).collect()
    }

    fn keys(&self) -> &'static [&'static str] {
        &["dn", "dseed", "dsec", "dtn", "dwarm", "dtrain"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("dn", self.layers);
        w.put("dseed", self.seed);
        w.put("dsec", u8::from(self.trained_section));
        w.put("dtn", self.trained_layers);
        w.put("dwarm", u8::from(self.warmup));
        w.put("dtrain", u8::from(self.training.running));
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(n) = r.number("dn", LAYERS) {
            self.layers = n;
        }
        if let Some(s) = r.number("dseed", 0..=u32::MAX as u64) {
            self.seed = s;
        }
        if let Some(t) = r.number("dsec", 0..=1u8) {
            self.trained_section = t == 1;
        }
        if let Some(n) = r.number("dtn", TRAINED_LAYERS) {
            self.trained_layers = n;
        }
        if let Some(w) = r.flag("dwarm") {
            self.warmup = w;
        }
        if let Some(t) = r.flag("dtrain") {
            self.training.running = t;
        }
    }
}

/// The picked (trained) model's own stream, block by block, on the shared input.
fn picked_model(ui: &mut Ui, shared: &Shared<'_>) {
    let (Ok(model), Some(trace)) = (&shared.bench.model, shared.bench.trace()) else {
        return;
    };
    let Some(stack) = trace.decoder.as_ref().or(trace.encoder.as_ref()) else {
        return;
    };
    let norms = stream_norms(stack);
    if norms.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong(t!(
        "depth-picked",
        model = &shared.bench.model_name,
        norm = name(model.config.norm),
        blocks = model.config.n_layers,
        d = model.config.d_model
    ));
    let points = norms
        .iter()
        .enumerate()
        .map(|(i, &v)| [i as f64, v as f64])
        .collect();
    let mut words = PlotWords::new(t!("depth-picked-stream"), t!("depth-block"));
    let plot = Plot::new("depth_picked")
        .height(160.0)
        .x_axis_label(t!("depth-block"))
        .y_axis_label("‖x‖")
        .include_y(0.0)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(words.line(shared.bench.model_name.clone(), points))
        });
    words.add(ui, &plot.response);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::open;
    use egui_kittest::kittest::{NodeT, Queryable};

    /// A link trains the pair to the end in frames; both two-block placements learn the task,
    /// and the lab then measures each trained decoder's stream and shows it.
    #[test]
    fn a_link_trains_both_placements_and_shows_their_streams() {
        let mut h = open("view=depth&dsec=1&dtn=2&dwarm=1&dtrain=1");
        for _ in 0..5000 {
            if !h.state().labs.get::<DepthLab>().unwrap().training.pending() {
                break;
            }
            h.run_steps(1);
        }
        h.run_steps(2);
        let lab = h.state_mut().labs.get_mut::<DepthLab>().unwrap();
        let spec = lab.race_spec();
        let race = lab.training.race(spec).unwrap();
        assert!(race.done());
        for o in race.outcomes() {
            let e = o.eval.unwrap();
            assert_eq!(o.steps, TRAINED_STEPS);
            assert!(e.exact_match >= 0.9, "{}: {e:?}", o.label);
        }
        let streams = &lab.trained_streams.as_ref().unwrap().1;
        assert_eq!(streams.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3]);
        h.get_by_label(
            "‖x‖ of the trained decoders' stream, entering each block (then leaving the last)",
        );
        // The plot's summary reads both lines.
        let summary = h.get_by_label_contains("‖x‖ of the trained decoders' stream: “");
        let summary = summary.accesskit_node().label().unwrap_or_default();
        assert_eq!(summary.matches(" from ").count(), 2, "{summary}");
        h.get_by_label("trained");
    }

    /// The lesson page *Deep stacks, trained* states what the lab's default pair gives (six
    /// blocks, seed 1, 1,000 steps, natively): without warmup pre-norm's held-out loss and
    /// post-norm's loss and share of letters right; with warmup post-norm's loss and exact
    /// match; and that two blocks post-norm train without warmup.
    #[test]
    fn the_deep_stacks_page_states_what_the_pair_gives() {
        use crate::train::compare::Race;
        let trained_with = |warmup: bool, trained_layers: usize| {
            let lab = DepthLab {
                warmup,
                trained_layers,
                ..DepthLab::default()
            };
            let spec = lab.race_spec();
            let entries = spec.experiment.entries(spec.task, spec.seed, spec.steps);
            let mut race = Race::new(entries, spec.steps, spec.steps / 10, spec.examples).unwrap();
            race.run_to_end();
            let out = race.outcomes();
            let labels: Vec<&str> = out.iter().map(|o| o.label.as_str()).collect();
            assert_eq!(labels, ["pre-norm", "post-norm"]);
            (out[0].eval.unwrap(), out[1].eval.unwrap())
        };
        let trained = |warmup: bool| trained_with(warmup, DepthLab::default().trained_layers);
        let (pre, post) = trained(false);
        let (_, warm_post) = trained(true);
        let (_, shallow_post) = trained_with(false, 2);
        println!(
            "no warmup: pre {pre:?}, post {post:?}; warmup: post {warm_post:?}; \
             2 blocks, no warmup: post {shallow_post:?}"
        );
        let page = crate::i18n::format_in("en", "lesson-page-deep-stacks-trained-text", &[])
            .expect("the page's text")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(page.contains("Drag the blocks to 2 and post-norm trains without warmup too"));
        assert!(
            shallow_post.exact_match >= 0.9,
            "two blocks post-norm train without warmup: {shallow_post:?}"
        );
        assert_eq!(TRAINED_STEPS, 1000);
        assert!(page.contains("After 1,000 steps"));
        assert_eq!(
            pre.exact_match, 1.0,
            "pre-norm reverses every held-out sequence"
        );
        assert_eq!(warm_post.exact_match, 1.0, "with warmup, 100 % exact");
        assert_eq!(post.exact_match, 0.0, "post-norm: no sequence");
        for said in [
            format!("loss about {:.3}", pre.loss),
            format!(
                "Natively {:.2} and {:.1} %",
                post.loss,
                100.0 * post.token_accuracy
            ),
            format!("post-norm to loss {:.3}, 100 % exact", warm_post.loss),
        ] {
            assert!(
                page.contains(&said),
                "the page does not say {said:?}: {page}"
            );
        }
    }

    #[test]
    fn bad_depth_links_keep_the_defaults() {
        let mut lab = DepthLab::default();
        let mut r = LinkReader::parse("dtn=40&dwarm=perhaps&dtrain=2");
        lab.load(&mut r);
        assert_eq!(
            (lab.trained_layers, lab.warmup, lab.training.running),
            (6, false, false)
        );
        assert_eq!(r.notices.len(), 3, "{:?}", r.notices);
    }
}
