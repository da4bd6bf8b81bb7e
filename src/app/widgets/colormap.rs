//! Colour scales: perceptually uniform viridis for weights in [0, 1], a diverging red–blue
//! map centred on 0 for signed values. Both read well for colour-blind students.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, Vec2};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColorScale {
    /// Viridis from `min` (dark purple) to `max` (yellow).
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

    pub fn color(&self, v: f32) -> Color32 {
        let t = self.position(v) as f64;
        let c = match self {
            ColorScale::Sequential { .. } => colorous::VIRIDIS.eval_continuous(t),
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

/// A vertical colour bar with its range written beside it.
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
    painter.text(
        bar.right_top() + Vec2::new(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        format!("{hi:.2}"),
        font.clone(),
        text,
    );
    painter.text(
        bar.right_bottom() + Vec2::new(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        format!("{lo:.2}"),
        font.clone(),
        text,
    );
    if let ColorScale::Diverging { .. } = scale {
        painter.text(
            bar.right_center() + Vec2::new(4.0, 0.0),
            egui::Align2::LEFT_CENTER,
            "0",
            font.clone(),
            text,
        );
    }
    painter.text(
        Pos2::new(bar.left(), bar.bottom() + 4.0),
        egui::Align2::LEFT_TOP,
        caption,
        font,
        ui.visuals().weak_text_color(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_ends_are_viridis_ends() {
        let s = ColorScale::Sequential { min: 0.0, max: 1.0 };
        assert_eq!(s.color(0.0), Color32::from_rgb(68, 1, 84));
        assert_eq!(s.color(1.0), Color32::from_rgb(253, 231, 37));
        assert_eq!(s.color(f32::NAN), s.color(0.0));
        assert_eq!(s.color(7.0), s.color(1.0));
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
