//! The heads lab's panels: the head grid to switch heads off, the ranking with its pruning
//! curve, the grouping of query heads around shared keys and values, and the trained race.

use super::*;
use crate::app::words::Words;

impl HeadsLab {
    /// Grouped-query attention trained: the translator with 4, 2 and 1 key/value heads.
    pub(super) fn kv_sharing(&mut self, ui: &mut Ui) {
        ui.heading(t!("heads-kv-heading"));
        ui.label(t!(
            "heads-kv-intro",
            task = KV_TASK.name(),
            steps = KV_STEPS
        ));
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.kv_seed)
                    .range(1..=u32::MAX as u64)
                    .prefix(format!("{} ", t!("heads-seed"))),
            );
            ui.weak(t!("heads-seed-about"));
        });
        let cache = |c: &Contender| {
            let n = c.trainer.model.config.kv_cache_floats_per_token();
            t!("heads-kv-floats", floats = n, bytes = 4 * n)
        };
        let spec = kv_spec(self.kv_seed.max(1));
        let column = t!("heads-kv-cache-column");
        self.kv_race.show(ui, "kv_race", spec, (&column, &cache));
    }

    /// One button per head, by attention and layer; a ranked head is shaded by how much the
    /// loss rises without it.
    pub(super) fn grid(&mut self, ui: &mut Ui, all: &[HeadId], plan: Option<&Plan>) {
        let worst = plan
            .map(|p| p.ranked.iter().map(|i| i.loss_rise).fold(0.0, f32::max))
            .unwrap_or(0.0);
        let rise = |h: &HeadId| {
            plan.and_then(|p| p.ranked.iter().find(|i| i.head == *h))
                .map(|i| i.loss_rise)
        };
        let mut kinds: Vec<AttentionKind> = all.iter().map(|h| h.kind).collect();
        kinds.dedup();
        let mut clicked = None;
        for kind in kinds {
            ui.strong(kind.words());
            let layers = all
                .iter()
                .filter(|h| h.kind == kind)
                .map(|h| h.layer)
                .max()
                .unwrap_or(0);
            egui::Grid::new(("heads", kind as u8))
                .spacing([3.0, 3.0])
                .show(ui, |ui| {
                    for layer in 0..=layers {
                        ui.weak(t!("heads-layer", layer = layer));
                        for h in all.iter().filter(|h| h.kind == kind && h.layer == layer) {
                            let off = self.off.contains(h);
                            let mut text = RichText::new(format!("{}", h.head)).monospace();
                            if off {
                                text = text.strikethrough().weak();
                            }
                            let fill = match (off, rise(h)) {
                                (true, _) => ui.visuals().extreme_bg_color,
                                (false, Some(r)) if worst > 0.0 => {
                                    let t = (r.max(0.0) / worst).sqrt();
                                    Color32::from_rgb(60 + (180.0 * t) as u8, 60, 70)
                                }
                                _ => ui.visuals().widgets.inactive.bg_fill,
                            };
                            let action = if off {
                                t!("heads-click-on")
                            } else {
                                t!("heads-click-off")
                            };
                            let hover = match rise(h) {
                                Some(r) => t!(
                                    "heads-hover-rise",
                                    head = describe(h),
                                    rise = format!("{r:+.3}"),
                                    action = action
                                ),
                                None => format!("{}: {action}", describe(h)),
                            };
                            let b = ui
                                .add(
                                    egui::Button::new(text)
                                        .fill(fill)
                                        .min_size(egui::vec2(26.0, 20.0)),
                                )
                                .on_hover_text(hover);
                            crate::app::probe::control(&format!("heads:{}", head_code(h)), b.rect);
                            if b.clicked() {
                                clicked = Some(*h);
                            }
                        }
                        ui.end_row();
                    }
                });
            ui.add_space(4.0);
        }
        if let Some(h) = clicked {
            self.toggle(h);
        }
    }
}

/// The ranking and the pruning curve.
pub(super) fn results(ui: &mut Ui, plan: &Plan, off: &mut Vec<HeadId>) {
    let mut ranked = plan.ranked.clone();
    ranked.sort_by(|a, b| b.loss_rise.total_cmp(&a.loss_rise));
    if !ranked.is_empty() {
        ui.strong(t!("heads-matter-most"));
        egui::Grid::new("heads_ranked")
            .striped(true)
            .show(ui, |ui| {
                for i in ranked.iter().take(LISTED) {
                    ui.label(describe(&i.head));
                    ui.monospace(t!("heads-rank-loss", rise = format!("{:+.3}", i.loss_rise)));
                    ui.monospace(t!(
                        "heads-rank-acc",
                        change =
                            format!("{:+.1}", 100.0 * (i.without.accuracy - plan.full.accuracy))
                    ));
                    ui.end_row();
                }
            });
        let negligible = ranked.iter().filter(|i| i.loss_rise.abs() < 0.01).count();
        ui.weak(t!(
            "heads-negligible",
            negligible = negligible,
            count = ranked.len()
        ));
    }
    if plan.pruned.is_empty() {
        return;
    }
    ui.add_space(6.0);
    let removable = plan.removable(TOLERANCE);
    let total = plan.ranked.len();
    let points = format!("{:.0}", 100.0 * TOLERANCE);
    ui.label(
        RichText::new(if plan.done() {
            t!(
                "heads-removable",
                removable = removable,
                total = total,
                points = points
            )
        } else {
            t!(
                "heads-removable-so-far",
                removable = removable,
                total = total,
                points = points
            )
        })
        .strong(),
    );
    if removable > 0
        && ui
            .button(t!("heads-switch-those-off", count = removable))
            .clicked()
    {
        *off = plan.least_first()[..removable].to_vec();
    }
    let accuracy: Vec<[f64; 2]> = std::iter::once([0.0, 100.0 * plan.full.accuracy as f64])
        .chain(
            plan.pruned
                .iter()
                .enumerate()
                .map(|(k, s)| [(k + 1) as f64, 100.0 * s.accuracy as f64]),
        )
        .collect();
    let exact: Option<Vec<[f64; 2]>> = plan.full.exact.map(|e| {
        std::iter::once([0.0, 100.0 * e as f64])
            .chain(
                plan.pruned
                    .iter()
                    .enumerate()
                    .map(|(k, s)| [(k + 1) as f64, 100.0 * s.exact.unwrap_or(0.0) as f64]),
            )
            .collect()
    });
    let mut words = PlotWords::new(t!("heads-plot-title"), t!("heads-plot-x-short"));
    let floor = 100.0 * (plan.full.accuracy - TOLERANCE) as f64;
    let floor_name = t!("heads-plot-floor");
    let plot = Plot::new("heads_pruned")
        .height(200.0)
        .legend(Legend::default().position(Corner::LeftBottom))
        .x_axis_label(t!("heads-plot-x"))
        .y_axis_label("%")
        .include_y(0.0)
        .include_y(100.0)
        .allow_scroll(false)
        .show(ui, |p| {
            p.line(words.line(t!("heads-plot-accuracy"), accuracy));
            if let Some(e) = exact {
                p.line(words.line(t!("heads-plot-exact"), e));
            }
            p.hline(HLine::new(floor_name.as_str(), floor));
        });
    words.mark(&floor_name, floor);
    words.add(ui, &plot.response);
}

/// Grouped-query attention: which query heads share which key/value head, and the KV cache
/// that saves.
pub(super) fn grouping(ui: &mut Ui, model: &Model) {
    let c = &model.config;
    if c.n_kv_heads >= c.n_heads {
        return;
    }
    let group = c.n_heads / c.n_kv_heads;
    ui.add_space(8.0);
    ui.strong(t!(
        "heads-shared",
        heads = c.n_heads,
        kv = c.n_kv_heads,
        kind = if c.n_kv_heads == 1 {
            t!("heads-multi-query")
        } else {
            t!("heads-grouped-query", group = group)
        }
    ));
    let (w, h) = (ui.available_width().min(720.0), 90.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(w, h), egui::Sense::hover());
    let p = ui.painter();
    let ink = ui.visuals().text_color();
    let font = egui::FontId::monospace(11.0);
    let x_of = |i: usize, n: usize| rect.left() + (i as f32 + 0.5) * rect.width() / n as f32;
    let (top, bottom) = (rect.top() + 14.0, rect.bottom() - 14.0);
    for q in 0..c.n_heads {
        let kv = q / group;
        p.line_segment(
            [
                egui::pos2(x_of(q, c.n_heads), top + 8.0),
                egui::pos2(x_of(kv, c.n_kv_heads), bottom - 8.0),
            ],
            egui::Stroke::new(1.5, crate::app::labs::attention::lines::head_color(kv)),
        );
        p.text(
            egui::pos2(x_of(q, c.n_heads), top),
            egui::Align2::CENTER_CENTER,
            format!("Q{q}"),
            font.clone(),
            ink,
        );
    }
    for kv in 0..c.n_kv_heads {
        p.text(
            egui::pos2(x_of(kv, c.n_kv_heads), bottom),
            egui::Align2::CENTER_CENTER,
            format!("K{kv} V{kv}"),
            font.clone(),
            crate::app::labs::attention::lines::head_color(kv),
        );
    }
    let per = |heads: usize| 2 * heads * c.d_head();
    crate::app::widgets::math_text::label(
        ui,
        &t!(
            "heads-kv-cache",
            kv = c.n_kv_heads,
            d_head = c.d_head(),
            numbers = crate::util::grouped(per(c.n_kv_heads) as u128),
            heads = c.n_heads,
            all_numbers = crate::util::grouped(per(c.n_heads) as u128),
            group = group,
            size = crate::app::models::sources::megabytes(
                (4 * per(c.n_kv_heads) * c.n_layers * c.max_len) as u64
            ),
            layers = c.n_layers,
            tokens = c.max_len
        ),
    );
}
