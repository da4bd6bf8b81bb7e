//! The masking lab: causal, padding, prefix-LM and custom masks switched live on the real
//! models, padding in a batch, the three families side by side, and teacher forcing.

pub mod batch;
pub mod families;
pub mod modes;
pub mod teacher;

use crate::app::export;
use crate::app::labs::{Lab, Shared};
use crate::app::link::{at_index, index_of, LinkReader, LinkWriter};
use crate::app::models::store::ModelStore;
use crate::app::workbench::Workbench;
use crate::model::tokenizer::PAD;
use crate::model::{Model, ModelInput};
use crate::t;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Modes,
    Batch,
    Families,
    TeacherForcing,
}

impl Section {
    pub const ALL: [Section; 4] = [
        Section::Modes,
        Section::Batch,
        Section::Families,
        Section::TeacherForcing,
    ];

    /// Its English name, for the tests' control names (`masking:Padding in a batch`).
    pub fn name(self) -> &'static str {
        match self {
            Section::Modes => "Mask modes",
            Section::Batch => "Padding in a batch",
            Section::Families => "Three families",
            Section::TeacherForcing => "Teacher forcing",
        }
    }

    /// Its tab's label, in the reader's language.
    pub fn label(self) -> String {
        match self {
            Section::Modes => t!("masking-section-modes"),
            Section::Batch => t!("masking-section-batch"),
            Section::Families => t!("masking-section-families"),
            Section::TeacherForcing => t!("masking-section-teacher"),
        }
    }
}

pub struct MaskingLab {
    pub section: Section,
    pub modes: modes::ModesState,
    pub batch: batch::BatchState,
    pub families: families::Families,
    pub teacher: teacher::TeacherForcing,
}

impl Default for MaskingLab {
    fn default() -> Self {
        Self {
            section: Section::Modes,
            modes: Default::default(),
            batch: Default::default(),
            families: Default::default(),
            teacher: Default::default(),
        }
    }
}

impl MaskingLab {
    /// The lab over the shared model, input and selected layer/head (the first two
    /// sections); the last two bring their own shipped models.
    pub fn draw(&mut self, ui: &mut egui::Ui, store: &ModelStore, bench: &Workbench) {
        let model = store.stored(&bench.model_name).ok();
        let (source, target) = (bench.source.as_str(), bench.target.as_str());
        let (layer, head) = (bench.sel.layer, bench.sel.head);
        ui.horizontal_wrapped(|ui| {
            for s in Section::ALL {
                let tab = ui.selectable_value(&mut self.section, s, s.label());
                crate::app::probe::control(&format!("masking:{}", s.name()), tab.rect);
            }
        });
        ui.separator();
        // The last two sections scroll by themselves.
        match (self.section, model) {
            (Section::Families, _) => self.families.ui(ui, store),
            (Section::TeacherForcing, _) => self.teacher.ui(ui, store),
            (section, Some(m)) => {
                egui::ScrollArea::vertical()
                    .id_salt("masking_lab")
                    .show(ui, |ui| match section {
                        Section::Batch => batch::ui(ui, &m, layer, head, &mut self.batch),
                        _ => modes::ui(ui, &m, source, target, layer, head, &mut self.modes),
                    });
            }
            (_, None) if store.is_loading(&bench.model_name) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(t!("masking-loading", model = &bench.model_name));
                });
            }
            (_, None) => {
                ui.label(t!("masking-load-first"));
            }
        }
    }
}

/// The id padding is written with: the model's own (BERT's `[PAD]`), else Glimpse's `<pad>`.
pub fn pad_id(model: &Model) -> u32 {
    model.tokenizer.specials().pad.unwrap_or(PAD)
}

/// Pad the encoder's side of `input` (with its token types, for models that have them) or the
/// decoder's up to `len` tokens; never shortens it.
pub fn pad_to(model: &Model, input: &mut ModelInput, encoder: bool, len: usize) {
    let pad = pad_id(model);
    if encoder {
        let len = len.max(input.source.len());
        if !input.source_types.is_empty() {
            input.source_types.resize(len, 0);
        }
        input.source.resize(len, pad);
    } else {
        let len = len.max(input.target.len());
        input.target.resize(len, pad);
    }
}

impl Lab for MaskingLab {
    fn id(&self) -> &'static str {
        "masking"
    }

    /// The first two sections run the shared model on the shared input; the last two bring
    /// their own shipped models, so the picker and the input box would do nothing there.
    fn uses_shared_input(&self) -> bool {
        matches!(self.section, Section::Modes | Section::Batch)
    }

    /// The lab on the shared model, input and selected head, under its export menu.
    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let bench = &*shared.bench;
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            let name = format!("glimpse-masking-{}", bench.model_name);
            let modes = (self.section == Section::Modes)
                .then_some(&self.modes.shown)
                .and_then(Option::as_ref);
            let csv = || modes.map(|(a, q, k)| export::matrix_csv(a.view(), q, k).into_bytes());
            let json = || modes.map(|(a, q, k)| export::matrix_json(a.view(), q, k).into_bytes());
            let (as_csv, as_json) = (t!("masking-export-csv"), t!("masking-export-json"));
            let data: &[export::DataFile<'_>] = match modes {
                Some(_) => &[
                    (&as_csv, format!("{name}.csv"), &csv),
                    (&as_json, format!("{name}.json"), &json),
                ],
                None => &[],
            };
            export::view_menu(ui, shared.exporter, rect, &format!("{name}.png"), data);
        });
        self.draw(ui, shared.store, bench);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["ms", "mm", "pads", "prefix", "custom"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("ms", index_of(&Section::ALL, &self.section));
        w.put("mm", index_of(&modes::MaskMode::ALL, &self.modes.mode));
        w.put("pads", self.modes.pads);
        w.put("prefix", self.modes.prefix);
        if let Some(c) = &self.modes.custom {
            w.put("custom", modes::encode_mask(c));
        }
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.read("ms", |v| at_index(&Section::ALL, v)) {
            self.section = x;
        }
        if let Some(x) = r.read("mm", |v| at_index(&modes::MaskMode::ALL, v)) {
            self.modes.mode = x;
        }
        if let Some(x) = r.number("pads", 0..=6) {
            self.modes.pads = x;
        }
        if let Some(x) = r.number("prefix", 0..=12) {
            self.modes.prefix = x;
        }
        if let Some(x) = r.read("custom", |v| modes::decode_mask(v).ok()) {
            self.modes.custom = Some(x);
        }
    }

    fn sections(&self) -> Vec<String> {
        (0..Section::ALL.len())
            .map(|s| format!("view=masking&model=translate&ms={s}"))
            .collect()
    }
}
