//! The shared input's controls: the model picker and its loading line in the top bar, and
//! the panel on the left (text, attention kind, layer, head, query, temperature, compute
//! path) with the notes on pieces a toy vocabulary lacks.

use super::*;
use crate::app::words::Words;
use crate::t;

impl Workbench {
    /// The model picker of the top bar, with the model's one-line description.
    pub fn model_picker(&mut self, ui: &mut egui::Ui, store: &ModelStore, presenter: bool) {
        let mut chosen = self.model_name.clone();
        let picker = egui::ComboBox::new("model", t!("workbench-model"))
            .selected_text(&chosen)
            .height(560.0)
            .show_ui(ui, |ui| {
                // Real models first: they are what a class comes for.
                let served = store.served();
                if !served.is_empty() {
                    ui.weak(t!("workbench-real-models"));
                }
                for (served, bytes) in served {
                    let label = format!("{} ({})", served.name, sources::megabytes(bytes));
                    ui.selectable_value(&mut chosen, served.name.to_string(), label)
                        .on_hover_text(t!(
                            "workbench-served-hover",
                            description = served.description(),
                            licence = served.licence
                        ));
                }
                let opened = store.opened();
                if !opened.is_empty() {
                    ui.weak(t!("workbench-opened-models"));
                }
                for name in opened {
                    ui.selectable_value(&mut chosen, name.clone(), &name);
                }
                ui.weak(t!("workbench-own-models"));
                for b in builtin::BUILTINS {
                    ui.selectable_value(&mut chosen, b.name.to_string(), b.name)
                        .on_hover_text(crate::app::words::builtin_description(b));
                }
            });
        probe::control("model picker", picker.response.rect);
        if chosen != self.model_name {
            self.select_model(store, &chosen);
            self.refresh(store);
        }
        // On a projector the room reads the view, not the blurb: presenter mode drops it.
        let about = match (builtin::info(&self.model_name), &self.model) {
            (Some(b), _) => crate::app::words::builtin_description(b),
            (None, Ok(m)) => match store.info(&self.model_name) {
                Some(i) => t!(
                    "workbench-about-opened",
                    architecture = &i.model_type,
                    format = &i.format,
                    parameters = crate::util::grouped(i.parameters as u128),
                    memory = sources::megabytes(i.memory_bytes as u64),
                    source = &i.source
                ),
                None => m.config.description.clone(),
            },
            (None, Err(_)) => String::new(),
        };
        // No label at all while a model is on its way: an empty one in the wrapped top bar
        // was laid out as a new line, and the Open… button after it drew over the picker.
        if !presenter && !about.is_empty() {
            ui.weak(about);
        }
    }

    /// While the picked model is on its way: how much has arrived, as a bar.
    /// Only for downloads of real checkpoints: a built-in arrives in a moment and shows its
    /// spinner in place, so the top bar does not jump when it comes.
    pub fn loading_line(&self, ui: &mut egui::Ui, store: &ModelStore) {
        if self.model.is_ok() || builtin::info(&self.model_name).is_some() {
            return;
        }
        if let ModelState::Loading { received, total } = store.state(&self.model_name) {
            let stage = store.conversion_stage(&self.model_name);
            ui.horizontal_wrapped(|ui| {
                ui.spinner();
                let text = match total {
                    _ if stage.is_some() => t!(
                        "workbench-converting",
                        model = &self.model_name,
                        size = sources::megabytes(received),
                        stage = stage
                            .as_ref()
                            .map_or(String::new(), crate::app::models::store::stage_text)
                    ),
                    Some(t) => t!(
                        "workbench-downloading-of",
                        model = &self.model_name,
                        received = sources::megabytes(received),
                        total = sources::megabytes(t)
                    ),
                    None => t!(
                        "workbench-downloading",
                        model = &self.model_name,
                        received = sources::megabytes(received)
                    ),
                };
                let fraction = match &stage {
                    Some(s) => s.done as f32 / s.total.max(1) as f32,
                    None => total.map_or(0.0, |t| received as f32 / t.max(1) as f32),
                };
                // The text beside the bar, not on it, so a long model name never cuts it off.
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .show_percentage()
                        .desired_width(160.0),
                );
                ui.label(text);
            });
        }
    }

    /// A toy model says it is one: the size of its vocabulary (listed on hover), and each typed
    /// piece it does not know (shown as <unk>) with the known tokens nearest to it.
    fn vocabulary_notes(&self, ui: &mut egui::Ui) {
        let Ok(model) = &self.model else {
            return;
        };
        let vocabulary = known(&model.tokenizer);
        if vocabulary.is_empty() {
            return;
        }
        let (model_name, count) = (&self.model_name, vocabulary.len());
        let toy = match model.tokenizer.kind() {
            crate::model::tokenizer::TokenizerKind::Char => {
                t!(
                    "workbench-toy-characters",
                    model = model_name,
                    count = count
                )
            }
            _ => t!("workbench-toy-words", model = model_name, count = count),
        };
        ui.weak(toy).on_hover_ui(|ui| {
            ui.label(vocabulary.join(" "));
        });
        let unknown = self.computed.iter().flat_map(|c| &c.unknown);
        for u in unknown {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                t!(
                    "workbench-unknown-piece",
                    piece = &u.piece,
                    nearest = u.nearest.join(", ")
                ),
            );
        }
    }

    /// The input box(es) and the attention selection: the left panel of the labs on the
    /// shared input.
    pub fn controls(&mut self, ui: &mut egui::Ui) {
        ui.heading(t!("workbench-input"));
        let family = self.model.as_ref().map(|m| m.config.family).ok();
        let two_sided = family.is_some_and(|f| f.has_encoder() && f.has_decoder());
        let source_label = ui.label(if two_sided {
            t!("workbench-source")
        } else {
            t!("workbench-text")
        });
        ui.add(egui::TextEdit::singleline(&mut self.source).desired_width(f32::INFINITY))
            .labelled_by(source_label.id);
        if two_sided {
            let target_label = ui.label(t!("workbench-target"));
            ui.add(egui::TextEdit::singleline(&mut self.target).desired_width(f32::INFINITY))
                .labelled_by(target_label.id);
        }
        if let Some(Ok((prepared, _))) = self.computed.as_ref().map(|c| &c.result) {
            if prepared.truncated > 0 {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    t!("workbench-truncated", count = prepared.truncated),
                );
            }
        }
        self.vocabulary_notes(ui);
        ui.separator();
        ui.heading(t!("workbench-attention"));
        let Some(trace) = self.trace() else {
            return;
        };
        let kinds = trace.attention_kinds();
        let layers = trace.layers(self.sel.kind);
        let heads = trace
            .weights(self.sel.kind, 0)
            .map_or(1, |w| w.len_of(ndarray::Axis(0)));
        for kind in kinds {
            ui.radio_value(&mut self.sel.kind, kind, kind.words());
        }
        if let Some(Ok((_, trace))) = self.computed.as_ref().map(|c| &c.result) {
            self.sel.clamp_to(trace);
        }
        widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.sel.layer, 0..=layers.saturating_sub(1))
                .text(t!("workbench-layer")),
        );
        widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.sel.head, 0..=heads.saturating_sub(1))
                .text(t!("workbench-head")),
        );
        widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.temperature, 0.05..=5.0)
                .logarithmic(true)
                .text(t!("workbench-temperature")),
        );
        ui.separator();
        ui.heading(t!("workbench-compute"));
        self.compute.ui(ui);
    }
}
