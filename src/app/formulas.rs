//! The display formulas the lessons and the labs share, by name, in the TeX subset that
//! [`crate::app::widgets::math_display`] reads. A lab draws one with [`show`]; a lesson page
//! draws one where a paragraph is only `$$name$$` (the name, not the TeX, sits in the
//! translations: a formula is the same in every language, and Fluent would need every brace
//! escaped).

use crate::app::widgets::math_display;

/// `(name, TeX)`, every display formula of the app.
pub const ALL: &[(&str, &str)] = &[
    (
        "attention",
        r"Attention(Q, K, V) = softmax(\frac{QK^T}{\sqrt{d_k}}) V",
    ),
    ("softmax", r"α_i = \frac{\exp(e_i)}{\sum_j \exp(e_j)}"),
    (
        "softmax-jacobian",
        r"\frac{∂α_i}{∂e_j} = α_i (δ_{ij} − α_j)",
    ),
    ("weighted-sum", r"y_i = \sum_j A_{ij} v_j"),
    ("entropy", r"H = −\sum_j α_j \log α_j"),
    ("bahdanau-context", r"c_t = \sum_i a_{t,i} h_i"),
    (
        "bahdanau",
        r"e_{t,i} = v^T \tanh(W s_{t−1} + U h_i) \\ α_t = softmax(e_t),   c_t = \sum_i α_{t,i} h_i",
    ),
    (
        "sinusoidal",
        r"PE(t, 2k) = \sin(ω_k t),   PE(t, 2k+1) = \cos(ω_k t) \\ ω_k t = \frac{t}{10000^{2k/d}}",
    ),
    (
        "sinusoidal-base",
        r"PE(t, 2k) = \sin(ω_k t),   PE(t, 2k+1) = \cos(ω_k t) \\ ω_k t = \frac{t}{base^{2k/d}}",
    ),
    ("sinusoidal-offset", r"p_t · p_{t+o} = \sum_k \cos(ω_k o)"),
    (
        "layer-norm",
        r"LayerNorm(x) = γ ⊙ \frac{x − μ}{\sqrt{σ^2 + ε}} + β",
    ),
    (
        "rms-norm",
        r"RMSNorm(x) = γ ⊙ \frac{x}{\sqrt{mean(x^2) + ε}}",
    ),
    (
        "infonce",
        r"L_i = −\log \frac{\exp(s_{ii}/τ)}{\sum_j \exp(s_{ij}/τ)} \\ s_{ij} = \cos(z_i, z_j^{+})",
    ),
    (
        "warmup",
        r"lr = \frac{1}{\sqrt{d}} · \min(\frac{1}{\sqrt{s}}, \frac{s}{w · \sqrt{w}})",
    ),
    ("estamos", r"\frac{e^{2.1972}}{2 · e^{2.1972} + 2} = 0.45"),
];

/// The TeX of the formula called `name`.
pub fn get(name: &str) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == name).map(|(_, tex)| *tex)
}

/// The name in a lesson paragraph that is only `$$name$$`.
pub fn display_name(paragraph: &str) -> Option<&str> {
    paragraph
        .trim()
        .strip_prefix("$$")?
        .strip_suffix("$$")
        .map(str::trim)
}

/// Draw the formula called `name`; an unknown name shows itself, so a typo is seen.
pub fn show(ui: &mut egui::Ui, name: &str) -> egui::Response {
    match get(name) {
        Some(tex) => math_display::show(ui, tex),
        None => ui.label(name),
    }
}
