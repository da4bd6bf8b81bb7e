//! The Scoring tab: the scoring and scaling lab on one query of the shared input's selected
//! head and its keys.

use super::{ScoringInput, ScoringLab};
use crate::app::export;
use crate::app::labs::{Lab, Shared};
use crate::app::link::{LinkReader, LinkWriter};
use ndarray::Axis;

impl Lab for ScoringLab {
    fn id(&self) -> &'static str {
        "scoring"
    }

    fn uses_shared_input(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        let bench = &mut *shared.bench;
        let sel = bench.sel;
        let Some(attn) = bench.trace().and_then(|t| t.attention(sel.kind, sel.layer)) else {
            export::view_menu(ui, shared.exporter, rect, "glimpse-scoring.png", &[]);
            self.ui(ui, None);
            return;
        };
        let q_tokens = &attn.query_tokens;
        let mut query = sel.query.min(q_tokens.len().saturating_sub(1));
        ui.horizontal_wrapped(|ui| {
            ui.label(crate::t!("scoring-query-picker"));
            for (i, t) in q_tokens.iter().enumerate() {
                ui.selectable_value(&mut query, i, format!("{i} {t}"));
            }
        });
        let (heads, kv_heads) = (attn.q.len_of(Axis(0)), attn.k.len_of(Axis(0)));
        let head = sel.head.min(heads.saturating_sub(1));
        // Grouped-query attention: several query heads read one key head.
        let kvh = head / (heads / kv_heads.max(1)).max(1);
        let q = attn.q.index_axis(Axis(0), head);
        let Some(query_row) = q.outer_iter().nth(query) else {
            return;
        };
        let label = q_tokens.get(query).map_or("?", |s| s.as_str());
        let input = ScoringInput {
            query: query_row,
            keys: attn.k.index_axis(Axis(0), kvh),
            query_label: label,
            key_labels: &attn.key_tokens,
            source: crate::t!(
                "scoring-source",
                selection = sel.describe(),
                query = query,
                token = label
            ),
        };
        ui.horizontal_wrapped(|ui| {
            let scores = || self.scores_json(&input);
            let scores_as_json = crate::t!("scoring-export-scores-json");
            let data: [export::DataFile<'_>; 1] =
                [(&scores_as_json, "glimpse-scores.json".into(), &scores)];
            export::view_menu(ui, shared.exporter, rect, "glimpse-scoring.png", &data);
        });
        self.ui(ui, Some(&input));
        bench.sel.query = query;
    }

    fn keys(&self) -> &'static [&'static str] {
        &["stau", "dk"]
    }

    fn save(&self, w: &mut LinkWriter) {
        w.put("stau", self.temperature);
        w.put("dk", self.d_k);
    }

    fn load(&mut self, r: &mut LinkReader) {
        if let Some(x) = r.number("stau", 0.05..=20.0) {
            self.temperature = x;
        }
        let power_of_two = |v: &str| {
            v.parse::<usize>()
                .ok()
                .filter(|d| d.is_power_of_two() && (2..=512).contains(d))
        };
        if let Some(x) = r.read("dk", power_of_two) {
            self.d_k = x;
        }
    }
}
