//! Formulas where egui cannot typeset them (a plot's axis and legend, a window title): their
//! scripts written in Unicode's sub- and superscript characters, `d_k` as `dₖ` and `p_{t+o}`
//! as `pₜ₊ₒ`. Every character used here is in the app's math font
//! (`scripts/make_math_font.sh`).

use super::math_text::{parse, Piece};

const SUB: &[(char, char)] = &[
    ('0', '₀'),
    ('1', '₁'),
    ('2', '₂'),
    ('3', '₃'),
    ('4', '₄'),
    ('5', '₅'),
    ('6', '₆'),
    ('7', '₇'),
    ('8', '₈'),
    ('9', '₉'),
    ('+', '₊'),
    ('−', '₋'),
    ('-', '₋'),
    ('=', '₌'),
    ('(', '₍'),
    (')', '₎'),
    ('a', 'ₐ'),
    ('e', 'ₑ'),
    ('h', 'ₕ'),
    ('i', 'ᵢ'),
    ('j', 'ⱼ'),
    ('k', 'ₖ'),
    ('l', 'ₗ'),
    ('m', 'ₘ'),
    ('n', 'ₙ'),
    ('o', 'ₒ'),
    ('p', 'ₚ'),
    ('r', 'ᵣ'),
    ('s', 'ₛ'),
    ('t', 'ₜ'),
    ('u', 'ᵤ'),
    ('v', 'ᵥ'),
    ('x', 'ₓ'),
    ('β', 'ᵦ'),
    ('γ', 'ᵧ'),
    ('ρ', 'ᵨ'),
    ('φ', 'ᵩ'),
    ('χ', 'ᵪ'),
];

const SUP: &[(char, char)] = &[
    ('0', '⁰'),
    ('1', '¹'),
    ('2', '²'),
    ('3', '³'),
    ('4', '⁴'),
    ('5', '⁵'),
    ('6', '⁶'),
    ('7', '⁷'),
    ('8', '⁸'),
    ('9', '⁹'),
    ('+', '⁺'),
    ('−', '⁻'),
    ('-', '⁻'),
    ('=', '⁼'),
    ('(', '⁽'),
    (')', '⁾'),
    ('a', 'ᵃ'),
    ('b', 'ᵇ'),
    ('c', 'ᶜ'),
    ('d', 'ᵈ'),
    ('e', 'ᵉ'),
    ('f', 'ᶠ'),
    ('g', 'ᵍ'),
    ('h', 'ʰ'),
    ('i', 'ⁱ'),
    ('j', 'ʲ'),
    ('k', 'ᵏ'),
    ('l', 'ˡ'),
    ('m', 'ᵐ'),
    ('n', 'ⁿ'),
    ('o', 'ᵒ'),
    ('p', 'ᵖ'),
    ('r', 'ʳ'),
    ('s', 'ˢ'),
    ('t', 'ᵗ'),
    ('u', 'ᵘ'),
    ('v', 'ᵛ'),
    ('w', 'ʷ'),
    ('x', 'ˣ'),
    ('y', 'ʸ'),
    ('z', 'ᶻ'),
    ('A', 'ᴬ'),
    ('B', 'ᴮ'),
    ('D', 'ᴰ'),
    ('E', 'ᴱ'),
    ('G', 'ᴳ'),
    ('H', 'ᴴ'),
    ('I', 'ᴵ'),
    ('J', 'ᴶ'),
    ('K', 'ᴷ'),
    ('L', 'ᴸ'),
    ('M', 'ᴹ'),
    ('N', 'ᴺ'),
    ('O', 'ᴼ'),
    ('P', 'ᴾ'),
    ('R', 'ᴿ'),
    ('T', 'ᵀ'),
    ('U', 'ᵁ'),
    ('V', 'ⱽ'),
    ('W', 'ᵂ'),
    ('β', 'ᵝ'),
    ('γ', 'ᵞ'),
    ('δ', 'ᵟ'),
    ('θ', 'ᶿ'),
    ('φ', 'ᵠ'),
    ('χ', 'ᵡ'),
];

/// `body` in small characters, if Unicode has one for each.
fn small(body: &str, table: &[(char, char)]) -> Option<String> {
    body.chars()
        .map(|c| table.iter().find(|(from, _)| *from == c).map(|(_, to)| *to))
        .collect()
}

/// `text` with its scripts in Unicode's small characters. A script with a character that has
/// no small form (a capital subscript: `W_O`) keeps its mark, without braces.
pub fn unicode(text: &str) -> String {
    parse(text)
        .into_iter()
        .map(|p| {
            let (body, sub) = match p {
                Piece::Text(s) => return s,
                Piece::Sub(s) => (s, true),
                Piece::Sup(s) => (s, false),
                Piece::Inner {
                    inner_sub, text, ..
                } => (text, inner_sub),
            };
            let (table, mark) = if sub { (SUB, '_') } else { (SUP, '^') };
            small(&body, table).unwrap_or_else(|| {
                if body.chars().all(char::is_alphanumeric) {
                    format!("{mark}{body}")
                } else {
                    format!("{mark}({body})")
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_become_small_characters() {
        assert_eq!(unicode("log₂ d_k"), "log₂ dₖ");
        assert_eq!(unicode("p_t·p_{t+o}"), "pₜ·pₜ₊ₒ");
        assert_eq!(unicode("Σ_k cos(ω_k·o)"), "Σₖ cos(ωₖ·o)");
        assert_eq!(unicode("q_iᵀ k_(i+o)"), "qᵢᵀ kᵢ₊ₒ");
        assert_eq!(unicode("10^4 and W_O"), "10⁴ and W_O");
        assert_eq!(unicode("no formula here"), "no formula here");
    }

    /// Every small character is in the app's fonts: a plot would draw a box for one that is
    /// not (and kittest would panic).
    #[test]
    fn every_small_character_has_a_glyph() {
        crate::app::widgets::math_display::with_fonts(|ctx| {
            let font = egui::FontId::proportional(14.0);
            for (from, to) in SUB.iter().chain(SUP) {
                assert!(ctx.fonts_mut(|f| f.has_glyph(&font, *to)), "{from} → {to}");
            }
        });
    }
}
