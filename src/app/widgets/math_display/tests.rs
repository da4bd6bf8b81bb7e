use super::layout::{typeset, Boxed, Part};
use super::with_fonts;
use super::*;

fn text(s: &str) -> Node {
    Node::Text(s.into())
}

fn sub(s: &str) -> Node {
    Node::Scripts {
        sub: Some(vec![text(s)]),
        sup: None,
    }
}

/// Every character of the text the pieces draw, in order (what is drawn as written).
fn drawn(nodes: &[Node]) -> String {
    nodes
        .iter()
        .map(|n| match n {
            Node::Text(s) => s.clone(),
            _ => "■".into(),
        })
        .collect()
}

#[test]
fn fractions_roots_sums_and_scripts() {
    assert_eq!(
        parse(r"\frac{QK^T}{\sqrt{d_k}}"),
        [Node::Frac(
            vec![
                text("QK"),
                Node::Scripts {
                    sub: None,
                    sup: Some(vec![text("T")])
                }
            ],
            vec![Node::Sqrt(vec![text("d"), sub("k")])],
        )]
    );
    // Limits in either order, with or without braces; a second script joins the first.
    let sum = Node::Sum {
        below: Some(vec![text("i=1")]),
        above: Some(vec![text("n")]),
    };
    assert_eq!(parse(r"\sum_{i=1}^n"), std::slice::from_ref(&sum));
    assert_eq!(parse(r"∑^{n}_{i=1}"), [sum]);
    assert_eq!(
        parse("x_i^2"),
        [
            text("x"),
            Node::Scripts {
                sub: Some(vec![text("i")]),
                sup: Some(vec![text("2")])
            }
        ]
    );
    assert_eq!(parse(r"\tau \cdot \alpha"), [text("τ · α")]);
}

#[test]
fn groups_nest() {
    let nodes = parse(r"\frac{\frac{a}{b}}{\sqrt{(\frac{c}{d})}} + {x}");
    let inner = |n: &str, d: &str| Node::Frac(vec![text(n)], vec![text(d)]);
    assert_eq!(
        nodes,
        [
            Node::Frac(
                vec![inner("a", "b")],
                vec![Node::Sqrt(vec![Node::Fence {
                    open: '(',
                    close: ')',
                    body: vec![inner("c", "d")],
                }])],
            ),
            text(" + "),
            text("x"),
        ]
    );
    // Brackets of two kinds, one inside the other.
    assert_eq!(
        parse("[a (b)]"),
        [Node::Fence {
            open: '[',
            close: ']',
            body: vec![
                text("a "),
                Node::Fence {
                    open: '(',
                    close: ')',
                    body: vec![text("b")]
                }
            ],
        }]
    );
}

/// What the parser does not understand is drawn exactly as it was written.
#[test]
fn what_is_not_understood_is_drawn_as_written() {
    for s in [
        r"x_{t",
        r"a }b",
        r"(a",
        r"a)",
        r"[a)",
        r"\unknown",
        "a _b",
        "_start",
        "x_",
        "x_{}",
        "( ^2",
        r"\",
    ] {
        let nodes = parse(s);
        assert_eq!(drawn(&nodes), s, "{s:?} gave {nodes:?}");
    }
    // A `\frac` without its two groups stays a word; the group it has still groups.
    assert_eq!(parse(r"\frac{a}"), [text(r"\frac"), text("a")]);
    // A brace closes its group even across an unclosed bracket, which stays text.
    assert_eq!(parse(r"\sqrt{(a}"), [Node::Sqrt(vec![text("(a")])]);
    // Escapes and spaces.
    assert_eq!(parse(r"\{a\}\,b\\"), [text("{a}\u{2009}b\\")]);
}

/// A tiny generator, so the test needs no crate and repeats itself exactly.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{", "}", "(", ")", "[", "]", "_", "^", "\\", r"\frac", r"\sqrt", r"\sum", r"\left", r"\right",
    r"\tau", r"\\", "∑", "x", "2", " ", "+", "−", "α", "é", ",", "/",
];

fn random_formula(rng: &mut Lcg) -> String {
    let len = rng.next(40);
    (0..len).map(|_| PIECES[rng.next(PIECES.len())]).collect()
}

/// Any string parses, reads aloud and lays out without a panic; text with nothing to
/// typeset is one piece, as written.
#[test]
fn any_input_is_drawn_and_read() {
    let mut rng = Lcg(38);
    for _ in 0..20_000 {
        let s = random_formula(&mut rng);
        let nodes = parse(&s);
        let _ = spoken(&s);
        assert!(
            drawn(&nodes).chars().count() <= s.chars().count() + 2,
            "{s:?}"
        );
    }
    // Deeper than the parser goes: drawn as written, no stack overflow.
    let deep = format!("{}x{}", "{".repeat(5000), "}".repeat(5000));
    assert!(!parse(&deep).is_empty());
    let deep = r"\frac{".repeat(3000) + "x";
    assert!(!parse(&deep).is_empty());
    for s in ["plain words, 0.45 and 10⁴", "hᵢ · vᵀ"] {
        assert_eq!(parse(s), [text(s)]);
    }
    with_fonts(|ctx| {
        let mut rng = Lcg(7);
        for _ in 0..400 {
            let s = random_formula(&mut rng);
            for line in lines(&s) {
                let b = set(ctx, &line);
                assert!(b.width.is_finite() && b.ascent.is_finite() && b.descent.is_finite());
            }
        }
    });
}

const SIZE: f32 = 20.0;

fn set(ctx: &egui::Context, nodes: &[Node]) -> Boxed {
    typeset(
        ctx,
        nodes,
        &egui::FontFamily::Proportional,
        SIZE,
        egui::Color32::WHITE,
    )
}

/// The baseline of each galley whose text is `s` (negative: above the box's baseline).
fn baselines(b: &Boxed, s: &str) -> Vec<f32> {
    b.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { at, galley } if galley.text() == s => {
                let row = galley.rows.first()?;
                Some(at.y + row.pos.y + row.row.glyphs.first()?.pos.y)
            }
            _ => None,
        })
        .collect()
}

fn strokes(b: &Boxed) -> Vec<&Vec<egui::Vec2>> {
    b.parts
        .iter()
        .filter_map(|p| match p {
            Part::Stroke { points, .. } => Some(points),
            _ => None,
        })
        .collect()
}

#[test]
fn a_fraction_stands_its_numerator_over_its_denominator() {
    with_fonts(|ctx| {
        let line = set(ctx, &parse("x"));
        let frac = set(ctx, &parse(r"\frac{a}{b}"));
        assert!(frac.ascent + frac.descent > 1.5 * (line.ascent + line.descent));
        let rule = strokes(&frac)[0][0].y;
        let (a, b) = (baselines(&frac, "a")[0], baselines(&frac, "b")[0]);
        assert!(a < rule && rule < b, "a {a}, rule {rule}, b {b}");
        // The rule sits above the baseline, on the maths axis.
        assert!(rule < 0.0 && rule > -SIZE * 0.6, "{rule}");
    });
}

#[test]
fn a_sum_carries_its_limits_below_and_above() {
    with_fonts(|ctx| {
        let sum = set(ctx, &parse(r"\sum_{j}^{n}"));
        let (sign, below, above) = (
            baselines(&sum, "∑")[0],
            baselines(&sum, "j")[0],
            baselines(&sum, "n")[0],
        );
        assert!(above < sign && sign < below, "{above} {sign} {below}");
        let line = set(ctx, &parse("x"));
        assert!(sum.ink_ascent > line.ink_ascent * 1.5);
    });
}

#[test]
fn brackets_grow_only_around_what_is_tall() {
    with_fonts(|ctx| {
        let low = set(ctx, &parse("exp(x_j)"));
        assert!(strokes(&low).is_empty(), "glyphs around one line of text");
        let tall = set(ctx, &parse(r"(\frac{a}{b})"));
        let parens = strokes(&tall);
        assert_eq!(parens.len(), 3, "two brackets and a rule");
        let height = |points: &Vec<egui::Vec2>| {
            points.iter().map(|p| p.y).fold(f32::MIN, f32::max)
                - points.iter().map(|p| p.y).fold(f32::MAX, f32::min)
        };
        let a = baselines(&tall, "a")[0];
        assert!(height(parens[0]) > SIZE * 1.4, "{}", height(parens[0]));
        assert!(
            parens[0][0].y < a - SIZE * 0.5,
            "the bracket starts above the numerator"
        );
    });
}

#[test]
fn a_root_covers_what_it_holds() {
    with_fonts(|ctx| {
        let inner = set(ctx, &parse("σ + ε"));
        let root = set(ctx, &parse(r"\sqrt{σ + ε}"));
        assert!(root.width > inner.width);
        let radical = strokes(&root)[0];
        let bar = radical[radical.len() - 1];
        assert!(
            -bar.y >= inner.ink_ascent,
            "the bar clears the radicand's ink"
        );
        assert!(
            bar.x >= inner.width,
            "the bar reaches over the whole radicand"
        );
    });
}

fn in_language<R>(lang: &str, f: impl FnOnce() -> R) -> R {
    crate::i18n::set(lang);
    let out = f();
    crate::i18n::set("en");
    out
}

#[test]
fn formulas_are_read_in_words_in_english_and_spanish() {
    let attention = crate::app::formulas::get("attention").unwrap();
    let layer_norm = crate::app::formulas::get("layer-norm").unwrap();
    let sum = r"\sum_{i=1}^{n} x_i + \sum_j y_j";
    // (formula, English, Spanish)
    let cases = [
        (
            attention,
            "Attention(Q, K, V) = softmax(QK super T over square root of d sub k) V",
            "Attention(Q, K, V) = softmax(QK superíndice T entre raíz cuadrada de d subíndice k) V",
        ),
        (
            layer_norm,
            "LayerNorm(x) = γ ⊙ the fraction x − μ, over square root of σ super 2 + ε, end of \
             root, end of fraction + β",
            "LayerNorm(x) = γ ⊙ la fracción x − μ, entre raíz cuadrada de σ superíndice 2 + ε, \
             fin de la raíz, fin de la fracción + β",
        ),
        (
            sum,
            "sum from i=1 to n of x sub i + sum over j of y sub j",
            "suma desde i=1 hasta n de x subíndice i + suma sobre j de y subíndice j",
        ),
    ];
    for (formula, english, spanish) in cases {
        assert_eq!(in_language("en", || spoken(formula)), english);
        assert_eq!(in_language("es", || spoken(formula)), spanish);
    }
    assert_eq!(spoken(r"a = b \\ c_{t,i}"), "a = b; c sub t comma i");
}

/// Every formula of the app is understood whole (no brace, backslash or script mark left as
/// text) and every character it draws is in the app's fonts (kittest would panic on a
/// missing glyph, a browser would draw a box).
#[test]
fn every_formula_is_understood_and_has_its_glyphs() {
    fn texts(nodes: &[Node], out: &mut String) {
        for n in nodes {
            match n {
                Node::Text(s) => out.push_str(s),
                Node::Scripts { sub, sup }
                | Node::Sum {
                    below: sub,
                    above: sup,
                } => {
                    for part in [sub, sup].into_iter().flatten() {
                        texts(part, out);
                    }
                }
                Node::Frac(a, b) => {
                    texts(a, out);
                    texts(b, out);
                }
                Node::Sqrt(a) => texts(a, out),
                Node::Fence { open, close, body } => {
                    out.push(*open);
                    out.push(*close);
                    texts(body, out);
                }
            }
        }
    }
    with_fonts(|ctx| {
        let font = egui::FontId::proportional(SIZE);
        for (name, tex) in crate::app::formulas::ALL {
            let mut chars = String::from("∑+");
            for line in lines(tex) {
                texts(&line, &mut chars);
            }
            for bad in ['{', '}', '\\', '_', '^'] {
                assert!(!chars.contains(bad), "{name}: {bad:?} left in {chars:?}");
            }
            for c in chars.chars().filter(|c| !c.is_whitespace()) {
                assert!(
                    ctx.fonts_mut(|f| f.has_glyph(&font, c)),
                    "{name}: no glyph for {c:?}"
                );
            }
        }
    });
}
