//! Depth: what stacking blocks does to the residual stream and to the gradients, for the two
//! places a block can put its LayerNorm. Post-norm, `x ← LN(x + F(x))`, renormalises the
//! stream after every sub-layer; pre-norm, `x ← x + F(LN(x))`, only normalises what each
//! sub-layer reads, so the stream is a running sum that grows with depth while the gradient
//! keeps an identity path to every layer. Every residual connection lets a path take its
//! sub-layer or skip it: N blocks of two sub-layers give 2^(2N) paths.

use super::backward::example_gradients;
use super::tasks::{Split, TaskKind};
use super::trainer::{make_example, TrainConfig};
use crate::model::config::NormPlacement;
use crate::model::trace::StackTrace;
use crate::model::{ForwardOptions, Model, Result};
use crate::util::rng::Rng;

/// The task the depth probe runs: a decoder-only model, one stack.
pub const TASK: TaskKind = TaskKind::Repeat;
/// Examples whose gradients are averaged.
const BATCH: usize = 8;

/// 2^(2N): at each of the 2N residual connections a path goes through the sub-layer or around.
pub fn residual_paths(layers: u32) -> f64 {
    2f64.powi(2 * layers as i32)
}

/// ‖x‖₂ of the residual stream, averaged over tokens: entering each block, then leaving the
/// last one (before any final norm).
pub fn stream_norms(stack: &StackTrace) -> Vec<f32> {
    let mean_norm = |x: &ndarray::Array2<f32>| {
        let rows = x.nrows().max(1) as f32;
        x.rows()
            .into_iter()
            .map(|r| r.iter().map(|v| v * v).sum::<f32>().sqrt())
            .sum::<f32>()
            / rows
    };
    let mut norms: Vec<f32> = stack.blocks.iter().map(|b| mean_norm(&b.input)).collect();
    if let Some(last) = stack.blocks.last() {
        norms.push(mean_norm(last.output()));
    }
    norms
}

/// A fresh, untrained model's stream and gradients, by block.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DepthProbe {
    pub norm: NormPlacement,
    /// [`stream_norms`] of the first example.
    pub stream: Vec<f32>,
    /// Per block, the L2 norm of the mean per-token loss gradient over all its parameters.
    pub gradients: Vec<f32>,
}

/// The probe of a randomly initialised `layers`-block model of the repeat task, with the given
/// norm placement and seed (the same examples for both placements).
pub fn at_init(layers: usize, norm: NormPlacement, seed: u64) -> Result<DepthProbe> {
    let mut config = TrainConfig::for_task(TASK);
    config.n_layers = layers;
    config.norm = norm;
    config.seed = seed;
    config.check()?;
    let model = Model::random(config.model_config("depth"), seed)?;
    let mut grads = model.weights.zeros_like();
    let mut rng = Rng::new(seed ^ 0xde97);
    let mut tokens = 0;
    let mut stream = Vec::new();
    for i in 0..BATCH {
        let pair = TASK.sample(&mut rng, Split::Train);
        let ex = make_example(TASK, &model.tokenizer, &pair);
        if i == 0 {
            let trace = model.forward(&ex.input, &ForwardOptions::default())?;
            stream = trace.decoder.as_ref().map(stream_norms).unwrap_or_default();
        }
        tokens += example_gradients(&model, &ex, 0.0, None, &mut grads)?.1;
    }
    // Sum of squares per block (parameters are named `dec.{layer}.…`), of the mean gradient.
    let scale = 1.0 / tokens.max(1) as f32;
    let mut squares = vec![0.0f64; layers];
    grads.visit(&mut |name, g| {
        let layer = name
            .strip_prefix("dec.")
            .and_then(|rest| rest.split('.').next())
            .and_then(|l| l.parse::<usize>().ok());
        if let Some(l) = layer.filter(|&l| l < layers) {
            squares[l] += g.iter().map(|v| f64::from(v * scale).powi(2)).sum::<f64>();
        }
    });
    Ok(DepthProbe {
        norm,
        stream,
        gradients: squares.iter().map(|s| s.sqrt() as f32).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notes' count: 6 encoder blocks of 2 sub-layers, 2¹² = 4096 paths.
    #[test]
    fn six_layers_have_4096_residual_paths() {
        assert_eq!(residual_paths(6), 4096.0);
        assert_eq!(residual_paths(1), 4.0);
    }

    /// Post-norm: every block's output is a LayerNorm's output with γ = 1 and β = 0 at
    /// initialisation, so its rows have norm exactly √d (the closed form); pre-norm: the stream
    /// is a running sum and grows with depth.
    #[test]
    fn the_stream_is_renormalised_post_norm_and_grows_pre_norm() {
        let post = at_init(12, NormPlacement::Post, 1).unwrap();
        let d = TrainConfig::for_task(TASK).d_model as f32;
        for &n in &post.stream[1..] {
            assert!((n - d.sqrt()).abs() < 1e-3 * d.sqrt(), "{n} vs √{d}");
        }
        let pre = at_init(12, NormPlacement::Pre, 1).unwrap();
        assert_eq!(pre.stream.len(), 13);
        assert!(pre.stream[12] > 2.0 * pre.stream[0], "{:?}", pre.stream);
        assert!(pre.stream.windows(2).filter(|w| w[1] > w[0]).count() >= 10);
    }

    /// At initialisation post-norm's gradient is largest at the block nearest the output (it
    /// grows over the top blocks), while pre-norm's falls from the first block to the last.
    #[test]
    fn gradient_norms_by_block_at_initialisation() {
        let pre = at_init(12, NormPlacement::Pre, 1).unwrap();
        let post = at_init(12, NormPlacement::Post, 1).unwrap();
        assert!(pre
            .gradients
            .iter()
            .chain(&post.gradients)
            .all(|g| g.is_finite() && *g > 0.0));
        let top = crate::util::argmax(post.gradients.iter().copied())
            .unwrap()
            .0;
        assert_eq!(top, 11, "{:?}", post.gradients);
        assert!(
            post.gradients[6..].windows(2).all(|w| w[1] > w[0]),
            "{:?}",
            post.gradients
        );
        assert!(
            pre.gradients.windows(2).filter(|w| w[1] < w[0]).count() >= 10,
            "{:?}",
            pre.gradients
        );
        assert!(post.gradients[11] > 3.0 * pre.gradients[11]);
    }
}
