use super::*;
use crate::analysis::{ablation::Ablation, attribution, lens, patching};
use crate::app::tests::open;
use egui_kittest::kittest::Queryable;

/// The built-in language model on a sentence of its vocabulary; the lab's numbers are the
/// analysis functions' own on the same pass.
const LM: &str = "model=lm&src=the%20cat%20sat%20on%20the%20ma";
const TEXT: &str = "the cat sat on the ma";

fn model() -> Arc<Model> {
    Arc::new(crate::model::builtin::load("lm").unwrap())
}

fn trace_of(model: &Model, text: &str) -> Trace {
    let input = model.prepare("", text).input;
    model.forward(&input, &ForwardOptions::default()).unwrap()
}

/// Runs frames until `done` says the lab has what the test waits for (at most 600 frames).
fn until(
    h: &mut egui_kittest::Harness<'static, crate::app::GlimpseApp>,
    done: impl Fn(&InfluenceLab) -> bool,
) {
    for _ in 0..600 {
        h.run_steps(1);
        if done(h.state().lab::<InfluenceLab>()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the lab never finished");
}

#[test]
fn the_lens_shows_every_depth_as_the_analysis_computes_it() {
    let mut h = open(&format!("view=influence&isec=0&{LM}&itgt=t"));
    until(&mut h, |l| l.published.contains_key("lens"));
    let m = model();
    let t = trace_of(&m, TEXT);
    let mat = crate::analysis::single_token(&m, "t").unwrap();
    let want = lens::logit_lens(&m, &t, 1, Some(mat)).unwrap();
    let got = &h.state().lab::<InfluenceLab>().published["lens"];
    let last = want.tokens.len() - 1;
    for (l, layer) in want.layers.iter().enumerate() {
        let p = got["target_p"][l].as_f64().unwrap();
        assert!((p - f64::from(layer.target_p.as_ref().unwrap()[last])).abs() < 1e-6);
        assert_eq!(got["top"][l], layer.top[last][0].token.as_str());
    }
    h.get_by_label_contains("At position 21");
}

#[test]
fn attribution_adds_up_and_a_lab_can_open_the_attention_tab() {
    let mut h = open(&format!("view=influence&isec=1&{LM}&itgt=t&icon=n"));
    until(&mut h, |l| l.published.contains_key("attribution"));
    let m = model();
    let t = trace_of(&m, TEXT);
    let (a, b) = (
        crate::analysis::single_token(&m, "t").unwrap(),
        crate::analysis::single_token(&m, "n").unwrap(),
    );
    let want = attribution::attribute(&m, &t, a, Some(b), None).unwrap();
    let got = h.state().lab::<InfluenceLab>().published["attribution"].clone();
    assert!((got["sum"].as_f64().unwrap() - want.sum).abs() < 1e-9);
    assert!((want.sum - want.logit_diff).abs() < 1e-4);
    h.get_by_label_contains("the shares add up to");
    // What a click on a head's cell asks for: the app shows the Attention tab next frame.
    h.state_mut().bench.open_view = Some("attention");
    h.run_steps(2);
    assert_eq!(h.state().nav.view, "attention");
}

#[test]
fn the_patching_sweep_fills_in_to_the_analysis_result_and_refuses_unequal_lengths() {
    let link = format!(
        "view=influence&isec=2&{LM}&itgt=t&icon=n&icor=the%20cat%20sat%20on%20the%20pa&isweep=1"
    );
    let mut h = open(&link);
    until(&mut h, |l| {
        l.published
            .get("patching")
            .is_some_and(|p| p["done"] == true)
    });
    let m = model();
    let ids = |t: &str| m.prepare("", t).input.target;
    let (a, b) = (
        crate::analysis::single_token(&m, "t").unwrap(),
        crate::analysis::single_token(&m, "n").unwrap(),
    );
    let want = patching::Sweep::new(&m, ids(TEXT), ids("the cat sat on the pa"), a, b)
        .unwrap()
        .run_all(&m)
        .unwrap();
    let got = h.state().lab::<InfluenceLab>().published["patching"].clone();
    for (l, row) in want.resid.iter().enumerate() {
        for (p, x) in row.iter().enumerate() {
            assert!((got["resid"][l][p].as_f64().unwrap() - x).abs() < 1e-9);
        }
    }
    for (l, row) in want.heads.iter().enumerate() {
        for (k, x) in row.iter().enumerate() {
            assert!((got["heads"][l][k].as_f64().unwrap() - x).abs() < 1e-9);
        }
    }
    h.get_by_label_contains("patches in");
    // A corrupted text one token longer is refused with both token lists.
    h.state_mut().lab_mut::<InfluenceLab>().corrupt = "the cat sat on the pat".into();
    h.run_steps(3);
    h.get_by_label_contains("must have the same number of tokens: clean 22");
    // A target that is not one token says how it splits.
    h.state_mut().lab_mut::<InfluenceLab>().target = "ta".into();
    h.run_steps(3);
    h.get_by_label_contains("splits into");
}

#[test]
fn ablation_fills_in_and_the_comparison_names_the_looker_and_the_mover() {
    let mut h = open(&format!("view=influence&isec=3&ieff=1&{LM}&itgt=t&icon=n"));
    until(&mut h, |l| {
        l.published
            .get("compare")
            .is_some_and(|c| c["effect"] == "ablation effect")
            && l.compare_done()
    });
    let m = model();
    let t = trace_of(&m, TEXT);
    let (a, b) = (
        crate::analysis::single_token(&m, "t").unwrap(),
        crate::analysis::single_token(&m, "n").unwrap(),
    );
    let mut ab = Ablation::new(&m, &t, a, b).unwrap();
    while ab.step(&m).unwrap() {}
    let stack = t.decoder.as_ref().unwrap();
    let looks = crate::analysis::compare::looks(stack, stack.tokens.len() - 1);
    let want = crate::analysis::compare::disagreement(
        &looks,
        &ab.effects,
        &stack.tokens,
        "ablation effect",
    );
    h.run_steps(2);
    let got = h.state().lab::<InfluenceLab>().published["compare"]["sentence"].clone();
    assert_eq!(got, want.as_str());
    h.get_by_label_contains("has the largest ablation effect");
}

#[test]
fn a_sentence_encoder_says_what_is_not_defined() {
    if crate::util::real_models::minilm().is_none() {
        return;
    }
    let mut h = open("view=influence&isec=0&model=all-MiniLM-L6-v2");
    for _ in 0..100 {
        h.run_steps(1);
        if h.query_by_label_contains("has no output layer").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.get_by_label_contains("has no output layer");
}

#[test]
fn links_restore_every_setting() {
    let link = "view=influence&isec=3&itgt=%20a&icon=%20b&ipos=2&icor=x%20y&isweep=1&ieff=2&iabl=1";
    let mut r = crate::app::link::LinkReader::parse(link);
    let mut lab = InfluenceLab::default();
    lab.load(&mut r);
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    assert_eq!(lab.section, Section::Compare);
    assert_eq!(
        (lab.target.as_str(), lab.contrast.as_str(), lab.position),
        (" a", " b", Some(2))
    );
    assert_eq!(
        (lab.corrupt.as_str(), lab.sweep, lab.effect, lab.ablate),
        ("x y", true, Effect::Patching, true)
    );
    let mut w = crate::app::link::LinkWriter::default();
    lab.save(&mut w);
    let mut back = InfluenceLab::default();
    back.load(&mut crate::app::link::LinkReader::parse(&w.finish()));
    assert_eq!(
        (back.section, back.position, back.corrupt),
        (Section::Compare, Some(2), "x y".to_string())
    );
}
