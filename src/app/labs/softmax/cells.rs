//! Small matrices with every number written in its cell, and numbers without trailing zeros:
//! how the softmax lab (and the contrastive lab beside it) print what they compute.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use egui::Ui;
use ndarray::Array2;

/// A small matrix with every number in its cell, sized to its cells.
pub(in crate::app::labs) fn matrix(
    ui: &mut Ui,
    values: &Array2<f32>,
    rows: &[String],
    cols: &[String],
    scale: ColorScale,
    axes: (&str, &str),
    highlight: Option<usize>,
) {
    matrix_with_room(
        ui,
        values,
        (rows, cols),
        scale,
        axes,
        highlight,
        (48.0, 40.0),
    );
}

/// `matrix` with `room` (across, down) left for the axis labels: more for sentences.
pub(in crate::app::labs) fn matrix_with_room(
    ui: &mut Ui,
    values: &Array2<f32>,
    (rows, cols): (&[String], &[String]),
    scale: ColorScale,
    axes: (&str, &str),
    highlight: Option<usize>,
    room: (f32, f32),
) {
    const CELL: f32 = 46.0;
    let (r, c) = values.dim();
    let size = egui::vec2(
        (c as f32 * CELL + room.0).min(ui.available_width()),
        r as f32 * CELL + room.1,
    );
    let mut map = Heatmap::new(values.view(), rows, cols, scale);
    // Its name for screen readers: which rows against which columns.
    let context = format!("{} × {}", axes.0, axes.1);
    map.context = &context;
    map.show_numbers = true;
    map.max_cell = CELL;
    map.axis_names = axes;
    map.highlight_row = highlight;
    ui.allocate_ui(size, |ui| map.show(ui));
}

/// A number without trailing zeros: 2, 0.5, −1.25.
pub(in crate::app::labs) fn trim(x: f32) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.replace('-', "−")
    }
}
