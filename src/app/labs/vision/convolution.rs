//! Self-attention inside a convolutional network, on the same image: the 3×3 feature map X,
//! the attention of one pixel over all N = H · W pixels beside the 3×3 window a convolution
//! at that pixel sees, the shapes of every step, and X beside O_final = O + X.

use super::picture::paint_image;
use super::VisionLab;
use crate::app::widgets::colormap::{legend, ColorScale};
use crate::app::widgets::math_text;
use crate::t;
use crate::train::vision::cnn_attention::{CnnAttention, CnnTrace, CnnWeights, CHANNELS};
use crate::train::vision::IMAGE_SIDE;
use egui::{Color32, Rect, Sense, Stroke, Ui, Vec2};
use ndarray::ArrayView2;

/// Side of the image and attention canvases, and of each small channel map, in points.
const SIDE: f32 = 208.0;
const SMALL: f32 = 96.0;

/// "row 5, column 6" for a pixel's row-major index.
fn pixel_name(p: usize) -> String {
    t!(
        "vision-cnn-pixel",
        row = p / IMAGE_SIDE,
        column = p % IMAGE_SIDE
    )
}

impl VisionLab {
    pub(super) fn convolution(&mut self, ui: &mut Ui) {
        ui.heading(t!("vision-cnn-heading"));
        math_text::label(ui, &t!("vision-cnn-intro"));
        self.cnn_controls(ui);
        let image = self.image();
        let block = CnnAttention::new(self.cnn_weights, self.cnn_scale);
        let trace = block.forward(image.view());
        let query = self.cnn_query.min(trace.weights.nrows().saturating_sub(1));
        let name = pixel_name(query);
        let row = trace.weights.row(query);
        let max = row.iter().copied().fold(1e-6, f32::max);
        ui.horizontal_wrapped(|ui| {
            ui.vertical(|ui| {
                ui.label(t!("vision-cnn-image-caption"));
                self.cnn_image_canvas(ui, image.view());
            });
            ui.vertical(|ui| {
                ui.label(t!("vision-cnn-weights-caption", pixel = &name));
                attention_canvas(ui, image.view(), &trace, query, max, &name);
            });
            legend(
                ui,
                ColorScale::Sequential { min: 0.0, max },
                SIDE - 24.0,
                &t!("vision-cnn-legend"),
            );
        });
        let (top, top_weight) = row
            .iter()
            .copied()
            .enumerate()
            .fold((0, f32::MIN), |b, (k, a)| if a > b.1 { (k, a) } else { b });
        ui.label(t!(
            "vision-cnn-words",
            pixel = &name,
            beyond = format!("{:.2}", trace.weight_beyond_kernel(query)),
            top = pixel_name(top),
            weight = format!("{top_weight:.3}"),
            uniform = format!("{:.4}", 1.0 / row.len() as f32)
        ));
        shapes(ui, &block, &trace);
        channels(ui, &trace);
    }

    fn cnn_controls(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("vision-cnn-choice"));
            let random = matches!(self.cnn_weights, CnnWeights::Random(_));
            for (choice, name) in [
                (CnnWeights::Ink, t!("vision-cnn-ink")),
                (CnnWeights::Edges, t!("vision-cnn-edges")),
            ] {
                if ui
                    .selectable_label(self.cnn_weights == choice, name)
                    .clicked()
                {
                    self.cnn_weights = choice;
                }
            }
            if ui
                .selectable_label(random, t!("vision-cnn-random"))
                .clicked()
                && !random
            {
                self.cnn_weights = CnnWeights::Random(1);
            }
            if let CnnWeights::Random(seed) = &mut self.cnn_weights {
                let label = ui.label(t!("vision-cnn-seed"));
                ui.add(egui::DragValue::new(seed).range(1..=u32::MAX as u64))
                    .labelled_by(label.id);
            }
            let label = math_text::label(ui, &t!("vision-cnn-scale"));
            ui.add(egui::Slider::new(&mut self.cnn_scale, 0.0..=6.0).step_by(0.25))
                .labelled_by(label.id);
            let label = ui.label(t!("vision-cnn-query"));
            ui.add(
                egui::DragValue::new(&mut self.cnn_query)
                    .range(0..=IMAGE_SIDE * IMAGE_SIDE - 1)
                    .custom_formatter(|v, _| pixel_name(v as usize)),
            )
            .labelled_by(label.id);
        });
        math_text::weak(ui, &t!("vision-cnn-hint"));
    }

    /// The image, the query pixel outlined inside the 3×3 window a convolution there sees; a
    /// click picks the query pixel.
    fn cnn_image_canvas(&mut self, ui: &mut Ui, image: ArrayView2<f32>) {
        let (response, painter) = ui.allocate_painter(Vec2::splat(SIDE), Sense::click());
        let rect = response.rect;
        paint_image(&painter, rect, image, 1.0);
        paint_query(&painter, rect, self.cnn_query);
        if let Some(pos) = response
            .interact_pointer_pos()
            .filter(|_| response.clicked())
        {
            let cell = SIDE / IMAGE_SIDE as f32;
            let col = ((pos.x - rect.left()) / cell).floor();
            let row = ((pos.y - rect.top()) / cell).floor();
            let side = IMAGE_SIDE as f32;
            if (0.0..side).contains(&row) && (0.0..side).contains(&col) {
                self.cnn_query = row as usize * IMAGE_SIDE + col as usize;
            }
        }
        let name = t!("vision-cnn-image-name", pixel = pixel_name(self.cnn_query));
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &name));
    }
}

/// The query pixel (thick) inside the 3×3 window of a convolution centred on it (thin).
fn paint_query(painter: &egui::Painter, rect: Rect, query: usize) {
    let cell = rect.width() / IMAGE_SIDE as f32;
    let (r, c) = ((query / IMAGE_SIDE) as f32, (query % IMAGE_SIDE) as f32);
    let window = Rect::from_min_size(
        rect.min + Vec2::new((c - 1.0) * cell, (r - 1.0) * cell),
        Vec2::splat(3.0 * cell),
    )
    .intersect(rect);
    let blue = Stroke::new(2.0, Color32::from_rgb(90, 160, 230));
    painter.rect_stroke(window, 0.0, blue, egui::StrokeKind::Inside);
    let pixel = Rect::from_min_size(rect.min + Vec2::new(c * cell, r * cell), Vec2::splat(cell));
    let gold = Stroke::new(2.5, Color32::from_rgb(255, 210, 60));
    painter.rect_stroke(pixel, 0.0, gold, egui::StrokeKind::Inside);
}

/// The query pixel's N weights over the dimmed image, one cell per pixel.
fn attention_canvas(
    ui: &mut Ui,
    image: ArrayView2<f32>,
    trace: &CnnTrace,
    query: usize,
    max: f32,
    name: &str,
) {
    let (response, painter) = ui.allocate_painter(Vec2::splat(SIDE), Sense::hover());
    let rect = response.rect;
    paint_image(&painter, rect, image, 0.35);
    let scale = ColorScale::Sequential { min: 0.0, max };
    let cell = SIDE / IMAGE_SIDE as f32;
    for (k, &a) in trace.weights.row(query).iter().enumerate() {
        let min = rect.min
            + Vec2::new(
                (k % IMAGE_SIDE) as f32 * cell,
                (k / IMAGE_SIDE) as f32 * cell,
            );
        let fill = scale.color(a).gamma_multiply(0.85);
        painter.rect_filled(Rect::from_min_size(min, Vec2::splat(cell)), 0.0, fill);
    }
    paint_query(&painter, rect, query);
    let said = t!("vision-cnn-weights-name", pixel = name);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &said));
}

/// Every step's shape, from the trace's own arrays.
fn shapes(ui: &mut Ui, block: &CnnAttention, trace: &CnnTrace) {
    let (c, h, w) = trace.features.dim();
    let (reduced, n) = trace.queries.dim();
    math_text::label(
        ui,
        &t!(
            "vision-cnn-shapes",
            c = c,
            h = h,
            w = w,
            reduced = reduced,
            n = n,
            scores = crate::util::grouped((trace.scores.len()) as u128),
            parameters = block.parameters()
        ),
    );
}

/// X and O_final, channel by channel, on one diverging scale.
fn channels(ui: &mut Ui, trace: &CnnTrace) {
    let scale = ColorScale::diverging_for(trace.features.iter().chain(trace.output.iter()));
    let names = [
        t!("vision-cnn-channel-ink"),
        t!("vision-cnn-channel-surround"),
        t!("vision-cnn-channel-top"),
        t!("vision-cnn-channel-left"),
    ];
    for (map, caption) in [
        (&trace.features, t!("vision-cnn-features")),
        (&trace.output, t!("vision-cnn-output")),
    ] {
        math_text::label(ui, &caption);
        ui.horizontal_wrapped(|ui| {
            for (c, name) in names.iter().enumerate().take(CHANNELS) {
                ui.vertical(|ui| {
                    ui.small(name);
                    let (response, painter) =
                        ui.allocate_painter(Vec2::splat(SMALL), Sense::hover());
                    let rect = response.rect;
                    let cell = SMALL / IMAGE_SIDE as f32;
                    for ((r, col), &v) in map.index_axis(ndarray::Axis(0), c).indexed_iter() {
                        let min = rect.min + Vec2::new(col as f32 * cell, r as f32 * cell);
                        painter.rect_filled(
                            Rect::from_min_size(min, Vec2::splat(cell)),
                            0.0,
                            scale.color(v),
                        );
                    }
                    let said = format!("{}: {name}", math_text::spoken(&caption));
                    response
                        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &said));
                });
            }
        });
    }
}
