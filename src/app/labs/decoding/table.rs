//! The numbers behind the tree: one step's candidates in rank order, and the final ranking
//! next to what greedy decoding would have said.

use super::session::Search;
use super::tree::{describe, signed};
use crate::decode::NodeState;
use crate::t;
use egui::{RichText, Ui};

/// The step whose candidates to list: the selected node's, else the last one taken.
pub fn viewed_step(search: &Search, selected: Option<usize>) -> Option<usize> {
    let last = search.steps();
    let chosen = selected
        .and_then(|i| search.beam.nodes.get(i))
        .map(|n| n.step)
        .filter(|&s| s >= 1 && s <= last);
    chosen.or((last > 0).then_some(last))
}

/// Step `step`'s candidates: rank, hypothesis, log p, cumulative, score, kept or pruned.
pub fn candidates(ui: &mut Ui, search: &Search, step: usize) {
    let alpha = search.settings.alpha;
    ui.label(t!(
        "decoding-candidates-note",
        step = step,
        width = search.beam.config.width,
        alpha = format!("{alpha:.2}")
    ));
    let Some(ids) = search.beam.candidates.get(step - 1) else {
        return;
    };
    // Both ways: a wide table scrolls inside itself instead of widening the whole view.
    egui::ScrollArea::both()
        .id_salt("decoding_candidates")
        .max_height(260.0)
        .show(ui, |ui| {
            egui::Grid::new("decoding_candidates_grid")
                .striped(true)
                .show(ui, |ui| {
                    for h in [
                        t!("decoding-col-rank"),
                        t!("decoding-col-hypothesis"),
                        t!("decoding-col-log-p"),
                        t!("decoding-col-cumulative"),
                        t!("decoding-col-score"),
                        String::new(),
                    ] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for (rank, &id) in ids.iter().enumerate() {
                        let n = &search.beam.nodes[id];
                        ui.label((rank + 1).to_string());
                        ui.label(RichText::new(search.hypothesis(id)).monospace());
                        ui.label(signed(n.log_p));
                        ui.label(signed(n.cum));
                        ui.label(signed(n.score));
                        verdict(ui, &n.state);
                        ui.end_row();
                    }
                });
        });
}

fn verdict(ui: &mut Ui, state: &NodeState) {
    match state {
        NodeState::Pruned { .. } => ui.weak(t!("decoding-verdict-pruned")),
        NodeState::Finished => ui.label(t!("decoding-verdict-finished")),
        NodeState::Stopped => ui.label(t!("decoding-verdict-stopped")),
        _ => ui.label(t!("decoding-verdict-kept")),
    }
    .on_hover_text(describe(state));
}

/// Finished hypotheses best first, and greedy decoding's answer beside them.
pub fn ranking(ui: &mut Ui, search: &Search) {
    let ranked = search.beam.ranking();
    crate::app::widgets::fit::columns(ui, 2, 300.0, |cols| {
        cols[0].label(RichText::new(t!("decoding-ranking-beam")).strong());
        if let Some(&best) = ranked.first() {
            cols[0].label(t!(
                "decoding-ranking-best",
                hypothesis = search.hypothesis(best),
                score = signed(search.beam.nodes[best].score)
            ));
        }
        egui::Grid::new("decoding_ranking")
            .striped(true)
            .show(&mut cols[0], |ui| {
                for h in [
                    String::new(),
                    t!("decoding-col-hypothesis"),
                    t!("decoding-col-cumulative"),
                    t!("decoding-col-score"),
                ] {
                    ui.label(RichText::new(h).strong());
                }
                ui.end_row();
                for (k, &id) in ranked.iter().enumerate() {
                    let n = &search.beam.nodes[id];
                    ui.label(format!("{}.", k + 1));
                    ui.label(RichText::new(search.hypothesis(id)).monospace());
                    ui.label(signed(n.cum));
                    ui.label(signed(n.score));
                    ui.end_row();
                }
            });
        greedy(&mut cols[1], search, ranked.first().copied());
    });
}

fn greedy(ui: &mut Ui, search: &Search, best: Option<usize>) {
    ui.label(RichText::new(t!("decoding-greedy-heading")).strong());
    match &search.greedy {
        None => {
            ui.weak(t!(
                "decoding-greedy-computing",
                count = search.greedy_so_far().unwrap_or(0)
            ));
        }
        Some(Ok((tokens, cum))) => {
            let text = super::session::join(search.settings.kind, tokens);
            ui.label(t!(
                "decoding-greedy-result",
                text = &text,
                cumulative = signed(*cum)
            ));
            if let Some(b) = best {
                let beam_cum = search.beam.nodes[b].cum;
                let note = if search.hypothesis(b) == text {
                    t!("decoding-greedy-agree")
                } else if beam_cum > *cum {
                    t!(
                        "decoding-greedy-beam-likelier",
                        beam = format!("{:.3}", beam_cum.exp()),
                        greedy = format!("{:.3}", cum.exp())
                    )
                } else {
                    t!("decoding-greedy-differ")
                };
                ui.label(note);
            }
        }
        Some(Err(e)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                t!("decoding-greedy-error", error = e),
            );
        }
    }
}
