//! Generic widgets: they take plain arrays and labels and know nothing of transformers.

pub mod access_table;
pub mod color_vision;
pub mod colormap;
pub mod fit;
pub mod heatmap;
pub mod heatmap_access;
pub mod math_display;
pub mod math_text;
pub mod math_unicode;
pub mod plot_words;

/// The name of the category at an axis tick: plots of bars per token label their whole-number
/// ticks with the token, and leave the in-between ticks blank.
pub fn category_label(names: &[String], value: f64) -> String {
    let i = value.round();
    if (value - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
        names[i as usize].clone()
    } else {
        String::new()
    }
}

/// Colours for the lines of one chart, told apart with colour-blindness (Okabe and Ito).
pub const SERIES_COLORS: [egui::Color32; 7] = [
    egui::Color32::from_rgb(230, 159, 0),
    egui::Color32::from_rgb(86, 180, 233),
    egui::Color32::from_rgb(0, 158, 115),
    egui::Color32::from_rgb(240, 228, 66),
    egui::Color32::from_rgb(213, 94, 0),
    egui::Color32::from_rgb(204, 121, 167),
    egui::Color32::from_rgb(0, 114, 178),
];

/// The colour of line `i` of a chart.
pub fn series_color(i: usize) -> egui::Color32 {
    SERIES_COLORS[i % SERIES_COLORS.len()]
}

/// A chart's key as one row of coloured names above it, where a legend inside the chart would
/// cover the curves (loss curves fill their whole box early in a run).
pub fn series_key<'a>(ui: &mut egui::Ui, names: impl IntoIterator<Item = &'a str>) {
    ui.horizontal_wrapped(|ui| {
        for (i, name) in names.into_iter().enumerate() {
            // The colour and the dash are drawn; the name stays in the text colour, legible on
            // any theme (a yellow line's name in yellow is not).
            let dash = plot_words::series_style(i).1;
            ui.label(egui::RichText::new(dash).color(series_color(i)));
            math_text::label(ui, name);
        }
    });
}
