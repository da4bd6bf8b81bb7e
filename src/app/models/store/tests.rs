use super::*;
use crate::model::trace::AttentionKind;
use crate::model::ForwardOptions;

#[test]
fn a_model_is_loaded_once_and_shared() {
    let store = ModelStore::default();
    let a = store.get("reverse").unwrap();
    let b = store.get("reverse").unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let err = store.get("no-such-model").unwrap_err();
    assert!(err.contains("no-such-model"), "{err}");
}

#[test]
fn forward_passes_are_memoised_by_model_input_and_options() {
    let store = ModelStore::default();
    let model = store.get("reverse").unwrap();
    let input = model.prepare("abc", "cba").input;
    let opts = ForwardOptions::default();
    let runs = crate::model::transformer::forward_passes_on_this_thread;
    let start = runs();
    let first = store.forward("reverse", &input, &opts).unwrap();
    let again = store.forward("reverse", &input, &opts).unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(runs() - start, 1);
    let hotter = ForwardOptions {
        temperature: 2.0,
        ..Default::default()
    };
    store.forward("reverse", &input, &hotter).unwrap();
    let other = model.prepare("abd", "dba").input;
    store.forward("reverse", &other, &opts).unwrap();
    assert_eq!(runs() - start, 3);
    // The memo is the model's own forward pass, not an approximation of it.
    assert_eq!(first.logits, model.forward(&input, &opts).unwrap().logits);
}

/// Sliced as in the browser, a pass answers with its progress frame after frame, then
/// with the very trace a whole pass gives; a small model is not sliced.
#[test]
fn a_large_models_pass_runs_a_slice_a_frame_and_ends_in_the_memo() {
    let store = ModelStore::default();
    let model = store.get("reverse").unwrap();
    let input = model.prepare("abcd", "dcba").input;
    let opts = ForwardOptions::default();
    let params = crate::model::weights::parameter_count(&model.config);
    store.slice_passes(web_time::Duration::ZERO, params + 1);
    assert!(
        store.forward("reverse", &input, &opts).is_ok(),
        "below the size: whole"
    );
    let other = model.prepare("abce", "ecba").input;
    store.slice_passes(web_time::Duration::ZERO, params);
    let mut frames = 0;
    let trace = loop {
        match store.forward("reverse", &other, &opts) {
            Ok(t) => break t,
            Err(e) => assert!(is_computing(&e), "{e}"),
        }
        store.take_arrivals();
        frames += 1;
        assert!(frames < 100, "still computing after {frames} frames");
    };
    // One block a frame with no time to spare: encoder and decoder blocks, then the output.
    assert!(frames > model.config.n_layers, "{frames} frames");
    let whole = model.forward(&other, &opts).unwrap();
    assert_eq!(trace.logits, whole.logits);
    assert_eq!(
        trace
            .attention(AttentionKind::DecoderSelf, 1)
            .unwrap()
            .weights,
        whole
            .attention(AttentionKind::DecoderSelf, 1)
            .unwrap()
            .weights
    );
}

/// Cancel drops the pass a view asked for this frame, and the store answers "cancelled"
/// for it, starting nothing, frame after frame while the view keeps asking; once a frame
/// goes by without it (the input changed), asking for it again starts it afresh. A pass no
/// view asked for that frame is left running.
#[test]
fn a_cancelled_pass_is_not_started_again_until_its_key_changes() {
    let store = ModelStore::default();
    let model = store.get("reverse").unwrap();
    let opts = ForwardOptions::default();
    let params = crate::model::weights::parameter_count(&model.config);
    store.slice_passes(web_time::Duration::ZERO, params);
    let (a, b) = (
        model.prepare("abcd", "dcba").input,
        model.prepare("abce", "ecba").input,
    );
    let runs = crate::model::transformer::forward_passes_on_this_thread;
    assert!(is_computing(
        &store.forward("reverse", &b, &opts).unwrap_err()
    ));
    store.take_arrivals();
    // This frame the view asks for `a` only: Cancel stops `a`, not `b`.
    assert!(is_computing(
        &store.forward("reverse", &a, &opts).unwrap_err()
    ));
    assert_eq!(store.passes_under_way(), 2);
    store.cancel_asked();
    assert_eq!(store.passes_under_way(), 1);
    let started = runs();
    for _ in 0..20 {
        let e = store.forward("reverse", &a, &opts).unwrap_err();
        assert!(is_cancelled(&e) && !is_computing(&e), "{e}");
        store.take_arrivals();
    }
    assert_eq!(runs(), started, "a cancelled pass was started again");
    // Meanwhile `b`, not cancelled, ran on to the memo.
    assert_eq!(store.passes_under_way(), 0);
    let whole = model.forward(&b, &opts).unwrap();
    assert_eq!(
        store.forward("reverse", &b, &opts).unwrap().logits,
        whole.logits
    );
    // A frame without `a` (the view moved on to `b`): asked again, `a` starts afresh.
    store.take_arrivals();
    let started = runs();
    assert!(is_computing(
        &store.forward("reverse", &a, &opts).unwrap_err()
    ));
    assert_eq!(runs(), started + 1);
    assert_eq!(store.passes_under_way(), 1);
    // Cancelled again, then Run again: it starts when next asked for, and ends in the memo.
    store.cancel_asked();
    assert!(is_cancelled(
        &store.forward("reverse", &a, &opts).unwrap_err()
    ));
    store.resume_asked();
    let mut frames = 0;
    let trace = loop {
        match store.forward("reverse", &a, &opts) {
            Ok(t) => break t,
            Err(e) => assert!(is_computing(&e), "{e}"),
        }
        store.take_arrivals();
        frames += 1;
        assert!(frames < 100, "still computing after {frames} frames");
    };
    assert_eq!(trace.logits, model.forward(&a, &opts).unwrap().logits);
}

/// A pass asked for its logits is the same pass, memoised on its own without the blocks'
/// intermediates, sliced or whole.
#[test]
fn a_logits_pass_keeps_no_blocks() {
    let store = ModelStore::default();
    let model = store.get("reverse").unwrap();
    let opts = ForwardOptions::default();
    let input = model.prepare("abcd", "dcba").input;
    let whole = model.forward(&input, &opts).unwrap();
    let params = crate::model::weights::parameter_count(&model.config);
    for from in [params + 1, params] {
        let store = ModelStore::default();
        store.slice_passes(web_time::Duration::ZERO, from);
        let mut frames = 0;
        let logits = loop {
            match store.forward_logits("reverse", &input, &opts) {
                Ok(t) => break t,
                Err(e) => assert!(is_computing(&e), "{e}"),
            }
            store.take_arrivals();
            frames += 1;
            assert!(frames < 100, "still computing after {frames} frames");
        };
        assert_eq!(frames > 0, from == params, "sliced only from its size");
        assert_eq!(logits.logits, whole.logits);
        for (kept, full) in [
            (&logits.encoder, &whole.encoder),
            (&logits.decoder, &whole.decoder),
        ] {
            let (kept, full) = (kept.as_ref().unwrap(), full.as_ref().unwrap());
            assert!(kept.blocks.is_empty() && !full.blocks.is_empty());
            assert_eq!(kept.output, full.output);
        }
        // The traced pass is another entry: asked for, it has its blocks.
        store.slice_passes(web_time::Duration::ZERO, params + 1);
        let traced = store.forward("reverse", &input, &opts).unwrap();
        assert!(!traced.decoder.as_ref().unwrap().blocks.is_empty());
    }
}

/// The pass a view asked for last frame advances before one left behind by a view no
/// longer drawn, so what is on screen is not held up.
#[test]
fn the_pass_on_screen_goes_before_one_left_behind() {
    let store = ModelStore::default();
    let model = store.get("reverse").unwrap();
    let opts = ForwardOptions::default();
    let params = crate::model::weights::parameter_count(&model.config);
    store.slice_passes(web_time::Duration::ZERO, params);
    let (old, new) = (
        model.prepare("abcd", "dcba").input,
        model.prepare("abce", "ecba").input,
    );
    let first = store.forward("reverse", &old, &opts).unwrap_err();
    store.take_arrivals();
    let mut frames = 0;
    while store.forward("reverse", &new, &opts).is_err() {
        store.take_arrivals();
        frames += 1;
        assert!(frames < 100, "still computing after {frames} frames");
    }
    // The old pass had its one slice before `new` was asked for, and none since.
    let left = store.forward("reverse", &old, &opts).unwrap_err();
    assert!(
        first.contains("step 0 of") && left.contains("step 1 of"),
        "{left}"
    );
}

/// A fetch that ends is turned into a model by the next frame's `take_arrivals`, whether
/// or not a view asks for that model, and the published summary changes with it.
#[test]
fn a_fetched_model_is_taken_in_and_reported() {
    let store = ModelStore::default();
    store.insert(
        "reverse",
        ModelState::Loading {
            received: 0,
            total: None,
        },
    );
    let version = store.version();
    store
        .loader
        .arrive(("reverse".into(), Ok(Payload::Builtin)));
    store.loader.arrive((
        "nowhere".into(),
        Err("models/nowhere.json: HTTP 404".into()),
    ));
    store.take_arrivals();
    assert!(store.version() > version);
    let summary = serde_json::Value::Array(store.summary());
    assert_eq!(summary[0]["name"], "nowhere");
    assert_eq!(summary[0]["state"], "failed");
    assert!(summary[0]["error"].as_str().unwrap().contains("HTTP 404"));
    assert_eq!(summary[1]["state"], "ready");
}

/// Without an engine worker (natively, the one-thread page) built-ins whose files arrive
/// together are loaded one a frame (each holds the page's thread), in the order they came,
/// and none is lost.
#[test]
fn built_ins_that_arrive_together_load_one_a_frame() {
    let store = ModelStore::default();
    for name in ["reverse", "copy"] {
        store.insert(
            name,
            ModelState::Loading {
                received: 0,
                total: None,
            },
        );
        store.loader.arrive((name.into(), Ok(Payload::Builtin)));
    }
    let ready = |name: &str| matches!(store.state(name), ModelState::Ready(_));
    store.take_arrivals();
    assert!(ready("reverse") && !ready("copy"));
    store.take_arrivals();
    assert!(ready("reverse") && ready("copy"));
}

/// A download reports its progress, then its files arrive and open as a model that the
/// summary describes with where it came from.
#[test]
fn a_downloaded_checkpoint_reports_progress_then_opens() {
    let store = ModelStore::default();
    let name = "hf:test/tiny-gpt2";
    store.insert(
        name,
        ModelState::Loading {
            received: 0,
            total: None,
        },
    );
    store.loader.report(name, 1000, Some(4000));
    store.take_arrivals();
    assert!(store.get(name).unwrap_err().contains("1000 of 4000"));
    let mut files = CheckpointFiles::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/gpt2");
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        files.add(f, std::fs::read(dir.join(f)).unwrap());
    }
    let source = "test/tiny-gpt2 on 127.0.0.1".to_string();
    store
        .loader
        .arrive((name.into(), Ok(Payload::Files(files, source.clone()))));
    // One frame says it is converting; the next ones convert, a few pieces a frame.
    store.take_arrivals();
    assert!(store.is_converting(name));
    assert!(store.get(name).unwrap_err().contains("reading the files"));
    let mut frames = 0;
    while store.is_converting(name) {
        store.take_arrivals();
        frames += 1;
        assert!(frames < 100, "still converting after {frames} frames");
    }
    let model = store.get(name).unwrap();
    assert_eq!(model.config.n_layers, 2);
    let summary = serde_json::Value::Array(store.summary());
    assert_eq!(summary[0]["source"], source.as_str());
    assert_eq!(summary[0]["architecture"], "gpt2");
    // Every frame is logged; all but the last ended on a stage the progress bar showed.
    let logged = summary[0]["conversion_frames"].as_array().unwrap();
    assert_eq!(logged.len(), frames);
    assert_eq!(logged[frames - 1]["what"], "done");
    assert!(store.knows(name) && store.opened().contains(&name.to_string()));
    // A broken download fails with the reason; asking again after `retry` starts afresh.
    store
        .loader
        .arrive(("hf:test/broken".into(), Err("test/broken: HTTP 404".into())));
    store.take_arrivals();
    assert!(store.get("hf:test/broken").unwrap_err().contains("404"));
    store.retry("hf:test/broken");
    assert!(!store.models.borrow().contains_key("hf:test/broken"));
}

#[test]
fn a_loading_or_failed_model_says_so() {
    let store = ModelStore::default();
    store.insert(
        "big",
        ModelState::Loading {
            received: 10,
            total: Some(100),
        },
    );
    assert!(store.get("big").unwrap_err().contains("10 of 100"));
    assert!(store.is_loading("big"));
    let mut slot: Slot = None;
    assert!(store.keep(&mut slot, "big").is_err());
    store.insert("big", ModelState::Ready(store.get("reverse").unwrap()));
    assert!(
        store.keep(&mut slot, "big").is_ok(),
        "a slot takes the model once it is there"
    );
    store.insert("big", ModelState::Failed("big: truncated file".into()));
    assert_eq!(store.get("big").unwrap_err(), "big: truncated file");
    store.get("reverse").unwrap();
    let summary = serde_json::Value::Array(store.summary());
    assert_eq!(summary[0]["state"], "failed");
    assert_eq!(summary[1]["name"], "reverse");
    assert_eq!(summary[1]["layers"], 2);
}

/// A pass's progress and a cancelled pass read as such in every language, even after the
/// reader switched to another one; an error does not.
#[test]
fn progress_and_cancelled_answers_are_recognised_in_every_language() {
    let answers: Vec<(String, String)> = crate::i18n::codes()
        .into_iter()
        .map(|lang| {
            crate::i18n::set(lang);
            (
                crate::t!(
                    "models-pass-computing",
                    model = "m",
                    done = 1usize,
                    all = 3usize
                ),
                crate::t!("models-pass-cancelled", model = "m"),
            )
        })
        .collect();
    crate::i18n::set(crate::i18n::ENGLISH);
    for (computing, cancelled) in &answers {
        assert!(
            is_computing(computing) && !is_cancelled(computing),
            "{computing}"
        );
        assert!(
            is_cancelled(cancelled) && !is_computing(cancelled),
            "{cancelled}"
        );
    }
    assert!(!is_unfinished("m: the input is empty"));
}
