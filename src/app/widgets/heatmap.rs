//! A labelled heatmap of a plain matrix: labels on both axes, exact values on hover,
//! masked cells drawn distinctly, optional numbers in the cells, zoom and pan. Knows nothing
//! of transformers. Small matrices are drawn cell by cell; large ones as one texture.

use super::colormap::{legend, ColorScale};
use super::heatmap_access;
use egui::{
    Align2, Color32, ColorImage, FontId, Pos2, Rect, Sense, Stroke, TextureHandle, Ui, Vec2,
};
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
    /// Largest cell side in points (before zoom).
    pub max_cell: f32,
    /// Axis names for the hover text, e.g. ("query", "key"); empty: "row" and "column".
    pub axis_names: (&'a str, &'a str),
    /// Appended to the hover text, e.g. "layer 1 · head 2".
    pub context: &'a str,
    /// Zoom factor (1 = fit the available space); beyond the space the heatmap scrolls.
    pub zoom: f32,
    /// A row to outline (the selected query).
    pub highlight_row: Option<usize>,
    /// Per-row emphasis in [0, 1]: rows outlined with this opacity (e.g. the value rows a
    /// query mixes, by its attention weights).
    pub row_emphasis: Option<&'a [f32]>,
    /// A note per row, added to the hover text (e.g. the row's sum).
    pub row_notes: Option<&'a [String]>,
    /// Wide matrices (a d_head = 64 or d_model = 576 wide row per token): when square cells
    /// would be too small to read, cells grow taller than wide, so each row becomes a
    /// readable colour strip with its label, and every column stays on screen (exact values
    /// on hover).
    pub stretch: bool,
}

impl<'a> Heatmap<'a> {
    /// A heatmap with the defaults: no mask, no numbers, fit to space, no highlight.
    pub fn new(
        values: ArrayView2<'a, f32>,
        row_labels: &'a [String],
        col_labels: &'a [String],
        scale: ColorScale,
    ) -> Self {
        Self {
            values,
            row_labels,
            col_labels,
            scale,
            allowed: None,
            show_numbers: false,
            max_cell: 40.0,
            axis_names: ("", ""),
            context: "",
            zoom: 1.0,
            highlight_row: None,
            row_emphasis: None,
            row_notes: None,
            stretch: false,
        }
    }
}

/// What the heatmap drew, for hover handling and the test probe.
pub struct HeatmapOutput {
    /// The rectangle covered by the cells (labels excluded).
    pub cells: Rect,
    pub hovered: Option<(usize, usize)>,
    /// The cell clicked this frame, if any.
    pub clicked: Option<(usize, usize)>,
    /// The colour of every cell as drawn, row-major.
    pub colors: Vec<Vec<Color32>>,
    /// Drawn as one texture (true) or cell by cell.
    pub textured: bool,
    /// Ctrl + scroll over the heatmap this frame: multiply the zoom by this.
    pub zoom_delta: f32,
    /// What is visible of the whole drawing (labels, and the legend when there is one): the
    /// region a PNG export captures.
    pub block: Rect,
}

/// Room kept beside the heatmap for its legend.
const LEGEND_WIDTH: f32 = 100.0;
/// Above this many cells, or below this cell size, one texture replaces the per-cell shapes.
const TEXTURE_ABOVE_CELLS: usize = 576;
const TEXTURE_BELOW_CELL: f32 = 10.0;
/// A stretched heatmap's rows: no shorter than a label needs, no taller than a strip should be.
const STRIP_ROW: std::ops::RangeInclusive<f32> = 16.0..=24.0;
/// Cells narrower than this have no room for a number even in its short form (".49") at a
/// readable 9 points.
const NUMBER_MIN_CELL: f32 = 24.0;
/// From this width a number gets two decimals and a leading zero ("0.49").
const NUMBER_FULL_CELL: f32 = 30.0;
/// Labels closer than this (points, centre to centre) are thinned out, rows and columns alike
/// (the font shrinks to the gap first, down to 9 points at this spacing).
pub const LABEL_SPACING: f32 = 11.0;

pub const MASKED_COLOR: Color32 = Color32::from_rgb(120, 120, 120);
const HATCH_COLOR: Color32 = Color32::from_rgb(90, 90, 90);

impl Heatmap<'_> {
    pub fn cell_color(&self, r: usize, c: usize) -> Color32 {
        if self.masked(r, c) {
            MASKED_COLOR
        } else {
            self.scale.color(self.values[[r, c]])
        }
    }

    pub(crate) fn masked(&self, r: usize, c: usize) -> bool {
        self.allowed.is_some_and(|a| !a[[r, c]])
    }

    /// What a row and a column are, in words: the names given, else "row" and "column".
    pub fn axis_words(&self) -> (String, String) {
        let (rows, cols) = self.axis_names;
        (
            if rows.is_empty() {
                crate::t!("widgets-heatmap-row")
            } else {
                rows.to_string()
            },
            if cols.is_empty() {
                crate::t!("widgets-heatmap-column")
            } else {
                cols.to_string()
            },
        )
    }

    /// The heatmap with its colour legend to the right.
    pub fn show_with_legend(self, ui: &mut Ui, legend_height: f32, caption: &str) -> HeatmapOutput {
        let scale = self.scale;
        // The legend and its caption stay inside a short screen (a projector at 720 px).
        let legend_height = legend_height.min((ui.available_height() - 28.0).max(40.0));
        let row = ui.horizontal_top(|ui| {
            let width = ui.available_width() - LEGEND_WIDTH;
            let out = ui
                .allocate_ui(Vec2::new(width, ui.available_height()), |ui| self.show(ui))
                .inner;
            legend(ui, scale, legend_height, caption);
            out
        });
        let mut out = row.inner;
        out.block = row.response.rect.intersect(ui.clip_rect());
        out
    }

    pub fn show(self, ui: &mut Ui) -> HeatmapOutput {
        let cell = self.cell_size(ui.available_size());
        if !self.show_numbers || cell.min_elem() >= NUMBER_MIN_CELL {
            return self.show_cells(ui, cell);
        }
        // Numbers were asked for but do not fit: say so under the map, not silently drop them.
        ui.vertical(|ui| {
            let note = ui.spacing().interact_size.y;
            let cell = self.cell_size(ui.available_size() - Vec2::new(0.0, note));
            let out = self.show_cells(ui, cell);
            ui.weak(crate::t!("widgets-heatmap-no-room"));
            out
        })
        .inner
    }

    /// The cell size that fits `space` (labels included), times the zoom.
    fn cell_size(&self, space: Vec2) -> Vec2 {
        let (rows, cols) = self.values.dim();
        let left = label_width(self.row_labels);
        let top = label_width(self.col_labels);
        let avail = space - Vec2::new(left + 8.0, top + 8.0);
        let fit = (avail.x / cols.max(1) as f32)
            .min(avail.y / rows.max(1) as f32)
            .min(self.max_cell)
            .max(3.0);
        let zoom = self.zoom.clamp(0.25, 16.0);
        if self.stretch && fit < *STRIP_ROW.start() {
            let w = (avail.x / cols.max(1) as f32).max(1.0);
            let h = (avail.y / rows.max(1) as f32).clamp(*STRIP_ROW.start(), *STRIP_ROW.end());
            Vec2::new(w, h.min(self.max_cell.max(*STRIP_ROW.start()))) * zoom
        } else {
            Vec2::splat(fit * zoom)
        }
    }

    /// Draw with cells of `cell` points, scrolling when they overflow the space.
    fn show_cells(self, ui: &mut Ui, cell: Vec2) -> HeatmapOutput {
        let (rows, cols) = self.values.dim();
        let left = label_width(self.row_labels);
        let top = label_width(self.col_labels);
        let size = Vec2::new(left, top) + cell * Vec2::new(cols as f32, rows as f32);
        if size.x <= ui.available_width() + 0.5 && size.y <= ui.available_height() + 0.5 {
            return self.draw(ui, cell, left, top);
        }
        // Zoomed past the space: pan with scroll bars (or drag with the scroll wheel).
        // The auto id tells apart heatmaps with the same context side by side (in columns).
        egui::ScrollArea::both()
            .id_salt(("heatmap_scroll", self.context, ui.next_auto_id()))
            .auto_shrink([false, false])
            .show(ui, |ui| self.draw(ui, cell, left, top))
            .inner
    }

    /// Draw with cells of `cell` points (width, height).
    fn draw(self, ui: &mut Ui, cell: Vec2, left: f32, top: f32) -> HeatmapOutput {
        let (rows, cols) = self.values.dim();
        let grid = cell * Vec2::new(cols as f32, rows as f32);
        let size = Vec2::new(left, top) + grid;
        let (rect, response) = ui.allocate_exact_size(size, Sense::click());
        let keys = heatmap_access::keyboard(ui, &response, rows, cols);
        let spoken = keys.map(|k| heatmap_access::announcement(&self, k.cell.0, k.cell.1));
        // A name for screen readers and UI tests; focused, the keyboard's cell too.
        response.widget_info(|| {
            let context = super::math_text::spoken(self.context);
            let mut name = crate::t!("widgets-heatmap-name", context = context);
            if let Some(k) = keys {
                name.push_str(": ");
                name.push_str(&heatmap_access::cell_words(&self, k.cell.0, k.cell.1));
            }
            egui::WidgetInfo::labeled(egui::Role::Canvas, true, name)
        });
        let cells = Rect::from_min_size(rect.min + Vec2::new(left, top), grid);
        let painter = ui.painter_at(rect.expand(2.0));
        let colors: Vec<Vec<Color32>> = (0..rows)
            .map(|r| (0..cols).map(|c| self.cell_color(r, c)).collect())
            .collect();
        let textured = rows * cols > TEXTURE_ABOVE_CELLS || cell.min_elem() < TEXTURE_BELOW_CELL;
        if textured {
            let id = ui.scope_id().with(("heatmap_texture", self.context));
            let key = matrix_key(self.values, self.allowed, scale_key(self.scale));
            let texture = matrix_texture(ui, id, key, || colors.clone(), |r, c| self.masked(r, c));
            painter.image(
                texture.id(),
                cells,
                Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
                Color32::WHITE,
            );
        } else {
            self.paint_cells(&painter, cells, cell, &colors);
        }
        self.paint_labels(ui, &painter, cells, cell);
        heatmap_access::add_table(ui, &self, cells, cell);
        heatmap_access::add_live_region(ui, cells, spoken.unwrap_or_default());
        let cell_at = |p: Pos2| {
            if !cells.contains(p) {
                return None;
            }
            let c = ((p.x - cells.left()) / cell.x) as usize;
            let r = ((p.y - cells.top()) / cell.y) as usize;
            (r < rows && c < cols).then_some((r, c))
        };
        let hovered = response.hover_pos().and_then(cell_at);
        let clicked = if response.clicked() {
            response.interact_pointer_pos().and_then(cell_at)
        } else {
            None
        };
        // Enter opens the keyboard's cell as a click would.
        let clicked = clicked.or(keys.filter(|k| k.entered).map(|k| k.cell));
        let cell_rect = |r: usize, c: usize| {
            Rect::from_min_size(cells.min + Vec2::new(c as f32, r as f32) * cell, cell)
        };
        if let Some(r) = self.highlight_row.filter(|&r| r < rows) {
            let row = cell_rect(r, 0).union(cell_rect(r, cols.saturating_sub(1)));
            painter.rect_stroke(
                row,
                0.0,
                Stroke::new(2.0, Color32::from_rgb(255, 140, 0)),
                egui::StrokeKind::Outside,
            );
        }
        for (r, &e) in self
            .row_emphasis
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .take(rows)
        {
            if e > 0.01 {
                let row = cell_rect(r, 0).union(cell_rect(r, cols.saturating_sub(1)));
                let a = (e.clamp(0.0, 1.0) * 255.0) as u8;
                painter.rect_stroke(
                    row,
                    0.0,
                    Stroke::new(2.0, Color32::from_rgba_unmultiplied(255, 140, 0, a)),
                    egui::StrokeKind::Outside,
                );
            }
        }
        let zoom_delta = if response.hovered() {
            ui.input(|i| i.zoom_delta())
        } else {
            1.0
        };
        if let Some(k) = keys {
            // The focus ring, and the keyboard's cell.
            let focus = ui.visuals().selection.stroke;
            painter.rect_stroke(cells, 0.0, focus, egui::StrokeKind::Outside);
            let (r, c) = k.cell;
            painter.rect_stroke(
                cell_rect(r, c),
                0.0,
                Stroke::new(3.0, focus.color),
                egui::StrokeKind::Inside,
            );
        }
        if let Some((r, c)) = hovered {
            painter.rect_stroke(
                cell_rect(r, c),
                0.0,
                Stroke::new(2.0, Color32::WHITE),
                egui::StrokeKind::Inside,
            );
            response.on_hover_text_at_pointer(self.hover_text(r, c));
        }
        HeatmapOutput {
            cells,
            hovered,
            clicked,
            colors,
            textured,
            zoom_delta,
            block: rect.intersect(ui.clip_rect()),
        }
    }

    /// What hovering cell (r, c) tells: both tokens, the exact value, and the context.
    pub fn hover_text(&self, r: usize, c: usize) -> String {
        let (qn, kn) = self.axis_words();
        let row = self.row_labels.get(r).map_or("?", |s| s.as_str());
        let col = self.col_labels.get(c).map_or("?", |s| s.as_str());
        let value = if self.masked(r, c) {
            crate::t!("widgets-heatmap-masked-hover")
        } else {
            format!("{:.6}", self.values[[r, c]])
        };
        let mut text = crate::t!(
            "widgets-heatmap-hover",
            row_axis = qn,
            row = r,
            row_token = row,
            column_axis = kn,
            column = c,
            column_token = col
        );
        text.push('\n');
        text.push_str(&crate::t!("widgets-heatmap-value", value = value));
        if let Some(note) = self.row_notes.and_then(|n| n.get(r)) {
            text.push('\n');
            text.push_str(note);
        }
        if !self.context.is_empty() {
            text.push('\n');
            text.push_str(&super::math_unicode::unicode(self.context));
        }
        text
    }

    fn paint_cells(
        &self,
        painter: &egui::Painter,
        cells: Rect,
        cell: Vec2,
        colors: &[Vec<Color32>],
    ) {
        for (r, row) in colors.iter().enumerate() {
            for (c, &color) in row.iter().enumerate() {
                let min = cells.min + Vec2::new(c as f32, r as f32) * cell;
                let cr = Rect::from_min_size(min, cell);
                painter.rect_filled(cr, 0.0, color);
                if self.masked(r, c) {
                    // Two hatch strokes that leave the cell's centre in the flat mask colour.
                    let stroke = Stroke::new(1.0, HATCH_COLOR);
                    painter.line_segment([cr.left_center(), cr.center_top()], stroke);
                    painter.line_segment([cr.center_bottom(), cr.right_center()], stroke);
                } else if let Some((text, size)) =
                    cell_number(self.values[[r, c]], cell.min_elem()).filter(|_| self.show_numbers)
                {
                    // Ink by the cell's luminance, not its place on the scale: a diverging
                    // scale is dark at both ends.
                    let ink = super::colormap::ink_on(color);
                    painter.text(
                        cr.center(),
                        Align2::CENTER_CENTER,
                        text,
                        FontId::monospace(size),
                        ink,
                    );
                }
            }
        }
    }

    fn paint_labels(&self, ui: &Ui, painter: &egui::Painter, cells: Rect, cell: Vec2) {
        let (rows, cols) = self.values.dim();
        let text_color = ui.visuals().text_color();
        // Thin out labels that would overlap: every k-th only (hover names every cell).
        let every_row = label_stride(cell.y, LABEL_SPACING);
        let every_col = label_stride(cell.x, LABEL_SPACING);
        // A label's line is about 1.2 × its size: a smaller font before a dropped label.
        let font = |gap: f32| FontId::monospace(13.0_f32.min(gap / 1.2).max(7.0));
        let row_font = font(cell.y * every_row as f32);
        for (r, label) in self.row_labels.iter().enumerate().take(rows) {
            if r % every_row != 0 {
                continue;
            }
            let y = cells.top() + (r as f32 + 0.5) * cell.y;
            painter.text(
                Pos2::new(cells.left() - 6.0, y),
                Align2::RIGHT_CENTER,
                shown(label),
                row_font.clone(),
                text_color,
            );
        }
        let col_font = font(cell.x * every_col as f32);
        for (c, label) in self.col_labels.iter().enumerate().take(cols) {
            if c % every_col != 0 {
                continue;
            }
            let x = cells.left() + (c as f32 + 0.5) * cell.x;
            let galley = painter.layout_no_wrap(shown(label), col_font.clone(), text_color);
            // Column labels read bottom-to-top, ending just above their column.
            let pos = Pos2::new(x - galley.size().y / 2.0, cells.top() - 6.0);
            painter.add(
                egui::epaint::TextShape::new(pos, galley, text_color)
                    .with_angle(-std::f32::consts::FRAC_PI_2),
            );
        }
    }
}

/// Draw every k-th label of cells `cell` points apart so labels stay `spacing` apart; k is
/// 1, 2, 4, 8, … so the labels kept of a numbered axis read 0, 8, 16, ….
/// A value as written in a cell `side` points wide, and its font size: "0.49" in a wide
/// cell, ".49" (or "2.3", "−.07") in a narrow one, nothing where even that does not fit.
pub fn cell_number(v: f32, side: f32) -> Option<(String, f32)> {
    if side >= NUMBER_FULL_CELL {
        return Some((format!("{v:.2}"), 10.0));
    }
    if side < NUMBER_MIN_CELL {
        return None;
    }
    let text = if v.abs() < 0.995 {
        let two = format!("{:.2}", v.abs());
        let sign = if v < 0.0 && two != "0.00" { "−" } else { "" };
        format!("{sign}{}", &two[1..])
    } else if v.abs() < 9.95 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    };
    let size = 9.0;
    // A monospace glyph is about 0.6 of the font size wide.
    (text.chars().count() as f32 * 0.6 * size <= side - 2.0).then_some((text, size))
}

pub fn label_stride(cell: f32, spacing: f32) -> usize {
    let k = (spacing / cell.max(0.01)).ceil().max(1.0) as usize;
    k.next_power_of_two()
}

fn label_width(labels: &[String]) -> f32 {
    labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1)
        .clamp(1, 14) as f32
        * 8.0
        + 10.0
}

/// A fingerprint of a matrix and its mask, to tell when a cached texture is stale.
pub fn matrix_key(values: ArrayView2<f32>, allowed: Option<ArrayView2<bool>>, salt: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (salt, values.dim()).hash(&mut hasher);
    for v in values {
        v.to_bits().hash(&mut hasher);
    }
    if let Some(a) = allowed {
        for ok in a {
            ok.hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// The cells as one texture, two pixels per cell side so masked cells can carry a checker
/// hatch. Cached in egui's memory under `id`; `colors` runs only when `key` changed.
pub fn matrix_texture(
    ui: &Ui,
    id: egui::Id,
    key: u64,
    colors: impl FnOnce() -> Vec<Vec<Color32>>,
    masked: impl Fn(usize, usize) -> bool,
) -> TextureHandle {
    if let Some((k, t)) = ui.data(|d| d.get_temp::<(u64, TextureHandle)>(id)) {
        if k == key {
            return t;
        }
    }
    let colors = colors();
    let rows = colors.len();
    let cols = colors.first().map_or(0, Vec::len);
    let (w, h) = (2 * cols.max(1), 2 * rows.max(1));
    let mut pixels = vec![MASKED_COLOR; w * h];
    for (r, row) in colors.iter().enumerate() {
        for (c, &color) in row.iter().enumerate() {
            let m = masked(r, c);
            for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let hatch = m && dx == dy;
                pixels[(2 * r + dy) * w + 2 * c + dx] = if hatch { HATCH_COLOR } else { color };
            }
        }
    }
    let image = ColorImage::new([w, h], pixels);
    let texture = ui
        .ctx()
        .load_texture(format!("{id:?}"), image, egui::TextureOptions::NEAREST);
    ui.data_mut(|d| d.insert_temp(id, (key, texture.clone())));
    texture
}

/// Distinguishes textures of the same values drawn on different colour scales.
pub fn scale_key(scale: ColorScale) -> u64 {
    let (lo, hi) = scale.range();
    (u64::from(lo.to_bits()) << 32)
        | u64::from(hi.to_bits()) ^ matches!(scale, ColorScale::Diverging { .. }) as u64
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

#[cfg(test)]
mod stride_tests {
    use super::label_stride;

    #[test]
    fn labels_thin_out_in_powers_of_two_when_cells_are_narrow() {
        assert_eq!(label_stride(40.0, 12.0), 1);
        assert_eq!(label_stride(12.0, 12.0), 1);
        assert_eq!(label_stride(10.0, 12.0), 2);
        assert_eq!(label_stride(4.0, 12.0), 4);
        assert_eq!(label_stride(2.0, 12.0), 8);
        assert_eq!(label_stride(0.9, 12.0), 16);
        // 576 columns in 870 points: every 16th column is labelled, 24 points apart.
        assert_eq!(label_stride(870.0 / 576.0, 16.0), 16);
    }
}

#[cfg(test)]
mod tests {
    use super::cell_number;

    #[test]
    fn cell_numbers_shorten_to_fit_narrow_cells() {
        let text = |v, side| cell_number(v, side).map(|(t, _)| t);
        assert_eq!(text(0.4912, 40.0).as_deref(), Some("0.49"));
        assert_eq!(text(0.4912, 24.0).as_deref(), Some(".49"));
        assert_eq!(text(-0.07, 24.0).as_deref(), Some("−.07"));
        assert_eq!(text(-0.001, 24.0).as_deref(), Some(".00"));
        assert_eq!(text(0.999, 24.0).as_deref(), Some("1.0"));
        assert_eq!(text(2.34, 24.0).as_deref(), Some("2.3"));
        assert_eq!(text(-12.6, 24.0).as_deref(), Some("-13"));
        assert_eq!(
            text(12345.0, 24.0),
            None,
            "five digits do not fit 24 points"
        );
        assert_eq!(text(0.5, 23.0), None);
    }
}
