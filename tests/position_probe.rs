//! The position probe (issue 38: does position survive depth?) on all-MiniLM-L6-v2 against an
//! independent computation: tests/reference/make_probe_fixture.py runs the same 96 chunks
//! through transformers and fits the probe in float64 numpy
//! (tests/fixtures/real/minilm/position_probe.json). Skipped without the real model unless
//! GLIMPSE_REQUIRE_REAL_MODELS is set.

use glimpse::analysis::position_probe::chunks::{probe_inputs, Source};
use glimpse::analysis::position_probe::probe_model;
use glimpse::model::import::open::open_path;
use serde_json::Value;
use std::path::Path;

/// The same chunks ([CLS] + 30 tokens + [SEP]); per layer, held-out exact and within-one
/// accuracy within 1 point (768 held-out tokens: 8 of them; transformers' hidden states and
/// Glimpse's differ by ~1e-5, which can move a near tie) and the positional share within 1e-3.
/// Position fades with depth: 82.9 % exact at the embeddings, 18.1 % after the sixth layer.
#[test]
fn minilm_position_probe_matches_the_reference() {
    let Some(dir) = glimpse::util::real_models::minilm() else {
        return;
    };
    let (model, _) = open_path(&dir, &mut |_| {}).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real/minilm/position_probe.json");
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let inputs = probe_inputs(&model, 1).unwrap();
    assert_eq!(inputs.source, Source::Text);
    let chunks = expected["chunks"].as_array().unwrap();
    assert_eq!(inputs.inputs.len(), chunks.len());
    for (input, want) in inputs.inputs.iter().zip(chunks) {
        let want: Vec<u32> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(input.source, want);
    }
    let (_, layers) = probe_model(&model, 1).unwrap();
    let want = expected["layers"].as_array().unwrap();
    assert_eq!(layers.len(), want.len());
    for (l, (got, want)) in layers.iter().zip(want).enumerate() {
        let field = |k: &str| want[k].as_f64().unwrap() as f32;
        assert!(
            (got.exact - field("exact")).abs() <= 0.01,
            "resid[{l}]: {got:?} vs {want}"
        );
        assert!(
            (got.within_one - field("within_one")).abs() <= 0.01,
            "resid[{l}]: {got:?} vs {want}"
        );
        assert!(
            (got.share - field("share")).abs() <= 1e-3,
            "resid[{l}]: {got:?} vs {want}"
        );
    }
    assert!(layers[0].exact > 0.8 && layers[6].exact < 0.2, "{layers:?}");
}

/// The lesson page *Does position survive depth?* states MiniLM's first and last layer, the
/// chance level and the shares, and SmolLM2's embeddings and best layer: each as computed here.
#[test]
fn the_lesson_page_states_the_probes_numbers() {
    let page = glimpse::i18n::format_in("en", "lesson-page-does-position-survive-depth-text", &[])
        .expect("the page's text");
    let percent = |x: f32| format!("{:.1} %", 100.0 * x);
    if let Some(dir) = glimpse::util::real_models::minilm() {
        let (model, _) = open_path(&dir, &mut |_| {}).unwrap();
        let (inputs, layers) = probe_model(&model, 1).unwrap();
        let (first, last) = (layers[0], layers[layers.len() - 1]);
        for said in [
            format!(
                "{} of the\n    positions exactly at the embeddings",
                percent(first.exact)
            ),
            format!("and {} after the sixth layer", percent(last.exact)),
            format!("against {} by", percent(1.0 / inputs.positions as f32)),
            format!("falls from {:.3} to {:.3}", first.share, last.share),
        ] {
            let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat(&page).contains(&flat(&said)),
                "the page does not say {said:?}"
            );
        }
        assert_eq!(layers.len(), 7);
    }
    if let Some(path) = glimpse::util::real_models::smollm2() {
        let (model, _) = open_path(&path, &mut |_| {}).unwrap();
        let (_, layers) = probe_model(&model, 1).unwrap();
        let best = layers.iter().map(|p| p.exact).fold(0.0, f32::max);
        // "near chance at the embeddings (2.3 %, chance 3.1 %)": chance is asserted above.
        let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&format!("({}, chance", percent(layers[0].exact))));
        assert!(
            page.contains(&format!("at most {} exact", percent(best))),
            "{layers:?}"
        );
        assert!(layers[0].exact < 0.04 && best > 0.1, "{layers:?}");
    }
}
