//! The picked model's own positions: a learned table's rows compared by cosine similarity, or
//! RoPE's frequency and wavelength for every pair, read from the model the other labs share
//! (a built-in or a checkpoint opened with `glimpse --model`).

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::app::words::Words;
use crate::model::config::{RopePairing, RopeScaling};
use crate::model::position::Rope;
use crate::model::{Model, Positional};
use egui::Ui;
use ndarray::{Array2, ArrayView2};

/// Most rows of a learned table compared at once (the heatmap stays readable).
pub const MAX_ROWS: usize = 128;

pub struct OwnPanel {
    /// Rows of the learned table compared.
    pub rows: usize,
    /// The similarity of the first `rows` rows of the model it was computed for.
    similarity: Option<(String, usize, Array2<f32>)>,
}

impl Default for OwnPanel {
    fn default() -> Self {
        Self {
            rows: 64,
            similarity: None,
        }
    }
}

/// `cos(p_i, p_j) = p_i·p_j / (|p_i| |p_j|)` for the first `n` rows of a position table.
pub fn row_cosines(table: ArrayView2<f32>, n: usize) -> Array2<f32> {
    let n = n.min(table.nrows());
    let norm = |i: usize| {
        table
            .row(i)
            .dot(&table.row(i))
            .sqrt()
            .max(f32::MIN_POSITIVE)
    };
    let norms: Vec<f32> = (0..n).map(norm).collect();
    Array2::from_shape_fn((n, n), |(i, j)| {
        table.row(i).dot(&table.row(j)) / (norms[i] * norms[j])
    })
}

/// Every pair `p` of a `d_head`-wide head: its angular frequency `θ_p` (radians per token,
/// after the scaling) and wavelength `λ_p = 2π / θ_p` (tokens per turn).
pub fn rope_bands(rope: &Rope, d_head: usize) -> Vec<(f64, f64)> {
    (0..d_head / 2)
        .map(|p| {
            let theta = rope.frequency(p, d_head);
            (theta, std::f64::consts::TAU / theta)
        })
        .collect()
}

/// The RoPE the model's attention applies (base, pairing and scaling from its config).
pub fn rope_of(model: &Model) -> Option<Rope> {
    match model.config.positional {
        Positional::Rope { base } => Some(Rope {
            base,
            pairing: model.config.extensions.rope_pairing,
            scaling: model.config.extensions.rope_scaling,
        }),
        _ => None,
    }
}

impl OwnPanel {
    pub fn ui(&mut self, ui: &mut Ui, model: Result<&Model, &str>) {
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.label(crate::t!("positions-own-no-model", error = e));
                return;
            }
        };
        let cfg = &model.config;
        ui.heading(crate::t!(
            "positions-own-heading",
            model = &cfg.name,
            scheme = cfg.positional.words(),
        ));
        ui.weak(crate::t!("positions-own-about"));
        ui.separator();
        match (cfg.positional, &model.weights.pos_embed) {
            (Positional::Learned, Some(table)) => self.learned(ui, &cfg.name, table.view()),
            (Positional::Rope { .. }, _) => {
                if let Some(rope) = rope_of(model) {
                    rope_view(ui, &rope, cfg.d_head());
                }
            }
            (Positional::Sinusoidal { base }, _) => {
                ui.label(crate::t!(
                    "positions-own-sinusoidal",
                    base = format!("{base}"),
                    d = cfg.d_model,
                ));
            }
            (Positional::Alibi, _) | (Positional::Relative { .. }, _) => {
                ui.label(crate::t!("positions-own-bias"));
            }
            _ => {
                ui.label(crate::t!("positions-own-none"));
            }
        }
    }

    fn learned(&mut self, ui: &mut Ui, name: &str, table: ArrayView2<f32>) {
        ui.label(crate::t!(
            "positions-own-learned",
            rows = table.nrows(),
            width = table.ncols(),
        ));
        let most = table.nrows().min(MAX_ROWS);
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.rows, 2..=most.max(2))
                .text(crate::t!("positions-own-rows-compared")),
        );
        self.rows = self.rows.clamp(1, most.max(1));
        let fresh = self
            .similarity
            .as_ref()
            .is_some_and(|(n, r, _)| n == name && *r == self.rows);
        if !fresh {
            let s = row_cosines(table, self.rows);
            self.similarity = Some((name.to_string(), self.rows, s));
        }
        let Some((_, _, s)) = &self.similarity else {
            return;
        };
        let labels: Vec<String> = (0..s.nrows()).map(|i| i.to_string()).collect();
        let position = crate::t!("positions-axis-position");
        let context = crate::t!("positions-own-cosine-context");
        Heatmap {
            max_cell: 12.0,
            axis_names: (&position, &position),
            context: &context,
            ..Heatmap::new(
                s.view(),
                &labels,
                &labels,
                ColorScale::Diverging { limit: 1.0 },
            )
        }
        .show_with_legend(ui, 200.0, &crate::t!("positions-own-cosine"));
    }
}

fn rope_view(ui: &mut Ui, rope: &Rope, d_head: usize) {
    let pairing = match rope.pairing {
        RopePairing::Interleaved => crate::t!("positions-own-interleaved"),
        RopePairing::Half => crate::t!("positions-own-rotate-half"),
    };
    let scaling = match rope.scaling {
        None => crate::t!("positions-own-no-scaling"),
        Some(RopeScaling::Linear { factor }) => {
            crate::t!("positions-own-linear-scaling", factor = format!("{factor}"))
        }
        Some(RopeScaling::Llama3 { factor, .. }) => {
            crate::t!("positions-own-llama3-scaling", factor = format!("{factor}"))
        }
    };
    crate::app::widgets::math_text::label(
        ui,
        &crate::t!(
            "positions-own-rope",
            base = format!("{}", rope.base),
            d_head = d_head,
            pairing = pairing,
            scaling = scaling,
        ),
    );
    let bands = rope_bands(rope, d_head);
    egui::Grid::new("own_rope")
        .striped(true)
        .num_columns(3)
        .show(ui, |ui| {
            ui.strong(crate::t!("positions-own-col-pair"));
            crate::app::widgets::math_text::strong(ui, &crate::t!("positions-own-col-theta"));
            crate::app::widgets::math_text::strong(ui, &crate::t!("positions-own-col-wavelength"));
            ui.end_row();
            for (p, (theta, lambda)) in bands.iter().enumerate() {
                ui.label(p.to_string());
                ui.monospace(format!("{theta:.6}"));
                ui.monospace(format!("{lambda:.1}"));
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_cosines_are_one_on_the_diagonal_and_symmetric() {
        let t = ndarray::array![[1.0f32, 0.0], [1.0, 1.0], [0.0, -2.0]];
        let s = row_cosines(t.view(), 3);
        for i in 0..3 {
            assert!((s[[i, i]] - 1.0).abs() < 1e-6);
            for j in 0..3 {
                assert_eq!(s[[i, j]], s[[j, i]]);
            }
        }
        assert!((s[[0, 1]] - 1.0 / 2f32.sqrt()).abs() < 1e-6);
        assert!((s[[1, 2]] + 1.0 / 2f32.sqrt()).abs() < 1e-6);
        assert_eq!(row_cosines(t.view(), 10).dim(), (3, 3));
    }

    #[test]
    fn rope_bands_are_the_textbook_frequencies() {
        let rope = Rope::textbook(100_000.0);
        let bands = rope_bands(&rope, 64);
        assert_eq!(bands.len(), 32);
        assert_eq!(bands[0].0, 1.0);
        assert!((bands[0].1 - std::f64::consts::TAU).abs() < 1e-12);
        // The slowest pair: θ_31 = 100000^(−62/64).
        let slowest = 100_000f64.powf(-62.0 / 64.0);
        assert!((bands[31].0 - slowest).abs() < 1e-15);
        assert!((bands[31].1 - std::f64::consts::TAU / slowest).abs() < 1e-6);
    }

    #[test]
    fn the_panel_reads_a_learned_table_and_a_rope_model() {
        let store = crate::app::models::store::ModelStore::default();
        for name in ["extrap-learned", "demo-decoder", "reverse"] {
            let model = store.get(name).unwrap();
            let mut panel = OwnPanel::default();
            let mut h = egui_kittest::Harness::builder()
                .with_size(egui::vec2(1280.0, 800.0))
                .build_ui(|ui| panel.ui(ui, Ok(&model)));
            h.run_steps(2);
            use egui_kittest::kittest::Queryable;
            h.get_by_label_contains(&format!("{name}: "));
        }
    }
}
