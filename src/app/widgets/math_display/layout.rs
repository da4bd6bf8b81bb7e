//! Laying a display formula out: every piece becomes a box measured from its baseline (width,
//! ascent above, descent below, and how far its ink reaches), and boxes combine side by side,
//! stacked (a fraction, a sum's limits) or wrapped (a root, grown brackets). Text is egui's
//! galleys in the body font family (with the math font behind it for the symbols); rules,
//! radicals and grown brackets are strokes, so they fit any height.

use super::Node;
use egui::{vec2, Color32, FontFamily, FontId, Galley, Painter, Pos2, Stroke, Vec2};
use std::f32::consts::PI;
use std::sync::Arc;

/// A laid-out piece. Positions are relative to its origin: its left edge on its baseline.
#[derive(Clone, Default)]
pub struct Boxed {
    pub width: f32,
    /// Room above the baseline, and below it, that the box takes on the line.
    pub ascent: f32,
    pub descent: f32,
    /// How far the ink reaches above and below the baseline (less than the room: text rows
    /// carry space above their capitals and below their descenders).
    pub ink_ascent: f32,
    pub ink_descent: f32,
    pub parts: Vec<Part>,
}

#[derive(Clone)]
pub enum Part {
    /// A galley with its top-left corner at `at`.
    Text { at: Vec2, galley: Arc<Galley> },
    /// A polyline: a fraction's rule, a radical, a grown bracket.
    Stroke { points: Vec<Vec2>, width: f32 },
}

impl Boxed {
    /// `other` placed at `x`, its baseline moved down by `dy`, into this box's parts and extents.
    fn place(&mut self, other: Boxed, x: f32, dy: f32) {
        self.ascent = self.ascent.max(other.ascent - dy);
        self.descent = self.descent.max(other.descent + dy);
        self.ink_ascent = self.ink_ascent.max(other.ink_ascent - dy);
        self.ink_descent = self.ink_descent.max(other.ink_descent + dy);
        self.width = self.width.max(x + other.width);
        let shift = vec2(x, dy);
        self.parts.extend(other.parts.into_iter().map(|p| match p {
            Part::Text { at, galley } => Part::Text {
                at: at + shift,
                galley,
            },
            Part::Stroke { points, width } => Part::Stroke {
                points: points.into_iter().map(|q| q + shift).collect(),
                width,
            },
        }));
    }

    fn stroke(&mut self, points: Vec<Vec2>, width: f32) {
        for q in &points {
            self.ink_ascent = self.ink_ascent.max(-q.y + width / 2.0);
            self.ink_descent = self.ink_descent.max(q.y + width / 2.0);
            self.ascent = self.ascent.max(self.ink_ascent);
            self.descent = self.descent.max(self.ink_descent);
            self.width = self.width.max(q.x + width / 2.0);
        }
        self.parts.push(Part::Stroke { points, width });
    }
}

/// The formula laid out at `size` points.
pub fn typeset(
    ctx: &egui::Context,
    nodes: &[Node],
    family: &FontFamily,
    size: f32,
    color: Color32,
) -> Boxed {
    Setter {
        ctx,
        family,
        color,
        smallest: size * 0.5,
    }
    .row(nodes, size)
}

/// Draw `boxed` with its origin (left edge, baseline) at `origin`.
pub fn paint(painter: &Painter, boxed: &Boxed, origin: Pos2, color: Color32) {
    for part in &boxed.parts {
        match part {
            Part::Text { at, galley } => painter.galley(origin + *at, galley.clone(), color),
            Part::Stroke { points, width } => {
                let points = points.iter().map(|q| origin + *q).collect();
                painter.add(egui::Shape::line(points, Stroke::new(*width, color)));
            }
        }
    }
}

struct Setter<'a> {
    ctx: &'a egui::Context,
    family: &'a FontFamily,
    color: Color32,
    /// Scripts of scripts shrink no further than this.
    smallest: f32,
}

impl Setter<'_> {
    fn row(&self, nodes: &[Node], size: f32) -> Boxed {
        let mut boxes: Vec<Boxed> = Vec::new();
        for node in nodes {
            let next = match node {
                Node::Text(s) => self.text(s, size),
                Node::Scripts { sub, sup } => {
                    let base = boxes.pop().unwrap_or_default();
                    self.scripts(base, sub.as_deref(), sup.as_deref(), size)
                }
                Node::Frac(num, den) => self.fraction(num, den, size),
                Node::Sqrt(body) => self.root(body, size),
                Node::Sum { below, above } => self.sum(below.as_deref(), above.as_deref(), size),
                Node::Fence { open, close, body } => self.fence(*open, *close, body, size),
            };
            boxes.push(next);
        }
        let mut row = Boxed::default();
        for b in boxes {
            let x = row.width;
            row.place(b, x, 0.0);
        }
        row
    }

    fn font(&self, size: f32) -> FontId {
        FontId::new(size, self.family.clone())
    }

    fn galley(&self, text: &str, size: f32) -> Arc<Galley> {
        let font = self.font(size);
        self.ctx
            .fonts_mut(|f| f.layout_no_wrap(text.to_owned(), font, self.color))
    }

    fn text(&self, text: &str, size: f32) -> Boxed {
        let galley = self.galley(text, size);
        let mut baseline = size * 0.8;
        let (mut ink_top, mut ink_bottom) = (0.0f32, 0.0f32);
        let mut first = true;
        for row in &galley.rows {
            for g in &row.row.glyphs {
                if first {
                    baseline = row.pos.y + g.pos.y;
                    first = false;
                }
                if !g.uv_rect.is_nothing() {
                    let top = row.pos.y + g.pos.y + g.uv_rect.offset.y - baseline;
                    ink_top = ink_top.min(top);
                    ink_bottom = ink_bottom.max(top + g.uv_rect.size.y);
                }
            }
        }
        let size_of = galley.size();
        Boxed {
            width: size_of.x,
            ascent: baseline,
            descent: size_of.y - baseline,
            ink_ascent: -ink_top,
            ink_descent: ink_bottom,
            parts: vec![Part::Text {
                at: vec2(0.0, -baseline),
                galley,
            }],
        }
    }

    /// Height of the maths axis above the baseline: the middle of a `+`, where fraction rules
    /// and the centres of big operators sit.
    fn axis(&self, size: f32) -> f32 {
        let plus = self.text("+", size);
        if plus.ink_ascent > 0.0 {
            (plus.ink_ascent - plus.ink_descent) / 2.0
        } else {
            size * 0.3
        }
    }

    fn script_size(&self, size: f32) -> f32 {
        (size * 0.7).max(self.smallest)
    }

    fn scripts(&self, base: Boxed, sub: Option<&[Node]>, sup: Option<&[Node]>, size: f32) -> Boxed {
        let small = self.script_size(size);
        let x = base.width + size * 0.04;
        let (ink_up, ink_down) = (base.ink_ascent, base.ink_descent);
        let mut out = base;
        if let Some(sup) = sup {
            let b = self.row(sup, small);
            // Raised by a fixed amount on a letter, further on a tall base.
            let up = (size * 0.4).max(ink_up - size * 0.3);
            out.place(b, x, -up);
        }
        if let Some(sub) = sub {
            let b = self.row(sub, small);
            let down = (size * 0.22).max(ink_down - size * 0.1);
            out.place(b, x, down);
        }
        out.width += size * 0.04;
        out
    }

    fn fraction(&self, num: &[Node], den: &[Node], size: f32) -> Boxed {
        let part = (size * 0.85).max(self.smallest);
        let (n, d) = (self.row(num, part), self.row(den, part));
        let axis = self.axis(size);
        let rule = (size * 0.055).max(1.0);
        let gap = size * 0.14;
        let pad = size * 0.12;
        let width = n.width.max(d.width) + 2.0 * pad;
        let mut out = Boxed::default();
        let n_dy = -axis - rule / 2.0 - gap - n.ink_descent;
        let d_dy = -axis + rule / 2.0 + gap + d.ink_ascent;
        out.place(n.clone(), (width - n.width) / 2.0, n_dy);
        out.place(d.clone(), (width - d.width) / 2.0, d_dy);
        out.stroke(
            vec![vec2(pad * 0.5, -axis), vec2(width - pad * 0.5, -axis)],
            rule,
        );
        out.width = width + size * 0.08;
        out
    }

    fn root(&self, body: &[Node], size: f32) -> Boxed {
        let r = self.row(body, size);
        let line = (size * 0.055).max(1.0);
        let top = -(r.ink_ascent.max(size * 0.5) + size * 0.15);
        let bottom = r.ink_descent.max(0.0) + size * 0.06;
        let h = bottom - top;
        let sign = size * 0.5;
        let mut out = Boxed::default();
        out.place(r.clone(), sign + size * 0.08, 0.0);
        out.stroke(
            vec![
                vec2(size * 0.04, top + 0.6 * h),
                vec2(size * 0.14, top + 0.53 * h),
                vec2(sign * 0.55, bottom),
                vec2(sign, top),
                vec2(sign + r.width + size * 0.16, top),
            ],
            line,
        );
        out.width += size * 0.06;
        out
    }

    fn sum(&self, below: Option<&[Node]>, above: Option<&[Node]>, size: f32) -> Boxed {
        let op = self.text("∑", size * 1.9);
        let axis = self.axis(size);
        let small = self.script_size(size);
        let gap = size * 0.1;
        // The sign's ink centred on the axis.
        let op_dy = -axis - (op.ink_descent - op.ink_ascent) / 2.0;
        let (ink_top, ink_bottom) = (op_dy - op.ink_ascent, op_dy + op.ink_descent);
        let below = below.map(|n| self.row(n, small));
        let above = above.map(|n| self.row(n, small));
        let width = [Some(&op), below.as_ref(), above.as_ref()]
            .into_iter()
            .flatten()
            .map(|b| b.width)
            .fold(0.0, f32::max);
        let mut out = Boxed::default();
        out.place(op.clone(), (width - op.width) / 2.0, op_dy);
        if let Some(b) = below {
            let dy = ink_bottom + gap + b.ink_ascent;
            out.place(b.clone(), (width - b.width) / 2.0, dy);
        }
        if let Some(a) = above {
            let dy = ink_top - gap - a.ink_descent;
            out.place(a.clone(), (width - a.width) / 2.0, dy);
        }
        out.width = width + size * 0.15;
        out
    }

    fn fence(&self, open: char, close: char, body: &[Node], size: f32) -> Boxed {
        let b = self.row(body, size);
        let glyph = self.text("(", size);
        // Brackets grow only around what is taller than a line of text.
        let height = |b: &Boxed| b.ink_ascent + b.ink_descent;
        let tall = height(&b) > 1.35 * height(&glyph);
        let mut out = Boxed::default();
        if !tall {
            let (l, r) = (
                self.text(&open.to_string(), size),
                self.text(&close.to_string(), size),
            );
            let (lw, bw) = (l.width, b.width);
            out.place(l, 0.0, 0.0);
            out.place(b, lw, 0.0);
            out.place(r, lw + bw, 0.0);
            return out;
        }
        let axis = self.axis(size);
        let half = (b.ink_ascent - axis).max(b.ink_descent + axis) + size * 0.12;
        let (top, bottom) = (-axis - half, -axis + half);
        let w = size * 0.3 + half * 0.06;
        let line = (size * 0.06).max(1.0);
        out.stroke(bracket(open, top, bottom, w, false), line);
        let bw = b.width;
        out.place(b, w, 0.0);
        out.stroke(
            bracket(close, top, bottom, w, true)
                .into_iter()
                .map(|q| q + vec2(w + bw, 0.0))
                .collect(),
            line,
        );
        out.width = 2.0 * w + bw;
        out
    }
}

/// A bracket from `top` to `bottom` in a box `w` wide: a curve for a parenthesis, three
/// straight lines for a square bracket. `closing` mirrors it.
fn bracket(c: char, top: f32, bottom: f32, w: f32, closing: bool) -> Vec<Vec2> {
    let flip = |x: f32| if closing { w - x } else { x };
    if matches!(c, '[' | ']') {
        return [
            (0.75 * w, top),
            (0.3 * w, top),
            (0.3 * w, bottom),
            (0.75 * w, bottom),
        ]
        .into_iter()
        .map(|(x, y)| vec2(flip(x), y))
        .collect();
    }
    let steps = 24;
    (0..=steps)
        .map(|k| {
            let t = k as f32 / steps as f32;
            let x = 0.85 * w - 0.55 * w * (PI * t).sin();
            vec2(flip(x), top + (bottom - top) * t)
        })
        .collect()
}
