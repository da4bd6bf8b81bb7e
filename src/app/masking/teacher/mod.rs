//! Teacher forcing and what the causal mask is for. In training the decoder reads the right
//! answer shifted one step right and predicts every position in one pass; the causal mask is
//! what keeps that honest. Three teacher-forced runs (the masked model, the same model with
//! its mask removed, and a model trained without the mask) and two greedy generations show
//! that a model trained without the mask learns to copy the future it will never have.

use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::decode::beam::greedy;
use crate::decode::ModelSource;
use crate::model::attention::{AttentionTrace, MaskChoice};
use crate::model::builtin;
use crate::model::softmax::log_sum_exp;
use crate::model::tokenizer::{BOS, EOS};
use crate::model::trace::{AttentionKind, Trace};
use crate::model::transformer::{ForwardOptions, Model, ModelInput};
use crate::util::argmax;
use egui::{RichText, Ui};
use ndarray::{ArrayView1, Axis};

/// The source the panel opens with: the reverse task's own example.
pub const DEFAULT_SOURCE: &str = "abcdefgh";
/// Trained with the decoder's causal mask.
pub const REVERSE: &str = "reverse";
/// The same task trained without it.
pub const REVERSE_NOMASK: &str = "reverse-nomask";

/// One decoder position of a teacher-forced run.
#[derive(Debug, Clone, PartialEq)]
pub struct ForcedRow {
    /// The token the decoder reads here (`<bos>`, then the answer shifted right).
    pub input: String,
    /// The token it must predict here (the answer, then `<eos>`).
    pub label: String,
    /// The model's most likely token.
    pub predicted: String,
    pub correct: bool,
    /// softmax(logits)[label].
    pub p_label: f64,
    /// −ln p(label), natural log.
    pub loss: f64,
}

/// A whole teacher-forced pass: one row per decoder position, plus the trace it came from.
#[derive(Debug, Clone)]
pub struct ForcedRun {
    pub rows: Vec<ForcedRow>,
    pub mean_loss: f64,
    /// Fraction of positions whose argmax is the label.
    pub accuracy: f64,
    pub trace: Trace,
}

/// Greedy output of a model, with whether it stopped on `<eos>` (or ran into `max_len`).
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub text: String,
    pub ended: bool,
}

/// −ln softmax(logits)[label] and softmax(logits)[label], in f64 so a confident model's tiny
/// losses are not rounded to 0. A label outside the logits costs +∞.
pub fn token_loss(logits: ArrayView1<f32>, label: usize) -> (f64, f64) {
    let Some(&x) = logits.get(label) else {
        return (f64::INFINITY, 0.0);
    };
    let log_p = x as f64 - log_sum_exp(logits.iter().map(|&v| v as f64));
    (-log_p, log_p.exp())
}

/// Token ids for `text`, or an error naming the pieces the model does not know.
fn encode_known(model: &Model, text: &str, side: &str) -> Result<Vec<u32>, String> {
    let tok = &model.tokenizer;
    let encoded = tok.encode(text);
    if encoded.unknown == 0 {
        return Ok(encoded.ids);
    }
    let mut unknown: Vec<String> = Vec::new();
    for p in tok.pieces(text) {
        if tok.encode(&p).unknown > 0 && !unknown.contains(&p) {
            unknown.push(p);
        }
    }
    let known = tok
        .spec()
        .tokens
        .get(crate::model::tokenizer::SPECIALS.len()..)
        .unwrap_or_default();
    let mut msg = format!(
        "the {side} has pieces {} does not know: {}",
        model.config.name,
        unknown
            .iter()
            .map(|p| format!("“{p}”"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if known.len() <= 40 {
        msg.push_str(&format!(" (it knows {})", known.join(" ")));
    }
    Err(msg)
}

/// The decoder input (`<bos>` + the answer shifted right) and the labels (the answer +
/// `<eos>`), as in training.
fn shifted(target: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let input = std::iter::once(BOS).chain(target.iter().copied()).collect();
    let labels = target.iter().copied().chain([EOS]).collect();
    (input, labels)
}

/// Run `model` teacher-forced on `source` → `target` with the decoder's self-attention mask
/// `self_mask`, scoring every position against its label.
pub fn teacher_forced(
    model: &Model,
    source: &str,
    target: &str,
    self_mask: MaskChoice,
) -> Result<ForcedRun, String> {
    let source_ids = if model.config.family.has_encoder() {
        encode_known(model, source, "source")?
    } else {
        vec![]
    };
    let (decoder_input, labels) = shifted(&encode_known(model, target, "target")?);
    let opts = ForwardOptions {
        self_mask,
        ..Default::default()
    };
    let input = ModelInput {
        source: source_ids,
        target: decoder_input.clone(),
        ..Default::default()
    };
    let trace = model.forward(&input, &opts).map_err(|e| e.to_string())?;
    let tok = &model.tokenizer;
    let rows: Vec<ForcedRow> = decoder_input
        .iter()
        .zip(&labels)
        .zip(trace.logits.rows())
        .map(|((&input, &label), logits)| {
            let (loss, p_label) = token_loss(logits, label as usize);
            let predicted = argmax(logits.iter().copied()).map_or(0, |(i, _)| i as u32);
            ForcedRow {
                input: tok.token(input).to_string(),
                label: tok.token(label).to_string(),
                predicted: tok.token(predicted).to_string(),
                correct: predicted == label,
                p_label,
                loss,
            }
        })
        .collect();
    let n = rows.len().max(1) as f64;
    Ok(ForcedRun {
        mean_loss: rows.iter().map(|r| r.loss).sum::<f64>() / n,
        accuracy: rows.iter().filter(|r| r.correct).count() as f64 / n,
        rows,
        trace,
    })
}

/// Greedy decoding token by token from `<bos>` (the model's own guesses fed back, no answer
/// to lean on) until `<eos>` or `max_len`. `source` feeds the encoder; a decoder-only model
/// continues it as a prompt.
pub fn generate_with_end(model: &Model, source: &str) -> Result<Generation, String> {
    let ids = encode_known(model, source, "source")?;
    let prompt: Vec<u32> = if model.config.family.has_encoder() {
        vec![BOS]
    } else {
        shifted(&ids).0
    };
    // The decoding lab's own greedy search, with the key/value cache; it may generate until
    // the sequence fills the model's `max_len` (the last token needs no further step).
    let encoder_ids = if model.config.family.has_encoder() {
        ids
    } else {
        vec![]
    };
    let mut source = ModelSource::from_ids(model.clone(), encoder_ids, 1.0, true)?;
    let room = (model.config.max_len + 1).saturating_sub(prompt.len());
    let (mut out, _) = greedy(&mut source, &prompt, room)?;
    let ended = out.last() == Some(&EOS);
    if ended {
        out.pop();
    }
    Ok(finish(model, &out, ended))
}

fn finish(model: &Model, out: &[u32], ended: bool) -> Generation {
    Generation {
        text: model.tokenizer.decode(out),
        ended,
    }
}

/// Greedy output text, without `<bos>`/`<eos>`, joined by the tokenizer's separator.
pub fn generate(model: &Model, source: &str) -> Result<String, String> {
    generate_with_end(model, source).map(|g| g.text)
}

/// Mean weight each head puts one step into the future (key i+1 for query i).
pub fn lookahead_weights(attn: &AttentionTrace) -> Vec<f32> {
    attn.weights
        .outer_iter()
        .map(|w| {
            let n = w.nrows().min(w.ncols().saturating_sub(1));
            let sum: f32 = (0..n).map(|i| w[[i, i + 1]]).sum();
            if n == 0 {
                0.0
            } else {
                sum / n as f32
            }
        })
        .collect()
}

/// The head looking furthest into the future, and its mean weight on the next position.
pub fn lookahead_head(attn: &AttentionTrace) -> Option<(usize, f32)> {
    argmax(lookahead_weights(attn))
}

/// The reverse task's answer for a source.
pub fn reversed(source: &str) -> String {
    source.chars().rev().collect()
}

// ---------------------------------------------------------------------------------------------
// The panel

#[derive(Debug, Clone, Copy, PartialEq)]
enum Which {
    Reverse,
    NoMask,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Reverse => REVERSE,
            Which::NoMask => REVERSE_NOMASK,
        }
    }
}

/// The two trained models, loaded once; a load error is kept to be shown.
struct Models {
    reverse: Result<Model, String>,
    nomask: Result<Model, String>,
}

impl Models {
    fn load() -> Self {
        let load = |name| builtin::load(name).map_err(|e| format!("{name}: {e}"));
        Self {
            reverse: load(REVERSE),
            nomask: load(REVERSE_NOMASK),
        }
    }

    fn get(&self, which: Which) -> Result<&Model, String> {
        match which {
            Which::Reverse => self.reverse.as_ref(),
            Which::NoMask => self.nomask.as_ref(),
        }
        .map_err(Clone::clone)
    }
}

/// One of the three teacher-forced runs.
struct RunSpec {
    which: Which,
    mask: MaskChoice,
    title: &'static str,
    note: &'static str,
}

fn run_specs() -> [RunSpec; 3] {
    [
        RunSpec {
            which: Which::Reverse,
            mask: MaskChoice::Default,
            title: "(a) reverse, causal mask on",
            note: "As trained: each position sees only <bos> and earlier answer tokens.",
        },
        RunSpec {
            which: Which::Reverse,
            mask: MaskChoice::None,
            title: "(b) reverse, mask removed",
            note: "Trained causally, it now also sees later tokens it never learned to use.",
        },
        RunSpec {
            which: Which::NoMask,
            mask: MaskChoice::Default,
            title: "(c) reverse-nomask, run as trained",
            note: "Trained without the mask: it copies the next input token, which is the label.",
        },
    ]
}

/// Everything shown for one source text.
struct Computed {
    source: String,
    target: String,
    runs: Vec<Result<ForcedRun, String>>,
    generated: Vec<(Which, Result<Generation, String>)>,
}

impl Computed {
    fn new(models: &Models, source: &str) -> Self {
        let target = reversed(source);
        let runs = run_specs()
            .into_iter()
            .map(|s| {
                models
                    .get(s.which)
                    .and_then(|m| teacher_forced(m, source, &target, s.mask))
            })
            .collect();
        let generated = [Which::Reverse, Which::NoMask]
            .into_iter()
            .map(|w| (w, models.get(w).and_then(|m| generate_with_end(m, source))))
            .collect();
        Self {
            source: source.to_string(),
            target,
            runs,
            generated,
        }
    }
}

/// The teacher-forcing panel: a source box, the shifted sequences, three runs, two
/// generations and the attention of the model that learned to cheat.
pub struct TeacherForcing {
    pub source: String,
    models: Option<Models>,
    computed: Option<Computed>,
}

impl Default for TeacherForcing {
    fn default() -> Self {
        Self {
            source: DEFAULT_SOURCE.to_string(),
            models: None,
            computed: None,
        }
    }
}

impl TeacherForcing {
    pub fn ui(&mut self, ui: &mut Ui) {
        egui::ScrollArea::vertical()
            .id_salt("teacher_forcing")
            .auto_shrink(false)
            .show(ui, |ui| self.contents(ui));
    }

    /// Load the models once; recompute only when the source text changed.
    fn refresh(&mut self) {
        let models = self.models.get_or_insert_with(Models::load);
        if self
            .computed
            .as_ref()
            .is_none_or(|c| c.source != self.source)
        {
            self.computed = Some(Computed::new(models, &self.source));
        }
    }

    fn contents(&mut self, ui: &mut Ui) {
        ui.heading("Teacher forcing and the causal mask");
        ui.label(
            "In training the decoder does not read its own guesses: it reads the right answer \
             shifted one step right (teacher forcing). The task here is to write the source \
             backwards.",
        );
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("source (letters a–j):");
            ui.add(egui::TextEdit::singleline(&mut self.source).desired_width(200.0))
                .labelled_by(label.id);
        });
        self.refresh();
        let Some(c) = &self.computed else { return };
        let Some(first) = c.runs.iter().find_map(|r| r.as_ref().ok()) else {
            if let Some(Err(e)) = c.runs.first() {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            return;
        };
        sequences(ui, &c.target, first);
        ui.separator();
        runs(ui, &c.runs);
        ui.separator();
        generations(ui, &c.target, &c.generated);
        ui.separator();
        lookahead(ui, c.runs.get(2));
    }
}

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
fn sequences(ui: &mut Ui, target: &str, run: &ForcedRun) {
    ui.label(format!("target (the source reversed): {target}"));
    egui::Grid::new("teacher_sequences")
        .striped(true)
        .show(ui, |ui| {
            ui.label("position");
            for i in 0..run.rows.len() {
                ui.label(mono(&i.to_string()));
            }
            ui.end_row();
            ui.label("decoder input = <bos> + target");
            for r in &run.rows {
                ui.label(mono(&r.input));
            }
            ui.end_row();
            ui.label("label = target + <eos>");
            for r in &run.rows {
                ui.label(mono(&r.label));
            }
            ui.end_row();
        });
    ui.label(
        RichText::new(
            "With the causal mask every position is trained in one pass, each seeing only \
             earlier target tokens.",
        )
        .strong(),
    );
}

/// The three teacher-forced runs side by side.
fn runs(ui: &mut Ui, results: &[Result<ForcedRun, String>]) {
    ui.heading("Three teacher-forced runs");
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
    ui.label(
        "A low teacher-forced loss proves little on its own: (c) scores as well as (a). \
         Generation, below, tells them apart.",
    );
}

fn run_table(ui: &mut Ui, index: usize, run: &ForcedRun) {
    egui::Grid::new(("teacher_run", index))
        .striped(true)
        .show(ui, |ui| {
            for h in ["pos", "input", "label", "predicted", "p(label)", "loss"] {
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
        RichText::new(format!(
            "mean loss {} · accuracy {right}/{} ({:.0}%)",
            fmt_value(run.mean_loss),
            run.rows.len(),
            100.0 * run.accuracy
        ))
        .strong(),
    );
}

/// Greedy generation from `<bos>`: the honest test.
fn generations(ui: &mut Ui, expected: &str, results: &[(Which, Result<Generation, String>)]) {
    ui.heading("Generation: no answer to copy");
    ui.label(
        "Now each model writes the answer itself, token by token from <bos>, feeding back its \
         own guesses. There is no later token to look at.",
    );
    for (which, result) in results {
        match result {
            Ok(g) => {
                let ok = g.text == expected;
                let mark = if ok { "right" } else { "wrong" };
                let end = if g.ended {
                    ""
                } else {
                    " (no <eos>: stopped at max_len)"
                };
                let text = format!("{} writes “{}”{end}: {mark}", which.name(), g.text);
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
    ui.label(format!("expected “{expected}”"));
}

/// reverse-nomask's decoder self-attention, on the head that looks one step ahead.
fn lookahead(ui: &mut Ui, run: Option<&Result<ForcedRun, String>>) {
    ui.heading("How reverse-nomask cheats");
    let Some(Ok(run)) = run else {
        ui.label("no run of reverse-nomask to show");
        return;
    };
    let layers = run.trace.layers(AttentionKind::DecoderSelf);
    let layer = layers.saturating_sub(1);
    let Some(attn) = run.trace.attention(AttentionKind::DecoderSelf, layer) else {
        ui.label("this model has no decoder self-attention");
        return;
    };
    let Some((head, mean)) = lookahead_head(attn) else {
        return;
    };
    let context = format!("reverse-nomask · decoder self-attention · layer {layer} · head {head}");
    ui.label(format!(
        "{context}: on average {:.0}% of each row's weight sits on the next position.",
        100.0 * mean
    ));
    let weights = attn.weights.index_axis(Axis(0), head);
    let rows = weights.nrows() as f32;
    let size = egui::vec2(560.0, 80.0 + 34.0 * rows);
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
        map.axis_names = ("query", "key");
        map.context = &context;
        map.show_with_legend(ui, 160.0, "weight");
    });
    ui.label(
        "Row i is the decoder at position i, whose label is the input at position i+1. With \
         no causal mask, this head puts its weight just right of the diagonal, on that very \
         token, and copies it: loss ~0 with nothing learned about reversing. In generation \
         position i+1 has not been written yet, so there is nothing to copy and the output \
         breaks.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;
    use ndarray::array;

    fn model(name: &str) -> Model {
        builtin::load(name).unwrap()
    }

    fn forced(name: &str, mask: MaskChoice) -> ForcedRun {
        let run = teacher_forced(&model(name), "abcdefgh", "hgfedcba", mask.clone()).unwrap();
        eprintln!(
            "{name} {mask:?}: mean loss {:.3e}, accuracy {:.3}",
            run.mean_loss, run.accuracy
        );
        run
    }

    #[test]
    fn token_loss_is_natural_log_and_stable() {
        let (loss, p) = token_loss(array![0.0f32, 0.0, 0.0, 0.0].view(), 2);
        assert!((loss - 4f64.ln()).abs() < 1e-12 && (p - 0.25).abs() < 1e-12);
        // A confident, right model: a tiny positive loss, not 0 or NaN.
        let (loss, p) = token_loss(array![30.0f32, 0.0, 0.0].view(), 0);
        assert!(loss > 0.0 && loss < 1e-12 && p <= 1.0);
        let (loss, _) = token_loss(array![1e30f32, -1e30].view(), 1);
        assert!(loss.is_finite() && loss > 1e29);
        assert_eq!(token_loss(array![1.0f32].view(), 5).0, f64::INFINITY);
    }

    #[test]
    fn tiny_values_are_written_so_they_do_not_read_as_zero() {
        assert_eq!(fmt_value(0.0), "0.0000");
        assert_eq!(fmt_value(1.5), "1.5000");
        assert_eq!(fmt_value(2.3e-7), "2.3e-7");
    }

    #[test]
    fn shifted_right_with_bos_and_eos() {
        assert_eq!(shifted(&[7, 8]), (vec![BOS, 7, 8], vec![7, 8, EOS]));
    }

    #[test]
    fn causal_reverse_is_right_teacher_forced() {
        let a = forced(REVERSE, MaskChoice::Default);
        assert_eq!(a.rows.len(), 9);
        assert_eq!(
            (a.rows[0].input.as_str(), a.rows[0].label.as_str()),
            ("<bos>", "h")
        );
        assert_eq!(a.rows[8].label, "<eos>");
        assert!(a.accuracy >= 0.99, "accuracy {}", a.accuracy);
        assert!(a.mean_loss < 0.1, "loss {}", a.mean_loss);
    }

    #[test]
    fn removing_the_mask_of_a_causal_model_costs_loss() {
        let a = forced(REVERSE, MaskChoice::Default);
        let b = forced(REVERSE, MaskChoice::None);
        assert!(
            b.mean_loss > a.mean_loss,
            "{} vs {}",
            b.mean_loss,
            a.mean_loss
        );
    }

    #[test]
    fn the_unmasked_model_cheats_to_near_zero_loss() {
        let c = forced(REVERSE_NOMASK, MaskChoice::Default);
        assert!(c.mean_loss < 0.01, "loss {}", c.mean_loss);
        assert!(c.accuracy >= 0.99, "accuracy {}", c.accuracy);
        // It looks one step into the future to do it.
        let attn = c.trace.attention(AttentionKind::DecoderSelf, 1).unwrap();
        let (head, mean) = lookahead_head(attn).unwrap();
        eprintln!("reverse-nomask last layer: head {head} puts {mean:.3} on i+1");
        assert!(mean > 0.5, "head {head}: {mean}");
    }

    #[test]
    fn only_the_causal_model_generates() {
        assert_eq!(generate(&model(REVERSE), "abcdefgh").unwrap(), "hgfedcba");
        let broken = generate_with_end(&model(REVERSE_NOMASK), "abcdefgh").unwrap();
        eprintln!("reverse-nomask generates {broken:?}");
        assert_ne!(broken.text, "hgfedcba");
    }

    #[test]
    fn odd_input_is_an_error_not_a_panic() {
        let m = model(REVERSE);
        assert!(teacher_forced(&m, "", "", MaskChoice::Default).is_err());
        assert!(generate(&m, "").is_err());
        let unknown = teacher_forced(&m, "abz", "zba", MaskChoice::Default).unwrap_err();
        assert!(unknown.contains("“z”"), "{unknown}");
        assert!(generate(&m, "Ab").is_err());
        let long = "abcdefghij".repeat(3);
        assert!(teacher_forced(&m, &long, &reversed(&long), MaskChoice::Default).is_err());
        assert!(generate(&m, &long).is_err());
    }

    #[test]
    fn generation_stops_at_max_len_without_eos() {
        // A decoder-only model continuing a prompt never runs past max_len.
        let lm = model("lm");
        let g = generate_with_end(&lm, "the cat").unwrap();
        assert!(!g.ended);
        assert!(g.text.chars().count() + "the cat".len() <= lm.config.max_len);
    }

    fn harness() -> egui_kittest::Harness<'static, TeacherForcing> {
        egui_kittest::Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(crate::app::GlimpseApp::style)
            .build_ui_state(
                |ui, s: &mut TeacherForcing| s.ui(ui),
                TeacherForcing::default(),
            )
    }

    #[test]
    fn the_panel_draws_runs_generations_and_the_cheat() {
        let mut h = harness();
        h.run_steps(3);
        h.get_by_label("source (letters a–j):");
        h.get_by_label_contains("every position is trained in one pass");
        assert_eq!(h.query_all_by_label_contains("mean loss").count(), 3);
        h.get_by_label_contains("reverse writes “hgfedcba”: right");
        h.get_by_label_contains("reverse-nomask writes");
        h.get_by_label_contains("wrong");
        h.get_by_label_contains("heatmap reverse-nomask");
    }

    #[test]
    fn the_panel_recomputes_on_new_text_and_survives_bad_text() {
        let mut h = harness();
        h.run_steps(2);
        h.state_mut().source = "abc".into();
        h.run_steps(2);
        h.get_by_label_contains("target (the source reversed): cba");
        h.get_by_label_contains("reverse writes “cba”");
        h.state_mut().source = String::new();
        h.run_steps(2);
        h.get_by_label_contains("empty");
        h.state_mut().source = "aXb".into();
        h.run_steps(2);
        h.get_by_label_contains("“X”");
    }
}
