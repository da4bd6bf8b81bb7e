//! The test probe: a JSON snapshot of what the app last drew, so browser and desktop tests
//! can compare the screenshot's pixels with the colours the app meant to draw.
//! Browser: `window.wasmBindings.glimpse_probe()`. Native: written to `$GLIMPSE_PROBE`.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Debug, Clone, Default, Serialize)]
pub struct ProbeHeatmap {
    /// Cells' rectangle in points: [x0, y0, x1, y1].
    pub rect: [f32; 4],
    pub rows: usize,
    pub cols: usize,
    /// Row-major RGB of each cell as drawn.
    pub colors: Vec<Vec<[u8; 3]>>,
    pub values: Vec<Vec<f32>>,
    /// Drawn as one texture rather than cell by cell.
    pub textured: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Probe {
    pub frames: u64,
    pub pixels_per_point: f32,
    pub model: String,
    pub input: String,
    pub layer: usize,
    pub head: usize,
    pub heatmap: ProbeHeatmap,
}

static LATEST: Mutex<String> = Mutex::new(String::new());
/// Screen rectangles (points) of named controls, so a browser test can click the real UI.
static CONTROLS: Mutex<BTreeMap<String, [f32; 4]>> = Mutex::new(BTreeMap::new());
/// The training lab's status as JSON.
static TRAINING: Mutex<String> = Mutex::new(String::new());

/// Record where a named control was drawn this frame.
pub fn control(name: &str, rect: egui::Rect) {
    if let Ok(mut c) = CONTROLS.lock() {
        c.insert(
            name.to_string(),
            [rect.left(), rect.top(), rect.right(), rect.bottom()],
        );
    }
}

/// Named control rectangles as JSON: `{"tab:training": [x0, y0, x1, y1], …}`.
pub fn controls() -> String {
    CONTROLS
        .lock()
        .ok()
        .and_then(|c| serde_json::to_string(&*c).ok())
        .unwrap_or_default()
}

/// The compute path's status and last timing (`app::workbench::compute`).
static COMPUTE: Mutex<String> = Mutex::new(String::new());

fn store(slot: &Mutex<String>, value: &impl Serialize) {
    if let (Ok(text), Ok(mut t)) = (serde_json::to_string(value), slot.lock()) {
        *t = text;
    }
}

fn read(slot: &Mutex<String>) -> String {
    slot.lock().map(|s| s.clone()).unwrap_or_default()
}

/// The model store's models and their states (`ModelStore::summary`).
static MODELS: Mutex<String> = Mutex::new(String::new());

pub fn publish_models(summary: &impl Serialize) {
    store(&MODELS, summary);
}

/// The served checkpoints the model picker offers, with their download sizes.
static SERVED: Mutex<String> = Mutex::new(String::new());

pub fn publish_served(served: &impl Serialize) {
    store(&SERVED, served);
}

/// The served checkpoints offered in the picker: `[{"name": …, "bytes": …}, …]`.
pub fn served() -> String {
    read(&SERVED)
}

/// The models the app has asked for, each ready (with its shape), loading or failed.
pub fn models() -> String {
    read(&MODELS)
}

pub fn publish_training(status: &impl Serialize) {
    store(&TRAINING, status);
}

/// The training lab's last published status, or "" if it was never opened.
pub fn training() -> String {
    read(&TRAINING)
}

/// Passes the labs asked the model store for that are still running (a slice a frame).
static STORE_PASSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub fn publish_store_passes(n: usize) {
    STORE_PASSES.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// How many of the store's passes are under way.
pub fn store_passes() -> usize {
    STORE_PASSES.load(std::sync::atomic::Ordering::Relaxed)
}

/// The decoding lab's search as JSON (`DecodingLab::status`).
static DECODING: Mutex<String> = Mutex::new(String::new());

pub fn publish_decoding(status: &impl Serialize) {
    store(&DECODING, status);
}

/// The decoding lab's last published search, or "" if it was never drawn.
pub fn decoding() -> String {
    read(&DECODING)
}

/// The influence lab's numbers on screen as JSON (`InfluenceLab::publish`).
static INFLUENCE: Mutex<String> = Mutex::new(String::new());

pub fn publish_influence(status: &impl Serialize) {
    store(&INFLUENCE, status);
}

/// The influence lab's last published numbers, or "" if it was never drawn.
pub fn influence() -> String {
    read(&INFLUENCE)
}

pub fn publish_compute(status: &impl Serialize) {
    store(&COMPUTE, status);
}

/// The compute path's last published status, or "" before the first frame.
pub fn compute() -> String {
    read(&COMPUTE)
}

pub fn publish(probe: &Probe) {
    if let (Ok(text), Ok(mut latest)) = (serde_json::to_string(probe), LATEST.lock()) {
        *latest = text;
    }
}

/// The last published probe as JSON, or "" before the first heatmap.
pub fn latest() -> String {
    LATEST.lock().map(|s| s.clone()).unwrap_or_default()
}

/// Native: write the probe to `$GLIMPSE_PROBE` (via a temporary file and a rename, so a
/// reader never sees half a file). Returns whether a file was written.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_to_env_path() -> bool {
    let Ok(path) = std::env::var("GLIMPSE_PROBE") else {
        return false;
    };
    let text = latest();
    if text.is_empty() {
        return false;
    }
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .is_ok()
}

/// Native: beside `$GLIMPSE_PROBE`, keep `.compute.json` (the compute path's status and last
/// timing) and `.controls.json` (named controls' rectangles) up to date, so the desktop test can
/// click the GPU switch in a real window and see what it did. Writes only what changed.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_side_files() {
    static WRITTEN: Mutex<(String, String)> = Mutex::new((String::new(), String::new()));
    let Ok(path) = std::env::var("GLIMPSE_PROBE") else {
        return;
    };
    let (compute, controls) = (compute(), controls());
    let Ok(mut guard) = WRITTEN.lock() else {
        return;
    };
    let written = &mut *guard;
    for (text, last, suffix) in [
        (compute, &mut written.0, "compute.json"),
        (controls, &mut written.1, "controls.json"),
    ] {
        if text.is_empty() || text == *last {
            continue;
        }
        let (file, tmp) = (format!("{path}.{suffix}"), format!("{path}.{suffix}.tmp"));
        if std::fs::write(&tmp, &text)
            .and_then(|_| std::fs::rename(&tmp, &file))
            .is_ok()
        {
            *last = text;
        }
    }
}

/// Panels whose content ran past their edge this frame (clipped), and scrolling views whose
/// content is larger than the window (`NAME (scrolls)`): name → how far, [right, down] in points. Kept per context (the UI tests run
/// several apps at once); the browser reads the last frame's through `overflow_json`.
#[derive(Debug, Clone, Default)]
pub struct Overflow(pub BTreeMap<String, [f32; 2]>);

static OVERFLOW: Mutex<String> = Mutex::new(String::new());

fn overflow_id() -> egui::Id {
    egui::Id::unique("glimpse_overflow")
}

/// Call at the end of a panel's contents: notes the panel if what was drawn does not fit.
pub fn check_fits(name: &str, ui: &egui::Ui) {
    record_overflow(name, ui, true);
}

/// Call at the end of a scroll area's contents: notes it as `NAME (scrolls)` if it needs
/// scrolling (usable, so no second layout pass).
pub fn check_scrolls(name: &str, ui: &egui::Ui) {
    record_overflow(&format!("{name} (scrolls)"), ui, false);
}

/// The app's scrolling view (`widgets::fit::scrolling_view`), noted when it needs scrolling:
/// not clipped, but the tests list views that do.
pub fn scrolling_view<R>(ui: &mut egui::Ui, name: &str, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    crate::app::widgets::fit::scrolling_view(ui, name, add, |ui| check_scrolls(name, ui))
}

fn record_overflow(name: &str, ui: &egui::Ui, clipped: bool) {
    // Not `max_rect`: egui grows that to whatever was placed. The clip rect is what shows.
    let (used, room) = (ui.min_rect(), ui.clip_rect());
    let over = [used.right() - room.right(), used.bottom() - room.bottom()];
    if over.iter().any(|&d| d > 1.0) {
        if clipped {
            // A panel sized last frame may be too small for this one (the zoom changed, a row
            // wrapped): lay the frame out again at once rather than show it clipped until the next
            // input. egui bounds the passes per frame, so content that never fits cannot loop.
            ui.ctx().request_discard(format!("{name} overflowed"));
        }
        ui.ctx().data_mut(|d| {
            let o = d.get_temp_mut_or_default::<Overflow>(overflow_id());
            o.0.insert(name.to_string(), over.map(|d| d.max(0.0)));
        });
    }
}

/// Start a frame's overflow record, publishing the previous frame's.
pub fn start_frame(ctx: &egui::Context) {
    // Export menus (and their items, drawn only while open) come and go with the view: keep
    // only those drawn in the last frame, so a test never clicks where a menu used to be.
    if let Ok(mut c) = CONTROLS.lock() {
        c.retain(|name, _| !name.starts_with("export"));
    }
    let last = ctx.data_mut(|d| d.remove_temp::<Overflow>(overflow_id()));
    let last = last.unwrap_or_default();
    if let (Ok(text), Ok(mut o)) = (serde_json::to_string(&last.0), OVERFLOW.lock()) {
        *o = text;
    }
}

/// The panels that overflowed in the last complete frame of `ctx`.
pub fn overflow(ctx: &egui::Context) -> BTreeMap<String, [f32; 2]> {
    ctx.data(|d| d.get_temp::<Overflow>(overflow_id()))
        .unwrap_or_default()
        .0
}

/// The last complete frame's overflow as JSON (`{}` when everything fit).
pub fn overflow_json() -> String {
    OVERFLOW.lock().map(|s| s.clone()).unwrap_or_default()
}

/// CPU seconds of the last frames (eframe's `cpu_usage`: the app's UI code plus tessellation).
static FRAME_TIMES: Mutex<Vec<f32>> = Mutex::new(Vec::new());

/// Keep a frame's CPU time (the last 240).
pub fn frame_time(seconds: f32) {
    if let Ok(mut t) = FRAME_TIMES.lock() {
        if t.len() >= 240 {
            t.remove(0);
        }
        t.push(seconds);
    }
}

/// The kept frame times in milliseconds as JSON, oldest first; clears them, so a benchmark
/// reads only the frames it caused.
pub fn take_frame_times_json() -> String {
    let times: Vec<f32> = FRAME_TIMES
        .lock()
        .map(|mut t| std::mem::take(&mut *t))
        .unwrap_or_default();
    let ms: Vec<f32> = times.iter().map(|s| s * 1e3).collect();
    serde_json::to_string(&ms).unwrap_or_default()
}
