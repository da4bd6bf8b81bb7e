//! Patching: the clean text (the shared input) and a corrupted one of the same length side by
//! side; every residual-stream position and every head of the corrupted run is given its
//! clean value in turn, and the heatmaps fill in as the patches run (1 = restores the clean
//! answer, 0 = changes nothing), with progress and Cancel.

use super::background::{self, Job, Status};
use super::{not_ready, token_id, warn, Clean, InfluenceLab, Shared};
use crate::analysis::patching::{Patching, Sweep};
use crate::app::export;
use crate::app::widgets::colormap::ColorScale;
use crate::app::widgets::heatmap::Heatmap;
use crate::model::ForwardOptions;
use crate::t;
use ndarray::Array2;

/// Height of the two grids, so the best patches stay in view under them.
const GRID_HEIGHT: f32 = 400.0;

/// What a sweep runs on: model, clean ids, corrupted ids, A, B.
type Key = (String, Vec<u32>, Vec<u32>, u32, u32);

#[derive(Default)]
pub struct PatchingState {
    key: Option<Key>,
    job: Option<Job<Sweep>>,
    /// The last results seen (kept after Cancel).
    pub status: Option<Status<Patching>>,
}

impl PatchingState {
    /// The sweep's results so far when they are for `key`.
    pub fn results_for(&self, name: &str, clean: &[u32]) -> Option<&Patching> {
        let (k, s) = (self.key.as_ref()?, self.status.as_ref()?);
        (k.0 == name && k.1 == clean).then_some(&s.snapshot)
    }
}

/// Per-block values (patching scores, effects) as a matrix, with a mask of the measured
/// cells: `NaN` (not run yet) is drawn hatched as "not yet".
pub(super) fn grid(rows: &[Vec<f64>]) -> (Array2<f32>, Array2<bool>) {
    let (r, c) = (rows.len(), rows.iter().map(Vec::len).max().unwrap_or(0));
    let v = Array2::from_shape_fn((r, c), |(i, j)| {
        rows[i].get(j).copied().unwrap_or(f64::NAN) as f32
    });
    let ok = v.mapv(f32::is_finite);
    (v.mapv(|x| if x.is_finite() { x } else { 0.0 }), ok)
}

/// The `n` best cells of a grid as "name score".
fn best(rows: &[Vec<f64>], n: usize, name: impl Fn(usize, usize) -> String) -> String {
    let mut cells: Vec<(usize, usize, f64)> = rows
        .iter()
        .enumerate()
        .flat_map(|(l, r)| r.iter().enumerate().map(move |(i, x)| (l, i, *x)))
        .filter(|c| c.2.is_finite())
        .collect();
    cells.sort_by(|a, b| b.2.total_cmp(&a.2));
    let named: Vec<String> = cells
        .iter()
        .take(n)
        .map(|&(l, i, x)| format!("{} {x:.2}", name(l, i)))
        .collect();
    named.join(", ")
}

impl InfluenceLab {
    pub(super) fn patching_section(
        &mut self,
        ui: &mut egui::Ui,
        shared: &mut Shared<'_>,
        clean: &Clean,
    ) {
        let rect = ui.max_rect();
        crate::app::widgets::math_text::label(ui, &t!("influence-patching-intro"));
        ui.horizontal_wrapped(|ui| {
            ui.label(t!("influence-patching-clean"));
            ui.monospace(crate::analysis::quoted(&clean.tokens));
        });
        ui.horizontal(|ui| {
            let label = ui.label(t!("influence-patching-corrupted"));
            let width = ui.available_width() - 150.0;
            let edit = egui::TextEdit::singleline(&mut self.corrupt).desired_width(width);
            let r = ui.add(edit).labelled_by(label.id);
            crate::app::probe::control("influence:corrupt", r.rect);
            if ui.button(t!("influence-patching-copy")).clicked() {
                // The text the shared pass read: the target where there is one.
                self.corrupt = match shared.bench.target.is_empty() {
                    true => shared.bench.source.clone(),
                    false => shared.bench.target.clone(),
                };
            }
        });
        self.token_boxes(ui, clean, true);
        if !clean.model.has_output_layer() {
            return;
        }
        let model = &clean.model;
        let (a, b) = match (
            token_id(model, &self.target),
            token_id(model, &self.contrast),
        ) {
            (Ok(Some(a)), Ok(Some(b))) => (a, b),
            (Err(e), _) | (_, Err(e)) => return warn(ui, e),
            _ => return warn(ui, t!("influence-patching-both-tokens")),
        };
        if self.corrupt.trim().is_empty() {
            return warn(ui, t!("influence-patching-type-corrupted"));
        }
        let corrupt_input = model.prepare("", &self.corrupt).input;
        let corrupt_ids = corrupt_input.target.clone();
        if let Err(e) = Sweep::check(model, &clean.ids, &corrupt_ids) {
            return warn(ui, e.to_string());
        }
        let differ: Vec<String> = (0..clean.ids.len())
            .filter(|&i| clean.ids[i] != corrupt_ids[i])
            .map(|i| {
                format!(
                    "{i}: “{}” → “{}”",
                    clean.tokens[i],
                    model.tokenizer.token(corrupt_ids[i])
                )
            })
            .collect();
        ui.label(if differ.is_empty() {
            t!("influence-patching-same")
        } else {
            t!("influence-patching-differ", positions = differ.join(", "))
        });
        let key = (clean.name.clone(), clean.ids.clone(), corrupt_ids, a, b);
        ui.horizontal(|ui| {
            let running = self.sweep
                && self.patching.key.as_ref() == Some(&key)
                && self.patching.job.is_some();
            let label = if running {
                t!("influence-patching-running")
            } else {
                t!("influence-patching-run")
            };
            let r = ui.add_enabled(!running, egui::Button::new(label));
            crate::app::probe::control("influence:run sweep", r.rect);
            if r.clicked() {
                self.sweep = true;
                self.patching.key = None;
            }
            if running {
                let r = ui.button(t!("influence-cancel"));
                crate::app::probe::control("influence:cancel sweep", r.rect);
                if r.clicked() {
                    self.sweep = false;
                    self.patching.job = None;
                }
            }
        });
        if self.sweep && self.patching.key.as_ref() != Some(&key) {
            self.patching.job = None;
            let corrupt =
                match shared
                    .store
                    .forward(&clean.name, &corrupt_input, &ForwardOptions::default())
                {
                    Ok(t) => t,
                    Err(e) => return not_ready(ui, shared.store, &e),
                };
            match Sweep::from_traces(model, &clean.trace, &corrupt, a, b) {
                Ok(sweep) => {
                    self.patching.status = None;
                    self.patching.job = Some(Job::start(sweep, model.clone(), ui.ctx().clone()));
                    self.patching.key = Some(key.clone());
                }
                Err(e) => {
                    self.sweep = false;
                    return warn(ui, e.to_string());
                }
            }
        }
        background::poll(&mut self.patching.job, &mut self.patching.status);
        if self.patching.key.as_ref() != Some(&key) {
            ui.weak(t!("influence-patching-press"));
            return;
        }
        let Some(status) = self.patching.status.clone() else {
            return;
        };
        draw_results(ui, shared, rect, &status, clean);
        let r = &status.snapshot;
        self.note(
            "patching",
            serde_json::json!({
                "progress": [status.progress.0, status.progress.1],
                "seconds": status.seconds,
                "longest_step_ms": status.longest_step * 1e3,
                "done": status.done,
                "ld_clean": r.ld_clean,
                "ld_corrupt": r.ld_corrupt,
                "resid": r.resid,
                "heads": r.heads,
            }),
        );
    }
}

fn draw_results(
    ui: &mut egui::Ui,
    shared: &mut Shared<'_>,
    rect: egui::Rect,
    s: &Status<Patching>,
    clean: &Clean,
) {
    let r = &s.snapshot;
    let (done, all) = s.progress;
    if let Some(e) = &s.error {
        warn(ui, e.clone());
    }
    if done < all {
        ui.add(
            egui::ProgressBar::new(done as f32 / all.max(1) as f32).text(t!(
                "influence-patching-progress",
                done = done,
                all = all,
                seconds = format!("{:.1}", s.seconds)
            )),
        );
    } else {
        ui.strong(t!(
            "influence-patching-done",
            all = all,
            seconds = format!("{:.1}", s.seconds)
        ));
    }
    ui.horizontal_wrapped(|ui| {
        let json = || serde_json::to_vec_pretty(r).ok();
        let csv = |grid_rows: &[Vec<f64>], cols: Vec<String>| {
            let (values, _) = grid(grid_rows);
            let rows: Vec<String> = (0..values.nrows())
                .map(|l| t!("influence-block", block = l))
                .collect();
            Some(export::matrix_csv(values.view(), &rows, &cols).into_bytes())
        };
        let resid_csv = || csv(&r.resid, clean.tokens.clone());
        let heads_csv = || {
            let n = r.heads.first().map_or(0, Vec::len);
            csv(&r.heads, (0..n).map(|h| format!("h{h}")).collect())
        };
        let labels = [
            t!("influence-patching-export-json"),
            t!("influence-patching-export-resid"),
            t!("influence-patching-export-heads"),
        ];
        let files: [export::DataFile<'_>; 3] = [
            (&labels[0], "glimpse-patching.json".into(), &json),
            (&labels[1], "glimpse-patching-resid.csv".into(), &resid_csv),
            (&labels[2], "glimpse-patching-heads.csv".into(), &heads_csv),
        ];
        export::view_menu(ui, shared.exporter, rect, "glimpse-patching.png", &files);
    });
    ui.label(t!(
        "influence-patching-ld",
        clean = format!("{:.3}", r.ld_clean),
        corrupted = format!("{:.3}", r.ld_corrupt)
    ));
    let (resid, resid_ok) = grid(&r.resid);
    let (heads, heads_ok) = grid(&r.heads);
    let limit = resid
        .iter()
        .chain(heads.iter())
        .fold(1.0f32, |m, x| m.max(x.abs()));
    let scale = ColorScale::Diverging { limit };
    let rows: Vec<String> = (0..resid.nrows())
        .map(|l| t!("influence-block", block = l))
        .collect();
    let head_cols: Vec<String> = (0..heads.ncols()).map(|h| format!("h{h}")).collect();
    let (block, position, head) = (
        t!("influence-axis-block"),
        t!("influence-axis-position"),
        t!("influence-axis-head"),
    );
    let (context, score) = (
        t!("influence-patching-context"),
        t!("influence-patching-score"),
    );
    crate::app::widgets::fit::columns(ui, 2, 320.0, |cols| {
        cols[0].strong(t!("influence-patching-resid-title"));
        let mut m = Heatmap::new(resid.view(), &rows, &clean.tokens, scale);
        m.allowed = Some(resid_ok.view());
        m.axis_names = (&block, &position);
        m.context = &context;
        m.max_cell = 28.0;
        let size = egui::vec2(cols[0].available_width(), GRID_HEIGHT);
        cols[0].allocate_ui(size, |ui| {
            m.show_with_legend(ui, GRID_HEIGHT - 40.0, &score)
        });
        let n = cols.len() - 1;
        cols[n].strong(t!("influence-patching-heads-title"));
        let mut m = Heatmap::new(heads.view(), &rows, &head_cols, scale);
        m.allowed = Some(heads_ok.view());
        m.axis_names = (&block, &head);
        m.context = &context;
        m.max_cell = 28.0;
        let size = egui::vec2(cols[n].available_width(), GRID_HEIGHT);
        cols[n].allocate_ui(size, |ui| {
            m.show_with_legend(ui, GRID_HEIGHT - 40.0, &score)
        });
    });
    let tokens = &clean.tokens;
    let patches = best(&r.resid, 4, |l, p| {
        t!(
            "influence-patching-block-at",
            block = l,
            token = tokens.get(p).map_or("?", |t| t.as_str())
        )
    });
    ui.label(t!("influence-patching-best-resid", patches = patches));
    let heads = best(&r.heads, 5, |l, h| {
        t!("influence-head", layer = l, head = h)
    });
    ui.label(t!("influence-patching-best-heads", heads = heads));
}
