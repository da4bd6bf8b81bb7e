use super::*;

#[test]
fn unigram_perplexity_matches_the_formula() {
    // train "0 0 1", V = 3: p(0) = 3/6, p(1) = 2/6, p(2) = 1/6.
    let p = unigram_perplexity(&[0, 0, 1], &[0, 1, 2], 3);
    // scored: 1 and 2 → nats = −ln(2/6) − ln(1/6)
    let want = -(2.0f64 / 6.0).ln() - (1.0f64 / 6.0).ln();
    assert_eq!(p.tokens, 2);
    assert!((p.nats_per_token - want / 2.0).abs() < 1e-12);
    assert!((p.perplexity - (want / 2.0).exp()).abs() < 1e-9);
}

#[test]
fn kneser_ney_matches_a_hand_computation() {
    // train a b a c a b (V = 4, d unseen): bigrams ab×2, ba, ac, ca.
    let (a, b, c, d) = (0, 1, 2, 3);
    let lm = KneserNeyBigram::fit(&[a, b, a, c, a, b], 4);
    // n₁ = 3 (ba, ac, ca), n₂ = 1 (ab) → D = 3 / (3 + 2) = 0.6
    assert!((lm.discount - 0.6).abs() < 1e-12);
    // N₁₊(•a) = 2 (b, c), N₁₊(•b) = 1, N₁₊(•c) = 1, N₁₊(•d) = 0; N₁₊(••) = 4 types.
    let cont = |n: f64| (n + 1.0) / (4.0 + 4.0);
    // history a: c(a) = 3, followers {b, c} → λ = 0.6 · 2 / 3 = 0.4
    let p_ab = (2.0 - 0.6) / 3.0 + 0.4 * cont(1.0);
    let p_ad = 0.4 * cont(0.0);
    assert!((lm.prob(a, b) - p_ab).abs() < 1e-12);
    assert!((lm.prob(a, d) - p_ad).abs() < 1e-12);
    // d was never a history: the continuation distribution alone.
    assert!((lm.prob(d, a) - cont(2.0)).abs() < 1e-12);
    // Each history's distribution sums to one.
    for v in 0..4 {
        let s: f64 = (0..4).map(|w| lm.prob(v, w)).sum();
        assert!((s - 1.0).abs() < 1e-12, "history {v}: {s}");
    }
    let p = lm.perplexity(&[a, b, a, d]);
    let want = -(p_ab.ln() + lm.prob(b, a).ln() + p_ad.ln()) / 3.0;
    assert_eq!(p.tokens, 3);
    assert!((p.nats_per_token - want).abs() < 1e-12);
}

#[cfg(not(target_arch = "wasm32"))]
fn tiny_lm() -> (Model, Vec<u32>, LmConfig) {
    let text = "The Congress shall have power to lay and collect taxes, duties, imposts \
            and excises, to pay the debts and provide for the common defence and general welfare \
            of the United States.\n"
        .repeat(6);
    let json = super::super::bpe::train_byte_level_bpe(text.lines(), 300).unwrap();
    let cfg = LmConfig {
        d_model: 16,
        n_heads: 2,
        n_layers: 1,
        d_ff: 32,
        context: 8,
        batch_size: 4,
        ..LmConfig::default()
    };
    let model = random_lm(&cfg, "tiny", json.as_bytes(), None).unwrap();
    let mut ids: Vec<u32> = start_token(&model).into_iter().collect();
    ids.extend(encode_stream(&model.tokenizer, &text));
    (model, ids, cfg)
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_batch_split_across_threads_gives_the_serial_step() {
    let (model, ids, cfg) = tiny_lm();
    let run = |threads: usize| {
        let mut t = LmTrainer::new(cfg.clone(), model.clone(), threads).unwrap();
        let stats: Vec<StepStats> = (0..3).map(|_| t.step(&ids).unwrap()).collect();
        (stats, t.model.weights.to_tensors())
    };
    let (serial, w1) = run(1);
    let (split, w3) = run(3); // slices of 2 and 2 windows, summed in order
    assert_eq!(run(3).1, w3, "same seed and threads, same weights");
    for (a, b) in serial.iter().zip(&split) {
        assert_eq!(a.tokens, b.tokens);
        assert!((a.loss - b.loss).abs() < 1e-5, "{} vs {}", a.loss, b.loss);
    }
    // Only the order of the float sums differs.
    for (name, a) in &w1 {
        let b = &w3[name];
        let worst = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max);
        assert!(worst < 1e-4, "{name}: {worst}");
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn perplexity_of_one_window_is_the_cross_entropy() {
    let (model, ids, _) = tiny_lm();
    let ids = &ids[..8];
    let p = perplexity(&model, ids).unwrap();
    let ex = window(ids, 0, 7);
    let t = model
        .forward(&ex.input, &ForwardOptions::default())
        .unwrap();
    let (sum, n, _) =
        super::super::loss::cross_entropy(t.logits.view(), &ex.labels, &ex.loss_mask, 0.0);
    assert_eq!(p.tokens, 7);
    assert_eq!(n, 7);
    assert!((p.nats_per_token - (sum / n as f32) as f64).abs() < 1e-5);
    // A fresh model is close to uniform over its 300 ids: ln 300 ≈ 5.70 nats.
    assert!(
        (p.nats_per_token - 300f64.ln()).abs() < 0.5,
        "{}",
        p.nats_per_token
    );
}

#[test]
fn eval_windows_score_every_token_once() {
    for (len, n) in [(2, 8), (8, 8), (9, 8), (100, 8), (101, 16), (33, 2)] {
        let mut scored = vec![0; len];
        for (start, first) in eval_windows(len, n) {
            assert!(start + n.min(len) <= len);
            let end = (start + n).min(len);
            for s in &mut scored[start + first..end] {
                *s += 1;
            }
        }
        assert_eq!(scored[0], 0, "len {len} n {n}");
        assert!(
            scored[1..].iter().all(|&s| s == 1),
            "len {len} n {n}: {scored:?}"
        );
    }
}
