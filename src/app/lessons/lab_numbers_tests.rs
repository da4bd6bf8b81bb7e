//! The numbers the pages on the labs state (positions, norms, sampling, the KV cache, softmax,
//! cost, warmup, the output layer, heads off) are what the labs compute.

use super::content::LESSONS;
use super::tests::*;
use crate::app::GlimpseApp;
use crate::util::grouped;

/// `35333.6` → `35,300`: a wavelength as the text rounds it, to the nearest hundred.
fn hundreds(x: f64) -> String {
    let h = (x / 100.0).round() as u64 * 100;
    format!("{},{:03}", h / 1000, h % 1000)
}

/// The slowest sinusoidal band at the widths the page names is what `model::position`
/// computes; 2π·10000 is only the limit.
#[test]
fn the_sinusoidal_page_states_the_wavelengths_the_model_computes() {
    use crate::model::position::sinusoidal_wavelength;
    let text = page_text("Sinusoidal encodings");
    let translate = crate::model::builtin::load("translate").unwrap();
    let lab = crate::app::labs::positions::sinusoidal::SinusoidalPanel::default();
    for (d, what) in [
        (translate.config.d_model, "the translation model"),
        (lab.d, "the lab's default"),
    ] {
        let slowest = sinusoidal_wavelength(d / 2 - 1, d, 10000.0);
        let said = format!("{} positions at d = {d}", hundreds(slowest));
        let said_short = format!("{} at d = {d} ({what})", hundreds(slowest));
        assert!(
            text.contains(&said) || text.contains(&said_short),
            "{said}: {text}"
        );
    }
    assert_eq!(hundreds(sinusoidal_wavelength(15, 32, 10000.0)), "35,300");
    let limit = 2.0 * std::f64::consts::PI * 10000.0;
    assert!(
        text.contains(&format!("2π·10000 ≈ {}", hundreds(limit))),
        "{text}"
    );
    assert!(sinusoidal_wavelength(0, 32, 10000.0) == 2.0 * std::f64::consts::PI);
}

/// The Add & Norm page shows `translate`: its norm placement and d_ff are what the text says.
#[test]
fn the_norm_page_describes_the_model_it_shows() {
    let text = page_text("Add & Norm and the feed-forward layer");
    let page = page("Add & Norm and the feed-forward layer");
    let m = crate::model::builtin::load(page_model(page).unwrap()).unwrap();
    assert_eq!(m.config.norm, crate::model::NormPlacement::Pre);
    assert!(text.contains("on the right is pre-norm"), "{text}");
    let said = format!(
        "d_ff = {} = {}·d_model",
        m.config.d_ff,
        m.config.d_ff / m.config.d_model
    );
    assert_eq!(m.config.d_ff % m.config.d_model, 0);
    assert!(text.contains(&said), "{said}: {text}");
}

/// Top-p keeps the smallest set of likeliest tokens reaching at least p, as the page says.
#[test]
fn top_p_keeps_the_smallest_set_reaching_at_least_p() {
    let text = page_text("Sampling: temperature, top-k, top-p");
    assert!(text.contains("add up to at least p"), "{text}");
    let log_probs: Vec<f32> = [0.5f32, 0.3, 0.2].iter().map(|p| p.ln()).collect();
    // 0.5 < 0.6 ≤ 0.5 + 0.3: two tokens, whose sum passes p rather than equalling it.
    let kept = crate::decode::sample::kept_set(&log_probs, None, Some(0.6));
    assert_eq!(kept.len(), 2);
}

/// The KV cache page: a decoder key depends on its token, the earlier ones and the source,
/// never on later tokens.
#[test]
fn a_causal_key_depends_on_itself_earlier_tokens_and_the_source() {
    use crate::model::{AttentionKind, ForwardOptions};
    let text = page_text("The KV cache");
    assert!(
        text.contains("the token itself and the ones before it"),
        "{text}"
    );
    let m = crate::model::builtin::load("translate").unwrap();
    let keys = |src: &str, tgt: &str| {
        let input = m.prepare(src, tgt).input;
        let trace = m.forward(&input, &ForwardOptions::default()).unwrap();
        let layer = m.config.n_layers - 1;
        trace
            .attention(AttentionKind::DecoderSelf, layer)
            .unwrap()
            .k
            .clone()
    };
    let short = keys("la zone économique", "the economic");
    let long = keys("la zone économique", "the economic area");
    let n = short.len_of(ndarray::Axis(1));
    let same = long.slice(ndarray::s![.., ..n, ..]);
    let diff = (&same - &short).iter().fold(0f32, |a, x| a.max(x.abs()));
    assert!(
        diff < 1e-5,
        "a later token changed an earlier key by {diff}"
    );
    // The last layer's keys read the source through the first layer's cross-attention.
    let other = keys("la zone européenne", "the economic");
    let moved = (&other - &short).iter().fold(0f32, |a, x| a.max(x.abs()));
    assert!(moved > 1e-3, "the source did not reach the keys: {moved}");
}

/// The softmax pages state the weights, entropies and gradients the lab computes for them.
#[test]
fn the_softmax_pages_show_what_they_say() {
    use crate::app::labs::softmax::{maths, SoftmaxLab};
    let mut app = GlimpseApp::default();
    let title = "Softmax by hand";
    apply(page(title), &mut app);
    let s = maths::softmax_steps(&app.lab::<SoftmaxLab>().scaled_scores().unwrap());
    for w in &s.weights {
        says(title, *w);
    }
    says(title, s.entropy_bits);
    says(title, s.max_entropy_bits);

    let title = "When softmax saturates";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    let text = page_text(title);
    let soft = maths::softmax_steps(&maths::parse_vector(&lab.scores).unwrap());
    let hard = maths::softmax_steps(&lab.scaled_scores().unwrap());
    assert_eq!(lab.scale, 10.0);
    for w in &soft.weights {
        says(title, *w);
    }
    for w in &hard.weights {
        assert!(text.contains(&format!("{w:.5}")), "{title}: no {w:.5}");
    }
    let (g_soft, g_hard) = (soft.largest_gradient(), hard.largest_gradient());
    assert!(
        text.contains(&format!("{g_soft:.3}")),
        "{title}: no {g_soft:.3}"
    );
    assert!(
        text.contains(&format!("{g_hard:.6}")),
        "{title}: no {g_hard:.6}"
    );
    let ratio = ((g_soft / g_hard) / 100.0).round() as u32 * 100;
    let ratio = format!("{},{:03}", ratio / 1000, ratio % 1000);
    assert!(
        text.contains(&format!("about {ratio} times")),
        "{title}: not {ratio}"
    );

    let title = "Q, K and V by hand";
    apply(page(title), &mut app);
    let lab = app.lab::<SoftmaxLab>();
    let text = page_text(title);
    let [q, k, v] = lab.matrices().unwrap();
    let a = maths::attention_steps(&q, &k, &v).unwrap();
    // The outlined query and key, counted from 1 as the page counts them.
    let (query, d_k) = (lab.query, q.ncols());
    let row: Vec<String> = a.scores.row(query).iter().map(|x| x.to_string()).collect();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("width d_k = {d_k}"),
        format!("Query {} scores the keys", query + 1),
        format!("QKᵀ = [{}]", row.join(", ")),
        format!("divided by √{d_k} = {}", (d_k as f64).sqrt()),
        format!("so query {} gathers", query + 1),
        format!("Key {} is read by all three queries", lab.key + 1),
    ] {
        assert!(flat.contains(&said), "{title}: {said}");
    }
    for w in a.weights.row(query) {
        says(title, *w);
    }
    for c in a.context.row(query) {
        says(title, *c);
    }
    assert_eq!(lab.key, 1);
    says(title, a.received()[lab.key]);
}

/// The cost page states what the calculator computes at the notes' sizes.
#[test]
fn the_cost_page_states_the_calculators_numbers() {
    use crate::app::labs::cost::{maths, CostLab};
    let mut app = GlimpseApp::default();
    let title = "The cost calculator";
    apply(page(title), &mut app);
    let text = page_text(title);
    let sizes = app.lab::<CostLab>().sizes;
    for c in maths::layer_costs(&sizes) {
        assert!(
            text.contains(&maths::count(c.mixing)),
            "{title}: {}",
            c.name
        );
    }
    let long = maths::Sizes { l: 10_000, ..sizes };
    let [attn, rnn, _] = maths::layer_costs(&long);
    assert!(text.contains(&maths::count(attn.mixing)));
    assert!(text.contains(&maths::count(rnn.mixing)));
    let m = maths::memory(&sizes);
    assert!(text.contains(&maths::grouped(m.rnn)));
    assert!(text.contains(&maths::grouped(m.attention)));
    // The whole attention layer: projections, scores and weighted sum, beyond the RNN's L·D².
    let w = maths::attention_work(&sizes);
    let layer = w.projections + w.scores + w.weighted_sum;
    assert!(text.contains(&format!("4·L·D² = {}", maths::count(w.projections))));
    assert!(text.contains(&format!("{} in all", maths::count(layer))));
    // Against the whole RNN layer: the recurrence and the input projection, 2·L·D², and an
    // LSTM's four gates, 8·L·D².
    let [_, rnn, _] = maths::layer_costs(&sizes);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Heads: the same parameters and multiply-adds as one head, h times the weights; one
    // L × L matrix at L = 1,024 in decimal and binary units.
    let one_head = maths::Sizes { heads: 1, ..sizes };
    assert_eq!(sizes.heads, 8);
    assert_eq!(maths::block_params(&sizes), maths::block_params(&one_head));
    assert_eq!(
        maths::attention_work(&sizes),
        maths::attention_work(&one_head)
    );
    let matrix = 4 * maths::memory(&maths::Sizes { l: 1024, ..sizes }).one_matrix;
    for said in [
        format!(
            "4·D² = {}",
            maths::grouped(maths::block_params(&sizes).attention)
        ),
        format!("{} numbers for the pass", maths::grouped(m.all_weights)),
        format!(
            "against {} with one head",
            maths::grouped(maths::memory(&one_head).all_weights)
        ),
        format!(
            "{}, or {}",
            maths::bytes(matrix),
            maths::binary_bytes(matrix)
        ),
    ] {
        assert!(flat.contains(&said), "{title}: {said}");
    }
    for said in [
        format!("2·L·D² = {}", maths::count(2 * rnn.mixing)),
        format!(
            "attention does {:.1} times",
            layer as f64 / (2 * rnn.mixing) as f64
        ),
        format!(
            "8·L·D² = {}, more than attention's",
            maths::count(8 * rnn.mixing)
        ),
    ] {
        assert!(flat.contains(&said), "{title} does not say {said:?}");
    }
    assert!(8 * rnn.mixing > layer && layer > 2 * rnn.mixing);
}

/// "Without warmup" states what the trainer does with its settings: the same run trained here
/// step for step as the lab trains it (same config, same seed), with and without warmup.
#[test]
fn the_warmup_page_states_what_training_gives() {
    use crate::app::labs::training::TrainingLab;
    use crate::train::optim::Schedule;
    use crate::train::trainer::Trainer;
    let title = "Without warmup";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let config = app.lab::<TrainingLab>().config.clone();
    assert_eq!(config.schedule.warmup(), 0);
    let text = page_text(title);
    let run = |warmup: u64, peak: f32| {
        let mut c = config.clone();
        c.schedule = Schedule::shaped("cosine", peak, warmup, c.d_model, 3000).unwrap();
        let mut t = Trainer::new(c, "warmup-page").unwrap();
        for _ in 0..600 {
            t.step().unwrap();
        }
        let loss = t.history.iter().rev().take(50).map(|s| s.loss).sum::<f32>() / 50.0;
        let grad = t.history.iter().map(|s| s.grad_norm).fold(0.0f32, f32::max);
        (loss, t.evaluate(100).unwrap().exact_match, grad)
    };
    let high = config.schedule.peak();
    let (cold, cold_exact, cold_grad) = run(0, high);
    let (warm, warm_exact, warm_grad) = run(200, high);
    println!(
        "without warmup: loss {cold:.3}, exact {cold_exact:.2}, largest gradient {cold_grad:.1}"
    );
    println!(
        "with warmup 200: loss {warm:.3}, exact {warm_exact:.2}, largest gradient {warm_grad:.1}"
    );
    // The direction the notes claim, with a wide margin.
    assert!(cold > 3.0 * warm, "{cold} against {warm}");
    assert!(warm_exact > cold_exact + 0.5);
    // And the numbers the page states.
    for x in [cold, warm] {
        says(title, x);
    }
    assert!(cold_exact == 0.0 && text.contains("no held-out sequence"));
    assert!(text.contains(&format!("{:.0} % of sequences", 100.0 * warm_exact)));
    for g in [cold_grad, warm_grad] {
        assert!(text.contains(&format!("{g:.1}")), "{title}: no {g:.1}");
    }
    // "At the default peak of 3·10⁻³ this small model learns as well without warmup."
    let (plain, plain_exact, _) = run(0, 3e-3);
    let (eased, eased_exact, _) = run(200, 3e-3);
    println!("at 3e-3: without warmup loss {plain:.3}, exact {plain_exact:.2}; with warmup loss {eased:.3}, exact {eased_exact:.2}");
    assert!(text.contains("default peak of 3·10⁻³"));
    assert!(plain <= 1.5 * eased && plain_exact + 0.15 >= eased_exact);
}

/// The output-layer page's numbers: sotu-lm's output matrix is its 4,096 × 192 embedding, and
/// after "The state of the Union is" the walkthrough's softmax over the vocabulary puts " the"
/// first.
#[test]
fn the_output_layer_page_states_what_sotu_lm_computes() {
    use crate::app::labs::attention::walkthrough;
    let text = page_text("From the last layer to a word");
    let mut app = GlimpseApp::default();
    apply(page("From the last layer to a word"), &mut app);
    let model = app.bench.model.as_ref().unwrap().clone();
    assert!(model.config.tie_embeddings && model.weights.lm_head.is_none());
    let (v, d) = model.weights.tok_embed.dim();
    assert!(
        text.contains(&format!("{} × {d}", grouped(v as u128))),
        "{text}"
    );
    assert!(text.contains(&grouped((v * d) as u128)), "{text}");
    let trace = app.bench.trace().expect("a trace");
    let chain = walkthrough::build(&model, trace, &app.bench.sel, 1.0).unwrap();
    let softmax = chain
        .steps
        .iter()
        .find(|s| s.title == "softmax (vocab)")
        .unwrap();
    let last = trace.logits.nrows() - 1;
    let best = crate::util::argmax(trace.logits.row(last).iter().copied())
        .unwrap()
        .0;
    let word = model.tokenizer.token(best as u32);
    assert!(
        text.contains(&format!("most likely next token is \"{word}\"")),
        "{word:?}"
    );
    assert!(
        softmax.explain.contains(&format!("is → {word}")),
        "{}",
        softmax.explain
    );
}

/// The heads-off page's numbers are what the translator gives: every cross-attention head off
/// breaks greedy decoding, and the ranking removes the stated number of heads within 1 point.
#[test]
fn the_heads_off_page_states_what_switching_heads_off_costs() {
    use crate::model::{AttentionKind, HeadId};
    use crate::train::ablation::{every_head, score, Measure, Plan, TASK_EXAMPLES};
    use crate::train::tasks::TaskKind;
    let text = page_text("Switching heads off");
    let model = crate::model::builtin::load("translate").unwrap();
    let measure = Measure::Task(TaskKind::Translate);
    let cross: Vec<HeadId> = every_head(&model)
        .into_iter()
        .filter(|h| h.kind == AttentionKind::Cross)
        .collect();
    let blind = score(&model, &measure, &cross).unwrap();
    let full = score(&model, &measure, &[]).unwrap();
    assert_eq!(full.exact, Some(1.0));
    let all_on = 100.0 * full.exact.unwrap();
    let right = (blind.exact.unwrap() * TASK_EXAMPLES as f32).round() as usize;
    let mut plan = Plan::new(full, every_head(&model));
    while !plan.done() {
        plan.step(&model, &measure).unwrap();
    }
    let removable = plan.removable(0.01);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("measured on {TASK_EXAMPLES} held-out sentences"),
        format!("with all {} cross-attention heads off", cross.len()),
        format!("gets {right} of them right"),
        format!("({all_on:.0} % with every head on)"),
        format!("Yet {removable} of its {} heads", every_head(&model).len()),
        format!("within {:.0} point", 0.01 * 100.0),
    ] {
        assert!(flat.contains(&said), "{said}: {text}");
    }
}

/// The GQA page's cache sizes come from SmolLM2's config.
#[test]
fn the_grouped_query_page_states_smollm2s_cache() {
    let Some(path) = crate::util::real_models::smollm2() else {
        assert!(std::env::var_os("GLIMPSE_REQUIRE_REAL_MODELS").is_none());
        return;
    };
    let (model, _) = crate::model::import::open::open_path(&path, &mut |_| {}).unwrap();
    let c = &model.config;
    let text = page_text("Nine query heads, three caches");
    let (kv, q, h) = (c.n_kv_heads, c.n_heads, c.d_head());
    assert!(text.contains(&format!("{q} query heads share {kv} key/value heads")));
    assert!(text.contains(&format!("each of its {} layers", c.n_layers)));
    assert!(text.contains(&format!(
        "2 · {kv} · {h} = {}",
        grouped((2 * kv * h) as u128)
    )));
    assert!(text.contains(&format!("2 · {q} · {h} = {}", grouped((2 * q * h) as u128))));
}

/// The depth page's figures are the depth probe's: 4,096 paths for six encoder blocks, post-norm's
/// stream at √d, and where each placement's gradients are largest.
#[test]
fn the_depth_page_states_what_the_probe_measures() {
    use crate::model::config::NormPlacement;
    use crate::train::depth::{at_init, residual_paths};
    let text = page_text("Deep stacks: pre-norm and post-norm");
    assert!(text.contains(&format!(
        "{} for the original encoder's six blocks",
        grouped(residual_paths(6) as u128)
    )));
    // A decoder block has three residual sub-layers: 2^(3·6) paths through six of them.
    assert!(text.contains(&format!("2¹⁸ = {}", grouped(1u128 << 18))));
    let pre = at_init(12, NormPlacement::Pre, 1).unwrap();
    let post = at_init(12, NormPlacement::Post, 1).unwrap();
    let min = post.gradients.iter().copied().fold(f32::INFINITY, f32::min);
    let (post_last, pre_first, pre_last) = (
        *post.gradients.last().unwrap(),
        pre.gradients[0],
        *pre.gradients.last().unwrap(),
    );
    // Post-norm's largest gradient is at the top; pre-norm's falls from bottom to top.
    assert_eq!(
        crate::util::argmax(post.gradients.iter().copied())
            .unwrap()
            .0,
        11
    );
    assert!(pre.gradients.windows(2).filter(|w| w[1] < w[0]).count() >= 10);
    for (what, v) in [
        ("GRAD_POST_LAST there", post_last),
        ("GRAD_POST_MIN at the", min),
        ("GRAD_PRE_FIRST at the first", pre_first),
        ("GRAD_PRE_LAST at the last", pre_last),
    ] {
        let (_, rest) = what.split_once(' ').unwrap();
        assert!(text.contains(&format!("{v:.2} {rest}")), "{what}: {v:.2}");
    }
    // The trained model under the plots: pre-norm, its stream growing block by block.
    let mut app = GlimpseApp::default();
    apply(page("Deep stacks: pre-norm and post-norm"), &mut app);
    let model = app.bench.model.as_ref().unwrap();
    assert_eq!(model.config.norm, NormPlacement::Pre);
    let norms =
        crate::train::depth::stream_norms(app.bench.trace().unwrap().decoder.as_ref().unwrap());
    assert!(norms.windows(2).all(|w| w[1] > w[0]), "{norms:?}");
}

/// The cross-attention page: the translator's alignment head is named by the classifier.
#[test]
fn the_cross_attention_page_names_its_alignment_head() {
    use crate::model::heads::Pattern;
    use crate::model::AttentionKind;
    let mut app = GlimpseApp::default();
    let title = "Cross-attention";
    apply(page(title), &mut app);
    let f = found(&app, Pattern::Aligned);
    assert_eq!((f.layer, f.head), (1, 2));
    assert!(f.clear);
    says(title, f.score);
    // Not the diagonal: the row of each target word peaks off it.
    let trace = app.bench.trace().unwrap();
    let w = trace.weights(AttentionKind::Cross, 1).unwrap();
    let head = w.index_axis(ndarray::Axis(0), 2);
    let off = head
        .rows()
        .into_iter()
        .enumerate()
        .skip(1)
        .filter(|(i, row)| {
            let top = (0..row.len()).max_by(|&a, &b| row[a].total_cmp(&row[b]));
            top != Some(i - 1)
        })
        .count();
    assert!(off >= 2, "only {off} target words peak off the diagonal");
}

/// The masked-language page: the link fills the blank it quotes on sotu-mlm, the first
/// candidate and its probability are the model's, and the held-out figures are the recipe's.
#[test]
fn the_masked_language_page_states_what_sotu_mlm_fills_in() {
    let title = "Pre-training by filling blanks";
    let text = page_text(title);
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-mlm");
    let sentence = app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .fill_mask
        .text()
        .to_string();
    assert!(text.contains(&format!("“{sentence}”")), "{sentence}");
    let model = app.bench.model.as_ref().unwrap().clone();
    let slots = crate::model::mlm::fill_mask(&model, &sentence, 3).unwrap();
    let best = &slots[0].candidates[0];
    assert!(
        text.contains(&format!(
            "“{}” comes first with p = {:.2}",
            best.token, best.probability
        )),
        "{:?} {}",
        best.token,
        best.probability
    );
    let recipe: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/models/sotu-mlm.recipe.json")).unwrap();
    let held = &recipe["held_out"];
    let accuracy = held["top1_accuracy"].as_f64().unwrap() * 100.0;
    assert!(
        text.contains(&format!("{accuracy:.0} % of the time")),
        "{accuracy}"
    );
    for (what, key) in [
        ("model", "model"),
        ("bigram", "bigram_kneser_ney"),
        ("unigram", "unigram"),
    ] {
        let ppl = held[key]["perplexity"].as_f64().unwrap();
        assert!(text.contains(&format!("{ppl:.1}")), "{what}: {ppl:.1}");
    }
    // The page's comparison holds: the model's perplexity is below the bigram's.
    assert!(
        held["model"]["perplexity"].as_f64() < held["bigram_kneser_ney"]["perplexity"].as_f64()
    );
}

/// The next page: at the blank's row, the named head puts the stated weight on a token to the
/// blank's right, which a causal mask would hide.
#[test]
fn the_blank_reads_to_its_right_as_the_page_says() {
    let title = "The blank reads both ways";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-mlm");
    let trace = app.bench.trace().expect("a trace");
    let tokens = &trace.encoder.as_ref().unwrap().tokens;
    let q = app.bench.sel.query;
    assert_eq!(tokens[q], "<mask>");
    let row = selected_weights(&app).row(q).to_vec();
    let (key, w) = crate::util::argmax(row.iter().copied()).unwrap();
    assert!(key > q, "the strongest key is to the right of the blank");
    let text = page_text(title);
    assert!(
        text.contains(&format!("on “{}”", tokens[key])),
        "{}",
        tokens[key]
    );
    let apart = ["no", "one", "two", "three", "four", "five"][key - q];
    for said in [
        format!("(query {q})"),
        format!("{apart} tokens to its right"),
    ] {
        assert!(text.contains(&said), "{title}: {said}");
    }
    says(title, w);
    let sel = app.bench.sel;
    assert!(text.contains(&format!("layer {}, head {}", sel.layer, sel.head)));
}

/// Every page reads in every shipped language, paragraph for paragraph as in English.
#[test]
fn every_page_is_translated_paragraph_for_paragraph() {
    for lang in crate::i18n::codes() {
        for lesson in LESSONS {
            crate::i18n::set(crate::i18n::ENGLISH);
            let english: Vec<(String, usize)> = lesson
                .pages
                .iter()
                .map(|p| (p.title(), p.paragraphs().len()))
                .collect();
            crate::i18n::set(lang);
            for (page, (title, count)) in lesson.pages.iter().zip(&english) {
                assert!(crate::i18n::has(
                    lang,
                    &format!("lesson-page-{}-text", page.id)
                ));
                assert_eq!(page.paragraphs().len(), *count, "{lang}: {title}");
                assert!(!page.title().is_empty() && !lesson.title().is_empty());
            }
        }
    }
    crate::i18n::set(crate::i18n::ENGLISH);
}
