//! A labelled heatmap of a plain matrix: labels on both axes, exact values on hover,
//! masked cells drawn distinctly, optional numbers in the cells.

use super::colormap::{legend, ColorScale};
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Ui, Vec2};
use ndarray::ArrayView2;

pub struct Heatmap<'a> {
    pub values: ArrayView2<'a, f32>,
    pub row_labels: &'a [String],
    pub col_labels: &'a [String],
    pub scale: ColorScale,
    /// `false` cells are masked: drawn hatched grey instead of by value.
    pub allowed: Option<ArrayView2<'a, bool>>,
    /// Write each value in its cell (small matrices).
    pub show_numbers: bool,
    /// Largest cell side in points.
    pub max_cell: f32,
    /// Axis names for the hover text, e.g. ("query", "key").
    pub axis_names: (&'a str, &'a str),
}

/// What the heatmap drew, for hover handling and the test probe.
pub struct HeatmapOutput {
    /// The rectangle covered by the cells (labels excluded).
    pub cells: Rect,
    pub hovered: Option<(usize, usize)>,
    /// The colour of every cell as drawn, row-major.
    pub colors: Vec<Vec<Color32>>,
}

/// Room kept beside the heatmap for its legend.
const LEGEND_WIDTH: f32 = 100.0;

pub const MASKED_COLOR: Color32 = Color32::from_rgb(120, 120, 120);

impl Heatmap<'_> {
    pub fn cell_color(&self, r: usize, c: usize) -> Color32 {
        let masked = self.allowed.is_some_and(|a| !a[[r, c]]);
        if masked {
            MASKED_COLOR
        } else {
            self.scale.color(self.values[[r, c]])
        }
    }

    /// The heatmap with its colour legend to the right.
    pub fn show_with_legend(self, ui: &mut Ui, legend_height: f32, caption: &str) -> HeatmapOutput {
        let scale = self.scale;
        ui.horizontal_top(|ui| {
            let width = ui.available_width() - LEGEND_WIDTH;
            let out = ui
                .allocate_ui(Vec2::new(width, ui.available_height()), |ui| self.show(ui))
                .inner;
            legend(ui, scale, legend_height, caption);
            out
        })
        .inner
    }

    pub fn show(self, ui: &mut Ui) -> HeatmapOutput {
        let (rows, cols) = self.values.dim();
        let font = FontId::monospace(13.0);
        let label_width = |labels: &[String]| {
            labels
                .iter()
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(1)
                .clamp(1, 14) as f32
                * 8.0
                + 10.0
        };
        let left = label_width(self.row_labels);
        let top = label_width(self.col_labels);
        let avail = ui.available_size() - Vec2::new(left + 8.0, top + 8.0);
        let cell = (avail.x / cols.max(1) as f32)
            .min(avail.y / rows.max(1) as f32)
            .min(self.max_cell)
            .max(4.0);
        let size = Vec2::new(left + cell * cols as f32, top + cell * rows as f32);
        let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
        let cells = Rect::from_min_size(
            rect.min + Vec2::new(left, top),
            Vec2::new(cell * cols as f32, cell * rows as f32),
        );
        let painter = ui.painter_at(rect.expand(2.0));
        let text_color = ui.visuals().text_color();
        let mut colors = vec![vec![Color32::BLACK; cols]; rows];
        for r in 0..rows {
            for c in 0..cols {
                let min = cells.min + Vec2::new(c as f32 * cell, r as f32 * cell);
                let cr = Rect::from_min_size(min, Vec2::splat(cell));
                let color = self.cell_color(r, c);
                colors[r][c] = color;
                painter.rect_filled(cr, 0.0, color);
                if self.allowed.is_some_and(|a| !a[[r, c]]) {
                    // Two hatch strokes that leave the cell's centre in the flat mask colour.
                    let stroke = Stroke::new(1.0, Color32::from_rgb(90, 90, 90));
                    painter.line_segment([cr.left_center(), cr.center_top()], stroke);
                    painter.line_segment([cr.center_bottom(), cr.right_center()], stroke);
                } else if self.show_numbers && cell >= 30.0 {
                    let v = self.values[[r, c]];
                    let ink = if self.scale.position(v) > 0.6 {
                        Color32::BLACK
                    } else {
                        Color32::WHITE
                    };
                    painter.text(
                        cr.center(),
                        Align2::CENTER_CENTER,
                        format!("{v:.2}"),
                        FontId::monospace(10.0),
                        ink,
                    );
                }
            }
        }
        for (r, label) in self.row_labels.iter().enumerate().take(rows) {
            let y = cells.top() + (r as f32 + 0.5) * cell;
            painter.text(
                Pos2::new(cells.left() - 6.0, y),
                Align2::RIGHT_CENTER,
                shown(label),
                font.clone(),
                text_color,
            );
        }
        for (c, label) in self.col_labels.iter().enumerate().take(cols) {
            let x = cells.left() + (c as f32 + 0.5) * cell;
            let galley = painter.layout_no_wrap(shown(label), font.clone(), text_color);
            // Column labels read bottom-to-top, ending just above their column.
            let pos = Pos2::new(x - galley.size().y / 2.0, cells.top() - 6.0);
            painter.add(
                egui::epaint::TextShape::new(pos, galley, text_color)
                    .with_angle(-std::f32::consts::FRAC_PI_2),
            );
        }
        let hovered = response.hover_pos().and_then(|p| {
            if !cells.contains(p) {
                return None;
            }
            let c = ((p.x - cells.left()) / cell) as usize;
            let r = ((p.y - cells.top()) / cell) as usize;
            (r < rows && c < cols).then_some((r, c))
        });
        if let Some((r, c)) = hovered {
            let cr = Rect::from_min_size(
                cells.min + Vec2::new(c as f32 * cell, r as f32 * cell),
                Vec2::splat(cell),
            );
            painter.rect_stroke(
                cr,
                0.0,
                Stroke::new(2.0, Color32::WHITE),
                egui::StrokeKind::Inside,
            );
            let masked = self.allowed.is_some_and(|a| !a[[r, c]]);
            let (qn, kn) = self.axis_names;
            let row = self.row_labels.get(r).map_or("?", |s| s.as_str());
            let col = self.col_labels.get(c).map_or("?", |s| s.as_str());
            let value = if masked {
                "masked (−∞ before softmax, weight exactly 0)".to_string()
            } else {
                format!("{:.6}", self.values[[r, c]])
            };
            response.on_hover_text_at_pointer(format!(
                "{qn} {r} “{row}” → {kn} {c} “{col}”\nvalue {value}"
            ));
        }
        HeatmapOutput {
            cells,
            hovered,
            colors,
        }
    }
}

/// Make invisible tokens visible in labels.
fn shown(label: &str) -> String {
    match label {
        " " => "␣".to_string(),
        "\n" => "⏎".to_string(),
        "\t" => "⇥".to_string(),
        other => other.chars().take(14).collect(),
    }
}
