//! Every keyboard shortcut in one list, opened with `?` (or the top bar's "keys (?)" button)
//! and closed with Escape. Nothing in Glimpse needs a mouse: this list is how a student finds
//! the keys that replace it.

use crate::app::GlimpseApp;
use crate::t;
use egui::{Key, Modifiers};

/// (where, keys, what they do), in the order the list shows them.
#[rustfmt::skip]
pub fn shortcuts() -> Vec<(String, String, String)> {
    let everywhere = || t!("shortcuts-everywhere");
    let heatmaps = || t!("shortcuts-heatmaps");
    let decoding = || t!("shortcuts-decoding");
    let beam_tree = || t!("shortcuts-beam-tree");
    // Keys that are symbols read the same in every language.
    let keys = |k: &str| k.to_string();
    vec![
        (everywhere(), t!("shortcuts-tab-keys"), t!("shortcuts-tab")),
        (everywhere(), t!("shortcuts-press-keys"), t!("shortcuts-press")),
        (everywhere(), t!("shortcuts-escape-keys"), t!("shortcuts-escape")),
        (everywhere(), t!("shortcuts-slider-keys"), t!("shortcuts-slider")),
        (everywhere(), keys("?"), t!("shortcuts-list")),
        (everywhere(), keys("F"), t!("shortcuts-presenter")),
        (t!("shortcuts-lessons"), t!("shortcuts-page-keys"), t!("shortcuts-page")),
        (heatmaps(), t!("shortcuts-map-keys"), t!("shortcuts-map")),
        (heatmaps(), t!("shortcuts-row-keys"), t!("shortcuts-row")),
        (heatmaps(), t!("shortcuts-enter-keys"), t!("shortcuts-cell")),
        (t!("shortcuts-walkthrough"), keys("← / →"), t!("shortcuts-walkthrough-step")),
        (decoding(), keys("→ / ←"), t!("shortcuts-decoding-step")),
        (decoding(), t!("shortcuts-space-keys"), t!("shortcuts-play")),
        (beam_tree(), t!("shortcuts-box-keys"), t!("shortcuts-box")),
        (beam_tree(), keys("↑ / ↓"), t!("shortcuts-above-below")),
    ]
}

impl GlimpseApp {
    /// `?` opens the list (unless a text field has the keyboard); the list shows while open.
    pub(crate) fn shortcuts(&mut self, ctx: &egui::Context) {
        if !ctx.text_edit_focused()
            && ctx.input_mut(|i| {
                i.consume_key(Modifiers::NONE, Key::Questionmark)
                    || i.consume_key(Modifiers::SHIFT, Key::Questionmark)
            })
        {
            self.nav.shortcuts_open = !self.nav.shortcuts_open;
        }
        if !self.nav.shortcuts_open {
            return;
        }
        let modal = egui::Modal::new(egui::Id::unique("shortcuts")).show(ctx, |ui| {
            ui.heading(t!("shortcuts-title"));
            egui::Grid::new("shortcut_list")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    for (place, keys, what) in shortcuts() {
                        ui.weak(place);
                        ui.strong(keys);
                        ui.label(what);
                        ui.end_row();
                    }
                });
            ui.add_space(6.0);
            ui.button(t!("shortcuts-close")).clicked()
        });
        if modal.inner || modal.should_close() {
            self.nav.shortcuts_open = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::tests::open;
    use egui_kittest::kittest::Queryable;

    /// `?` opens the list, which names the keys of every view that has some; Escape closes it.
    #[test]
    fn question_mark_lists_every_shortcut_and_escape_closes_it() {
        let mut h = open("v=1&view=decoding");
        assert!(h.query_by_label("Keyboard shortcuts").is_none());
        h.key_press(egui::Key::Questionmark);
        h.run();
        h.get_by_label("Keyboard shortcuts");
        for (_, keys, _) in super::shortcuts() {
            assert!(h.query_by_label(&keys).is_some(), "{keys} is listed");
        }
        h.key_press(egui::Key::Escape);
        h.run();
        assert!(h.query_by_label("Keyboard shortcuts").is_none());
    }
}
