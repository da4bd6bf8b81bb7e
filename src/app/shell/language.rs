//! The language of the app's words: the reader's own (the browser's or the system's), a
//! `lang=` link, or the choice in the top bar. The texts are in `assets/locales/` (see
//! `crate::i18n`).

use crate::app::GlimpseApp;
use crate::{i18n, t};

/// The reader's preferred shipped language: the browser's list, or natively the locale
/// variables (`LC_ALL`, `LC_MESSAGES`, `LANG`); English when none is shipped.
pub fn readers_language() -> &'static str {
    #[cfg(target_arch = "wasm32")]
    {
        let listed: Vec<String> = web_sys::window()
            .map(|w| {
                w.navigator()
                    .languages()
                    .iter()
                    .filter_map(|v| v.as_string())
                    .collect()
            })
            .unwrap_or_default();
        i18n::preferred(listed.iter().map(String::as_str))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let vars: Vec<String> = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .filter(|v| !v.is_empty() && v != "C" && v != "POSIX")
            .collect();
        i18n::preferred(vars.iter().map(String::as_str))
    }
}

/// A language's name in itself ("Español"), as its own file gives it.
pub fn name_of(code: &str) -> String {
    i18n::format_in(code, "language-name", &[]).unwrap_or_else(|| code.to_string())
}

impl GlimpseApp {
    /// This frame's words in the chosen language; the page says which (`<html lang>`), so a
    /// screen reader pronounces them in it.
    pub(crate) fn use_language(&mut self) {
        let code = i18n::set(self.look.language);
        #[cfg(target_arch = "wasm32")]
        if self.look.language_on_page != code {
            if let Some(html) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element())
            {
                let _ = html.set_attribute("lang", code);
            }
        }
        self.look.language_on_page = code;
    }

    /// The top bar's language choice, each language named in itself.
    pub(crate) fn language_picker(&mut self, ui: &mut egui::Ui) {
        let current = self.look.language;
        let response = egui::ComboBox::from_id_salt("language")
            .width(60.0)
            .selected_text(name_of(current))
            .show_ui(ui, |ui| {
                for code in i18n::codes() {
                    ui.selectable_value(&mut self.look.language, code, name_of(code));
                }
            })
            .response
            .on_hover_text(t!("shell-language-hover"));
        // A screen reader says what the box chooses, not only the language shown in it.
        let name = t!("shell-language", language = name_of(current));
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::ComboBox, true, name.clone()));
    }
}

#[cfg(test)]
mod tests {
    use crate::app::lessons::content::LESSONS;
    use crate::app::link;
    use crate::app::tests::open;
    use crate::i18n;
    use egui_kittest::kittest::Queryable;

    #[test]
    fn a_spanish_link_opens_the_app_in_spanish_and_keeps_the_language() {
        let mut h = open("v=1&view=lessons&lang=es");
        h.run_steps(3);
        assert!(
            h.state().nav.notices.is_empty(),
            "{:?}",
            h.state().nav.notices
        );
        h.get_by_label("Lecciones");
        h.get_by_label("Atención");
        h.get_by_label("Siguiente");
        h.get_by_label_contains("Lección 1 de");
        // The page's own words, from es/lesson-01-*.ftl.
        i18n::set("es");
        let title = LESSONS[0].pages[0].title();
        i18n::set(i18n::ENGLISH);
        assert_ne!(title, LESSONS[0].pages[0].title());
        h.get_by_label(&title);
        assert!(link::encode(h.state()).contains("lang=es"));
    }

    #[test]
    fn the_top_bar_switches_the_language_and_back() {
        let mut h = open("v=1&view=attention");
        h.run_steps(3);
        // The box is named for what it chooses; its list names each language in itself.
        h.get_by_label("language: English").click();
        h.run_steps(2);
        h.get_by_label("Español").click();
        h.run_steps(3);
        assert_eq!(h.state().look.language, "es");
        h.get_by_label("Lecciones");
        h.get_by_label("idioma: Español").click();
        h.run_steps(2);
        h.get_by_label("English").click();
        h.run_steps(3);
        h.get_by_label("Lessons");
        assert!(!link::encode(h.state()).contains("lang="));
    }

    #[test]
    fn a_language_not_shipped_is_refused_with_a_notice_and_english_kept() {
        let mut h = open("v=1&view=attention&lang=tlh");
        h.run_steps(2);
        assert_eq!(h.state().look.language, i18n::ENGLISH);
        let notices = h.state().nav.notices.join(" ");
        assert!(notices.contains("lang"), "{notices}");
        h.get_by_label("Lessons");
    }
}
