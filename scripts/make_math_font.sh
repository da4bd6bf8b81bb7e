#!/usr/bin/env bash
# Regenerates assets/fonts/glimpse-math.ttf: the few symbols egui's bundled fonts lack
# (superscript T, subscripts, visible space, ℝ, …), cut from Debian's DejaVu Sans
# (package fonts-dejavu-core; free licence, see assets/fonts/LICENSE-DejaVu.txt).
# Needs: apt-get install fonts-dejavu-core; pip install fonttools.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every sub- and superscript letter Unicode has, so a plot's axis can write d_k as dₖ.
scripts="₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥᵦᵧᵨᵩᵪ⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡ"
glyphs="${scripts}␣⏎ℝ∑∏√∞≤≥≈≠±×÷−→←↑↓↔⇒∈∉⊙⊕⟨⟩‖∝∂∇·…αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ"
pyftsubset /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf --text="$glyphs" \
  --output-file=assets/fonts/glimpse-math.ttf --no-hinting --desubroutinize
