//! Headless subcommands. Each prints machine-readable JSON with `--json` (the same structs
//! the app exports); errors go to stderr with a non-zero exit.

pub mod beam;
pub mod checkpoints;
mod compare;
pub mod generate;
mod heads;
mod pe_table;
pub mod train;
pub mod train_lm;

use crate::model::checkpoint;
use crate::model::{builtin, position, ForwardOptions, Model, ModelError, Trace};
use clap::{Parser, Subcommand, ValueEnum};
use ndarray::Array2;
use serde::Serialize;
use serde_json::json;

#[derive(Debug, Parser)]
#[command(
    name = "glimpse",
    version,
    about = "An interactive explorer of attention and transformers.\nWith no subcommand, opens the desktop app."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open the desktop app on the view a shared link (or just its `#…` hash) describes.
    #[arg(long, value_name = "LINK_OR_HASH")]
    pub open: Option<String>,
    /// Open the desktop app on a checkpoint: a Hugging Face folder (config.json, *.safetensors,
    /// tokenizer.json) or a .gguf file.
    #[arg(long, value_name = "PATH")]
    pub model: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Time one forward pass of every shipped model (and the larger d512 configuration):
    /// the native side of `web/bench_forward.mjs`.
    BenchForward {
        /// Skip the larger configuration (a few seconds).
        #[arg(long)]
        no_large: bool,
        /// Time this model instead (a built-in name, a Hugging Face folder or a .gguf file).
        #[arg(long)]
        model: Option<String>,
        /// Input length for --model.
        #[arg(long, default_value_t = 128)]
        tokens: usize,
        /// Timed runs for --model (the median is reported).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Threads for the forward pass (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Print JSON (the default; accepted so scripts can say so).
        #[arg(long)]
        json: bool,
    },
    /// Time the traced forward pass on the CPU and on the GPU (feature `webgpu`) across model
    /// sizes and input lengths; prints JSON with the adapter and each case's speed-up.
    BenchGpu {
        /// The largest model to time (d_model 64, 256 or 512).
        #[arg(long, default_value_t = 512)]
        max_d_model: usize,
        /// The longest input to time (16, 64, 256, 512 or 1024 tokens).
        #[arg(long, default_value_t = 1024)]
        max_tokens: usize,
        /// Timed runs per case (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Time this model instead (a built-in name, a Hugging Face folder or a .gguf file)
        /// on `--tokens` tokens of English.
        #[arg(long)]
        model: Option<String>,
        /// The input length with `--model`.
        #[arg(long, default_value_t = 64)]
        tokens: usize,
    },
    /// List the built-in models.
    Models {
        #[arg(long)]
        json: bool,
    },
    /// Describe a real checkpoint: architecture, sizes, parameters, tokenizer, special tokens
    /// and memory.
    Inspect {
        /// A Hugging Face folder (config.json, *.safetensors, tokenizer.json) or a .gguf file.
        #[arg(long)]
        model: String,
        #[arg(long)]
        json: bool,
    },
    /// Continue a prompt with a decoder: greedy, beam search, or seeded sampling.
    Generate {
        /// A built-in decoder, a Hugging Face folder or a .gguf file.
        #[arg(long)]
        model: String,
        #[arg(long)]
        prompt: String,
        #[arg(long, value_enum, default_value = "greedy")]
        strategy: generate::Strategy,
        /// New tokens at most.
        #[arg(long, default_value_t = 32)]
        max_new: usize,
        /// Beam width (--strategy beam).
        #[arg(long, default_value_t = 4)]
        beam: usize,
        /// Length normalisation for beam search: score = Σ log p / L^alpha.
        #[arg(long, default_value_t = 0.0)]
        alpha: f32,
        /// Softmax temperature τ.
        #[arg(long, default_value_t = 1.0)]
        temperature: f32,
        /// Sample from the k most likely tokens only.
        #[arg(long)]
        top_k: Option<usize>,
        /// Sample from the smallest set of tokens reaching this probability.
        #[arg(long)]
        top_p: Option<f32>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads for each step (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Do not stop at the model's end-of-sequence token: always --max-new tokens (for
        /// timing generation at a fixed length).
        #[arg(long)]
        ignore_eos: bool,
        /// JSON, with the generation's time and tokens per second.
        #[arg(long)]
        json: bool,
    },
    /// The most likely tokens for each mask token of a masked-LM model (BERT).
    FillMask {
        /// A Hugging Face BERT folder with a masked-LM head.
        #[arg(long)]
        model: String,
        /// Text with the model's mask token, e.g. "the [MASK] sat on the mat".
        #[arg(long)]
        input: String,
        /// How many candidates per mask.
        #[arg(long, default_value_t = 5)]
        top: usize,
        #[arg(long)]
        json: bool,
    },
    /// What every attention head does on a text: each pattern's clearest head and its score.
    Heads {
        /// A built-in model name, a Glimpse checkpoint, a Hugging Face folder or a .gguf file.
        #[arg(long)]
        model: String,
        /// The text (the encoder's input; the decoder's for a decoder-only model).
        #[arg(long)]
        input: String,
        /// Every head's statistics too, as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Induction: a random sequence of words repeated once; the loss on each copy and the
    /// heads that attend to the token after each word's earlier occurrence.
    Induction {
        /// A decoder-only model: built-in name, Glimpse checkpoint, Hugging Face folder or .gguf.
        #[arg(long)]
        model: String,
        /// Random words in each copy.
        #[arg(long, default_value_t = 20)]
        len: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Heads off: every head of a model switched off alone (what the loss and accuracy lose),
    /// then removed from the least important up; a task model is scored on held-out examples
    /// of its task, a decoder LM on --text.
    Ablate {
        /// A built-in task model or decoder LM, a Glimpse checkpoint, a Hugging Face folder or .gguf.
        #[arg(long)]
        model: String,
        /// The text a decoder LM is scored on (each token predicted from those before it).
        #[arg(long, default_value = "")]
        text: String,
        #[arg(long)]
        json: bool,
    },
    /// Train configurations side by side on one task, the same examples for each: `depth`
    /// (pre-norm vs post-norm, --layers deep), `kv` (4 query heads sharing 4, 2 and 1
    /// key/value heads) or `rnn` (a GRU translator with a fixed context and with additive
    /// attention, --width its state, default 8); prints each one's loss and held-out quality.
    Compare {
        /// `depth`, `kv` or `rnn`.
        experiment: String,
        /// The task (default: reverse for depth, translate for kv).
        #[arg(long)]
        task: Option<String>,
        #[arg(long, default_value_t = 6)]
        layers: usize,
        #[arg(long, default_value_t = 3000)]
        steps: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Depth: start at the peak learning rate (no warmup).
        #[arg(long)]
        no_warmup: bool,
        /// d_model of every configuration (d_ff = 2 d_model); default the task's.
        #[arg(long)]
        width: Option<usize>,
        /// Held-out examples per evaluation (the app's tabs use 48).
        #[arg(long, default_value_t = 48)]
        examples: usize,
        #[arg(long)]
        json: bool,
    },
    /// Run a model on text and print its whole trace.
    Attn {
        /// A built-in model name, a Glimpse checkpoint path (stem, .json or .safetensors), a
        /// Hugging Face folder or a .gguf file.
        #[arg(long)]
        model: String,
        /// Source text (the encoder's input; the decoder's for a decoder-only model).
        #[arg(long)]
        input: String,
        /// Target text for an encoder–decoder model (fed after <bos>).
        #[arg(long, default_value = "")]
        target: String,
        /// Softmax temperature τ.
        #[arg(long, default_value_t = 1.0)]
        temperature: f32,
        /// Only these layers in the output: `5` (layer 5), `0,5` or `0..3` (large models have
        /// many).
        #[arg(long)]
        layers: Option<String>,
        /// Only these heads of each layer, written as for --layers.
        #[arg(long)]
        heads: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Beam search as a tree: every hypothesis, its log-probabilities, and the ranking.
    Beam {
        /// A built-in model or a checkpoint (or use --table).
        #[arg(long)]
        model: Option<String>,
        /// A typed next-token table instead of a model (format: `prefix -> token p, …`).
        #[arg(long)]
        table: Option<std::path::PathBuf>,
        /// Source sentence (encoder–decoder) or prompt (decoder-only).
        #[arg(long, default_value = "")]
        input: String,
        #[arg(long, default_value_t = 3)]
        beam: usize,
        /// Length normalisation: score = Σ log p / L^alpha.
        #[arg(long, default_value_t = 0.0)]
        alpha: f32,
        #[arg(long, default_value_t = 20)]
        max_len: usize,
        #[arg(long, default_value_t = 1.0)]
        temperature: f32,
        #[arg(long)]
        json: bool,
    },
    /// Print positional encodings, or rotate given vectors with RoPE.
    Pe {
        #[arg(long, value_enum)]
        kind: PeKind,
        /// Encoding width (sinusoidal, RoPE).
        #[arg(long)]
        dim: Option<usize>,
        /// Positions: `8` (0..8), `2..6`, `2..=6` or `0,3,7`.
        #[arg(long)]
        positions: String,
        /// Base of the frequencies (sinusoidal, RoPE).
        #[arg(long, default_value_t = 10000.0)]
        base: f32,
        /// RoPE: a JSON file with an array of rows, one per position, to rotate.
        #[arg(long)]
        apply: Option<std::path::PathBuf>,
        /// ALiBi: number of heads.
        #[arg(long, default_value_t = 8)]
        heads: usize,
        /// Learned: the model whose table to print.
        #[arg(long, default_value = "demo-translate")]
        model: String,
        #[arg(long)]
        json: bool,
    },
    /// Train a model on a task with Glimpse's own backward pass; writes PATH.json,
    /// PATH.safetensors and PATH.recipe.json (config, command, held-out metrics).
    Train {
        /// copy, reverse, sort, repeat, translate or lm.
        #[arg(long)]
        task: String,
        /// A JSON training config (as in a recipe's `config`); defaults suit each task.
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 2000)]
        steps: u64,
        #[arg(long)]
        seed: Option<u64>,
        /// Output path stem.
        #[arg(long)]
        out: std::path::PathBuf,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Train the decoder without its causal mask (it then sees the future: the
        /// masking lab's demonstration of why the mask is there).
        #[arg(long)]
        no_causal_mask: bool,
        /// Positional scheme: none, sinusoidal, learned, rope, alibi or relative.
        #[arg(long)]
        positional: Option<String>,
        /// Longest sequence the model accepts (to run it later on longer inputs).
        #[arg(long)]
        max_len: Option<usize>,
    },
    /// Train an English decoder LM on a text corpus (scripts/fetch_data.sh): a byte-level BPE
    /// learnt on the training split, n-gram baselines, then the model; writes PATH.json,
    /// PATH.safetensors, PATH.tokenizer.json and PATH.recipe.json, again at every checkpoint.
    TrainLm {
        /// A folder with train.txt and heldout.txt.
        #[arg(long)]
        data: std::path::PathBuf,
        /// Output path stem.
        #[arg(long)]
        out: std::path::PathBuf,
        #[arg(long, default_value_t = 6000)]
        steps: u64,
        /// A JSON LM config (as in a recipe's `config`), or a recipe.
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        #[arg(long)]
        seed: Option<u64>,
        /// Tokenizer size (ids, including the 256 bytes and <|endoftext|>).
        #[arg(long, default_value_t = 4096)]
        vocab: usize,
        /// Use this tokenizer.json instead of training one.
        #[arg(long)]
        tokenizer: Option<std::path::PathBuf>,
        /// Threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long, default_value_t = 50)]
        log_every: u64,
        #[arg(long, default_value_t = 500)]
        checkpoint_every: u64,
        /// Held-out tokens scored at each checkpoint (the whole split at the end).
        #[arg(long, default_value_t = 16384)]
        slice_tokens: usize,
        /// Train on only the first BYTES of train.txt (quick checks).
        #[arg(long)]
        train_bytes: Option<usize>,
        /// Weight storage: f32, f16 or q8 (8-bit rows with a scale each).
        #[arg(long, default_value = "f32")]
        store: String,
        /// BERT's objective instead of GPT's: hide this share of the tokens (e.g. 0.15) and
        /// train an encoder to fill them in; the tokenizer gains a `<mask>` token.
        #[arg(long)]
        masked: Option<f32>,
        /// Start from this model's weights (any model Glimpse opens with the same tokenizer;
        /// a decoder's blocks may start an encoder).
        #[arg(long)]
        init: Option<String>,
    },
    /// Evaluate a model on held-out examples of its task, or (with --text) a decoder LM's
    /// perplexity on a text file.
    Eval {
        #[arg(long)]
        model: String,
        /// Perplexity on this text file instead (any decoder: built-in, checkpoint, Hugging
        /// Face folder, GGUF). Reports tokens, nats/token and perplexity.
        #[arg(long)]
        text: Option<std::path::PathBuf>,
        /// With --text: cap the context window (default: the model's longest input).
        #[arg(long)]
        context: Option<usize>,
        /// The task (read from the recipe beside the model when omitted).
        #[arg(long)]
        task: Option<String>,
        #[arg(long, default_value_t = 1000)]
        examples: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
        /// Instead: exact match at each of these source lengths (copy, reverse, sort), e.g.
        /// `3..=16`, to see how far a model extrapolates past its training lengths.
        #[arg(long)]
        lengths: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PeKind {
    Sinusoidal,
    Learned,
    Rope,
    Alibi,
}

/// Most positions `pe` prints at once.
pub const MAX_PE_POSITIONS: usize = 10_000;
/// Widest encoding `pe` computes.
pub const MAX_PE_DIM: usize = 4096;

/// A built-in name or a checkpoint path.
pub fn resolve_model(spec: &str) -> Result<Model, ModelError> {
    if builtin::info(spec).is_some() {
        return builtin::load(spec);
    }
    if checkpoints::is_checkpoint(spec) {
        return checkpoints::open(spec).map(|(m, _)| m);
    }
    let path = std::path::Path::new(spec);
    let (json, weights) = checkpoint::checkpoint_paths(path);
    if json.exists() || weights.exists() {
        return checkpoint::load_path(path);
    }
    Err(ModelError::UnknownModel(spec.to_string()))
}

/// Layer or head indices: `5` is that one (unlike a position SPEC, where `8` is 0‥7), and
/// `2..6`, `2..=6` or `0,3,7` as for positions.
pub fn parse_indices(spec: &str) -> Result<Vec<usize>, String> {
    match spec.trim().parse::<usize>() {
        Ok(one) => Ok(vec![one]),
        Err(_) => parse_positions(spec),
    }
}

/// Parse `8`, `2..6`, `2..=6` or `0,3,7`.
pub fn parse_positions(spec: &str) -> Result<Vec<usize>, String> {
    let num = |s: &str| {
        s.trim().parse::<usize>().map_err(|_| {
            format!(
                "`{}` in --positions is not a non-negative whole number",
                s.trim()
            )
        })
    };
    let spec = spec.trim();
    let positions: Vec<usize> = if let Some((a, b)) = spec.split_once("..=") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(format!("--positions {spec}: the end is before the start"));
        }
        check_count(b - a + 1)?;
        (a..=b).collect()
    } else if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(format!("--positions {spec}: the end is before the start"));
        }
        if b == a {
            return Err(format!("--positions {spec}: the range is empty"));
        }
        check_count(b - a)?;
        (a..b).collect()
    } else if spec.contains(',') {
        let v = spec.split(',').map(num).collect::<Result<Vec<_>, _>>()?;
        check_count(v.len())?;
        v
    } else {
        let n = num(spec)?;
        if n == 0 {
            return Err("--positions 0 asks for no positions".into());
        }
        check_count(n)?;
        (0..n).collect()
    };
    Ok(positions)
}

fn check_count(n: usize) -> Result<(), String> {
    if n > MAX_PE_POSITIONS {
        Err(format!(
            "--positions asks for {n} positions; at most {MAX_PE_POSITIONS} are printed"
        ))
    } else {
        Ok(())
    }
}

fn rows(a: &Array2<f32>) -> Vec<Vec<f32>> {
    a.rows().into_iter().map(|r| r.to_vec()).collect()
}

fn need_dim(dim: Option<usize>, even: bool) -> Result<usize, String> {
    let d = dim.ok_or("--dim is required for this kind")?;
    if d == 0 || d > MAX_PE_DIM {
        return Err(format!("--dim {d} must be between 1 and {MAX_PE_DIM}"));
    }
    if even && d % 2 != 0 {
        return Err(format!(
            "--dim {d} must be even: dimensions come in (sin, cos) / rotation pairs"
        ));
    }
    Ok(d)
}

fn check_base(base: f32) -> Result<(), String> {
    if base > 1.0 && base.is_finite() {
        Ok(())
    } else {
        Err(format!("--base {base} must be a number greater than 1"))
    }
}

/// Read `--apply`: a JSON array of equally long numeric rows.
pub fn parse_rows(text: &str) -> Result<Array2<f32>, String> {
    let rows: Vec<Vec<f32>> = serde_json::from_str(text)
        .map_err(|e| format!("--apply file must be a JSON array of rows of numbers: {e}"))?;
    let width = rows
        .first()
        .map(Vec::len)
        .ok_or("--apply file has no rows")?;
    if width == 0 {
        return Err("--apply rows are empty".into());
    }
    if let Some(i) = rows.iter().position(|r| r.len() != width) {
        return Err(format!(
            "--apply row {i} has {} numbers, row 0 has {width}",
            rows[i].len()
        ));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err("--apply rows contain a non-finite number".into());
    }
    Array2::from_shape_vec((rows.len(), width), rows.concat()).map_err(|e| e.to_string())
}

/// The JSON document `glimpse pe` prints.
pub fn pe_report(
    kind: PeKind,
    dim: Option<usize>,
    positions: &[usize],
    base: f32,
    apply: Option<&str>,
    heads: usize,
    model: &str,
) -> Result<serde_json::Value, String> {
    Ok(match kind {
        PeKind::Sinusoidal => {
            let d = need_dim(dim, true)?;
            check_base(base)?;
            let bands = 0..d / 2;
            json!({
                "kind": "sinusoidal", "dim": d, "base": base, "positions": positions,
                "frequencies": bands.clone().map(|k| position::sinusoidal_frequency(k, d, base)).collect::<Vec<_>>(),
                "wavelengths": bands.map(|k| position::sinusoidal_wavelength(k, d, base)).collect::<Vec<_>>(),
                "encodings": rows(&position::sinusoidal(positions, d, base)),
            })
        }
        PeKind::Rope => {
            check_base(base)?;
            match apply {
                None => {
                    let d = need_dim(dim, true)?;
                    let angles = position::rope_angles(positions, d, base);
                    json!({
                        "kind": "rope", "dim": d, "base": base, "positions": positions,
                        "angles": rows(&angles),
                        "cos": rows(&angles.mapv(f32::cos)),
                        "sin": rows(&angles.mapv(f32::sin)),
                    })
                }
                Some(text) => {
                    let x = parse_rows(text)?;
                    let width = x.ncols();
                    if width % 2 != 0 {
                        return Err(format!(
                            "--apply rows have {width} numbers; RoPE needs an even width"
                        ));
                    }
                    if let Some(d) = dim.filter(|&d| d != width) {
                        return Err(format!(
                            "--dim {d} does not match the {width}-wide rows of --apply"
                        ));
                    }
                    if x.nrows() != positions.len() {
                        return Err(format!(
                            "--apply has {} rows but --positions gives {} positions: one position per row",
                            x.nrows(),
                            positions.len()
                        ));
                    }
                    json!({
                        "kind": "rope", "dim": width, "base": base, "positions": positions,
                        "input": rows(&x),
                        "angles": rows(&position::rope_angles(positions, width, base)),
                        "rotated": rows(&position::rope_rotate(&x, positions, base)),
                    })
                }
            }
        }
        PeKind::Alibi => {
            if heads == 0 || heads > 256 {
                return Err(format!("--heads {heads} must be between 1 and 256"));
            }
            let slopes = position::alibi_slopes(heads);
            let bias: Vec<_> = slopes
                .iter()
                .map(|&m| rows(&position::alibi_bias(m, positions, positions)))
                .collect();
            json!({ "kind": "alibi", "heads": heads, "positions": positions, "slopes": slopes.to_vec(), "bias": bias })
        }
        PeKind::Learned => {
            let m = resolve_model(model).map_err(|e| e.to_string())?;
            let table = m.weights.pos_embed.as_ref().ok_or_else(|| {
                format!(
                    "model `{model}` uses {} positions, not a learned table; try --model demo-translate",
                    m.config.positional.label()
                )
            })?;
            if let Some(d) = dim.filter(|&d| d != m.config.d_model) {
                return Err(format!(
                    "--dim {d} does not match model `{model}`'s d_model {}",
                    m.config.d_model
                ));
            }
            if let Some(&p) = positions.iter().find(|&&p| p >= table.nrows()) {
                return Err(format!(
                    "position {p} is past the learned table of `{model}` (max_len {}): a learned absolute encoding has no vector there",
                    table.nrows()
                ));
            }
            json!({
                "kind": "learned", "model": model, "dim": m.config.d_model, "positions": positions,
                "encodings": rows(&table.select(ndarray::Axis(0), positions)),
            })
        }
    })
}

#[derive(Serialize)]
struct AttnReport<'a> {
    model: &'a str,
    source: &'a str,
    target: &'a str,
    unknown_tokens: usize,
    truncated_tokens: usize,
    temperature: f32,
    /// The layers and heads kept by `--layers` / `--heads` (all when absent), in trace order.
    #[serde(skip_serializing_if = "Option::is_none")]
    layers_shown: Option<&'a [usize]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heads_shown: Option<&'a [usize]>,
    trace: &'a Trace,
}

/// Which layers and heads `attn` prints (all when `None`).
#[derive(Default)]
pub struct Keep {
    layers: Option<Vec<usize>>,
    heads: Option<Vec<usize>>,
}

impl Keep {
    /// Drops the layers and heads not asked for, keeping the rest of the trace whole.
    fn apply(&self, trace: &mut Trace) {
        for stack in [trace.encoder.as_mut(), trace.decoder.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Some(layers) = &self.layers {
                let mut l = 0;
                stack.blocks.retain(|_| {
                    l += 1;
                    layers.contains(&(l - 1))
                });
            }
            if let Some(heads) = &self.heads {
                for b in &mut stack.blocks {
                    keep_heads(&mut b.self_attn.inner, heads);
                    if let Some(c) = b.cross_attn.as_mut() {
                        keep_heads(&mut c.inner, heads);
                    }
                }
            }
        }
    }
}

fn keep_heads(a: &mut crate::model::attention::AttentionTrace, heads: &[usize]) {
    let n = a.weights.len_of(ndarray::Axis(0));
    let rows: Vec<usize> = heads.iter().copied().filter(|&h| h < n).collect();
    let pick = |x: &ndarray::Array3<f32>| x.select(ndarray::Axis(0), &rows);
    a.q = pick(&a.q);
    a.scores = pick(&a.scores);
    a.scaled = pick(&a.scaled);
    a.logits = pick(&a.logits);
    a.weights = pick(&a.weights);
    a.head_out = pick(&a.head_out);
    a.bias = a.bias.as_ref().map(pick);
}

fn attn(
    model: &str,
    input: &str,
    target: &str,
    temperature: f32,
    keep: &Keep,
    as_json: bool,
) -> Result<String, String> {
    let m = resolve_model(model).map_err(|e| e.to_string())?;
    if input.is_empty() {
        return Err("--input is empty: give at least one character or word".into());
    }
    let prepared = m.prepare(input, target);
    let opts = ForwardOptions {
        temperature,
        ..Default::default()
    };
    let mut trace = m
        .forward(&prepared.input, &opts)
        .map_err(|e| e.to_string())?;
    // Only layers and heads the model has, so the labels below name the right ones.
    let within = |v: &Option<Vec<usize>>, n: usize| {
        v.as_ref()
            .map(|v| v.iter().copied().filter(|&i| i < n).collect::<Vec<_>>())
    };
    let keep = &Keep {
        layers: within(&keep.layers, m.config.n_layers),
        heads: within(&keep.heads, m.config.n_heads),
    };
    keep.apply(&mut trace);
    if as_json {
        let report = AttnReport {
            model: &m.config.name,
            source: input,
            target,
            unknown_tokens: prepared.unknown,
            truncated_tokens: prepared.truncated,
            temperature,
            layers_shown: keep.layers.as_deref(),
            heads_shown: keep.heads.as_deref(),
            trace: &trace,
        };
        return serde_json::to_string(&report).map_err(|e| e.to_string());
    }
    let mut out = format!("{} ({})\n", m.config.name, m.config.family.label());
    if prepared.truncated > 0 {
        out += &format!(
            "note: {} tokens past max_len {} were cut\n",
            prepared.truncated, m.config.max_len
        );
    }
    for kind in trace.attention_kinds() {
        for layer in 0..trace.layers(kind) {
            let Some(a) = trace.attention(kind, layer) else {
                continue;
            };
            let shown = |kept: &Option<Vec<usize>>, i: usize| {
                kept.as_ref().and_then(|k| k.get(i).copied()).unwrap_or(i)
            };
            for (h, w) in a.weights.outer_iter().enumerate() {
                out += &format!(
                    "{} layer {} head {}:",
                    kind.label(),
                    shown(&keep.layers, layer),
                    shown(&keep.heads, h)
                );
                for (q, row) in w.rows().into_iter().enumerate() {
                    let (best, p) = crate::util::argmax(row.iter().copied()).unwrap_or((0, 0.0));
                    out += &format!(" {}→{} {:.2}", a.query_tokens[q], a.key_tokens[best], p);
                }
                out += "\n";
            }
        }
    }
    Ok(out)
}

fn models(as_json: bool) -> String {
    if as_json {
        return serde_json::to_string(&builtin::BUILTINS).unwrap_or_default();
    }
    builtin::BUILTINS
        .iter()
        .map(|b| format!("{:16} {}\n", b.name, b.description))
        .collect()
}

/// Keep memory the process frees for its next allocations (glibc on Linux). A forward pass
/// allocates and frees the same tens of megabytes each time (a trace, the matrix products'
/// packing buffers); glibc's defaults hand large blocks back to the kernel at once, and every
/// page must then be faulted in and zeroed again: a quarter of MiniLM's forward pass at 128
/// tokens. Blocks up to 32 MiB (glibc's largest setting) now come from the heap, and the heap
/// shrinks only past 1 GiB of free memory at its top. Elsewhere this does nothing. Returns
/// whether both settings took.
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes two of the allocator's thresholds; it is called with
    // valid parameter constants, and glibc guards its state with the arena lock. A call that
    // fails (returns 0) leaves the default, which is harmless.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30) == 1
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// `--threads K`: the forward pass's thread count, set before any parallel work.
fn use_threads(threads: Option<usize>) -> Result<(), String> {
    match threads {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(n) if !crate::model::parallel::set_threads(n) => {
            Err("--threads: the thread pool was already started".into())
        }
        _ => Ok(()),
    }
}

/// Run a subcommand; `Ok` holds what to print on stdout.
pub fn run(cmd: Command) -> Result<String, String> {
    match cmd {
        Command::Models { json } => Ok(models(json)),
        Command::BenchForward {
            model: Some(model),
            tokens,
            runs,
            threads,
            ..
        } => {
            use_threads(threads)?;
            checkpoints::bench_model(&model, tokens, runs)
        }
        Command::BenchForward {
            no_large, threads, ..
        } => {
            use_threads(threads)?;
            let timings = crate::model::bench::latencies(!no_large).map_err(|e| e.to_string())?;
            serde_json::to_string_pretty(&timings).map_err(|e| e.to_string())
        }
        Command::BenchGpu {
            max_d_model,
            max_tokens,
            runs,
            model: Some(model),
            tokens,
        } => {
            let _ = (max_d_model, max_tokens);
            bench_gpu_model(&model, tokens, runs)
        }
        Command::BenchGpu {
            max_d_model,
            max_tokens,
            runs,
            model: None,
            ..
        } => bench_gpu(max_d_model, max_tokens, runs),
        Command::Beam {
            model,
            table,
            input,
            beam,
            alpha,
            max_len,
            temperature,
            json,
        } => beam::beam(beam::BeamArgs {
            model: model.as_deref(),
            table: table.as_deref(),
            input: &input,
            beam,
            alpha,
            max_len,
            temperature,
            json,
        }),
        Command::Train {
            task,
            config,
            steps,
            seed,
            out,
            quiet,
            no_causal_mask,
            positional,
            max_len,
        } => train::train(
            &task,
            config.as_deref(),
            steps,
            seed,
            &out,
            train::Overrides {
                quiet,
                no_causal_mask,
                positional,
                max_len,
            },
        ),
        Command::TrainLm {
            data,
            out,
            steps,
            config,
            seed,
            vocab,
            tokenizer,
            threads,
            log_every,
            checkpoint_every,
            slice_tokens,
            train_bytes,
            store,
            masked,
            init,
        } => {
            use_threads(threads)?;
            let init = init
                .map(|m| resolve_model(&m))
                .transpose()
                .map_err(|e| e.to_string())?;
            let storage = match store.as_str() {
                "f32" => crate::model::checkpoint::Storage::F32,
                "f16" => crate::model::checkpoint::Storage::F16,
                "q8" => crate::model::checkpoint::Storage::Q8,
                other => return Err(format!("--store {other}: one of f32, f16, q8")),
            };
            train_lm::train_lm(train_lm::TrainLmArgs {
                data,
                out,
                steps,
                config,
                seed,
                vocab,
                tokenizer,
                threads: crate::model::parallel::threads(),
                log_every,
                checkpoint_every,
                slice_tokens,
                train_bytes,
                storage,
                masked,
                init,
            })
        }
        Command::Eval {
            model,
            text: Some(file),
            context,
            json,
            ..
        } => {
            let r = train_lm::eval_text(&model, &file, context)?;
            Ok(if json {
                serde_json::to_string(&r).unwrap_or_default()
            } else {
                format!(
                    "{} tokens · {:.4} nats/token · perplexity {:.2} (context {})",
                    r.perplexity.tokens,
                    r.perplexity.nats_per_token,
                    r.perplexity.perplexity,
                    r.context
                )
            })
        }
        Command::Eval {
            model,
            task,
            examples,
            seed,
            json,
            lengths: Some(spec),
            ..
        } => {
            let rows = train::eval_lengths(
                &model,
                task.as_deref(),
                &parse_positions(&spec)?,
                examples,
                seed,
            )?;
            Ok(if json {
                serde_json::to_string(&rows).unwrap_or_default()
            } else {
                rows.iter()
                    .map(|r| match r.exact {
                        Some(e) => format!("length {:3}: exact {:.1}%", r.length, 100.0 * e),
                        None => format!("length {:3}: longer than the model accepts", r.length),
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        Command::Eval {
            model,
            task,
            examples,
            seed,
            json,
            lengths: None,
            ..
        } => {
            let stats = train::eval(&model, task.as_deref(), examples, seed)?;
            Ok(if json {
                serde_json::to_string(&stats).unwrap_or_default()
            } else {
                let mut line = format!(
                    "exact match {:.2}% · token accuracy {:.2}% · loss {:.4} on {} held-out examples",
                    100.0 * stats.exact_match,
                    100.0 * stats.token_accuracy,
                    stats.loss,
                    stats.examples
                );
                if let Some(b) = stats.baseline_loss {
                    line += &format!(
                        "\nunigram baseline loss {b:.4} nats/char; the model's is {:.1}% of it",
                        100.0 * stats.loss / b
                    );
                }
                if let (Some(i), Some(p)) = (stats.induction, stats.previous_token) {
                    line += &format!(
                        "\ninduction head: layer {} head {} scores {:.3}; previous-token head: layer {} head {} scores {:.3}",
                        i.layer, i.head, i.score, p.layer, p.head, p.score
                    );
                }
                line
            })
        }

        Command::Attn {
            model,
            input,
            target,
            temperature,
            layers,
            heads,
            json,
        } => {
            let keep = Keep {
                layers: layers.as_deref().map(parse_indices).transpose()?,
                heads: heads.as_deref().map(parse_indices).transpose()?,
            };
            attn(&model, &input, &target, temperature, &keep, json)
        }
        Command::Heads { model, input, json } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            heads::heads(&m, &input, json)
        }
        Command::Ablate { model, text, json } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            heads::ablate(&model, &m, &text, json)
        }
        Command::Compare {
            experiment,
            task,
            layers,
            steps,
            seed,
            no_warmup,
            width,
            examples,
            json,
        } => compare::compare(
            &experiment,
            task.as_deref(),
            layers,
            steps,
            seed,
            !no_warmup,
            width,
            examples,
            json,
        ),
        Command::Induction {
            model,
            len,
            seed,
            json,
        } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            heads::induction(&m, len, seed, json)
        }
        Command::Inspect { model, json } => checkpoints::inspect(&model, json),
        Command::Generate {
            model,
            prompt,
            strategy,
            max_new,
            beam,
            alpha,
            temperature,
            top_k,
            top_p,
            seed,
            threads,
            ignore_eos,
            json,
        } => {
            use_threads(threads)?;
            generate::generate(generate::GenerateArgs {
                model: &model,
                prompt: &prompt,
                strategy,
                max_new,
                beam,
                alpha,
                temperature,
                top_k,
                top_p,
                seed,
                ignore_eos,
                json,
            })
        }
        Command::FillMask {
            model,
            input,
            top,
            json,
        } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            checkpoints::fill_mask(&m, &input, top.max(1), json)
        }
        Command::Pe {
            kind,
            dim,
            positions,
            base,
            apply,
            heads,
            model,
            json,
        } => {
            let positions = parse_positions(&positions)?;
            let text = match &apply {
                Some(p) => Some(
                    std::fs::read_to_string(p)
                        .map_err(|e| format!("could not read {}: {e}", p.display()))?,
                ),
                None => None,
            };
            let report = pe_report(kind, dim, &positions, base, text.as_deref(), heads, &model)?;
            Ok(if json {
                report.to_string()
            } else {
                pe_table::pe_table(&report)
            })
        }
    }
}

#[cfg(feature = "webgpu")]
fn bench_gpu(max_d_model: usize, max_tokens: usize, runs: usize) -> Result<String, String> {
    use crate::gpu::{bench, Gpu};
    let gpu = Gpu::new_blocking().map_err(|e| e.to_string())?;
    eprintln!("timing on {}", gpu.adapter.label());
    let report = pollster::block_on(bench::sweep(&gpu, max_d_model, max_tokens, runs))
        .map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

#[cfg(not(feature = "webgpu"))]
fn bench_gpu(_: usize, _: usize, _: usize) -> Result<String, String> {
    Err("this glimpse was built without the `webgpu` feature".into())
}

/// CPU against GPU on one model (a real checkpoint) and `tokens` tokens of English.
#[cfg(feature = "webgpu")]
fn bench_gpu_model(spec: &str, tokens: usize, runs: usize) -> Result<String, String> {
    use crate::gpu::{bench, Gpu};
    let model = resolve_model(spec).map_err(|e| e.to_string())?;
    let input = crate::model::bench::english_input(&model, tokens)?;
    let gpu = Gpu::new_blocking().map_err(|e| e.to_string())?;
    eprintln!("timing {} on {}", model.config.name, gpu.adapter.label());
    let case = crate::model::bench::Case {
        name: model.config.name.clone(),
        model,
        input,
        flops: None,
    };
    let comparison =
        pollster::block_on(bench::compare(&gpu, &case, runs)).map_err(|e| e.to_string())?;
    let report = bench::Report {
        adapter: gpu.adapter.clone(),
        comparisons: vec![comparison],
    };
    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
}

#[cfg(not(feature = "webgpu"))]
fn bench_gpu_model(_: &str, _: usize, _: usize) -> Result<String, String> {
    Err("this glimpse was built without the `webgpu` feature".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_memory_is_kept_and_allocation_still_works() {
        assert_eq!(
            keep_freed_memory(),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
        // Blocks below and above the new thresholds, freed and taken again, read back whole.
        for mib in [1usize, 16, 40, 16] {
            let v = vec![7u8; mib << 20];
            assert!(v.iter().all(|&b| b == 7));
        }
    }

    #[test]
    fn position_specs() {
        assert_eq!(parse_positions("4").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_positions("2..5").unwrap(), vec![2, 3, 4]);
        assert_eq!(parse_positions("2..=5").unwrap(), vec![2, 3, 4, 5]);
        assert_eq!(parse_positions("0, 3,7").unwrap(), vec![0, 3, 7]);
        for bad in ["", "x", "-1", "5..2", "3..3", "0", "1,,2", "0..99999999"] {
            assert!(parse_positions(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn rope_apply_rotates_rows_by_their_positions() {
        let r = pe_report(
            PeKind::Rope,
            None,
            &[0, 1],
            10000.0,
            Some("[[1,0],[1,0]]"),
            8,
            "",
        )
        .unwrap();
        let rot = &r["rotated"];
        assert_eq!(rot[0][0].as_f64().unwrap(), 1.0);
        assert!((rot[1][0].as_f64().unwrap() - 1f64.cos()).abs() < 1e-6);
        assert!((rot[1][1].as_f64().unwrap() - 1f64.sin()).abs() < 1e-6);
    }

    #[test]
    fn pe_bad_inputs_have_messages() {
        let e = |r: Result<serde_json::Value, String>| r.unwrap_err();
        assert!(
            e(pe_report(PeKind::Sinusoidal, None, &[0], 1e4, None, 8, ""))
                .contains("--dim is required")
        );
        assert!(e(pe_report(
            PeKind::Sinusoidal,
            Some(5),
            &[0],
            1e4,
            None,
            8,
            ""
        ))
        .contains("even"));
        assert!(e(pe_report(PeKind::Rope, Some(4), &[0], 0.5, None, 8, "")).contains("--base"));
        assert!(e(pe_report(
            PeKind::Rope,
            None,
            &[0, 1],
            1e4,
            Some("[[1,2]]"),
            8,
            ""
        ))
        .contains("one position per row"));
        assert!(e(pe_report(
            PeKind::Rope,
            None,
            &[0],
            1e4,
            Some("[[1,2,3]]"),
            8,
            ""
        ))
        .contains("even width"));
        assert!(e(pe_report(
            PeKind::Rope,
            None,
            &[0],
            1e4,
            Some("{oops"),
            8,
            ""
        ))
        .contains("JSON array"));
        assert!(e(pe_report(
            PeKind::Rope,
            None,
            &[0, 1],
            1e4,
            Some("[[1,2],[3]]"),
            8,
            ""
        ))
        .contains("row 1"));
        assert!(e(pe_report(PeKind::Alibi, None, &[0], 1e4, None, 0, "")).contains("--heads"));
        assert!(e(pe_report(
            PeKind::Learned,
            None,
            &[64],
            1e4,
            None,
            8,
            "demo-translate"
        ))
        .contains("past the learned table"));
        assert!(e(pe_report(
            PeKind::Learned,
            None,
            &[0],
            1e4,
            None,
            8,
            "demo-decoder"
        ))
        .contains("not a learned table"));
    }

    #[test]
    fn attn_reports_unknown_models_and_empty_input() {
        assert!(attn("no-such-model", "x", "", 1.0, &Keep::default(), true)
            .unwrap_err()
            .contains("no model named"));
        assert!(attn("demo-encoder", "", "", 1.0, &Keep::default(), true)
            .unwrap_err()
            .contains("empty"));
        assert!(attn("demo-encoder", "hi", "", 0.0, &Keep::default(), true)
            .unwrap_err()
            .contains("temperature"));
    }
}
