use super::*;
use crate::app::tests::open;
use egui_kittest::kittest::Queryable;

/// A link with every cross-attention head of the translator off: the lab says so, the
/// translation collapses, and the link the app writes names the same heads.
#[test]
fn a_link_switches_heads_off_and_the_lab_shows_the_cost() {
    let cross = "c0.0,c0.1,c0.2,c0.3,c1.0,c1.1,c1.2,c1.3";
    let mut h = open(&format!("view=heads&model=translate&hoff={cross}"));
    h.run_steps(6);
    h.get_by_label_contains("8 heads off:");
    let lab = h.state().labs.get::<HeadsLab>().unwrap();
    let full = lab.full.as_ref().unwrap().1.clone().unwrap();
    let now = lab.current.as_ref().unwrap().1.clone().unwrap();
    assert!(now.accuracy < full.accuracy - 0.3, "{now:?} vs {full:?}");
    let link = crate::app::link::encode(h.state());
    assert!(
        link.contains(&format!("hoff={}", crate::app::link::escape(cross))),
        "{link}"
    );
}

/// Ranking runs over frames to the end, names how many heads can go, and its button
/// switches exactly those off.
#[test]
fn ranking_every_head_finds_the_ones_that_can_go() {
    let mut h = open("view=heads&model=translate&hrank=1");
    for _ in 0..400 {
        h.run_steps(1);
        let lab = h.state().labs.get::<HeadsLab>().unwrap();
        if lab.plan.as_ref().is_some_and(|(_, p)| p.done()) {
            break;
        }
    }
    h.run_steps(2);
    let plan = h
        .state()
        .labs
        .get::<HeadsLab>()
        .unwrap()
        .plan
        .clone()
        .unwrap()
        .1;
    assert!(plan.done());
    let k = plan.removable(TOLERANCE);
    h.get_by_label_contains(&format!("{k} of 24 heads can be switched off together"));
    h.get_by_label(&format!("switch those {k} off")).click();
    h.run_steps(3);
    let lab = h.state().labs.get::<HeadsLab>().unwrap();
    assert_eq!(lab.off, plan.least_first()[..k].to_vec());
    let now = lab.current.as_ref().unwrap().1.clone().unwrap();
    assert!(now.accuracy >= plan.full.accuracy - TOLERANCE, "{now:?}");
}

/// On a decoder LM the store runs a slice a frame (the browser's way with SmolLM2), the
/// lab's scores are the store's passes: the full score shows its progress, then is the
/// whole pass's; the ranking waits for a pass at a time and ranks exactly as one run
/// whole does.
#[test]
fn a_texts_scores_and_ranking_run_through_the_stores_slices() {
    let mut h = open("view=heads&model=sotu-lm");
    let model = h.state().store.get("sotu-lm").unwrap();
    let params = crate::model::weights::parameter_count(&model.config);
    h.state()
        .store
        .slice_passes(web_time::Duration::ZERO, params);
    // A new text (the harness's first frames ran the first one's score whole).
    h.state_mut().bench.source = "The Congress shall have power to lay taxes".into();
    h.run_steps(2);
    h.get_by_label_contains("computing sotu-lm: step");
    let mut frames = 2;
    let full = loop {
        let lab = h.state().labs.get::<HeadsLab>().unwrap();
        if let Some((_, Ok(s), _)) = &lab.full {
            break *s;
        }
        h.run_steps(1);
        frames += 1;
        assert!(frames < 100, "still computing after {frames} frames");
    };
    assert!(frames > model.config.n_layers, "{frames} frames");
    let ids = h
        .state()
        .bench
        .trace()
        .unwrap()
        .decoder
        .as_ref()
        .unwrap()
        .ids
        .clone();
    let measure = Measure::Text(ids);
    assert_eq!(full, score(&model, &measure, &[]).unwrap());
    h.state_mut().labs.get_mut::<HeadsLab>().unwrap().rank = true;
    let mut frames = 0;
    let plan = loop {
        h.run_steps(1);
        frames += 1;
        let lab = h.state().labs.get::<HeadsLab>().unwrap();
        assert!(lab.rank, "the ranking stopped");
        if let Some((_, p)) = lab.plan.as_ref().filter(|(_, p)| p.done()) {
            break p.clone();
        }
        assert!(frames < 2000, "still ranking after {frames} frames");
    };
    let mut whole = Plan::new(full, every_head(&model));
    while !whole.done() {
        whole.step(&model, &measure).unwrap();
    }
    // A pass of a block a frame: more frames than blocks in all the passes.
    let scores = whole.total_steps();
    assert!(frames > scores * model.config.n_layers, "{frames} frames");
    assert_eq!(plan, whole);
}

/// A model with nothing to score says why; a garbage link keeps the default.
#[test]
fn unscorable_models_and_bad_links_get_a_reason() {
    assert!(parse_heads("e0.1,d2.3,c1.0").is_some_and(|v| v.len() == 3));
    for bad in ["x0.1", "e0", "e0.", "e.1", "e0.1,,", "e99999.1"] {
        assert_eq!(parse_heads(bad), None, "{bad}");
    }
    let mut r = LinkReader::parse("hoff=zz&hrank=maybe");
    let mut lab = HeadsLab::default();
    lab.load(&mut r);
    assert!(lab.off.is_empty() && !lab.rank);
    assert_eq!(r.notices.len(), 2, "{:?}", r.notices);
    let encoder = crate::model::builtin::load("demo-encoder").unwrap();
    let e = measure_for("demo-encoder", &encoder, None).unwrap_err();
    assert!(e.contains("no next-token output"), "{e}");
}

/// The key/value-sharing race starts from a link, trains all three models a slice per
/// frame, shows each one's cache, and stops when paused.
#[test]
fn the_key_value_race_trains_three_models_and_pauses() {
    let mut h = open("view=heads&model=translate&hsec=1&kvtrain=1");
    h.run_steps(8);
    // In the table and in both plots' legends.
    assert!(h.query_all_by_label("4 KV heads (multi-head)").count() >= 1);
    h.get_by_label("32 floats (128 B)");
    let lab = h.state_mut().labs.get_mut::<HeadsLab>().unwrap();
    assert!(lab.kv_race.pending());
    let steps: Vec<u64> = lab
        .kv_race
        .race(kv_spec(1))
        .unwrap()
        .contenders
        .iter()
        .map(|c| c.steps())
        .collect();
    assert!(steps.iter().all(|&s| s > 0), "{steps:?}");
    lab.kv_race.running = false;
    assert!(!lab.kv_race.pending());
}

/// How many heads: a link opens the sweep training; every count is a row with its d_k, and
/// the race pauses.
#[test]
fn the_head_count_sweep_trains_six_widths_of_one_model() {
    let mut h = open("view=heads&hsec=2&hctrain=1");
    h.run_steps(8);
    for heads in [1, 2, 4, 8, 16, 32] {
        let label = format!("{heads} × d sub k {}", 64 / heads);
        assert!(h.query_all_by_label(&label).count() >= 1, "{label}");
    }
    h.get_by_label("d sub k · parameters · time");
    let lab = h.state_mut().labs.get_mut::<HeadsLab>().unwrap();
    assert!(lab.count_race.pending());
    let race = lab.count_race.race(super::count::count_spec(1)).unwrap();
    assert!(race.contenders.iter().all(|c| c.steps() > 0));
    lab.count_race.running = false;
    assert!(!lab.count_race.pending());
}
