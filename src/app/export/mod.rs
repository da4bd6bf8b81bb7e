//! Figure export: any region of the screen as PNG, and the matrix a view shows as CSV or
//! JSON. Natively files are written into `$GLIMPSE_EXPORT_DIR` (or the current directory);
//! in the browser they are offered as downloads.
//!
//! A view adds [`export_menu`] beside what it draws; the app owns one [`Exporter`], calls
//! [`Exporter::frame`] every frame, and shows [`Exporter::last_message`].

use crate::t;
use egui::{ColorImage, Context, Rect, Ui};
use ndarray::ArrayView2;
use std::sync::{Arc, Mutex};
use web_time::{Duration, Instant};

/// How long a PNG export waits for the integration's screenshot before giving up (a
/// renderer-less harness never answers).
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(5);

/// One CSV field: quoted (with quotes doubled) when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The matrix as CSV (RFC 4180): a header row with an empty corner cell and the column
/// labels, then each row's label and values at full precision. Non-finite values (callers
/// pass masked cells as NaN) are written as empty cells.
pub fn matrix_csv(values: ArrayView2<f32>, row_labels: &[String], col_labels: &[String]) -> String {
    let mut out = String::new();
    let header: Vec<String> = std::iter::once(String::new())
        .chain((0..values.ncols()).map(|c| csv_field(label(col_labels, c).as_str())))
        .collect();
    out.push_str(&header.join(","));
    out.push_str("\r\n");
    for (r, row) in values.rows().into_iter().enumerate() {
        let mut fields = vec![csv_field(&label(row_labels, r))];
        fields.extend(row.iter().map(|v| {
            if v.is_finite() {
                format!("{v}")
            } else {
                String::new()
            }
        }));
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The matrix as JSON: `{"rows": [...], "cols": [...], "values": [[...]]}`, with
/// non-finite values (masked cells) as `null`.
pub fn matrix_json(
    values: ArrayView2<f32>,
    row_labels: &[String],
    col_labels: &[String],
) -> String {
    let rows: Vec<String> = (0..values.nrows()).map(|r| label(row_labels, r)).collect();
    let cols: Vec<String> = (0..values.ncols()).map(|c| label(col_labels, c)).collect();
    let vals: Vec<Vec<Option<f32>>> = values
        .rows()
        .into_iter()
        .map(|row| row.iter().map(|v| v.is_finite().then_some(*v)).collect())
        .collect();
    serde_json::json!({ "rows": rows, "cols": cols, "values": vals }).to_string()
}

/// A row or column label, or its index where the caller gave too few labels.
fn label(labels: &[String], i: usize) -> String {
    labels.get(i).cloned().unwrap_or_else(|| i.to_string())
}

/// Crop `image` to `[x, y, w, h]` pixels (clamped to the image) and encode it as RGBA PNG.
pub fn crop_png(image: &ColorImage, rect_px: [usize; 4]) -> Result<Vec<u8>, String> {
    let [x, y, w, h] = rect_px;
    let (iw, ih) = (image.size[0], image.size[1]);
    let x = x.min(iw);
    let y = y.min(ih);
    let w = w.min(iw - x);
    let h = h.min(ih - y);
    if w == 0 || h == 0 {
        return Err(t!("export-nothing"));
    }
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in y..y + h {
        for px in &image.pixels[row * iw + x..row * iw + x + w] {
            // ColorImage holds premultiplied colours; a screenshot is opaque anyway.
            rgba.extend_from_slice(&px.to_srgba_unmultiplied());
        }
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&rgba).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// `name` made safe as a file name: path separators and control characters become `_`.
fn file_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.trim().is_empty() {
        "glimpse-export".into()
    } else {
        cleaned
    }
}

/// Write `bytes` as `name` into `$GLIMPSE_EXPORT_DIR` (or the current directory); returns
/// the path written.
#[cfg(not(target_arch = "wasm32"))]
pub fn save(name: &str, bytes: &[u8]) -> Result<String, String> {
    let dir = std::env::var_os("GLIMPSE_EXPORT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let path = dir.join(file_name(name));
    std::fs::write(&path, bytes).map_err(|e| {
        t!(
            "export-cannot-write",
            path = path.display().to_string(),
            error = e.to_string()
        )
    })?;
    Ok(path.display().to_string())
}

/// Offer `bytes` to the browser as a download called `name`.
#[cfg(target_arch = "wasm32")]
pub fn save(name: &str, bytes: &[u8]) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    let name = file_name(name);
    let failed = |why: String| t!("export-download-failed", error = why);
    let err = |e: wasm_bindgen::JsValue| failed(format!("{e:?}"));
    let window = web_sys::window().ok_or_else(|| failed("no window".into()))?;
    let document = window
        .document()
        .ok_or_else(|| failed("no document".into()))?;
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::new();
    parts.push(&array.buffer());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime(&name));
    let blob =
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(err)?
        .dyn_into()
        .map_err(|_| failed("not an anchor".into()))?;
    anchor.set_href(&url);
    anchor.set_download(&name);
    let body = document.body().ok_or_else(|| failed("no body".into()))?;
    body.append_child(&anchor).map_err(err)?;
    anchor.click();
    let _ = body.remove_child(&anchor);
    web_sys::Url::revoke_object_url(&url).map_err(err)?;
    Ok(t!("export-downloaded", name = name))
}

#[cfg(target_arch = "wasm32")]
fn mime(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("png") => "image/png",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// A PNG export under way: asked for on one frame, screenshot requested on the next (so the
/// menu that asked has closed), cropped when the integration delivers the image.
struct Pending {
    rect: Rect,
    name: String,
    /// Filled by the screenshot callback.
    slot: Option<Arc<Mutex<Option<Arc<ColorImage>>>>>,
    since: Instant,
}

/// The app's exporter: PNG requests in flight and the outcome of the last export.
#[derive(Default)]
pub struct Exporter {
    pending: Option<Pending>,
    last: Option<Result<String, String>>,
}

impl Exporter {
    /// Export `rect` (in points) of the screen as `name` once the next frame is drawn.
    pub fn request_png(&mut self, ctx: &Context, rect: Rect, name: &str) {
        self.pending = Some(Pending {
            rect,
            name: name.to_string(),
            slot: None,
            since: Instant::now(),
        });
        ctx.request_repaint();
    }

    /// Save `bytes` as `name` now and remember the outcome.
    pub fn save_now(&mut self, name: &str, bytes: &[u8]) -> Result<String, String> {
        let result = save(name, bytes);
        self.last = Some(result.clone());
        result
    }

    /// Call once per frame: requests the screenshot for a pending PNG, and when it has
    /// arrived crops, encodes and saves it. Returns the outcome of an export finished now.
    pub fn frame(&mut self, ctx: &Context) -> Option<Result<String, String>> {
        let pending = self.pending.as_mut()?;
        let Some(slot) = &pending.slot else {
            let slot = Arc::new(Mutex::new(None));
            let (filled, repaint) = (slot.clone(), ctx.clone());
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = filled.lock() {
                    *s = Some(image);
                }
                repaint.request_repaint();
            });
            pending.slot = Some(slot);
            pending.since = Instant::now();
            return None;
        };
        let image = slot.lock().ok().and_then(|mut s| s.take());
        let result = match image {
            Some(image) => {
                let ppp = ctx.pixels_per_point();
                let r = pending.rect;
                let px = |v: f32| (v * ppp).round().max(0.0) as usize;
                let (x0, y0, x1, y1) = (px(r.min.x), px(r.min.y), px(r.max.x), px(r.max.y));
                let rect_px = [x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)];
                crop_png(&image, rect_px).and_then(|bytes| save(&pending.name, &bytes))
            }
            None if pending.since.elapsed() > SCREENSHOT_TIMEOUT => Err(t!("export-png-failed")),
            None => {
                ctx.request_repaint_after(Duration::from_millis(200));
                return None;
            }
        };
        self.pending = None;
        self.last = Some(result.clone());
        Some(result)
    }

    /// Report an export that could not be made.
    pub fn fail(&mut self, why: String) {
        self.last = Some(Err(why));
    }

    /// Whether a PNG export is waiting for its screenshot.
    pub fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// What the last export did: the path written (or "downloaded NAME"), or why it failed.
    pub fn last_message(&self) -> Option<&Result<String, String>> {
        self.last.as_ref()
    }
}

/// A small "export ▾" menu: PNG of `rect`, and with a matrix also CSV and JSON of it.
/// Files are named `name.png`, `name.csv`, `name.json`; the outcome lands in
/// [`Exporter::last_message`].
pub fn export_menu(
    ui: &mut Ui,
    exporter: &mut Exporter,
    rect: Rect,
    name: &str,
    matrix: Option<(ArrayView2<f32>, &[String], &[String])>,
) {
    let menu = ui.menu_button(t!("export-menu"), |ui| {
        let png = ui
            .add_enabled(!exporter.busy(), egui::Button::new("PNG"))
            .on_hover_text(t!("export-png-hover"));
        crate::app::probe::control("export:PNG", png.rect);
        if png.clicked() {
            exporter.request_png(ui.ctx(), rect, &format!("{name}.png"));
            ui.close();
        }
        if let Some((values, rows, cols)) = matrix {
            let csv = ui.button("CSV").on_hover_text(t!("export-csv-hover"));
            crate::app::probe::control("export:CSV", csv.rect);
            if csv.clicked() {
                let csv = matrix_csv(values, rows, cols);
                let _ = exporter.save_now(&format!("{name}.csv"), csv.as_bytes());
                ui.close();
            }
            let json = ui.button("JSON").on_hover_text(t!("export-json-hover"));
            crate::app::probe::control("export:JSON", json.rect);
            if json.clicked() {
                let json = matrix_json(values, rows, cols);
                let _ = exporter.save_now(&format!("{name}.json"), json.as_bytes());
                ui.close();
            }
        }
    });
    crate::app::probe::control("export", menu.response.rect);
}

/// A data file a view offers beside its picture: menu label, file name, and its bytes (made
/// only when chosen; `None` when there is nothing to save).
pub type DataFile<'a> = (&'a str, String, &'a dyn Fn() -> Option<Vec<u8>>);

/// "export view ▾": the whole view (`rect`) as `png_name`, then the view's data files, with
/// the last export's outcome beside the menu.
pub fn view_menu(
    ui: &mut Ui,
    exporter: &mut Exporter,
    rect: Rect,
    png_name: &str,
    data: &[DataFile<'_>],
) {
    let menu = ui.menu_button(t!("export-view-menu"), |ui| {
        let png = ui
            .add_enabled(!exporter.busy(), egui::Button::new("PNG"))
            .on_hover_text(t!("export-view-png-hover"));
        crate::app::probe::control("export:PNG", png.rect);
        if png.clicked() {
            exporter.request_png(ui.ctx(), rect, png_name);
            ui.close();
        }
        for (label, file, bytes) in data {
            let item = ui.button(*label);
            crate::app::probe::control(&format!("export:{label}"), item.rect);
            if item.clicked() {
                match bytes() {
                    Some(b) => {
                        let _ = exporter.save_now(file, &b);
                    }
                    None => exporter.fail(t!("export-nothing-yet", file = file)),
                }
                ui.close();
            }
        }
    });
    crate::app::probe::control("export", menu.response.rect);
    message_label(ui, exporter);
}

/// Show the last export's outcome as a small line (weak text, or the error colour).
pub fn message_label(ui: &mut Ui, exporter: &Exporter) {
    match exporter.last_message() {
        Some(Ok(done)) => {
            ui.weak(t!("export-exported", done = done));
        }
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        None => {}
    }
}

#[cfg(test)]
mod tests;
