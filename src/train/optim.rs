//! AdamW, learning-rate schedules and global-norm gradient clipping.

use crate::model::weights::Weights;
use ndarray::Zip;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdamWConfig {
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    /// Decoupled weight decay, applied to matrices only (not biases or LayerNorm).
    pub weight_decay: f32,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        Self {
            beta1: 0.9,
            beta2: 0.98,
            eps: 1e-9,
            weight_decay: 0.01,
        }
    }
}

/// Adam with decoupled weight decay (Loshchilov & Hutter).
#[derive(Debug, Clone)]
pub struct AdamW {
    pub config: AdamWConfig,
    m: Weights,
    v: Weights,
    /// Steps taken so far.
    pub step: u64,
}

impl AdamW {
    pub fn new(weights: &Weights, config: AdamWConfig) -> Self {
        Self {
            config,
            m: weights.zeros_like(),
            v: weights.zeros_like(),
            step: 0,
        }
    }

    /// One update of `weights` with `grads` at learning rate `lr`.
    pub fn update(&mut self, weights: &mut Weights, grads: &Weights, lr: f32) {
        self.step += 1;
        let AdamWConfig {
            beta1,
            beta2,
            eps,
            weight_decay,
        } = self.config;
        let t = self.step as i32;
        let (c1, c2) = (1.0 - beta1.powi(t), 1.0 - beta2.powi(t));
        let grads = grads.params();
        let m = self.m.params_mut();
        let v = self.v.params_mut();
        let p = weights.params_mut();
        for ((((_, g), (_, m)), (_, v)), (_, p)) in grads.into_iter().zip(m).zip(v).zip(p) {
            let decay = if p.ndim() >= 2 { weight_decay } else { 0.0 };
            Zip::from(p).and(&g).and(m).and(v).for_each(|p, &g, m, v| {
                *m = beta1 * *m + (1.0 - beta1) * g;
                *v = beta2 * *v + (1.0 - beta2) * g * g;
                let m_hat = *m / c1;
                let v_hat = *v / c2;
                *p -= lr * (m_hat / (v_hat.sqrt() + eps) + decay * *p);
            });
        }
    }
}

/// Learning-rate schedules, by step (counted from 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// The original transformer's: `scale · d^−0.5 · min(s^−0.5, s · w^−1.5)`.
    Noam {
        d_model: usize,
        warmup: u64,
        scale: f32,
    },
    /// Linear warmup to `peak` over `warmup` steps, then cosine decay to `floor` at `total`.
    WarmupCosine {
        peak: f32,
        floor: f32,
        warmup: u64,
        total: u64,
    },
    Constant {
        lr: f32,
    },
}

/// The schedules by name, as links and the training lab write them.
pub const SCHEDULE_NAMES: [&str; 3] = ["cosine", "noam", "constant"];

impl Schedule {
    pub fn lr(&self, step: u64) -> f32 {
        let s = step.max(1) as f64;
        match *self {
            Schedule::Noam {
                d_model,
                warmup,
                scale,
            } => {
                let w = warmup.max(1) as f64;
                (scale as f64 * (d_model as f64).powf(-0.5) * s.powf(-0.5).min(s * w.powf(-1.5)))
                    as f32
            }
            Schedule::WarmupCosine {
                peak,
                floor,
                warmup,
                total,
            } => {
                if step <= warmup {
                    return peak * s as f32 / warmup.max(1) as f32;
                }
                let progress =
                    ((s - warmup as f64) / (total.saturating_sub(warmup).max(1)) as f64).min(1.0);
                let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
                (floor as f64 + (peak - floor) as f64 * cosine) as f32
            }
            Schedule::Constant { lr } => lr,
        }
    }

    /// Its kind's name, one of [`SCHEDULE_NAMES`].
    pub fn name(&self) -> &'static str {
        match self {
            Schedule::WarmupCosine { .. } => "cosine",
            Schedule::Noam { .. } => "noam",
            Schedule::Constant { .. } => "constant",
        }
    }

    /// Steps of warmup (0 for the constant rate).
    pub fn warmup(&self) -> u64 {
        match *self {
            Schedule::WarmupCosine { warmup, .. } | Schedule::Noam { warmup, .. } => warmup,
            Schedule::Constant { .. } => 0,
        }
    }

    /// The largest rate it reaches: at the end of warmup (Noam at s = max(w, 1)).
    pub fn peak(&self) -> f32 {
        match *self {
            Schedule::WarmupCosine { peak, .. } => peak,
            Schedule::Noam { warmup, .. } => self.lr(warmup.max(1)),
            Schedule::Constant { lr } => lr,
        }
    }

    /// A schedule of the kind `name` that rises (linearly) to `peak` over `warmup` steps:
    /// cosine decay to `peak`/30 at `total`; Noam's inverse square root, its scale set so that
    /// lr(w) = scale · d^−0.5 · w^−0.5 = `peak`; or `peak` from the first step.
    pub fn shaped(name: &str, peak: f32, warmup: u64, d_model: usize, total: u64) -> Option<Self> {
        Some(match name {
            "cosine" => Schedule::WarmupCosine {
                peak,
                floor: peak / 30.0,
                warmup,
                total,
            },
            "noam" => Schedule::Noam {
                d_model,
                warmup,
                scale: peak * ((d_model * warmup.max(1) as usize) as f32).sqrt(),
            },
            "constant" => Schedule::Constant { lr: peak },
            _ => return None,
        })
    }
}

/// Scale all gradients so their global L2 norm is at most `max_norm`; returns the norm before.
pub fn clip_global_norm(grads: &mut Weights, max_norm: f32) -> f32 {
    let mut sum = 0.0f64;
    grads.visit(&mut |_, g| sum += g.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>());
    let norm = sum.sqrt() as f32;
    if norm > max_norm && norm > 0.0 {
        let scale = max_norm / norm;
        grads.visit_mut(&mut |_, mut g| g *= scale);
    }
    norm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin;

    #[test]
    fn noam_peaks_at_warmup() {
        let s = Schedule::Noam {
            d_model: 512,
            warmup: 4000,
            scale: 1.0,
        };
        let peak = s.lr(4000);
        assert!((peak - (512f32.powf(-0.5) * 4000f32.powf(-0.5))).abs() < 1e-9);
        assert!(s.lr(2000) < peak && s.lr(8000) < peak);
        // Linear before the peak, inverse square root after it.
        assert!((s.lr(2000) * 2.0 - peak).abs() < 1e-8);
        assert!((s.lr(16000) * 2.0 - peak).abs() < 1e-8);
    }

    #[test]
    fn shaped_schedules_peak_where_asked() {
        for name in SCHEDULE_NAMES {
            for warmup in [0, 1, 200] {
                let s = Schedule::shaped(name, 3e-3, warmup, 64, 3000).unwrap();
                assert_eq!(s.name(), name);
                let peak = s.peak();
                assert!((peak - 3e-3).abs() < 1e-7, "{name} w={warmup}: {peak}");
                // Nothing exceeds the peak, and with warmup the first step is far below it.
                let top = (1..=3000).map(|t| s.lr(t)).fold(0.0f32, f32::max);
                assert!(top <= peak * (1.0 + 1e-5), "{name} w={warmup}: {top}");
                if name != "constant" && warmup == 200 {
                    assert!(s.lr(1) < peak / 100.0, "{name}: {}", s.lr(1));
                }
            }
        }
        assert!(Schedule::shaped("linear", 1e-3, 0, 64, 10).is_none());
    }

    #[test]
    fn warmup_cosine_ends_at_the_floor() {
        let s = Schedule::WarmupCosine {
            peak: 1e-3,
            floor: 1e-5,
            warmup: 10,
            total: 110,
        };
        assert!((s.lr(5) - 5e-4).abs() < 1e-9);
        assert!((s.lr(10) - 1e-3).abs() < 1e-9);
        assert!((s.lr(60) - (1e-5 + (1e-3 - 1e-5) * 0.5)).abs() < 1e-8);
        assert!((s.lr(110) - 1e-5).abs() < 1e-9);
        assert!((s.lr(500) - 1e-5).abs() < 1e-9);
    }

    #[test]
    fn clipping_caps_the_global_norm() {
        let m = builtin::load("demo-encoder").unwrap();
        let mut g = m.weights.zeros_like();
        g.visit_mut(&mut |_, mut a| a.fill(1.0));
        let n = g.len() as f32;
        let before = clip_global_norm(&mut g, 1.0);
        assert!((before - n.sqrt()).abs() / n.sqrt() < 1e-5);
        let mut after = 0.0;
        g.visit(&mut |_, a| after += a.iter().map(|x| x * x).sum::<f32>());
        assert!((after.sqrt() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn first_adam_step_moves_each_weight_by_lr_times_sign() {
        // With bias correction, step 1 is lr · g/(|g| + eps): a signed step of size lr.
        let m = builtin::load("demo-encoder").unwrap();
        let mut w = m.weights.clone();
        let mut g = w.zeros_like();
        g.visit_mut(&mut |_, mut a| a.fill(-2.0));
        let mut opt = AdamW::new(
            &w,
            AdamWConfig {
                weight_decay: 0.0,
                ..Default::default()
            },
        );
        opt.update(&mut w, &g, 0.01);
        let before = m.weights.params();
        for ((name, a), (_, b)) in w.params().into_iter().zip(before) {
            for (x, y) in a.iter().zip(b.iter()) {
                assert!((x - y - 0.01).abs() < 1e-6, "{name}");
            }
        }
    }
}
