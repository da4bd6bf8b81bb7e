//! The embedding layer: token rows, absolute positions, token types, and an optional norm.

use super::Model;
use crate::model::config::Positional;
use crate::model::layers::{layer_norm, NormTrace};
use crate::model::position;
use ndarray::{Array2, Axis};

/// The embedding layer's result and its parts.
pub(crate) struct Embedded {
    /// The first block's input.
    pub x: Array2<f32>,
    pub positional: Option<Array2<f32>>,
    pub token_types: Option<Array2<f32>>,
    pub norm: Option<NormTrace>,
}

impl Model {
    /// The first block's input for rows at `positions`: token embeddings plus absolute
    /// positional encodings (plus token-type rows, then a LayerNorm, where the model has them).
    pub(crate) fn embed(&self, ids: &[u32], types: &[u32], positions: &[usize]) -> Embedded {
        let d = self.config.d_model;
        let mut x = Array2::zeros((ids.len(), d));
        for (row, &id) in x.rows_mut().into_iter().zip(ids) {
            self.weights.tok_embed.row_into(id as usize, row);
        }
        let positional = match (self.config.positional, &self.weights.pos_embed) {
            (Positional::Sinusoidal { base }, _) => Some(position::sinusoidal(positions, d, base)),
            (Positional::Learned, Some(table)) => Some(table.select(Axis(0), positions)),
            _ => None,
        };
        if let Some(p) = &positional {
            x += p;
        }
        let token_types = self.weights.type_embed.as_ref().map(|table| {
            let rows: Vec<usize> = (0..ids.len())
                .map(|i| types.get(i).map_or(0, |&t| t as usize))
                .collect();
            table.select(Axis(0), &rows)
        });
        if let Some(t) = &token_types {
            x += t;
        }
        let norm = self
            .weights
            .embed_norm
            .as_ref()
            .map(|ln| layer_norm(x.view(), ln, self.config.ln_eps));
        if let Some(n) = &norm {
            x = n.output.clone();
        }
        Embedded {
            x,
            positional,
            token_types,
            norm,
        }
    }
}
