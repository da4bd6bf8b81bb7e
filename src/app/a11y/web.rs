//! The mirror in the page: eframe's web backend draws egui on a canvas and drops the
//! AccessKit tree, so this plugin takes the tree from each frame's output and keeps a hidden
//! layer of real elements over the canvas (`main#glimpse_a11y`: buttons, checkboxes, `<input>`s
//! for sliders and text, the text itself), each placed over its widget. A screen reader reads
//! and operates those; what it does to them (click, set a value, focus) goes back to egui as
//! AccessKit action requests at the next frame. The canvas keeps the keyboard: Tab moves egui's
//! focus, and the canvas points at the focused element with `aria-activedescendant`.

use super::markup;
use super::mirror::{flatten, Cell, Element, Kind, Mirror};
use egui::accesskit::{Action, ActionData, ActionRequest, NodeId, TreeId};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlElement, HtmlInputElement, HtmlTemplateElement, HtmlTextAreaElement};

/// egui's side: hands the page's actions to egui and the frame's tree to the page.
pub struct Plugin;

impl egui::Plugin for Plugin {
    fn debug_name(&self) -> &'static str {
        "glimpse accessibility mirror"
    }

    fn setup(&mut self, ctx: &egui::Context) {
        ctx.enable_accesskit();
        PAGE.with(|p| *p.borrow_mut() = Page::new(ctx.clone()));
    }

    fn input_hook(&mut self, _ctx: &egui::Context, input: &mut egui::RawInput) {
        let requests = ACTIONS.with(|a| std::mem::take(&mut *a.borrow_mut()));
        input.events.extend(
            requests
                .into_iter()
                .map(egui::Event::AccessKitActionRequest),
        );
    }

    fn output_hook(&mut self, ctx: &egui::Context, output: &mut egui::FullOutput) {
        let Some(update) = output.platform_output.accesskit_update.take() else {
            return;
        };
        let mirror = flatten(&update, ctx.zoom_factor());
        PAGE.with(|p| {
            if let Some(page) = p.borrow_mut().as_mut() {
                page.show(mirror);
            }
        });
    }
}

thread_local! {
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
    /// Actions from the page, waiting for the next frame.
    static ACTIONS: RefCell<Vec<ActionRequest>> = const { RefCell::new(Vec::new()) };
}

/// The layer over the canvas and what it shows.
struct Page {
    ctx: egui::Context,
    document: Document,
    root: HtmlElement,
    canvas: Option<HtmlElement>,
    shown: Mirror,
    /// The canvas's name as last written (it follows the app's language).
    canvas_name: String,
    elements: HashMap<u64, HtmlElement>,
    _listeners: Vec<Closure<dyn FnMut(web_sys::Event)>>,
}

/// Elements created in one frame at most; the rest follow in the next frames. Most are made
/// from one parse of their markup (`markup`), so a view's first frame makes all of the 270-head
/// grid's 741 at once.
const CREATED_PER_FRAME: usize = 1000;

/// Over the canvas, invisible (a filter, which leaves the elements in the accessibility tree)
/// and letting the pointer through. Its own colours are white on black, so that tools that
/// check contrast from the CSS (axe-core) read the text as legible.
const LAYER_STYLE: &str = "position:absolute;left:0;top:0;width:100%;height:100%;\
    overflow:hidden;pointer-events:none;filter:opacity(0%);z-index:1;color:#fff;\
    background:#000;";

impl Page {
    fn new(ctx: egui::Context) -> Option<Self> {
        let document = web_sys::window()?.document()?;
        let root: HtmlElement = document.create_element("main").ok()?.dyn_into().ok()?;
        root.set_id("glimpse_a11y");
        root.set_attribute("aria-label", "Glimpse").ok()?;
        root.set_attribute("style", LAYER_STYLE).ok()?;
        document.body()?.append_child(&root).ok()?;
        let canvas = document
            .get_element_by_id("glimpse_canvas")
            .and_then(|c| c.dyn_into::<HtmlElement>().ok());
        if let Some(c) = &canvas {
            let _ = c.set_attribute("role", "application");
        }
        let mut listeners = Vec::new();
        let page_ctx = ctx.clone();
        for (event, what) in [
            ("click", On::Click),
            ("input", On::Input),
            ("focusin", On::Focus),
        ] {
            let ctx = ctx.clone();
            let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                if let Some(request) = request(&e, what) {
                    ACTIONS.with(|a| a.borrow_mut().push(request));
                    ctx.request_repaint();
                }
            });
            root.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref())
                .ok()?;
            listeners.push(listener);
        }
        Some(Self {
            ctx: page_ctx,
            document,
            root,
            canvas,
            shown: Mirror::default(),
            canvas_name: String::new(),
            elements: HashMap::new(),
            _listeners: listeners,
        })
    }

    /// Brings the layer to `mirror`, touching only what changed.
    fn show(&mut self, mirror: Mirror) {
        if mirror == self.shown {
            return;
        }
        let before: HashMap<u64, &Element> =
            self.shown.elements.iter().map(|e| (e.id, e)).collect();
        let same_order = self.shown.elements.len() == mirror.elements.len()
            && self
                .shown
                .elements
                .iter()
                .zip(&mirror.elements)
                .all(|(a, b)| a.id == b.id && markup::tag(&a.kind) == markup::tag(&b.kind));
        let old_of = |e: &Element| {
            before
                .get(&e.id)
                .filter(|o| markup::tag(&o.kind) == markup::tag(&e.kind))
        };
        let new: Vec<&Element> = mirror
            .elements
            .iter()
            .filter(|e| old_of(e).is_none() || !self.elements.contains_key(&e.id))
            .take(CREATED_PER_FRAME)
            .collect();
        let chosen: HashSet<u64> = new.iter().map(|e| e.id).collect();
        let mut made = self.create_all(&new);
        let mut kept = HashMap::new();
        let mut deferred = false;
        for e in &mirror.elements {
            let old = old_of(e);
            let node = match (old, self.elements.remove(&e.id)) {
                (Some(_), Some(node)) => node,
                (_, stale) => {
                    if let Some(stale) = stale {
                        stale.remove();
                    }
                    // Made whole above; the rest wait for the next frame.
                    match made.remove(&e.id) {
                        Some(node) => {
                            let _ = self.root.append_child(&node);
                            kept.insert(e.id, node);
                        }
                        None => deferred |= !chosen.contains(&e.id),
                    }
                    continue;
                }
            };
            if old.is_none_or(|o| *o != e) {
                self.update(&node, e, old.copied());
            }
            if !same_order {
                let _ = self.root.append_child(&node);
            }
            kept.insert(e.id, node);
        }
        for (_, gone) in self.elements.drain() {
            gone.remove();
        }
        self.elements = kept;
        self.name_text_agent(&mirror);
        self.name_canvas();
        if let Some(canvas) = &self.canvas {
            let _ = match mirror.focus {
                Some(id) => canvas.set_attribute("aria-activedescendant", &format!("a11y-{id}")),
                None => canvas.remove_attribute("aria-activedescendant"),
            };
        }
        // What was not created yet is not shown: the next frame creates it, and puts every
        // element back in reading order.
        if deferred {
            self.shown = Mirror {
                elements: mirror
                    .elements
                    .into_iter()
                    .filter(|e| self.elements.contains_key(&e.id))
                    .collect(),
                focus: mirror.focus,
            };
            self.ctx.request_repaint();
        } else {
            self.shown = mirror;
        }
    }

    /// The canvas's name, in the app's language (written again when that changes).
    fn name_canvas(&mut self) {
        let name = crate::t!("a11y-canvas");
        if let Some(canvas) = self.canvas.as_ref().filter(|_| name != self.canvas_name) {
            let _ = canvas.set_attribute("aria-label", &name);
            self.canvas_name = name;
        }
    }

    /// eframe types into a hidden `<input>` of its own while a text field has egui's focus: it
    /// takes the focused field's name, so a screen reader says what is being typed into.
    fn name_text_agent(&self, mirror: &Mirror) {
        let Ok(Some(agent)) = self
            .document
            .query_selector("input[autocapitalize=off]:not([id^='a11y-'])")
        else {
            return;
        };
        let field = mirror
            .focus
            .and_then(|f| mirror.elements.iter().find(|e| e.id == f))
            .filter(|e| matches!(e.kind, Kind::Text { .. }));
        let name = field.map_or_else(|| crate::t!("a11y-text-entry"), |e| e.name.clone());
        let _ = agent.set_attribute("aria-label", &name);
    }

    /// The `new` elements, each with everything it shows written: texts and controls from one
    /// parse of their markup, inputs and tables one by one.
    fn create_all(&self, new: &[&Element]) -> HashMap<u64, HtmlElement> {
        let mut made = HashMap::new();
        let mut html = String::new();
        let mut in_markup = Vec::new();
        for e in new {
            if markup::write(e, &mut html) {
                in_markup.push(e.id);
            } else if let Some(node) = self.create(e) {
                self.update(&node, e, None);
                made.insert(e.id, node);
            }
        }
        if in_markup.is_empty() {
            return made;
        }
        // A <template> parses without running or fetching anything.
        let Some(template) = self
            .document
            .create_element("template")
            .ok()
            .and_then(|t| t.dyn_into::<HtmlTemplateElement>().ok())
        else {
            return made;
        };
        template.set_inner_html(&html);
        let mut next = template.content().first_element_child();
        for id in in_markup {
            let Some(node) = next else {
                break;
            };
            next = node.next_element_sibling();
            made.insert(id, node.unchecked_into());
        }
        made
    }

    fn create(&self, e: &Element) -> Option<HtmlElement> {
        let node: HtmlElement = self
            .document
            .create_element(markup::tag(&e.kind))
            .ok()?
            .dyn_into()
            .ok()?;
        node.set_id(&format!("a11y-{}", e.id));
        for (attribute, value) in markup::fixed_attributes(&e.kind) {
            let _ = node.set_attribute(attribute, value);
        }
        Some(node)
    }

    /// Writes `e`'s name, state, value and place into its element: all of them for a new
    /// element, only what differs from `old` otherwise (a view's first frames move hundreds of
    /// elements, and each attribute written is a call into the page).
    fn update(&self, node: &HtmlElement, e: &Element, old: Option<&Element>) {
        let set = |k: &str, v: &str| {
            let _ = node.set_attribute(k, v);
        };
        let flag = |k: &str, on: bool| {
            let _ = if on {
                node.set_attribute(k, "true")
            } else {
                node.remove_attribute(k)
            };
        };
        if old.is_none_or(|o| markup::pixels(o.rect) != markup::pixels(e.rect)) {
            set("style", &markup::place(e.rect));
        }
        // A new element has no attribute to take away: one call fewer for each of hundreds.
        if old.map_or(e.disabled, |o| o.disabled != e.disabled) {
            flag("aria-disabled", e.disabled);
        }
        if e.live && old.is_none_or(|o| !o.live) {
            set("aria-live", "polite");
        }
        if old.is_some_and(|o| o.kind == e.kind && o.name == e.name && o.on == e.on) {
            return;
        }
        let editing = self
            .document
            .active_element()
            .is_some_and(|a| a.is_same_node(Some(node)));
        match &e.kind {
            Kind::Static => node.set_text_content(Some(&e.name)),
            Kind::Control { role } => {
                set("aria-label", &e.name);
                if let Some(on) = e.on {
                    set(markup::state_attribute(role), &on.to_string());
                }
            }
            Kind::Slider {
                min,
                max,
                step,
                value,
            } => {
                set("aria-label", &e.name);
                set("min", &min.to_string());
                set("max", &max.to_string());
                set(
                    "step",
                    &if *step > 0.0 {
                        step.to_string()
                    } else {
                        "any".into()
                    },
                );
                if let (Some(input), false) = (node.dyn_ref::<HtmlInputElement>(), editing) {
                    input.set_value(&value.to_string());
                }
            }
            Kind::Number { value } => {
                set("aria-label", &e.name);
                if let (Some(input), false) = (node.dyn_ref::<HtmlInputElement>(), editing) {
                    input.set_value(&value.to_string());
                }
            }
            Kind::Text { value, .. } => {
                set("aria-label", &e.name);
                if !editing {
                    if let Some(input) = node.dyn_ref::<HtmlInputElement>() {
                        input.set_value(value);
                    } else if let Some(area) = node.dyn_ref::<HtmlTextAreaElement>() {
                        area.set_value(value);
                    }
                }
            }
            Kind::Progress { value } => {
                set("aria-label", &e.name);
                set("value", &value.to_string());
            }
            Kind::Table { rows } => {
                let before = old.and_then(|o| match &o.kind {
                    Kind::Table { rows } => Some((o.name.as_str(), rows.as_slice())),
                    _ => None,
                });
                let refilled = before
                    .filter(|(_, old_rows)| same_shape(old_rows, rows))
                    .and_then(|(old_name, old_rows)| {
                        refill_table(node, (old_name, old_rows), (&e.name, rows))
                    });
                if refilled.is_none() {
                    self.fill_table(node, &e.name, rows);
                }
            }
        }
    }

    /// A table's caption and rows; the first row's headers name columns, the others' rows.
    fn fill_table(&self, table: &HtmlElement, caption: &str, rows: &[Vec<Cell>]) {
        table.set_text_content(None);
        let add = |parent: &web_sys::Element, tag: &str, text: Option<&str>| {
            let child = self.document.create_element(tag).ok()?;
            child.set_text_content(text);
            parent.append_child(&child).ok()?;
            Some(child)
        };
        add(table, "caption", Some(caption));
        let Some(body) = add(table, "tbody", None) else {
            return;
        };
        for (i, row) in rows.iter().enumerate() {
            let Some(tr) = add(&body, "tr", None) else {
                return;
            };
            for cell in row {
                let tag = if cell.header { "th" } else { "td" };
                if let Some(c) = add(&tr, tag, Some(&cell.text)) {
                    if cell.header {
                        let _ = c.set_attribute("scope", if i == 0 { "col" } else { "row" });
                    }
                }
            }
        }
    }
}

/// Whether two tables have the same rows of the same cells (headers where headers were).
fn same_shape(a: &[Vec<Cell>], b: &[Vec<Cell>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(ra, rb)| {
            ra.len() == rb.len() && ra.iter().zip(rb).all(|(x, y)| x.header == y.header)
        })
}

/// Writes only the cells whose text changed into a table of the same shape, walking the
/// elements [`Page::fill_table`] made: while a model trains its tables change every frame,
/// and rebuilding them made hundreds of elements a frame. `None` when the elements are not
/// where they were made (the caller then builds the table anew).
fn refill_table(
    table: &HtmlElement,
    (old_caption, old_rows): (&str, &[Vec<Cell>]),
    (caption, rows): (&str, &[Vec<Cell>]),
) -> Option<()> {
    let caption_element = table.first_element_child()?;
    if caption != old_caption {
        caption_element.set_text_content(Some(caption));
    }
    let mut tr = caption_element
        .next_element_sibling()?
        .first_element_child();
    for (row, old_row) in rows.iter().zip(old_rows) {
        let this_row = tr?;
        let mut cell = this_row.first_element_child();
        for (new, old) in row.iter().zip(old_row) {
            let this_cell = cell?;
            if new.text != old.text {
                this_cell.set_text_content(Some(&new.text));
            }
            cell = this_cell.next_element_sibling();
        }
        tr = this_row.next_element_sibling();
    }
    Some(())
}

#[derive(Clone, Copy)]
enum On {
    Click,
    Input,
    Focus,
}

/// The action a page event asks of egui, for the mirror element it happened on.
fn request(e: &web_sys::Event, on: On) -> Option<ActionRequest> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let node = target.closest("[id^='a11y-']").ok()??;
    let id: u64 = node.id().strip_prefix("a11y-")?.parse().ok()?;
    let (action, data) = match on {
        On::Click => (Action::Click, None),
        On::Focus => (Action::Focus, None),
        On::Input => {
            if let Some(area) = node.dyn_ref::<HtmlTextAreaElement>() {
                (
                    Action::SetValue,
                    Some(ActionData::Value(area.value().into())),
                )
            } else {
                let input = node.dyn_ref::<HtmlInputElement>()?;
                let data = match input.type_().as_str() {
                    "range" | "number" => ActionData::NumericValue(input.value().parse().ok()?),
                    _ => ActionData::Value(input.value().into()),
                };
                (Action::SetValue, Some(data))
            }
        }
    };
    Some(ActionRequest {
        action,
        target_tree: TreeId::ROOT,
        target_node: NodeId(id),
        data,
    })
}
