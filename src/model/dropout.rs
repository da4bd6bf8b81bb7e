//! Dropout for training: inverted dropout whose masks are a pure function of
//! (seed, site, element), so a forward pass with dropout is reproducible, its backward pass
//! reads the very masks it used from the trace, and the PyTorch reference script can rebuild
//! them bit for bit (the formula is in docs/FORMAT.md).

use ndarray::{Array, Dimension, ShapeBuilder};

/// Dropout at rate `rate` (probability of zeroing an element); kept elements are scaled by
/// `1 / (1 − rate)` so the expected value is unchanged. Inference never uses it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dropout {
    pub rate: f32,
    pub seed: u64,
}

/// Which stack a dropout site belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackId {
    Encoder = 0,
    Decoder = 1,
}

/// Where in a stack dropout is applied (the places of "Attention Is All You Need", plus the
/// attention weights as PyTorch's `MultiheadAttention` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Token embedding + absolute positional encoding.
    Embed = 0,
    SelfWeights = 1,
    SelfOutput = 2,
    CrossWeights = 3,
    CrossOutput = 4,
    FfnOutput = 5,
}

/// One place in the network that gets its own independent mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub stack: StackId,
    pub layer: usize,
    pub slot: Slot,
}

impl Site {
    /// `stack · 2³² + layer · 2⁸ + slot`.
    pub fn key(self) -> u64 {
        ((self.stack as u64) << 32) | ((self.layer as u64) << 8) | self.slot as u64
    }
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Dropout {
    pub fn new(rate: f32, seed: u64) -> Self {
        Self { rate, seed }
    }

    /// Whether this dropout changes anything.
    pub fn active(&self) -> bool {
        self.rate > 0.0
    }

    /// Uniform number in [0, 1) for element `index` (row-major) of `site`:
    /// `mix(mix(seed ⊕ mix(key + φ)) + index · φ) >> 40`, divided by 2²⁴.
    pub fn uniform(&self, site: Site, index: u64) -> f32 {
        let site_seed = mix(self.seed ^ mix(site.key().wrapping_add(GOLDEN)));
        let bits = mix(site_seed.wrapping_add(index.wrapping_mul(GOLDEN)));
        (bits >> 40) as f32 / (1u32 << 24) as f32
    }

    /// The multiplier mask of a site: `0` where dropped, `1 / (1 − rate)` where kept.
    pub fn mask<D: Dimension, Sh: ShapeBuilder<Dim = D>>(
        &self,
        site: Site,
        shape: Sh,
    ) -> Array<f32, D> {
        let keep = 1.0 / (1.0 - self.rate);
        let mut m = Array::<f32, D>::zeros(shape);
        for (i, x) in m.iter_mut().enumerate() {
            *x = if self.uniform(site, i as u64) >= self.rate {
                keep
            } else {
                0.0
            };
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    const SITE: Site = Site {
        stack: StackId::Decoder,
        layer: 1,
        slot: Slot::FfnOutput,
    };

    #[test]
    fn drops_about_the_rate_and_keeps_the_mean() {
        let d = Dropout::new(0.3, 9);
        let m: Array2<f32> = d.mask(SITE, (200, 100));
        let dropped = m.iter().filter(|&&x| x == 0.0).count() as f32 / m.len() as f32;
        assert!((dropped - 0.3).abs() < 0.01, "dropped {dropped}");
        assert!((m.mean().unwrap_or(0.0) - 1.0).abs() < 0.02);
        assert!(m.iter().all(|&x| x == 0.0 || (x - 1.0 / 0.7).abs() < 1e-6));
    }

    #[test]
    fn masks_depend_on_seed_and_site_only() {
        let d = Dropout::new(0.5, 4);
        let a: Array2<f32> = d.mask(SITE, (8, 8));
        assert_eq!(a, d.mask(SITE, (8, 8)));
        let other = Site {
            slot: Slot::SelfOutput,
            ..SITE
        };
        assert_ne!(a, d.mask(other, (8, 8)));
        assert_ne!(a, Dropout::new(0.5, 5).mask(SITE, (8, 8)));
    }
}
