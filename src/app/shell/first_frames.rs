//! The app's first frames in the browser, in parts. The first frame lays out every word of the
//! window for the first time: each glyph drawn into the font atlas, each label shaped, and the
//! page then lays out the accessibility mirror's new elements. In one frame that held the page
//! 190-330 ms in Chromium (docs/benchmarks.md, long tasks); in eight frames the window arrives
//! within a tenth of a second, a part at a time: the glyphs one text style a frame, the top
//! bar, the controls, the view. Natively every frame is whole.

/// What a frame draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Part {
    /// Nothing yet: the fonts' glyphs of one text style (of [`STYLES`]) are drawn into the
    /// atlas.
    Fonts(usize),
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
    let fonts = STYLES.len() as u64;
    match frame {
        0 => Part::Fonts(0),
        f if f <= fonts => Part::Fonts(f as usize - 1),
        f if f == fonts + 1 => Part::TopBar,
        f if f == fonts + 2 => Part::Controls,
        _ => Part::All,
    }
}

/// The text styles the window writes in, one a frame: all five in one frame held the page
/// 60 ms in Chromium.
const STYLES: [egui::TextStyle; 5] = [
    egui::TextStyle::Body,
    egui::TextStyle::Button,
    egui::TextStyle::Small,
    egui::TextStyle::Heading,
    egui::TextStyle::Monospace,
];

/// Characters the window's words are made of, in both languages, with the symbols the views
/// write (τ, √, arrows).
const SAMPLE: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`\
    abcdefghijklmnopqrstuvwxyz{|}~áéíóúñü¿¡ÁÉÍÓÚÑ·…–—×÷±≈≤≥→←↑↓τσμαβθλ√∑∞";

/// Lays the sample out in the `n`th of the window's text styles, so its glyphs are in the
/// atlas and the fonts' shaping plans are built before the first words are shown.
pub(crate) fn warm_fonts(ctx: &egui::Context, n: usize) {
    let Some(text_style) = STYLES.get(n) else {
        return;
    };
    let font = text_style.resolve(&ctx.global_style());
    ctx.fonts_mut(|f| {
        f.layout_no_wrap(SAMPLE.to_owned(), font, egui::Color32::WHITE);
    });
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
            for n in 0..STYLES.len() {
                warm_fonts(ui.ctx(), n);
            }
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
