//! The command line: every subcommand and its options (clap derives the parser and the help).

use super::generate;
use clap::{Parser, Subcommand, ValueEnum};

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
        /// Expand a quantized file's matrices to f32 first: the reference the products from
        /// the blocks are timed against.
        #[arg(long)]
        f32: bool,
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
    /// Train the Vision tab's ViT from a fresh model, timed (the same loop as the browser's
    /// `web/bench_vision.mjs`); prints JSON with the held-out accuracy on 1,000 images.
    BenchVision {
        /// `larger` (which square is larger) or `count` (count the squares).
        #[arg(long, default_value = "larger")]
        task: String,
        /// Steps (default: the tab's, 1,600 for larger and 400 for count).
        #[arg(long)]
        steps: Option<u64>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
    /// Does position survive depth? A linear probe per layer reads each token's position from
    /// the residual stream (96 passages of Glimpse's text, or random symbols for a task
    /// model; a quarter held out), beside the positional component's share of the stream.
    Probe {
        /// A built-in model name, a Glimpse checkpoint, a Hugging Face folder or a .gguf file.
        #[arg(long)]
        model: String,
        /// Seed of a task model's random symbols.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// The logit lens: what the model would predict after each block (l = 0…L), at every
    /// position: softmax(W_U · final_norm(resid[l]) + b_U).
    Lens {
        #[command(flatten)]
        on: OnText,
        /// A token whose probability is followed through the layers (one token of the model's).
        #[arg(long)]
        target: Option<String>,
        /// Tokens listed per position and layer.
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// Direct logit attribution: each head's, MLP's, the embedding's and each bias's share of
    /// logit(target) − logit(contrast), through the final norm with its scale frozen.
    Attribute {
        #[command(flatten)]
        on: OnText,
        /// The token A (one token of the model's).
        #[arg(long)]
        target: String,
        /// The token B (one token); without it, the share of logit(A) alone.
        #[arg(long)]
        contrast: Option<String>,
        /// The position read (default: the last).
        #[arg(long)]
        position: Option<usize>,
    },
    /// Activation patching on a decoder-only model: every residual-stream row and every head's
    /// output of the clean run copied into the corrupted run, scored by how much of
    /// logit(target) − logit(contrast) it restores (1: all).
    Patch {
        #[arg(long)]
        model: String,
        /// The clean text.
        #[arg(long)]
        clean: String,
        /// The corrupted text, with as many tokens as the clean one.
        #[arg(long)]
        corrupt: String,
        #[arg(long)]
        target: String,
        #[arg(long)]
        contrast: String,
        #[arg(long)]
        json: bool,
    },
    /// Attention rollout: R = Â_{L−1} ⋯ Â_0 with Â_l = ½·mean_heads(A_l) + ½·I (rows
    /// renormalised), per stack.
    Rollout {
        #[command(flatten)]
        on: OnText,
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
    /// key/value heads), `heads` (one d_model split into 1 … 32 heads, --width it, default 64)
    /// or `rnn` (a GRU translator with a fixed context and with additive
    /// attention, --width its state, default 8); prints each one's loss and held-out quality.
    Compare {
        /// `depth`, `kv`, `heads` or `rnn`.
        experiment: String,
        /// The task (default: reverse for depth, translate for kv and heads).
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
        /// d_model of every configuration (d_ff = 2 d_model); default the task's (heads: 64).
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

/// What the logit lens, attribution and rollout read: a model and one text.
#[derive(Debug, clap::Args)]
pub struct OnText {
    /// A built-in name, Glimpse checkpoint, Hugging Face folder or .gguf (the lens and
    /// attribution need one with an output layer).
    #[arg(long)]
    pub model: String,
    /// The text (the decoder's, for an encoder–decoder model).
    #[arg(long)]
    pub text: String,
    /// The encoder's input, for an encoder–decoder model.
    #[arg(long)]
    pub source: Option<String>,
    #[arg(long)]
    pub json: bool,
}
