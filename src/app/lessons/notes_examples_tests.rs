//! The numbers of the worked-examples pages added for the notes' routing example, the original
//! Transformer's parameters and its training memory, computed by the labs at the pages' links.

use super::tests::{apply, page, page_text, says};
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
    // The notes' formulas by hand, at the L and B the page states and the base model's N, h
    // and D: the bytes the page gives for them.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let [(_, base, _), _] = original_models();
    let (b, l) = (32u128, 512u128);
    let (n, h, d) = (base.layers as u128, base.heads as u128, base.d as u128);
    let gb = |bytes: u128| format!("{:.2} GB", bytes as f64 / 1e9);
    let attention = b * n * h * l * l * 4;
    let activations = b * n * l * d * 4;
    assert_eq!(
        (attention, 3 * attention, activations),
        (m.attention, m.attention_all, m.activations)
    );
    for said in [
        format!("base model at L = {l}, with a batch of {b}:"),
        format!("B·N·h·L²·4 bytes is {}", gb(attention)),
        format!("(3N of them) gives {}", gb(3 * attention)),
        format!("B·N·L·D·4 bytes is {}", gb(activations)),
    ] {
        assert!(flat.contains(&said), "{title}: {said}");
    }
    // The notes' own rows, as the page quotes them; parameters, gradients and Adam's moments
    // agree with the tab's to the notes' precision.
    use crate::app::labs::cost::whole_model::{NOTES_TABLE_GB, NOTES_TOTAL_GB};
    let [attn, act, params, grads, adam] = NOTES_TABLE_GB;
    let notes = format!(
        "attention matrices {attn:.1} GB, activations {act:.1} GB, parameters {params:.2} GB, \
         gradients {grads:.2} GB and Adam's moments {adam:.1} GB, about {NOTES_TOTAL_GB:.1} GB"
    );
    assert!(flat.contains(&notes), "{title}: {notes}");
    for (bytes, notes_gb) in [
        (m.parameters, params),
        (m.gradients, grads),
        (m.optimizer, adam),
    ] {
        assert_eq!(
            format!("{:.2}", bytes as f64 / 1e9),
            format!("{notes_gb:.2}")
        );
    }
}

/// The unit-circle page: the link draws band 0 at position 2 with the notes' angles, and the
/// sines, cosines and confused positions it quotes are the panel's.
#[test]
fn the_unit_circle_page_quotes_the_panels_positions() {
    use crate::app::labs::positions::sinusoidal::{band_point, confusions, CIRCLE_TOLERANCE};
    use crate::app::labs::positions::{PositionsLab, Section};
    let mut app = GlimpseApp::default();
    let title = "A band on the unit circle";
    apply(page(title), &mut app);
    let lab = app.lab::<PositionsLab>();
    let p = &lab.sinusoidal;
    assert_eq!(lab.section, Section::Sinusoidal);
    assert_eq!((p.band, p.circle_t, p.notes_angles), (0, 2, true));
    let text = page_text(title);
    let (s, _) = band_point(2, 0, p.d, p.base);
    assert!(
        text.contains(&format!("sin 2 = {s:.4}")),
        "{title}: sin 2 = {s:.4}"
    );
    let got = confusions(2, 0, p.d, p.base, p.n, CIRCLE_TOLERANCE);
    assert_eq!(got.by_sine, vec![20, 27, 46]);
    assert_eq!(got.by_point, vec![46]);
    assert!(text.contains(&format!("Within {CIRCLE_TOLERANCE}")));
    assert!(text.contains("positions 20, 27 and 46") && text.contains("only 46"));
    let [a, b] = [std::f64::consts::PI / 6.0, 5.0 * std::f64::consts::PI / 6.0];
    assert!(text.contains(&format!("sin(5π/6) are both {:.4}", b.sin())));
    // 46 is nearly, not exactly, 2's point: their cosines as the page gives them.
    let (_, c46) = band_point(46, 0, p.d, p.base);
    let (_, c2) = band_point(2, 0, p.d, p.base);
    let said = format!("cos 46 = −{:.3} against cos 2 = −{:.3}", -c46, -c2);
    assert!(text.contains(&said), "{title}: {said}");
    assert!(text.contains(&format!("+{:.4} and −{:.4}", a.cos(), -b.cos())));
    // The other bands tell 2 and 46 apart: band 1's points are far from each other.
    let (s1, c1) = band_point(2, 1, p.d, p.base);
    let (s2, c2) = band_point(46, 1, p.d, p.base);
    assert!((s1 - s2).hypot(c1 - c2) > 0.5);
}

/// The stacked-attention page: the link opens seed 1 at c = 2, and what it says of the three
/// ways of making the weights is what the lab computes there.
#[test]
fn the_stacked_attention_page_states_what_the_lab_computes() {
    use crate::app::labs::softmax::stacking::{Stack, Weights};
    use crate::app::labs::softmax::Part;
    let mut app = GlimpseApp::default();
    let title = "Stacked attention without a feed-forward layer";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    assert_eq!(
        (lab.part, lab.stack_seed, lab.stack_scale),
        (Part::Stacking, 1, 2.0)
    );
    let stack = Stack::new(lab.stack_seed);
    let c = lab.stack_scale as f64;
    let collapse = stack.collapse();
    assert!(collapse.difference < 1e-12 && (collapse.row_sums.0 - 1.0).abs() < 1e-12);
    let held = stack.linearity(Weights::Held, c);
    assert!(
        held.scaling < 1e-12 && (held.ratio.0 - 2.0).abs() < 1e-12,
        "doubles"
    );
    let scores = stack.linearity(Weights::Scores, c);
    assert!((scores.ratio.0 - 512.0).abs() < 1e-6 && (scores.ratio.1 - 512.0).abs() < 1e-6);
    let soft = stack.linearity(Weights::Softmax, c);
    assert!(
        soft.ratio.1 - soft.ratio.0 > 0.1,
        "different factors: {:?}",
        soft.ratio
    );
    let text = page_text(title);
    assert!(text.contains("c = 2") && text.contains("2⁹ = 512"));
    assert!(text.contains("the output doubles"));
}

/// The exposure-bias page: its percentages and counts are the masking lab's measurement (the
/// repeat model, 300 held-out sequences, seed 1), computed here the same way.
#[test]
fn the_exposure_bias_page_quotes_the_measurement() {
    use crate::train::exposure::ExposureBias;
    use crate::train::tasks::TaskKind;
    let title = "Exposure bias, measured";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let model = crate::model::builtin::load("repeat").unwrap();
    let mut m = ExposureBias::new(TaskKind::Repeat, 1);
    for _ in 0..300 {
        m.next_example(&model).unwrap();
    }
    let (forced, free) = m.overall();
    let text = page_text(title);
    for (what, rate) in [
        ("teacher-forced", forced),
        ("free-running", free),
        ("after an error", m.after_error_rate().unwrap()),
    ] {
        let shown = format!("{:.1} %", 100.0 * rate);
        assert!(text.contains(&shown), "{title}: {what} {shown}");
    }
    assert!(text.contains(&format!("{} of the 300 answers", m.exact)));
}

/// The InfoNCE page: on all-MiniLM-L6-v2 (when fetched; CI requires it) its similarities,
/// losses and count are the contrastive lab's maths on the lab's default batch.
#[test]
fn the_infonce_page_quotes_minilm() {
    use crate::app::labs::contrastive::maths::{info_nce, parse_pairs, similarities};
    use crate::app::labs::contrastive::{embed, ContrastiveLab, DEFAULT_HARD, DEFAULT_PAIRS};
    let title = "InfoNCE: classify the positive";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let lab = app.lab::<ContrastiveLab>();
    assert!(lab.use_hard && (lab.tau - 0.05).abs() < 1e-6 && lab.pairs == DEFAULT_PAIRS);
    let Some(dir) = crate::util::real_models::minilm() else {
        return;
    };
    let (model, _) = crate::model::import::open::open_path(&dir, &mut |_| {}).unwrap();
    let pairs = parse_pairs(DEFAULT_PAIRS).unwrap();
    let z = |s: &str| embed(&model, s).unwrap();
    let anchors: Vec<Vec<f32>> = pairs.iter().map(|(a, _)| z(a)).collect();
    let mut candidates: Vec<Vec<f32>> = pairs.iter().map(|(_, p)| z(p)).collect();
    let without = info_nce(similarities(&anchors, &candidates).view(), 0.05);
    candidates.push(z(DEFAULT_HARD));
    let sim = similarities(&anchors, &candidates);
    let with = info_nce(sim.view(), 0.05);
    let text = page_text(title);
    let f = |x: f64| format!("{x:.3}");
    let quoted = [
        format!("{} of 4 anchors", without.right),
        format!("mean loss is {}", f(without.mean_loss)),
        format!("is {:.2}, above", sim[[0, 4]]),
        format!("positive at {:.2}", sim[[0, 0]]),
        format!("from {} to {}", f(without.losses[0]), f(with.losses[0])),
        format!(
            "mean from {} to {}",
            f(without.mean_loss),
            f(with.mean_loss)
        ),
    ];
    for q in quoted {
        assert!(text.contains(&q), "{title}: {q}");
    }
    assert!(
        sim[[0, 4]] > sim[[0, 0]],
        "the hard negative outscores the positive"
    );
}

/// The worked-examples lesson: the weights and the beam search the pages describe are what the
/// labs compute for the pages' settings.
#[test]
fn the_worked_examples_show_the_notes_numbers() {
    use crate::app::labs::decoding::session::{replay, Models};
    use crate::app::labs::decoding::DecodingLab;
    use crate::app::labs::softmax::{maths, SoftmaxLab};
    let mut app = GlimpseApp::default();

    let title = "0.45, 0.45, 0.05, 0.05";
    apply(page(title), &mut app);
    let s = maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap());
    let shown: Vec<String> = s.weights.iter().map(|w| format!("{w:.5}")).collect();
    assert_eq!(shown, ["0.45000", "0.45000", "0.05000", "0.05000"]);
    assert!(page_text(title).contains("0.45, 0.45, 0.05"));
    // 0.45 / 0.05 = 9 = e^(gap): the gap is ln 9, and the box's scores stand that far apart.
    let ratio = (0.45f64 / 0.05).round();
    let gap = format!("{:.4}", ratio.ln());
    let scores = maths::parse_vector(&app.lab::<SoftmaxLab>().scores).unwrap();
    assert_eq!(format!("{:.4}", scores[0] - scores[2]), gap);
    assert!(
        page_text(title).contains(&format!("ln {ratio} ≈ {gap}")),
        "{gap}"
    );

    let title = "softmax([0, 2, 1])";
    apply(page(title), &mut app);
    for w in maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap()).weights {
        says(title, w);
    }

    let title = "[START] Big cat";
    apply(page(title), &mut app);
    let trace = app.bench.trace().expect("the decoder's trace");
    let tokens = &trace
        .attention(crate::model::AttentionKind::DecoderSelf, 0)
        .expect("decoder self-attention")
        .query_tokens;
    assert_eq!(tokens, &["<bos>", "big", "cat"]);
    let layers = app.bench.model.as_ref().unwrap().config.n_layers;
    for layer in 0..layers {
        let w = trace
            .weights(crate::model::AttentionKind::DecoderSelf, layer)
            .unwrap();
        for head in w.outer_iter() {
            assert_eq!(head[[0, 0]], 1.0, "[START] reads only itself");
            for i in 0..3 {
                for j in i + 1..3 {
                    assert_eq!(head[[i, j]], 0.0, "layer {layer}: above the diagonal");
                }
                assert!((head.row(i).sum() - 1.0).abs() < 1e-6);
            }
        }
    }
    assert!(page_text(title).contains("1.00 then zeros"));

    let title = "d = 4: I Can Buy";
    apply(page(title), &mut app);
    let panel = &app
        .lab::<crate::app::labs::positions::PositionsLab>()
        .sinusoidal;
    assert_eq!(panel.d, 4);
    let pe = crate::model::position::sinusoidal(&[0, 1, 2], panel.d, panel.base);
    let text = page_text(title);
    for row in pe.rows() {
        let v: Vec<String> = row
            .iter()
            .map(|x| format!("{x:.2}").replace('-', "−"))
            .collect();
        // Written as the page writes them: "[0.84, 0.54, 0.01, 1.00]"; t = 0 as [0, 1, 0, 1].
        let plain: Vec<String> = v.iter().map(|x| x.trim_end_matches(".00").into()).collect();
        let ok = text.contains(&format!("[{}]", v.join(", ")))
            || text.contains(&format!("[{}]", plain.join(", ")));
        assert!(ok, "{title}: no {v:?}");
    }
    for k in 0..2 {
        let w = crate::model::position::sinusoidal_wavelength(k, panel.d, panel.base);
        assert!(
            text.contains(&format!("{w:.2}")),
            "{title}: no wavelength {w:.2}"
        );
    }

    let title = "RoPE on \"the dog slept\"";
    apply(page(title), &mut app);
    let rope = &app.lab::<crate::app::labs::positions::PositionsLab>().rope;
    assert!(rope.shows_notes_example());
    let out = crate::app::labs::positions::rope::maths::table_rotate(
        &rope.table,
        &rope.table_positions,
        rope.table_base,
    )
    .unwrap();
    let text = page_text(title);
    for row in &out {
        let v: Vec<String> = row
            .iter()
            .map(|x| format!("{x:.3}").replace('-', "−"))
            .collect();
        assert!(
            text.contains(&format!("[{}]", v.join(", "))),
            "{title}: no {v:?}"
        );
    }
    // "Set the first position to 0 and "the" does not move at all."
    let mut at_zero = rope.table_positions.clone();
    at_zero[0] = 0;
    let moved = crate::app::labs::positions::rope::maths::table_rotate(
        &rope.table,
        &at_zero,
        rope.table_base,
    )
    .unwrap();
    assert_eq!(moved[0], rope.table[0]);

    let title = "Je suis étudiant, B = 2";
    apply(page(title), &mut app);
    let settings = app.lab::<DecodingLab>().settings.clone();
    assert_eq!(settings.text(), super::content::JE_SUIS_TABLE);
    assert_eq!(settings.width, 2);
    let models = Models::from_store(&app.store);
    let text = page_text(title);
    let p = |s: &crate::app::labs::decoding::session::Search, n: usize| s.beam.nodes[n].cum.exp();
    for (steps, kept) in [
        (1, [("I", 0.60), ("Me", 0.30)]),
        (2, [("I am", 0.54), ("Me too", 0.18)]),
        (3, [("I am a", 0.378), ("I am …", 0.108)]),
    ] {
        let s = replay(&settings, &models, steps).unwrap();
        let mut live: Vec<(String, f32)> = s
            .beam
            .live()
            .into_iter()
            .map(|n| (s.hypothesis(n), p(&s, n)))
            .collect();
        live.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(live.len(), 2, "step {steps}: {live:?}");
        for ((got, gp), (want, wp)) in live.iter().zip(kept) {
            assert_eq!(got, want, "step {steps}");
            assert!((gp - wp).abs() < 1e-4, "step {steps}: {got} {gp}");
            assert!(text.contains(&format!("({wp})")) || text.contains(&format!("({wp:.2})")));
        }
        if steps == 3 {
            // "Me too"'s best continuation, pruned at this step.
            let best = s
                .beam
                .nodes
                .iter()
                .filter(|n| s.hypothesis(n.id).starts_with("Me too "))
                .map(|n| n.cum.exp())
                .fold(0.0f32, f32::max);
            assert!((best - 0.054).abs() < 1e-4, "{best}");
            assert!(text.contains("only 0.054"));
        }
    }
    let mut s = replay(&settings, &models, 0).unwrap();
    s.run_to_end();
    let best = s.beam.ranking()[0];
    assert_eq!(s.hypothesis(best), "I am a student <eos>");
    let cum = s.beam.nodes[best].cum;
    assert!(text.contains(&format!("{:.4}", cum.exp())));
    assert!(text.contains(&format!("{cum:.3}").replace('-', "−")));
    assert_eq!(
        s.greedy.as_ref().unwrap().as_ref().unwrap().0.join(" "),
        "I am a student <eos>"
    );

    // "On the table of the Decoding lesson's beam page it does: greedy's "the" (0.5) leads to at
    // most 0.20, beam's "a" (0.4) to 0.36": that page's search, run to the end.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    apply(page("Beam search"), &mut app);
    let settings = app.lab::<DecodingLab>().settings.clone();
    let mut s = replay(&settings, &Models::from_store(&app.store), 0).unwrap();
    s.run_to_end();
    let first = |word: &str| {
        let n = s.beam.nodes.iter().find(|n| s.beam.tokens(n.id) == [word]);
        n.unwrap().cum.exp()
    };
    // The most any longer hypothesis through a first word keeps, among every child the tree
    // expanded (a longer one keeps no more).
    let best_after = |word: &str| {
        s.beam
            .nodes
            .iter()
            .filter(|n| n.length >= 2)
            .filter(|n| s.beam.tokens(n.id).first().map(String::as_str) == Some(word))
            .map(|n| n.cum.exp())
            .fold(0.0f32, f32::max)
    };
    let greedy = s.greedy.as_ref().unwrap().as_ref().unwrap();
    let beam = s.beam.tokens(s.beam.ranking()[0]);
    assert_eq!((greedy.0[0].as_str(), beam[0].as_str()), ("the", "a"));
    let greedy_p = greedy.1.exp();
    assert!(
        (greedy_p - best_after("the")).abs() < 1e-4,
        "greedy {greedy_p}, best after \"the\" {}",
        best_after("the")
    );
    let said = format!(
        "greedy's \"the\" ({:.1}) leads to at most {:.2}, beam's \"a\" ({:.1}) to {:.2}",
        first("the"),
        best_after("the"),
        first("a"),
        best_after("a")
    );
    assert!(text.contains(&said), "{said}");

    let title = "L = 100, D = 512";
    apply(page(title), &mut app);
    let text = page_text(title);
    let sizes = app.lab::<crate::app::labs::cost::CostLab>().sizes;
    for c in crate::app::labs::cost::maths::layer_costs(&sizes) {
        assert!(text.contains(&crate::app::labs::cost::maths::count(c.mixing)));
    }
    let w = crate::app::labs::cost::maths::attention_work(&sizes);
    assert!(text.contains(&crate::app::labs::cost::maths::count(w.projections)));
}
