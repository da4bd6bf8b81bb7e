//! The numbers the "What attention does" pages state, computed here on SmolLM2 by the same
//! analysis the Influence lab runs (skipped when the model is not cached, except in CI).

use super::tests::{apply, page, page_text, says};
use crate::analysis::patching::{Patching, Sweep};
use crate::analysis::{ablation::Ablation, compare, lens, single_token};
use crate::app::labs::influence::InfluenceLab;
use crate::app::GlimpseApp;
use crate::model::{ForwardOptions, Model, Trace};

// The texts the pages' links set (checked by `lab_of`).
/// The lens page's factual prompt.
const LENS_TEXT: &str = "The Eiffel Tower is in the city of";
/// Indirect-object identification: the clean text asks for " Mary"; the corrupted one repeats
/// the other name, so it asks for " John".
const IOI_CLEAN: &str = "When Mary and John went to the store, John gave a drink to";
const IOI_CORRUPT: &str = "When Mary and John went to the store, Mary gave a drink to";
/// Eleven words and their repeat: the clean run continues the repeat with " velvet"; the
/// corrupted one has " stone" before the first " velvet", so nothing tells it what follows
/// " copper".
const INDUCTION_CLEAN: &str = "violet gravel echo pencil harbor quartz mitten falcon ladder copper velvet violet gravel echo pencil harbor quartz mitten falcon ladder copper";
const INDUCTION_CORRUPT: &str = "violet gravel echo pencil harbor quartz mitten falcon ladder stone velvet violet gravel echo pencil harbor quartz mitten falcon ladder copper";

const SMOLLM2: &str = "SmolLM2-135M-Instruct.Q4_1";

fn smollm2() -> Option<std::sync::Arc<Model>> {
    crate::util::real_models::smollm2()?;
    let app = GlimpseApp::default();
    // The store opens a served model from the cache as the app does.
    let mut app = app;
    apply(page("What each layer predicts"), &mut app);
    app.store.get(SMOLLM2).ok()
}

fn traced(model: &Model, text: &str) -> Trace {
    let input = model.prepare("", text).input;
    model.forward(&input, &ForwardOptions::default()).unwrap()
}

fn id(model: &Model, t: &str) -> u32 {
    single_token(model, t).unwrap()
}

/// The page's link sets the lab up as the text says.
fn lab_of(title: &str, text: &str) -> InfluenceLab {
    let mut app = GlimpseApp::default();
    apply(page(title), &mut app);
    assert_eq!(app.bench.model_name, SMOLLM2, "{title}");
    assert_eq!(app.bench.source, text, "{title}");
    std::mem::take(app.lab_mut::<InfluenceLab>())
}

#[test]
fn the_lens_page_shows_paris_arrive_late() {
    let Some(model) = smollm2() else { return };
    let title = "What each layer predicts";
    let lab = lab_of(title, LENS_TEXT);
    assert_eq!(lab.target, " Paris");
    let trace = traced(&model, LENS_TEXT);
    let paris = id(&model, " Paris");
    let got = lens::logit_lens(&model, &trace, 1, Some(paris)).unwrap();
    let last = got.tokens.len() - 1;
    let p = |l: usize| got.layers[l].target_p.as_ref().unwrap()[last];
    let top = |l: usize| got.layers[l].top[last][0].id;
    let first_top = (0..got.layers.len()).find(|&l| top(l) == paris).unwrap();
    assert!((first_top..got.layers.len()).all(|l| top(l) == paris));
    eprintln!(
        "lens: first top {first_top}, p there {}, p out {}",
        p(first_top),
        p(30)
    );
    assert!(page_text(title).contains(&format!("depth {first_top}")));
    says(title, p(first_top));
    says(title, p(got.layers.len() - 1));
}

#[test]
fn the_looking_page_names_a_looker_and_a_mover() {
    let Some(model) = smollm2() else { return };
    let title = "Looking is not using";
    let lab = lab_of(title, IOI_CLEAN);
    assert_eq!(
        (lab.target.as_str(), lab.contrast.as_str()),
        (" Mary", " John")
    );
    let trace = traced(&model, IOI_CLEAN);
    let (a, b) = (id(&model, " Mary"), id(&model, " John"));
    let mut ablation = Ablation::new(&model, &trace, a, b).unwrap();
    while ablation.step(&model).unwrap() {}
    let stack = trace.decoder.as_ref().unwrap();
    let q = stack.tokens.len() - 1;
    let looks = compare::looks(stack, q);
    let sentence = compare::disagreement(&looks, &ablation.effects, &stack.tokens, "effect");
    let sinks = compare::sinks(stack, q);
    let mean = |f: fn(&compare::Sink) -> f32| sinks.iter().map(f).sum::<f32>() / sinks.len() as f32;
    let (v0, vr) = (mean(|s| s.value_norm_first), mean(|s| s.value_norm_rest));
    eprintln!(
        "looking: {sentence}\nsinks {} mean v first {v0} rest {vr}",
        sinks.len()
    );
    let text = page_text(title);
    // Every number of the sentence is on the page (as the page writes it, to 2 decimals), and
    // every head it names (the word after "Head").
    let words: Vec<&str> = sentence.split([' ', '(', ')', ',']).collect();
    for (i, word) in words.iter().enumerate() {
        let word = word.trim_end_matches('.');
        if i > 0 && words[i - 1] == "Head" {
            assert!(
                text.contains(&format!("Head {word}")),
                "{title}: head {word}"
            );
        } else if let Ok(x) = word.parse::<f32>() {
            if word.contains('.') {
                says(title, x.abs());
            }
        }
    }
    assert!(
        text.contains(&format!("{} of the 270 heads", sinks.len())),
        "sinks: {}",
        sinks.len()
    );
    says(title, v0);
    says(title, vr);
}

/// The first position where the clean and the corrupted text differ.
fn changed_position(r: &Patching) -> usize {
    (0..r.tokens_clean.len())
        .find(|&p| r.tokens_clean[p] != r.tokens_corrupt[p])
        .expect("the texts differ")
}

/// The residual sweep at one position, block by block.
fn column(r: &Patching, p: usize) -> Vec<f64> {
    r.resid.iter().map(|row| row[p]).collect()
}

/// The position whose residual stream restores most in `block`.
fn top_position(r: &Patching, block: usize) -> usize {
    crate::util::argmax(r.resid[block].iter().map(|&x| x as f32))
        .unwrap()
        .0
}

/// The first block from which, in every later block too, the last position restores most.
fn last_from(r: &Patching) -> usize {
    let last = r.tokens_clean.len() - 1;
    let blocks = r.resid.len();
    eprintln!(
        "resid at the last position {:?}; top positions {:?}",
        column(r, last),
        (0..blocks).map(|l| top_position(r, l)).collect::<Vec<_>>()
    );
    (0..blocks)
        .find(|&l| (l..blocks).all(|m| top_position(r, m) == last))
        .expect("the last position restores most in the last block")
}

/// `text` with its line breaks and runs of spaces as single spaces.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn sweep(model: &Model, clean: &str, corrupt: &str, a: &str, b: &str) -> Patching {
    let ids = |t: &str| model.prepare("", t).input.target;
    let s = Sweep::new(model, ids(clean), ids(corrupt), id(model, a), id(model, b)).unwrap();
    s.run_all(model).unwrap()
}

#[test]
fn the_name_page_finds_the_heads_that_restore_the_answer() {
    let Some(model) = smollm2() else { return };
    let title = "Who says the name?";
    let lab = lab_of(title, IOI_CLEAN);
    assert!(lab.sweep);
    assert_eq!(lab.corrupt, IOI_CORRUPT);
    let r = sweep(&model, IOI_CLEAN, IOI_CORRUPT, " Mary", " John");
    let last = r.tokens_clean.len() - 1;
    eprintln!(
        "ioi: ld {} {}; 23.3 {} 29.1 {} 20.0 {}",
        r.ld_clean, r.ld_corrupt, r.heads[23][3], r.heads[29][1], r.heads[20][0]
    );
    eprintln!(
        "resid at John: 19 {} 20 {} 23 {}; last: 23 {} 24 {}",
        r.resid[19][9], r.resid[20][9], r.resid[23][9], r.resid[23][last], r.resid[24][last]
    );
    for x in [
        r.ld_clean,
        -r.ld_corrupt,
        r.heads[23][3],
        r.heads[29][1],
        r.heads[20][0],
        r.resid[24][last],
    ] {
        says(title, x as f32);
    }
    // "The residual stream at the second " John" restores it fully up to block 19; from block
    // 24 the answer sits at the last position instead": the blocks where patching that position
    // restores all of it, and from where the last position is the one that restores most.
    let second = changed_position(&r);
    assert_eq!(r.tokens_clean[second], " John");
    let fully = r.resid.iter().take_while(|row| row[second] >= 0.95).count();
    assert!(
        fully > 0 && fully < r.resid.len(),
        "{:?}",
        column(&r, second)
    );
    let from = last_from(&r);
    assert!(
        from > fully,
        "the answer moves between blocks {fully} and {from}"
    );
    let text = flat(&page_text(title));
    for said in [
        format!("up to block {}", fully - 1),
        format!("from block {from} the answer sits at the last position"),
    ] {
        assert!(text.contains(&said), "{title}: {said}");
    }
    let trace = traced(&model, IOI_CLEAN);
    let john =
        crate::analysis::attribution::attribute(&model, &trace, id(&model, " John"), None, None)
            .unwrap();
    eprintln!("23.3 share of logit John {}", john.heads[23][3]);
    says(title, -john.heads[23][3] as f32);
}

#[test]
fn the_induction_page_finds_the_previous_token_head_feeding_the_induction_head() {
    let Some(model) = smollm2() else { return };
    let title = "Induction, causally";
    let lab = lab_of(title, INDUCTION_CLEAN);
    assert_eq!(lab.corrupt, INDUCTION_CORRUPT);
    let r = sweep(
        &model,
        INDUCTION_CLEAN,
        INDUCTION_CORRUPT,
        " velvet",
        " silver",
    );
    let last = r.tokens_clean.len() - 1;
    eprintln!(
        "induction: ld {} {}; 16.0 {} 18.6 {}; resid velvet 17 {}; last 18 {}",
        r.ld_clean,
        r.ld_corrupt,
        r.heads[16][0],
        r.heads[18][6],
        r.resid[17][12],
        r.resid[18][last]
    );
    let mut best: Vec<(f64, usize, usize)> = r
        .heads
        .iter()
        .enumerate()
        .flat_map(|(l, row)| row.iter().enumerate().map(move |(h, s)| (*s, l, h)))
        .collect();
    best.sort_by(|x, y| y.0.total_cmp(&x.0));
    assert_eq!((best[0].1, best[0].2), (16, 0), "{best:?}");
    for x in [
        r.heads[16][0],
        r.heads[18][6],
        r.resid[17][12],
        r.resid[18][last],
    ] {
        says(title, x as f32);
    }
    // "The clean " copper" matters at its own position up to block 16, then at " velvet" in
    // block 17 (0.53), then at the last position from block 18": the position that restores
    // most, block by block.
    let copper = changed_position(&r);
    let velvet = copper + 1;
    assert_eq!(
        (
            r.tokens_corrupt[copper].as_str(),
            r.tokens_clean[velvet].as_str()
        ),
        (" stone", " velvet")
    );
    eprintln!("resid at copper {:?}", column(&r, copper));
    let own = (0..r.resid.len())
        .take_while(|&l| top_position(&r, l) == copper)
        .count();
    assert!(own > 0, "{:?}", column(&r, copper));
    assert_eq!(top_position(&r, own), velvet, "block {own}");
    let from = last_from(&r);
    assert_eq!(from, own + 1, "only block {own} is at \" velvet\"");
    says(title, r.resid[own][velvet] as f32);
    says(title, r.resid[from][last] as f32);
    let text = flat(&page_text(title));
    for said in [
        format!("at its own position up to block {}", own - 1),
        format!(
            "at \" velvet\" in block {own} ({:.2})",
            r.resid[own][velvet]
        ),
        format!("at the last position from block {from}"),
    ] {
        assert!(text.contains(&said), "{title}: {said}");
    }
    // Head 16.0 reads the token before: from " velvet" (12) to " copper" (11).
    let trace = traced(&model, INDUCTION_CLEAN);
    let w = trace.decoder.as_ref().unwrap().blocks[16]
        .self_attn
        .inner
        .weights[[0, 12, 11]];
    eprintln!("16.0 from velvet to copper {w}");
    says("The head that reads the token before", w);
}
