use super::*;
use crate::app::tests::open;
use egui_kittest::kittest::Queryable;

/// A link opens the lab training; it trains to the end a slice per frame (the count task:
/// 400 steps), reports its held-out accuracy, and the trained model counts the gallery.
#[test]
fn the_lab_trains_a_vit_and_shows_its_attention() {
    let mut h = open("view=vision&vtask=count&vtrain=1&vimg=3");
    for _ in 0..3000 {
        h.run_steps(1);
        if !h.state().lab::<VisionLab>().run.pending() {
            break;
        }
    }
    let lab = h.state().lab::<VisionLab>();
    let accuracy = lab.run.final_accuracy.expect("trained to the end");
    assert!(accuracy >= 0.9, "{accuracy}");
    h.run_steps(2);
    h.get_by_label_contains("right on 1000 held-out images");
    // Gallery image 4 has four squares, one per corner.
    h.get_by_label_contains("The model says: 4");
    h.get_by_label_contains("The answer: 4.");
    h.get_by_label("soft attention of class token [CLS] over the 16 patches");
    h.get_by_label("hard attention of class token [CLS] over the 16 patches");
    h.get_by_label_contains("class token [CLS] puts most weight on");
}

/// Clicking a patch makes it the query; drawing toggles pixels and the link keeps them.
#[test]
fn a_click_picks_the_query_and_drawing_round_trips() {
    let mut h = open("view=vision&vimg=0");
    h.run_steps(2);
    h.get_by_label_contains("the image, 16 × 16 pixels in 4 × 4 patches")
        .click();
    h.run_steps(2);
    assert_ne!(h.state().lab::<VisionLab>().query, CLASS_QUERY);
    h.get_by_label("draw").click();
    h.run_steps(2);
    let lab = h.state_mut().lab_mut::<VisionLab>();
    assert!(lab.drawing && lab.gallery.is_none());
    lab.cells = (0..PIXELS).map(|i| i % 3 == 0).collect();
    let cells = lab.cells.clone();
    let code = cells_code(&cells);
    assert_eq!(parse_cells(&code), Some(cells));
    assert_eq!(parse_cells("zz"), None);
}

/// The notes' numbers in the calculator, and a size P does not divide.
#[test]
fn the_calculator_shows_the_notes_numbers() {
    let mut h = open("view=vision");
    h.run_steps(2);
    h.get_by_label_contains("14 × 14 = 196 patches, 197 tokens");
    h.get_by_label_contains("16 · 16 · 3 = 768-number vector");
    h.get_by_label_contains("38,809 token pairs");
    // The lesson page An image as tokens states the same numbers.
    let page = crate::i18n::format_in("en", "lesson-page-an-image-as-tokens-text", &[]).unwrap();
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let g = crate::train::vision::PatchGrid::new(224, 224, 3, 16).unwrap();
    for said in [
        format!("{} × {} = {} patches", g.down(), g.across(), g.patches()),
        format!("{} tokens with the class token", g.tokens()),
        format!("16 · 16 · 3 = {} numbers", g.vector_len()),
        format!(
            "scores {} pairs",
            crate::util::grouped((g.tokens() * g.tokens()) as u128)
        ),
    ] {
        assert!(flat.contains(&said), "the page does not say {said:?}");
    }
    h.state_mut().lab_mut::<VisionLab>().sizes = [100, 60, 1, 7];
    h.run_steps(2);
    h.get_by_label_contains("14 × 8 = 112 patches");
    h.get_by_label_contains("2 row(s) and 4 column(s) of pixels (512 pixels)");
}

/// The CNN section from a link: the words under the map, the shapes, a click picking the query
/// pixel, and the link's weights round trip. The numbers are the lesson page's.
#[test]
fn the_cnn_section_shows_a_pixels_attention_over_the_whole_image() {
    use crate::train::vision::{CnnAttention, CnnWeights};
    let mut h = open("view=vision&vimg=0&vcw=ink&vcs=3&vcq=67");
    h.run_steps(2);
    let image = crate::train::vision::example(VisionTask::Larger, 0)
        .unwrap()
        .0;
    let trace = CnnAttention::new(CnnWeights::Ink, 3.0).forward(image.view());
    let beyond = format!("{:.2}", trace.weight_beyond_kernel(67));
    // The small square of gallery image 1: rows 9–10, columns 12–13.
    let small: f32 = [9 * 16 + 12, 9 * 16 + 13, 10 * 16 + 12, 10 * 16 + 13]
        .iter()
        .map(|&p| trace.weights[[67, p]])
        .sum();
    // A stack of 3×3 convolutions reaches one pixel further per layer: from row 4, column 3
    // to the small square's nearest pixel (row 9, column 12) takes max(5, 9) layers.
    let (query, nearest) = ([4usize, 3], [9usize, 12]);
    let layers = (nearest[0] - query[0]).max(nearest[1] - query[1]);
    let said = format!("The pixel at row 4, column 3 puts {beyond} of its weight outside");
    h.get_by_label_contains(&said);
    h.get_by_label_contains("S and A are 256 × 256 = 65,536 numbers");
    h.get_by_label_contains("hold 42 numbers");
    h.get_by_label("attention of the pixel at row 4, column 3 over the 256 pixels of the image");
    let page =
        crate::i18n::format_in("en", "lesson-page-attention-inside-a-cnn-text", &[]).unwrap();
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for claim in [
        format!("puts {beyond} of its weight outside"),
        format!("{small:.2} of it on the small square"),
        format!("{layers} stacked 3 × 3 convolutions"),
        "256 × 256 = 65,536 scores".to_string(),
        {
            let n: u128 = 224 * 224;
            let g = crate::util::grouped;
            format!("{} × {} = {} scores", g(n), g(n), g(n * n))
        },
        "hold 42 numbers".to_string(),
    ] {
        assert!(flat.contains(&claim), "the page does not say {claim:?}");
    }
    // The edges: from row 2, column 3 (the large square's top row), the small square's top
    // row (row 9) outweighs the large square's own bottom row (row 6) many times.
    let edges = CnnAttention::new(CnnWeights::Edges, 3.0).forward(image.view());
    let row_weight = |r: usize, cols: std::ops::Range<usize>| -> f32 {
        cols.map(|c| edges.weights[[2 * 16 + 3, r * 16 + c]]).sum()
    };
    let (small_top, own_bottom) = (row_weight(9, 12..14), row_weight(6, 1..6));
    assert!(small_top > 10.0 * own_bottom, "{small_top} {own_bottom}");
    h.get_by_label_contains("the query pixel row 4, column 3 is outlined")
        .scroll_to_me();
    h.run_steps(3);
    h.get_by_label_contains("the query pixel row 4, column 3 is outlined")
        .click();
    h.run_steps(2);
    let lab = h.state_mut().lab_mut::<VisionLab>();
    assert_ne!(
        lab.cnn_query, 67,
        "a click on the image picks the pixel under it"
    );
    for code in ["ink", "edges", "r5"] {
        let w = CnnWeights::from_code(code).unwrap();
        assert_eq!(w.code(), code);
    }
    assert_eq!(CnnWeights::from_code("r0"), None);
    assert_eq!(CnnWeights::from_code("r"), None);
}
