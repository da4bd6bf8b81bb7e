//! A plot in words, for a screen reader and for anyone who wants the numbers: the plot records
//! each line it draws, then gets a one-sentence summary (its accessible name) and a data table
//! (`access_table`). Lines recorded here also get the chart palette and a dash pattern by
//! their place, so no line is told from another by colour alone. Formulas in the names are
//! read in words (`math_text::spoken`) and drawn with Unicode's small characters.

use super::access_table::{self, AccessTable};
use super::math_text::spoken;
use super::series_color;
use crate::t;
use egui::{Rect, Response, Ui, Vec2};
use egui_plot::{Line, LineStyle};

/// Rows a data table gives at most; longer lines are sampled evenly, ends included.
pub const MAX_ROWS: usize = 24;

/// What one plot draws.
pub struct PlotWords {
    title: String,
    x_name: String,
    series: Vec<(String, Vec<[f64; 2]>)>,
    marks: Vec<String>,
    /// Names of whole-number x values (bars per token).
    categories: Vec<String>,
}

/// The dash pattern of a chart's line `i`: solid, dashed, dotted, then again; with the same
/// pattern as text, for a key drawn outside the chart.
pub fn series_style(i: usize) -> (LineStyle, &'static str) {
    match i % 3 {
        0 => (LineStyle::Solid, "——"),
        1 => (LineStyle::dashed_loose(), "– –"),
        _ => (LineStyle::dotted_dense(), "···"),
    }
}

impl PlotWords {
    /// `title` says what the plot shows; `x_name` is its horizontal axis.
    pub fn new(title: impl Into<String>, x_name: impl Into<String>) -> Self {
        PlotWords {
            title: title.into(),
            x_name: x_name.into(),
            series: Vec::new(),
            marks: Vec::new(),
            categories: Vec::new(),
        }
    }

    /// Names the whole-number x values, as a bar chart's axis does.
    pub fn categories(mut self, names: &[String]) -> Self {
        self.categories = names.to_vec();
        self
    }

    /// An x value in words: its category's name, a whole number as such ("step 2"), or the
    /// number.
    fn x_text(&self, x: f64) -> String {
        let name = super::category_label(&self.categories, x);
        if !name.is_empty() {
            format!("“{}”", name.trim())
        } else if x.fract() == 0.0 && x.abs() < 1e5 {
            format!("{x:.0}")
        } else {
            short(x)
        }
    }

    /// A line of the plot, recorded; coloured and dashed by its place among the plot's lines.
    pub fn line(&mut self, name: impl Into<String>, points: Vec<[f64; 2]>) -> Line<'static> {
        let i = self.series.len();
        let name = self.record(name, &points);
        Line::new(name, points)
            .color(series_color(i))
            .style(series_style(i).0)
    }

    /// Records what the plot draws some other way (bars, a line drawn with its own colour);
    /// returns the name as the legend shows it (a formula's scripts in small characters).
    pub fn record(&mut self, name: impl Into<String>, points: &[[f64; 2]]) -> String {
        let name = name.into();
        let shown = super::math_unicode::unicode(&name);
        self.series.push((name, points.to_vec()));
        shown
    }

    /// A marker line: "L now at 2.00" (say in `what` which axis it marks).
    pub fn mark(&mut self, what: &str, at: f64) {
        self.marks
            .push(t!("widgets-plot-mark", what = what, at = short(at)));
    }

    /// A note the sentence ends with, e.g. "token embeddings lie within ±1".
    pub fn note(&mut self, text: &str) {
        self.marks.push(text.to_string());
    }

    /// The plot in one sentence: each line from its first value to its last, with its
    /// highest and lowest points, then the markers.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let x_name = spoken(&self.x_name);
        for (name, points) in &self.series {
            let name = &spoken(name);
            let finite: Vec<[f64; 2]> = points
                .iter()
                .copied()
                .filter(|p| p[0].is_finite() && p[1].is_finite())
                .collect();
            let (Some(first), Some(last)) = (finite.first(), finite.last()) else {
                parts.push(t!("widgets-plot-no-points", name = name));
                continue;
            };
            // The first point of a tie: a curve that reaches 1.00 and stays there peaks where it
            // first reaches it.
            let high = finite
                .iter()
                .min_by(|a, b| b[1].total_cmp(&a[1]))
                .unwrap_or(first);
            let low = finite
                .iter()
                .min_by(|a, b| a[1].total_cmp(&b[1]))
                .unwrap_or(first);
            parts.push(t!(
                "widgets-plot-line",
                name = name,
                x = &x_name,
                first = short(first[1]),
                first_at = self.x_text(first[0]),
                last = short(last[1]),
                last_at = self.x_text(last[0]),
                high = short(high[1]),
                high_at = self.x_text(high[0]),
                low = short(low[1]),
                low_at = self.x_text(low[0]),
            ));
        }
        parts.extend(self.marks.iter().map(|m| spoken(m)));
        let title = spoken(&self.title);
        if parts.is_empty() {
            t!("widgets-plot-empty", title = &title)
        } else {
            t!(
                "widgets-plot-summary",
                title = &title,
                parts = parts.join("; ")
            )
        }
    }

    /// The numbers: one column per line where all lines share their x values, else one row
    /// per point with its line named; at most `MAX_ROWS` rows per line.
    pub fn table(&self) -> AccessTable {
        let caption = t!("widgets-plot-caption", title = &spoken(&self.title));
        let shared = self.series.split_first().is_some_and(|((_, first), rest)| {
            rest.iter().all(|(_, p)| {
                p.len() == first.len() && p.iter().zip(first).all(|(a, b)| a[0] == b[0])
            })
        });
        if shared {
            let first = &self.series[0].1;
            let rows = sample(first.len(), MAX_ROWS)
                .map(|i| {
                    let cells = self.series.iter().map(|(_, p)| short(p[i][1])).collect();
                    (self.x_text(first[i][0]), cells)
                })
                .collect();
            AccessTable {
                caption,
                corner: spoken(&self.x_name),
                columns: self.series.iter().map(|(n, _)| spoken(n)).collect(),
                rows,
            }
        } else {
            let per_line = (MAX_ROWS * 2 / self.series.len().max(1)).max(4);
            let rows = self
                .series
                .iter()
                .flat_map(|(name, p)| {
                    sample(p.len(), per_line)
                        .map(move |i| (spoken(name), vec![self.x_text(p[i][0]), short(p[i][1])]))
                })
                .collect();
            AccessTable {
                caption,
                corner: t!("widgets-plot-line-header"),
                columns: vec![spoken(&self.x_name), t!("widgets-plot-value-header")],
                rows,
            }
        }
    }

    /// Gives the plot its summary as its accessible name, and its table over it.
    pub fn add(self, ui: &mut Ui, plot: &Response) {
        let summary = self.summary();
        plot.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &summary));
        let table = self.table();
        let rect = plot.rect;
        let rows = table.rows.len() + 1;
        let cols = table.columns.len() + 1;
        let cell = Vec2::new(rect.width() / cols as f32, rect.height() / rows as f32);
        let place = |r: usize, c: usize| {
            Rect::from_min_size(rect.min + Vec2::new(c as f32, r as f32) * cell, cell)
        };
        access_table::add(ui, &spoken(&self.title), table, place);
    }
}

/// Up to `max` indices of `0..len`, evenly spread, first and last included (strictly
/// increasing: with n ≤ len points the steps (len − 1)/(n − 1) are at least 1).
fn sample(len: usize, max: usize) -> impl Iterator<Item = usize> {
    let n = len.min(max.max(2));
    (0..n).map(move |k| if n < 2 { 0 } else { k * (len - 1) / (n - 1) })
}

/// A number in three significant figures, in scientific notation when very large or small.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        return format!("{v:.2e}");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_three_significant_figures() {
        let cases = [
            (0.0, "0"),
            (0.123456, "0.123"),
            (2.5, "2.50"),
            (-31.04, "-31.0"),
            (12345.0, "12345"),
            (1.5e6, "1.50e6"),
            (2e-5, "2.00e-5"),
        ];
        for (v, want) in cases {
            assert_eq!(short(v), want, "{v}");
        }
    }

    #[test]
    fn sampling_keeps_both_ends_and_never_repeats() {
        assert_eq!(sample(5, 24).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        let s: Vec<usize> = sample(1000, 24).collect();
        assert_eq!((s.len(), s[0], s[23]), (24, 0, 999));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample(1, 24).collect::<Vec<_>>(), [0]);
        assert_eq!(sample(0, 24).count(), 0);
    }

    #[test]
    fn the_summary_names_each_line_its_ends_and_extremes() {
        let mut w = PlotWords::new("Loss during training", "step");
        let _ = w.line("loss", vec![[0.0, 2.3], [1.0, 0.9], [2.0, 1.1]]);
        w.mark("warm-up ends", 1.0);
        assert_eq!(
            w.summary(),
            "Loss during training: “loss” from 2.30 at step 0 to 1.10 at step 2, \
             highest 2.30 at step 0, lowest 0.900 at step 1; warm-up ends at 1.00."
        );
        // A tie reads at its first point.
        let mut w = PlotWords::new("accuracy", "step");
        let _ = w.line("exact", vec![[0.0, 0.2], [1.0, 1.0], [2.0, 1.0]]);
        assert!(
            w.summary().contains("highest 1.00 at step 1,"),
            "{}",
            w.summary()
        );
    }

    /// Spanish puts the pieces in its own order and words, with the same figures.
    #[test]
    fn the_summary_reads_in_the_current_language() {
        crate::i18n::set("es");
        let mut w = PlotWords::new("Pérdida", "paso");
        let _ = w.line("pérdida", vec![[0.0, 2.3], [1.0, 0.9]]);
        let summary = w.summary();
        let caption = w.table().caption;
        crate::i18n::set(crate::i18n::ENGLISH);
        assert_eq!(
            summary,
            "Pérdida: “pérdida” va de 2.30 en paso 0 a 0.900 en paso 1, \
             máximo 2.30 en paso 0, mínimo 0.900 en paso 1."
        );
        assert_eq!(caption, "Pérdida, los números");
    }

    #[test]
    fn lines_on_one_grid_share_a_table_and_others_get_a_row_each() {
        let mut w = PlotWords::new("t", "x");
        let _ = w.line("a", vec![[0.0, 1.0], [1.0, 2.0]]);
        let _ = w.line("b", vec![[0.0, 3.0], [1.0, 4.0]]);
        let t = w.table();
        assert_eq!(
            (t.corner.as_str(), t.columns.len(), t.rows.len()),
            ("x", 2, 2)
        );
        assert_eq!(
            t.rows[1],
            ("1".to_string(), vec!["2.00".into(), "4.00".into()])
        );
        w.record("c", &[[0.5, 9.0]]);
        let t = w.table();
        assert_eq!((t.corner.as_str(), t.rows.len()), ("line", 5));
        assert_eq!(
            t.rows[4],
            ("c".to_string(), vec!["0.500".into(), "9.00".into()])
        );
    }
}
