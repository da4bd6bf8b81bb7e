//! Attention on images: a small Vision Transformer (`train::vision`) trained here, in
//! seconds, on a generated task; the picked or drawn image cut into patches and embedded; the
//! class token's (or any patch's) attention over the image, soft beside hard; and the notes'
//! 224 / 16 arithmetic for any image and patch size.

mod arithmetic;
mod convolution;
mod picture;
mod training;

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::t;
use crate::train::vision::{CnnWeights, VisionTask, IMAGE_SIDE};
use egui::Ui;
pub use training::VisionRun;

/// Pixels of the 16 × 16 image.
const PIXELS: usize = IMAGE_SIDE * IMAGE_SIDE;

/// What the attention panel shows: the class token's row, or a patch's.
pub const CLASS_QUERY: usize = 0;

/// The CNN section's first query pixel, row 4, column 3: inside the larger square of the first
/// gallery image.
const DEFAULT_CNN_QUERY: usize = 4 * IMAGE_SIDE + 3;

pub struct VisionLab {
    pub task: VisionTask,
    pub seed: u64,
    /// The model and its training, started by the button or a link.
    pub run: VisionRun,
    /// The image: a gallery example (0..6) of the task, or the drawn cells.
    pub gallery: Option<usize>,
    pub cells: Vec<bool>,
    /// Clicks on the image toggle pixels (else they pick the query patch).
    pub drawing: bool,
    pub layer: usize,
    /// One head, or the mean over the layer's heads.
    pub head: Option<usize>,
    /// [`CLASS_QUERY`], or 1 + a patch's row-major index.
    pub query: usize,
    /// The uniform number the hard attention samples with (in [0, 1)).
    pub draw_u: f64,
    /// The arithmetic: height, width, channels, patch.
    pub sizes: [usize; 4],
    /// Self-attention in a CNN: the 1×1 convolutions, the scale of W_Q and W_K, and the query
    /// pixel (row-major).
    pub cnn_weights: CnnWeights,
    pub cnn_scale: f32,
    pub cnn_query: usize,
}

impl Default for VisionLab {
    fn default() -> Self {
        Self {
            task: VisionTask::Larger,
            seed: 1,
            run: VisionRun::default(),
            gallery: Some(0),
            cells: vec![false; PIXELS],
            drawing: false,
            layer: 1,
            head: None,
            query: CLASS_QUERY,
            draw_u: 0.5,
            sizes: [224, 224, 3, 16],
            cnn_weights: CnnWeights::Ink,
            cnn_scale: 3.0,
            cnn_query: DEFAULT_CNN_QUERY,
        }
    }
}

/// Drawn cells as 64 hex digits, four pixels a digit, row by row.
fn cells_code(cells: &[bool]) -> String {
    cells
        .chunks(4)
        .map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &on)| n | (u32::from(on) << (3 - i)));
            char::from_digit(n, 16).unwrap_or('0')
        })
        .collect()
}

fn parse_cells(code: &str) -> Option<Vec<bool>> {
    if code.len() != PIXELS / 4 {
        return None;
    }
    let mut cells = Vec::with_capacity(PIXELS);
    for c in code.chars() {
        let n = c.to_digit(16)?;
        cells.extend((0..4).map(|i| n & (1 << (3 - i)) != 0));
    }
    Some(cells)
}

impl VisionLab {
    /// The image shown: the gallery's, or the drawn one.
    pub fn image(&self) -> ndarray::Array2<f32> {
        match self
            .gallery
            .and_then(|g| crate::train::vision::example(self.task, g))
        {
            Some((image, _)) => image,
            None => crate::train::vision::from_cells(&self.cells, IMAGE_SIDE)
                .unwrap_or_else(|_| ndarray::Array2::zeros((IMAGE_SIDE, IMAGE_SIDE))),
        }
    }
}

impl Lab for VisionLab {
    fn id(&self) -> &'static str {
        "vision"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            export::view_menu(ui, shared.exporter, rect, "glimpse-vision.png", &[]);
        });
        crate::app::widgets::math_text::label(ui, &t!("vision-intro"));
        self.training(ui);
        ui.separator();
        self.picture(ui);
        ui.separator();
        self.convolution(ui);
        ui.separator();
        arithmetic::show(ui, &mut self.sizes);
    }

    fn keys(&self) -> &'static [&'static str] {
        &[
            "vtask", "vseed", "vtrain", "vimg", "vdraw", "vlayer", "vhead", "vq", "vu", "vsize",
            "vcw", "vcs", "vcq",
        ]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("vtask", self.task.code());
        w.put("vseed", self.seed.max(1));
        w.put("vtrain", u8::from(self.run.running));
        match self.gallery {
            Some(g) => w.put("vimg", g),
            None => w.put("vimg", cells_code(&self.cells)),
        }
        w.put("vdraw", u8::from(self.drawing));
        w.put("vlayer", self.layer);
        match self.head {
            Some(h) => w.put("vhead", h),
            None => w.put("vhead", "mean"),
        }
        w.put("vq", self.query);
        w.put("vu", format!("{:.3}", self.draw_u));
        let [h, wd, c, p] = self.sizes;
        w.put("vsize", format!("{h}x{wd}x{c}/{p}"));
        w.put("vcw", self.cnn_weights.code());
        w.put("vcs", format!("{:.2}", self.cnn_scale));
        w.put("vcq", self.cnn_query);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(t) = r.read("vtask", VisionTask::from_code) {
            self.task = t;
        }
        if let Some(x) = r.number("vseed", 1..=u32::MAX as u64) {
            self.seed = x;
        }
        if let Some(t) = r.flag("vtrain") {
            self.run.running = t;
        }
        if let Some(img) = r.read("vimg", |v| match v.parse::<usize>() {
            Ok(g) if g < 6 => Some((Some(g), None)),
            Ok(_) => None,
            Err(_) => parse_cells(v).map(|c| (None, Some(c))),
        }) {
            self.gallery = img.0;
            if let Some(cells) = img.1 {
                self.cells = cells;
            }
        }
        if let Some(t) = r.flag("vdraw") {
            self.drawing = t;
        }
        // Layer, head and query are clamped to the model when drawn.
        if let Some(l) = r.number("vlayer", 0..=7usize) {
            self.layer = l;
        }
        if let Some(h) = r.read("vhead", |v| match v {
            "mean" => Some(None),
            v => v.parse::<usize>().ok().filter(|&h| h < 64).map(Some),
        }) {
            self.head = h;
        }
        if let Some(q) = r.number("vq", 0..=PIXELS) {
            self.query = q;
        }
        if let Some(u) = r.read("vu", |v| {
            v.parse::<f64>().ok().filter(|u| (0.0..1.0).contains(u))
        }) {
            self.draw_u = u;
        }
        if let Some(s) = r.read("vsize", arithmetic::parse) {
            self.sizes = s;
        }
        if let Some(w) = r.read("vcw", CnnWeights::from_code) {
            self.cnn_weights = w;
        }
        if let Some(s) = r.read("vcs", |v| {
            v.parse::<f32>().ok().filter(|s| (0.0..=6.0).contains(s))
        }) {
            self.cnn_scale = s;
        }
        if let Some(q) = r.number("vcq", 0..PIXELS) {
            self.cnn_query = q;
        }
    }
}

#[cfg(test)]
mod tests;
