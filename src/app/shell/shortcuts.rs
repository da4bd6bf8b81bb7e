//! Every keyboard shortcut in one list, opened with `?` (or the top bar's "keys (?)" button)
//! and closed with Escape. Nothing in Glimpse needs a mouse: this list is how a student finds
//! the keys that replace it.

use crate::app::GlimpseApp;
use egui::{Key, Modifiers};

/// (where, keys, what they do), in the order the list shows them.
#[rustfmt::skip]
pub const SHORTCUTS: &[(&str, &str, &str)] = &[
    ("everywhere", "Tab / Shift+Tab", "next / previous control, in reading order"),
    ("everywhere", "Enter or Space", "press the focused button, tick the focused box"),
    ("everywhere", "Escape", "let go of the focused control (the arrows then step the view)"),
    ("everywhere", "← → on a slider", "move the slider one step"),
    ("everywhere", "?", "this list (Escape closes it)"),
    ("everywhere", "F", "presenter mode: large type for a projector"),
    ("lessons", "Page Down / Page Up", "next / previous page"),
    ("heatmaps", "Tab to the map, then ← ↑ → ↓", "move the selected cell; it is read aloud"),
    ("heatmaps", "Home / End", "first / last cell of the row"),
    ("heatmaps", "Enter", "open the cell (Attention: make its row the query)"),
    ("Attention walkthrough", "← / →", "previous / next step of the computation"),
    ("Decoding", "→ / ←", "one decoding step forward / back"),
    ("Decoding", "Space", "play or pause the search"),
    ("beam tree", "Tab to a box, then ← / →", "its parent / its best child"),
    ("beam tree", "↑ / ↓", "the box above / below in the same step"),
];

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
            ui.heading("Keyboard shortcuts");
            egui::Grid::new("shortcut_list")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    for (place, keys, what) in SHORTCUTS {
                        ui.weak(*place);
                        ui.strong(*keys);
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            ui.add_space(6.0);
            ui.button("close (Escape)").clicked()
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
        for (_, keys, _) in super::SHORTCUTS {
            assert!(h.query_by_label(keys).is_some(), "{keys} is listed");
        }
        h.key_press(egui::Key::Escape);
        h.run();
        assert!(h.query_by_label("Keyboard shortcuts").is_none());
    }
}
