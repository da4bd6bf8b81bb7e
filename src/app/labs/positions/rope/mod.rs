//! RoPE, rotary position embedding: each pair (2p, 2p+1) of a query or key is turned by an
//! angle proportional to its position, so the score of a query at i and a key at j depends on
//! j − i only. The panel draws that with the functions the model runs (`model::position`):
//! two arrows on a circle, the score against i and against the offset, the angle table, a
//! hand-typed table rotated as `glimpse pe --kind rope --apply` rotates it, and the attention
//! of the built-in `repeat` model, which was trained with RoPE.
//!
//! The numbers come from plain functions in `maths`, tested without drawing; `circle` draws
//! sections 1–3, `table` section 4 and `trained` section 5.

mod circle;
pub mod maths;
mod table;
#[cfg(test)]
mod tests;
mod trained;

use crate::model::{builtin, Model};
use egui::Color32;
pub use maths::{
    advance, angle_between, cli_command, offset_score, pair_score, rotate_pair, rows_json,
    table_rotate, AngleView, MAX_POSITION,
};
use trained::TraceCache;

/// Seconds between animation steps.
const STEP_SECONDS: f64 = 0.3;
const MAX_TABLE_ROWS: usize = 8;
const MAX_TABLE_PAIRS: usize = 4;
const QUERY: Color32 = Color32::from_rgb(255, 170, 60);
const KEY: Color32 = Color32::from_rgb(90, 170, 255);
const MODEL_NAME: &str = "repeat";

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
    model: Option<Result<std::sync::Arc<Model>, String>>,
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

/// The notes' RoPE example: "the dog slept" embedded in four dimensions. The notes count
/// positions from 1, so the three tokens stand at 1, 2 and 3.
pub const NOTES_TABLE: [[f32; 4]; 3] = [
    [0.9, 0.1, 0.2, 0.8],
    [0.5, 0.7, 0.3, 0.1],
    [0.2, 0.1, 0.9, 0.7],
];
pub const NOTES_POSITIONS: [usize; 3] = [1, 2, 3];

impl RopePanel {
    /// Type the notes' example into the table (base 10000).
    pub fn set_notes_example(&mut self) {
        self.table = NOTES_TABLE.iter().map(|r| r.to_vec()).collect();
        self.table_positions = NOTES_POSITIONS.to_vec();
        self.table_base = 10000.0;
    }

    /// Whether the table holds the notes' example.
    pub fn shows_notes_example(&self) -> bool {
        self.table.len() == NOTES_TABLE.len()
            && self
                .table
                .iter()
                .zip(NOTES_TABLE)
                .all(|(a, b)| a[..] == b[..])
            && self.table_positions[..] == NOTES_POSITIONS[..]
            && self.table_base == 10000.0
    }
}

impl RopePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, store: &crate::app::models::store::ModelStore) {
        self.sanitize();
        self.tick(ui);
        egui::ScrollArea::vertical()
            .id_salt("rope_panel")
            .auto_shrink(false)
            .show(ui, |ui| {
                ui.heading(crate::t!("positions-rope-heading"));
                crate::app::widgets::math_text::label(ui, &crate::t!("positions-rope-about"));
                ui.separator();
                self.circle_section(ui);
                ui.separator();
                self.offset_section(ui);
                ui.separator();
                self.angles_section(ui);
                ui.separator();
                self.table_section(ui);
                ui.separator();
                self.model_section(ui, store);
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
}
