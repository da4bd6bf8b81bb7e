//! Export: CSV and JSON of a matrix, PNG crops, saving into `$GLIMPSE_EXPORT_DIR`, and the
//! app's export menu driven with kittest.

use super::*;
use egui::Color32;
use ndarray::array;
use std::path::PathBuf;

/// `GLIMPSE_EXPORT_DIR` is process-wide and tests run in parallel: hold this while it is set.
static ENV: Mutex<()> = Mutex::new(());

/// A fresh, empty directory of its own for one test.
fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "glimpse-export-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn csv_quotes_labels_and_leaves_masked_cells_empty() {
    let values = array![[0.25f32, f32::NAN], [1.0 / 3.0, f32::NEG_INFINITY]];
    let rows = strings(&["a,b", "say \"hi\""]);
    let cols = strings(&["x", "line\nbreak"]);
    let csv = matrix_csv(values.view(), &rows, &cols);
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(lines[0], ",x,\"line\nbreak\"");
    assert_eq!(lines[1], "\"a,b\",0.25,");
    // Full precision: Rust's shortest round-trip form of the f32.
    assert_eq!(lines[2], format!("\"say \"\"hi\"\"\",{},", 1.0f32 / 3.0));
    assert_eq!(lines[2], "\"say \"\"hi\"\"\",0.33333334,");
    assert_eq!(lines[3], "", "ends with a line break");
    assert_eq!(lines.len(), 4);
}

#[test]
fn csv_numbers_unlabelled_rows_and_columns() {
    let values = array![[1.0f32, 2.0, 3.0]];
    let csv = matrix_csv(values.view(), &[], &strings(&["k0"]));
    assert_eq!(csv, ",k0,1,2\r\n0,1,2,3\r\n");
}

#[test]
fn json_has_rows_cols_values_and_null_for_non_finite() {
    let values = array![[0.5f32, f32::NAN, 2.0], [f32::INFINITY, -1.5, 0.0]];
    let json = matrix_json(
        values.view(),
        &strings(&["q0", "q\"1"]),
        &strings(&["k0", "k1", "k2"]),
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["rows"], serde_json::json!(["q0", "q\"1"]));
    assert_eq!(v["cols"], serde_json::json!(["k0", "k1", "k2"]));
    assert_eq!(
        v["values"],
        serde_json::json!([[0.5, null, 2.0], [null, -1.5, 0.0]])
    );
    assert_eq!(v.as_object().unwrap().len(), 3);
}

/// A 5 × 4 image whose pixel (x, y) is rgb(10x, 20y, 7).
fn synthetic() -> ColorImage {
    let (w, h) = (5, 4);
    let pixels = (0..h)
        .flat_map(|y| (0..w).map(move |x| Color32::from_rgb(10 * x as u8, 20 * y as u8, 7)))
        .collect();
    ColorImage::new([w, h], pixels)
}

fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn crop_png_round_trip() {
    let bytes = crop_png(&synthetic(), [1, 2, 3, 2]).unwrap();
    let (w, h, rgba) = decode(&bytes);
    assert_eq!((w, h), (3, 2));
    // Top-left of the crop is image pixel (1, 2); bottom-right is (3, 3).
    assert_eq!(&rgba[0..4], &[10, 40, 7, 255]);
    let last = rgba.len() - 4;
    assert_eq!(&rgba[last..], &[30, 60, 7, 255]);
}

#[test]
fn crop_png_clamps_to_the_image_and_rejects_empty_regions() {
    let (w, h, _) = decode(&crop_png(&synthetic(), [3, 1, 100, 100]).unwrap());
    assert_eq!((w, h), (2, 3));
    assert!(crop_png(&synthetic(), [5, 0, 3, 3]).is_err());
    assert!(crop_png(&synthetic(), [0, 0, 0, 3]).is_err());
}

#[test]
fn file_names_lose_path_separators() {
    assert_eq!(file_name("a/b\\c:d.csv"), "a_b_c_d.csv");
    assert_eq!(file_name("  "), "glimpse-export");
}

#[test]
fn save_writes_into_the_export_dir() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("save");
    std::env::set_var("GLIMPSE_EXPORT_DIR", &dir);
    let written = save("m.csv", b"hello");
    std::env::remove_var("GLIMPSE_EXPORT_DIR");
    let written = written.unwrap();
    assert_eq!(PathBuf::from(&written), dir.join("m.csv"));
    assert_eq!(std::fs::read(dir.join("m.csv")).unwrap(), b"hello");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Exporter's PNG path without a renderer: we play the integration and answer its
/// screenshot request with a synthetic image.
#[test]
fn exporter_crops_the_screenshot_it_asked_for() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("png");
    std::env::set_var("GLIMPSE_EXPORT_DIR", &dir);
    let ctx = Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(5.0, 4.0))),
        ..Default::default()
    };
    let mut ex = Exporter::default();
    // Frame 1: asked for (say from a menu); the screenshot is requested on the next frame.
    // No renderer takes the font textures: they are dropped on purpose.
    let mut out = ctx.run_ui(input(), |ui| {
        ex.request_png(
            ui.ctx(),
            Rect::from_min_max(egui::pos2(1.0, 1.0), egui::pos2(3.0, 4.0)),
            "fig.png",
        );
    });
    out.textures_delta.clear();
    assert!(ex.busy());
    let mut done = None;
    for _ in 0..3 {
        let mut out = ctx.run_ui(input(), |ui| {
            if let Some(r) = ex.frame(ui.ctx()) {
                done = Some(r);
            }
        });
        out.textures_delta.clear();
        for vp in out.viewport_output.values() {
            for cmd in &vp.commands {
                if let egui::ViewportCommand::Screenshot(cb) = cmd {
                    cb.clone().complete(Arc::new(synthetic()));
                }
            }
        }
    }
    std::env::remove_var("GLIMPSE_EXPORT_DIR");
    let path = done.expect("export finished").unwrap();
    assert_eq!(PathBuf::from(&path), dir.join("fig.png"));
    assert!(!ex.busy());
    assert_eq!(ex.last_message(), Some(&Ok(path.clone())));
    let (w, h, rgba) = decode(&std::fs::read(&path).unwrap());
    let ppp = ctx.pixels_per_point();
    assert_eq!(ppp, 1.0);
    assert_eq!((w, h), (2, 3));
    assert_eq!(&rgba[0..4], &[10, 20, 7, 255]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real app: the One head view's export menu writes the weights shown as CSV.
#[test]
fn app_head_view_exports_csv_and_json() {
    use egui_kittest::kittest::Queryable;
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("app");
    std::env::set_var("GLIMPSE_EXPORT_DIR", &dir);
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(crate::app::GlimpseApp::style)
        .build_ui_state(
            |ui, app: &mut crate::app::GlimpseApp| app.show(ui),
            crate::app::GlimpseApp::default(),
        );
    h.run_steps(3);
    h.get_by_label_contains("export").click();
    h.run_steps(2);
    h.get_by_label("CSV").click();
    h.run_steps(2);
    h.get_by_label("export ▾").click();
    h.run_steps(2);
    h.get_by_label("JSON").click();
    h.run_steps(2);
    std::env::remove_var("GLIMPSE_EXPORT_DIR");

    let app = h.state();
    let written = match app.exporter.last_message() {
        Some(Ok(p)) => PathBuf::from(p),
        other => panic!("no export: {other:?}"),
    };
    h.get_by_label_contains("exported: ");
    let trace = app.bench.trace().expect("a trace of the model");
    let sel = app.bench.sel;
    let attn = trace.attention(sel.kind, sel.layer).unwrap();
    let weights = attn.weights.index_axis(ndarray::Axis(0), sel.head);

    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let csv_path = files
        .iter()
        .find(|p| p.extension().unwrap() == "csv")
        .unwrap();
    assert!(csv_path.to_string_lossy().ends_with("-weights.csv"));
    let csv = std::fs::read_to_string(csv_path).unwrap();
    let first = csv.lines().next().unwrap();
    let expected: Vec<String> = std::iter::once(String::new())
        .chain(attn.key_tokens.iter().map(|t| csv_field(t)))
        .collect();
    assert_eq!(first, expected.join(","));
    assert_eq!(csv.lines().count(), weights.nrows() + 1);

    assert_eq!(written.extension().unwrap(), "json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), weights.nrows());
    let v00 = json["values"][0][0].as_f64().unwrap() as f32;
    assert_eq!(v00, weights[[0, 0]]);
    let _ = std::fs::remove_dir_all(&dir);
}
