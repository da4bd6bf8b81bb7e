//! Formulas in running text, typeset: `e_{t,i}` and `a_t` draw their subscripts smaller and
//! lowered, `x^{2}` and `10^4` their superscripts smaller and raised, without the braces. A
//! screen reader gets the formula in words instead ("e sub t comma i"), in the reader's
//! language. Text without `_` or `^` is an ordinary label.

use crate::t;
use egui::text::LayoutJob;
use egui::{Align, Color32, FontId, Response, TextFormat, Ui};

/// A run of text: as is, lowered (subscript) or raised (superscript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Sub(String),
    Sup(String),
}

/// A character a bare (brace-less) script may hold: `d_model`, `W_Q`, `softmax_i`, `10^4`.
fn script_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// A character a script may follow: a script belongs to a symbol, not to a space or a bracket
/// that opens (`f(_x)` stays text).
fn scriptable(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ')' | ']' | '|' | '‖' | '′' | '\'' | 'ᵀ')
}

/// Splits `text` into plain runs and scripts. `_{…}`/`^{…}` take everything up to the matching
/// brace; bare `_x…`/`^x…` a run of letters and digits. Anything else, an unmatched brace
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
            let (body, end) = if chars[i + 1] == '{' {
                match matching_brace(&chars, i + 1) {
                    Some(close) => (chars[i + 2..close].iter().collect::<String>(), close + 1),
                    None => (String::new(), i),
                }
            } else {
                let run = chars[i + 1..]
                    .iter()
                    .take_while(|&&c| script_char(c))
                    .count();
                (chars[i + 1..i + 1 + run].iter().collect(), i + 1 + run)
            };
            if !body.is_empty() {
                if !plain.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut plain)));
                }
                pieces.push(match c {
                    '_' => Piece::Sub(body),
                    _ => Piece::Sup(body),
                });
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

fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
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
        })
        .collect();
    // One space between words; none before the punctuation a script may be followed by.
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [" ,", " .", " )", " :", " ;"] {
        out = out.replace(p, &p[1..]);
    }
    out
}

/// `text` with its formulas in words, in the reader's language (a plot's or a table's name).
pub fn spoken(text: &str) -> String {
    spoken_pieces(&parse(text))
}

fn spoken_pieces(pieces: &[Piece]) -> String {
    speech(
        pieces,
        (&t!("math-sub"), &t!("math-super"), &t!("math-comma")),
    )
}

/// The pieces laid out in `font`: scripts at 70 % of its size, lowered or raised.
pub fn layout(pieces: &[Piece], font: FontId, color: Color32, wrap_width: f32) -> LayoutJob {
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap_width;
    let small = FontId::new(font.size * 0.7, font.family.clone());
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
    let pieces = parse(text);
    if !has_scripts(&pieces) {
        return ui.label(egui::RichText::new(text).color(color));
    }
    let font = egui::TextStyle::Body.resolve(ui.style());
    let job = layout(&pieces, font, color, ui.available_width());
    let words = spoken_pieces(&pieces);
    let response = ui.label(job);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &words));
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
                            if let Piece::Sub(s) | Piece::Sup(s) = piece {
                                assert!(s.chars().count() <= 6, "{lang} {}: {s:?}", page.title());
                            }
                        }
                    }
                }
            }
        }
        crate::i18n::set("en");
    }
}
