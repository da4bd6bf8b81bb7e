//! The Attention tab: the explorer's four views over the shared input's trace, with their
//! exports, and the probe that tells the browser and desktop tests what the heatmap drew.

use super::walkthrough::Chain;
use super::{Explorer, ExplorerView, Selection};
use crate::app::labs::{Lab, Shared};
use crate::app::link::{name_of, value_of, LinkReader, LinkWriter};
use crate::app::probe::{self, Probe, ProbeHeatmap};
use crate::app::stepped::{Keyed, Steps};
use crate::app::words::Words;
use crate::app::{export, widgets};
use crate::model::attention::AttentionTrace;
use crate::model::{Model, Trace};
use crate::t;
use std::sync::Arc;

pub const VIEWS: [(ExplorerView, &str); 4] = [
    (ExplorerView::Head, "head"),
    (ExplorerView::Grid, "grid"),
    (ExplorerView::Lines, "lines"),
    (ExplorerView::Walkthrough, "walk"),
];

pub struct AttentionLab {
    pub explorer: Explorer,
    /// What the head heatmap last drew (also published for the browser and desktop tests).
    pub last_probe: Option<Probe>,
    /// Where the head heatmap was drawn last frame: the region its PNG export captures.
    head_rect: egui::Rect,
    /// The walkthrough last built, or being built, and what it was built from: a real model's
    /// FFN and vocabulary steps take longer than a frame (on the engine worker where it can).
    walk: Keyed<WalkKey, BuildChain>,
}

/// A walkthrough's chain built in one step, from the shared trace (none without a model).
struct BuildChain {
    model: Option<Arc<Model>>,
    trace: Arc<Trace>,
    sel: Selection,
    temperature: f32,
}

impl Steps for BuildChain {
    type Output = Option<Box<Chain>>;
    type Progress = ();

    fn step(&mut self) -> Option<Self::Output> {
        let model = self.model.as_ref();
        Some(model.and_then(|m| {
            super::walkthrough::build(m, &self.trace, &self.sel, self.temperature).map(Box::new)
        }))
    }

    fn progress(&self) {}
}

/// What a walkthrough depends on: the model, the pass (its serial: a new input is a new
/// pass) and the selected head (not the query, which only the drawing reads).
#[derive(Clone, PartialEq)]
struct WalkKey {
    model: String,
    pass: u64,
    temperature: u32,
    kind: crate::model::AttentionKind,
    layer: usize,
    head: usize,
    /// The language its words were written in.
    lang: &'static str,
}

impl Default for AttentionLab {
    fn default() -> Self {
        Self {
            explorer: Explorer::default(),
            last_probe: None,
            head_rect: egui::Rect::NOTHING,
            walk: Keyed::default(),
        }
    }
}

impl Lab for AttentionLab {
    fn id(&self) -> &'static str {
        "attention"
    }

    fn uses_shared_input(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        self.views(ui, shared);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["xv", "pre", "step"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("xv", name_of(&VIEWS, self.explorer.view));
        w.put("pre", self.explorer.pre_softmax as u8);
        w.put("step", self.explorer.step);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.read("xv", |v| value_of(&VIEWS, v)) {
            self.explorer.view = x;
        }
        if let Some(x) = r.flag("pre") {
            self.explorer.pre_softmax = x;
        }
        if let Some(x) = r.number("step", 0..64) {
            self.explorer.step = x;
        }
    }

    fn sections(&self) -> Vec<String> {
        VIEWS
            .iter()
            .map(|(_, xv)| format!("view=attention&model=translate&xv={xv}"))
            .collect()
    }
}

impl AttentionLab {
    fn views(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let bench = &mut *shared.bench;
        let Some(computed) = &bench.computed else {
            return;
        };
        let trace = match &computed.result {
            Ok((_, t)) => t,
            Err(e) if shared.store.is_loading(&bench.model_name) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(e);
                });
                return;
            }
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        bench.sel.clamp_to(trace);
        let pass = computed.serial;
        let view_rect = ui.max_rect();
        let (kind, layer) = (bench.sel.kind, bench.sel.layer);
        // Made only when chosen from the menu: a layer's trace is large.
        let layer_json = || {
            let a = trace.attention(kind, layer)?;
            serde_json::to_vec(a).ok()
        };
        ui.horizontal_wrapped(|ui| {
            for v in ExplorerView::ALL {
                let tab = ui.selectable_value(&mut self.explorer.view, v, v.label());
                probe::control(&format!("view:{}", v.name()), tab.rect);
            }
            if self.explorer.view != ExplorerView::Head {
                // The whole view as a picture, and this layer's attention (every head, every
                // intermediate) as JSON.
                let name = format!(
                    "glimpse-{}-{}-L{}-{}",
                    bench.model_name,
                    kind.label().replace(' ', "-"),
                    layer,
                    self.explorer.view.name().replace(' ', "-").to_lowercase()
                );
                ui.separator();
                let layer_as_json = t!("attention-export-layer-json");
                export::view_menu(
                    ui,
                    shared.exporter,
                    view_rect,
                    &format!("{name}.png"),
                    &[(&layer_as_json, format!("{name}.json"), &layer_json)],
                );
            }
        });
        ui.separator();
        let Some(attn) = trace.attention(bench.sel.kind, bench.sel.layer) else {
            return;
        };
        let stats = computed
            .stats
            .iter()
            .find(|(k, _)| *k == bench.sel.kind)
            .map_or(&[][..], |(_, s)| s.as_slice());
        ui.heading(bench.sel.describe());
        match self.explorer.view {
            ExplorerView::Head => {
                if let Some(s) = stats
                    .get(bench.sel.layer)
                    .and_then(|l| l.get(bench.sel.head))
                {
                    // The label, then the next best scores: a lesson may name a head by its
                    // second pattern (an induction head that also looks at the first token).
                    let others: Vec<String> = s
                        .scores
                        .iter()
                        .filter(|p| s.label.as_ref().is_none_or(|l| l.pattern != p.pattern))
                        .take(2)
                        .map(|p| format!("{} {:.2}", p.pattern.words(), p.score))
                        .collect();
                    ui.label(t!(
                        "attention-head-stats",
                        entropy = format!("{:.2}", s.entropy_bits),
                        max = format!("{:.2}", s.max_entropy_bits),
                        distance = format!("{:.2}", s.mean_distance),
                        pattern = super::grid::caption(s),
                        next = others.join(", ")
                    ));
                }
                head_export_menu(
                    ui,
                    shared.exporter,
                    self.head_rect,
                    &bench.model_name,
                    &bench.sel,
                    self.explorer.pre_softmax,
                    attn,
                );
                if let Some(out) = super::head::show(ui, attn, &mut bench.sel, &mut self.explorer) {
                    self.head_rect = out.block;
                    let weights = attn.weights.index_axis(ndarray::Axis(0), bench.sel.head);
                    let probe = probe_of(
                        ui,
                        shared.frames,
                        &bench.model_name,
                        bench.shown_source(),
                        &bench.sel,
                        &out,
                        weights,
                    );
                    probe::publish(&probe);
                    self.last_probe = Some(probe);
                }
            }
            ExplorerView::Grid => {
                let picked = super::finder::show(ui, stats, &mut bench.sel);
                if super::grid::show(ui, trace, pass, &mut bench.sel, stats) || picked {
                    self.explorer.view = ExplorerView::Head;
                }
            }
            ExplorerView::Lines => {
                super::lines::show(ui, attn, &mut self.explorer.heads_shown);
            }
            ExplorerView::Walkthrough => {
                let key = WalkKey {
                    model: bench.model_name.clone(),
                    pass,
                    temperature: bench.temperature.to_bits(),
                    kind: bench.sel.kind,
                    layer: bench.sel.layer,
                    head: bench.sel.head,
                    lang: crate::i18n::current(),
                };
                let build = || BuildChain {
                    model: bench.model.as_ref().ok().map(Arc::clone),
                    trace: Arc::clone(trace),
                    sel: bench.sel,
                    temperature: bench.temperature,
                };
                match self.walk.get(&key, build) {
                    Some(Ok(Some(c))) => {
                        super::walkthrough::show(ui, c, &mut bench.sel, &mut self.explorer)
                    }
                    Some(Err(crash)) => {
                        ui.colored_label(ui.visuals().error_fg_color, crash);
                    }
                    None => {
                        ui.horizontal(|ui| {
                            ui.spinner();
                            ui.label(format!("{}…", t!("models-pass-computing-word")));
                        });
                        ui.ctx().request_repaint();
                    }
                    _ => {
                        ui.label(t!("attention-no-walkthrough"));
                    }
                }
            }
        }
    }
}

/// What the head heatmap drew, for the browser and desktop tests.
fn probe_of(
    ui: &egui::Ui,
    frames: u64,
    model: &str,
    input: &str,
    sel: &Selection,
    out: &widgets::heatmap::HeatmapOutput,
    weights: ndarray::ArrayView2<f32>,
) -> Probe {
    let probe = Probe {
        frames,
        pixels_per_point: ui.ctx().pixels_per_point(),
        model: model.to_string(),
        input: input.to_string(),
        layer: sel.layer,
        head: sel.head,
        heatmap: ProbeHeatmap {
            rect: [
                out.cells.left(),
                out.cells.top(),
                out.cells.right(),
                out.cells.bottom(),
            ],
            rows: out.colors.len(),
            cols: out.colors.first().map_or(0, Vec::len),
            colors: out
                .colors
                .iter()
                .map(|r| r.iter().map(|c| [c.r(), c.g(), c.b()]).collect())
                .collect(),
            values: weights.rows().into_iter().map(|r| r.to_vec()).collect(),
            textured: out.textured,
        },
    };
    if frames <= 1 {
        log::info!(
            "glimpse: first heatmap drawn ({}×{})",
            probe.heatmap.rows,
            probe.heatmap.cols
        );
    }
    probe
}

/// Export of the One head view: the matrix shown (weights, or the softmax input with
/// masked cells left empty) and the heatmap as drawn last frame.
fn head_export_menu(
    ui: &mut egui::Ui,
    exporter: &mut export::Exporter,
    rect: egui::Rect,
    model_name: &str,
    sel: &Selection,
    pre_softmax: bool,
    attn: &AttentionTrace,
) {
    let head = sel.head;
    let (values, what) = if pre_softmax {
        let mut logits = attn.logits.index_axis(ndarray::Axis(0), head).to_owned();
        logits.zip_mut_with(&attn.mask, |v, &allowed| {
            if !allowed {
                *v = f32::NAN;
            }
        });
        (logits, "scores")
    } else {
        (
            attn.weights.index_axis(ndarray::Axis(0), head).to_owned(),
            "weights",
        )
    };
    let name = format!(
        "glimpse-{}-{}-L{}-H{}-{what}",
        model_name,
        sel.kind.label().replace(' ', "-"),
        sel.layer,
        head
    );
    ui.horizontal_wrapped(|ui| {
        export::export_menu(
            ui,
            exporter,
            rect,
            &name,
            Some((values.view(), &attn.query_tokens, &attn.key_tokens)),
        );
    });
}
