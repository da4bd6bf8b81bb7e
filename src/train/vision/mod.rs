//! A small Vision Transformer (ViT, Dosovitskiy et al. 2020), trained from scratch in the app.
//!
//! What a ViT does with an image:
//! 1. cut it into a grid of P×P **patches** (a 16×16 image with P = 4 gives 4×4 = 16 patches);
//! 2. **flatten** each patch into a vector of P²·C pixel values (C colour channels);
//! 3. **embed** each vector linearly, `e_i = x_i W_E + b_E`, so every patch becomes a token;
//! 4. **prepend a learned class token** `[CLS]`, which sees no pixels of its own;
//! 5. **add learned positions**, one vector per slot, since attention alone ignores order;
//! 6. run **encoder blocks** (pre-norm multi-head self-attention and a feed-forward network,
//!    each with a residual), in which every token attends to every other, no mask;
//! 7. **classify** from the class token's final vector: `logits = LN(h_CLS) W_H + b_H`.
//!
//! The class token's attention row (row 0 of each head's matrix) shows which patches the model
//! gathered its answer from; the app draws it on the patch grid.
//!
//! Modules: [`images`] makes the procedurally generated tasks, [`config`] and [`weights`] hold
//! the model's shape and parameters, [`vit`] the forward pass and its trace, [`backward`] the
//! hand-written gradients and [`train`] AdamW and the step-able [`VisionTrainer`].
//!
//! This module holds the patch arithmetic for any image size and `sample_hard`, the
//! "hard attention" counterpart of the soft weights.

pub mod backward;
pub mod cnn_attention;
pub mod config;
pub mod images;
pub mod train;
pub mod vit;
pub mod weights;

pub use backward::{gradients, Gradients};
pub use cnn_attention::{CnnAttention, CnnTrace, CnnWeights};
pub use config::VitConfig;
pub use images::{example, examples, from_cells, Split, VisionTask, IMAGE_SIDE};
pub use train::{TrainSettings, VisionTrainer};
pub use vit::{PatchWeights, Vit, VitTrace};
pub use weights::VitWeights;

use ndarray::{Array2, ArrayView2};

/// How an H×W×C image splits into P×P patches. Rows and columns that do not fill a whole
/// patch are dropped (`leftover_rows`/`leftover_cols` say how many), as a ViT's patch
/// embedding does. Built only by `new`, so its numbers always agree with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchGrid {
    height: usize,
    width: usize,
    channels: usize,
    patch: usize,
    across: usize,
    down: usize,
}

impl PatchGrid {
    /// The grid for an image of `height`×`width` pixels with `channels` channels and P×P
    /// patches. Refuses zero sizes and a patch larger than the image.
    pub fn new(height: usize, width: usize, channels: usize, patch: usize) -> Result<Self, String> {
        if height == 0 || width == 0 || channels == 0 || patch == 0 {
            return Err(format!(
                "sizes must be positive (height {height}, width {width}, channels {channels}, \
                 patch {patch})"
            ));
        }
        if patch > height || patch > width {
            return Err(format!(
                "a {patch}×{patch} patch does not fit in a {height}×{width} image"
            ));
        }
        Ok(Self {
            height,
            width,
            channels,
            patch,
            across: width / patch,
            down: height / patch,
        })
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Patch side P.
    pub fn patch(&self) -> usize {
        self.patch
    }

    /// Patches side by side in one row of the grid: ⌊W / P⌋.
    pub fn across(&self) -> usize {
        self.across
    }

    /// Rows of patches: ⌊H / P⌋.
    pub fn down(&self) -> usize {
        self.down
    }

    /// Pixel rows at the bottom that no patch covers: H mod P.
    pub fn leftover_rows(&self) -> usize {
        self.height % self.patch
    }

    /// Pixel columns at the right that no patch covers: W mod P.
    pub fn leftover_cols(&self) -> usize {
        self.width % self.patch
    }

    /// Number of patches N = ⌊H/P⌋·⌊W/P⌋.
    pub fn patches(&self) -> usize {
        self.across * self.down
    }

    /// Tokens the encoder sees: N patches + 1 class token.
    pub fn tokens(&self) -> usize {
        self.patches() + 1
    }

    /// Length of one flattened patch: P²·C.
    pub fn vector_len(&self) -> usize {
        self.patch * self.patch * self.channels
    }

    /// Pixels that no patch covers (the dropped bottom rows and right columns), per channel.
    pub fn leftover_pixels(&self) -> usize {
        self.height * self.width - self.patches() * self.patch * self.patch
    }

    /// A sentence for the app: "14×14 = 196 patches, 197 tokens, 768 numbers each".
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}×{} = {} patches, {} tokens, {} numbers each",
            self.down,
            self.across,
            self.patches(),
            self.tokens(),
            self.vector_len()
        );
        if self.leftover_rows() > 0 || self.leftover_cols() > 0 {
            s.push_str(&format!(
                "; {} row(s) and {} column(s) of pixels are dropped",
                self.leftover_rows(),
                self.leftover_cols()
            ));
        }
        s
    }

    /// The patch (row-major index) that covers pixel (row, col), or None if it was dropped.
    pub fn patch_of(&self, row: usize, col: usize) -> Option<usize> {
        let (r, c) = (row / self.patch, col / self.patch);
        (r < self.down && c < self.across).then_some(r * self.across + c)
    }

    /// The flattened patches of a one-channel image, one row per patch in row-major grid
    /// order; inside a patch the pixels are read row by row. Shape N × P².
    pub fn extract(&self, image: ArrayView2<f32>) -> Result<Array2<f32>, String> {
        if self.channels != 1 {
            return Err(format!(
                "extract reads one-channel images; this grid has {} channels",
                self.channels
            ));
        }
        if image.dim() != (self.height, self.width) {
            return Err(format!(
                "the image is {}×{}, the grid expects {}×{}",
                image.nrows(),
                image.ncols(),
                self.height,
                self.width
            ));
        }
        let p = self.patch;
        let mut out = Array2::zeros((self.patches(), p * p));
        for ((i, j), v) in out.indexed_iter_mut() {
            // Patch i sits at grid cell (i / across, i % across); pixel j at (j / P, j % P).
            let row = (i / self.across) * p + j / p;
            let col = (i % self.across) * p + j % p;
            *v = image[(row, col)];
        }
        Ok(out)
    }
}

/// Hard attention: instead of averaging every value with the softmax weights, pick ONE
/// position, drawn with probability equal to its weight. With u uniform in [0, 1) this is the
/// inverse CDF: the first i with w₀ + … + wᵢ > u · Σw. Weights need not sum to 1.
/// None for an empty list, a negative or non-finite weight, or weights that are all zero.
pub fn sample_hard(weights: &[f32], u: f64) -> Option<usize> {
    if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
        return None;
    }
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    if total <= 0.0 || !u.is_finite() {
        return None;
    }
    let target = u.clamp(0.0, 1.0) * total;
    let mut cumulative = 0.0;
    for (i, &w) in weights.iter().enumerate() {
        cumulative += f64::from(w);
        if cumulative > target {
            return Some(i);
        }
    }
    // Rounding (or u = 1): the last position that carries any weight.
    weights.iter().rposition(|&w| w > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vit_base_numbers_from_the_notes() {
        // ViT-B/16 on ImageNet: 224×224×3, P = 16.
        let g = PatchGrid::new(224, 224, 3, 16).unwrap();
        assert_eq!((g.down(), g.across()), (14, 14));
        assert_eq!(g.patches(), 196);
        assert_eq!(g.tokens(), 197);
        assert_eq!(g.vector_len(), 768);
        assert_eq!(g.leftover_pixels(), 0);
        assert_eq!(
            g.describe(),
            "14×14 = 196 patches, 197 tokens, 768 numbers each"
        );
    }

    #[test]
    fn non_dividing_patch_drops_the_remainder() {
        // 30×20 with P = 8: 3 rows × 2 columns of patches; 6 rows and 4 columns dropped.
        let g = PatchGrid::new(30, 20, 1, 8).unwrap();
        assert_eq!(
            (g.down(), g.across(), g.patches(), g.tokens()),
            (3, 2, 6, 7)
        );
        assert_eq!((g.leftover_rows(), g.leftover_cols()), (6, 4));
        assert_eq!(g.leftover_pixels(), 30 * 20 - 6 * 64);
        assert!(g.describe().contains("6 row(s) and 4 column(s)"));
        assert_eq!(g.patch_of(29, 0), None);
        assert_eq!(g.patch_of(23, 15), Some(5));
    }

    #[test]
    fn bad_grids_are_refused() {
        assert!(PatchGrid::new(0, 16, 1, 4)
            .unwrap_err()
            .contains("positive"));
        assert!(PatchGrid::new(16, 16, 1, 0)
            .unwrap_err()
            .contains("positive"));
        assert!(PatchGrid::new(16, 8, 1, 9)
            .unwrap_err()
            .contains("does not fit"));
    }

    #[test]
    fn extract_reads_patches_row_major() {
        let g = PatchGrid::new(4, 4, 1, 2).unwrap();
        let image = Array2::from_shape_fn((4, 4), |(r, c)| (r * 4 + c) as f32);
        let p = g.extract(image.view()).unwrap();
        assert_eq!(p.dim(), (4, 4));
        assert_eq!(p.row(0).to_vec(), vec![0.0, 1.0, 4.0, 5.0]);
        assert_eq!(p.row(1).to_vec(), vec![2.0, 3.0, 6.0, 7.0]);
        assert_eq!(p.row(3).to_vec(), vec![10.0, 11.0, 14.0, 15.0]);
        assert!(g.extract(Array2::zeros((3, 4)).view()).is_err());
    }

    #[test]
    fn hard_attention_is_the_inverse_cdf() {
        let w = [0.1, 0.3, 0.6];
        assert_eq!(sample_hard(&w, 0.05), Some(0));
        assert_eq!(sample_hard(&w, 0.35), Some(1));
        assert_eq!(sample_hard(&w, 0.95), Some(2));
        assert_eq!(sample_hard(&w, 0.0), Some(0));
        assert_eq!(sample_hard(&w, 1.0), Some(2));
        // Unnormalised weights: [1, 3] → boundary at u = 0.25.
        assert_eq!(sample_hard(&[1.0, 3.0], 0.24), Some(0));
        assert_eq!(sample_hard(&[1.0, 3.0], 0.26), Some(1));
        // A zero-weight position is never picked.
        assert_eq!(sample_hard(&[0.5, 0.0, 0.5], 0.5), Some(2));
        assert_eq!(sample_hard(&[], 0.5), None);
        assert_eq!(sample_hard(&[0.5, f32::NAN], 0.5), None);
        assert_eq!(sample_hard(&[0.0, 0.0], 0.5), None);
        assert_eq!(sample_hard(&[-0.1, 1.1], 0.5), None);
    }

    #[test]
    fn hard_attention_frequencies_match_the_weights() {
        let w = [0.2f32, 0.5, 0.3];
        let mut rng = crate::util::rng::Rng::new(3);
        let mut counts = [0usize; 3];
        let n = 20_000;
        for _ in 0..n {
            if let Some(i) = sample_hard(&w, rng.uniform()) {
                counts[i] += 1;
            }
        }
        for (c, w) in counts.iter().zip(w) {
            assert!((*c as f32 / n as f32 - w).abs() < 0.015, "{counts:?}");
        }
    }
}
