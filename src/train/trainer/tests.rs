use super::*;

#[test]
fn examples_are_shifted_right_with_eos() {
    let cfg = TrainConfig::for_task(TaskKind::Reverse);
    let tok = Tokenizer::new(cfg.model_config("t").tokenizer).unwrap();
    let pair = Pair {
        source: vec!["a".into(), "b".into()],
        target: vec!["b".into(), "a".into()],
    };
    let ex = make_example(TaskKind::Reverse, &tok, &pair);
    let (a, b) = (tok.encode("a").ids[0], tok.encode("b").ids[0]);
    assert_eq!(ex.input.source, vec![a, b]);
    assert_eq!(ex.input.target, vec![BOS, b, a]);
    assert_eq!(ex.labels, vec![b, a, EOS]);
}

#[test]
fn repeat_scores_only_the_second_copy() {
    let cfg = TrainConfig::for_task(TaskKind::Repeat);
    let tok = Tokenizer::new(cfg.model_config("t").tokenizer).unwrap();
    let pair = Pair {
        source: vec!["x".into(), "y".into(), "z".into()],
        target: vec![],
    };
    let ex = make_example(TaskKind::Repeat, &tok, &pair);
    assert_eq!(ex.input.target.len(), 7);
    assert_eq!(
        ex.loss_mask,
        vec![false, false, false, true, true, true, false]
    );
    // Position 3 (the first "z") predicts the second "x".
    assert_eq!(ex.labels[3], ex.input.target[1]);
}

#[test]
fn same_seed_same_training() {
    let mut cfg = TrainConfig::for_task(TaskKind::Copy);
    cfg.d_model = 16;
    cfg.batch_size = 4;
    let run = || {
        let mut t = Trainer::new(cfg.clone(), "t").unwrap();
        (0..5).map(|_| t.step().unwrap().loss).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}
