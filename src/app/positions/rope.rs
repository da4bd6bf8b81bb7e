//! RoPE, rotary position embedding: each pair (2p, 2p+1) of a query or key is turned by an
//! angle proportional to its position, so the score of a query at i and a key at j depends on
//! j − i only. The panel draws that with the functions the model runs (`model::position`):
//! two arrows on a circle, the score against i and against the offset, the angle table, a
//! hand-typed table rotated as `glimpse pe --kind rope --apply` rotates it, and the attention
//! of the built-in `repeat` model, which was trained with RoPE.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::{builtin, position, ForwardOptions, Model, Positional, Trace};
use egui::{Align2, Color32, FontId, Pos2, RichText, Sense, Shape, Stroke, Vec2};
use egui_plot::{Corner, Legend, Line, LineStyle, Plot, PlotPoints, VLine};
use ndarray::{Array2, Axis};

/// `v` turned counter-clockwise by `theta`, with the arithmetic of the model's rotation
/// (`position::rope_rotate_in_place`): sine and cosine rounded to f32, then f32 products.
pub fn rotate_pair(v: [f32; 2], theta: f64) -> [f32; 2] {
    let (sin, cos) = theta.sin_cos();
    let (sin, cos) = (sin as f32, cos as f32);
    [v[0] * cos - v[1] * sin, v[0] * sin + v[1] * cos]
}

fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

fn norm(v: [f32; 2]) -> f32 {
    dot(v, v).sqrt()
}

/// The score of pair `p` of a query at position `i` and a key at position `j`: the dot
/// product of both pairs after each is rotated by its own `position::rope_angle`.
pub fn pair_score(
    q: [f32; 2],
    k: [f32; 2],
    i: usize,
    j: usize,
    p: usize,
    d_head: usize,
    base: f32,
) -> f32 {
    let qi = rotate_pair(q, position::rope_angle(i, p, d_head, base));
    let kj = rotate_pair(k, position::rope_angle(j, p, d_head, base));
    dot(qi, kj)
}

/// The same score through the offset alone: `qᵀ R(o) k` with `o = j − i`. The angle is
/// linear in the position, so a negative offset turns by minus the angle of `|o|`.
pub fn offset_score(
    q: [f32; 2],
    k: [f32; 2],
    offset: i64,
    p: usize,
    d_head: usize,
    base: f32,
) -> f32 {
    let angle = position::rope_angle(offset.unsigned_abs() as usize, p, d_head, base);
    let angle = if offset < 0 { -angle } else { angle };
    dot(q, rotate_pair(k, angle))
}

/// Rotate hand-typed rows (one per token) by their positions with `position::rope_rotate`.
/// Refuses what the CLI's `--apply` refuses, with a message: no rows, empty, ragged or odd
/// rows, non-finite numbers, a position count that does not match, a base not above 1.
pub fn table_rotate(
    rows: &[Vec<f32>],
    positions: &[usize],
    base: f32,
) -> Result<Vec<Vec<f32>>, String> {
    let width = rows.first().map(Vec::len).ok_or("there are no rows")?;
    if width == 0 {
        return Err("the rows are empty".into());
    }
    if let Some(r) = rows.iter().position(|row| row.len() != width) {
        return Err(format!(
            "row {r} has {} numbers but row 0 has {width}: every row needs the same width",
            rows[r].len()
        ));
    }
    if width % 2 != 0 {
        return Err(format!(
            "the rows have {width} numbers; RoPE rotates pairs, so the width must be even"
        ));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err("the rows contain a non-finite number".into());
    }
    if positions.len() != rows.len() {
        return Err(format!(
            "{} rows but {} positions: each row needs one position",
            rows.len(),
            positions.len()
        ));
    }
    if !(base > 1.0 && base.is_finite()) {
        return Err(format!("base {base} must be a number greater than 1"));
    }
    let x =
        Array2::from_shape_vec((rows.len(), width), rows.concat()).map_err(|e| e.to_string())?;
    let rotated = position::rope_rotate(&x, positions, base);
    Ok(rotated.outer_iter().map(|r| r.to_vec()).collect())
}

/// The `glimpse pe` command that prints the same rotation as the table. One position is
/// written `t..=t`: a bare number `n` means the positions 0…n−1 to the CLI.
pub fn cli_command(positions: &[usize], base: f32) -> String {
    let spec = match positions {
        [t] => format!("{t}..={t}"),
        _ => positions
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    };
    let base_flag = if base == 10000.0 {
        String::new()
    } else {
        format!(" --base {base}")
    };
    format!("glimpse pe --kind rope --positions {spec} --apply rows.json{base_flag}")
}

/// The rows as the JSON that `--apply` reads.
pub fn rows_json(rows: &[Vec<f32>]) -> String {
    serde_json::to_string(rows).unwrap_or_default()
}

/// One animation step: both positions move on by one, keeping their offset; at the end of
/// the slider both move back so that the smaller is 0.
pub fn advance(i: usize, j: usize) -> (usize, usize) {
    if i.max(j) >= MAX_POSITION {
        let m = i.min(j);
        (i - m, j - m)
    } else {
        (i + 1, j + 1)
    }
}

/// Angle in (−π, π].
fn wrap_angle(a: f64) -> f64 {
    let w = a.rem_euclid(std::f64::consts::TAU);
    if w > std::f64::consts::PI {
        w - std::f64::consts::TAU
    } else {
        w
    }
}

/// Largest position of the sliders and plots: 64 positions, like the angle heatmap.
const MAX_POSITION: usize = 63;
/// Seconds between animation steps.
const STEP_SECONDS: f64 = 0.3;
const MAX_TABLE_ROWS: usize = 8;
const MAX_TABLE_PAIRS: usize = 4;
const QUERY: Color32 = Color32::from_rgb(255, 170, 60);
const KEY: Color32 = Color32::from_rgb(90, 170, 255);
const MODEL_NAME: &str = "repeat";

/// What the angle heatmap colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AngleView {
    /// θ in radians: grows without bound along the positions.
    Angle,
    /// θ mod 2π: where on the circle the pair points.
    Wrapped,
    /// cos θ: the first component of a rotated (1, 0).
    Cos,
}

/// The trace of the `repeat` model for one text.
struct TraceCache {
    text: String,
    /// The trace and how many characters were unknown / cut off.
    result: Result<(Trace, usize, usize), String>,
}

pub struct RopePanel {
    /// Query and key pair of the circle view.
    pub q: [f32; 2],
    pub k: [f32; 2],
    /// Head width (even) and the pair shown.
    pub d_head: usize,
    pub pair: usize,
    pub base: f32,
    /// Query position i and key position j.
    pub i: usize,
    pub j: usize,
    /// Step i and j together.
    pub animate: bool,
    last_step: Option<f64>,
    /// Positions 0…N−1 of the angle heatmap.
    pub n_positions: usize,
    pub angle_view: AngleView,
    /// Hand-typed rows (tokens × dimensions), their positions and base.
    pub table: Vec<Vec<f32>>,
    pub table_positions: Vec<usize>,
    pub table_base: f32,
    /// Input text, layer and head of the trained model's view.
    pub text: String,
    pub layer: usize,
    pub head: usize,
    model: Option<Result<Model, String>>,
    trace: Option<TraceCache>,
}

impl Default for RopePanel {
    fn default() -> Self {
        Self {
            q: [1.0, 0.3],
            k: [0.6, 0.8],
            d_head: 8,
            pair: 0,
            base: 10000.0,
            i: 2,
            j: 5,
            animate: false,
            last_step: None,
            n_positions: 64,
            angle_view: AngleView::Angle,
            // The same token at three positions: each row turns further.
            table: vec![vec![1.0, 0.0, 1.0, 0.0]; 3],
            table_positions: vec![0, 1, 2],
            table_base: 10000.0,
            text: builtin::info(MODEL_NAME)
                .map_or("glimpsehowglimpsehow", |b| b.example_source)
                .to_string(),
            layer: 1,
            head: 0,
            model: None,
            trace: None,
        }
    }
}

impl RopePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.sanitize();
        self.tick(ui);
        egui::ScrollArea::vertical()
            .id_salt("rope_panel")
            .auto_shrink(false)
            .show(ui, |ui| {
                ui.heading("RoPE: rotary position embedding");
                ui.label(
                    "RoPE adds nothing to the embeddings. Inside every attention layer it turns \
                     each pair (2p, 2p+1) of a query or key by the angle θ = t · base^(−2p/d_head) \
                     of its position t. Rotating both q and k changes their dot product only by \
                     the difference of their angles, so scores depend on the offset j − i alone.",
                );
                ui.separator();
                self.circle_section(ui);
                ui.separator();
                self.offset_section(ui);
                ui.separator();
                self.angles_section(ui);
                ui.separator();
                self.table_section(ui);
                ui.separator();
                self.model_section(ui);
            });
    }

    /// Keep every setting in the range the drawing assumes (the state is public).
    fn sanitize(&mut self) {
        self.d_head = (self.d_head.clamp(2, 64) / 2) * 2;
        self.pair = self.pair.min(self.d_head / 2 - 1);
        if !(self.base > 1.0 && self.base.is_finite()) {
            self.base = 10000.0;
        }
        if !(self.table_base > 1.0 && self.table_base.is_finite()) {
            self.table_base = 10000.0;
        }
        self.i = self.i.min(MAX_POSITION);
        self.j = self.j.min(MAX_POSITION);
        self.n_positions = self.n_positions.clamp(1, MAX_POSITION + 1);
        for v in self.q.iter_mut().chain(self.k.iter_mut()) {
            if !v.is_finite() {
                *v = 0.0;
            }
        }
    }

    /// The animation: both positions move on every `STEP_SECONDS`.
    fn tick(&mut self, ui: &egui::Ui) {
        if !self.animate {
            self.last_step = None;
            return;
        }
        let now = ui.input(|i| i.time);
        match self.last_step {
            Some(t) if now - t >= STEP_SECONDS => {
                (self.i, self.j) = advance(self.i, self.j);
                self.last_step = Some(now);
            }
            Some(_) => {}
            None => self.last_step = Some(now),
        }
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_secs_f64(STEP_SECONDS));
    }

    fn offset(&self) -> i64 {
        self.j as i64 - self.i as i64
    }

    fn circle_section(&mut self, ui: &mut egui::Ui) {
        ui.strong("1. A query and a key on the circle");
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(440.0);
                pair_editor(ui, "query q", &mut self.q);
                pair_editor(ui, "key k", &mut self.k);
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.d_head, 2..=64)
                        .step_by(2.0)
                        .text("head width d_head"),
                );
                self.pair = self.pair.min(self.d_head / 2 - 1);
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.pair, 0..=self.d_head / 2 - 1).text("pair p"),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.base, 2.0..=1.0e6)
                        .logarithmic(true)
                        .text("base"),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.i, 0..=MAX_POSITION).text("query position i"),
                );
                crate::app::widgets::fit::add(
                    ui,
                    egui::Slider::new(&mut self.j, 0..=MAX_POSITION).text("key position j"),
                );
                ui.checkbox(&mut self.animate, "animate: i and j step together");
                let omega = position::rope_angle(1, self.pair, self.d_head, self.base);
                ui.weak(format!(
                    "Pair {} turns by ω = base^(−2p/d_head) = {omega:.4} rad per position \
                     (a full turn every {:.1} positions).",
                    self.pair,
                    std::f64::consts::TAU / omega
                ));
            });
            self.draw_circle(ui);
        });
        let (p, d, b) = (self.pair, self.d_head, self.base);
        let theta_i = position::rope_angle(self.i, p, d, b);
        let theta_j = position::rope_angle(self.j, p, d, b);
        let qi = rotate_pair(self.q, theta_i);
        let kj = rotate_pair(self.k, theta_j);
        let phi =
            wrap_angle((kj[1] as f64).atan2(kj[0] as f64) - (qi[1] as f64).atan2(qi[0] as f64));
        let by_positions = pair_score(self.q, self.k, self.i, self.j, p, d, b);
        let by_offset = offset_score(self.q, self.k, self.offset(), p, d, b);
        let mono = |s: String| RichText::new(s).monospace();
        ui.label(mono(format!(
            "θ_i = {:.4} rad   θ_j = {:.4} rad   angle from q_i to k_j: φ = {:.4} rad ({:.1}°)",
            theta_i,
            theta_j,
            phi,
            phi.to_degrees()
        )));
        ui.label(mono(format!(
            "score q_iᵀ k_j (both rotated)         = {by_positions:.4}"
        )));
        ui.label(mono(format!(
            "qᵀ R(j−i) k (offset j − i = {:>3} only) = {by_offset:.4}",
            self.offset()
        )));
        if (by_positions - by_offset).abs() <= 1e-4 * (1.0 + by_positions.abs()) {
            ui.label(
                "They agree: R(θ_i)ᵀ R(θ_j) = R(θ_j − θ_i), and θ_j − θ_i depends on j − i only. \
                 Animate: both arrows spin, φ and the score stay put.",
            );
        } else {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "They differ by {:.2e}: f32 rounding at large angles.",
                    by_positions - by_offset
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
            egui::WidgetInfo::labeled(egui::Role::Image, true, "rotated query and key")
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
        let phi = wrap_angle((kj[1] as f64).atan2(kj[0] as f64) - a0);
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

    fn offset_section(&self, ui: &mut egui::Ui) {
        ui.strong("2. The score depends only on the offset");
        let (p, d, b) = (self.pair, self.d_head, self.base);
        let o = self.offset();
        let limit = (norm(self.q) * norm(self.k)) as f64;
        ui.label(format!(
            "Left: q at i against k at j = i {} {} for every i (the offset fixed): a flat line. \
             Right: the offset o = j − i varies: the score is |q||k| cos φ, and φ turns with o.",
            if o < 0 { "−" } else { "+" },
            o.unsigned_abs()
        ));
        let along_i: PlotPoints = (0..=MAX_POSITION)
            .filter_map(|i| {
                let j = usize::try_from(i as i64 + o).ok()?;
                (j <= MAX_POSITION)
                    .then(|| [i as f64, pair_score(self.q, self.k, i, j, p, d, b) as f64])
            })
            .collect();
        let max = MAX_POSITION as i64;
        let along_o: PlotPoints = (-max..=max)
            .map(|o| {
                // The smallest positions with this offset.
                let i = (-o).max(0) as usize;
                let j = o.max(0) as usize;
                [o as f64, pair_score(self.q, self.k, i, j, p, d, b) as f64]
            })
            .collect();
        crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
            Plot::new("rope_score_vs_i")
                .height(200.0)
                .allow_scroll(false)
                .allow_drag(false)
                .allow_zoom(false)
                .include_y(-limit)
                .include_y(limit)
                .legend(Legend::default().position(Corner::LeftBottom))
                .x_axis_label("query position i (key at i + o)")
                .y_axis_label("score")
                .show(&mut cols[0], |plot| {
                    plot.line(Line::new("q_iᵀ k_(i+o)", along_i).width(2.0).color(QUERY));
                    plot.vline(
                        VLine::new("chosen i", self.i as f64)
                            .color(Color32::LIGHT_GRAY)
                            .style(LineStyle::dashed_loose()),
                    );
                });
            Plot::new("rope_score_vs_offset")
                .height(200.0)
                .allow_scroll(false)
                .allow_drag(false)
                .allow_zoom(false)
                .include_y(-limit)
                .include_y(limit)
                .legend(Legend::default().position(Corner::LeftBottom))
                .x_axis_label("offset o = j − i")
                .y_axis_label("score")
                .show(&mut cols[1], |plot| {
                    plot.line(
                        Line::new("score at offset o", along_o)
                            .width(2.0)
                            .color(KEY),
                    );
                    plot.vline(
                        VLine::new("chosen o", o as f64)
                            .color(Color32::LIGHT_GRAY)
                            .style(LineStyle::dashed_loose()),
                    );
                });
        });
    }

    fn angles_section(&mut self, ui: &mut egui::Ui) {
        ui.strong("3. The angles of every pair and position");
        ui.horizontal_wrapped(|ui| {
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.n_positions, 1..=MAX_POSITION + 1).text("positions N"),
            );
            ui.selectable_value(&mut self.angle_view, AngleView::Angle, "angle θ");
            ui.selectable_value(&mut self.angle_view, AngleView::Wrapped, "θ mod 2π");
            ui.selectable_value(&mut self.angle_view, AngleView::Cos, "cos θ");
        });
        let positions: Vec<usize> = (0..self.n_positions).collect();
        let angles = position::rope_angles(&positions, self.d_head, self.base);
        let (values, scale, caption) = match self.angle_view {
            AngleView::Angle => {
                let top = angles.iter().fold(0.0f32, |m, &a| m.max(a));
                let top = if top > 0.0 { top } else { 1.0 };
                (
                    angles.clone(),
                    ColorScale::Sequential { min: 0.0, max: top },
                    "θ (rad)",
                )
            }
            AngleView::Wrapped => (
                angles.mapv(|a| a.rem_euclid(std::f32::consts::TAU)),
                ColorScale::Sequential {
                    min: 0.0,
                    max: std::f32::consts::TAU,
                },
                "θ mod 2π",
            ),
            AngleView::Cos => (
                angles.mapv(f32::cos),
                ColorScale::Diverging { limit: 1.0 },
                "cos θ",
            ),
        };
        ui.label(format!(
            "position::rope_angles for positions 0…{} of a {}-wide head (base {}), drawn with \
             one row per pair. Pair 0 turns 1 rad per position and wraps every 6.3 positions; \
             the last pairs barely move, so they can tell far-apart positions apart.",
            self.n_positions - 1,
            self.d_head,
            self.base
        ));
        let rows: Vec<String> = (0..self.d_head / 2).map(|p| format!("pair {p}")).collect();
        let cols: Vec<String> = positions.iter().map(usize::to_string).collect();
        let transposed = values.t();
        let height = (rows.len() as f32 * 18.0 + 60.0).clamp(150.0, 520.0);
        ui.allocate_ui(Vec2::new(ui.available_width(), height), |ui| {
            Heatmap {
                max_cell: 18.0,
                axis_names: ("pair", "position"),
                context: "RoPE angles",
                highlight_row: Some(self.pair),
                ..Heatmap::new(transposed, &rows, &cols, scale)
            }
            .show_with_legend(ui, height - 40.0, caption);
        });
    }

    fn table_section(&mut self, ui: &mut egui::Ui) {
        ui.strong("4. Rotate your own vectors");
        ui.label(
            "Type a vector per token and its position. Each pair (x0, x1), (x2, x3), … turns by \
             its own angle; the lengths stay the same.",
        );
        let pairs = self.table.first().map_or(1, |r| r.len() / 2);
        ui.horizontal_wrapped(|ui| {
            if ui
                .add_enabled(
                    self.table.len() < MAX_TABLE_ROWS,
                    egui::Button::new("+ token"),
                )
                .clicked()
            {
                let row = self.table.last().cloned().unwrap_or(vec![1.0, 0.0]);
                let t = self.table_positions.last().map_or(0, |t| t + 1);
                self.table.push(row);
                self.table_positions.push(t);
            }
            if ui
                .add_enabled(self.table.len() > 1, egui::Button::new("− token"))
                .clicked()
            {
                self.table.pop();
                self.table_positions.pop();
            }
            if ui
                .add_enabled(pairs < MAX_TABLE_PAIRS, egui::Button::new("+ pair"))
                .clicked()
            {
                for row in &mut self.table {
                    row.extend([1.0, 0.0]);
                }
            }
            if ui
                .add_enabled(pairs > 1, egui::Button::new("− pair"))
                .clicked()
            {
                for row in &mut self.table {
                    row.truncate(row.len().saturating_sub(2).max(2));
                }
            }
            let l = ui.label("base");
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
                ui.label("input x");
                egui::Grid::new("rope_table_input")
                    .striped(true)
                    .show(ui, |ui| {
                        ui.label("token");
                        ui.label("position");
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
                            ui.label(format!("token {r}"));
                            ui.add(egui::DragValue::new(t).range(0..=1000))
                                .accessible_name(format!("position of token {r}"));
                            for (c, v) in row.iter_mut().enumerate() {
                                ui.add(
                                    egui::DragValue::new(v)
                                        .speed(0.01)
                                        .range(-100.0..=100.0)
                                        .max_decimals(4),
                                )
                                .accessible_name(format!("token {r} x{c}"));
                            }
                            ui.end_row();
                        }
                    });
            });
            ui.add_space(24.0);
            ui.vertical(|ui| {
                ui.label("rotated: position::rope_rotate");
                match table_rotate(&self.table, &self.table_positions, self.table_base) {
                    Err(e) => {
                        ui.colored_label(ui.visuals().error_fg_color, e);
                    }
                    Ok(out) => {
                        egui::Grid::new("rope_table_output")
                            .striped(true)
                            .show(ui, |ui| {
                                ui.label("token");
                                for c in 0..width {
                                    ui.label(format!("y{c}"));
                                }
                                ui.label("|x|");
                                ui.label("|y|");
                                ui.end_row();
                                for (r, (x, y)) in self.table.iter().zip(&out).enumerate() {
                                    ui.label(format!("token {r}"));
                                    for v in y {
                                        ui.monospace(format!("{v:.4}"));
                                    }
                                    let len =
                                        |v: &[f32]| v.iter().map(|a| a * a).sum::<f32>().sqrt();
                                    ui.monospace(format!("{:.4}", len(x)));
                                    ui.monospace(format!("{:.4}", len(y)));
                                    ui.end_row();
                                }
                            });
                    }
                }
            });
        });
        ui.label("Check it on the command line: save the rows as rows.json and run");
        ui.monospace(cli_command(&self.table_positions, self.table_base));
        ui.label("rows.json:");
        ui.monospace(rows_json(&self.table));
        ui.weak("The command prints the same numbers under \"rotated\".");
    }

    fn model_section(&mut self, ui: &mut egui::Ui) {
        ui.strong("5. A model trained with RoPE");
        let model = self
            .model
            .get_or_insert_with(|| builtin::load(MODEL_NAME).map_err(|e| e.to_string()));
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("could not load `{MODEL_NAME}`: {e}"),
                );
                return;
            }
        };
        let cfg = &model.config;
        let head_width = cfg.d_model / cfg.n_heads.max(1);
        let base_note = match cfg.positional {
            Positional::Rope { base } => format!("rotates q and k with RoPE, base {base}"),
            ref other => format!("uses {} positions", other.label()),
        };
        ui.label(format!(
            "The built-in `{MODEL_NAME}` model (decoder-only, {} layers × {} heads) {base_note}, \
             heads {head_width} wide ({} pairs). It learned a previous-token head in layer 0 \
             (offset −1, wherever the token is) and an induction head in layer 1: in the \
             repeat, each letter attends to the letter after its first occurrence.",
            cfg.n_layers,
            cfg.n_heads,
            head_width / 2
        ));
        let (n_layers, n_heads) = (cfg.n_layers.max(1), cfg.n_heads.max(1));
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("text");
            ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(280.0))
                .labelled_by(l.id);
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.layer, 0..=n_layers - 1).text("layer"),
            );
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut self.head, 0..=n_heads - 1).text("head"),
            );
        });
        self.layer = self.layer.min(n_layers - 1);
        self.head = self.head.min(n_heads - 1);
        if self.trace.as_ref().is_none_or(|t| t.text != self.text) {
            let prepared = model.prepare(&self.text, "");
            let result = model
                .forward(&prepared.input, &ForwardOptions::default())
                .map(|t| (t, prepared.unknown, prepared.truncated))
                .map_err(|e| e.to_string());
            self.trace = Some(TraceCache {
                text: self.text.clone(),
                result,
            });
        }
        let Some(cache) = &self.trace else { return };
        let (trace, unknown, truncated) = match &cache.result {
            Ok(r) => r,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        if *unknown > 0 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "{unknown} characters are not in the model's alphabet (a–z): shown as <unk>"
                ),
            );
        }
        if *truncated > 0 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "{truncated} tokens past the model's {} were cut off",
                    cfg.max_len
                ),
            );
        }
        let kind = crate::model::AttentionKind::DecoderSelf;
        let Some(a) = trace.attention(kind, self.layer) else {
            ui.label("this model has no such layer");
            return;
        };
        let head = self.head.min(a.weights.len_of(Axis(0)).saturating_sub(1));
        let context = format!("{MODEL_NAME} · layer {} · head {head}", self.layer);
        ui.label(format!(
            "Decoder self-attention weights, layer {} · head {head}: rows are queries, columns \
             keys; hatched cells are the future, blocked by the causal mask.",
            self.layer
        ));
        let t = a.query_tokens.len().max(1) as f32;
        let height = (t * 22.0 + 70.0).clamp(200.0, 620.0);
        ui.allocate_ui(Vec2::new(ui.available_width().min(760.0), height), |ui| {
            Heatmap {
                max_cell: 22.0,
                ..crate::app::explorer::head::weights_heatmap(a, head, &context)
            }
            .show_with_legend(ui, (height - 60.0).min(240.0), "weight");
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
        .accessible_name(format!("{name}, first component"));
        ui.label(",");
        ui.add(
            egui::DragValue::new(&mut v[1])
                .speed(0.01)
                .range(-2.0..=2.0)
                .max_decimals(3),
        )
        .accessible_name(format!("{name}, second component"));
        ui.label(")");
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;
    use ndarray::array;

    #[test]
    fn rotate_pair_by_a_quarter_turn() {
        let r = rotate_pair([1.0, 0.0], std::f64::consts::FRAC_PI_2);
        assert!(r[0].abs() < 1e-7 && (r[1] - 1.0).abs() < 1e-7, "{r:?}");
        let r = rotate_pair([0.0, 2.0], std::f64::consts::PI);
        assert!(r[0].abs() < 1e-6 && (r[1] + 2.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn rotate_pair_is_what_the_model_does_to_pair_p() {
        // A 6-wide row holding the pair at p = 1; rope_rotate turns it by rope_angle(t, 1, 6).
        let (q, t, p, d) = ([0.7f32, -0.4], 9usize, 1usize, 6usize);
        let mut x = Array2::zeros((1, d));
        x[[0, 2 * p]] = q[0];
        x[[0, 2 * p + 1]] = q[1];
        let r = position::rope_rotate(&x, &[t], 10000.0);
        let mine = rotate_pair(q, position::rope_angle(t, p, d, 10000.0));
        assert_eq!([r[[0, 2 * p]], r[[0, 2 * p + 1]]], mine);
    }

    #[test]
    fn pair_score_depends_only_on_the_offset() {
        let (q, k) = ([1.0, 0.3], [0.6, 0.8]);
        for (p, d) in [(0, 8), (1, 8), (3, 8), (5, 64)] {
            for (i, j) in [(0, 0), (2, 5), (7, 3), (0, 40)] {
                let s = pair_score(q, k, i, j, p, d, 10000.0);
                for shift in [1, 3, 17, 100, 1000] {
                    let shifted = pair_score(q, k, i + shift, j + shift, p, d, 10000.0);
                    assert!((s - shifted).abs() < 1e-5, "p {p} ({i},{j}) + {shift}");
                }
                let o = j as i64 - i as i64;
                assert!((s - offset_score(q, k, o, p, d, 10000.0)).abs() < 1e-5);
            }
        }
        // Offset 0: the plain dot product. Pair 0 at offset 1 turns k by 1 rad.
        assert!((pair_score(q, k, 4, 4, 0, 8, 10000.0) - 0.84).abs() < 1e-6);
        let k1 = [
            0.6 * 1f32.cos() - 0.8 * 1f32.sin(),
            0.6 * 1f32.sin() + 0.8 * 1f32.cos(),
        ];
        let want = q[0] * k1[0] + q[1] * k1[1];
        assert!((pair_score(q, k, 0, 1, 0, 8, 10000.0) - want).abs() < 1e-6);
    }

    #[test]
    fn table_rotate_is_rope_rotate() {
        let rows = vec![vec![0.3, -1.2, 2.0, 0.5], vec![1.0, 2.0, 3.0, 4.0]];
        let x = array![[0.3f32, -1.2, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]];
        let want = position::rope_rotate(&x, &[7, 123], 500.0);
        let got = table_rotate(&rows, &[7, 123], 500.0).unwrap();
        for (g, w) in got.iter().zip(want.outer_iter()) {
            assert_eq!(g, &w.to_vec());
        }
    }

    #[test]
    fn at_position_zero_the_table_is_unchanged() {
        let rows = vec![vec![0.3, -1.2, 2.0, 0.5], vec![1.0, 2.0, 3.0, 4.0]];
        assert_eq!(table_rotate(&rows, &[0, 0], 10000.0).unwrap(), rows);
    }

    #[test]
    fn rotated_rows_keep_their_norms() {
        let rows = vec![
            vec![0.3, -1.2, 2.0, 0.5, 7.0, -3.0],
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ];
        let out = table_rotate(&rows, &[5, 61], 10000.0).unwrap();
        let len = |v: &[f32]| v.iter().map(|a| a * a).sum::<f32>().sqrt();
        for (x, y) in rows.iter().zip(&out) {
            assert!((len(x) - len(y)).abs() < 1e-4);
        }
        for t in 0..64 {
            let r = rotate_pair([1.0, 0.3], position::rope_angle(t, 0, 8, 10000.0));
            assert!((norm(r) - norm([1.0, 0.3])).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_tables_are_errors_with_messages() {
        let odd = vec![vec![1.0, 2.0, 3.0]];
        assert!(table_rotate(&odd, &[0], 10000.0)
            .unwrap_err()
            .contains("even"));
        let ragged = vec![vec![1.0, 2.0], vec![1.0, 2.0, 3.0, 4.0]];
        assert!(table_rotate(&ragged, &[0, 1], 10000.0)
            .unwrap_err()
            .contains("row 1"));
        let ok = vec![vec![1.0, 2.0]];
        assert!(table_rotate(&ok, &[0, 1], 10000.0)
            .unwrap_err()
            .contains("positions"));
        assert!(table_rotate(&ok, &[0], 1.0).unwrap_err().contains("base"));
        assert!(table_rotate(&[], &[], 10000.0).is_err());
        assert!(table_rotate(&[vec![]], &[0], 10000.0).is_err());
        assert!(table_rotate(&[vec![f32::NAN, 0.0]], &[0], 10000.0).is_err());
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_cli_command_prints_the_same_rotation() {
        let rows = [vec![1.0, 0.0, 0.5, -2.0], vec![0.25, 1.0, 3.0, 1.5]];
        for (positions, base) in [
            (vec![0, 1], 10000.0f32),
            (vec![9], 500.0),
            (vec![3, 40], 10000.0),
        ] {
            let rows = &rows[..positions.len()];
            let command = cli_command(&positions, base);
            let spec = command
                .split_whitespace()
                .skip_while(|w| *w != "--positions")
                .nth(1)
                .unwrap();
            assert_eq!(crate::cli::parse_positions(spec).unwrap(), positions);
            assert_eq!(command.contains("--base"), base != 10000.0);
            let report = crate::cli::pe_report(
                crate::cli::PeKind::Rope,
                None,
                &positions,
                base,
                Some(&rows_json(rows)),
                8,
                "",
            )
            .unwrap();
            let ours = table_rotate(rows, &positions, base).unwrap();
            for (r, row) in ours.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    let cli = report["rotated"][r][c].as_f64().unwrap();
                    assert!((cli - *v as f64).abs() < 1e-6, "({r}, {c})");
                }
            }
        }
        assert_eq!(
            cli_command(&[0, 1, 2], 10000.0),
            "glimpse pe --kind rope --positions 0,1,2 --apply rows.json"
        );
    }

    #[test]
    fn animation_steps_keep_the_offset() {
        assert_eq!(advance(2, 5), (3, 6));
        assert_eq!(advance(60, MAX_POSITION), (0, 3));
        assert_eq!(advance(MAX_POSITION, 10), (53, 0));
        assert_eq!(advance(MAX_POSITION, MAX_POSITION), (0, 0));
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5) + 0.5).abs() < 1e-12);
    }

    fn harness() -> egui_kittest::Harness<'static, RopePanel> {
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(|ui, p: &mut RopePanel| p.ui(ui), RopePanel::default())
    }

    #[test]
    fn the_panel_draws_every_section() {
        let mut h = harness();
        h.run_steps(3);
        h.check_accessibility();
        h.get_by_label_contains("RoPE: rotary position embedding");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "query position i");
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "key position j");
        let p = RopePanel::default();
        let s = pair_score(p.q, p.k, p.i, p.j, p.pair, p.d_head, p.base);
        h.get_by_label_contains(&format!("score q_iᵀ k_j (both rotated)         = {s:.4}"));
        h.get_by_label_contains(&format!("offset j − i =   3 only) = {s:.4}"));
        h.get_by_label_contains("They agree");
        h.get_by_label_contains("heatmap RoPE angles");
        h.get_by_label("glimpse pe --kind rope --positions 0,1,2 --apply rows.json");
        h.get_by_label("[[1.0,0.0,1.0,0.0],[1.0,0.0,1.0,0.0],[1.0,0.0,1.0,0.0]]");
        h.get_by_label_contains("heatmap repeat · layer 1 · head 0");
        h.get_by_label_contains("rotates q and k with RoPE, base 10000");
    }

    #[test]
    fn editing_the_table_updates_the_rotation() {
        let mut h = harness();
        h.run_steps(3);
        // Token 2 at position 2: (2.5, 0) turns by 2 rad in pair 0.
        let y1 = format!("{:.4}", 2.5 * 2f32.sin());
        assert!(h.query_all_by_label_contains(&y1).next().is_none());
        h.state_mut().table[2][0] = 2.5;
        h.run_steps(2);
        let want = table_rotate(&h.state().table, &[0, 1, 2], 10000.0).unwrap();
        assert_eq!(format!("{:.4}", want[2][1]), y1);
        h.get_by_label(&y1);
        h.get_by_label_contains("[1.0,0.0,1.0,0.0],[2.5,0.0,1.0,0.0]]");
        // An extra token and pair through the buttons.
        // The buttons are below the first screen: click them through AccessKit.
        h.get_by_label("+ token").click_accesskit();
        h.run_steps(2);
        h.get_by_label("+ pair").click_accesskit();
        h.run_steps(2);
        assert_eq!(h.state().table.len(), 4);
        assert_eq!(h.state().table[0].len(), 6);
        assert_eq!(h.state().table_positions, vec![0, 1, 2, 3]);
        h.get_by_label("glimpse pe --kind rope --positions 0,1,2,3 --apply rows.json");
    }

    #[test]
    fn animation_moves_both_positions_and_keeps_the_score() {
        let mut h = harness();
        h.run_steps(2);
        let (i0, j0) = (h.state().i, h.state().j);
        h.state_mut().animate = true;
        h.run_steps(8);
        let (i, j) = (h.state().i, h.state().j);
        assert!(i > i0, "i stayed at {i}");
        assert_eq!(j as i64 - i as i64, j0 as i64 - i0 as i64);
        let p = RopePanel::default();
        let s = pair_score(p.q, p.k, i0, j0, p.pair, p.d_head, p.base);
        h.get_by_label_contains(&format!("(both rotated)         = {s:.4}"));
    }

    #[test]
    fn the_model_view_follows_text_layer_and_head() {
        let mut h = harness();
        h.run_steps(3);
        h.state_mut().text = "abcabc".into();
        h.state_mut().layer = 0;
        h.state_mut().head = 3;
        h.run_steps(2);
        h.get_by_label_contains("heatmap repeat · layer 0 · head 3");
        assert_eq!(
            h.state().trace.as_ref().map(|t| t.text.as_str()),
            Some("abcabc")
        );
        h.state_mut().text = "ABC".into();
        h.run_steps(2);
        h.get_by_label_contains("not in the model's alphabet");
    }
}
