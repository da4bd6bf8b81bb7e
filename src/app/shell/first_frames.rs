//! The app's first frames in the browser, in parts. The first frame lays out every word of the
//! window for the first time: each glyph drawn into the font atlas, each label shaped, and the
//! page then lays out the accessibility mirror's new elements. In one frame that held the page
//! 190-330 ms in Chromium (docs/benchmarks.md, long tasks); in four frames the window arrives
//! within a tenth of a second, a part at a time. Natively every frame is whole.

/// What a frame draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Part {
    /// Nothing yet: the fonts' glyphs are drawn into the atlas.
    Fonts,
    /// The top bar.
    TopBar,
    /// The top bar and the controls beside the view.
    Controls,
    /// Everything.
    All,
}

/// The part frame `frame` (counted from 1) draws.
pub(crate) fn part(frame: u64) -> Part {
    if !cfg!(target_arch = "wasm32") {
        return Part::All;
    }
    match frame {
        0 | 1 => Part::Fonts,
        2 => Part::TopBar,
        3 => Part::Controls,
        _ => Part::All,
    }
}

/// Characters the window's words are made of, in both languages, with the symbols the views
/// write (τ, √, arrows).
const SAMPLE: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`\
    abcdefghijklmnopqrstuvwxyz{|}~áéíóúñü¿¡ÁÉÍÓÚÑ·…–—×÷±≈≤≥→←↑↓τσμαβθλ√∑∞";

/// Lays the sample out in every text style, so its glyphs are in the atlas and the fonts'
/// shaping plans are built before the first words are shown.
pub(crate) fn warm_fonts(ctx: &egui::Context) {
    let style = ctx.global_style();
    for text_style in [
        egui::TextStyle::Body,
        egui::TextStyle::Button,
        egui::TextStyle::Small,
        egui::TextStyle::Heading,
        egui::TextStyle::Monospace,
    ] {
        let font = text_style.resolve(&style);
        ctx.fonts_mut(|f| {
            f.layout_no_wrap(SAMPLE.to_owned(), font, egui::Color32::WHITE);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_every_frame_is_whole() {
        for frame in 0..6 {
            assert_eq!(part(frame), Part::All);
        }
    }

    #[test]
    fn the_sample_lays_out_in_every_style() {
        let ctx = egui::Context::default();
        let _ = ctx.run_ui(Default::default(), |ui| {
            warm_fonts(ui.ctx());
            let font = egui::TextStyle::Body.resolve(ui.style());
            let width = ui.fonts_mut(|f| {
                f.layout_no_wrap(SAMPLE.to_owned(), font, egui::Color32::WHITE)
                    .size()
                    .x
            });
            assert!(width > 100.0, "the sample is {width} points wide");
        });
    }
}
