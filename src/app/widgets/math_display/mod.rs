//! Display formulas: a formula on a line of its own, typeset from a small TeX subset. Fractions
//! stack over a rule (`\frac{QK^T}{\sqrt{d_k}}`), sums carry their limits below and above
//! (`\sum_{j=1}^{n}`), square roots draw a radical over what they hold (`\sqrt{d}`), brackets
//! grow to the height of what they enclose, and `_` / `^` scripts work as in running text
//! ([`super::math_text`]). A screen reader gets the formula in words, in the reader's language
//! ("the fraction QKᵀ, over square root of d sub k, end of fraction").
//!
//! Whatever the parser does not understand is drawn as written: an unmatched brace, an unknown
//! command, a script with nothing to hang on. It never fails.

mod layout;
#[cfg(test)]
mod tests;

use crate::t;
use egui::{Response, Ui};

/// One piece of a formula.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Letters, digits, operators and spaces, drawn as written.
    Text(String),
    /// Scripts on the piece before: `x_{i}`, `x^2`, `x_i^2`.
    Scripts {
        sub: Option<Vec<Node>>,
        sup: Option<Vec<Node>>,
    },
    /// A numerator over a denominator.
    Frac(Vec<Node>, Vec<Node>),
    /// A square root.
    Sqrt(Vec<Node>),
    /// A big Σ; its scripts are limits below and above.
    Sum {
        below: Option<Vec<Node>>,
        above: Option<Vec<Node>>,
    },
    /// Brackets that grow with what they enclose: `(…)` or `[…]`.
    Fence {
        open: char,
        close: char,
        body: Vec<Node>,
    },
}

/// Deeper than this, a group is drawn as written (keeps the parser's stack small on any input).
const MAX_DEPTH: usize = 16;

/// The formula `tex` as pieces. Never fails: what is not understood stays text.
pub fn parse(tex: &str) -> Vec<Node> {
    let chars: Vec<char> = tex.chars().collect();
    let pairs = pair_brackets(&chars);
    Parser {
        chars: &chars,
        pairs: &pairs,
    }
    .seq(0, chars.len(), 0)
}

/// For every opening `{`, `(` or `[`, the index of its closing partner, if it has one. Braces
/// win over brackets: a `}` closes its `{` even across an unclosed `(`, which stays text.
fn pair_brackets(chars: &[char]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; chars.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            // An escaped character (`\{`, `\\`) is not a bracket.
            '\\' => i += 1,
            '{' | '(' | '[' => open.push(i),
            '}' => {
                if let Some(k) = open.iter().rposition(|&o| chars[o] == '{') {
                    pairs[open[k]] = Some(i);
                    open.truncate(k);
                }
            }
            c @ (')' | ']') => {
                let want = if c == ')' { '(' } else { '[' };
                if open.last().is_some_and(|&o| chars[o] == want) {
                    if let Some(o) = open.pop() {
                        pairs[o] = Some(i);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    pairs
}

struct Parser<'a> {
    chars: &'a [char],
    pairs: &'a [Option<usize>],
}

impl Parser<'_> {
    /// The pieces of `chars[lo..hi]`.
    fn seq(&self, lo: usize, hi: usize, depth: usize) -> Vec<Node> {
        let mut out = Out::default();
        if depth > MAX_DEPTH {
            out.text.extend(&self.chars[lo..hi]);
            return out.finish();
        }
        let mut i = lo;
        while i < hi {
            let c = self.chars[i];
            match c {
                '\\' => i = self.command(i, hi, depth, &mut out),
                '{' => match self.close(i, hi) {
                    // A bare group only groups: its pieces join the line. An empty one is
                    // drawn as written (`x_{}` is not a formula).
                    Some(end) if end > i + 1 => {
                        out.flush();
                        out.nodes.extend(self.seq(i + 1, end, depth + 1));
                        i = end + 1;
                    }
                    _ => {
                        out.text.push(c);
                        i += 1;
                    }
                },
                '(' | '[' => match self.close(i, hi) {
                    Some(end) => {
                        let body = self.seq(i + 1, end, depth + 1);
                        out.push(Node::Fence {
                            open: c,
                            close: self.chars[end],
                            body,
                        });
                        i = end + 1;
                    }
                    None => {
                        out.text.push(c);
                        i += 1;
                    }
                },
                '_' | '^' if out.can_take_script() => match self.script_body(i + 1, hi, depth) {
                    Some((body, end)) => {
                        out.script(c == '_', body);
                        i = end;
                    }
                    None => {
                        out.text.push(c);
                        i += 1;
                    }
                },
                '∑' => {
                    out.push(Node::Sum {
                        below: None,
                        above: None,
                    });
                    i += 1;
                }
                _ => {
                    out.text.push(c);
                    i += 1;
                }
            }
        }
        out.finish()
    }

    /// The partner of the bracket at `open` when it closes before `hi`.
    fn close(&self, open: usize, hi: usize) -> Option<usize> {
        self.pairs[open].filter(|&end| end < hi)
    }

    /// The `{…}` group starting at `i` (after spaces): its pieces and the index after it.
    fn group(&self, mut i: usize, hi: usize, depth: usize) -> Option<(Vec<Node>, usize)> {
        while i < hi && self.chars[i] == ' ' {
            i += 1;
        }
        if i < hi && self.chars[i] == '{' {
            let end = self.close(i, hi)?;
            return Some((self.seq(i + 1, end, depth + 1), end + 1));
        }
        None
    }

    /// What a `_` or `^` takes: a group, one command (`\tau`), or a run of letters and digits.
    fn script_body(&self, i: usize, hi: usize, depth: usize) -> Option<(Vec<Node>, usize)> {
        match self.chars.get(i).filter(|_| i < hi)? {
            '{' => self
                .group(i, hi, depth)
                .filter(|(body, _)| !body.is_empty()),
            '\\' => {
                let mut one = Out::default();
                let end = self.command(i, hi, depth, &mut one);
                let body = one.finish();
                (!body.is_empty()).then_some((body, end))
            }
            _ => {
                let small = super::math_text::already_small;
                let run = self.chars[i..hi]
                    .iter()
                    .take_while(|&&c| c.is_alphanumeric() && !small(c))
                    .count();
                (run > 0).then(|| {
                    let text = self.chars[i..i + run].iter().collect();
                    (vec![Node::Text(text)], i + run)
                })
            }
        }
    }

    /// The command at `chars[i] == '\\'`; returns the index after it.
    fn command(&self, i: usize, hi: usize, depth: usize, out: &mut Out) -> usize {
        let name_len = self.chars[i + 1..hi]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let after = i + 1 + name_len;
        if name_len == 0 {
            // `\,` `\;` are spaces; `\{` `\}` `\\` the character itself.
            match self.chars.get(i + 1).filter(|_| i + 1 < hi) {
                Some(',') => out.text.push('\u{2009}'),
                Some(';') => out.text.push(' '),
                Some(&c) => out.text.push(c),
                None => out.text.push('\\'),
            }
            return (i + 2).min(hi);
        }
        let name: String = self.chars[i + 1..after].iter().collect();
        match name.as_str() {
            "frac" => {
                if let Some((num, mid)) = self.group(after, hi, depth) {
                    if let Some((den, end)) = self.group(mid, hi, depth) {
                        out.push(Node::Frac(num, den));
                        return end;
                    }
                }
            }
            "sqrt" => {
                if let Some((body, end)) = self.group(after, hi, depth) {
                    out.push(Node::Sqrt(body));
                    return end;
                }
            }
            "mathrm" | "operatorname" | "text" => {
                if let Some((body, end)) = self.group(after, hi, depth) {
                    out.flush();
                    out.nodes.extend(body);
                    return end;
                }
            }
            "sum" => {
                out.push(Node::Sum {
                    below: None,
                    above: None,
                });
                return after;
            }
            // Every bracket grows; `\left` and `\right` only mark them.
            "left" | "right" => return after,
            "quad" => {
                out.text.push_str("  ");
                return after;
            }
            _ => {
                if let Some(symbol) = symbol(&name) {
                    out.text.push_str(symbol);
                    return after;
                }
            }
        }
        out.text.push('\\');
        out.text.push_str(&name);
        after
    }
}

/// The symbols and function names a formula may write as commands.
fn symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "cdot" => "·",
        "times" => "×",
        "top" => "ᵀ",
        "odot" => "⊙",
        "le" => "≤",
        "ge" => "≥",
        "approx" => "≈",
        "infty" => "∞",
        "alpha" => "α",
        "beta" => "β",
        "gamma" => "γ",
        "mu" => "μ",
        "sigma" => "σ",
        "tau" => "τ",
        "theta" => "θ",
        "omega" => "ω",
        "epsilon" => "ε",
        "log" => "log",
        "exp" => "exp",
        "max" => "max",
        "sin" => "sin",
        "cos" => "cos",
        "tanh" => "tanh",
        "min" => "min",
        _ => return None,
    })
}

/// The pieces being collected, with the text not yet closed into a piece.
#[derive(Default)]
struct Out {
    nodes: Vec<Node>,
    text: String,
}

impl Out {
    fn flush(&mut self) {
        if !self.text.is_empty() {
            self.nodes.push(Node::Text(std::mem::take(&mut self.text)));
        }
    }

    fn push(&mut self, node: Node) {
        self.flush();
        self.nodes.push(node);
    }

    /// A script belongs to a symbol: not to nothing, nor to a space or an opening bracket.
    fn can_take_script(&self) -> bool {
        match self.text.chars().last() {
            Some(c) => !c.is_whitespace() && !matches!(c, '(' | '[' | '{'),
            None => !self.nodes.is_empty(),
        }
    }

    /// Hang a script on the last piece: a sum's limit, a second script beside the first, or a
    /// new script.
    fn script(&mut self, below: bool, body: Vec<Node>) {
        self.flush();
        let slot = match self.nodes.last_mut() {
            Some(Node::Sum { below: b, above: a }) | Some(Node::Scripts { sub: b, sup: a }) => {
                let slot = if below { b } else { a };
                slot.is_none().then_some(slot)
            }
            _ => None,
        };
        match slot {
            Some(slot) => *slot = Some(body),
            None => self.nodes.push(if below {
                Node::Scripts {
                    sub: Some(body),
                    sup: None,
                }
            } else {
                Node::Scripts {
                    sub: None,
                    sup: Some(body),
                }
            }),
        }
    }

    fn finish(mut self) -> Vec<Node> {
        self.flush();
        self.nodes
    }
}

/// The lines of a formula: `\\` breaks one (at the top level only: a break inside braces
/// leaves them unmatched, drawn as written).
pub fn lines(tex: &str) -> Vec<Vec<Node>> {
    tex.split(r"\\").map(parse).collect()
}

/// The formula in words, in the current language; its lines are read one after the other.
pub fn spoken(tex: &str) -> String {
    lines(tex)
        .iter()
        .map(|line| super::math_text::tidy(&say(line)))
        .filter(|words| !words.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn say(nodes: &[Node]) -> String {
    nodes.iter().map(say_one).collect::<Vec<_>>().join("")
}

/// A part of more than one term needs an end marker, so the listener hears where it stops:
/// "the fraction x − μ, over …, end of fraction", but "QK super T over d".
fn compound(nodes: &[Node]) -> bool {
    let operator = |s: &str| {
        s.trim()
            .contains([' ', '+', '−', '-', '=', '·', '×', '/', ','])
    };
    match nodes {
        [] => false,
        [one] => match one {
            Node::Text(s) => operator(s),
            Node::Frac(..) | Node::Sum { .. } => true,
            _ => false,
        },
        _ => nodes.iter().any(|n| match n {
            Node::Text(s) => operator(s),
            Node::Scripts { .. } | Node::Fence { .. } => false,
            Node::Frac(..) | Node::Sqrt(_) | Node::Sum { .. } => true,
        }),
    }
}

fn say_one(node: &Node) -> String {
    let part = |nodes: &[Node]| super::math_text::tidy(&say(nodes));
    match node {
        Node::Text(s) => s.clone(),
        Node::Scripts { sub, sup } => {
            let mut words = String::new();
            for (body, word) in [(sub, "math-sub"), (sup, "math-super")] {
                if let Some(body) = body {
                    let comma = format!(" {} ", t!("math-comma"));
                    let body = part(body).replace(',', &comma);
                    words += &format!(" {} {body} ", crate::i18n::tr(word, &[]));
                }
            }
            words
        }
        Node::Frac(num, den) => {
            let (n, d) = (part(num), part(den));
            let key = if compound(num) || compound(den) {
                "math-fraction-long"
            } else {
                "math-fraction"
            };
            format!(
                " {} ",
                crate::i18n::tr(key, &[("numerator", n.into()), ("denominator", d.into())])
            )
        }
        Node::Sqrt(body) => {
            let r = part(body);
            let key = if compound(body) {
                "math-root-long"
            } else {
                "math-root"
            };
            format!(" {} ", crate::i18n::tr(key, &[("radicand", r.into())]))
        }
        Node::Sum { below, above } => {
            let words = match (below, above) {
                (Some(b), Some(a)) => t!("math-sum", from = &part(b), to = &part(a)),
                (Some(b), None) => t!("math-sum-over", over = &part(b)),
                _ => t!("math-sum-plain"),
            };
            format!(" {words} ")
        }
        Node::Fence { open, close, body } => format!("{open}{}{close}", say(body)),
    }
}

/// How big a display formula is drawn, against the body text.
pub const SCALE: f32 = 1.25;

/// A display formula on lines of its own, each centred, in the body font at [`SCALE`] times
/// its size (smaller when the column is too narrow for it), named in words for a screen reader.
pub fn show(ui: &mut Ui, tex: &str) -> Response {
    let body = egui::TextStyle::Body.resolve(ui.style());
    let color = ui.visuals().text_color();
    let width = ui.available_width().max(1.0);
    let boxes: Vec<layout::Boxed> = lines(tex)
        .iter()
        .map(|nodes| {
            let size = body.size * SCALE;
            let boxed = layout::typeset(ui.ctx(), nodes, &body.family, size, color);
            if boxed.width <= width {
                return boxed;
            }
            // Shrink to fit, but never below the size of the text around it.
            let size = (size * width / boxed.width).max(body.size * 0.85);
            layout::typeset(ui.ctx(), nodes, &body.family, size, color)
        })
        .collect();
    let pad = body.size * 0.3;
    let height: f32 = boxes.iter().map(|b| b.ascent + b.descent).sum::<f32>() + 2.0 * pad;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
    let mut top = rect.top() + pad;
    for boxed in &boxes {
        let left = rect.left() + ((width - boxed.width) / 2.0).max(0.0);
        let origin = egui::pos2(left, top + boxed.ascent);
        layout::paint(ui.painter(), boxed, origin, color);
        top += boxed.ascent + boxed.descent;
    }
    let words = spoken(tex);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &words));
    response
}

/// Runs `f` inside a frame of a context with the app's fonts.
#[cfg(test)]
pub(crate) fn with_fonts(f: impl FnOnce(&egui::Context)) {
    let ctx = egui::Context::default();
    crate::app::shell::fonts::install(&ctx);
    let mut f = Some(f);
    let mut output = ctx.run_pass(egui::RawInput::default(), |ctx| {
        if let Some(f) = f.take() {
            f(ctx);
        }
    });
    // No painter takes the font atlas here.
    output.textures_delta.clear();
}
