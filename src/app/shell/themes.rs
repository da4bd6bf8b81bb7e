//! The three themes: dark (the default), light (for a bright projector) and high contrast
//! (black, white and yellow, with every control outlined). egui's own dark and light themes are
//! the base; the colours egui leaves below WCAG AA (4.5:1) are replaced, and the tests below
//! check every text colour against every background it is drawn on.

use egui::{Color32, Stroke, Visuals};

/// A theme the student picks in the top bar (and a link carries as `theme=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::Dark, Theme::Light, Theme::HighContrast];

    /// The name in links and on the top bar's buttons.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::HighContrast => "contrast",
        }
    }

    /// The name on the top bar's button, in the app's language.
    pub fn label(self) -> String {
        match self {
            Theme::Dark => crate::t!("theme-dark"),
            Theme::Light => crate::t!("theme-light"),
            Theme::HighContrast => crate::t!("theme-contrast"),
        }
    }

    /// The one after this in the top bar's cycle.
    pub fn next(self) -> Theme {
        let i = Theme::ALL.iter().position(|&t| t == self).unwrap_or(0);
        Theme::ALL[(i + 1) % Theme::ALL.len()]
    }

    pub fn from_name(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Which of egui's two theme slots this one fills.
    pub fn egui_theme(self) -> egui::Theme {
        match self {
            Theme::Light => egui::Theme::Light,
            Theme::Dark | Theme::HighContrast => egui::Theme::Dark,
        }
    }

    /// The theme's colours; `presenter` writes all text, weak text too, in the strongest colour.
    pub fn visuals(self, presenter: bool) -> Visuals {
        let mut v = match self {
            Theme::Dark => dark(),
            Theme::Light => light(),
            Theme::HighContrast => high_contrast(),
        };
        // Each glyph drawn at one position in its pixel, not up to four, and without running
        // the font's hinting programs: the browser's first frame spent 50-65 ms drawing glyphs
        // (docs/benchmarks.md); text looks as it did before egui 0.33 (no hinting then).
        v.text_options.subpixel_binning = false;
        v.text_options.font_hinting = false;
        if presenter {
            let strongest = if v.dark_mode {
                Color32::WHITE
            } else {
                Color32::BLACK
            };
            v.weak_text_color = Some(strongest);
            // High contrast already writes in white, and black on what is pressed (yellow):
            // forcing white everywhere would put white on yellow.
            if self != Theme::HighContrast {
                v.override_text_color = Some(strongest);
            }
        }
        v
    }
}

/// egui's dark theme with brighter body text, an opaque weak text that still reads 4.5:1, and
/// link and error colours that do too.
fn dark() -> Visuals {
    let mut v = Visuals::dark();
    v.widgets.noninteractive.fg_stroke.color = Color32::from_gray(190);
    v.weak_text_color = Some(Color32::from_gray(150));
    v.hyperlink_color = Color32::from_rgb(110, 180, 255);
    v.error_fg_color = Color32::from_rgb(255, 120, 110);
    v
}

/// egui's light theme with darker weak text, links, warnings and errors.
fn light() -> Visuals {
    let mut v = Visuals::light();
    v.weak_text_color = Some(Color32::from_gray(100));
    v.hyperlink_color = Color32::from_rgb(0, 90, 180);
    v.warn_fg_color = Color32::from_rgb(170, 70, 0);
    v.error_fg_color = Color32::from_rgb(190, 0, 0);
    v
}

/// Black ground, white text, blue for what is selected (white on it), yellow for what is under
/// the pointer or pressed, and a white outline round every control (WCAG asks 3:1 for a
/// control's edge; white on black is 21:1).
fn high_contrast() -> Visuals {
    let mut v = Visuals::dark();
    let (black, white) = (Color32::BLACK, Color32::WHITE);
    let yellow = Color32::from_rgb(255, 221, 0);
    v.panel_fill = black;
    v.window_fill = black;
    v.extreme_bg_color = black;
    v.faint_bg_color = Color32::from_gray(28);
    v.code_bg_color = Color32::from_gray(40);
    v.window_stroke = Stroke::new(1.5, white);
    v.weak_text_color = Some(Color32::from_gray(210));
    v.hyperlink_color = Color32::from_rgb(130, 200, 255);
    v.warn_fg_color = yellow;
    v.error_fg_color = Color32::from_rgb(255, 140, 140);
    // Not yellow: egui writes a progress bar's text in the selection's colour, over both the
    // filled part (the selection's fill) and the empty part (black).
    v.selection.bg_fill = Color32::from_rgb(0, 90, 200);
    v.selection.stroke = Stroke::new(1.5, white);
    let w = &mut v.widgets;
    w.noninteractive.fg_stroke = Stroke::new(1.0, white);
    w.noninteractive.bg_stroke = Stroke::new(1.0, Color32::from_gray(200));
    w.noninteractive.bg_fill = black;
    w.noninteractive.weak_bg_fill = black;
    for state in [&mut w.inactive, &mut w.open] {
        state.bg_fill = black;
        state.weak_bg_fill = black;
        state.bg_stroke = Stroke::new(1.5, white);
        state.fg_stroke = Stroke::new(1.5, white);
    }
    w.hovered.bg_fill = black;
    w.hovered.weak_bg_fill = black;
    w.hovered.bg_stroke = Stroke::new(2.0, yellow);
    w.hovered.fg_stroke = Stroke::new(1.5, yellow);
    w.active.bg_fill = yellow;
    w.active.weak_bg_fill = yellow;
    w.active.bg_stroke = Stroke::new(2.0, white);
    w.active.fg_stroke = Stroke::new(2.0, black);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::widgets::color_vision::contrast_ratio;

    /// `c` drawn over the opaque `ground` (egui's colours are premultiplied).
    fn over(c: Color32, ground: Color32) -> Color32 {
        let k = 1.0 - c.a() as f32 / 255.0;
        let mix = |x: u8, g: u8| (x as f32 + g as f32 * k).round().min(255.0) as u8;
        Color32::from_rgb(
            mix(c.r(), ground.r()),
            mix(c.g(), ground.g()),
            mix(c.b(), ground.b()),
        )
    }

    fn check(what: &str, theme: Theme, ink: Color32, ground: Color32, need: f64) {
        let ratio = contrast_ratio(over(ink, ground), ground);
        assert!(
            ratio >= need,
            "{theme:?}: {what} {ink:?} on {ground:?} is {ratio:.2}:1, below {need}:1"
        );
    }

    /// Every text colour on every ground it is drawn on reaches WCAG AA (4.5:1), in each theme
    /// with and without presenter mode.
    #[test]
    fn text_and_controls_reach_4_5_to_1_in_every_theme() {
        for theme in Theme::ALL {
            for presenter in [false, true] {
                let v = theme.visuals(presenter);
                let grounds = [
                    ("panel", v.panel_fill),
                    ("window", v.window_fill),
                    ("text field", v.text_edit_bg_color()),
                    ("striped row", over(v.faint_bg_color, v.panel_fill)),
                ];
                for (ground_name, ground) in grounds {
                    let texts = [
                        ("text", v.text_color()),
                        ("weak text", v.weak_text_color()),
                        ("link", v.hyperlink_color),
                        ("warning", v.warn_fg_color),
                        ("error", v.error_fg_color),
                    ];
                    for (name, ink) in texts {
                        check(&format!("{name} on {ground_name}"), theme, ink, ground, 4.5);
                    }
                }
                let w = &v.widgets;
                for (name, state) in [
                    ("button", &w.inactive),
                    ("hovered button", &w.hovered),
                    ("pressed button", &w.active),
                    ("open menu", &w.open),
                ] {
                    let ink = v.override_text_color.unwrap_or(state.fg_stroke.color);
                    let ground = over(state.weak_bg_fill, v.panel_fill);
                    check(&format!("{name}'s label"), theme, ink, ground, 4.5);
                }
                let selected = v.override_text_color.unwrap_or(v.selection.stroke.color);
                check(
                    "the open tab's label",
                    theme,
                    selected,
                    v.selection.bg_fill,
                    4.5,
                );
                // A progress bar's text, over its filled and its empty part.
                let bar = v.selection.stroke.color;
                check("progress text", theme, bar, v.selection.bg_fill, 4.5);
                check("progress text", theme, bar, v.extreme_bg_color, 4.5);
            }
        }
    }

    /// In the high-contrast theme every control's outline and the open tab stand out from the
    /// ground by WCAG's 3:1 for the parts of a control.
    #[test]
    fn high_contrast_outlines_every_control() {
        let theme = Theme::HighContrast;
        let v = theme.visuals(false);
        let w = &v.widgets;
        for state in [&w.inactive, &w.hovered, &w.active, &w.open] {
            assert!(state.bg_stroke.width >= 1.0);
            check("outline", theme, state.bg_stroke.color, v.panel_fill, 3.0);
        }
        check("open tab", theme, v.selection.bg_fill, v.panel_fill, 3.0);
    }

    #[test]
    fn names_round_trip() {
        for theme in Theme::ALL {
            assert_eq!(Theme::from_name(theme.name()), Some(theme));
        }
        assert_eq!(Theme::from_name("sepia"), None);
        // The top bar's button visits every theme and comes back.
        let mut t = Theme::default();
        let mut seen = Vec::new();
        for _ in Theme::ALL {
            seen.push(t);
            t = t.next();
        }
        assert_eq!((seen.len(), t), (3, Theme::default()));
        assert!(Theme::ALL.iter().all(|x| seen.contains(x)));
    }
}
