use super::*;

fn table(width: usize) -> Settings {
    Settings {
        kind: SourceKind::Table,
        width,
        ..Default::default()
    }
}

#[test]
fn the_textbook_table_beats_greedy_in_three_steps() {
    let models = Models::from_store(&ModelStore::default());
    let mut s = Search::new(&table(2), &models).unwrap();
    for _ in 0..3 {
        assert!(s.step());
    }
    assert!(s.done() && !s.step());
    let best = s.beam.ranking()[0];
    assert_eq!(s.hypothesis(best), "a cat <eos>");
    while s.work() {}
    assert_eq!(
        s.greedy.as_ref().unwrap().as_ref().unwrap().0.join(" "),
        "the cat <eos>"
    );
    let back = replay(&table(2), &models, 2).unwrap();
    assert_eq!(back.steps(), 2);
}

/// A search worked a unit at a time (a pass each, as the lab spreads them over frames)
/// builds the same tree and greedy result as one stepped at once; going back reuses the
/// passes, so its replay computes nothing.
#[test]
fn a_search_worked_in_units_equals_one_stepped_at_once() {
    let models = Models::from_store(&ModelStore::default());
    let settings = Settings {
        kind: SourceKind::Lm,
        width: 3,
        max_len: 6,
        ..Default::default()
    };
    let mut whole = Search::new(&settings, &models).unwrap();
    whole.run_to_end();
    let mut units = Search::new(&settings, &models).unwrap();
    units.pending = settings.max_len;
    let mut count = 0;
    while units.work() {
        count += 1;
        if let Some((ready, of)) = units.computing() {
            assert!(ready <= of && of <= 3);
        }
    }
    // Every hypothesis of every step, each step, and greedy's tokens: more than one unit each.
    assert!(count > 2 * whole.steps(), "{count} units");
    let tree = |s: &Search| -> Vec<(Option<usize>, u32, u32)> {
        s.beam
            .nodes
            .iter()
            .map(|n| (n.parent, n.token, n.cum.to_bits()))
            .collect()
    };
    assert_eq!(tree(&units), tree(&whole));
    assert_eq!(units.greedy, whole.greedy);
    assert!(units.greedy.as_ref().is_some_and(|g| g.is_ok()));

    let steps = units.steps();
    let mut back = Search::new(&settings, &models).unwrap();
    back.reuse(units);
    back.pending = steps - 1;
    let before = back.built.source.work();
    while back.work() {}
    assert_eq!(back.steps(), steps - 1);
    assert_eq!(back.built.source.work(), before, "the replay ran no pass");
    assert!(back.greedy.is_some(), "greedy decoding came along");
}

#[test]
fn the_lm_prompt_keeps_the_search_inside_the_model() {
    let models = Models::from_store(&ModelStore::default());
    let settings = Settings {
        kind: SourceKind::Lm,
        max_len: 30,
        width: 2,
        ..Default::default()
    };
    let mut s = Search::new(&settings, &models).unwrap();
    assert_eq!(s.built.prompt[0], BOS);
    s.run_to_end();
    assert!(s.error.is_none(), "{:?}", s.error);
    assert!(!s.beam.ranking().is_empty());
}

#[test]
fn bad_text_is_an_error() {
    let models = Models::from_store(&ModelStore::default());
    let bad = Settings {
        table_text: "<bos> the 0.5".into(),
        ..table(2)
    };
    assert!(Search::new(&bad, &models).is_err());
    let empty = Settings {
        translate_text: String::new(),
        ..Default::default()
    };
    assert!(Search::new(&empty, &models).is_err());
}
