//! The test probe: a JSON snapshot of what the app last drew, so browser and desktop tests
//! can compare the screenshot's pixels with the colours the app meant to draw.
//! Browser: `window.wasmBindings.glimpse_probe()`. Native: written to `$GLIMPSE_PROBE`.

use serde::Serialize;
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
