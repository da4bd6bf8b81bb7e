//! How the app looks: presenter mode (large type, strongest text colour) and the theme.

use crate::app::shell::fonts;
use crate::app::shell::themes::Theme;
use crate::app::GlimpseApp;

/// How the app looks: presenter mode (large type for a projector; F toggles it), theme and
/// language.
pub struct Look {
    pub presenter: bool,
    pub theme: Theme,
    /// The code of the language the app speaks (`crate::i18n`).
    pub language: &'static str,
    /// The language last written into the page (`<html lang>`).
    pub language_on_page: &'static str,
    /// The zoom and theme last applied to the context.
    applied: Option<(bool, Theme)>,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            presenter: false,
            theme: Theme::default(),
            language: crate::i18n::ENGLISH,
            language_on_page: "",
            applied: None,
        }
    }
}

impl GlimpseApp {
    /// Zoom and theme for presenter mode and the light theme; F toggles presenter mode.
    pub(crate) fn look(&mut self, ctx: &egui::Context) {
        let look = &mut self.look;
        if !ctx.text_edit_focused() && ctx.input(|i| i.key_pressed(egui::Key::F)) {
            look.presenter = !look.presenter;
        }
        if self.apply_look(ctx) {
            // This frame's widgets already took the old style: lay the frame out again.
            ctx.request_discard("the look changed");
        }
    }

    /// Sets zoom and theme when they differ from what was applied; true when they did. The
    /// app's start applies the first look, so the first frame is not laid out twice.
    pub(crate) fn apply_look(&mut self, ctx: &egui::Context) -> bool {
        let look = &mut self.look;
        let want = (look.presenter, look.theme);
        if look.applied == Some(want) {
            return false;
        }
        ctx.set_zoom_factor(if look.presenter { 1.5 } else { 1.0 });
        // On a projector faint grey text disappears: presenter mode writes everything in
        // the theme's strongest colour.
        let slot = look.theme.egui_theme();
        ctx.set_visuals_of(slot, look.theme.visuals(look.presenter));
        ctx.set_theme(slot);
        look.applied = Some(want);
        true
    }

    /// Fonts and theme: the same natively and in the browser, whatever the system prefers.
    pub fn style(ctx: &egui::Context) {
        fonts::install(ctx);
        ctx.options_mut(|o| o.theme_preference = egui::ThemePreference::Dark);
        // Scroll bars always drawn: a wide table cut at the right edge must show that it
        // scrolls (egui's floating bars appear only under the pointer, and a projector has none).
        ctx.all_styles_mut(|s| s.spacing.scroll = egui::style::ScrollStyle::solid());
    }
}
