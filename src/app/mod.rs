//! The egui app: navigation, shared state, the loaded model, and the views that draw its
//! trace.

pub mod compute;
pub mod crash;
pub mod decoding;
pub mod explorer;
pub mod export;
pub mod fonts;
pub mod labs;
pub mod lessons;
pub mod link;
pub mod masking;
pub mod positions;
pub mod probe;
pub mod widgets;

use crate::model::heads::HeadStats;
use crate::model::{builtin, AttentionKind, ForwardOptions, Model, PreparedInput, Trace};
use explorer::{Explorer, ExplorerView, Selection};
use probe::scrolling_view;
use probe::{Probe, ProbeHeatmap};

/// What the current view was computed from; a change re-runs the forward pass.
#[derive(Debug, Clone, PartialEq)]
struct RunKey {
    model: String,
    source: String,
    target: String,
    temperature: f32,
}

struct Computed {
    key: RunKey,
    result: Result<(PreparedInput, Trace), String>,
    /// Per attention kind, every head's summary (`[layer][head]`).
    stats: Vec<(AttentionKind, Vec<Vec<HeadStats>>)>,
}

/// The app's top-level views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Lessons,
    Attention,
    Masking,
    Positions,
    Decoding,
    Scoring,
    Training,
}

pub struct GlimpseApp {
    pub view: View,
    pub training: labs::training::TrainingLab,
    model_name: String,
    model: Result<Model, String>,
    source: String,
    target: String,
    pub sel: Selection,
    pub explorer: Explorer,
    pub scoring: labs::scoring::ScoringLab,
    pub masking: masking::MaskingLab,
    pub positions: positions::PositionsLab,
    pub decoding: decoding::DecodingLab,
    pub lessons: lessons::Lessons,
    temperature: f32,
    computed: Option<Computed>,
    /// CPU or GPU, and how long each took.
    pub compute: compute::Compute,
    /// Choose the sharpest head once the first trace of a newly selected model exists.
    pick_head: bool,
    frames: u64,
    probe_written: bool,
    /// What the head heatmap last drew (also published for the browser and desktop tests).
    pub last_probe: Option<Probe>,
    /// Parts of the window a link asked to hide.
    pub hidden: link::Hidden,
    /// Presenter mode: large type for a projector (F toggles it).
    pub presenter: bool,
    /// Light theme instead of dark.
    pub light: bool,
    /// What the last opened link could not read.
    pub notices: Vec<String>,
    /// The hash last written to the address bar (browser).
    last_hash: String,
    /// The zoom and theme last applied to the context.
    applied_look: Option<(bool, bool)>,
    /// PNG / CSV / JSON export of figures (menus in the views, outcome under the top bar).
    pub exporter: export::Exporter,
    /// Where the head heatmap was drawn last frame: the region its PNG export captures.
    head_rect: egui::Rect,
}

impl Default for GlimpseApp {
    fn default() -> Self {
        let mut app = Self {
            view: View::Attention,
            training: Default::default(),
            model_name: String::new(),
            model: Err(String::new()),
            source: String::new(),
            target: String::new(),
            sel: Selection {
                kind: AttentionKind::DecoderSelf,
                layer: 0,
                head: 0,
            },
            explorer: Explorer::default(),
            scoring: Default::default(),
            masking: Default::default(),
            positions: Default::default(),
            decoding: Default::default(),
            lessons: Default::default(),
            temperature: 1.0,
            computed: None,
            compute: Default::default(),
            pick_head: false,
            frames: 0,
            probe_written: false,
            last_probe: None,
            hidden: Default::default(),
            presenter: false,
            light: false,
            notices: Vec::new(),
            last_hash: String::new(),
            applied_look: None,
            exporter: Default::default(),
            head_rect: egui::Rect::NOTHING,
        };
        app.select_model(builtin::BUILTINS[0].name);
        app
    }
}

/// egui draws only on input; a hash change is not input, so ask for a frame.
#[cfg(target_arch = "wasm32")]
fn repaint_on_hash_change(ctx: &egui::Context) {
    use wasm_bindgen::JsCast;
    let ctx = ctx.clone();
    let callback = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || ctx.request_repaint());
    if let Some(window) = web_sys::window() {
        let _ = window
            .add_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    callback.forget();
}

impl GlimpseApp {
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        Self::style(&cc.egui_ctx);
        let mut app = Self::default();
        app.compute.look_for_gpu(&cc.egui_ctx);
        // In the browser, a link's hash reproduces the view it was copied from.
        #[cfg(target_arch = "wasm32")]
        let app = {
            let mut app = app;
            if let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) {
                if hash.len() > 1 {
                    app.open_link(&hash);
                }
                app.last_hash = hash.trim_start_matches('#').to_string();
            }
            repaint_on_hash_change(&cc.egui_ctx);
            app
        };
        app
    }

    /// A link pasted into the address bar of an open tab changes only the hash (no reload):
    /// open it as the page load would have.
    #[cfg(target_arch = "wasm32")]
    fn follow_address_bar(&mut self) {
        let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) else {
            return;
        };
        let hash = hash.trim_start_matches('#');
        if hash.is_empty() || hash == self.last_hash {
            return;
        }
        // Links leave out these three at their defaults; start from the defaults so the view
        // is the one the link was copied from.
        self.presenter = false;
        self.light = false;
        self.hidden = link::Hidden::default();
        self.open_link(hash);
        self.last_hash = hash.to_string();
    }

    /// Reproduce the view a link describes; what it cannot read is listed in `notices`.
    pub fn open_link(&mut self, link: &str) {
        self.notices = link::apply(self, link);
        self.refresh();
    }

    /// Zoom and theme for presenter mode and the light theme; F toggles presenter mode.
    fn look(&mut self, ctx: &egui::Context) {
        if !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(egui::Key::F)) {
            self.presenter = !self.presenter;
        }
        let want = (self.presenter, self.light);
        if self.applied_look != Some(want) {
            ctx.set_zoom_factor(if self.presenter { 1.5 } else { 1.0 });
            // On a projector faint grey text disappears: presenter mode writes everything in
            // the theme's strongest colour.
            let presenter = self.presenter;
            ctx.style_mut_of(egui::Theme::Dark, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::WHITE);
            });
            ctx.style_mut_of(egui::Theme::Light, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::BLACK);
            });
            ctx.set_theme(if self.light {
                egui::Theme::Light
            } else {
                egui::Theme::Dark
            });
            self.applied_look = Some(want);
        }
    }

    /// Keep the address bar's hash in step with the view, so copying the URL shares it.
    fn sync_hash(&mut self) {
        let hash = link::encode(self);
        if hash == self.last_hash {
            return;
        }
        #[cfg(target_arch = "wasm32")]
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let url = format!("#{hash}");
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.last_hash = hash;
    }

    /// Fonts and theme: the same natively and in the browser, whatever the system prefers.
    pub fn style(ctx: &egui::Context) {
        fonts::install(ctx);
        ctx.options_mut(|o| o.theme_preference = egui::ThemePreference::Dark);
    }

    pub(crate) fn select_model(&mut self, name: &str) {
        self.model_name = name.to_string();
        self.model = builtin::load(name).map_err(|e| e.to_string());
        if let Some(info) = builtin::info(name) {
            self.source = info.example_source.to_string();
            self.target = info.example_target.to_string();
        }
        self.computed = None;
        // Open on the most telling view: cross-attention when there is one, in the last layer,
        // where trained models show their clearest alignment.
        if let Ok(m) = &self.model {
            self.sel.kind = AttentionKind::most_telling(m.config.family);
            self.sel.layer = m.config.n_layers.saturating_sub(1);
        }
        self.sel.head = 0;
        self.pick_head = true;
    }

    fn key(&self) -> RunKey {
        RunKey {
            model: self.model_name.clone(),
            source: self.source.clone(),
            target: self.target.clone(),
            temperature: self.temperature,
        }
    }

    /// Re-run the forward pass when anything it depends on changed.
    fn refresh(&mut self) {
        let key = self.key();
        if self.computed.as_ref().is_some_and(|c| c.key == key) && !self.compute.wants_rerun() {
            self.take_gpu_answer();
            return;
        }
        let result = match &self.model {
            Ok(m) => {
                let prepared = m.prepare(&self.source, &self.target);
                let opts = ForwardOptions {
                    temperature: self.temperature,
                    ..Default::default()
                };
                self.compute
                    .forward(m, &prepared.input, &opts)
                    .map(|t| (prepared, t))
                    .map_err(|e| e.to_string())
            }
            Err(e) => Err(e.clone()),
        };
        self.accept(key, result);
    }

    /// The browser's GPU answers a frame or more after the CPU: show its trace when it comes.
    fn take_gpu_answer(&mut self) {
        let Some(Computed {
            key,
            result: Ok((prepared, trace)),
            ..
        }) = &self.computed
        else {
            return;
        };
        if let Some(gpu_trace) = self.compute.poll(trace) {
            let (key, prepared) = (key.clone(), prepared.clone());
            self.accept(key, Ok((prepared, gpu_trace)));
        }
    }

    /// Shows a new trace: keeps the selection valid and summarises every head.
    fn accept(&mut self, key: RunKey, result: Result<(PreparedInput, Trace), String>) {
        if let Ok((_, trace)) = &result {
            let kinds = trace.attention_kinds();
            if !kinds.contains(&self.sel.kind) {
                self.sel.kind = kinds.last().copied().unwrap_or(AttentionKind::EncoderSelf);
            }
        }
        if let (true, Ok((_, trace))) = (self.pick_head, &result) {
            if let Some(w) = trace.weights(self.sel.kind, self.sel.layer) {
                self.sel.head = crate::model::heads::sharpest_head(w);
            }
            self.pick_head = false;
        }
        let stats = match &result {
            Ok((prepared, trace)) => trace
                .attention_kinds()
                .into_iter()
                .map(|k| {
                    let ids = match k {
                        AttentionKind::EncoderSelf => &prepared.input.source,
                        _ => &prepared.input.target,
                    };
                    (k, explorer::grid::all_stats(trace, k, ids))
                })
                .collect(),
            Err(_) => vec![],
        };
        self.computed = Some(Computed { key, result, stats });
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        ui.heading("Input");
        let family = self.model.as_ref().map(|m| m.config.family).ok();
        let two_sided = family.is_some_and(|f| f.has_encoder() && f.has_decoder());
        let source_label = ui.label(if two_sided {
            "Source (encoder)"
        } else {
            "Text"
        });
        ui.add(egui::TextEdit::singleline(&mut self.source).desired_width(f32::INFINITY))
            .labelled_by(source_label.id);
        if two_sided {
            let target_label = ui.label("Target (decoder, after <bos>)");
            ui.add(egui::TextEdit::singleline(&mut self.target).desired_width(f32::INFINITY))
                .labelled_by(target_label.id);
        }
        if let Some(Ok((prepared, _))) = self.computed.as_ref().map(|c| &c.result) {
            if prepared.unknown > 0 {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "{} piece(s) not in the vocabulary are shown as <unk>",
                        prepared.unknown
                    ),
                );
            }
            if prepared.truncated > 0 {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "input cut: {} token(s) past the model's limit",
                        prepared.truncated
                    ),
                );
            }
        }
        ui.separator();
        ui.heading("Attention");
        let Some(Ok((_, trace))) = self.computed.as_ref().map(|c| &c.result) else {
            return;
        };
        let kinds = trace.attention_kinds();
        let layers = trace.layers(self.sel.kind);
        let heads = trace
            .weights(self.sel.kind, 0)
            .map_or(1, |w| w.len_of(ndarray::Axis(0)));
        for kind in kinds {
            ui.radio_value(&mut self.sel.kind, kind, kind.label());
        }
        self.sel.clamp_to(trace);
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.sel.layer, 0..=layers.saturating_sub(1)).text("layer"),
        );
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.sel.head, 0..=heads.saturating_sub(1)).text("head"),
        );
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.temperature, 0.05..=5.0)
                .logarithmic(true)
                .text("temperature τ"),
        );
        ui.separator();
        ui.heading("Compute");
        self.compute.ui(ui);
        probe::publish_compute(&self.compute.summary());
    }

    /// The masking lab on the app's model, input and selected head.
    pub(crate) fn masking_view(&mut self, ui: &mut egui::Ui) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            let name = format!("glimpse-masking-{}", self.model_name);
            let modes = (self.masking.section == masking::Section::Modes)
                .then_some(&self.masking.modes.shown)
                .and_then(Option::as_ref);
            let csv = || modes.map(|(a, q, k)| export::matrix_csv(a.view(), q, k).into_bytes());
            let json = || modes.map(|(a, q, k)| export::matrix_json(a.view(), q, k).into_bytes());
            let data: &[export::DataFile<'_>] = match modes {
                Some(_) => &[
                    ("A (weights) as CSV", format!("{name}.csv"), &csv),
                    ("A (weights) as JSON", format!("{name}.json"), &json),
                ],
                None => &[],
            };
            export::view_menu(ui, &mut self.exporter, rect, &format!("{name}.png"), data);
        });
        self.masking.ui(
            ui,
            self.model.as_ref().ok(),
            &self.source,
            &self.target,
            self.sel.layer,
            self.sel.head,
        );
    }

    fn attention_view(&mut self, ui: &mut egui::Ui) {
        let Some(computed) = &self.computed else {
            return;
        };
        let trace = match &computed.result {
            Ok((_, t)) => t,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
        };
        self.sel.clamp_to(trace);
        let view_rect = ui.max_rect();
        let (kind, layer) = (self.sel.kind, self.sel.layer);
        // Made only when chosen from the menu: a layer's trace is large.
        let layer_json = || {
            let a = trace.attention(kind, layer)?;
            serde_json::to_vec(a).ok()
        };
        ui.horizontal_wrapped(|ui| {
            for v in ExplorerView::ALL {
                let tab = ui.selectable_value(&mut self.explorer.view, v, v.label());
                probe::control(&format!("view:{}", v.label()), tab.rect);
            }
            if self.explorer.view != ExplorerView::Head {
                // The whole view as a picture, and this layer's attention (every head, every
                // intermediate) as JSON.
                let name = format!(
                    "glimpse-{}-{}-L{}-{}",
                    self.model_name,
                    self.sel.kind.label().replace(' ', "-"),
                    self.sel.layer,
                    self.explorer.view.label().replace(' ', "-").to_lowercase()
                );
                ui.separator();
                export::view_menu(
                    ui,
                    &mut self.exporter,
                    view_rect,
                    &format!("{name}.png"),
                    &[("layer as JSON", format!("{name}.json"), &layer_json)],
                );
            }
        });
        ui.separator();
        let Some(attn) = trace.attention(self.sel.kind, self.sel.layer) else {
            return;
        };
        let stats = computed
            .stats
            .iter()
            .find(|(k, _)| *k == self.sel.kind)
            .map_or(&[][..], |(_, s)| s.as_slice());
        ui.heading(self.sel.describe());
        match self.explorer.view {
            ExplorerView::Head => {
                if let Some(s) = stats.get(self.sel.layer).and_then(|l| l.get(self.sel.head)) {
                    ui.label(format!(
                        "entropy {:.2} of at most {:.2} bits · mean distance {:.2} · {}",
                        s.entropy_bits,
                        s.max_entropy_bits,
                        s.mean_distance,
                        explorer::grid::caption(s)
                    ));
                }
                head_export_menu(
                    ui,
                    &mut self.exporter,
                    self.head_rect,
                    &self.model_name,
                    &self.sel,
                    self.explorer.pre_softmax,
                    attn,
                );
                if let Some(out) = explorer::head::show(ui, attn, &self.sel, &mut self.explorer) {
                    self.head_rect = out.block;
                    let weights = attn.weights.index_axis(ndarray::Axis(0), self.sel.head);
                    let probe = self.probe(ui, &out, weights);
                    probe::publish(&probe);
                    self.last_probe = Some(probe);
                }
            }
            ExplorerView::Grid => {
                if explorer::grid::show(ui, trace, &mut self.sel, stats) {
                    self.explorer.view = ExplorerView::Head;
                }
            }
            ExplorerView::Lines => {
                explorer::lines::show(ui, attn, &mut self.explorer.heads_shown);
            }
            ExplorerView::Walkthrough => {
                let chain = self.model.as_ref().ok().and_then(|m| {
                    explorer::walkthrough::build(m, trace, &self.sel, self.temperature)
                });
                match chain {
                    Some(c) => explorer::walkthrough::show(ui, &c, &self.sel, &mut self.explorer),
                    None => {
                        ui.label("no walkthrough for this selection");
                    }
                }
            }
        }
    }

    /// The scoring and scaling lab on one query of the selected head and its keys.
    fn scoring_view(&mut self, ui: &mut egui::Ui) {
        let attn = match self.computed.as_ref().map(|c| &c.result) {
            Some(Ok((_, trace))) => trace.attention(self.sel.kind, self.sel.layer),
            _ => None,
        };
        let Some(attn) = attn else {
            self.scoring.ui(ui, None);
            return;
        };
        let q_tokens = &attn.query_tokens;
        self.explorer.query = self.explorer.query.min(q_tokens.len().saturating_sub(1));
        ui.horizontal_wrapped(|ui| {
            ui.label("query:");
            for (i, t) in q_tokens.iter().enumerate() {
                ui.selectable_value(&mut self.explorer.query, i, format!("{i} {t}"));
            }
        });
        let (heads, kv_heads) = (
            attn.q.len_of(ndarray::Axis(0)),
            attn.k.len_of(ndarray::Axis(0)),
        );
        let head = self.sel.head.min(heads.saturating_sub(1));
        let kvh = head / (heads / kv_heads.max(1)).max(1);
        let q = attn.q.index_axis(ndarray::Axis(0), head);
        let Some(query) = q.outer_iter().nth(self.explorer.query) else {
            return;
        };
        let input = labs::scoring::ScoringInput {
            query,
            keys: attn.k.index_axis(ndarray::Axis(0), kvh),
            query_label: q_tokens
                .get(self.explorer.query)
                .map_or("?", |s| s.as_str()),
            key_labels: &attn.key_tokens,
            source: format!(
                "{}, query {} “{}”",
                self.sel.describe(),
                self.explorer.query,
                q_tokens
                    .get(self.explorer.query)
                    .map_or("?", |s| s.as_str())
            ),
        };
        self.scoring.ui(ui, Some(&input));
    }

    /// Tell the browser and desktop tests what the head heatmap drew.
    fn probe(
        &self,
        ui: &egui::Ui,
        out: &widgets::heatmap::HeatmapOutput,
        weights: ndarray::ArrayView2<f32>,
    ) -> Probe {
        let probe = Probe {
            frames: self.frames,
            pixels_per_point: ui.ctx().pixels_per_point(),
            model: self.model_name.clone(),
            input: self.source.clone(),
            layer: self.sel.layer,
            head: self.sel.head,
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
        if self.frames <= 1 {
            log::info!(
                "glimpse: first heatmap drawn ({}×{})",
                probe.heatmap.rows,
                probe.heatmap.cols
            );
        }
        probe
    }
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
    attn: &crate::model::attention::AttentionTrace,
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

impl eframe::App for GlimpseApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        // CPU time of the previous frame (the app's UI code and tessellation), for benchmarks.
        if let Some(seconds) = frame.info().cpu_usage {
            probe::frame_time(seconds);
        }
        self.show(ui);
    }
}

impl GlimpseApp {
    /// One frame of the whole app (eframe calls this; so do the UI tests).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.frames += 1;
        probe::start_frame(ui.ctx());
        self.look(ui.ctx());
        self.refresh();
        self.exporter.frame(ui.ctx());
        #[cfg(target_arch = "wasm32")]
        self.follow_address_bar();
        self.sync_hash();
        if !self.notices.is_empty() {
            egui::Panel::top("link_notices").show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!(
                            "Parts of the link were not understood: {}.",
                            self.notices.join("; ")
                        ),
                    );
                    if ui.small_button("dismiss").clicked() {
                        self.notices.clear();
                    }
                });
            });
        }
        if self.hidden.tabs {
            // A focused embed: no tabs, no model picker; the view alone.
        } else {
            self.top_bar(ui);
        }
        self.body(ui);
    }

    /// Tabs, the model picker and the presenter switch.
    fn top_bar(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("top").show(ui, |ui| {
            // Wraps onto a second line on a tablet or at presenter zoom, instead of running off.
            ui.horizontal_wrapped(|ui| {
                ui.heading("Glimpse");
                ui.separator();
                let tab = ui.selectable_value(&mut self.view, View::Lessons, "Lessons");
                probe::control("tab:Lessons", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Attention, "Attention");
                probe::control("tab:Attention", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Masking, "Masking");
                probe::control("tab:Masking", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Positions, "Positions");
                probe::control("tab:Positions", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Decoding, "Decoding");
                probe::control("tab:Decoding", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Scoring, "Scoring");
                probe::control("tab:Scoring", tab.rect);
                let tab = ui.selectable_value(&mut self.view, View::Training, "Training");
                probe::control("tab:Training", tab.rect);
                ui.separator();
                ui.toggle_value(&mut self.presenter, "presenter (F)")
                    .on_hover_text("large type for a projector");
                ui.toggle_value(&mut self.light, "light");
                ui.separator();
                if self.view == View::Training {
                    if !self.presenter {
                        ui.weak("train a model with Glimpse's own backward pass and watch its attention form");
                    }
                    return;
                }
                if self.view == View::Positions {
                    if !self.presenter {
                        ui.weak("every positional scheme, drawn with the functions the model runs, on models trained with it");
                    }
                    return;
                }
                if self.view == View::Decoding {
                    if !self.presenter {
                        ui.weak("beam search as a tree, one step at a time; greedy, sampling and the KV cache");
                    }
                    return;
                }
                if self.view == View::Lessons && !lessons::uses_app_model(self) {
                    ui.weak("guided lessons: read on the left, play with the lab on the right");
                    return;
                }
                let mut chosen = self.model_name.clone();
                egui::ComboBox::from_label("model")
                    .selected_text(&chosen)
                    .show_ui(ui, |ui| {
                        for b in builtin::BUILTINS {
                            ui.selectable_value(&mut chosen, b.name.to_string(), b.name)
                                .on_hover_text(b.description);
                        }
                    });
                if chosen != self.model_name {
                    self.select_model(&chosen);
                    self.refresh();
                }
                // On a projector the room reads the view, not the blurb: presenter mode drops it.
                let about = builtin::info(&self.model_name)
                    .map(|b| b.description)
                    .filter(|_| !self.presenter);
                if let Some(text) = about {
                    ui.weak(text);
                }
            });
            export::message_label(ui, &self.exporter);
            probe::check_fits("top bar", ui);
        });
    }

    /// The selected view below the top bar.
    fn body(&mut self, ui: &mut egui::Ui) {
        if self.view == View::Lessons {
            lessons::show(self, ui);
            return;
        }
        if matches!(self.view, View::Positions | View::Decoding) {
            let fill = ui.visuals().panel_fill;
            egui::CentralPanel::default()
                .frame(egui::Frame::central_panel(ui.style()).fill(fill))
                .show(ui, |ui| {
                    let rect = ui.max_rect();
                    ui.horizontal_wrapped(|ui| {
                        let decoding = &self.decoding;
                        let tree = || {
                            let search = decoding.current()?;
                            serde_json::to_vec_pretty(&search.beam).ok()
                        };
                        let tree_file: [export::DataFile<'_>; 1] =
                            [("beam tree as JSON", "glimpse-beam-tree.json".into(), &tree)];
                        let (png, data): (&str, &[export::DataFile<'_>]) = match self.view {
                            View::Decoding => ("glimpse-beam-tree.png", &tree_file),
                            _ => ("glimpse-positions.png", &[]),
                        };
                        export::view_menu(ui, &mut self.exporter, rect, png, data);
                    });
                    scrolling_view(ui, "view", |ui| match self.view {
                        View::Decoding => self.decoding.ui(ui),
                        _ => self.positions.ui(ui),
                    });
                    probe::check_fits("view", ui);
                });
            return;
        }
        if self.view == View::Training {
            self.training.ui(ui, &mut self.exporter);
            return;
        }
        if !self.hidden.controls {
            // A third of a narrow screen at most, so the view keeps most of a tablet.
            let width = (ui.available_width() * 0.3).clamp(180.0, 300.0);
            egui::Panel::left("controls")
                .default_size(width)
                .show(ui, |ui| {
                    self.controls(ui);
                    probe::check_fits("controls", ui);
                });
        }
        let fill = ui.visuals().panel_fill;
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).fill(fill))
            .show(ui, |ui| {
                scrolling_view(ui, "view", |ui| match self.view {
                    View::Scoring => self.scoring_view(ui),
                    View::Masking => self.masking_view(ui),
                    _ => self.attention_view(ui),
                });
                probe::check_fits("view", ui);
            });
        #[cfg(not(target_arch = "wasm32"))]
        if !self.probe_written && std::env::var_os("GLIMPSE_PROBE").is_some() {
            // Keep drawing until the probe is written: under Xvfb nothing else wakes us.
            ui.ctx().request_repaint();
            if self.frames >= 5 {
                self.probe_written = probe::write_to_env_path();
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        probe::write_side_files();
        #[cfg(target_arch = "wasm32")]
        let _ = self.probe_written;
    }
}
