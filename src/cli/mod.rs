//! Headless subcommands. Each prints machine-readable JSON with `--json` (the same structs
//! the app exports); errors go to stderr with a non-zero exit.
//!
//! The arguments are in [`args`]; each subcommand's work is in its own module, and [`run`]
//! hands each one its arguments.

mod args;
mod attn;
pub mod beam;
mod bench;
pub mod checkpoints;
mod compare;
mod eval;
pub mod generate;
mod heads;
mod influence;
mod pe;
mod pe_table;
mod ranges;
mod recipe;
pub mod train;
pub mod train_lm;

pub use args::{Cli, Command, PeKind};
pub use attn::Keep;
pub use pe::{parse_rows, pe_report, MAX_PE_DIM, MAX_PE_POSITIONS};
pub use ranges::{parse_indices, parse_positions};

use crate::model::checkpoint;
use crate::model::{builtin, Model, ModelError};
use attn::attn;

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
            no_large,
            model,
            tokens,
            runs,
            threads,
            f32,
            json: _,
        } => bench::bench_forward(model.as_deref(), no_large, (tokens, runs), threads, f32),
        Command::BenchGpu {
            max_d_model,
            max_tokens,
            runs,
            model,
            tokens,
        } => bench::bench_gpu(max_d_model, max_tokens, runs, model.as_deref(), tokens),
        Command::BenchVision { task, steps, seed } => bench::bench_vision(&task, steps, seed),
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
            text,
            context,
            task,
            examples,
            seed,
            json,
            lengths,
        } => eval::eval(eval::EvalArgs {
            model,
            text,
            context,
            task,
            examples,
            seed,
            json,
            lengths,
        }),

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
        Command::Probe { model, seed, json } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            influence::position_probe(&m, seed, json)
        }
        Command::Lens { on, target, top } => influence::lens(&on, target.as_deref(), top),
        Command::Attribute {
            on,
            target,
            contrast,
            position,
        } => influence::attribute(&on, &target, contrast.as_deref(), position),
        Command::Patch {
            model,
            clean,
            corrupt,
            target,
            contrast,
            json,
        } => {
            let m = resolve_model(&model).map_err(|e| e.to_string())?;
            influence::patch(&m, &clean, &corrupt, &target, &contrast, json)
        }
        Command::Rollout { on } => influence::rollout(&on),
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

#[cfg(test)]
mod tests;
