//! Who wrote the answer: direct logit attribution as a blocks × heads heatmap with an MLP
//! column, the biggest contributors named, and the check that the shares add up to the logit
//! difference. Clicking a head opens its attention map in the Attention tab.

use super::{answer, token_id, warn, Clean, InfluenceLab, Shared};
use crate::analysis::attribution::{attribute, Attribution};
use crate::app::export;
use crate::app::labs::attention::Selection;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::AttentionKind;
use crate::t;
use ndarray::Array2;

/// What the attribution was computed for: model, ids, A, B, position.
type Key = (String, Vec<u32>, u32, Option<u32>, usize);

#[derive(Default)]
pub struct AttributionState {
    memo: Option<(Key, Result<Attribution, String>)>,
}

impl AttributionState {
    /// The attribution for these settings (computed once: it reads the trace, no new pass).
    pub fn get(
        &mut self,
        clean: &Clean,
        a: u32,
        b: Option<u32>,
        p: usize,
    ) -> &Result<Attribution, String> {
        let key = (clean.name.clone(), clean.ids.clone(), a, b, p);
        if self.memo.as_ref().is_none_or(|(k, _)| *k != key) {
            let r = attribute(&clean.model, &clean.trace, a, b, Some(p)).map_err(|e| e.to_string());
            self.memo = Some((key.clone(), r));
        }
        &self.memo.as_ref().expect("set above").1
    }
}

/// Every share with its name, largest magnitude first.
pub fn ranked(a: &Attribution) -> Vec<(String, f64)> {
    let mut all: Vec<(String, f64)> = a
        .heads
        .iter()
        .enumerate()
        .flat_map(|(l, row)| {
            row.iter()
                .enumerate()
                .map(move |(h, x)| (t!("influence-head", layer = l, head = h), *x))
        })
        .chain(
            a.mlp
                .iter()
                .enumerate()
                .map(|(l, x)| (format!("MLP {l}"), *x)),
        )
        .chain([(t!("influence-embedding"), a.embed)])
        .chain(a.biases.iter().map(|(n, x)| (n.clone(), *x)))
        .collect();
    all.sort_by(|x, y| y.1.abs().total_cmp(&x.1.abs()));
    all
}

/// `[block][head…, MLP]` as one matrix, with its labels.
pub fn matrix(a: &Attribution) -> (Array2<f32>, Vec<String>, Vec<String>) {
    let (l, h) = (a.heads.len(), a.heads.first().map_or(0, Vec::len));
    let m = Array2::from_shape_fn((l, h + 1), |(i, j)| match j < h {
        true => a.heads[i][j] as f32,
        false => a.mlp[i] as f32,
    });
    let rows = (0..l).map(|i| t!("influence-block", block = i)).collect();
    let cols = (0..h)
        .map(|j| format!("h{j}"))
        .chain(["MLP".to_string()])
        .collect();
    (m, rows, cols)
}

impl InfluenceLab {
    pub(super) fn attribution_section(
        &mut self,
        ui: &mut egui::Ui,
        shared: &mut Shared<'_>,
        clean: &Clean,
    ) {
        let rect = ui.max_rect();
        crate::app::widgets::math_text::label(ui, &t!("influence-attribution-intro"));
        self.token_boxes(ui, clean, true);
        if !clean.model.has_output_layer() {
            return;
        }
        let p = clean.position(self.position);
        let (a, b) = match (
            answer(clean, &self.target, p),
            token_id(&clean.model, &self.contrast),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return warn(ui, e),
        };
        let got = match self.attribution.get(clean, a, b, p) {
            Ok(g) => g.clone(),
            Err(e) => return warn(ui, e.clone()),
        };
        let (values, rows, cols) = matrix(&got);
        let what = match b {
            Some(b) => format!(
                "logit(“{}”) − logit(“{}”)",
                clean.model.tokenizer.token(a),
                clean.model.tokenizer.token(b)
            ),
            None => format!("logit(“{}”)", clean.model.tokenizer.token(a)),
        };
        ui.horizontal_wrapped(|ui| {
            let json = || serde_json::to_vec_pretty(&got).ok();
            let csv = || Some(export::matrix_csv(values.view(), &rows, &cols).into_bytes());
            let (json_label, csv_label) = (
                t!("influence-attribution-export-json"),
                t!("influence-attribution-export-csv"),
            );
            let files: [export::DataFile<'_>; 2] = [
                (&json_label, "glimpse-attribution.json".into(), &json),
                (&csv_label, "glimpse-attribution.csv".into(), &csv),
            ];
            export::view_menu(ui, shared.exporter, rect, "glimpse-attribution.png", &files);
        });
        ui.strong(t!(
            "influence-attribution-total",
            position = p,
            token = &clean.tokens[p],
            what = &what,
            value = format!("{:.3}", got.logit_diff),
            sum = format!("{:.3}", got.sum)
        ));
        let top = ranked(&got);
        self.note(
            "attribution",
            serde_json::json!({
                "position": p, "target": a, "contrast": b, "logit_diff": got.logit_diff,
                "sum": got.sum, "heads": got.heads, "mlp": got.mlp, "top": top.iter().take(10).collect::<Vec<_>>(),
            }),
        );
        let named: Vec<String> = top
            .iter()
            .take(6)
            .map(|(n, x)| format!("{n} {x:+.3}"))
            .collect();
        ui.label(t!(
            "influence-attribution-largest",
            parts = named.join(", ")
        ));
        let context = t!("influence-attribution-share-of", what = &what);
        let mut map = Heatmap::new(
            values.view(),
            &rows,
            &cols,
            ColorScale::diverging_for(values.iter()),
        );
        let (block, head, share) = (
            t!("influence-axis-block"),
            t!("influence-axis-head"),
            t!("influence-attribution-share"),
        );
        map.axis_names = (&block, &head);
        map.context = &context;
        map.max_cell = 30.0;
        map.show_numbers = values.ncols() <= 13;
        let out = map.show_with_legend(ui, 260.0, &share);
        ui.weak(t!("influence-attribution-click"));
        if let Some((l, h)) = out.clicked.filter(|&(_, h)| h + 1 < values.ncols()) {
            let kind = match clean.trace.decoder.is_some() {
                true => AttentionKind::DecoderSelf,
                false => AttentionKind::EncoderSelf,
            };
            shared.bench.sel = Selection {
                kind,
                layer: l,
                head: h,
                query: p,
            };
            shared.bench.open_view = Some("attention");
        }
        let rest: Vec<String> = got
            .biases
            .iter()
            .map(|(n, x)| format!("{n} {x:+.3}"))
            .collect();
        let embed = format!("{:+.3}", got.embed);
        ui.label(match rest.is_empty() {
            true => t!("influence-attribution-rest", embed = embed),
            false => t!(
                "influence-attribution-rest-biases",
                embed = embed,
                biases = rest.join(", ")
            ),
        });
    }
}
