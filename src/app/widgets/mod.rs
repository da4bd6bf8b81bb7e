//! Generic widgets: they take plain arrays and labels and know nothing of transformers.

pub mod colormap;
pub mod fit;
pub mod heatmap;

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
