//! Fonts: egui's defaults, plus fallbacks so formulas and token labels never show boxes.
//! Hack (bundled with egui) carries arrows and ⊙ ∈ ⟨⟩; `glimpse-math.ttf` (a subset of
//! DejaVu Sans made by scripts/make_math_font.sh) carries every sub- and superscript letter
//! Unicode has (ᵀ, dₖ, pₜ₊ₒ), the maths symbols (∑ √ ∂), Greek, ␣ and ℝ.

use egui::{FontData, FontDefinitions, FontFamily};
use std::sync::Arc;

const MATH: &[u8] = include_bytes!("../../../assets/fonts/glimpse-math.ttf");

pub fn definitions() -> FontDefinitions {
    let mut defs = FontDefinitions::default();
    defs.font_data
        .insert("glimpse-math".into(), Arc::new(FontData::from_static(MATH)));
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        let list = defs.families.entry(family.clone()).or_default();
        if family == FontFamily::Proportional && !list.iter().any(|f| f == "Hack") {
            list.push("Hack".into());
        }
        list.push("glimpse-math".into());
    }
    defs
}

pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(definitions());
}

#[cfg(test)]
mod tests {
    #[test]
    fn math_font_is_a_fallback_for_both_families() {
        let d = super::definitions();
        for fam in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
            assert_eq!(
                d.families[&fam].last().map(String::as_str),
                Some("glimpse-math")
            );
        }
        assert!(d.families[&egui::FontFamily::Proportional]
            .iter()
            .any(|f| f == "Hack"));
    }
}
