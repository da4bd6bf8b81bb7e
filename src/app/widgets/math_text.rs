//! Formulas in running text, typeset: `e_{t,i}` and `a_t` draw their subscripts smaller and
//! lowered, `x^{2}`, `10^4` and `10000^(−2k/d)` their superscripts smaller and raised, without
//! the braces or the brackets. A screen reader gets the formula in words instead ("e sub t
//! comma i"), in the reader's language. Text without `_` or `^` is an ordinary label.

use crate::t;
use egui::text::LayoutJob;
use egui::{Align, Color32, FontId, Response, TextFormat, TextStyle, Ui, WidgetText};

/// A run of text: as is, lowered (subscript) or raised (superscript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Sub(String),
    Sup(String),
    /// A script inside a script (`base^(−2p/d_head)`): smaller again, lowered (`inner_sub`)
    /// or raised within a subscript (`outer_sub`) or a superscript.
    Inner {
        outer_sub: bool,
        inner_sub: bool,
        text: String,
    },
}

/// A character a bare (brace-less) script may hold: `d_model`, `W_Q`, `softmax_i`, `10^4`;
/// not one that is already small (`q_iᵀ` is q sub i, transposed).
fn script_char(c: char) -> bool {
    c.is_alphanumeric() && !already_small(c)
}

/// Unicode's sub- and superscript letters and digits (ᵀ ᵢ ⱼ ² ₖ ʰ ᶜ …).
pub fn already_small(c: char) -> bool {
    matches!(c,
        '\u{00B2}' | '\u{00B3}' | '\u{00B9}' | '\u{02B0}'..='\u{02E4}' | '\u{1D2C}'..='\u{1D6A}'
        | '\u{1D9B}'..='\u{1DBF}' | '\u{2070}'..='\u{209F}' | '\u{2C7C}' | '\u{2C7D}')
}

/// A character a script may follow: a script belongs to a symbol, not to a space or a bracket
/// that opens (`f(_x)` stays text).
fn scriptable(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ')' | ']' | '|' | '‖' | '′' | '\'' | 'ᵀ')
}

/// Splits `text` into plain runs and scripts. `_{…}`/`^{…}` and `_(…)`/`^(…)` take everything
/// up to the matching brace or bracket (the brackets only group); bare `_x…`/`^x…` a run of
/// letters and digits (`e^2.1972` with its decimals). Anything else, an unmatched brace
/// included, stays as it was written.
pub fn parse(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let mut pieces = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let after_symbol = i > 0 && scriptable(chars[i - 1]);
        if (c == '_' || c == '^') && after_symbol && i + 1 < chars.len() {
            let (body, end) = if matches!(chars[i + 1], '{' | '(') {
                match matching_brace(&chars, i + 1) {
                    Some(close) => (chars[i + 2..close].iter().collect::<String>(), close + 1),
                    None => (String::new(), i),
                }
            } else {
                let run = bare_run(&chars[i + 1..]);
                (chars[i + 1..i + 1 + run].iter().collect(), i + 1 + run)
            };
            if !body.is_empty() {
                if !plain.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut plain)));
                }
                pieces.extend(script(c == '_', &body));
                i = end;
                continue;
            }
        }
        plain.push(c);
        i += 1;
    }
    if !plain.is_empty() {
        pieces.push(Piece::Text(plain));
    }
    pieces
}

/// The length of a bare script: letters and digits, and a point between two digits.
fn bare_run(chars: &[char]) -> usize {
    let mut n = 0;
    while n < chars.len() {
        let c = chars[n];
        let decimal = c == '.'
            && n > 0
            && chars[n - 1].is_ascii_digit()
            && chars.get(n + 1).is_some_and(char::is_ascii_digit);
        if !(script_char(c) || decimal) {
            break;
        }
        n += 1;
    }
    n
}

/// A script's pieces: its body, with any script inside it one level smaller.
fn script(sub: bool, body: &str) -> Vec<Piece> {
    parse(body)
        .into_iter()
        .map(|p| {
            let (inner_sub, text) = match p {
                Piece::Text(text) if sub => return Piece::Sub(text),
                Piece::Text(text) => return Piece::Sup(text),
                Piece::Sub(text) => (true, text),
                Piece::Sup(text) => (false, text),
                // Deeper still is drawn at the same small size.
                Piece::Inner {
                    inner_sub, text, ..
                } => (inner_sub, text),
            };
            Piece::Inner {
                outer_sub: sub,
                inner_sub,
                text,
            }
        })
        .collect()
}

fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let (opening, closing) = if chars[open] == '(' {
        ('(', ')')
    } else {
        ('{', '}')
    };
    let mut depth = 0;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        match c {
            c if c == opening => depth += 1,
            c if c == closing => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the text has anything to typeset.
pub fn has_scripts(pieces: &[Piece]) -> bool {
    pieces.iter().any(|p| !matches!(p, Piece::Text(_)))
}

/// The formula in words: "e sub t comma i", "x super 2"; `words` are (sub, super, comma) in
/// the reader's language.
pub fn speech(pieces: &[Piece], (sub, sup, comma): (&str, &str, &str)) -> String {
    let script = |word: &str, body: &str| {
        let body = body.replace(',', &format!(" {comma} "));
        format!(" {word} {body} ")
    };
    let text: String = pieces
        .iter()
        .map(|p| match p {
            Piece::Text(s) => s.clone(),
            Piece::Sub(s) => script(sub, s),
            Piece::Sup(s) => script(sup, s),
            Piece::Inner {
                inner_sub, text, ..
            } => script(if *inner_sub { sub } else { sup }, text),
        })
        .collect();
    tidy(&text)
}

/// One space between words; none before the punctuation a script may be followed by.
pub fn tidy(text: &str) -> String {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [" ,", " .", " )", " :", " ;"] {
        out = out.replace(p, &p[1..]);
    }
    // Nor after an opening bracket that a display formula's words follow.
    out.replace("( ", "(").replace("[ ", "[")
}

/// `text` with its formulas in words, in the reader's language (a plot's or a table's name).
pub fn spoken(text: &str) -> String {
    let pieces = parse(text);
    if !has_scripts(&pieces) {
        return text.to_string();
    }
    spoken_pieces(&pieces)
}

fn spoken_pieces(pieces: &[Piece]) -> String {
    speech(
        pieces,
        (&t!("math-sub"), &t!("math-super"), &t!("math-comma")),
    )
}

/// The pieces laid out in `font`: scripts at 70 % of its size, lowered or raised; scripts
/// inside them at 55 %, centred where they go the other way (a subscript in a superscript
/// sits below the superscript's top, above the line's bottom).
pub fn layout(pieces: &[Piece], font: FontId, color: Color32, wrap_width: f32) -> LayoutJob {
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap_width;
    let small = FontId::new(font.size * 0.7, font.family.clone());
    let smaller = FontId::new(font.size * 0.55, font.family.clone());
    for p in pieces {
        let (text, format) = match p {
            Piece::Text(s) => (s, TextFormat::simple(font.clone(), color)),
            Piece::Sub(s) => (
                s,
                TextFormat {
                    valign: Align::BOTTOM,
                    ..TextFormat::simple(small.clone(), color)
                },
            ),
            Piece::Sup(s) => (
                s,
                TextFormat {
                    valign: Align::TOP,
                    ..TextFormat::simple(small.clone(), color)
                },
            ),
            Piece::Inner {
                outer_sub,
                inner_sub,
                text,
            } => (
                text,
                TextFormat {
                    valign: match (outer_sub, inner_sub) {
                        (true, true) => Align::BOTTOM,
                        (false, false) => Align::TOP,
                        _ => Align::Center,
                    },
                    ..TextFormat::simple(smaller.clone(), color)
                },
            ),
        };
        job.append(text, 0.0, format);
    }
    job
}

/// A wrapping label with its formulas typeset, named in words for a screen reader.
pub fn label(ui: &mut Ui, text: &str) -> Response {
    let color = ui.visuals().text_color();
    colored(ui, text, color)
}

/// [`label`] in the weak text colour (as `ui.weak`).
pub fn weak(ui: &mut Ui, text: &str) -> Response {
    let color = ui.visuals().weak_text_color();
    colored(ui, text, color)
}

/// [`label`] in `color` (`ui.visuals().strong_text_color()` for a title).
pub fn colored(ui: &mut Ui, text: &str, color: Color32) -> Response {
    styled(ui, text, TextStyle::Body, color)
}

/// [`label`] in the strong text colour (as `ui.strong`).
pub fn strong(ui: &mut Ui, text: &str) -> Response {
    let color = ui.visuals().strong_text_color();
    colored(ui, text, color)
}

/// [`label`] as a heading (as `ui.heading`).
pub fn heading(ui: &mut Ui, text: &str) -> Response {
    let color = ui.visuals().text_color();
    styled(ui, text, TextStyle::Heading, color)
}

/// [`label`] in the monospace font (as `ui.monospace`).
pub fn monospace(ui: &mut Ui, text: &str) -> Response {
    let color = ui.visuals().text_color();
    styled(ui, text, TextStyle::Monospace, color)
}

/// [`label`] in `style` and `color`.
pub fn styled(ui: &mut Ui, text: &str, style: TextStyle, color: Color32) -> Response {
    let pieces = parse(text);
    if !has_scripts(&pieces) {
        return ui.label(egui::RichText::new(text).text_style(style).color(color));
    }
    let font = style.resolve(ui.style());
    let job = layout(&pieces, font, color, ui.available_width());
    let words = spoken_pieces(&pieces);
    let response = ui.label(job);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &words));
    response
}

/// `text` typeset as the text of a button, a chip or a tooltip: one line, in the colour the
/// widget gives its text.
pub fn widget_text(ui: &Ui, text: &str) -> WidgetText {
    let pieces = parse(text);
    if !has_scripts(&pieces) {
        return text.into();
    }
    let font = TextStyle::Button.resolve(ui.style());
    layout(&pieces, font, Color32::PLACEHOLDER, f32::INFINITY).into()
}

/// Names a slider whose text is [`widget_text`] in words (egui names it with the text as
/// drawn, scripts run into their symbol: "dhead").
pub fn name_slider(response: &Response, text: &str, value: f64) {
    let pieces = parse(text);
    if has_scripts(&pieces) {
        let words = spoken_pieces(&pieces);
        response.widget_info(|| egui::WidgetInfo::slider(true, value, &words));
    }
}

/// `ui.selectable_value` with its text typeset and named in words.
pub fn selectable_value<V: PartialEq>(
    ui: &mut Ui,
    current: &mut V,
    value: V,
    text: &str,
) -> Response {
    let selected = *current == value;
    let mut response = selectable_label(ui, selected, text);
    if response.clicked() && !selected {
        *current = value;
        response.mark_changed();
    }
    response
}

/// `ui.selectable_label` with its text typeset and named in words.
pub fn selectable_label(ui: &mut Ui, selected: bool, text: &str) -> Response {
    let response = ui.selectable_label(selected, widget_text(ui, text));
    let pieces = parse(text);
    if has_scripts(&pieces) {
        let (enabled, words) = (ui.is_enabled(), spoken_pieces(&pieces));
        response.widget_info(|| {
            egui::WidgetInfo::selected(egui::Role::Button, enabled, selected, &words)
        });
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::Queryable;

    fn text(s: &str) -> Piece {
        Piece::Text(s.into())
    }

    #[test]
    fn scripts_with_and_without_braces() {
        assert_eq!(
            parse("e_{t,i} = vᵀ tanh(W s_{t−1})"),
            [
                text("e"),
                Piece::Sub("t,i".into()),
                text(" = vᵀ tanh(W s"),
                Piece::Sub("t−1".into()),
                text(")"),
            ]
        );
        assert_eq!(
            parse("softmax_i(x) and d_model, 10^4"),
            [
                text("softmax"),
                Piece::Sub("i".into()),
                text("(x) and d"),
                Piece::Sub("model".into()),
                text(", 10"),
                Piece::Sup("4".into()),
            ]
        );
    }

    /// Brackets after `^` group like braces; decimals stay in the exponent; a script inside a
    /// script is one level smaller, and read in words as well.
    #[test]
    fn bracketed_decimal_and_nested_scripts() {
        assert_eq!(
            parse("10000^((d−2)/d) and e^2.1972."),
            [
                text("10000"),
                Piece::Sup("(d−2)/d".into()),
                text(" and e"),
                Piece::Sup("2.1972".into()),
                text("."),
            ]
        );
        let rope = parse("θ_p = base^(−2p/d_head)");
        assert_eq!(
            rope[3..],
            [
                Piece::Sup("−2p/d".into()),
                Piece::Inner {
                    outer_sub: false,
                    inner_sub: true,
                    text: "head".into()
                },
            ]
        );
        assert_eq!(
            speech(&rope, ("sub", "super", "comma")),
            "θ sub p = base super −2p/d sub head"
        );
        assert_eq!(parse("x^(a"), [text("x^(a")]);
    }

    /// What is not a script stays as written: a lone underscore, one after a space, an
    /// unmatched brace, an empty script.
    #[test]
    fn text_that_is_not_a_formula_is_kept() {
        for s in [
            "a _b",
            "x_{t",
            "x_",
            "x_{}",
            "_start",
            "snake_ case",
            "a ^ b",
        ] {
            let joined: String = parse(s)
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.clone(),
                    _ => panic!("{s:?} was typeset: {:?}", parse(s)),
                })
                .collect();
            assert_eq!(joined, s);
        }
    }

    #[test]
    fn formulas_in_words() {
        let words = ("sub", "super", "comma");
        assert_eq!(
            speech(&parse("a_{t,i} = softmax_i(e_{t,i})."), words),
            "a sub t comma i = softmax sub i (e sub t comma i)."
        );
        assert_eq!(
            speech(&parse("x^{2}, then 10^4"), words),
            "x super 2, then 10 super 4"
        );
        let es = ("subíndice", "superíndice", "coma");
        assert_eq!(speech(&parse("e_{t,i}"), es), "e subíndice t coma i");
    }

    /// The first page's formulas are typeset: no brace is drawn or read, and a screen reader
    /// gets them in words, in English and in Spanish.
    #[test]
    fn formulas_on_a_page_are_typeset_and_read_in_words() {
        for (lang, words) in [
            ("en", "e sub t comma i = vᵀ tanh(W s sub t−1 + U hᵢ)"),
            (
                "es",
                "e subíndice t coma i = vᵀ tanh(W s subíndice t−1 + U hᵢ)",
            ),
        ] {
            let mut h =
                crate::app::tests::open(&format!("view=lessons&lesson=0&page=0&lang={lang}"));
            h.run_steps(3);
            h.get_by_label_contains(words);
            assert_eq!(h.query_all_by_label_contains("_{").count(), 0, "{lang}");
        }
        crate::i18n::set("en");
    }

    /// Every script the lesson pages typeset, in both languages, is a formula: at most a few
    /// characters (a word such as `model` in d_model), never a file name or a piece of a link.
    #[test]
    fn every_typeset_script_on_a_page_is_short() {
        use crate::app::widgets::math_text::{parse, Piece};
        for lang in ["en", "es"] {
            crate::i18n::set(lang);
            for lesson in crate::app::lessons::content::LESSONS {
                for page in lesson.pages {
                    for p in page.paragraphs() {
                        for piece in parse(&p) {
                            if let Piece::Sub(s) | Piece::Sup(s) | Piece::Inner { text: s, .. } =
                                piece
                            {
                                assert!(s.chars().count() <= 8, "{lang} {}: {s:?}", page.title());
                            }
                        }
                    }
                }
            }
        }
        crate::i18n::set("en");
    }
}
