//! The numbers of the worked-examples pages added for the notes' routing example, the original
//! Transformer's parameters and its training memory, computed by the labs at the pages' links.

use super::tests::{apply, page, page_text};
use crate::app::labs::cost::whole_model::{
    encoder_decoder, original_models, training_memory, SHARED_VOCAB,
};
use crate::app::labs::cost::CostLab;
use crate::app::labs::softmax::{maths, SoftmaxLab};
use crate::app::GlimpseApp;

/// The routing page: the preset's queries and keys give the notes' weights 0.1 / 0.3 / 0.6 and
/// 0.5 / 0.2 / 0.3, and every output is its routing with the weights' sum appended.
#[test]
fn the_routing_page_mixes_the_values_as_the_notes_say() {
    let mut app = GlimpseApp::default();
    let title = "Routing: 0.1, 0.3, 0.6";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    let [q, k, v] = lab.matrices().unwrap();
    let a = maths::attention_steps(&q, &k, &v).unwrap();
    let expected = [[0.1, 0.3, 0.6], [0.5, 0.2, 0.3], [0.2, 0.7, 0.1]];
    for (i, row) in expected.iter().enumerate() {
        for (j, &w) in row.iter().enumerate() {
            assert!((a.weights[[i, j]] - w).abs() < 1e-4, "A[{i}][{j}]");
            assert!(
                (a.context[[i, j]] - w).abs() < 1e-4,
                "output {i}, value {j}"
            );
        }
        assert!((a.context[[i, 3]] - 1.0).abs() < 1e-5, "the weights' sum");
    }
    // The page's link is the lab's own preset.
    use crate::app::labs::softmax::{ROUTING_K, ROUTING_Q, ROUTING_V};
    assert_eq!(
        (lab.q.as_str(), lab.k.as_str(), lab.v.as_str()),
        (ROUTING_Q, ROUTING_K, ROUTING_V)
    );
    let text = page_text(title);
    let shown: Vec<String> = a.context.row(0).iter().map(|x| format!("{x:.2}")).collect();
    assert!(
        text.contains(&format!("[{}]", shown.join(", "))),
        "{title}: {shown:?}"
    );
    for w in ["0.5, 0.2 and 0.3", "0.2, 0.7 and 0.1"] {
        assert!(text.contains(w), "{title}: {w}");
    }
}

/// The original-Transformer page: its totals and its parts are the tab's formulas'.
#[test]
fn the_original_transformer_page_states_the_formulas_counts() {
    let mut app = GlimpseApp::default();
    let title = "The original Transformer: 65 M and 213 M";
    apply(page(title), &mut app);
    let text = page_text(title);
    let m = |n: u128| format!("{:.1} M", n as f64 / 1e6);
    let [(_, base, _), (_, big, _)] = original_models();
    let b = encoder_decoder(&base, SHARED_VOCAB);
    let g = encoder_decoder(&big, SHARED_VOCAB);
    assert!(text.contains(&format!("{} and {}", m(b.total()), m(g.total()))));
    let parts = format!("{}, {} and {}", m(b.embeddings), m(b.encoder), m(b.decoder));
    assert!(text.contains(&parts), "{title}: {parts}");
    assert!(text.contains("37,000"));
}

/// The training-memory page: the link sets the notes' sizes, and the rows it quotes are the
/// tab's at those sizes.
#[test]
fn the_training_memory_page_quotes_the_tabs_rows() {
    let mut app = GlimpseApp::default();
    let title = "Training memory at L = 512";
    apply(page(title), &mut app);
    let s = app.lab::<CostLab>().sizes;
    assert_eq!((s.l, s.batch, s.d, s.heads, s.layers), (512, 32, 512, 8, 6));
    let m = training_memory(&s);
    let text = page_text(title);
    for (bytes, then) in [
        (m.attention, ", not 4.0"),
        (m.attention_all, ""),
        (m.activations, ", not 1.2"),
    ] {
        let said = format!("{:.2} GB{then}", bytes as f64 / 1e9);
        assert!(text.contains(&said), "{title}: {said}");
    }
}
