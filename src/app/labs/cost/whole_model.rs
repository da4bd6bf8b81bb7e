//! A whole encoder–decoder by the tab's block formulas: the original Transformer's parameter
//! totals (base and big) and what training it holds in memory, beside the notes' own table.
//! Pure counts first (tested below), then the two tables.

use super::maths::{self, grouped, Sizes};
use crate::t;
use egui::Ui;

/// The English–German model's vocabulary: 37,000 byte-pair tokens, one embedding matrix shared
/// by the encoder's input, the decoder's input and the output layer.
pub const SHARED_VOCAB: u128 = 37_000;

/// Parameters of an encoder–decoder of `N` blocks a side, by the textbook formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncoderDecoder {
    /// V·D, shared three ways.
    pub embeddings: u128,
    /// N encoder blocks: self-attention, feed-forward, two norms.
    pub encoder: u128,
    /// N decoder blocks: the same plus cross-attention (4·D² + 4·D) and a third norm (2·D).
    pub decoder: u128,
}

impl EncoderDecoder {
    pub fn total(&self) -> u128 {
        self.embeddings + self.encoder + self.decoder
    }
}

/// `Sizes`' D, d_ff and N (heads add no parameters), with a vocabulary of `vocab`.
pub fn encoder_decoder(s: &Sizes, vocab: u128) -> EncoderDecoder {
    let block = maths::block_params(s);
    let (d, n) = (s.d as u128, s.layers as u128);
    let cross = block.attention + block.attention_bias + 2 * d;
    EncoderDecoder {
        embeddings: vocab * d,
        encoder: n * block.total(),
        decoder: n * (block.total() + cross),
    }
}

/// The paper's two models: (name, sizes, the parameters it reports).
pub fn original_models() -> [(&'static str, Sizes, u128); 2] {
    let base = Sizes::default();
    let big = Sizes {
        d: 1024,
        d_ff: 4096,
        heads: 16,
        ..base
    };
    [("base", base, 65_000_000), ("big", big, 213_000_000)]
}

/// Bytes a training step holds, by the notes' formulas (f32: 4 bytes a number).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingMemory {
    /// B·N·h·L²·4: one stack of N layers, one matrix a head.
    pub attention: u128,
    /// B·3N·h·L²·4: every attention layer of the encoder–decoder (N encoder self-attention,
    /// N decoder self-attention, N cross-attention).
    pub attention_all: u128,
    /// B·N·L·D·4: one L × D tensor a layer.
    pub activations: u128,
    /// P·4.
    pub parameters: u128,
    /// P·4 again.
    pub gradients: u128,
    /// Adam's two moments: 2·P·4.
    pub optimizer: u128,
}

impl TrainingMemory {
    /// The notes' total: their five rows (one stack's attention).
    pub fn total(&self) -> u128 {
        self.attention + self.activations + self.parameters + self.gradients + self.optimizer
    }
}

pub fn training_memory(s: &Sizes) -> TrainingMemory {
    let (b, n, h, l, d) = (
        s.batch as u128,
        s.layers as u128,
        s.heads as u128,
        s.l as u128,
        s.d as u128,
    );
    let params = encoder_decoder(s, SHARED_VOCAB).total();
    TrainingMemory {
        attention: b * n * h * l * l * 4,
        attention_all: b * 3 * n * h * l * l * 4,
        activations: b * n * l * d * 4,
        parameters: params * 4,
        gradients: params * 4,
        optimizer: 2 * params * 4,
    }
}

/// The notes' training-memory table (L = 512, B = 32, base model), in GB as they print it.
pub const NOTES_TABLE_GB: [f64; 5] = [4.0, 1.2, 0.25, 0.25, 0.5];
pub const NOTES_TOTAL_GB: f64 = 6.2;

/// Millions, one decimal: "63.1 M".
fn millions(n: u128) -> String {
    format!("{:.1} M", n as f64 / 1e6)
}

/// Gigabytes, two decimals, then GiB: "1.61 GB · 1.50 GiB".
fn gigabytes(bytes: u128) -> String {
    let b = bytes as f64;
    format!("{:.2} GB · {:.2} GiB", b / 1e9, b / (1u64 << 30) as f64)
}

/// One row of the parameter table: its part of a count.
type Part = fn(&EncoderDecoder) -> u128;

/// The original Transformer, base and big, counted by this tab's formulas.
pub fn original_table(ui: &mut Ui) {
    ui.strong(t!("cost-original-heading"));
    let models = original_models();
    let sizes: Vec<String> = models
        .iter()
        .map(|(name, s, _)| {
            t!(
                "cost-original-model",
                name = *name,
                d = s.d,
                ff = s.d_ff,
                heads = s.heads
            )
        })
        .collect();
    crate::app::widgets::math_text::weak(ui, &sizes.join(" · "));
    let counts = models.map(|(_, s, _)| encoder_decoder(&s, SHARED_VOCAB));
    egui::Grid::new("cost_original")
        .striped(true)
        .show(ui, |ui| {
            ui.strong(t!("cost-header-part"));
            ui.strong(t!("cost-header-formula"));
            for (name, _, _) in &models {
                ui.strong(*name);
            }
            ui.end_row();
            let rows: [(String, &str, Part); 4] = [
                (t!("cost-part-embeddings"), "V·D", |c| c.embeddings),
                (t!("cost-original-encoder"), "N·(block)", |c| c.encoder),
                (
                    t!("cost-original-decoder"),
                    "N·(block + 4·D² + 6·D)",
                    |c| c.decoder,
                ),
                (t!("cost-original-total"), "", EncoderDecoder::total),
            ];
            for (name, formula, part) in rows {
                ui.label(name);
                ui.monospace(formula);
                for c in &counts {
                    ui.monospace(grouped(part(c)));
                }
                ui.end_row();
            }
            ui.label(t!("cost-original-reported"));
            ui.label("");
            for (_, _, reported) in &models {
                ui.monospace(millions(*reported));
            }
            ui.end_row();
        });
    ui.label(t!(
        "cost-original-notes",
        vocab = grouped(SHARED_VOCAB),
        base = millions(counts[0].total()),
        big = millions(counts[1].total()),
        encoder = millions(counts[0].encoder),
        decoder = millions(counts[0].decoder),
        embeddings = millions(counts[0].embeddings)
    ));
}

/// A training step's memory at the sliders, beside the notes' table.
pub fn training_table(ui: &mut Ui, s: &Sizes) {
    let m = training_memory(s);
    ui.strong(t!(
        "cost-training-heading",
        l = s.l,
        batch = s.batch,
        layers = s.layers,
        heads = s.heads
    ));
    let notes = |i: usize| format!("{:.2} GB", NOTES_TABLE_GB[i]);
    let rows = [
        (
            t!("cost-training-attention"),
            "B·N·h·L²·4",
            m.attention,
            notes(0),
        ),
        (
            t!("cost-training-attention-all"),
            "B·3N·h·L²·4",
            m.attention_all,
            String::new(),
        ),
        (
            t!("cost-training-activations"),
            "B·N·L·D·4",
            m.activations,
            notes(1),
        ),
        (
            t!("cost-training-parameters"),
            "P·4",
            m.parameters,
            notes(2),
        ),
        (t!("cost-training-gradients"), "P·4", m.gradients, notes(3)),
        (
            t!("cost-training-optimizer"),
            "2·P·4",
            m.optimizer,
            notes(4),
        ),
        (
            t!("cost-original-total"),
            "",
            m.total(),
            format!("{NOTES_TOTAL_GB:.1} GB"),
        ),
    ];
    egui::Grid::new("cost_training")
        .striped(true)
        .show(ui, |ui| {
            ui.strong(t!("cost-header-part"));
            ui.strong(t!("cost-header-formula"));
            ui.strong(t!("cost-training-here"));
            ui.strong(t!("cost-training-notes"));
            ui.end_row();
            for (name, formula, bytes, notes) in rows {
                ui.label(name);
                ui.monospace(formula);
                ui.monospace(gigabytes(bytes));
                ui.monospace(notes);
                ui.end_row();
            }
        });
    crate::app::widgets::math_text::label(
        ui,
        &t!(
            "cost-training-why",
            params = millions(encoder_decoder(s, SHARED_VOCAB).total())
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Base ≈ 65M and big ≈ 213M from the block formula with the shared 37,000-token
    /// vocabulary, counted by hand: an encoder block holds 3,152,384 parameters at D = 512,
    /// d_ff = 2048; a decoder block 4,204,032.
    #[test]
    fn the_original_transformer_is_about_65m_and_213m() {
        let [(_, base, reported_base), (_, big, reported_big)] = original_models();
        let b = encoder_decoder(&base, SHARED_VOCAB);
        assert_eq!(b.encoder, 6 * 3_152_384);
        assert_eq!(b.decoder, 6 * 4_204_032);
        assert_eq!(b.embeddings, 18_944_000);
        assert_eq!(b.total(), 63_082_496);
        let g = encoder_decoder(&big, SHARED_VOCAB).total();
        assert_eq!(g, 214_245_376);
        // Within 3 % of the paper's figures (it does not say how it counted).
        for (counted, reported) in [(b.total(), reported_base), (g, reported_big)] {
            let off = (counted as f64 / reported as f64 - 1.0).abs();
            assert!(off < 0.03, "{counted} against {reported}");
        }
    }

    /// The notes' table at L = 512, B = 32 (base, N = 6, h = 8): parameters, gradients and
    /// Adam agree with their formulas; attention and activations do not.
    #[test]
    fn the_training_memory_table_against_the_notes() {
        let s = Sizes {
            l: 512,
            batch: 32,
            ..Sizes::default()
        };
        let m = training_memory(&s);
        let gb = |b: u128| b as f64 / 1e9;
        assert_eq!(m.attention, 32 * 6 * 8 * 512 * 512 * 4);
        assert!((gb(m.attention) - 1.61).abs() < 0.005);
        assert!((gb(m.attention_all) - 4.83).abs() < 0.005);
        assert!((gb(m.activations) - 0.20).abs() < 0.005);
        assert!((gb(m.parameters) - 0.25).abs() < 0.005);
        assert_eq!(m.gradients, m.parameters);
        assert!((gb(m.optimizer) - 0.50).abs() < 0.01);
        // Where they disagree, by how much: 4.0 / 1.61 ≈ 2.5, 1.2 / 0.20 = 6.
        assert!((NOTES_TABLE_GB[0] / gb(m.attention) - 2.48).abs() < 0.01);
        assert!((NOTES_TABLE_GB[1] / gb(m.activations) - 5.96).abs() < 0.01);
        // Their total is the sum of their rows.
        assert!((NOTES_TABLE_GB.iter().sum::<f64>() - NOTES_TOTAL_GB).abs() < 1e-9);
    }
}
