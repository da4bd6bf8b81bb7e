//! The contrastive lab's drawing: the batch's boxes, the similarity matrix, each anchor's
//! softmax over the candidates and its loss, and what a hard negative changes.

use super::maths::{info_nce, parse_pairs, similarities, InfoNce};
use super::{ContrastiveLab, TAUS};
use crate::app::labs::softmax::{matrix_with_room, trim};
use crate::app::widgets::colormap::ColorScale;
use crate::model::transformer::Model;
use crate::t;
use egui::Ui;
use ndarray::Array2;

/// A sentence shortened for an axis label.
fn short(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().take(3).collect();
    let mut out = words.join(" ");
    if s.split_whitespace().count() > 3 {
        out.push('…');
    }
    out
}

fn num(x: f64) -> String {
    format!("{x:.3}")
}

impl ContrastiveLab {
    pub(super) fn show(&mut self, ui: &mut Ui, model: Result<&Model, &str>) {
        ui.heading(t!("contrastive-heading"));
        ui.label(t!("contrastive-intro"));
        crate::app::formulas::show(ui, "infonce");
        self.controls(ui);
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    t!("contrastive-no-model", reason = e),
                );
                return;
            }
        };
        if !model.config.name.contains("MiniLM") {
            ui.weak(t!(
                "contrastive-not-minilm",
                model = model.config.name.as_str()
            ));
        }
        let pairs = match parse_pairs(&self.pairs) {
            Ok(p) => p,
            Err(e) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
                return;
            }
        };
        let sentences = self.sentences(&pairs);
        if self.embed_next(model, &sentences) {
            ui.ctx().request_repaint();
        }
        let name = model.config.name.as_str();
        let mut vectors = Vec::with_capacity(sentences.len());
        for s in &sentences {
            match self.embedding(name, s) {
                Some(Ok(v)) => vectors.push(v.clone()),
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                    return;
                }
                None => {}
            }
        }
        if vectors.len() < sentences.len() {
            ui.label(t!(
                "contrastive-embedding",
                done = vectors.len(),
                total = sentences.len()
            ));
            return;
        }
        let n = pairs.len();
        let (anchors, candidates) = vectors.split_at(n);
        let sim = similarities(anchors, candidates);
        let tau = self.tau as f64;
        let loss = info_nce(sim.view(), tau);
        let anchor_names: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(i, (a, _))| format!("a{} {}", i + 1, short(a)))
            .collect();
        let mut candidate_names: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(i, (_, p))| format!("p{} {}", i + 1, short(p)))
            .collect();
        if candidates.len() > n {
            candidate_names.push(format!(
                "{} {}",
                t!("contrastive-hard-short"),
                short(&self.hard_negative)
            ));
        }
        let axes = (
            t!("contrastive-axis-anchor"),
            t!("contrastive-axis-candidate"),
        );
        crate::app::widgets::fit::columns(ui, 2, 380.0, |cols| {
            crate::app::widgets::math_text::strong(
                &mut cols[0],
                &t!("contrastive-similarity-title"),
            );
            grid(
                &mut cols[0],
                &sim,
                (&anchor_names, &candidate_names),
                ColorScale::Diverging { limit: 1.0 },
                (&axes.0, &axes.1),
            );
            cols[1].strong(t!("contrastive-probability-title", tau = trim(self.tau)));
            let p = loss.probabilities.mapv(|x| x as f32);
            grid(
                &mut cols[1],
                &p,
                (&anchor_names, &candidate_names),
                ColorScale::Sequential { min: 0.0, max: 1.0 },
                (&axes.0, &axes.1),
            );
        });
        losses_table(ui, &loss, &anchor_names);
        let m = candidates.len();
        ui.label(t!(
            "contrastive-summary",
            mean = num(loss.mean_loss),
            candidates = m,
            uniform = num((m as f64).ln()),
            right = loss.right,
            anchors = n,
        ));
        if m > n {
            let without = info_nce(sim.slice(ndarray::s![.., ..n]), tau);
            let (i, rise) = (0..n)
                .map(|i| (i, loss.losses[i] - without.losses[i]))
                .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
            ui.label(t!(
                "contrastive-hard-effect",
                before = num(without.mean_loss),
                after = num(loss.mean_loss),
                anchor = i + 1,
                from = num(without.losses[i]),
                to = num(loss.losses[i]),
                rise = num(rise),
            ));
        }
        ui.weak(t!("contrastive-note"));
    }

    fn controls(&mut self, ui: &mut Ui) {
        let label = ui.label(t!("contrastive-pairs-label"));
        ui.add(
            egui::TextEdit::multiline(&mut self.pairs)
                .desired_rows(4)
                .desired_width(f32::INFINITY),
        )
        .labelled_by(label.id);
        ui.horizontal_wrapped(|ui| {
            let label = ui.label(t!("contrastive-hard-label"));
            ui.add(egui::TextEdit::singleline(&mut self.hard_negative).desired_width(320.0))
                .labelled_by(label.id);
            ui.checkbox(&mut self.use_hard, t!("contrastive-hard-use"));
        });
        crate::app::widgets::fit::add(
            ui,
            egui::Slider::new(&mut self.tau, TAUS)
                .logarithmic(true)
                .text(t!("contrastive-tau")),
        );
    }
}

/// A matrix with every number in its cell, with room for the sentences on its axes.
fn grid(
    ui: &mut Ui,
    values: &Array2<f32>,
    names: (&[String], &[String]),
    scale: ColorScale,
    axes: (&str, &str),
) {
    matrix_with_room(ui, values, names, scale, axes, None, (150.0, 150.0));
}

/// One row per anchor: p(its positive), its loss, and whether its positive came first.
fn losses_table(ui: &mut Ui, loss: &InfoNce, anchors: &[String]) {
    egui::Grid::new("contrastive_losses")
        .striped(true)
        .spacing([18.0, 3.0])
        .show(ui, |ui| {
            ui.strong(t!("contrastive-axis-anchor"));
            ui.strong(t!("contrastive-p-positive"));
            ui.strong(t!("contrastive-loss"));
            ui.strong(t!("contrastive-first"));
            ui.end_row();
            for (i, name) in anchors.iter().enumerate() {
                let p = loss.probabilities[[i, i]];
                let best = loss.probabilities.row(i).iter().all(|&q| q <= p);
                ui.label(name);
                ui.monospace(num(p));
                ui.monospace(num(loss.losses[i]));
                ui.label(if best {
                    t!("contrastive-yes")
                } else {
                    t!("contrastive-no")
                });
                ui.end_row();
            }
        });
}
