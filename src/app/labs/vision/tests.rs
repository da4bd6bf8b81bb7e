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
