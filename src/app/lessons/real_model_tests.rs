//! The pages on real and shipped models name the heads, weights and beams the models give.

use super::tests::*;
use crate::app::labs::decoding::session::Settings;
use crate::app::GlimpseApp;

/// The pages on MiniLM name the heads, weights and scores the model gives on their sentence.
#[test]
fn the_minilm_pages_show_what_they_say() {
    use crate::model::heads::Pattern;
    if crate::util::real_models::minilm().is_none() {
        return;
    }
    let mut app = GlimpseApp::default();
    let title = "Every token sees every token";
    apply(page(title), &mut app);
    for (pattern, at) in [
        (Pattern::PreviousToken, (0, 2)),
        (Pattern::FirstToken, (4, 5)),
        (Pattern::NextToken, (1, 8)),
    ] {
        let f = found(&app, pattern);
        assert_eq!((f.layer, f.head), at, "{pattern:?}");
        says(title, f.score);
    }

    // "it" (row 10) reads "animal" (2), not "street" (8); with "wide" it reads neither.
    let title = "What does \"it\" read?";
    apply(page(title), &mut app);
    let w = selected_weights(&app);
    assert_eq!(app.bench.sel.query, 10);
    assert_eq!(
        app.bench.trace().unwrap().encoder.as_ref().unwrap().tokens[10],
        "it"
    );
    says(title, w[[10, 2]]);
    says(title, w[[10, 8]]);
    app.bench.source = app.bench.source.replace("tired", "wide");
    app.bench.refresh(&app.store);
    let w = selected_weights(&app);
    says(title, w[[10, 2]]);
    says(title, w[[10, 8]]);
    let most = crate::util::argmax(w.row(10).iter().copied()).unwrap().0;
    assert_eq!(most, 0, "most of it goes to [CLS]");

    // "bank" (5) → "river" (8) and back.
    let title = "Relevance is not symmetric";
    apply(page(title), &mut app);
    let w = selected_weights(&app);
    says(title, w[[5, 8]]);
    says(title, w[[8, 5]]);
    assert!(w[[5, 8]] > 3.0 * w[[8, 5]]);
    // The scaled scores before the softmax differ as well.
    let sel = app.bench.sel;
    let trace = app.bench.trace().unwrap();
    let scaled = &trace.attention(sel.kind, sel.layer).unwrap().scaled;
    let (there, back) = (scaled[[sel.head, 5, 8]], scaled[[sel.head, 8, 5]]);
    assert!(there > back + 1.0, "{there} {back}");
    let text = page_text(title);
    assert!(text.contains(&format!(
        "{there:.2} for (bank, river) against {back:.2} for"
    )));

    // "the dog bit the man" against "the man bit the dog", positions off and on: the panel
    // the page opens reads the sentences from the link.
    let title = "Who bit whom?";
    apply(page(title), &mut app);
    use crate::app::labs::positions::{permutation, PositionsLab};
    let panel = &app.labs.get_mut::<PositionsLab>().unwrap().permutation;
    assert_eq!(panel.encoder, permutation::Encoder::Real);
    let (sentence, reordered) = (panel.sentence.clone(), panel.reordered.clone());
    assert_eq!(reordered, "the man bit the dog");
    let on = app.store.get(permutation::REAL_MODEL).unwrap();
    let off = permutation::without_positions(&on);
    let a = permutation::compare_sentences(&off, &sentence, &reordered).unwrap();
    let b = permutation::compare_sentences(&on, &sentence, &reordered).unwrap();
    let text = page_text(title);
    for cosine in [a.sentence_cosine, b.sentence_cosine] {
        let number = format!("{cosine:.4}");
        assert!(
            text.contains(&number),
            "{title}: the text does not say {number}"
        );
    }
    let dog = b.tokens.iter().position(|t| t == "dog").unwrap();
    let most = crate::util::argmax(b.row_change.iter().copied()).unwrap().0;
    assert_eq!(most, dog, "\"dog\" changes most");
    says(title, b.row_change[dog]);

    let title = "A previous-token head";
    apply(page(title), &mut app);
    let f = found(&app, Pattern::PreviousToken);
    assert_eq!((f.layer, f.head), (0, 2));
    says(title, f.score);
    let f = found(&app, Pattern::SameWord);
    assert_eq!((f.layer, f.head), (0, 2));
    says(title, f.score);
    // The outlined row is "##bel", all on "un" before it.
    let q = app.bench.sel.query;
    let trace = app.bench.trace().unwrap();
    let tokens = &trace.attention(app.bench.sel.kind, 0).unwrap().query_tokens;
    assert_eq!(
        (tokens[q - 1].as_str(), tokens[q].as_str()),
        ("un", "##bel")
    );
    let w = selected_weights(&app);
    assert_eq!(
        crate::util::argmax(w.row(q).iter().copied()).unwrap().0,
        q - 1
    );
    says(title, w[[q, q - 1]]);
}

/// The self-attention page's size of all-MiniLM-L6-v2: the layers and heads of its config, and
/// the parameters its checkpoint holds.
#[test]
fn the_self_attention_page_states_minilms_size() {
    let title = "Every token sees every token";
    assert_eq!(page_model(page(title)), Some("all-MiniLM-L6-v2"));
    let Some(dir) = crate::util::real_models::minilm() else {
        return;
    };
    let (model, info) = crate::model::import::open::open_path(&dir, &mut |_| {}).unwrap();
    let c = &model.config;
    let text = page_text(title);
    for said in [
        format!(
            "({} layers × {} heads, {:.1} M parameters)",
            c.n_layers,
            c.n_heads,
            info.parameters as f64 / 1e6
        ),
        format!("Its {} heads", c.n_layers * c.n_heads),
    ] {
        assert!(text.contains(&said), "{title}: {said}");
    }
}

/// The toy induction page: the repeat model's head copies from the first "glimpsehow".
#[test]
fn the_toy_induction_page_shows_its_head() {
    use crate::model::analysis::induction_score;
    let mut app = GlimpseApp::default();
    apply(page("An induction head"), &mut app);
    // "glimpsehow" twice after <bos>: the repeat starts at 1 with period 10.
    let w = selected_weights(&app);
    let ind = induction_score(w.view(), 1, 10);
    assert!(ind > 0.6, "induction score {ind}");
    // The outlined query, the second "l" (12), looks most at the "i" after the first "l" (3).
    assert_eq!(app.bench.sel.query, 12);
    assert_eq!(crate::util::argmax(w.row(12).iter().copied()).unwrap().0, 3);
    let letters = app
        .bench
        .model
        .as_ref()
        .unwrap()
        .tokenizer
        .spec()
        .tokens
        .len()
        - 4;
    assert_eq!(
        letters, 26,
        "the text says its vocabulary is the 26 letters"
    );
}

/// The multi-head page on sotu-lm names the heads the classifier finds.
#[test]
fn the_sotu_lm_grid_page_shows_what_it_says() {
    use crate::model::heads::Pattern;
    let mut app = GlimpseApp::default();
    let title = "Many heads, same cost";
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "sotu-lm");
    let c = &app.bench.model.as_ref().unwrap().config;
    let size = format!("({} layers × {} heads)", c.n_layers, c.n_heads);
    assert!(page_text(title).contains(&size), "{title}: {size}");
    for (pattern, at) in [
        (Pattern::PreviousToken, (1, 1)),
        (Pattern::SameWord, (1, 0)),
    ] {
        let f = found(&app, pattern);
        assert_eq!((f.layer, f.head), at, "{pattern:?}");
        assert!(f.clear);
        says(title, f.score);
    }
    // The caption of layer 1, head 1 is its strongest pattern: own word.
    let label = app.bench.stats().unwrap()[1][1].label.unwrap();
    assert_eq!(label.pattern, Pattern::SameWord);
    says(title, label.score);
}

/// The induction page: SmolLM2 copies the second copy with a head in layer 18; sotu-lm
/// does not copy at all.
#[test]
fn the_induction_page_shows_what_it_says() {
    use crate::model::induction::repeated_random;
    let title = "Induction on real words";
    let text = page_text(title);
    let sotu = crate::model::builtin::load("sotu-lm").unwrap();
    let run = repeated_random(&sotu, 20, 1).unwrap();
    says(title, run.first_half);
    says(title, run.second_half);
    assert!(run.best_head().unwrap().2 < 0.05, "{:?}", run.best_head());
    assert!(text.contains("above 0.05"));
    let recipe: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/models/sotu-lm.recipe.json")).unwrap();
    let minutes = recipe["seconds"].as_f64().unwrap() / 60.0;
    let tokens = recipe["data"]["train_tokens"].as_f64().unwrap() / 1e6;
    let trained = format!("{minutes:.0} minutes on {tokens:.1} M tokens");
    assert!(text.contains(&trained), "{title}: {trained}");
    if crate::util::real_models::smollm2().is_none() {
        return;
    }
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, "SmolLM2-135M-Instruct.Q4_1");
    let lab = app.lab::<crate::app::labs::induction::InductionLab>();
    assert_eq!((lab.len, lab.seed), (20, 1));
    let model = app.store.get("SmolLM2-135M-Instruct.Q4_1").unwrap();
    let run = repeated_random(&model, 20, 1).unwrap();
    says(title, run.first_half);
    says(title, run.second_half);
    let (layer, head, score) = run.best_head().unwrap();
    assert_eq!((layer, head), (18, 6));
    says(title, score);
}

/// SmolLM2's induction-like head on prose: the classifier's pick, and the weight the page
/// names from the second " Herm" (and the other repeats) to the piece after the first.
#[test]
fn the_names_page_shows_its_induction_head() {
    use crate::model::heads::Pattern;
    if crate::util::real_models::smollm2().is_none() {
        return;
    }
    let title = "Names come back";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let f = found(&app, Pattern::InductionLike);
    assert_eq!((f.layer, f.head), (17, 5));
    says(title, f.score);
    assert_eq!(
        (app.bench.sel.layer, app.bench.sel.head, app.bench.sel.query),
        (17, 5, 18)
    );
    let tokens = app
        .bench
        .trace()
        .unwrap()
        .decoder
        .as_ref()
        .unwrap()
        .tokens
        .clone();
    let w = selected_weights(&app);
    // (query, the piece after its first occurrence): " Herm" → "ione", " Gr" → "anger",
    // " Harry" → " Potter".
    for (query, after) in [(" Herm", "ione"), (" Gr", "anger"), (" Harry", " Potter")] {
        let second = tokens.iter().rposition(|t| t == query).unwrap();
        let first = tokens.iter().position(|t| t == query).unwrap();
        assert!(second > first, "{query} repeats");
        assert_eq!(tokens[first + 1], after);
        let row = w.row(second);
        says(title, row[first + 1]);
        let most = crate::util::argmax(row.iter().copied()).unwrap().0;
        match query {
            " Harry" => assert_eq!(most, 0, "the first token takes most"),
            _ => assert_eq!(most, first + 1, "{query}: the piece after takes most"),
        }
    }
    assert_eq!(tokens.iter().rposition(|t| t == " Herm"), Some(18));
}

/// The beam search of `glimpse beam` on `model` with the decoding lab's settings at α.
fn beam_report(model: &str, settings: &Settings, alpha: f32) -> serde_json::Value {
    let out = crate::cli::beam::beam(crate::cli::beam::BeamArgs {
        model: Some(model),
        table: None,
        input: settings.text(),
        beam: settings.width,
        alpha,
        max_len: settings.max_len,
        temperature: 1.0,
        json: true,
    })
    .unwrap();
    serde_json::from_str(&out).unwrap()
}

/// A ranked hypothesis's text, its special tokens left out.
fn text_of(v: &serde_json::Value) -> String {
    v["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .filter(|t| !t.starts_with("<|"))
        .collect()
}

/// SmolLM2 in its chat format: the short answer wins at α = 0, a longer one at α = 1, and
/// greedy takes neither.
#[test]
fn length_normalisation_changes_the_winner_as_the_page_says() {
    let Some(path) = crate::util::real_models::smollm2() else {
        return;
    };
    let title = "Length normalisation on a real model";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let settings = app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .settings
        .clone();
    assert_eq!(
        (settings.width, settings.alpha, settings.max_len),
        (3, 1.0, 12)
    );
    assert!(settings.text().contains("Name a colour."));
    let text = page_text(title);
    let model = path.to_str().unwrap();
    let plain = beam_report(model, &settings, 0.0);
    let normalised = beam_report(model, &settings, 1.0);
    let (short, long) = (&plain["ranking"][0], &normalised["ranking"][0]);
    assert_ne!(text_of(short), text_of(long));
    for (winner, what) in [(short, "α = 0"), (long, "α = 1")] {
        let words = text_of(winner);
        assert!(text.contains(words.trim()), "{what}: {words}");
        let written = format!("−{:.2}", -winner["log_prob"].as_f64().unwrap());
        assert!(
            text.contains(&written),
            "{what}: the text does not say {written}"
        );
    }
    assert!(text.contains(&format!("−{:.2}", -long["score"].as_f64().unwrap())));
    assert!(text.contains(&format!(
        "{} tokens",
        long["tokens"].as_array().unwrap().len()
    )));
    let greedy = text_of(&normalised["greedy"]);
    assert!(text.contains(greedy.trim()), "greedy: {greedy}");
}

/// The English decoding page: beam search beats greedy on the whole sentence.
#[test]
fn greedy_and_beam_disagree_as_the_page_says() {
    let title = "Greedy and beam disagree on English";
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    let d = &app
        .lab::<crate::app::labs::decoding::DecodingLab>()
        .settings;
    assert_eq!((d.width, d.max_len), (3, 12));
    let prompt = d.text().to_string();
    assert_eq!(prompt, "The state of the Union is");
    let report = beam_report("sotu-lm", d, d.alpha);
    let best = &report["ranking"][0];
    let greedy = &report["greedy"];
    let page = page_text(title);
    assert!(
        page.contains(text_of(best).split('.').next().unwrap()),
        "{}",
        text_of(best)
    );
    assert!(
        page.contains(text_of(greedy).split('.').next().unwrap()),
        "{}",
        text_of(greedy)
    );
    for lp in [
        best["log_prob"].as_f64().unwrap(),
        greedy["log_prob"].as_f64().unwrap(),
    ] {
        let written = format!("−{:.1}", -lp);
        assert!(page.contains(&written), "the text does not say {written}");
    }
    // "Length normalisation (α) changes nothing here. Every hypothesis runs to the 12-token
    // limit": at α = 1 the same hypotheses in the same order, every one (and greedy's) as long
    // as the limit.
    assert_eq!(d.alpha, 0.0);
    let normalised = beam_report("sotu-lm", d, 1.0);
    let ranked = |r: &serde_json::Value| -> Vec<(String, usize)> {
        r["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (text_of(h), h["tokens"].as_array().unwrap().len()))
            .collect()
    };
    let plain = ranked(&report);
    assert_eq!(plain, ranked(&normalised));
    assert!(plain.len() >= d.width);
    assert!(plain.iter().all(|(_, n)| *n == d.max_len), "{plain:?}");
    assert_eq!(greedy["tokens"].as_array().unwrap().len(), d.max_len);
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("its {} tokens begin", d.max_len),
        format!("with B = {} keeps", d.width),
        format!("Counting all {} tokens of each", d.max_len),
        format!("runs to the {}-token limit", d.max_len),
    ] {
        assert!(flat.contains(&said), "{title}: {said}");
    }
}
