//! What the key/value cache saves: greedy decoding twice, with and without it, measuring
//! every step's work.

use super::session::{build, GreedyRun, Models, Settings, SourceKind};
use super::tree::visible;
use crate::app::widgets::plot_words::PlotWords;
use crate::decode::source::Work;
use crate::model::ModelConfig;
use crate::t;
use egui::{RichText, Ui};
use egui_plot::{Corner, Legend, Plot};

/// One greedy step of both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct KvRow {
    pub token: String,
    /// This step's work with the cache, and without.
    pub cached: Work,
    pub plain: Work,
    /// Floats held in the cache after the step.
    pub cache_floats: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KvRun {
    pub rows: Vec<KvRow>,
    /// Both runs chose the same tokens.
    pub same: bool,
}

/// The comparison for one source and its settings, measured a pass at a time (SmolLM2's
/// recomputed steps take a tenth of a second each in the browser).
pub struct KvComparison {
    key: (SourceKind, String, u32, usize),
    /// The runs with and without the cache while they are measured.
    runs: Option<(GreedyRun, GreedyRun)>,
    /// The rows (or why there are none) once both runs have ended.
    pub result: Option<Result<KvRun, String>>,
}

fn key(s: &Settings) -> (SourceKind, String, u32, usize) {
    (
        s.kind,
        s.text().to_string(),
        s.temperature.to_bits(),
        s.max_len,
    )
}

/// Keys and values of every layer for `positions` positions.
pub fn cache_floats(config: &ModelConfig, positions: usize) -> usize {
    positions * config.kv_cache_floats_per_token()
}

/// A greedy step: its token id and text, its work, and the prefix length it was fed.
type Measured = (u32, String, Work, usize);

/// Greedy decoding for the comparison, with or without the cache.
fn measuring(settings: &Settings, models: &Models, use_cache: bool) -> Result<GreedyRun, String> {
    build(settings, models, settings.temperature, use_cache).map(GreedyRun::new)
}

/// A run's steps as the table's rows need them.
fn measured(run: &GreedyRun) -> Vec<Measured> {
    run.steps
        .iter()
        .map(|s| (s.id, run.built.source.token(s.id), s.work, s.fed))
        .collect()
}

/// Runs of each kind at most, and the time they may take together: a toy model's step takes
/// microseconds, where one busy moment of the machine outweighs it, so each step keeps its
/// fastest time over several runs (a real model's one run already takes longer).
const REPEATS: usize = 5;
const REPEAT_BUDGET_S: f64 = 0.05;

/// `first` with each step's time the fastest over more runs, while they are cheap.
fn fastest(
    mut best: Vec<Measured>,
    settings: &Settings,
    models: &Models,
    use_cache: bool,
) -> Result<Vec<Measured>, String> {
    let mut spent: f64 = best.iter().map(|r| r.2.seconds).sum();
    for _ in 1..REPEATS {
        if spent > REPEAT_BUDGET_S {
            break;
        }
        let mut run = measuring(settings, models, use_cache)?;
        while run.unit()? {}
        let again = measured(&run);
        spent += again.iter().map(|r| r.2.seconds).sum::<f64>();
        for (b, a) in best.iter_mut().zip(&again) {
            b.2.seconds = b.2.seconds.min(a.2.seconds);
        }
    }
    Ok(best)
}

/// Both runs measured: the table's rows.
fn compare(
    cached: Vec<Measured>,
    plain: Vec<Measured>,
    settings: &Settings,
    models: &Models,
) -> Result<KvRun, String> {
    let config = models.get(settings.kind)?.config.clone();
    let cached = fastest(cached, settings, models, true)?;
    let plain = fastest(plain, settings, models, false)?;
    let same = cached.iter().map(|r| r.0).eq(plain.iter().map(|r| r.0));
    let rows = cached
        .into_iter()
        .zip(plain)
        .map(|((_, token, c, len), (_, _, p, _))| KvRow {
            token,
            cached: c,
            plain: p,
            cache_floats: cache_floats(&config, len),
        })
        .collect();
    Ok(KvRun { rows, same })
}

impl KvComparison {
    /// The two runs for `settings`, nothing computed yet.
    fn new(settings: &Settings, models: &Models) -> Self {
        let runs = measuring(settings, models, true)
            .and_then(|c| Ok((c, measuring(settings, models, false)?)));
        let (runs, result) = match runs {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(Err(e))),
        };
        Self {
            key: key(settings),
            runs,
            result,
        }
    }

    /// Passes until `budget` is spent (at least one): the cached run, then the recomputing
    /// one; the rows once both have ended.
    pub fn advance(&mut self, settings: &Settings, models: &Models, budget: web_time::Duration) {
        crate::app::models::running::within(budget, || self.unit(settings, models));
    }

    /// One pass of the run under way; false once both have ended (the rows in `result`), or
    /// while the pass runs off the page's thread.
    fn unit(&mut self, settings: &Settings, models: &Models) -> bool {
        let Some((cached, plain)) = self.runs.as_mut() else {
            return false;
        };
        let unit = match cached.unit_or_wait() {
            Ok(Some(false)) => plain.unit_or_wait(),
            other => other,
        };
        match unit {
            // Its pass runs off the page's thread: this frame is done.
            Ok(None) => false,
            Ok(Some(true)) => true,
            Ok(Some(false)) => {
                let (c, p) = (measured(cached), measured(plain));
                self.runs = None;
                self.result = Some(compare(c, p, settings, models));
                false
            }
            Err(e) => {
                self.runs = None;
                self.result = Some(Err(e));
                false
            }
        }
    }

    /// Steps measured so far with the cache and without, while measuring.
    pub fn measuring(&self) -> Option<(usize, usize, usize)> {
        self.runs
            .as_ref()
            .map(|(c, p)| (c.steps.len(), p.steps.len(), c.built.max_len))
    }
}

/// The comparison, started again when the source or its settings change.
pub fn ensure<'a>(
    slot: &'a mut Option<KvComparison>,
    settings: &Settings,
    models: &Models,
) -> &'a mut KvComparison {
    let k = key(settings);
    if slot.as_ref().is_some_and(|c| c.key != k) {
        *slot = None;
    }
    slot.get_or_insert_with(|| KvComparison::new(settings, models))
}

/// The comparison; `may_work`: this frame may spend time measuring (not while the search above
/// has passes to run).
pub fn show(
    ui: &mut Ui,
    slot: &mut Option<KvComparison>,
    settings: &Settings,
    models: &Models,
    may_work: bool,
) {
    if settings.kind == SourceKind::Table {
        ui.label(t!("decoding-kv-table"));
        return;
    }
    ui.label(t!("decoding-kv-intro"));
    let comparison = ensure(slot, settings, models);
    if may_work {
        comparison.advance(settings, models, super::WORK_PER_FRAME);
    }
    if let Some((cached, plain, of)) = comparison.measuring() {
        ui.weak(t!(
            "decoding-kv-measuring",
            cached = cached,
            of = of,
            plain = plain
        ));
        ui.ctx().request_repaint();
        return;
    }
    match comparison.result.as_ref().unwrap_or(&Err(String::new())) {
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        Ok(run) => {
            if let Ok(m) = models.get(settings.kind) {
                let c = &m.config;
                crate::app::widgets::math_text::weak(
                    ui,
                    &t!(
                        "decoding-kv-size",
                        layers = c.n_layers,
                        width = c.n_kv_heads * c.d_head()
                    ),
                );
            }
            verdict(ui, run);
            ui.weak(t!("decoding-kv-times"));
            table(ui, run);
            plot(ui, run);
        }
    }
}

fn verdict(ui: &mut Ui, run: &KvRun) {
    if run.same {
        ui.label(t!("decoding-kv-same", count = run.rows.len()));
    } else {
        ui.colored_label(ui.visuals().error_fg_color, t!("decoding-kv-different"));
    }
}

fn table(ui: &mut Ui, run: &KvRun) {
    // Both ways: a wide table scrolls inside itself instead of widening the whole view.
    egui::ScrollArea::both()
        .id_salt("decoding_kv")
        .max_height(240.0)
        .show(ui, |ui| {
            egui::Grid::new("decoding_kv_grid")
                .striped(true)
                .show(ui, |ui| {
                    // Two-line headers keep the table inside a tablet's width.
                    let (positions, total, time) = (
                        t!("decoding-kv-col-positions"),
                        t!("decoding-kv-col-total"),
                        t!("decoding-kv-col-time"),
                    );
                    for h in [
                        t!("decoding-kv-col-step"),
                        t!("decoding-kv-col-token"),
                        format!("{}\n{positions}", t!("decoding-kv-col-cached")),
                        format!("\n{total}"),
                        format!("\n{time}"),
                        format!("{}\n{positions}", t!("decoding-kv-col-recomputed")),
                        format!("\n{total}"),
                        format!("\n{time}"),
                        format!(
                            "{}\n{}",
                            t!("decoding-kv-col-size"),
                            t!("decoding-kv-col-floats")
                        ),
                    ] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    let (mut c, mut p) = (Work::default(), Work::default());
                    for (i, r) in run.rows.iter().enumerate() {
                        c = add(c, r.cached);
                        p = add(p, r.plain);
                        ui.label((i + 1).to_string());
                        ui.label(RichText::new(visible(&r.token)).monospace());
                        ui.label(r.cached.positions.to_string());
                        ui.label(c.positions.to_string());
                        ui.label(ms(c.seconds));
                        ui.label(r.plain.positions.to_string());
                        ui.label(p.positions.to_string());
                        ui.label(ms(p.seconds));
                        ui.label(format!(
                            "{} ({:.1} KiB)",
                            r.cache_floats,
                            r.cache_floats as f64 * 4.0 / 1024.0
                        ));
                        ui.end_row();
                    }
                });
        });
}

fn add(a: Work, b: Work) -> Work {
    Work {
        calls: a.calls + b.calls,
        positions: a.positions + b.positions,
        seconds: a.seconds + b.seconds,
    }
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

/// Cumulative positions computed against step, both runs.
fn plot(ui: &mut Ui, run: &KvRun) {
    let cumulative = |f: fn(&KvRow) -> usize| -> Vec<[f64; 2]> {
        let mut total = 0;
        run.rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                total += f(r);
                [(i + 1) as f64, total as f64]
            })
            .collect()
    };
    let cached = cumulative(|r| r.cached.positions);
    let plain = cumulative(|r| r.plain.positions);
    ui.label(t!("decoding-kv-plot-caption"));
    let mut words = PlotWords::new(t!("decoding-kv-plot-title"), t!("decoding-kv-plot-x"));
    let plot = Plot::new("decoding_kv_plot")
        .height(180.0)
        .allow_scroll(false)
        .legend(Legend::default().position(Corner::LeftTop))
        .show(ui, |p| {
            p.line(words.line(t!("decoding-kv-with-cache"), cached));
            p.line(words.line(t!("decoding-kv-recomputing"), plain));
        });
    words.add(ui, &plot.response);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_computes_one_position_a_step_and_agrees() {
        let settings = Settings::default();
        let models = Models::from_store(&crate::app::models::store::ModelStore::default());
        // With no time to spare each call measures one pass: the table fills over frames.
        let mut comparison = KvComparison::new(&settings, &models);
        let mut calls = 0;
        while comparison.measuring().is_some() {
            comparison.advance(&settings, &models, web_time::Duration::ZERO);
            calls += 1;
        }
        let run = comparison.result.unwrap().unwrap();
        assert!(run.same && run.rows.len() > 2);
        assert_eq!(calls, 2 * run.rows.len() + 1, "a pass a call, and the end");
        for (i, r) in run.rows.iter().enumerate() {
            assert_eq!(r.cached.positions, 1);
            assert_eq!(r.plain.positions, i + 1);
        }
        assert!(run.rows[1].cache_floats == 2 * run.rows[0].cache_floats);
    }
}
