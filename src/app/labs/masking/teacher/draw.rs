//! Drawing the teacher-forcing panel: sequences, three runs, two generations, the cheat.

use super::{lookahead_head, run_specs, ForcedRun, Generation, Which};
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::trace::AttentionKind;
use crate::t;
use egui::{RichText, Ui};
use ndarray::Axis;

fn mono(text: &str) -> RichText {
    RichText::new(text).monospace()
}

/// A loss or probability with four decimals, or in scientific notation when so small that
/// four decimals would show 0 (the cheating model's losses are ~1e-7).
pub fn fmt_value(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-3 {
        format!("{v:.1e}")
    } else {
        format!("{v:.4}")
    }
}

/// The answer, the decoder input and the labels, aligned by position.
pub(super) fn sequences(ui: &mut Ui, target: &str, run: &ForcedRun) {
    ui.label(t!("masking-teacher-target", target = target));
    egui::Grid::new("teacher_sequences")
        .striped(true)
        .show(ui, |ui| {
            ui.label(t!("masking-teacher-position"));
            for i in 0..run.rows.len() {
                ui.label(mono(&i.to_string()));
            }
            ui.end_row();
            ui.label(t!("masking-teacher-decoder-input"));
            for r in &run.rows {
                ui.label(mono(&r.input));
            }
            ui.end_row();
            ui.label(t!("masking-teacher-labels"));
            for r in &run.rows {
                ui.label(mono(&r.label));
            }
            ui.end_row();
        });
    ui.label(RichText::new(t!("masking-teacher-one-pass")).strong());
}

/// The three teacher-forced runs side by side.
pub(super) fn runs(ui: &mut Ui, results: &[Result<ForcedRun, String>]) {
    ui.heading(t!("masking-teacher-runs"));
    crate::app::widgets::fit::columns(ui, 3, 340.0, |cols| {
        for (i, ((ui, spec), result)) in cols.iter_mut().zip(run_specs()).zip(results).enumerate() {
            ui.label(RichText::new(spec.title).strong());
            ui.weak(spec.note);
            match result {
                Ok(run) => run_table(ui, i, run),
                Err(e) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
            }
        }
    });
    ui.label(t!("masking-teacher-low-loss"));
}

fn run_table(ui: &mut Ui, index: usize, run: &ForcedRun) {
    egui::Grid::new(("teacher_run", index))
        .striped(true)
        .show(ui, |ui| {
            for h in [
                t!("masking-teacher-col-pos"),
                t!("masking-teacher-col-input"),
                t!("masking-teacher-col-label"),
                t!("masking-teacher-col-predicted"),
                t!("masking-teacher-col-p-label"),
                t!("masking-teacher-col-loss"),
            ] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (i, r) in run.rows.iter().enumerate() {
                ui.label(mono(&i.to_string()));
                ui.label(mono(&r.input));
                ui.label(mono(&r.label));
                let predicted = mono(&r.predicted);
                if r.correct {
                    ui.label(predicted);
                } else {
                    ui.colored_label(ui.visuals().error_fg_color, predicted);
                }
                ui.label(mono(&fmt_value(r.p_label)));
                ui.label(mono(&fmt_value(r.loss)));
                ui.end_row();
            }
        });
    let right = run.rows.iter().filter(|r| r.correct).count();
    ui.label(
        RichText::new(t!(
            "masking-teacher-mean-loss",
            loss = fmt_value(run.mean_loss),
            right = right,
            total = run.rows.len(),
            percent = format!("{:.0}", 100.0 * run.accuracy)
        ))
        .strong(),
    );
}

/// Greedy generation from `<bos>`: the honest test.
pub(super) fn generations(
    ui: &mut Ui,
    expected: &str,
    results: &[(Which, Result<Generation, String>)],
) {
    ui.heading(t!("masking-teacher-generation"));
    ui.label(t!("masking-teacher-generation-intro"));
    for (which, result) in results {
        match result {
            Ok(g) => {
                let ok = g.text == expected;
                let mark = if ok {
                    t!("masking-teacher-right")
                } else {
                    t!("masking-teacher-wrong")
                };
                let (model, written) = (which.name(), g.text.as_str());
                let text = if g.ended {
                    t!(
                        "masking-teacher-writes",
                        model = model,
                        text = written,
                        mark = mark
                    )
                } else {
                    t!(
                        "masking-teacher-writes-no-end",
                        model = model,
                        text = written,
                        mark = mark
                    )
                };
                let color = if ok {
                    ui.visuals().text_color()
                } else {
                    ui.visuals().error_fg_color
                };
                ui.colored_label(color, mono(&text));
            }
            Err(e) => {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("{}: {e}", which.name()),
                );
            }
        }
    }
    ui.label(t!("masking-teacher-expected", text = expected));
}

/// reverse-nomask's decoder self-attention, on the head that looks one step ahead.
pub(super) fn lookahead(ui: &mut Ui, run: Option<&Result<ForcedRun, String>>) {
    ui.heading(t!("masking-teacher-cheats"));
    let Some(Ok(run)) = run else {
        ui.label(t!("masking-teacher-no-run"));
        return;
    };
    let layers = run.trace.layers(AttentionKind::DecoderSelf);
    let layer = layers.saturating_sub(1);
    let Some(attn) = run.trace.attention(AttentionKind::DecoderSelf, layer) else {
        ui.label(t!("masking-teacher-no-self-attention"));
        return;
    };
    let Some((head, mean)) = lookahead_head(attn) else {
        return;
    };
    let context = t!("masking-teacher-cheat-context", layer = layer, head = head);
    ui.label(t!(
        "masking-teacher-cheat-mean",
        context = &context,
        percent = format!("{:.0}", 100.0 * mean)
    ));
    let weights = attn.weights.index_axis(Axis(0), head);
    let rows = weights.nrows() as f32;
    let size = egui::vec2(560.0, 80.0 + 34.0 * rows);
    let (query, key) = (t!("masking-axis-query"), t!("masking-axis-key"));
    ui.allocate_ui(size, |ui| {
        let mut map = Heatmap::new(
            weights,
            &attn.query_tokens,
            &attn.key_tokens,
            ColorScale::Sequential { min: 0.0, max: 1.0 },
        );
        map.allowed = Some(attn.mask.view());
        map.show_numbers = true;
        map.max_cell = 34.0;
        map.axis_names = (&query, &key);
        map.context = &context;
        map.show_with_legend(ui, 160.0, &t!("masking-teacher-weight"));
    });
    ui.label(t!("masking-teacher-cheat-explain"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_values_are_written_so_they_do_not_read_as_zero() {
        assert_eq!(fmt_value(0.0), "0.0000");
        assert_eq!(fmt_value(1.5), "1.5000");
        assert_eq!(fmt_value(2.3e-7), "2.3e-7");
    }
}
