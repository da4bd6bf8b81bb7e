//! The image, its patches and their attention: the picked or drawn image cut into patches,
//! the model's answer, the soft attention of the class token (or of a patch) over the image
//! beside one hard draw from the same weights, and the patch vectors and their embeddings.

use super::{VisionLab, CLASS_QUERY, PIXELS};
use crate::app::widgets::colormap::{ink_on, ColorScale};
use crate::app::widgets::heatmap::Heatmap;
use crate::t;
use crate::train::vision::{sample_hard, PatchWeights, VisionTask, VitTrace, IMAGE_SIDE};
use egui::{Color32, Rect, Sense, Stroke, Ui, Vec2};

/// Side of each drawn image, in points.
const SIDE: f32 = 208.0;
/// Patches along each side: the model's 16-pixel images in 4-pixel patches (`VitConfig`).
const ACROSS: usize = 4;

impl VisionLab {
    pub(super) fn picture(&mut self, ui: &mut Ui) {
        ui.heading(t!("vision-image-heading"));
        self.image_controls(ui);
        let image = self.image();
        let (task, seed) = (self.task, self.seed.max(1));
        let trace = match self.run.model(task, seed).and_then(|m| m.forward(&image)) {
            Ok(t) => t,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        self.layer = self.layer.min(trace.layers().saturating_sub(1));
        self.head = self.head.filter(|&h| h < trace.heads());
        self.query = self.query.min(trace.grid.patches());
        self.attention_controls(ui, &trace);
        answer(
            ui,
            task,
            &trace,
            self.gallery
                .and_then(|g| crate::train::vision::example(task, g)),
        );
        let weights = match self.weights(&trace) {
            Ok(w) => w,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        // Hard attention draws one of the N + 1 tokens (the class token first) by its weight.
        let all: Vec<f32> = std::iter::once(weights.to_class)
            .chain(weights.to_patches.iter().copied())
            .collect();
        let drawn = sample_hard(&all, self.draw_u);
        let query_name = self.query_name();
        ui.horizontal_wrapped(|ui| {
            ui.vertical(|ui| {
                ui.label(t!("vision-image-caption"));
                self.image_canvas(ui, &image);
            });
            ui.vertical(|ui| {
                ui.label(t!("vision-soft-caption", query = &query_name));
                let w = weights.to_patches.clone();
                weight_canvas(ui, &image, &w, self.query, "soft", &query_name);
            });
            ui.vertical(|ui| {
                ui.label(t!("vision-hard-caption"));
                let mut one = vec![0.0; weights.to_patches.len()];
                if let Some(k) = drawn.filter(|&k| k > 0) {
                    one[k - 1] = 1.0;
                }
                weight_canvas(ui, &image, &one, self.query, "hard", &query_name);
            });
        });
        ui.label(describe_weights(&query_name, &weights));
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("vision-hard-again")).clicked() {
                // The next draw: a fixed sequence, so a link reproduces it.
                self.draw_u = (self.draw_u + 0.618_034).fract();
            }
            let said = match drawn {
                Some(0) => t!("vision-hard-class", u = format!("{:.3}", self.draw_u)),
                Some(k) => t!(
                    "vision-hard-patch",
                    patch = k - 1,
                    weight = format!("{:.2}", all[k]),
                    u = format!("{:.3}", self.draw_u)
                ),
                None => t!("vision-hard-none"),
            };
            ui.label(said);
        });
        ui.label(t!("vision-hard-about"));
        vectors(ui, &trace);
    }

    fn query_name(&self) -> String {
        match self.query {
            CLASS_QUERY => t!("vision-class-token"),
            q => t!("vision-patch", patch = q - 1),
        }
    }

    fn weights(&self, trace: &VitTrace) -> Result<PatchWeights, String> {
        match (self.query, self.head) {
            (CLASS_QUERY, Some(h)) => trace.cls_attention(self.layer, h),
            (CLASS_QUERY, None) => trace.cls_attention_mean(self.layer),
            (q, Some(h)) => trace.patch_attention(self.layer, h, q - 1),
            (q, None) => trace.patch_attention_mean(self.layer, q - 1),
        }
    }

    /// The gallery, drawing, and clearing.
    fn image_controls(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("vision-gallery"));
            for g in 0..6 {
                let name = t!("vision-gallery-image", index = g + 1);
                if ui.selectable_label(self.gallery == Some(g), name).clicked() {
                    self.gallery = Some(g);
                }
            }
            let draw = ui.selectable_label(self.drawing, t!("vision-draw"));
            if draw.clicked() {
                if !self.drawing && self.gallery.is_some() {
                    // Start from the picture shown.
                    self.cells = self.image().iter().map(|&v| v > 0.5).collect();
                }
                self.drawing = !self.drawing;
                self.gallery = None;
            }
            if ui.button(t!("vision-clear")).clicked() {
                self.cells = vec![false; PIXELS];
                self.gallery = None;
                self.drawing = true;
            }
        });
    }

    /// Layer, head (or their mean) and query (the class token or a patch).
    fn attention_controls(&mut self, ui: &mut Ui, trace: &VitTrace) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("vision-layer"));
            ui.add(egui::Slider::new(
                &mut self.layer,
                0..=trace.layers().saturating_sub(1),
            ))
            .labelled_by(label.id);
            ui.label(t!("vision-head"));
            if ui
                .selectable_label(self.head.is_none(), t!("vision-head-mean"))
                .clicked()
            {
                self.head = None;
            }
            for h in 0..trace.heads() {
                if ui
                    .selectable_label(self.head == Some(h), h.to_string())
                    .clicked()
                {
                    self.head = Some(h);
                }
            }
            let label = ui.label(t!("vision-query"));
            let patches = trace.grid.patches();
            ui.add(
                egui::DragValue::new(&mut self.query)
                    .range(0..=patches)
                    .custom_formatter(|v, _| match v as usize {
                        CLASS_QUERY => t!("vision-class-token"),
                        q => t!("vision-patch", patch = q - 1),
                    }),
            )
            .labelled_by(label.id);
        });
        ui.weak(t!("vision-query-hint"));
    }

    /// The image with its patch grid; a click draws (drawing) or picks the query patch.
    fn image_canvas(&mut self, ui: &mut Ui, image: &ndarray::Array2<f32>) {
        let (response, painter) = ui.allocate_painter(Vec2::splat(SIDE), Sense::click_and_drag());
        let rect = response.rect;
        paint_image(&painter, rect, image.view(), 1.0);
        paint_grid(&painter, rect, self.query);
        let cell = SIDE / IMAGE_SIDE as f32;
        if let Some(pos) = response.interact_pointer_pos() {
            let col = ((pos.x - rect.left()) / cell).floor() as isize;
            let row = ((pos.y - rect.top()) / cell).floor() as isize;
            let inside =
                (0..IMAGE_SIDE as isize).contains(&row) && (0..IMAGE_SIDE as isize).contains(&col);
            if inside {
                let (row, col) = (row as usize, col as usize);
                if self.drawing {
                    // A click toggles; a drag paints what its first pixel became.
                    let i = row * IMAGE_SIDE + col;
                    if response.drag_started() || response.clicked() {
                        self.cells[i] = !self.cells[i];
                    } else if response.dragged() {
                        self.cells[i] = true;
                    }
                } else if response.clicked() {
                    let p = IMAGE_SIDE / ACROSS;
                    self.query = 1 + (row / p) * ACROSS + col / p;
                }
            }
        }
        let name = match self.drawing {
            true => t!("vision-image-name-drawing"),
            false => t!("vision-image-name"),
        };
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &name));
    }
}

/// The grey image filling `rect`, its ink scaled by `light` (dimmed under a map of weights).
pub(super) fn paint_image(
    painter: &egui::Painter,
    rect: Rect,
    image: ndarray::ArrayView2<f32>,
    light: f32,
) {
    let cell = rect.width() / image.ncols().max(1) as f32;
    for ((r, c), &v) in image.indexed_iter() {
        let g = (255.0 * v.clamp(0.0, 1.0) * light + 24.0 * (1.0 - v)) as u8;
        let min = rect.min + Vec2::new(c as f32 * cell, r as f32 * cell);
        painter.rect_filled(
            Rect::from_min_size(min, Vec2::splat(cell)),
            0.0,
            Color32::from_gray(g),
        );
    }
}

/// The 4 × 4 patch grid, the query patch outlined.
fn paint_grid(painter: &egui::Painter, rect: Rect, query: usize) {
    let p = rect.width() / ACROSS as f32;
    let line = Stroke::new(1.0, Color32::from_rgb(90, 140, 200));
    for i in 0..=ACROSS {
        let x = rect.left() + i as f32 * p;
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            line,
        );
        let y = rect.top() + i as f32 * p;
        painter.line_segment(
            [egui::pos2(rect.left(), y), egui::pos2(rect.right(), y)],
            line,
        );
    }
    if query != CLASS_QUERY {
        let k = query - 1;
        let min = rect.min + Vec2::new((k % ACROSS) as f32 * p, (k / ACROSS) as f32 * p);
        let outline = Stroke::new(3.0, Color32::from_rgb(255, 210, 60));
        painter.rect_stroke(
            Rect::from_min_size(min, Vec2::splat(p)),
            0.0,
            outline,
            egui::StrokeKind::Inside,
        );
    }
}

/// The image dimmed under each patch's weight (colour and number).
fn weight_canvas(
    ui: &mut Ui,
    image: &ndarray::Array2<f32>,
    w: &[f32],
    query: usize,
    kind: &str,
    query_name: &str,
) {
    let (response, painter) = ui.allocate_painter(Vec2::splat(SIDE), Sense::hover());
    let rect = response.rect;
    paint_image(&painter, rect, image.view(), 0.35);
    let max = w.iter().copied().fold(1e-6, f32::max);
    let scale = ColorScale::Sequential { min: 0.0, max };
    let p = SIDE / ACROSS as f32;
    for (k, &v) in w.iter().enumerate() {
        let min = rect.min + Vec2::new((k % ACROSS) as f32 * p, (k / ACROSS) as f32 * p);
        let cell = Rect::from_min_size(min, Vec2::splat(p));
        let fill = scale.color(v).gamma_multiply(0.8);
        painter.rect_filled(cell, 0.0, fill);
        painter.text(
            cell.center(),
            egui::Align2::CENTER_CENTER,
            format!("{v:.2}"),
            egui::FontId::proportional(13.0),
            ink_on(fill),
        );
    }
    paint_grid(&painter, rect, query);
    let name = t!("vision-weights-name", kind = kind, query = query_name);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &name));
}

/// "The class token's weights: patch 5 0.62, patch 10 0.31, …; on itself 0.00."
fn describe_weights(query: &str, w: &PatchWeights) -> String {
    let mut order: Vec<usize> = (0..w.to_patches.len()).collect();
    order.sort_by(|&a, &b| w.to_patches[b].total_cmp(&w.to_patches[a]));
    let top: Vec<String> = order
        .iter()
        .take(4)
        .map(|&k| {
            t!(
                "vision-weight-item",
                patch = k,
                weight = format!("{:.2}", w.to_patches[k])
            )
        })
        .collect();
    t!(
        "vision-weights-words",
        query = query,
        top = top.join(", "),
        itself = format!("{:.2}", w.to_class)
    )
}

/// The model's answer with its probability, and the gallery's label.
fn answer(
    ui: &mut Ui,
    task: VisionTask,
    trace: &VitTrace,
    gallery: Option<(ndarray::Array2<f32>, usize)>,
) {
    let names = task.class_names();
    let said = trace.predicted();
    let name = |c: usize| names.get(c).copied().unwrap_or("?").to_string();
    let p = trace.probs.get(said).copied().unwrap_or(0.0);
    let mut text = t!("vision-answer", class = name(said), p = format!("{p:.2}"));
    if let Some((_, label)) = gallery {
        text.push_str(&t!("vision-answer-truth", class = name(label)));
    }
    ui.label(egui::RichText::new(text).strong());
}

/// The patches as vectors (N × P², the pixels) and as tokens (N+1 × d, embedded, positions
/// added): what the encoder reads.
fn vectors(ui: &mut Ui, trace: &VitTrace) {
    ui.label(t!(
        "vision-vectors",
        patches = trace.grid.patches(),
        pixels = trace.grid.vector_len(),
        d = trace.embeddings.ncols()
    ));
    let patch_rows: Vec<String> = (0..trace.patches.nrows())
        .map(|k| t!("vision-patch", patch = k))
        .collect();
    let pixel_cols: Vec<String> = (0..trace.patches.ncols()).map(|j| j.to_string()).collect();
    let token_rows: Vec<String> = std::iter::once("[CLS]".to_string())
        .chain(patch_rows.iter().cloned())
        .collect();
    let dims: Vec<String> = (0..trace.embeddings.ncols())
        .map(|j| j.to_string())
        .collect();
    let (patch, pixel) = (t!("vision-axis-patch"), t!("vision-axis-pixel"));
    let (token, dimension) = (t!("vision-axis-token"), t!("vision-axis-dimension"));
    crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
        let scale = ColorScale::Sequential { min: 0.0, max: 1.0 };
        Heatmap {
            max_cell: 12.0,
            axis_names: (&patch, &pixel),
            ..Heatmap::new(trace.patches.view(), &patch_rows, &pixel_cols, scale)
        }
        .show(&mut cols[0]);
        let scale = ColorScale::diverging_for(trace.embeddings.iter());
        Heatmap {
            max_cell: 12.0,
            stretch: true,
            axis_names: (&token, &dimension),
            ..Heatmap::new(trace.embeddings.view(), &token_rows, &dims, scale)
        }
        .show(&mut cols[1]);
    });
}
