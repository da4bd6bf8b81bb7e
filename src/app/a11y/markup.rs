//! New mirror elements as HTML: a view's first frame brings hundreds of them (the 270-head
//! grid: 741), and making each with its own calls into the page (create, id, role, place,
//! name, append: about six, every string copied across) held the page's thread 25–40 ms a
//! frame. One parse of their markup makes them all at once. Only the kinds that are nothing
//! but attributes and text (text, buttons, checkboxes, radio buttons, links) are written so;
//! inputs and tables are made element by element. Pure, so it is tested natively.

use super::mirror::{Element, Kind};
use std::fmt::Write;

/// Where an element sits over the canvas, as its `style` attribute: in whole pixels
/// ([`pixels`]). (Fractions were written shortest-exact, and that took the head grid's 741
/// elements 8-10 ms a frame in the browser.)
pub fn place(rect: [f32; 4]) -> String {
    let [left, top, width, height] = pixels(rect);
    format!(
        "position:absolute;left:{left}px;top:{top}px;width:{width}px;height:{height}px;margin:0;\
         padding:0;border:0;overflow:hidden;font-size:12px;"
    )
}

/// A rectangle (left, top, width, height) in the whole pixels that cover it: an element whose
/// widget moved by a fraction of a pixel keeps its place.
pub fn pixels(rect: [f32; 4]) -> [i32; 4] {
    let [x, y, w, h] = rect;
    let (left, top) = (x.floor(), y.floor());
    let (width, height) = ((x + w).ceil() - left, (y + h).ceil() - top);
    [left, top, width, height].map(|v| v as i32)
}

/// The element each kind is drawn as.
pub fn tag(kind: &Kind) -> &'static str {
    match kind {
        Kind::Control { .. } => "div",
        Kind::Slider { .. } | Kind::Number { .. } => "input",
        Kind::Text {
            multiline: true, ..
        } => "textarea",
        Kind::Text { .. } => "input",
        Kind::Progress { .. } => "progress",
        Kind::Static => "p",
        Kind::Table { .. } => "table",
    }
}

/// The attributes an element of `kind` is made with and keeps: its role or input type, and for
/// what one operates `tabindex="-1"`: a screen reader may focus it, outside the Tab order (Tab
/// stays with the canvas).
pub fn fixed_attributes(kind: &Kind) -> impl Iterator<Item = (&'static str, &'static str)> {
    let fixed = match kind {
        Kind::Control { role } => Some(("role", *role)),
        Kind::Slider { .. } => Some(("type", "range")),
        Kind::Number { .. } => Some(("type", "number")),
        Kind::Text {
            multiline: false, ..
        } => Some(("type", "text")),
        Kind::Progress { .. } => Some(("max", "1")),
        Kind::Text { .. } | Kind::Static | Kind::Table { .. } => None,
    };
    let operated = matches!(
        kind,
        Kind::Control { .. } | Kind::Slider { .. } | Kind::Number { .. } | Kind::Text { .. }
    );
    fixed
        .into_iter()
        .chain(operated.then_some(("tabindex", "-1")))
}

/// The ARIA attribute a control's on/off state is told by: checkboxes and radio buttons are
/// checked, other buttons pressed.
pub fn state_attribute(role: &str) -> &'static str {
    match role {
        "checkbox" | "radio" => "aria-checked",
        _ => "aria-pressed",
    }
}

/// Appends `e` as markup to `out`, written as the page's own calls would write a new element
/// (`web::Page::create`, then `update` with nothing before it). False, and nothing written,
/// for the kinds made element by element (inputs, progress bars, tables).
pub fn write(e: &Element, out: &mut String) -> bool {
    let role = match &e.kind {
        Kind::Control { role } => Some(*role),
        Kind::Static => None,
        _ => return false,
    };
    let tag = tag(&e.kind);
    let _ = write!(out, "<{tag} id=\"a11y-{}\"", e.id);
    let mut attribute = |name: &str, value: &str| {
        let _ = write!(out, " {name}=\"");
        escape(value, true, out);
        out.push('"');
    };
    attribute("style", &place(e.rect));
    for (name, value) in fixed_attributes(&e.kind) {
        attribute(name, value);
    }
    if let Some(role) = role {
        attribute("aria-label", &e.name);
        if let Some(on) = e.on {
            attribute(state_attribute(role), if on { "true" } else { "false" });
        }
    }
    if e.disabled {
        attribute("aria-disabled", "true");
    }
    if e.live {
        attribute("aria-live", "polite");
    }
    out.push('>');
    if role.is_none() {
        escape(&e.name, false, out);
    }
    let _ = write!(out, "</{tag}>");
    true
}

/// `text` as HTML reads it back unchanged: whatever a student types (`<`, `&`, quotes) is
/// text, never markup. In an attribute value quotes are escaped too.
fn escape(text: &str, in_attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if in_attribute => out.push_str("&quot;"),
            // HTML turns a carriage return into a line feed, and NUL into U+FFFD.
            '\r' => out.push_str("&#13;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(kind: Kind, name: &str) -> Element {
        Element {
            id: 7,
            kind,
            name: name.into(),
            on: None,
            disabled: false,
            live: false,
            rect: [1.0, 2.5, 30.0, 12.0],
        }
    }

    /// The text between `<tag …>` and `</tag>`, and each attribute's value, as an HTML parser
    /// reads them back (the five references `write` uses).
    fn read_back(html: &str) -> (String, Vec<(String, String)>) {
        let unescape = |s: &str| {
            s.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#13;", "\r")
                .replace("&amp;", "&")
        };
        let open_end = html.find('>').expect("an opening tag");
        let (open, rest) = html.split_at(open_end);
        let text = &rest[1..rest.rfind("</").expect("a closing tag")];
        let mut attributes = Vec::new();
        for part in open.split("\" ").map(|p| p.trim_end_matches('"')) {
            let part =
                part.split_once(' ').map_or(
                    part,
                    |(tag, a)| {
                        if tag.starts_with('<') {
                            a
                        } else {
                            part
                        }
                    },
                );
            if let Some((k, v)) = part.split_once("=\"") {
                attributes.push((k.to_string(), unescape(v)));
            }
        }
        (unescape(text), attributes)
    }

    #[test]
    fn a_checked_checkbox_is_written_as_the_page_calls_write_it() {
        let mut e = element(Kind::Control { role: "checkbox" }, "Pre-softmax");
        e.on = Some(true);
        e.disabled = true;
        let mut html = String::new();
        assert!(write(&e, &mut html));
        assert_eq!(
            html,
            "<div id=\"a11y-7\" style=\"position:absolute;left:1px;top:2px;width:30px;\
             height:13px;margin:0;padding:0;border:0;overflow:hidden;font-size:12px;\" \
             role=\"checkbox\" tabindex=\"-1\" aria-label=\"Pre-softmax\" \
             aria-checked=\"true\" aria-disabled=\"true\"></div>"
        );
    }

    #[test]
    fn what_a_student_types_is_read_back_as_text_never_markup() {
        let typed = "<b>la</b> & \"zone\" <script>x</script> 'é' \r\n€";
        let mut html = String::new();
        let mut live = element(Kind::Static, typed);
        live.live = true;
        assert!(write(&live, &mut html));
        // Only the element's own tags remain as markup.
        assert_eq!(html.matches('<').count(), 2, "{html}");
        let (text, attributes) = read_back(&html);
        assert_eq!(text, typed);
        assert!(attributes.contains(&("aria-live".into(), "polite".into())));
        let mut html = String::new();
        assert!(write(
            &element(Kind::Control { role: "button" }, typed),
            &mut html
        ));
        assert_eq!(html.matches('<').count(), 2, "{html}");
        assert_eq!(html.matches('"').count() % 2, 0);
        let (text, attributes) = read_back(&html);
        assert_eq!(text, "");
        assert!(
            attributes.contains(&("aria-label".into(), typed.into())),
            "{attributes:?}"
        );
        assert!(attributes.contains(&("role".into(), "button".into())));
    }

    #[test]
    fn inputs_progress_bars_and_tables_are_left_to_the_page_calls() {
        for kind in [
            Kind::Slider {
                min: 0.0,
                max: 1.0,
                step: 0.1,
                value: 0.5,
            },
            Kind::Number { value: 1.0 },
            Kind::Text {
                multiline: false,
                value: "x".into(),
            },
            Kind::Progress { value: 0.5 },
            Kind::Table { rows: vec![] },
        ] {
            let mut html = String::new();
            assert!(!write(&element(kind, "n"), &mut html));
            assert!(html.is_empty());
        }
    }

    #[test]
    fn a_control_state_is_checked_or_pressed_by_its_role() {
        assert_eq!(state_attribute("checkbox"), "aria-checked");
        assert_eq!(state_attribute("radio"), "aria-checked");
        assert_eq!(state_attribute("button"), "aria-pressed");
    }
}
