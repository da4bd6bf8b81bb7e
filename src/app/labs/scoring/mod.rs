//! The scoring and scaling lab: one query scored against the same keys by four scoring
//! functions, the softmax temperature running from argmax to uniform, and why scaled
//! dot-product attention divides by √d_k.
//!
//! The numbers come from pure functions (`scores`, `dot_variance`, and the model's own softmax
//! and entropy from `model::softmax`), so tests check the mathematics without drawing anything.

use crate::model::softmax::{entropy_bits, softmax_with_temperature};
use crate::util::argmax;
use crate::util::rng::Rng;
use egui::{Color32, RichText, Stroke};
use egui_plot::{
    Bar, BarChart, Corner, HLine, Legend, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points,
    VLine,
};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// The query and keys to score: one head of the loaded model on the user's input.
pub struct ScoringInput<'a> {
    pub query: ArrayView1<'a, f32>,
    pub keys: ArrayView2<'a, f32>,
    pub query_label: &'a str,
    pub key_labels: &'a [String],
    /// Where they come from, shown as a caption, e.g. "layer 2, head 1, query “zone”".
    pub source: String,
}

/// The four classic ways of turning a query and a key into one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreKind {
    Dot,
    ScaledDot,
    Bilinear,
    Additive,
}

impl ScoreKind {
    pub const ALL: [ScoreKind; 4] = [
        ScoreKind::Dot,
        ScoreKind::ScaledDot,
        ScoreKind::Bilinear,
        ScoreKind::Additive,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ScoreKind::Dot => "dot q·k",
            ScoreKind::ScaledDot => "scaled dot q·k/√d",
            ScoreKind::Bilinear => "bilinear qᵀWk",
            ScoreKind::Additive => "additive vᵀtanh(Wq+Uk)",
        }
    }
}

/// The learned parameters of the bilinear (Luong) and additive (Bahdanau) scorings. The loaded
/// models never learned them, so the lab draws them at random.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreParams {
    /// W of qᵀWk, [h, h].
    pub w_bilinear: Array2<f32>,
    /// W of vᵀtanh(Wq + Uk), [a, h] (here a = h).
    pub w_add: Array2<f32>,
    /// U of vᵀtanh(Wq + Uk), [a, h].
    pub u_add: Array2<f32>,
    /// v of vᵀtanh(Wq + Uk), [a].
    pub v_add: Array1<f32>,
}

impl ScoreParams {
    /// Seeded parameters for width `h`: matrix entries ~ N(0, 1/h), so Wk keeps the scale of k;
    /// v ~ N(0, 1).
    pub fn random(h: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let sd = 1.0 / (h.max(1) as f64).sqrt();
        let w_bilinear = normal_matrix(&mut rng, h, sd);
        let w_add = normal_matrix(&mut rng, h, sd);
        let u_add = normal_matrix(&mut rng, h, sd);
        let v_add = Array1::from_shape_simple_fn(h, || rng.normal() as f32);
        Self {
            w_bilinear,
            w_add,
            u_add,
            v_add,
        }
    }
}

fn normal_matrix(rng: &mut Rng, h: usize, sd: f64) -> Array2<f32> {
    Array2::from_shape_simple_fn((h, h), || (rng.normal() * sd) as f32)
}

/// One score per key (row of `keys`). Shapes that do not fit together (a query of another
/// width, parameters made for another width) give NaN for every key rather than a panic.
pub fn scores(
    query: ArrayView1<'_, f32>,
    keys: ArrayView2<'_, f32>,
    kind: ScoreKind,
    params: &ScoreParams,
) -> Vec<f32> {
    let (t, h) = keys.dim();
    let unfit = || vec![f32::NAN; t];
    if query.len() != h {
        return unfit();
    }
    match kind {
        ScoreKind::Dot => keys.dot(&query).to_vec(),
        ScoreKind::ScaledDot => {
            // A width-0 head scores 0 everywhere; dividing by √1 keeps that 0 instead of 0/0.
            let scale = (h.max(1) as f32).sqrt();
            keys.dot(&query).iter().map(|s| s / scale).collect()
        }
        ScoreKind::Bilinear => {
            if params.w_bilinear.dim() != (h, h) {
                return unfit();
            }
            // qᵀWk = (Wᵀq)·k: one matrix-vector product for all keys.
            let wq = params.w_bilinear.t().dot(&query);
            keys.dot(&wq).to_vec()
        }
        ScoreKind::Additive => {
            let a = params.v_add.len();
            if params.w_add.dim() != (a, h) || params.u_add.dim() != (a, h) {
                return unfit();
            }
            let wq = params.w_add.dot(&query);
            let uk = keys.dot(&params.u_add.t());
            uk.outer_iter()
                .map(|row| {
                    row.iter()
                        .zip(&wq)
                        .zip(&params.v_add)
                        .map(|((u, w), v)| v * (w + u).tanh())
                        .sum()
                })
                .collect()
        }
    }
}

/// Sample variances of q·k and of q·k/√d_k over `samples` draws of q and k with i.i.d. N(0, 1)
/// entries: var(q·k) = d_k in theory, the scaled one 1. Fewer than two samples give NaN.
pub fn dot_variance(d_k: usize, samples: usize, seed: u64) -> (f32, f32) {
    if samples < 2 {
        return (f32::NAN, f32::NAN);
    }
    let mut rng = Rng::new(seed);
    let scale = (d_k.max(1) as f64).sqrt();
    let dots: Vec<f64> = (0..samples)
        .map(|_| (0..d_k).map(|_| rng.normal() * rng.normal()).sum())
        .collect();
    let scaled: Vec<f64> = dots.iter().map(|d| d / scale).collect();
    (variance(&dots) as f32, variance(&scaled) as f32)
}

/// Unbiased sample variance (n − 1 in the denominator); `xs` has at least two entries.
fn variance(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
}

/// Draws of q and k behind each printed variance.
const SAMPLES: usize = 2000;
/// d_k = 2^1 … 2^9 = 2 … 512.
const D_K_EXPONENTS: std::ops::RangeInclusive<u32> = 1..=9;
const TAU_MIN: f32 = 0.05;
const TAU_MAX: f32 = 20.0;
/// Points of the entropy-vs-τ curve.
const ENTROPY_POINTS: usize = 121;
/// The argmax key, in the table and in the bar chart; warm so it stands out on the dark theme.
const HIGHLIGHT: Color32 = Color32::from_rgb(255, 196, 64);
const BAR: Color32 = Color32::from_rgb(90, 140, 220);

/// The variances for every d_k of the slider, cached per seed: about four million normal
/// draws, too many to redo every frame, and too many for one frame in the browser, so they
/// are measured a few widths per frame and the plot fills in.
struct VarianceCurve {
    seed: u64,
    /// (d_k, var(q·k), var(q·k/√d_k)), for the widths measured so far, narrowest first.
    points: Vec<(usize, f32, f32)>,
}

impl VarianceCurve {
    fn new(seed: u64) -> Self {
        Self {
            seed,
            points: Vec::new(),
        }
    }

    fn done(&self) -> bool {
        self.points.len() == D_K_EXPONENTS.count()
    }

    /// Measure the next widths for about `budget_ms` (at least one). Each width has its own
    /// draws, so the result does not depend on how the work is split.
    fn advance(&mut self, budget_ms: f64) {
        let start = web_time::Instant::now();
        while !self.done() {
            let d = 1usize << (D_K_EXPONENTS.start() + self.points.len() as u32);
            let (raw, scaled) = dot_variance(d, SAMPLES, self.seed);
            self.points.push((d, raw, scaled));
            if start.elapsed().as_secs_f64() * 1e3 > budget_ms {
                break;
            }
        }
    }
}

pub struct ScoringLab {
    /// Softmax temperature τ of the temperature view.
    pub temperature: f32,
    /// Key width of the variance view (a power of two, 2 … 512).
    pub d_k: usize,
    /// Seed of the q, k samples of the variance view ("resample" moves it on).
    pub seed: u64,
    /// Seed of the random bilinear and additive parameters.
    pub param_seed: u64,
    /// Parameters for the head width and seed they were drawn for.
    params: Option<(usize, u64, ScoreParams)>,
    curve: Option<VarianceCurve>,
}

impl Default for ScoringLab {
    fn default() -> Self {
        Self {
            temperature: 1.0,
            d_k: 64,
            seed: 1,
            param_seed: 7,
            params: None,
            curve: None,
        }
    }
}

/// One scoring function's column of the table.
struct Column {
    kind: ScoreKind,
    scores: Vec<f32>,
    /// Softmax at τ = 1; NaN when a score overflowed.
    weights: Vec<f32>,
    /// The best-scoring key, highlighted.
    best: Option<usize>,
}

impl Column {
    fn new(kind: ScoreKind, input: &ScoringInput<'_>, params: &ScoreParams) -> Self {
        let scores = scores(input.query, input.keys, kind, params);
        let ok = all_finite(&scores);
        let weights = if ok {
            softmax_with_temperature(&scores, 1.0)
        } else {
            vec![f32::NAN; scores.len()]
        };
        let best = if ok {
            argmax(scores.iter().copied()).map(|(i, _)| i)
        } else {
            None
        };
        Self {
            kind,
            scores,
            weights,
            best,
        }
    }
}

/// Why an input cannot be scored, in words for the student.
fn problem(input: &ScoringInput<'_>) -> Option<String> {
    let (t, h) = input.keys.dim();
    if t == 0 {
        return Some("There are no keys to score: type some text.".into());
    }
    if h == 0 {
        return Some("This head has width 0: there is nothing to score.".into());
    }
    if input.query.len() != h {
        return Some(format!(
            "The query has {} numbers but each key has {h}: they cannot be scored together.",
            input.query.len()
        ));
    }
    let finite = |x: &f32| x.is_finite();
    if !input.query.iter().all(finite) || !input.keys.iter().all(finite) {
        return Some(
            "The query or the keys hold NaN or infinite values, so there is nothing meaningful \
             to score or plot."
                .into(),
        );
    }
    None
}

fn all_finite(xs: &[f32]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// Key labels for axes and tables: a missing label becomes "key i"; long ones are shortened.
fn key_names(input: &ScoringInput<'_>) -> Vec<String> {
    (0..input.keys.nrows())
        .map(|i| match input.key_labels.get(i) {
            Some(l) if l.chars().count() > 12 => l.chars().take(11).chain(['…']).collect(),
            Some(l) => l.clone(),
            None => format!("key {i}"),
        })
        .collect()
}

/// A τ (or d_k, variance) axis tick written as a plain number.
fn tick(x: f64) -> String {
    if x >= 9.95 {
        format!("{x:.0}")
    } else if x >= 0.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Ticks only at whole exponents of a log2 axis, written as 2^e.
fn pow2_tick(e: f64) -> String {
    let whole = e.round();
    if (e - whole).abs() > 1e-6 || !(-20.0..=40.0).contains(&whole) {
        String::new()
    } else if whole >= 0.0 {
        (1u64 << whole as u32).to_string()
    } else {
        tick(2f64.powi(whole as i32))
    }
}

impl ScoringLab {
    /// Draw the lab. `input` None → a short message "load a model and type some text" (the
    /// variance view needs no model and is drawn regardless).
    pub fn ui(&mut self, ui: &mut egui::Ui, input: Option<&ScoringInput<'_>>) {
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            self.temperature = 1.0;
        }
        self.temperature = self.temperature.clamp(TAU_MIN, TAU_MAX);
        egui::ScrollArea::vertical()
            .id_salt("scoring_lab")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui, input));
    }

    fn contents(&mut self, ui: &mut egui::Ui, input: Option<&ScoringInput<'_>>) {
        ui.heading("Scoring and scaling");
        let usable = match input {
            None => {
                ui.label("Load a model and type some text to score one of its queries.");
                None
            }
            Some(input) => {
                ui.label(
                    RichText::new(format!(
                        "Query “{}” against {} keys: {}",
                        input.query_label,
                        input.keys.nrows(),
                        input.source
                    ))
                    .italics(),
                );
                match problem(input) {
                    Some(why) => {
                        ui.colored_label(ui.visuals().warn_fg_color, why);
                        None
                    }
                    None => Some(input),
                }
            }
        };
        let scaled = usable.map(|input| {
            let scaled = self.score_table(ui, input);
            (scaled, key_names(input))
        });
        ui.separator();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            match &scaled {
                Some((s, names)) => self.temperature_view(&mut cols[0], s, names),
                None => {
                    cols[0].strong("Temperature");
                    cols[0].label("Needs a query and keys: load a model and type some text.");
                }
            }
            let head_width = usable.map(|i| i.keys.ncols());
            self.scaling_view(&mut cols[1], head_width);
        });
    }

    /// The four scorings side by side; returns the scaled-dot scores for the temperature view.
    fn score_table(&mut self, ui: &mut egui::Ui, input: &ScoringInput<'_>) -> Vec<f32> {
        let h = input.keys.ncols();
        if !matches!(&self.params, Some((ph, ps, _)) if *ph == h && *ps == self.param_seed) {
            self.params = Some((h, self.param_seed, ScoreParams::random(h, self.param_seed)));
        }
        let Some((_, _, params)) = &self.params else {
            return Vec::new();
        };
        let columns: Vec<Column> = ScoreKind::ALL
            .iter()
            .map(|&kind| Column::new(kind, input, params))
            .collect();

        ui.label(
            "The same query scored against the same keys four ways. The model itself uses \
             scaled dot; the bilinear W and the additive W, U, v are random here (seeded, \
             entries ~ N(0, 1/h)), so compare the shape of each scoring, not its values.",
        );
        ui.horizontal_wrapped(|ui| {
            ui.weak(
                "weight: softmax of the column at τ = 1. Highlighted: the best-scoring key of \
                 each column.",
            );
            if ui
                .button("new random W, U, v")
                .on_hover_text("draw other bilinear and additive parameters")
                .clicked()
            {
                self.param_seed = self.param_seed.wrapping_add(1);
            }
        });
        let names = key_names(input);
        // Both ways: a wide table scrolls inside itself instead of widening the whole view.
        egui::ScrollArea::both()
            .id_salt("scoring_table")
            .max_height(230.0)
            .show(ui, |ui| {
                egui::Grid::new("scoring_table_grid")
                    .striped(true)
                    .spacing([12.0, 3.0])
                    .show(ui, |ui| {
                        ui.strong("key");
                        for c in &columns {
                            ui.strong(c.kind.label());
                            ui.strong("weight");
                        }
                        ui.end_row();
                        for (i, name) in names.iter().enumerate() {
                            ui.label(name);
                            for c in &columns {
                                let (s, w) = (&c.scores, &c.weights);
                                let top = c.best == Some(i);
                                let text = if s[i].is_finite() {
                                    format!("{:.3}", s[i])
                                } else {
                                    "—".to_string()
                                };
                                let mut text = RichText::new(text).monospace();
                                if top {
                                    text = text.strong().color(HIGHLIGHT);
                                }
                                ui.label(text);
                                weight_cell(ui, w[i], top);
                            }
                            ui.end_row();
                        }
                    });
            });
        columns
            .into_iter()
            .find(|c| c.kind == ScoreKind::ScaledDot)
            .map(|c| c.scores)
            .unwrap_or_default()
    }

    fn temperature_view(&mut self, ui: &mut egui::Ui, scaled: &[f32], names: &[String]) {
        ui.strong("Temperature: softmax(s/τ)");
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.temperature, TAU_MIN..=TAU_MAX)
                .logarithmic(true)
                .text("temperature τ"),
        )
        .on_hover_text("divide the scaled-dot scores by τ before the softmax");
        if !all_finite(scaled) {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "The scores overflowed to infinity or NaN: nothing to plot.",
            );
            return;
        }
        let t = scaled.len();
        let tau = self.temperature;
        let p = softmax_with_temperature(scaled, tau);
        let entropy = entropy_bits(&p);
        let max_bits = (t as f32).log2();
        ui.label(format!(
            "entropy at τ = {tau:.2}: {entropy:.3} bits (0 = one-hot … log₂ {t} = {max_bits:.3} = uniform)"
        ));
        ui.weak("Small τ sharpens the weights to the argmax; large τ flattens them to uniform.");

        let best = argmax(p.iter().copied()).map(|(i, _)| i);
        let bars: Vec<Bar> = p
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                Bar::new(i as f64, w as f64)
                    .name(&names[i])
                    .width(0.7)
                    .fill(if best == Some(i) { HIGHLIGHT } else { BAR })
            })
            .collect();
        ui.label("scaled-dot weights at this τ");
        Plot::new("scoring_temperature_weights")
            .height(130.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .include_y(0.0)
            .include_y(1.0)
            .y_axis_label("weight")
            .x_axis_formatter(|m, _| crate::app::widgets::category_label(names, m.value))
            .show(ui, |plot| {
                plot.bar_chart(BarChart::new("weight", bars));
                plot.hline(
                    HLine::new("uniform 1/T", 1.0 / t as f64)
                        .style(LineStyle::dashed_dense())
                        .color(Color32::GRAY),
                );
            });

        let (lo, hi) = ((TAU_MIN as f64).log10(), (TAU_MAX as f64).log10());
        let curve: PlotPoints = (0..ENTROPY_POINTS)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / (ENTROPY_POINTS - 1) as f64;
                let h = entropy_bits(&softmax_with_temperature(scaled, 10f64.powf(x) as f32));
                [x, h as f64]
            })
            .collect();
        let now = (tau as f64).log10();
        ui.label("entropy against τ (dashed: log₂ T, the uniform maximum)");
        Plot::new("scoring_entropy")
            .height(150.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .include_y(0.0)
            .include_y(max_bits.max(0.1))
            .x_axis_label("τ (log scale)")
            .y_axis_label("entropy (bits)")
            .x_axis_formatter(|m, _| tick(10f64.powf(m.value)))
            .show(ui, |plot| {
                plot.line(Line::new("entropy", curve).width(2.0));
                plot.hline(
                    HLine::new("log₂ T", max_bits as f64)
                        .style(LineStyle::dashed_dense())
                        .color(Color32::GRAY),
                );
                plot.vline(VLine::new("current τ", now).color(HIGHLIGHT));
                plot.points(
                    Points::new("entropy now", vec![[now, entropy as f64]])
                        .shape(MarkerShape::Circle)
                        .filled(true)
                        .radius(4.0)
                        .color(HIGHLIGHT),
                );
            });
    }

    fn scaling_view(&mut self, ui: &mut egui::Ui, head_width: Option<usize>) {
        ui.strong("Why divide by √d_k");
        // The slider moves the exponent; the stored d_k is always a power of two in range.
        let mut e = (self.d_k.max(1) as f64)
            .log2()
            .round()
            .clamp(*D_K_EXPONENTS.start() as f64, *D_K_EXPONENTS.end() as f64)
            as u32;
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut e, D_K_EXPONENTS)
                    .text("d_k")
                    .custom_formatter(|v, _| format!("{}", 1u64 << (v as u32)))
                    .custom_parser(|s| {
                        s.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|d| *d > 0.0)
                            .map(|d| d.log2().round())
                    }),
            );
            if ui
                .button("resample")
                .on_hover_text("draw new q and k (a new seed)")
                .clicked()
            {
                self.seed = self.seed.wrapping_add(1);
            }
        });
        self.d_k = 1 << e;
        if self.curve.as_ref().is_none_or(|c| c.seed != self.seed) {
            self.curve = Some(VarianceCurve::new(self.seed));
        }
        if let Some(curve) = self.curve.as_mut().filter(|c| !c.done()) {
            curve.advance(15.0);
            ui.ctx().request_repaint();
        }
        let Some(curve) = &self.curve else { return };
        if let Some(&(d, raw, scaled)) = curve.points.iter().find(|p| p.0 == self.d_k) {
            ui.label(
                RichText::new(format!(
                    "d_k = {d}:  var(q·k) = {raw:.2} (≈ d_k)   var(q·k/√d_k) = {scaled:.3} (≈ 1)"
                ))
                .monospace(),
            );
        } else {
            ui.weak(format!(
                "measuring: {} of {} widths",
                curve.points.len(),
                D_K_EXPONENTS.count()
            ));
        }
        ui.weak(format!(
            "{SAMPLES} draws of q and k with i.i.d. N(0, 1) entries (seed {}). q·k adds d_k \
             products of variance 1, so its variance is d_k: wide heads would push the softmax \
             towards one-hot with vanishing gradients. Dividing by √d_k holds it at 1.",
            self.seed
        ));
        if let Some(h) = head_width {
            ui.weak(format!(
                "This head has d_k = {h}, so the model divides its scores by √{h} = {:.2}.",
                (h as f32).sqrt()
            ));
        }

        let log_points = |pick: fn(&(usize, f32, f32)) -> f32| -> PlotPoints {
            curve
                .points
                .iter()
                .filter(|p| pick(p).is_finite() && pick(p) > 0.0)
                .map(|p| [(p.0 as f64).log2(), (pick(p) as f64).log2()])
                .collect()
        };
        let (lo, hi) = (*D_K_EXPONENTS.start() as f64, *D_K_EXPONENTS.end() as f64);
        Plot::new("scoring_variance")
            .height(260.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .legend(Legend::default().position(Corner::LeftTop))
            .include_y(-1.0)
            .include_y(hi + 0.5)
            .x_axis_label("d_k (log scale)")
            .y_axis_label("variance (log scale)")
            .x_axis_formatter(|m, _| pow2_tick(m.value))
            .y_axis_formatter(|m, _| pow2_tick(m.value))
            .show(ui, |plot| {
                plot.line(
                    Line::new(
                        "d_k (theory, raw)",
                        PlotPoints::from(vec![[lo, lo], [hi, hi]]),
                    )
                    .style(LineStyle::dashed_dense())
                    .color(Color32::GRAY),
                );
                plot.line(
                    Line::new(
                        "1 (theory, scaled)",
                        PlotPoints::from(vec![[lo, 0.0], [hi, 0.0]]),
                    )
                    .style(LineStyle::dashed_dense())
                    .color(Color32::DARK_GRAY),
                );
                let raw = log_points(|p| p.1);
                let scaled = log_points(|p| p.2);
                plot.line(Line::new("var(q·k)", raw).width(2.0).color(BAR));
                plot.line(
                    Line::new("var(q·k/√d_k)", scaled)
                        .width(2.0)
                        .color(HIGHLIGHT),
                );
                plot.vline(
                    VLine::new("chosen d_k", (self.d_k as f64).log2())
                        .color(Color32::LIGHT_GRAY)
                        .style(LineStyle::dashed_loose()),
                );
            });
    }
}

/// A weight as a small bar and its value, so a column of weights reads as a distribution.
fn weight_cell(ui: &mut egui::Ui, w: f32, top: bool) {
    // Not wrapped: the bar and its number belong on one line of the table.
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(36.0, 10.0), egui::Sense::hover());
        let painter = ui.painter();
        painter.rect_filled(rect, 1.0, ui.visuals().extreme_bg_color);
        if w.is_finite() {
            let mut fill = rect;
            fill.set_width(rect.width() * w.clamp(0.0, 1.0));
            painter.rect_filled(fill, 1.0, if top { HIGHLIGHT } else { BAR });
        }
        painter.rect_stroke(
            rect,
            1.0,
            Stroke::new(1.0, ui.visuals().weak_text_color()),
            egui::StrokeKind::Inside,
        );
        let text = if w.is_finite() {
            format!("{w:.3}")
        } else {
            "—".to_string()
        };
        ui.label(RichText::new(text).monospace());
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;
    use ndarray::array;

    fn example_keys() -> (Array1<f32>, Array2<f32>) {
        let q = array![0.5, -1.0, 2.0];
        let k = array![
            [1.0, 0.0, 0.5],
            [-0.5, 2.0, 1.0],
            [0.3, 0.3, -1.2],
            [2.0, -1.0, 1.5],
        ];
        (q, k)
    }

    #[test]
    fn scaled_dot_is_dot_over_root_h() {
        let (q, k) = example_keys();
        let params = ScoreParams::random(3, 1);
        let dot = scores(q.view(), k.view(), ScoreKind::Dot, &params);
        let scaled = scores(q.view(), k.view(), ScoreKind::ScaledDot, &params);
        for (d, s) in dot.iter().zip(&scaled) {
            assert!((d / 3f32.sqrt() - s).abs() < 1e-6);
        }
        // Row 0 by hand: 0.5·1 + (−1)·0 + 2·0.5 = 1.5.
        assert!((dot[0] - 1.5).abs() < 1e-6);
    }

    #[test]
    fn bilinear_with_identity_is_dot() {
        let (q, k) = example_keys();
        let mut params = ScoreParams::random(3, 1);
        params.w_bilinear = Array2::eye(3);
        let dot = scores(q.view(), k.view(), ScoreKind::Dot, &params);
        let bilinear = scores(q.view(), k.view(), ScoreKind::Bilinear, &params);
        for (d, b) in dot.iter().zip(&bilinear) {
            assert!((d - b).abs() < 1e-6);
        }
    }

    #[test]
    fn additive_matches_a_hand_computed_example() {
        // Wq = [1, 0]; Uk = [[1, 0], [0, 2]]·[0, 1] = [0, 2]; v = [1, −1]:
        // vᵀtanh([1, 2]) = tanh 1 − tanh 2 ≈ 0.761594 − 0.964028 = −0.202434.
        let params = ScoreParams {
            w_bilinear: Array2::eye(2),
            w_add: Array2::eye(2),
            u_add: array![[1.0, 0.0], [0.0, 2.0]],
            v_add: array![1.0, -1.0],
        };
        let q = array![1.0, 0.0];
        let k = array![[0.0, 1.0], [0.0, 0.0]];
        let s = scores(q.view(), k.view(), ScoreKind::Additive, &params);
        assert!((s[0] - (-0.202_434)).abs() < 1e-5, "{}", s[0]);
        // Second key: tanh([1, 0]) = [0.761594, 0] → 0.761594.
        assert!((s[1] - 0.761_594).abs() < 1e-5, "{}", s[1]);
    }

    #[test]
    fn scores_of_odd_shapes_never_panic() {
        let params = ScoreParams::random(3, 1);
        let (q, k) = example_keys();
        let empty = Array2::<f32>::zeros((0, 3));
        for kind in ScoreKind::ALL {
            assert!(scores(q.view(), empty.view(), kind, &params).is_empty());
            // Parameters for width 3 but a query of width 2: NaN, not a panic.
            let q2 = array![1.0, 2.0];
            let s = scores(q2.view(), k.view(), kind, &params);
            assert_eq!(s.len(), 4);
            assert!(s.iter().all(|x| x.is_nan()));
        }
        let zero_width = Array2::<f32>::zeros((2, 0));
        let p0 = ScoreParams::random(0, 1);
        let q0 = Array1::<f32>::zeros(0);
        for kind in ScoreKind::ALL {
            assert_eq!(
                scores(q0.view(), zero_width.view(), kind, &p0),
                vec![0.0; 2]
            );
        }
    }

    #[test]
    fn random_params_are_seeded_with_variance_one_over_h() {
        let a = ScoreParams::random(32, 5);
        assert_eq!(a, ScoreParams::random(32, 5));
        assert_ne!(a, ScoreParams::random(32, 6));
        let var = a.w_bilinear.iter().map(|x| x * x).sum::<f32>() / (32.0 * 32.0);
        assert!((var * 32.0 - 1.0).abs() < 0.15, "h·var {}", var * 32.0);
    }

    #[test]
    fn dot_variance_grows_with_d_k_and_scaling_holds_it_at_one() {
        let (raw, scaled) = dot_variance(64, 20000, 1);
        assert!((raw / 64.0 - 1.0).abs() < 0.1, "var(q·k) {raw}");
        assert!((scaled - 1.0).abs() < 0.1, "var(q·k/√d_k) {scaled}");
        let (raw4, _) = dot_variance(4, 20000, 1);
        assert!((raw4 / 4.0 - 1.0).abs() < 0.1, "var(q·k) {raw4}");
        assert!(dot_variance(8, 1, 1).0.is_nan());
        assert_eq!(dot_variance(0, 10, 1), (0.0, 0.0));
    }

    #[test]
    fn log_axes_label_whole_powers_only() {
        assert_eq!(pow2_tick(6.0), "64");
        assert_eq!(pow2_tick(0.0), "1");
        assert_eq!(pow2_tick(-1.0), "0.50");
        assert_eq!(pow2_tick(2.5), "");
        assert_eq!(tick(10f64.powf(-1.0)), "0.10");
        assert_eq!(tick(10f64.powf(1.0)), "10");
    }

    fn harness(q: Array1<f32>, k: Array2<f32>) -> egui_kittest::Harness<'static, ScoringLab> {
        let labels: Vec<String> = (0..k.nrows()).map(|i| format!("tok{i}")).collect();
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                move |ui, lab: &mut ScoringLab| {
                    let input = ScoringInput {
                        query: q.view(),
                        keys: k.view(),
                        query_label: "zone",
                        key_labels: &labels,
                        source: "layer 2, head 1, query “zone”".into(),
                    };
                    lab.ui(ui, Some(&input));
                },
                ScoringLab::default(),
            )
    }

    #[test]
    fn the_lab_draws_and_follows_the_temperature() {
        let (q, k) = example_keys();
        let scaled = {
            let p = ScoreParams::random(3, 0);
            scores(q.view(), k.view(), ScoreKind::ScaledDot, &p)
        };
        let mut h = harness(q, k);
        h.run_steps(3);
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "temperature τ");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "d_k");
        h.get_by_label_contains("layer 2, head 1");
        h.get_by_label_contains("bilinear qᵀWk");
        let (raw, scaled64) = dot_variance(64, SAMPLES, 1);
        let printed = format!("var(q·k) = {raw:.2} (≈ d_k)   var(q·k/√d_k) = {scaled64:.3}");
        assert!(h.query_all_by_label_contains(&printed).next().is_some());
        let at_one = entropy_bits(&softmax_with_temperature(&scaled, 1.0));
        h.get_by_label_contains(&format!("entropy at τ = 1.00: {at_one:.3} bits"));

        h.state_mut().temperature = 0.05;
        h.run_steps(2);
        let sharp = entropy_bits(&softmax_with_temperature(&scaled, 0.05));
        assert!(sharp < at_one);
        h.get_by_label_contains(&format!("entropy at τ = 0.05: {sharp:.3} bits"));

        h.get_by_label("resample").click();
        h.run_steps(2);
        assert_eq!(h.state().seed, 2);
        h.get_by_label_contains("(seed 2)");
    }

    #[test]
    fn the_lab_survives_odd_input() {
        // One key: weight 1, entropy 0 of at most log₂ 1 = 0.
        let mut one = harness(array![1.0, 2.0], array![[0.5, 0.5]]);
        one.run_steps(3);
        one.get_by_label_contains("entropy at τ = 1.00: 0.000 bits");
        // No keys, zero width, NaN: a message instead of plots.
        let mut none = harness(array![1.0, 2.0], Array2::zeros((0, 2)));
        none.run_steps(2);
        none.get_by_label_contains("no keys to score");
        let mut flat = harness(Array1::zeros(0), Array2::zeros((3, 0)));
        flat.run_steps(2);
        flat.get_by_label_contains("width 0");
        let mut nan = harness(array![f32::NAN, 1.0], array![[1.0, 2.0], [3.0, 4.0]]);
        nan.run_steps(2);
        nan.get_by_label_contains("NaN");
        // No model at all.
        let mut empty = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                |ui, lab: &mut ScoringLab| lab.ui(ui, None),
                ScoringLab::default(),
            );
        empty.run_steps(2);
        empty.get_by_label_contains("Load a model and type some text");
    }
}
