//! How long the "All heads" grid takes to redraw natively: one egui frame of the grid view
//! (layout, the thumbnails' colours, texture cache checks, the summary table) plus
//! tessellation, for the largest shipped model on an input as long as it accepts.
//!
//! The same for SmolLM2-135M's 270 heads when the real model is cached.
//!
//!   cargo bench --bench head_grid

use criterion::{criterion_group, criterion_main, Criterion};
use glimpse::app::labs::attention::{grid, Selection};
use glimpse::app::GlimpseApp;
use glimpse::model::heads::{every_head, HeadStats};
use glimpse::model::weights::parameter_count;
use glimpse::model::{builtin, AttentionKind, ForwardOptions, Model, PreparedInput, Trace};

/// The trained built-in with the most parameters.
fn largest_model() -> (String, Model) {
    builtin::BUILTINS
        .iter()
        .filter(|b| !b.name.starts_with("demo-"))
        .map(|b| {
            (
                b.name.to_string(),
                builtin::load(b.name).expect("a shipped model loads"),
            )
        })
        .max_by_key(|(_, m)| parameter_count(&m.config))
        .expect("shipped models exist")
}

/// The model's trace on `text` repeated up to its length limit.
fn long_trace(model: &Model, text: &str) -> (Trace, PreparedInput) {
    let long: String = text
        .chars()
        .cycle()
        .take(4 * model.config.max_len)
        .collect();
    let prepared = model.prepare(&long, &long);
    let trace = model
        .forward(&prepared.input, &ForwardOptions::default())
        .expect("the forward pass runs");
    (trace, prepared)
}

/// One frame of the grid of pass `pass` (a new input is a new pass: its words are made anew).
fn frame(
    ctx: &egui::Context,
    trace: &Trace,
    pass: u64,
    stats: &[Vec<HeadStats>],
    kind: AttentionKind,
) -> usize {
    let mut sel = Selection {
        kind,
        layer: 0,
        head: 0,
        query: 0,
    };
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    let out = ctx.run_ui(input, |ui| {
        egui::CentralPanel::default().show(ui, |ui| {
            grid::show(ui, trace, pass, &mut sel, stats);
        });
    });
    ctx.tessellate(out.shapes, out.pixels_per_point).len()
}

fn bench(c: &mut Criterion) {
    let (name, model) = largest_model();
    let kind = AttentionKind::most_telling(model.config.family);
    let (trace, input) = long_trace(&model, "attention is all you need. ");
    let (other, other_input) = long_trace(&model, "the cat sat on the mat. ");
    let t = input.sequence(kind).tokens.len();
    let ctx = egui::Context::default();
    GlimpseApp::style(&ctx);
    let stats = every_head(&trace, kind, input.sequence(kind));
    frame(&ctx, &trace, 0, &stats, kind); // fonts and textures in place
    let label = format!(
        "{name} ({} layers x {} heads, {t} tokens)",
        model.config.n_layers, model.config.n_heads
    );
    c.bench_function(&format!("head grid redraw, {label}"), |b| {
        b.iter(|| frame(&ctx, &trace, 0, &stats, kind))
    });
    // A new input every frame (as while typing): the head summaries are recomputed and every
    // thumbnail recoloured and uploaded again.
    let (mut flip, mut pass) = (false, 0);
    c.bench_function(&format!("head grid after a new input, {label}"), |b| {
        b.iter(|| {
            flip = !flip;
            pass += 1;
            let (tr, input) = if flip {
                (&other, &other_input)
            } else {
                (&trace, &input)
            };
            let stats = every_head(tr, kind, input.sequence(kind));
            frame(&ctx, tr, pass, &stats, kind)
        })
    });
}

/// SmolLM2-135M from its GGUF (30 layers × 9 heads = 270 heads), when
/// `scripts/fetch_models.sh` has cached it: the grid at a real model's size.
fn bench_real(c: &mut Criterion) {
    let Some(path) = glimpse::util::real_models::smollm2() else {
        return;
    };
    let (model, _) = glimpse::model::import::open::open_path(&path, &mut |_| {})
        .expect("the cached SmolLM2 opens");
    let text = "The cat sat on the mat because it was tired, and the dog slept by the door.";
    let prepared = model.prepare(text, "");
    let trace = model
        .forward(&prepared.input, &ForwardOptions::default())
        .expect("the forward pass runs");
    let kind = AttentionKind::DecoderSelf;
    let ids = prepared.sequence(kind).tokens;
    let ctx = egui::Context::default();
    GlimpseApp::style(&ctx);
    let stats = every_head(&trace, kind, prepared.sequence(kind));
    frame(&ctx, &trace, 0, &stats, kind);
    let label = format!(
        "SmolLM2-135M ({} layers x {} heads, {} tokens)",
        model.config.n_layers,
        model.config.n_heads,
        ids.len()
    );
    c.bench_function(&format!("head grid redraw, {label}"), |b| {
        b.iter(|| frame(&ctx, &trace, 0, &stats, kind))
    });
    c.bench_function(
        &format!("head grid summaries of a new input, {label}"),
        |b| b.iter(|| every_head(&trace, kind, prepared.sequence(kind))),
    );
}

/// The CPU first, on stderr, so the figures below can be attributed to a machine.
fn announce_cpu(_: &mut Criterion) {
    glimpse::util::machine::announce();
}

criterion_group!(benches, announce_cpu, bench, bench_real);
criterion_main!(benches);
