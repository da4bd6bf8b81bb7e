//! The softmax lab: softmax by hand. Type scores and see every step to the weights, their
//! entropy and the Jacobian αᵢ(δᵢⱼ − αⱼ), and how the gradient vanishes as the scores grow
//! apart; type small Q, K and V and see every step of softmax(QKᵀ/√d_k)·V, read by rows (what
//! a query gathers) or by the rows of Aᵀ (who listens to a key).
//!
//! The numbers come from `maths` (pure functions, tested there); this file holds the state,
//! the link keys and the drawing.

mod cells;
pub mod maths;
pub mod stacking;
mod stacking_view;

pub(super) use cells::{matrix, matrix_with_room, trim};

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use egui::{RichText, Ui};
use egui_plot::{Plot, VLine};
use maths::{attention_steps, gradient_curve, parse_matrix, parse_vector, softmax_steps};
use ndarray::Array2;

/// The lab's two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Scores → weights, entropy and Jacobian.
    Scores,
    /// Q, K, V → every step of attention.
    Matrices,
    /// Two layers stacked: what collapses, and what keeps it non-linear.
    Stacking,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Scores, Part::Matrices, Part::Stacking];

    fn title(self) -> String {
        match self {
            Part::Scores => t!("softmax-part-scores"),
            Part::Matrices => t!("softmax-part-matrices"),
            Part::Stacking => t!("softmax-part-stacking"),
        }
    }
}

/// Scale range of the "multiply the scores by s" slider.
const SCALES: std::ops::RangeInclusive<f32> = 0.1..=20.0;

/// Ready-made scores and their scale: the notes' worked example and their saturation example.
const PRESETS: [(&str, f32); 4] = [
    ("0, 2, 1", 1.0),
    ("2, 1", 1.0),
    ("2, 1", 10.0),
    ("50, 0, 0, 0", 1.0),
];

/// What preset `i` of `PRESETS` shows (its button's hover text).
fn preset_why(i: usize) -> String {
    match i {
        0 => t!("softmax-preset-worked"),
        1 => t!("softmax-preset-soft"),
        2 => t!("softmax-preset-saturated"),
        _ => t!("softmax-preset-far"),
    }
}

/// The default Q, K, V: query 1 scores the keys [0, 4, 2], which over √4 = 2 are the notes'
/// worked example [0, 2, 1].
pub const DEFAULT_Q: &str = "1 1 1 1; 0 0 1 1; 1 0 0 0";
pub const DEFAULT_K: &str = "0 0 0 0; 1 1 1 1; 1 1 0 0";
pub const DEFAULT_V: &str = "1 0; 0 1; 1 1";

/// The notes' routing example: output 1 takes 0.1, 0.3 and 0.6 of the three values, output 2
/// 0.5, 0.2 and 0.3 (output 3's 0.2, 0.7, 0.1 is ours: the notes leave it open). Each query
/// holds the logarithms of its weights and the keys are one-hot times √3 ≈ 1.7321, which the
/// ÷√d_k (d_k = 3) cancels, so the softmax gives the weights back. The values are one-hot with
/// a 1 appended (D = 4): each output shows its mix, and its last number, the weights' sum, is 1.
pub const ROUTING_Q: &str =
    "-2.3026 -1.2040 -0.5108; -0.6931 -1.6094 -1.2040; -1.6094 -0.3567 -2.3026";
pub const ROUTING_K: &str = "1.7321 0 0; 0 1.7321 0; 0 0 1.7321";
pub const ROUTING_V: &str = "1 0 0 1; 0 1 0 1; 0 0 1 1";

pub struct SoftmaxLab {
    pub part: Part,
    /// The typed scores.
    pub scores: String,
    /// Every score is multiplied by this before the softmax.
    pub scale: f32,
    pub q: String,
    pub k: String,
    pub v: String,
    /// Show Aᵀ (one column per query, the notes' layout) instead of A.
    pub transposed: bool,
    /// The query and the key the text reads out.
    pub query: usize,
    pub key: usize,
    /// The stacking part: the seed of its input and layers, and the scale c of its input.
    pub stack_seed: u64,
    pub stack_scale: f32,
}

impl Default for SoftmaxLab {
    fn default() -> Self {
        Self {
            part: Part::Scores,
            scores: "0, 2, 1".into(),
            scale: 1.0,
            q: DEFAULT_Q.into(),
            k: DEFAULT_K.into(),
            v: DEFAULT_V.into(),
            transposed: false,
            query: 0,
            key: 1,
            stack_seed: 1,
            stack_scale: 2.0,
        }
    }
}

impl SoftmaxLab {
    /// The typed scores times the scale, or why they cannot be read.
    pub fn scaled_scores(&self) -> Result<Vec<f32>, String> {
        Ok(self.scaled(&parse_vector(&self.scores)?))
    }

    /// `base` times the scale.
    fn scaled(&self, base: &[f32]) -> Vec<f32> {
        base.iter().map(|x| x * self.scale).collect()
    }

    /// Q, K and V as typed, or the first reason one cannot be read.
    pub fn matrices(&self) -> Result<[Array2<f32>; 3], String> {
        let read = |name: &str, text: &str| parse_matrix(text).map_err(|e| format!("{name}: {e}"));
        Ok([
            read("Q", &self.q)?,
            read("K", &self.k)?,
            read("V", &self.v)?,
        ])
    }

    /// What the lab shows, as JSON (its export).
    fn json(&self) -> Option<Vec<u8>> {
        let value = match self.part {
            Part::Scores => {
                let s = softmax_steps(&self.scaled_scores().ok()?);
                serde_json::json!({
                    "scores": s.scores, "shifted": s.shifted, "exp": s.exps, "sum": s.sum,
                    "weights": s.weights, "entropy_bits": s.entropy_bits,
                    "jacobian": rows(&s.jacobian),
                })
            }
            Part::Matrices => {
                let [q, k, v] = self.matrices().ok()?;
                let a = attention_steps(&q, &k, &v).ok()?;
                serde_json::json!({
                    "Q": rows(&q), "K": rows(&k), "V": rows(&v), "QKt": rows(&a.scores),
                    "sqrt_dk": a.sqrt_dk, "scaled": rows(&a.scaled), "A": rows(&a.weights),
                    "context": rows(&a.context), "received": a.received(),
                })
            }
            Part::Stacking => {
                let stack = stacking::Stack::new(self.stack_seed);
                let pass = stack.pass(&stack.x, stacking::Weights::Softmax);
                let c = stack.collapse();
                let m = |a: &ndarray::Array2<f64>| rows(&a.mapv(|x| x as f32));
                serde_json::json!({
                    "X": m(&stack.x), "A1": m(&pass.weights[0]), "A2": m(&pass.weights[1]),
                    "A2A1": m(&c.a_star), "WV1WV2": m(&c.v_star),
                    "two_layers_minus_one_layer": c.difference,
                })
            }
        };
        serde_json::to_vec_pretty(&value).ok()
    }

    fn scores_ui(&mut self, ui: &mut Ui) {
        ui.label(t!("softmax-scores-intro"));
        crate::app::formulas::show(ui, "softmax");
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("softmax-scores-label"));
            ui.add(egui::TextEdit::singleline(&mut self.scores).desired_width(180.0))
                .labelled_by(label.id);
            for (i, (text, scale)) in PRESETS.into_iter().enumerate() {
                let label = if scale == 1.0 {
                    format!("[{text}]")
                } else {
                    format!("[{text}] × {scale}")
                };
                if ui.button(label).on_hover_text(preset_why(i)).clicked() {
                    self.scores = text.into();
                    self.scale = scale;
                }
            }
        });
        ui.add(
            egui::Slider::new(&mut self.scale, SCALES)
                .logarithmic(true)
                .text(t!("softmax-scale")),
        );
        let base = match parse_vector(&self.scores) {
            Ok(b) => b,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        let s = softmax_steps(&self.scaled(&base));
        ui.add_space(4.0);
        steps_table(ui, &s);
        ui.add_space(4.0);
        ui.label(
            RichText::new(t!(
                "softmax-entropy",
                bits = format!("{:.3}", s.entropy_bits),
                count = s.scores.len(),
                max = format!("{:.3}", s.max_entropy_bits)
            ))
            .strong(),
        );
        ui.add_space(6.0);
        ui.strong(t!("softmax-jacobian-title"));
        ui.weak(t!("softmax-jacobian-note"));
        let labels: Vec<String> = (1..=s.scores.len()).map(|i| i.to_string()).collect();
        let scale = ColorScale::diverging_for(s.jacobian.iter());
        matrix(ui, &s.jacobian, &labels, &labels, scale, ("α", "e"), None);
        gradient_plot(ui, &base, self.scale, &s);
    }

    fn matrices_ui(&mut self, ui: &mut Ui) {
        ui.label(t!("softmax-matrices-intro"));
        crate::app::widgets::fit::columns(ui, 3, 180.0, |cols| {
            for (col, (name, text)) in cols.iter_mut().zip([
                (t!("softmax-q-label"), &mut self.q),
                (t!("softmax-k-label"), &mut self.k),
                (t!("softmax-v-label"), &mut self.v),
            ]) {
                let label = crate::app::widgets::math_text::label(col, &name);
                col.add(
                    egui::TextEdit::multiline(text)
                        .desired_rows(3)
                        .desired_width(f32::INFINITY)
                        .font(egui::TextStyle::Monospace),
                )
                .labelled_by(label.id);
            }
        });
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("softmax-worked-again")).clicked() {
                (self.q, self.k, self.v) = (DEFAULT_Q.into(), DEFAULT_K.into(), DEFAULT_V.into());
            }
            let routing = ui.button(t!("softmax-routing")).on_hover_text(
                crate::app::widgets::math_unicode::unicode(&t!("softmax-routing-hover")),
            );
            if routing.clicked() {
                (self.q, self.k, self.v) = (ROUTING_Q.into(), ROUTING_K.into(), ROUTING_V.into());
            }
        });
        let steps = self
            .matrices()
            .and_then(|[q, k, v]| attention_steps(&q, &k, &v));
        let a = match steps {
            Ok(a) => a,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        let (nq, nk) = a.weights.dim();
        self.query = self.query.min(nq - 1);
        self.key = self.key.min(nk - 1);
        let queries: Vec<String> = (1..=nq).map(|i| format!("q{i}")).collect();
        let keys: Vec<String> = (1..=nk).map(|j| format!("k{j}")).collect();
        let dims: Vec<String> = (1..=a.context.ncols()).map(|c| c.to_string()).collect();
        let (query, key) = (t!("softmax-axis-query"), t!("softmax-axis-key"));
        let dimension = t!("softmax-axis-dimension");
        crate::app::widgets::fit::columns(ui, 2, 260.0, |cols| {
            cols[0].strong(t!("softmax-step-scores"));
            let scale = ColorScale::diverging_for(a.scores.iter());
            matrix(
                &mut cols[0],
                &a.scores,
                &queries,
                &keys,
                scale,
                (&query, &key),
                None,
            );
            let scaled = format!("2. E = S / √d_k = S / {}", trim(a.sqrt_dk));
            crate::app::widgets::math_text::strong(&mut cols[1], &scaled);
            let scale = ColorScale::diverging_for(a.scaled.iter());
            matrix(
                &mut cols[1],
                &a.scaled,
                &queries,
                &keys,
                scale,
                (&query, &key),
                None,
            );
        });
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("softmax-read-by"));
            ui.selectable_value(&mut self.transposed, false, t!("softmax-read-rows"));
            ui.selectable_value(&mut self.transposed, true, t!("softmax-read-columns"));
        });
        crate::app::widgets::fit::columns(ui, 2, 260.0, |cols| {
            let weights = ColorScale::Sequential { min: 0.0, max: 1.0 };
            if self.transposed {
                cols[0].strong(t!("softmax-step-transposed"));
                let at = a.weights.t().to_owned();
                matrix(
                    &mut cols[0],
                    &at,
                    &keys,
                    &queries,
                    weights,
                    (&key, &query),
                    Some(self.key),
                );
            } else {
                cols[0].strong(t!("softmax-step-weights"));
                matrix(
                    &mut cols[0],
                    &a.weights,
                    &queries,
                    &keys,
                    weights,
                    (&query, &key),
                    Some(self.query),
                );
            }
            cols[1].strong(t!("softmax-step-context"));
            let scale = ColorScale::diverging_for(a.context.iter());
            let row = (!self.transposed).then_some(self.query);
            matrix(
                &mut cols[1],
                &a.context,
                &queries,
                &dims,
                scale,
                (&query, &dimension),
                row,
            );
        });
        if self.transposed {
            listeners(ui, &a, &mut self.key, &keys);
        } else {
            gatherer(ui, &a, &mut self.query, &queries);
        }
    }
}

/// The softmax steps as a table: e, e − max, exp, α with a bar.
fn steps_table(ui: &mut Ui, s: &maths::SoftmaxSteps) {
    egui::Grid::new("softmax_steps")
        .striped(true)
        .spacing([18.0, 3.0])
        .show(ui, |ui| {
            for h in ["i", "eᵢ", "eᵢ − max e", "exp(eᵢ − max e)", "αᵢ", ""] {
                ui.strong(h);
            }
            ui.end_row();
            for i in 0..s.scores.len() {
                ui.monospace((i + 1).to_string());
                ui.monospace(trim(s.scores[i]));
                ui.monospace(trim(s.shifted[i]));
                ui.monospace(format!("{:.5}", s.exps[i]));
                ui.monospace(RichText::new(format!("{:.5}", s.weights[i])).strong());
                ui.add(egui::ProgressBar::new(s.weights[i]).desired_width(120.0));
                ui.end_row();
            }
            ui.monospace("Σ");
            ui.label("");
            ui.label("");
            ui.monospace(format!("{:.5}", s.sum));
            ui.monospace(format!("{:.5}", s.weights.iter().sum::<f32>()));
            ui.end_row();
        });
    ui.weak(t!("softmax-shift-note"));
}

/// The largest gradient of softmax(s·e) as s grows, with the current s marked.
/// `base`: the typed scores before the scale; `s`: the steps at `scale`.
fn gradient_plot(ui: &mut Ui, base: &[f32], scale: f32, s: &maths::SoftmaxSteps) {
    let (lo, hi) = (SCALES.start().ln(), SCALES.end().ln());
    let scales = (0..=200).map(|i| (lo + (hi - lo) * i as f32 / 200.0).exp());
    let points = gradient_curve(base, scales);
    ui.add_space(6.0);
    // Tied top scores share the weight at every scale, so their gradient never vanishes.
    let max = base.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let tied = base.iter().filter(|&&x| x == max).count() > 1;
    let trend = if tied {
        t!("softmax-trend-tied")
    } else {
        t!("softmax-trend-apart")
    };
    ui.strong(t!(
        "softmax-largest-gradient",
        value = format!("{:.6}", s.largest_gradient()),
        s = trim(scale),
        trend = trend
    ));
    let mut words = PlotWords::new(t!("softmax-plot-title"), "s");
    let now = t!("softmax-plot-s-now");
    words.mark(&now, scale as f64);
    let plot = Plot::new("softmax_gradient")
        .height(170.0)
        .x_axis_label(t!("softmax-plot-x"))
        .y_axis_label(t!("softmax-plot-y"))
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.line(words.line(t!("softmax-plot-line"), points));
            plot.vline(VLine::new(now.clone(), scale as f64));
        });
    words.add(ui, &plot.response);
}

/// Row `query` of A read out: the weights it gives each key and the context it gathers.
fn gatherer(ui: &mut Ui, a: &maths::AttentionSteps, query: &mut usize, names: &[String]) {
    ui.horizontal_wrapped(|ui| {
        ui.label(t!("softmax-query-pick"));
        for (i, n) in names.iter().enumerate() {
            ui.selectable_value(query, i, n);
        }
    });
    let w = a.weights.row(*query);
    let terms: Vec<String> = w
        .iter()
        .enumerate()
        .map(|(j, x)| format!("{x:.2}·v{}", j + 1))
        .collect();
    let c: Vec<String> = a
        .context
        .row(*query)
        .iter()
        .map(|x| format!("{x:.2}"))
        .collect();
    ui.label(
        RichText::new(t!(
            "softmax-gathers",
            query = &names[*query],
            index = *query + 1,
            terms = terms.join(" + "),
            context = c.join(", ")
        ))
        .strong(),
    );
}

/// Row `key` of Aᵀ read out: how much each query reads this key, and in all.
fn listeners(ui: &mut Ui, a: &maths::AttentionSteps, key: &mut usize, names: &[String]) {
    ui.horizontal_wrapped(|ui| {
        ui.label(t!("softmax-key-pick"));
        for (j, n) in names.iter().enumerate() {
            ui.selectable_value(key, j, n);
        }
    });
    let readers: Vec<String> = a
        .weights
        .column(*key)
        .iter()
        .enumerate()
        .map(|(i, x)| format!("q{} {x:.2}", i + 1))
        .collect();
    let received = a.received()[*key];
    ui.label(
        RichText::new(t!(
            "softmax-listeners",
            key = &names[*key],
            readers = readers.join(", "),
            received = format!("{received:.2}"),
            total = a.weights.nrows()
        ))
        .strong(),
    );
}

/// A matrix as a list of rows, for JSON.
fn rows(m: &Array2<f32>) -> Vec<Vec<f32>> {
    m.rows().into_iter().map(|r| r.to_vec()).collect()
}

impl Lab for SoftmaxLab {
    fn id(&self) -> &'static str {
        "softmax"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            for p in Part::ALL {
                ui.selectable_value(&mut self.part, p, p.title());
            }
            let json = || self.json();
            let steps = t!("softmax-export-steps");
            let data: [export::DataFile<'_>; 1] = [(&steps, "glimpse-softmax.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-softmax.png", &data);
        });
        ui.separator();
        match self.part {
            Part::Scores => self.scores_ui(ui),
            Part::Matrices => self.matrices_ui(ui),
            Part::Stacking => {
                egui::ScrollArea::vertical()
                    .id_salt("softmax_stacking")
                    .show(ui, |ui| {
                        stacking_view::stacking_ui(ui, &mut self.stack_seed, &mut self.stack_scale)
                    })
                    .inner
            }
        }
    }

    fn keys(&self) -> &'static [&'static str] {
        &[
            "smp", "sme", "sms", "smq", "smk", "smv", "smt", "smi", "smj", "sxs", "sxc",
        ]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("smp", crate::app::link::index_of(&Part::ALL, &self.part));
        w.put("sme", &self.scores);
        w.put("sms", self.scale);
        w.put("smq", &self.q);
        w.put("smk", &self.k);
        w.put("smv", &self.v);
        w.put("smt", self.transposed as u8);
        w.put("smi", self.query);
        w.put("smj", self.key);
        if self.part == Part::Stacking {
            w.put("sxs", self.stack_seed);
            w.put("sxc", self.stack_scale);
        }
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(p) = r.read("smp", |v| crate::app::link::at_index(&Part::ALL, v)) {
            self.part = p;
        }
        // Text that does not parse is kept as typed (the lab says why); only its length is
        // bounded, so a hostile link cannot make the lab hold megabytes.
        let text = |v: &str| (v.len() <= 400).then(|| v.to_string());
        if let Some(x) = r.read("sme", text) {
            self.scores = x;
        }
        if let Some(x) = r.number("sms", SCALES) {
            self.scale = x;
        }
        for (key, field) in [
            ("smq", &mut self.q),
            ("smk", &mut self.k),
            ("smv", &mut self.v),
        ] {
            if let Some(x) = r.read(key, text) {
                *field = x;
            }
        }
        if let Some(x) = r.flag("smt") {
            self.transposed = x;
        }
        if let Some(x) = r.number("smi", 0..maths::MAX_DIM) {
            self.query = x;
        }
        if let Some(x) = r.number("smj", 0..maths::MAX_DIM) {
            self.key = x;
        }
        if let Some(x) = r.number("sxs", 1..=9999) {
            self.stack_seed = x;
        }
        if let Some(x) = r.number("sxc", stacking_view::SCALES) {
            self.stack_scale = x;
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..Part::ALL.len())
            .map(|i| format!("view=softmax&smp={i}"))
            .collect()
    }
}
