//! How the app looks: presenter mode (large type, strongest text colour) and the theme.

use crate::app::shell::fonts;
use crate::app::GlimpseApp;

/// How the app looks: presenter mode (large type for a projector; F toggles it) and theme.
#[derive(Default)]
pub struct Look {
    pub presenter: bool,
    /// Light theme instead of dark.
    pub light: bool,
    /// The zoom and theme last applied to the context.
    applied: Option<(bool, bool)>,
}

impl GlimpseApp {
    /// Zoom and theme for presenter mode and the light theme; F toggles presenter mode.
    pub(crate) fn look(&mut self, ctx: &egui::Context) {
        let look = &mut self.look;
        if !ctx.egui_wants_keyboard_input() && ctx.input(|i| i.key_pressed(egui::Key::F)) {
            look.presenter = !look.presenter;
        }
        let want = (look.presenter, look.light);
        if look.applied != Some(want) {
            ctx.set_zoom_factor(if look.presenter { 1.5 } else { 1.0 });
            // On a projector faint grey text disappears: presenter mode writes everything in
            // the theme's strongest colour.
            let presenter = look.presenter;
            ctx.style_mut_of(egui::Theme::Dark, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::WHITE);
            });
            ctx.style_mut_of(egui::Theme::Light, |s| {
                s.visuals.override_text_color = presenter.then_some(egui::Color32::BLACK);
            });
            ctx.set_theme(if look.light {
                egui::Theme::Light
            } else {
                egui::Theme::Dark
            });
            look.applied = Some(want);
        }
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
