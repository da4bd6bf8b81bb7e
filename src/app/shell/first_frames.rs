//! The app's first frames in the browser, in parts. The first frame lays out every word of the
//! window for the first time: each glyph drawn into the font atlas, each label shaped, and the
//! page then lays out the accessibility mirror's new elements. In one frame that held the page
//! 190-330 ms in Chromium (docs/benchmarks.md, long tasks); in a dozen frames the window
//! arrives within a few tenths of a second, a part at a time: the glyphs, at most 12 ms of them a
//! frame, the top bar, the controls, the view. Natively every frame is whole.

/// What a frame draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Part {
    /// Nothing yet: the next of the fonts' glyphs are drawn into the atlas.
    Fonts,
    /// The top bar.
    TopBar,
    /// The top bar and the controls beside the view.
    Controls,
    /// Everything.
    All,
}

/// How far the browser's first frames have got.
#[derive(Default)]
pub(crate) struct FirstFrames {
    /// The text style (of [`STYLES`]) whose glyphs are being drawn, and the byte in [`SAMPLE`]
    /// its next piece starts at.
    style: usize,
    at: usize,
    /// Frames since the last glyph was drawn.
    after_fonts: u64,
}

/// The glyphs drawn in one frame stop after this long: one text style's sample at once held
/// the page 60-76 ms in Chromium (a glyph is rasterised the first time it is drawn).
const FONT_BUDGET: web_time::Duration = web_time::Duration::from_millis(12);

/// Characters laid out at once: a piece takes a few milliseconds, so a frame stops near
/// its budget.
const PIECE: usize = 12;

/// The first piece is one character: the window's first text also sets the fonts up (20-30 ms
/// in a browser), which is that frame's share.
fn piece_length(style: usize, at: usize) -> usize {
    if style == 0 && at == 0 {
        1
    } else {
        PIECE
    }
}

impl FirstFrames {
    /// The part this frame draws. In the browser the first frames draw glyphs into the atlas
    /// for at most [`FONT_BUDGET`] each, then come the top bar, the controls, the view.
    pub(crate) fn next(&mut self, ctx: &egui::Context) -> Part {
        if !cfg!(target_arch = "wasm32") {
            return Part::All;
        }
        if self.style < STYLES.len() {
            self.warm_fonts(ctx, FONT_BUDGET);
            return Part::Fonts;
        }
        self.after_fonts += 1;
        match self.after_fonts {
            1 => Part::TopBar,
            2 => Part::Controls,
            _ => Part::All,
        }
    }

    /// Lays the sample out a piece at a time in each of the window's text styles, until
    /// `budget` has passed or every style is done: its glyphs go into the atlas and the fonts'
    /// shaping plans are built before the first words are shown.
    fn warm_fonts(&mut self, ctx: &egui::Context, budget: web_time::Duration) {
        let started = web_time::Instant::now();
        while let Some(text_style) = STYLES.get(self.style) {
            let piece_end = SAMPLE[self.at..]
                .char_indices()
                .nth(piece_length(self.style, self.at))
                .map_or(SAMPLE.len(), |(i, _)| self.at + i);
            let font = text_style.resolve(&ctx.global_style());
            let piece = SAMPLE[self.at..piece_end].to_owned();
            ctx.fonts_mut(|f| {
                f.layout_no_wrap(piece, font, egui::Color32::WHITE);
            });
            self.at = piece_end;
            if self.at == SAMPLE.len() {
                self.style += 1;
                self.at = 0;
            }
            if started.elapsed() >= budget {
                break;
            }
        }
    }
}

/// The text styles the window writes in.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_every_frame_is_whole() {
        let ctx = egui::Context::default();
        let mut first = FirstFrames::default();
        for _ in 0..6 {
            assert_eq!(first.next(&ctx), Part::All);
        }
    }

    #[test]
    fn the_sample_lays_out_in_every_style_a_piece_at_a_time() {
        let ctx = egui::Context::default();
        let _ = ctx.run_ui(Default::default(), |ui| {
            let mut first = FirstFrames::default();
            let mut calls = 0;
            while first.style < STYLES.len() {
                // No time at all: one piece a call.
                first.warm_fonts(ui.ctx(), web_time::Duration::ZERO);
                calls += 1;
                assert!(calls < 1000, "the pieces never end");
            }
            let chars = SAMPLE.chars().count();
            let pieces = chars.div_ceil(PIECE);
            let first_style = 1 + (chars - 1).div_ceil(PIECE);
            assert_eq!(calls, first_style + pieces * (STYLES.len() - 1));
            // With time to spare, all of it in one call.
            let mut first = FirstFrames::default();
            first.warm_fonts(ui.ctx(), web_time::Duration::from_secs(60));
            assert_eq!((first.style, first.at), (STYLES.len(), 0));
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
