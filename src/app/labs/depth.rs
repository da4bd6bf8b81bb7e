//! Depth: the residual stream and the gradients through a stack of N blocks, pre-norm beside
//! post-norm, on fresh models of the same task; the picked model's own stream, block by
//! block; and the 2^(2N) paths the residual connections open.

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::model::config::NormPlacement;
use crate::train::depth::{at_init, residual_paths, stream_norms, DepthProbe, TASK};
use egui::{RichText, Ui};
use egui_plot::{Legend, Line, Plot, PlotPoints};

/// Blocks the slider allows.
pub const LAYERS: std::ops::RangeInclusive<usize> = 2..=24;

/// Pre-norm's probe and post-norm's.
type Probes = [DepthProbe; 2];

pub struct DepthLab {
    pub layers: usize,
    pub seed: u64,
    /// Pre-norm and post-norm probes, for (layers, seed).
    computed: Option<((usize, u64), Result<Probes, String>)>,
}

impl Default for DepthLab {
    fn default() -> Self {
        Self {
            layers: 12,
            seed: 1,
            computed: None,
        }
    }
}

impl DepthLab {
    /// The two probes for the current settings, computed once.
    pub fn probes(&mut self) -> Result<&Probes, String> {
        let key = (self.layers, self.seed);
        if self.computed.as_ref().is_none_or(|(k, _)| *k != key) {
            let probe = |norm| at_init(self.layers, norm, self.seed).map_err(|e| e.to_string());
            let result =
                probe(NormPlacement::Pre).and_then(|pre| Ok([pre, probe(NormPlacement::Post)?]));
            self.computed = Some((key, result));
        }
        match &self.computed {
            Some((_, Ok(p))) => Ok(p),
            Some((_, Err(e))) => Err(e.clone()),
            None => Err(String::new()),
        }
    }
}

fn name(norm: NormPlacement) -> &'static str {
    match norm {
        NormPlacement::Pre => "pre-norm",
        NormPlacement::Post => "post-norm",
    }
}

/// One line per placement of `values(probe)` against the block index.
fn by_block(
    ui: &mut Ui,
    id: &str,
    y_label: &str,
    probes: &Probes,
    values: impl Fn(&DepthProbe) -> Vec<f32>,
    x_label: &str,
) {
    Plot::new(id)
        .height(200.0)
        .legend(Legend::default())
        .x_axis_label(x_label)
        .y_axis_label(y_label)
        .include_y(0.0)
        .allow_scroll(false)
        .show(ui, |p| {
            for probe in probes {
                let points: PlotPoints = values(probe)
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| [i as f64, v as f64])
                    .collect();
                p.line(Line::new(name(probe.norm), points));
            }
        });
}

impl Lab for DepthLab {
    fn id(&self) -> &'static str {
        "depth"
    }

    fn title(&self) -> &'static str {
        "Depth"
    }

    fn uses_shared_input(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        let data = self.probes().ok().cloned();
        ui.horizontal_wrapped(|ui| {
            let json = || serde_json::to_vec_pretty(data.as_ref()?).ok();
            let files: [export::DataFile<'_>; 1] =
                [("probes as JSON", "glimpse-depth.json".into(), &json)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-depth.png", &files);
        });
        ui.label(
            "Stack N blocks and compare where the LayerNorm goes. Post-norm (the original \
             transformer) normalises the stream after each sub-layer: x ← LN(x + F(x)). \
             Pre-norm (most models today) normalises only what each sub-layer reads: \
             x ← x + F(LN(x)), so the stream is a running sum and the gradient has a path \
             through every residual connection untouched.",
        );
        ui.horizontal_wrapped(|ui| {
            ui.add(egui::Slider::new(&mut self.layers, LAYERS).text("blocks N"));
            ui.add(egui::DragValue::new(&mut self.seed).prefix("seed "));
        });
        let n = self.layers as u32;
        ui.label(
            RichText::new(format!(
                "Paths: each block has two residual connections, and at each one a path goes \
                 through the sub-layer or around it: 2^(2N) = 2^{} = {} paths from input to \
                 output (the notes' 6 layers: 2¹² = 4,096).",
                2 * n,
                crate::util::grouped(residual_paths(n) as u128)
            ))
            .strong(),
        );
        let probes = match self.probes() {
            Ok(p) => p.clone(),
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        ui.add_space(4.0);
        ui.weak(format!(
            "Fresh, untrained models of the {} task (d = 32, 4 heads), the same seed and \
             examples for both placements.",
            TASK.name()
        ));
        ui.strong("‖x‖ of the residual stream entering each block (then leaving the last)");
        by_block(
            ui,
            "depth_stream",
            "‖x‖",
            &probes,
            |p| p.stream.clone(),
            "block",
        );
        ui.strong("Gradient norm of each block's parameters at initialisation");
        by_block(
            ui,
            "depth_gradients",
            "‖∂loss/∂θ‖",
            &probes,
            |p| p.gradients.clone(),
            "block (0 = nearest the input)",
        );
        let [pre, post] = &probes;
        let last = |p: &DepthProbe| p.gradients.last().copied().unwrap_or(0.0);
        let first = |p: &DepthProbe| p.gradients.first().copied().unwrap_or(0.0);
        ui.label(format!(
            "Post-norm: ‖x‖ is back at √d after every block; the gradient is {:.2} at the block \
             nearest the output and {:.2} at the first. Pre-norm: ‖x‖ grows from {:.1} to {:.1}; \
             the gradient is {:.2} at the first block and {:.2} at the last.",
            last(post),
            first(post),
            pre.stream.first().copied().unwrap_or(0.0),
            pre.stream.last().copied().unwrap_or(0.0),
            first(pre),
            last(pre),
        ));
        picked_model(ui, shared);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["dn", "dseed"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("dn", self.layers);
        w.put("dseed", self.seed);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(n) = r.number("dn", LAYERS) {
            self.layers = n;
        }
        if let Some(s) = r.number("dseed", 0..=u32::MAX as u64) {
            self.seed = s;
        }
    }
}

/// The picked (trained) model's own stream, block by block, on the shared input.
fn picked_model(ui: &mut Ui, shared: &Shared<'_>) {
    let (Ok(model), Some(trace)) = (&shared.bench.model, shared.bench.trace()) else {
        return;
    };
    let Some(stack) = trace.decoder.as_ref().or(trace.encoder.as_ref()) else {
        return;
    };
    let norms = stream_norms(stack);
    if norms.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong(format!(
        "{} ({}, trained, {} blocks, d = {}): ‖x‖ entering each block on the input",
        shared.bench.model_name,
        name(model.config.norm),
        model.config.n_layers,
        model.config.d_model
    ));
    let points: PlotPoints = norms
        .iter()
        .enumerate()
        .map(|(i, &v)| [i as f64, v as f64])
        .collect();
    Plot::new("depth_picked")
        .height(160.0)
        .x_axis_label("block")
        .y_axis_label("‖x‖")
        .include_y(0.0)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(Line::new(shared.bench.model_name.clone(), points))
        });
}
