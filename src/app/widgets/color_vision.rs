//! Colour as a student with a colour-vision deficiency sees it, and how far apart two colours
//! look: the check that the app's colour maps and palettes stay readable for everyone.
//!
//! - Simulation: Machado, Oliveira and Fernandes (2009), "A physiologically-based model for
//!   simulation of color vision deficiency", severity 1 (dichromacy), one 3×3 matrix per
//!   deficiency applied to linear RGB.
//! - Distance: CIEDE2000 (Sharma, Wu and Dalal 2005) between CIELAB colours (D65 white).

use egui::Color32;

/// The three dichromacies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deficiency {
    Protanopia,
    Deuteranopia,
    Tritanopia,
}

impl Deficiency {
    pub const ALL: [Deficiency; 3] = [
        Deficiency::Protanopia,
        Deficiency::Deuteranopia,
        Deficiency::Tritanopia,
    ];

    /// Machado et al.'s matrix at severity 1, for linear RGB.
    fn matrix(self) -> [[f64; 3]; 3] {
        match self {
            Deficiency::Protanopia => [
                [0.152286, 1.052583, -0.204868],
                [0.114503, 0.786281, 0.099216],
                [-0.003882, -0.048116, 1.051998],
            ],
            Deficiency::Deuteranopia => [
                [0.367322, 0.860646, -0.227968],
                [0.280085, 0.672501, 0.047413],
                [-0.011820, 0.042940, 0.968881],
            ],
            Deficiency::Tritanopia => [
                [1.255528, -0.076749, -0.178779],
                [-0.078411, 0.930809, 0.147602],
                [0.004733, 0.691367, 0.303900],
            ],
        }
    }
}

/// sRGB component (0–255) to linear light.
fn linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear RGB of an sRGB colour.
pub fn linear_rgb(c: Color32) -> [f64; 3] {
    [linear(c.r()), linear(c.g()), linear(c.b())]
}

/// `c` as seen with deficiency `d` (linear RGB).
pub fn simulate(c: Color32, d: Deficiency) -> [f64; 3] {
    let rgb = linear_rgb(c);
    d.matrix()
        .map(|row| (row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]).clamp(0.0, 1.0))
}

/// CIELAB (D65) of a linear RGB colour.
pub fn lab(rgb: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = rgb;
    // sRGB primaries to XYZ, normalised by the D65 white.
    let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    let f = |t: f64| {
        if t > (6.0f64 / 29.0).powi(3) {
            t.cbrt()
        } else {
            t / (3.0 * (6.0f64 / 29.0).powi(2)) + 4.0 / 29.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// CIEDE2000 colour difference ΔE₀₀ between two CIELAB colours (k_L = k_C = k_H = 1).
pub fn ciede2000(lab1: [f64; 3], lab2: [f64; 3]) -> f64 {
    use std::f64::consts::PI;
    let deg = |r: f64| r * 180.0 / PI;
    let rad = |d: f64| d * PI / 180.0;
    let [l1, a1, b1] = lab1;
    let [l2, a2, b2] = lab2;
    // Chroma, and a* stretched by G so neutral colours keep their hue.
    let c_bar = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
    let g = 0.5 * (1.0 - (c_bar.powi(7) / (c_bar.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |b: f64, a: f64| {
        if a == 0.0 && b == 0.0 {
            0.0
        } else {
            deg(b.atan2(a)).rem_euclid(360.0)
        }
    };
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    // Differences in lightness, chroma and hue.
    let dl = l2 - l1;
    let dc = c2p - c1p;
    let dh = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dh_big = 2.0 * (c1p * c2p).sqrt() * (rad(dh) / 2.0).sin();
    // Means, and the weighting functions.
    let l_bar = (l1 + l2) / 2.0;
    let c_bar_p = (c1p + c2p) / 2.0;
    let h_bar = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let t = 1.0 - 0.17 * rad(h_bar - 30.0).cos()
        + 0.24 * rad(2.0 * h_bar).cos()
        + 0.32 * rad(3.0 * h_bar + 6.0).cos()
        - 0.20 * rad(4.0 * h_bar - 63.0).cos();
    let d_theta = 30.0 * (-((h_bar - 275.0) / 25.0).powi(2)).exp();
    let r_c = 2.0 * (c_bar_p.powi(7) / (c_bar_p.powi(7) + 25f64.powi(7))).sqrt();
    let s_l = 1.0 + 0.015 * (l_bar - 50.0).powi(2) / (20.0 + (l_bar - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * c_bar_p;
    let s_h = 1.0 + 0.015 * c_bar_p * t;
    let r_t = -(rad(2.0 * d_theta)).sin() * r_c;
    let (l, c, h) = (dl / s_l, dc / s_c, dh_big / s_h);
    (l * l + c * c + h * h + r_t * c * h).sqrt()
}

/// WCAG 2 relative luminance of an sRGB colour.
pub fn relative_luminance(c: Color32) -> f64 {
    let [r, g, b] = linear_rgb(c);
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

/// WCAG 2 contrast ratio between two colours, from 1 (none) to 21 (black on white).
pub fn contrast_ratio(x: Color32, y: Color32) -> f64 {
    let (a, b) = (relative_luminance(x), relative_luminance(y));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// How far apart two colours look with deficiency `d` (`None`: typical colour vision).
pub fn distance(x: Color32, y: Color32, d: Option<Deficiency>) -> f64 {
    let seen = |c| d.map_or_else(|| linear_rgb(c), |d| simulate(c, d));
    ciede2000(lab(seen(x)), lab(seen(y)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::widgets::colormap::ColorScale;

    /// Typical colour vision, then each dichromacy.
    fn every_vision() -> impl Iterator<Item = Option<Deficiency>> {
        std::iter::once(None).chain(Deficiency::ALL.map(Some))
    }

    /// Sharma, Wu and Dalal's test pairs (their table 1, rows 1–3, 7 and 17).
    #[test]
    fn ciede2000_matches_the_published_test_data() {
        let cases = [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
            ([50.0, 3.1571, -77.2803], [50.0, 0.0, -82.7485], 2.8615),
            ([50.0, 2.8361, -74.0200], [50.0, 0.0, -82.7485], 3.4412),
            ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
            ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        ];
        for (x, y, want) in cases {
            let got = ciede2000(x, y);
            assert!(
                (got - want).abs() < 1e-4,
                "{x:?} {y:?}: {got} against {want}"
            );
            assert!((ciede2000(y, x) - want).abs() < 1e-4, "symmetric");
        }
    }

    #[test]
    fn white_is_l_100_and_the_simulations_keep_greys_grey() {
        let white = lab(linear_rgb(Color32::WHITE));
        assert!((white[0] - 100.0).abs() < 1e-3 && white[1].abs() < 1e-2 && white[2].abs() < 1e-2);
        for d in Deficiency::ALL {
            let grey = Color32::from_gray(128);
            assert!(distance(grey, grey, Some(d)) < 0.5, "{d:?}");
            // Red and green, far apart for typical vision, come close without L or M cones.
            let (red, green) = (Color32::from_rgb(200, 0, 0), Color32::from_rgb(0, 140, 0));
            let typical = distance(red, green, None);
            if d != Deficiency::Tritanopia {
                assert!(distance(red, green, Some(d)) < typical / 2.0, "{d:?}");
            }
        }
    }

    /// Each map at the steps its legend marks (fifths of inferno, eighths of red–blue):
    /// adjacent steps stay at least ΔE₀₀ 10 apart, for typical vision and under each simulated
    /// dichromacy.
    #[test]
    fn both_maps_keep_their_marked_steps_apart_for_every_colour_vision() {
        for scale in ColorScale::UNIT {
            let steps: Vec<Color32> = scale.marks().iter().map(|&v| scale.color(v)).collect();
            for d in every_vision() {
                let closest = steps
                    .windows(2)
                    .map(|w| distance(w[0], w[1], d))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    closest >= 10.0,
                    "{scale:?} under {d:?}: adjacent steps ΔE {closest:.1}"
                );
            }
        }
    }

    #[test]
    fn contrast_ratios_match_wcag_examples() {
        assert!((contrast_ratio(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 1e-9);
        assert!((contrast_ratio(Color32::WHITE, Color32::WHITE) - 1.0).abs() < 1e-9);
        // #767676 on white is the lightest grey that passes AA: 4.54:1.
        let grey = Color32::from_gray(0x76);
        assert!((contrast_ratio(grey, Color32::WHITE) - 4.54).abs() < 0.01);
    }

    /// The lines of a chart: every two colours of the palette stay at least ΔE₀₀ 10 apart.
    #[test]
    fn the_series_palette_keeps_every_pair_apart_for_every_colour_vision() {
        let colors = crate::app::widgets::SERIES_COLORS;
        for d in every_vision() {
            for (i, &x) in colors.iter().enumerate() {
                for &y in &colors[i + 1..] {
                    let e = distance(x, y, d);
                    assert!(e >= 10.0, "{x:?} and {y:?} under {d:?}: ΔE {e:.1}");
                }
            }
        }
    }
}
