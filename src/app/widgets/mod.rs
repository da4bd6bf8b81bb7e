//! Generic widgets: they take plain arrays and labels and know nothing of transformers.

pub mod colormap;
pub mod heatmap;
