//! The cost calculator: what self-attention, recurrence and convolution cost per layer
//! (O(L²·D), O(L·D²), O(K·L·D²)), how many steps must run in order and how far a signal
//! travels, the memory of the attention matrices, and the parameters of a block, by the
//! textbook formulas and counted from the picked model's own tensors.
//!
//! The numbers come from `maths` (exact integers, tested there against the notes' figures);
//! this file holds the sliders, the link keys and the drawing.

pub mod maths;
pub mod whole_model;

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::app::widgets::math_text;
use crate::app::widgets::plot_words::PlotWords;
use crate::t;
use egui::{RichText, Ui};
use egui_plot::{Corner, Legend, Plot, VLine};
use maths::{count, grouped, Sizes};

const LENGTHS: std::ops::RangeInclusive<u64> = 1..=100_000;
const WIDTHS: std::ops::RangeInclusive<u64> = 2..=8192;
const KERNELS: std::ops::RangeInclusive<u64> = 1..=15;
const HIDDEN: std::ops::RangeInclusive<u64> = 1..=32_768;
const HEADS: std::ops::RangeInclusive<u64> = 1..=128;
const LAYERS: std::ops::RangeInclusive<u64> = 1..=128;
const BATCHES: std::ops::RangeInclusive<u64> = 1..=512;

#[derive(Default)]
pub struct CostLab {
    pub sizes: Sizes,
}

impl CostLab {
    fn sliders(&mut self, ui: &mut Ui, shared: &Shared<'_>) {
        let s = &mut self.sizes;
        ui.horizontal_wrapped(|ui| {
            if ui.button(t!("cost-notes-default")).clicked() {
                *s = Sizes::default();
            }
            if ui.button(t!("cost-notes-long")).clicked() {
                *s = Sizes {
                    l: 10_000,
                    ..Sizes::default()
                };
            }
            if let Ok(m) = &shared.bench.model {
                let c = &m.config;
                let label = t!("cost-picked-model", name = &c.name);
                if ui
                    .button(label)
                    .on_hover_text(t!("cost-picked-model-hover"))
                    .clicked()
                {
                    s.d = c.d_model as u64;
                    s.heads = c.n_heads as u64;
                    s.layers = c.n_layers as u64;
                    s.d_ff = c.d_ff as u64;
                }
            }
        });
        let slider =
            |ui: &mut Ui, v: &mut u64, range: std::ops::RangeInclusive<u64>, text: &str| {
                crate::app::widgets::fit::whole(ui, text.to_string(), |ui| {
                    let label = math_text::widget_text(ui, text);
                    let value = *v as f64;
                    let slider = ui.add(egui::Slider::new(v, range).logarithmic(true).text(label));
                    math_text::name_slider(&slider, text, value);
                });
            };
        ui.horizontal_wrapped(|ui| {
            slider(ui, &mut s.l, LENGTHS, &t!("cost-slider-length"));
            slider(ui, &mut s.d, WIDTHS, &t!("cost-slider-width"));
            crate::app::widgets::fit::add(
                ui,
                egui::Slider::new(&mut s.k, KERNELS).text(t!("cost-slider-kernel")),
            );
            slider(ui, &mut s.d_ff, HIDDEN, "d_ff");
            slider(ui, &mut s.heads, HEADS, &t!("cost-slider-heads"));
            slider(ui, &mut s.layers, LAYERS, &t!("cost-slider-layers"));
            slider(ui, &mut s.batch, BATCHES, &t!("cost-slider-batch"));
        });
    }

    /// Everything shown, as JSON (the export).
    fn json(&self) -> Option<Vec<u8>> {
        let s = &self.sizes;
        let layers: Vec<serde_json::Value> = maths::layer_costs(s)
            .iter()
            .map(|c| {
                serde_json::json!({"layer": c.name, "formula": c.formula,
                    "multiply_adds": c.mixing.to_string(), "sequential": c.sequential.to_string(),
                    "path": c.path})
            })
            .collect();
        let m = maths::memory(s);
        let p = maths::block_params(s);
        let t = whole_model::training_memory(s);
        let value = serde_json::json!({
            "sizes": {"L": s.l, "D": s.d, "K": s.k, "d_ff": s.d_ff, "heads": s.heads,
                      "layers": s.layers, "batch": s.batch},
            "per_layer": layers,
            "memory_values": {"rnn": m.rnn.to_string(), "self_attention": m.attention.to_string(),
                              "all_attention_weights": m.all_weights.to_string()},
            "block_parameters": {"attention": p.attention.to_string(),
                                 "feed_forward": p.ffn.to_string(), "total": p.total().to_string()},
            "encoder_decoder_parameters": whole_model::encoder_decoder(s, whole_model::SHARED_VOCAB).total().to_string(),
            "training_memory_bytes": {"attention": t.attention.to_string(),
                "attention_every_layer": t.attention_all.to_string(), "activations": t.activations.to_string(),
                "parameters": t.parameters.to_string(), "gradients": t.gradients.to_string(),
                "adam": t.optimizer.to_string(), "total": t.total().to_string()},
        });
        serde_json::to_vec_pretty(&value).ok()
    }
}

/// The three layers side by side, the cheapest mixing in bold.
fn layer_table(ui: &mut Ui, s: &Sizes) {
    let costs = maths::layer_costs(s);
    let cheapest = costs.iter().map(|c| c.mixing).min().unwrap_or(0);
    egui::Grid::new("cost_layers")
        .striped(true)
        .spacing([18.0, 4.0])
        .show(ui, |ui| {
            for h in [
                t!("cost-header-layer"),
                t!("cost-header-work"),
                String::new(),
                t!("cost-header-steps"),
                t!("cost-header-path"),
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for c in &costs {
                ui.label(&c.name);
                ui.monospace(c.formula);
                let value = RichText::new(count(c.mixing)).monospace();
                ui.label(if c.mixing == cheapest {
                    value.strong()
                } else {
                    value
                });
                ui.monospace(grouped(c.sequential));
                math_text::label(ui, &c.path);
                ui.end_row();
            }
        });
    let [attn, rnn, _] = &costs;
    let verdict = match s.l.cmp(&s.d) {
        std::cmp::Ordering::Less => t!(
            "cost-verdict-less",
            l = s.l,
            d = s.d,
            attention = count(attn.mixing),
            recurrent = count(rnn.mixing)
        ),
        std::cmp::Ordering::Equal => t!("cost-verdict-equal", l = s.l),
        std::cmp::Ordering::Greater => t!(
            "cost-verdict-greater",
            l = s.l,
            d = s.d,
            attention = count(attn.mixing),
            recurrent = count(rnn.mixing)
        ),
    };
    ui.label(RichText::new(verdict).strong());
}

/// log₁₀ of each layer's work against log₁₀ L at the current D and K: the crossover at L = D.
fn cost_plot(ui: &mut Ui, s: &Sizes) {
    let curve = |f: &dyn Fn(u64) -> u128| -> Vec<[f64; 2]> {
        (0..=100)
            .map(|i| {
                let l = 10f64.powf(i as f64 * 5.0 / 100.0).round().max(1.0) as u64;
                [(l as f64).log10(), (f(l) as f64).log10()]
            })
            .collect()
    };
    let at = |l: u64| Sizes { l, ..*s };
    let mut words = PlotWords::new(t!("cost-plot-title"), "log₁₀ L");
    words.mark(&t!("cost-plot-mark"), (s.l as f64).log10());
    let plot = Plot::new("cost_curves")
        .height(200.0)
        .legend(Legend::default().position(Corner::LeftTop))
        .x_axis_label("log₁₀ L")
        .y_axis_label(t!("cost-plot-y"))
        .allow_scroll(false)
        .show(ui, |plot| {
            for (i, name) in [
                t!("cost-series-attention"),
                t!("cost-series-recurrent"),
                t!("cost-series-convolution"),
            ]
            .into_iter()
            .enumerate()
            {
                let points = curve(&|l| maths::layer_costs(&at(l))[i].mixing);
                plot.line(words.line(name, points));
            }
            plot.vline(VLine::new(t!("cost-plot-now"), (s.l as f64).log10()));
        });
    words.add(ui, &plot.response);
}

/// Rows of (what, formula, count) as a striped grid; `extra` adds a column from the count.
fn formula_table(
    ui: &mut Ui,
    id: &str,
    rows: &[(String, &str, u128)],
    written: fn(u128) -> String,
    extra: Option<fn(u128) -> String>,
) {
    egui::Grid::new(id)
        .striped(true)
        .spacing([18.0, 3.0])
        .show(ui, |ui| {
            for (name, formula, n) in rows {
                let (formula, n) = (*formula, *n);
                math_text::label(ui, name);
                math_text::monospace(ui, formula);
                ui.monospace(written(n));
                if let Some(f) = extra {
                    ui.monospace(f(n));
                }
                ui.end_row();
            }
        });
}

/// One attention block and its feed-forward layer at length L: which term dominates.
fn block_work(ui: &mut Ui, s: &Sizes) {
    let w = maths::attention_work(s);
    ui.strong(t!("cost-block-heading"));
    let rows = [
        (t!("cost-block-projections"), "4·L·D²", w.projections),
        (t!("cost-block-scores"), "L²·D", w.scores),
        (t!("cost-block-weighted-sum"), "L²·D", w.weighted_sum),
        (t!("cost-block-ffn"), "2·L·D·d_ff", w.ffn),
    ];
    formula_table(ui, "cost_block", &rows, count, None);
    // The notes' example for N = 6, D = 512, L = 100, computed here, not copied.
    let notes = Sizes::default();
    let nw = maths::attention_work(&notes);
    let n = notes.layers as u128;
    let (l, d) = (notes.l as u128, notes.d as u128);
    crate::app::widgets::math_text::weak(
        ui,
        &t!(
            "cost-block-notes",
            attention = grouped((nw.scores + nw.weighted_sum) * n),
            square = grouped(2 * n * l * d * d),
            ffn = grouped(nw.ffn * n)
        ),
    );
}

/// What the attention matrices hold.
fn memory_table(ui: &mut Ui, s: &Sizes) {
    let m = maths::memory(s);
    ui.strong(t!("cost-memory-heading"));
    let rows = [
        (t!("cost-memory-one"), "L²", m.one_matrix),
        (t!("cost-memory-rnn"), "L·D", m.rnn),
        (t!("cost-memory-attention"), "L² + L·D", m.attention),
        (t!("cost-memory-all"), "B·N·h·L²", m.all_weights),
    ];
    formula_table(
        ui,
        "cost_memory",
        &rows,
        count,
        Some(|n| format!("{} · {}", maths::bytes(4 * n), maths::binary_bytes(4 * n))),
    );
    ui.weak(t!("cost-binary-units"));
    // Multi-head attention splits D into h heads: the same work, h matrices of weights.
    let one = maths::memory(&Sizes { heads: 1, ..*s });
    crate::app::widgets::math_text::label(
        ui,
        &t!(
            "cost-heads-same-cost",
            heads = s.heads,
            d = s.d,
            dk = format!("{:.4}", s.d as f64 / s.heads.max(1) as f64)
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string(),
            params = grouped(maths::block_params(s).attention),
            scores = grouped(maths::attention_work(s).scores),
            weights = grouped(m.all_weights),
            one = grouped(one.all_weights)
        ),
    );
}

/// The textbook block's parameters at these sizes.
fn params_table(ui: &mut Ui, s: &Sizes) {
    let p = maths::block_params(s);
    ui.strong(t!("cost-params-heading"));
    let rows = [
        (t!("cost-params-attention"), "4·D²", p.attention),
        (t!("cost-params-biases"), "4·D", p.attention_bias),
        (t!("cost-params-ffn"), "2·D·d_ff", p.ffn),
        (t!("cost-params-biases"), "d_ff + D", p.ffn_bias),
        (t!("cost-params-norms"), "2·2·D", p.norms),
        (t!("cost-params-block"), "", p.total()),
    ];
    formula_table(ui, "cost_params", &rows, grouped, None);
    ui.label(t!(
        "cost-params-total",
        blocks = s.layers,
        total = grouped(p.total() * s.layers as u128),
        share = format!("{:.0}", 100.0 * p.ffn as f64 / p.total().max(1) as f64)
    ));
}

/// The picked model's parameters, counted from its tensors, beside the formulas.
fn model_table(ui: &mut Ui, shared: &Shared<'_>) {
    let Ok(model) = &shared.bench.model else {
        ui.weak(t!("cost-model-none"));
        return;
    };
    let c = &model.config;
    let p = maths::model_params(c);
    ui.strong(t!(
        "cost-model-heading",
        name = &c.name,
        total = grouped(p.total)
    ));
    ui.weak(t!("cost-model-counted"));
    crate::app::widgets::math_text::weak(
        ui,
        &t!(
            "cost-model-sizes",
            d = c.d_model,
            heads = c.n_heads,
            kv = c.n_kv_heads,
            d_head = c.d_head(),
            d_ff = c.d_ff,
            layers = c.n_layers
        ),
    );
    egui::Grid::new("cost_model")
        .striped(true)
        .spacing([18.0, 3.0])
        .show(ui, |ui| {
            for h in [
                t!("cost-header-part"),
                t!("cost-header-counted"),
                t!("cost-header-formula"),
                String::new(),
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for row in &p.rows {
                math_text::label(ui, &row.part.name());
                ui.monospace(grouped(row.counted));
                match &row.formula {
                    Some((f, n)) => {
                        math_text::monospace(ui, f);
                        let same = if *n == row.counted {
                            t!("cost-model-same")
                        } else {
                            t!("cost-model-differs")
                        };
                        ui.monospace(format!("{} {same}", grouped(*n)));
                    }
                    None => {
                        ui.label("");
                        ui.label("");
                    }
                }
                ui.end_row();
            }
        });
}

impl Lab for CostLab {
    fn id(&self) -> &'static str {
        "cost"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    fn uses_shared_model(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            let json = || self.json();
            let label = t!("cost-export-json");
            let data: [export::DataFile<'_>; 1] = [(&label, "glimpse-cost.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-cost.png", &data);
        });
        ui.label(t!("cost-intro"));
        self.sliders(ui, shared);
        ui.add_space(4.0);
        let s = self.sizes;
        layer_table(ui, &s);
        cost_plot(ui, &s);
        crate::app::widgets::fit::columns(ui, 2, 380.0, |cols| {
            block_work(&mut cols[0], &s);
            memory_table(&mut cols[1], &s);
        });
        ui.add_space(6.0);
        crate::app::widgets::fit::columns(ui, 2, 380.0, |cols| {
            params_table(&mut cols[0], &s);
            model_table(&mut cols[1], shared);
        });
        // Full width, one under the other: their text is long and their grids wide.
        ui.add_space(6.0);
        whole_model::original_table(ui);
        ui.add_space(6.0);
        whole_model::training_table(ui, &s);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["cl", "cd", "ck", "cff", "ch", "cn", "cb"]
    }

    fn save(&self, w: &mut LinkWriter) {
        let s = &self.sizes;
        w.put("cl", s.l);
        w.put("cd", s.d);
        w.put("ck", s.k);
        w.put("cff", s.d_ff);
        w.put("ch", s.heads);
        w.put("cn", s.layers);
        w.put("cb", s.batch);
    }

    fn load(&mut self, r: &mut LinkReader) {
        let s = &mut self.sizes;
        for (key, field, range) in [
            ("cl", &mut s.l, LENGTHS),
            ("cd", &mut s.d, WIDTHS),
            ("ck", &mut s.k, KERNELS),
            ("cff", &mut s.d_ff, HIDDEN),
            ("ch", &mut s.heads, HEADS),
            ("cn", &mut s.layers, LAYERS),
            ("cb", &mut s.batch, BATCHES),
        ] {
            if let Some(x) = r.number(key, range) {
                *field = x;
            }
        }
    }
}
