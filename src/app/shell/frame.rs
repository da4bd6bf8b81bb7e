//! The frame around the open lab: the top bar (tabs, presenter and theme switches, the model
//! picker) and the body (the input controls on the left for labs on the shared input).

use crate::app::labs::Layout;
use crate::app::probe::{self, scrolling_view};
use crate::app::{export, lessons, link, GlimpseApp};
use crate::t;

impl GlimpseApp {
    /// Tabs, the presenter switch, and the model picker (or the lab's own line).
    /// Returns where the bar ends (points from the top).
    pub(crate) fn top_bar(&mut self, ui: &mut egui::Ui) -> f32 {
        egui::Panel::top("top")
            .show(ui, |ui| {
                // Wraps onto a second line on a tablet or at presenter zoom, instead of running off.
                ui.horizontal_wrapped(|ui| {
                    ui.heading("Glimpse");
                    ui.separator();
                    let tabs = std::iter::once((link::LESSONS, t!("shell-tab-lessons")))
                        .chain(self.labs.iter().map(|l| (l.id(), l.title())));
                    for (id, title) in tabs {
                        let tab = ui.selectable_value(&mut self.nav.view, id, &title);
                        probe::control(&format!("tab:{id}"), tab.rect);
                    }
                    ui.separator();
                    ui.toggle_value(&mut self.look.presenter, t!("shell-presenter"))
                        .on_hover_text(t!("shell-presenter-hover"));
                    ui.toggle_value(&mut self.nav.shortcuts_open, t!("shell-keys"))
                        .on_hover_text(t!("shell-keys-hover"));
                    // One button that cycles, so the top bar keeps to one row.
                    let theme = self.look.theme;
                    if ui
                        .button(t!("shell-theme", theme = theme.label()))
                        .on_hover_text(t!("shell-theme-hover"))
                        .clicked()
                    {
                        self.look.theme = theme.next();
                    }
                    self.language_picker(ui);
                    ui.separator();
                    let shared_model = if self.nav.view == link::LESSONS {
                        lessons::uses_shared_model(self)
                    } else {
                        self.labs
                            .by_id(self.nav.view)
                            .is_some_and(|l| l.uses_shared_model())
                    };
                    if shared_model {
                        self.bench
                            .model_picker(ui, &self.store, self.look.presenter);
                        let open = ui
                            .button(t!("shell-open"))
                            .on_hover_text(t!("shell-open-hover"));
                        probe::control("open model", open.rect);
                        if open.clicked() {
                            self.open_dialog.open = true;
                        }
                    } else if !self.look.presenter {
                        let about = match self.labs.by_id(self.nav.view) {
                            Some(lab) => lab.about(),
                            None => t!("shell-lessons-about"),
                        };
                        ui.weak(about);
                    }
                });
                self.bench.loading_line(ui, &self.store);
                export::message_label(ui, &self.exporter);
                probe::check_fits("top bar", ui);
            })
            .response
            .rect
            .bottom()
    }

    /// The open lab below the top bar, with the input controls on the left for labs on the
    /// shared input (without the view itself in the browser's third frame: `first_frames`).
    pub(crate) fn body(&mut self, ui: &mut egui::Ui, with_view: bool) {
        let hide_controls = self.nav.hidden.controls;
        let Some((lab, mut shared)) = self.lab_and_shared(self.nav.view) else {
            return;
        };
        if lab.layout() == Layout::OwnPanels {
            if !with_view {
                return;
            }
            lab.ui(ui, &mut shared);
            return;
        }
        if lab.uses_shared_input() && !hide_controls {
            // A third of a narrow screen at most, so the view keeps most of a tablet.
            let width = (ui.available_width() * 0.3).clamp(180.0, 300.0);
            egui::Panel::left("controls")
                .default_size(width)
                .show(ui, |ui| {
                    // Scrolls when the window is short (a laptop at 200 % zoom is 400 points
                    // tall) rather than cutting off the lower controls.
                    scrolling_view(ui, "controls", |ui| shared.bench.controls(ui));
                    probe::check_fits("controls", ui);
                });
        }
        if !with_view {
            return;
        }
        let fill = ui.visuals().panel_fill;
        egui::CentralPanel::default()
            .frame(egui::Frame::central_panel(ui.style()).fill(fill))
            .show(ui, |ui| {
                scrolling_view(ui, "view", |ui| lab.ui(ui, &mut shared));
                probe::check_fits("view", ui);
            });
    }

    /// Native tests ask (`GLIMPSE_PROBE`) for what the app drew, written to a file.
    pub(crate) fn write_probe_file(&mut self, ui: &egui::Ui) {
        #[cfg(not(target_arch = "wasm32"))]
        {
            if !self.probe_written && std::env::var_os("GLIMPSE_PROBE").is_some() {
                // Keep drawing until the probe is written: under Xvfb nothing else wakes us.
                ui.ctx().request_repaint();
                if self.frames >= 5 {
                    self.probe_written = probe::write_to_env_path();
                }
            }
            probe::write_side_files();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = (self.probe_written, ui);
    }
}
