//! Colour scales: perceptually uniform inferno for weights in [0, 1], a diverging red–blue
//! map centred on 0 for signed values. Each legend marks the steps that stay at least ΔE₀₀ 10
//! apart under every simulated colour-vision deficiency (`color_vision`'s tests), and numbers
//! written on a colour take the ink with the higher WCAG contrast.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, Vec2};
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColorScale {
    /// Inferno from `min` (black) to `max` (pale yellow).
    Sequential { min: f32, max: f32 },
    /// Blue for negative, white at 0, red for positive; symmetric around 0 up to `limit`.
    Diverging { limit: f32 },
}

impl ColorScale {
    /// Where a value falls on the scale, in [0, 1].
    pub fn position(&self, v: f32) -> f32 {
        let t = match *self {
            ColorScale::Sequential { min, max } => (v - min) / (max - min).max(f32::EPSILON),
            ColorScale::Diverging { limit } => 0.5 + 0.5 * v / limit.max(f32::EPSILON),
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// The colour at `v`: the map's sample nearest to its position (a texture colours each of
    /// its cells, and evaluating the map's spline for each of a vocabulary panel's half a
    /// million cells took 11 ms in the browser).
    pub fn color(&self, v: f32) -> Color32 {
        let at = (self.position(v) * (SAMPLES - 1) as f32).round() as usize;
        let table = match self {
            ColorScale::Sequential { .. } => &SEQUENTIAL,
            ColorScale::Diverging { .. } => &DIVERGING,
        };
        table.get_or_init(|| sampled(self))[at.min(SAMPLES - 1)]
    }

    /// The map itself at position `t` in [0, 1] (what `color` samples).
    fn exact(&self, t: f64) -> Color32 {
        let c = match self {
            ColorScale::Sequential { .. } => colorous::INFERNO.eval_continuous(t),
            // RdBu runs red → blue; flip it so positive is red.
            ColorScale::Diverging { .. } => colorous::RED_BLUE.eval_continuous(1.0 - t),
        };
        Color32::from_rgb(c.r, c.g, c.b)
    }

    pub fn range(&self) -> (f32, f32) {
        match *self {
            ColorScale::Sequential { min, max } => (min, max),
            ColorScale::Diverging { limit } => (-limit, limit),
        }
    }

    /// The values the legend marks: fifths of a sequential scale, eighths of a diverging one.
    /// In fifths viridis and magma fall below ΔE₀₀ 10 under protanopia and cividis barely
    /// clears it, so the map is inferno; the red–blue map passes in eighths
    /// (docs/accessibility.md has the figures).
    pub fn marks(&self) -> Vec<f32> {
        let steps = match self {
            ColorScale::Sequential { .. } => 5,
            ColorScale::Diverging { .. } => 8,
        };
        let (lo, hi) = self.range();
        (0..=steps)
            .map(|i| lo + (hi - lo) * i as f32 / steps as f32)
            .collect()
    }

    /// Both kinds of scale over their unit range, for tests that must hold for every map.
    #[cfg(test)]
    pub const UNIT: [ColorScale; 2] = [
        ColorScale::Sequential { min: 0.0, max: 1.0 },
        ColorScale::Diverging { limit: 1.0 },
    ];

    /// A diverging scale wide enough for every finite value given.
    pub fn diverging_for<'a>(values: impl IntoIterator<Item = &'a f32>) -> Self {
        let limit = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(0.0f32, |m, v| m.max(v.abs()));
        ColorScale::Diverging {
            limit: if limit > 0.0 { limit } else { 1.0 },
        }
    }
}

/// How many times each map is sampled: odd, so the diverging map's centre (0) is a sample;
/// enough that a sampled colour is the map's own within one 8-bit step (tested).
const SAMPLES: usize = 4097;
static SEQUENTIAL: OnceLock<Vec<Color32>> = OnceLock::new();
static DIVERGING: OnceLock<Vec<Color32>> = OnceLock::new();

fn sampled(scale: &ColorScale) -> Vec<Color32> {
    (0..SAMPLES)
        .map(|i| scale.exact(i as f64 / (SAMPLES - 1) as f64))
        .collect()
}

/// Black or white, whichever is more legible on `background` (WCAG contrast; the better of the
/// two is always at least 4.58:1).
pub fn ink_on(background: Color32) -> Color32 {
    use super::color_vision::contrast_ratio;
    if contrast_ratio(Color32::BLACK, background) >= contrast_ratio(Color32::WHITE, background) {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

/// A vertical colour bar with its marked steps ticked and its range written beside it.
pub fn legend(ui: &mut Ui, scale: ColorScale, height: f32, caption: &str) {
    let width = 18.0;
    let (rect, _) = ui.allocate_exact_size(Vec2::new(width + 60.0, height + 24.0), Sense::hover());
    let painter = ui.painter_at(rect);
    let bar = Rect::from_min_size(rect.min + Vec2::new(0.0, 8.0), Vec2::new(width, height));
    let steps = 64;
    for i in 0..steps {
        // Top of the bar is the maximum.
        let t = 1.0 - (i as f32 + 0.5) / steps as f32;
        let (lo, hi) = scale.range();
        let y0 = bar.top() + bar.height() * i as f32 / steps as f32;
        let y1 = bar.top() + bar.height() * (i + 1) as f32 / steps as f32;
        painter.rect_filled(
            Rect::from_min_max(Pos2::new(bar.left(), y0), Pos2::new(bar.right(), y1 + 0.5)),
            0.0,
            scale.color(lo + t * (hi - lo)),
        );
    }
    painter.rect_stroke(
        bar,
        0.0,
        Stroke::new(1.0, ui.visuals().weak_text_color()),
        egui::StrokeKind::Outside,
    );
    let (lo, hi) = scale.range();
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(12.0);
    // A tick at each marked step, and its value where the bar leaves room for every label.
    let marks = scale.marks();
    let decimals = tick_decimals((hi - lo) / (marks.len() - 1).max(1) as f32);
    let room = bar.height() / (marks.len() - 1) as f32 >= 14.0;
    for (i, &v) in marks.iter().enumerate() {
        let y = bar.bottom() - bar.height() * (v - lo) / (hi - lo).max(f32::EPSILON);
        painter.line_segment(
            [Pos2::new(bar.right(), y), Pos2::new(bar.right() + 3.0, y)],
            Stroke::new(1.0, text),
        );
        let ends = i == 0 || i == marks.len() - 1;
        let zero = matches!(scale, ColorScale::Diverging { .. }) && 2 * i == marks.len() - 1;
        if room || ends || zero {
            let label = if zero {
                "0".to_string()
            } else {
                format!("{v:.*}", decimals)
            };
            painter.text(
                Pos2::new(bar.right() + 5.0, y),
                egui::Align2::LEFT_CENTER,
                label,
                font.clone(),
                text,
            );
        }
    }
    painter.text(
        Pos2::new(bar.left(), bar.bottom() + 4.0),
        egui::Align2::LEFT_TOP,
        // Painted text cannot be typeset: a formula's scripts in small characters.
        super::math_unicode::unicode(caption),
        font,
        ui.visuals().weak_text_color(),
    );
}

/// Enough decimals that neighbouring ticks `step` apart read differently (two at least).
fn tick_decimals(step: f32) -> usize {
    if step > 0.0 && step.is_finite() {
        (-step.log10()).ceil().clamp(2.0, 5.0) as usize
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_a_small_step_apart_get_more_decimals() {
        assert_eq!(tick_decimals(0.2), 2);
        assert_eq!(tick_decimals(0.0068), 3);
        assert_eq!(format!("{:.*}", tick_decimals(0.0068), 0.0136), "0.014");
        assert_eq!(tick_decimals(0.0), 2);
        assert_eq!(tick_decimals(f32::NAN), 2);
    }

    #[test]
    fn sequential_ends_are_inferno_ends() {
        let s = ColorScale::Sequential { min: 0.0, max: 1.0 };
        assert_eq!(s.color(0.0), Color32::from_rgb(0, 0, 4));
        assert_eq!(s.color(1.0), Color32::from_rgb(252, 255, 164));
        assert_eq!(s.color(f32::NAN), s.color(0.0));
        assert_eq!(s.color(7.0), s.color(1.0));
    }

    #[test]
    fn the_marks_run_from_end_to_end_in_equal_steps() {
        let s = ColorScale::Sequential { min: 0.0, max: 1.0 };
        let want = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        assert!(s
            .marks()
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() < 1e-6));
        let d = ColorScale::Diverging { limit: 2.0 }.marks();
        assert_eq!((d.len(), d[0], d[4], d[8]), (9, -2.0, 0.0, 2.0));
    }

    /// Numbers written on any colour of either scale meet WCAG AA (4.5:1).
    #[test]
    fn the_ink_on_every_colour_of_both_scales_meets_4_5_to_1() {
        use crate::app::widgets::color_vision::contrast_ratio;
        for scale in ColorScale::UNIT {
            let (lo, hi) = scale.range();
            for i in 0..=255 {
                let c = scale.color(lo + (hi - lo) * i as f32 / 255.0);
                let r = contrast_ratio(ink_on(c), c);
                assert!(r >= 4.5, "{scale:?} at step {i} ({c:?}): {r:.2}:1");
            }
        }
    }

    /// A sampled colour is the map's own within one 8-bit step, anywhere on either scale.
    #[test]
    fn a_sampled_colour_is_the_map_own_within_one_step() {
        for scale in ColorScale::UNIT {
            let (lo, hi) = scale.range();
            for i in 0..=100_000 {
                let v = lo + (hi - lo) * i as f32 / 100_000.0;
                let (got, want) = (scale.color(v), scale.exact(scale.position(v) as f64));
                let off = (0..3).map(|c| got[c].abs_diff(want[c])).max();
                assert!(off <= Some(1), "{scale:?} at {v}: {got:?} vs {want:?}");
            }
        }
        let white = ColorScale::Diverging { limit: 1.0 };
        assert_eq!(white.color(0.0), white.exact(0.5));
    }

    #[test]
    fn diverging_is_centred_on_zero() {
        let s = ColorScale::diverging_for(&[-2.0, 1.0, f32::NEG_INFINITY]);
        assert_eq!(s, ColorScale::Diverging { limit: 2.0 });
        assert_eq!(s.position(0.0), 0.5);
        let c = s.color(2.0);
        assert!(c.r() > c.b(), "positive is red");
        let c = s.color(-2.0);
        assert!(c.b() > c.r(), "negative is blue");
    }
}
