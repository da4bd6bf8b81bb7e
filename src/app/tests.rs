//! The whole app, frame by frame: a frame that changes nothing runs no forward pass, and an
//! edit of the input runs exactly one.

use crate::app::labs::depth::DepthLab;
use crate::app::labs::heads::HeadsLab;
use crate::app::labs::masking::{MaskingLab, Section as MaskSection};
use crate::app::labs::positions::{PositionsLab, Section};
use crate::app::labs::rnn::RnnLab;
use crate::app::link;
use crate::app::GlimpseApp;
use crate::model::transformer::forward_passes_on_this_thread as forward_passes;
use egui_kittest::Harness;

/// Frames for a view to settle: lesson pages set themselves up, the first trace picks a head.
const SETTLE_FRAMES: usize = 6;

pub(crate) fn open(link: &str) -> Harness<'static, GlimpseApp> {
    let mut app = GlimpseApp::default();
    app.open_link(link);
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_context_setup(GlimpseApp::style)
        .build_ui_state(|ui, app: &mut GlimpseApp| app.show(ui), app)
}

#[test]
fn idle_frames_run_no_forward_pass_in_any_view() {
    for link in link::every_view() {
        let mut h = open(&link);
        h.run_steps(SETTLE_FRAMES);
        // The extrapolation table measures a little every frame until it is full: fill it.
        let app = h.state_mut();
        let positions = app.labs.get_mut::<PositionsLab>().unwrap();
        if positions.section == Section::Extrapolation {
            while positions.extrapolation.measure_next(&app.store) {}
            h.run_steps(2);
        }
        // The position probe runs passes, then fits, a slice every frame: let it finish.
        for _ in 0..2000 {
            let positions = h.state().labs.get::<PositionsLab>().unwrap();
            if positions.section != Section::Depth || !positions.depth.pending() {
                break;
            }
            h.run_steps(1);
        }
        // Exposure bias (teacher forcing) measures a few examples every frame: let it finish.
        for _ in 0..200 {
            let masking = h.state().labs.get::<MaskingLab>().unwrap();
            if masking.section != MaskSection::TeacherForcing || !masking.teacher.exposure.pending()
            {
                break;
            }
            h.run_steps(1);
        }
        // Ranking heads scores a few heads every frame until it is done: let it finish.
        for _ in 0..2000 {
            if !h.state().labs.get::<HeadsLab>().unwrap().ranking_pending() {
                break;
            }
            h.run_steps(1);
        }
        // A page that starts training (Depth, RNN) keeps working until paused: pause it, as a
        // student would, and let the paused view measure what it shows once.
        let labs = &mut h.state_mut().labs;
        let heads = labs.get_mut::<HeadsLab>().unwrap();
        heads.kv_race.running = false;
        heads.count_race.running = false;
        labs.get_mut::<DepthLab>().unwrap().training.running = false;
        labs.get_mut::<RnnLab>().unwrap().running = false;
        h.run_steps(2);
        let before = forward_passes();
        h.run_steps(5);
        let after = forward_passes();
        assert_eq!(
            after,
            before,
            "{link}: idle frames ran {} forward passes",
            after - before
        );
    }
}

#[test]
fn an_edit_runs_exactly_one_forward_pass() {
    for view in ["attention", "scoring"] {
        let mut h = open(&format!("view={view}&model=translate"));
        h.run_steps(SETTLE_FRAMES);
        let before = forward_passes();
        h.state_mut().bench.source = "la zone".into();
        h.run_steps(3);
        let after = forward_passes();
        assert_eq!(after, before + 1, "{view}");
        let trace = h.state().bench.trace().expect("a trace");
        let tokens = &trace.encoder.as_ref().expect("an encoder").tokens;
        assert!(
            tokens.iter().any(|t| t.contains("zone")),
            "{view}: {tokens:?}"
        );
    }
}

/// `glimpse --model PATH`: a real checkpoint opened in the app, every view on the shared input
/// drawn on it (the heatmap is the model's own weights for the selected head), idle frames
/// computing nothing, and a link naming it reproducing the view.
#[test]
fn a_real_checkpoint_opens_in_every_view_on_the_shared_input() {
    use crate::app::labs::attention::lab::AttentionLab;
    let checkpoints = [
        crate::util::real_models::minilm(),
        crate::util::real_models::smollm2(),
    ];
    for path in checkpoints.into_iter().flatten() {
        let mut app = GlimpseApp::default();
        let name = app.open_model_path(&path).expect("the checkpoint opens");
        let mut h = Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(GlimpseApp::style)
            .build_ui_state(|ui, app: &mut GlimpseApp| app.show(ui), app);
        let views = [
            "view=attention&xv=head",
            "view=attention&xv=grid",
            "view=attention&xv=lines",
            "view=attention&xv=walk",
            "view=masking&ms=0",
            "view=masking&ms=1",
            "view=scoring",
            "view=positions&ps=7",
        ];
        for view in views {
            let link = format!("{view}&model={name}");
            h.state_mut().open_link(&link);
            h.run_steps(SETTLE_FRAMES);
            let app = h.state();
            assert!(app.nav.notices.is_empty(), "{link}: {:?}", app.nav.notices);
            assert_eq!(app.bench.model_name, name);
            let trace = app
                .bench
                .trace()
                .unwrap_or_else(|| panic!("{link}: no trace"));
            assert_eq!(trace.model, name);
            let before = forward_passes();
            h.run_steps(3);
            assert_eq!(forward_passes(), before, "{link}: idle frames computed");
        }
        // Padding in a batch with the padding mask: no weight on padding, real tokens unchanged
        // (BERT pads with its own [PAD] and token type 0).
        {
            use crate::app::labs::masking::batch::{batch_report, default_texts};
            let store = &h.state().store;
            let stored = store.stored(&name).unwrap();
            for r in batch_report(&stored, &default_texts(&stored), true, 2).unwrap() {
                assert_eq!(r.pad_weight, 0.0, "{name}");
                assert!(r.drift < 1e-4, "{name}: drift {}", r.drift);
            }
        }
        // The One head view drew the selected head's weights of this model.
        h.state_mut().open_link(&format!(
            "view=attention&xv=head&model={name}&layer=1&head=2"
        ));
        h.run_steps(SETTLE_FRAMES);
        let app = h.state();
        let probe = app
            .lab::<AttentionLab>()
            .last_probe
            .clone()
            .expect("a heatmap");
        assert_eq!(
            (probe.model.as_str(), probe.layer, probe.head),
            (name.as_str(), 1, 2)
        );
        let sel = app.bench.sel;
        let weights = app.bench.trace().unwrap().weights(sel.kind, 1).unwrap();
        let head = weights.index_axis(ndarray::Axis(0), 2);
        assert_eq!(probe.heatmap.rows, head.nrows());
        assert_eq!(probe.heatmap.values[0], head.row(0).to_vec());
    }
}

#[test]
fn a_checkpoint_that_does_not_open_leaves_the_current_model() {
    let dir = std::env::temp_dir().join(format!("glimpse-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), "{\"model_type\": \"bert\"").unwrap();
    let mut app = GlimpseApp::default();
    let err = app.open_model_path(&dir).unwrap_err();
    assert!(err.contains("could not open"), "{err}");
    assert_eq!(app.nav.notices, vec![err]);
    assert_eq!(app.bench.model_name, "translate");
    assert!(app.bench.model.is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

/// The decoding lab on the picked model: SmolLM2 from its GGUF continues "The capital of
/// France is" with " Paris" (greedy, as transformers does); an encoder (MiniLM) is refused
/// with the reason.
#[test]
fn the_decoding_lab_runs_on_the_picked_model() {
    use crate::app::labs::decoding::DecodingLab;
    let bert_mlm =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/bert-mlm");
    let checkpoints = [
        (crate::util::real_models::smollm2(), true),
        (crate::util::real_models::minilm(), false),
        (Some(bert_mlm), false),
    ];
    for (path, decoder) in checkpoints {
        let Some(path) = path else { continue };
        let mut app = GlimpseApp::default();
        let name = app.open_model_path(&path).expect("the checkpoint opens");
        app.open_link(&format!(
            "view=decoding&model={name}&ds=picked&beam=2&maxlen=3"
        ));
        let mut h = Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .with_context_setup(GlimpseApp::style)
            .build_ui_state(|ui, app: &mut GlimpseApp| app.show(ui), app);
        h.run_steps(SETTLE_FRAMES);
        let lab = h.state().lab::<DecodingLab>();
        assert_eq!(lab.settings.picked_model, name);
        match (decoder, &lab.search) {
            (true, Some(Ok(search))) => {
                let (tokens, _) = search
                    .greedy
                    .as_ref()
                    .expect("greedy decoding has run within the frames")
                    .as_ref()
                    .expect("greedy decoding");
                assert_eq!(
                    tokens.first().map(String::as_str),
                    Some(" Paris"),
                    "{tokens:?}"
                );
            }
            // An encoder fills in blanks instead: candidates from a masked-LM head, or why
            // there are none (MiniLM was saved without its head).
            (false, None) => match lab.fill_mask.result() {
                Some(Ok(slots)) => {
                    assert_eq!(slots.len(), 1);
                    assert_eq!(slots[0].candidates.len(), 8);
                }
                Some(Err(e)) => assert!(e.contains("no masked-language-model head"), "{e}"),
                None => panic!("{name}: nothing shown"),
            },
            (_, other) => panic!("{name}: {:?}", other.as_ref().map(|r| r.as_ref().err())),
        }
        // The export menu offers what the view shows: the beam tree, or the candidates.
        use egui_kittest::kittest::Queryable;
        h.get_by_label("export view ▾").click();
        h.run_steps(2);
        let item = if decoder {
            "beam tree as JSON"
        } else {
            "candidates as JSON"
        };
        h.get_by_label(item);
    }
}

/// Files handed over by the page (picked or dropped) open as a model the app shows, with what
/// was opened in the store; hostile files are refused with the reason and the model stays.
#[test]
fn opened_files_are_shown_and_hostile_ones_refused() {
    use crate::app::models::open_dialog::OpenRequest;
    use crate::model::import::CheckpointFiles;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf/gpt2");
    let files = |weights: &dyn Fn(Vec<u8>) -> Vec<u8>| {
        let mut f = CheckpointFiles::new();
        for name in ["config.json", "tokenizer.json", "model.safetensors"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let bytes = if name == "model.safetensors" {
                weights(bytes)
            } else {
                bytes
            };
            f.add(&format!("tiny-gpt2/{name}"), bytes);
        }
        f
    };
    let mut h = open("view=attention&model=translate");
    h.run_steps(SETTLE_FRAMES);
    let request = OpenRequest::Files(Some("tiny-gpt2".into()), files(&|b| b));
    h.state_mut().open_request(request);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.bench.model_name, "tiny-gpt2");
    assert!(
        app.bench.trace().is_some(),
        "the opened model runs on the input"
    );
    let info = app.store.info("tiny-gpt2").expect("what was opened");
    assert_eq!(info.model_type, "gpt2");
    assert!(app.store.opened().contains(&"tiny-gpt2".to_string()));

    let truncated = |b: Vec<u8>| b[..b.len() / 2].to_vec();
    let request = OpenRequest::Files(Some("broken".into()), files(&truncated));
    h.state_mut().open_request(request);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.bench.model_name, "tiny-gpt2", "the model before stays");
    assert!(
        app.nav
            .notices
            .iter()
            .any(|n| n.contains("could not open the files")),
        "{:?}",
        app.nav.notices
    );
}

/// A model that fails to arrive (natively, any hub link) leaves the view with its reason and
/// the model shown before comes back.
#[test]
fn a_model_that_fails_to_arrive_falls_back_with_the_reason() {
    let mut h = open("view=attention&model=translate");
    h.run_steps(SETTLE_FRAMES);
    let request = crate::app::models::open_dialog::OpenRequest::Name("hf:test/tiny-gpt2".into());
    h.state_mut().open_request(request);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(app.bench.model_name, "translate");
    assert!(
        app.nav.notices.iter().any(|n| n.contains("test/tiny-gpt2")),
        "{:?}",
        app.nav.notices
    );
    assert!(app.bench.trace().is_some());
}

/// A toy model says it is one, and names each typed word it does not know with the nearest
/// ones it does, instead of a silent <unk>.
#[test]
fn a_toy_model_names_the_words_it_does_not_know() {
    use egui_kittest::kittest::Queryable;
    let mut h = open("view=attention&model=translate&src=le%20lapin%20noir&tgt=the");
    h.run_steps(SETTLE_FRAMES);
    h.get_by_label_contains("translate is a toy model: it knows only 56 words");
    let tokenizer = &h.state().bench.model.as_ref().unwrap().tokenizer;
    let unknown = crate::model::vocabulary::unknown_pieces(tokenizer, "le lapin noir", 3);
    assert_eq!(unknown.len(), 1);
    let note = format!(
        "“lapin” is not in its vocabulary (read as <unk>); nearest: {}",
        unknown[0].nearest.join(", ")
    );
    h.get_by_label(&note);
    // A real checkpoint's sub-word tokenizer reads any text: no such note.
    let mut h = open("view=attention&model=sotu-lm&src=Zyzzyva%20lapin");
    h.run_steps(SETTLE_FRAMES);
    assert!(h
        .query_by_label_contains("is not in its vocabulary")
        .is_none());
    assert!(h.query_by_label_contains("is a toy model").is_none());
}

/// The browser's way (a frame budget): the pass runs a block per frame while the app keeps
/// drawing the trace before it, ends with the whole pass's numbers, counts as one pass, and
/// Cancel stops it and puts back the text whose numbers are shown.
#[test]
fn a_pass_in_slices_keeps_drawing_and_can_be_cancelled() {
    use egui_kittest::kittest::Queryable;
    let mut h = open("view=attention&model=translate");
    h.run_steps(SETTLE_FRAMES);
    let shown = h.state().bench.source.clone();
    h.state_mut().bench.frame_budget = Some(web_time::Duration::ZERO);
    let before = forward_passes();
    h.state_mut().bench.source = "la zone".into();
    h.run_steps(1);
    assert!(h.state().bench.is_computing());
    // This app's own summary: the probe's slot is one for the process, and the tests that
    // run beside this one publish theirs into it.
    let summary = h.state().bench.compute_summary().to_string();
    assert!(summary.contains(r#""pass":{"done":1"#), "{summary}");
    // Meanwhile the view still shows the text before.
    let tokens = |h: &Harness<'static, GlimpseApp>| {
        let trace = h.state().bench.trace().expect("a trace");
        trace.encoder.as_ref().expect("an encoder").tokens.join(" ")
    };
    let before_edit = tokens(&h);
    assert!(before_edit.contains("européenne"), "{before_edit}");
    let mut frames = 1;
    while h.state().bench.is_computing() {
        h.run_steps(1);
        frames += 1;
        assert!(frames < 50, "the pass never ended");
    }
    let model = h.state().bench.model.clone().unwrap();
    let blocks = [&model.weights.encoder, &model.weights.decoder]
        .iter()
        .filter_map(|s| s.as_ref())
        .map(|s| s.blocks.len())
        .sum::<usize>();
    // One block per frame, then the output layer (its small vocabulary in one band).
    assert_eq!(frames, blocks + 1, "one step per frame");
    assert_eq!(forward_passes(), before + 1);
    assert!(!tokens(&h).contains("européenne"), "{}", tokens(&h));
    let prepared = model.prepare("la zone", &h.state().bench.target);
    let whole = model
        .forward(&prepared.input, &crate::model::ForwardOptions::default())
        .unwrap();
    assert_eq!(h.state().bench.trace().unwrap().logits, whole.logits);

    // A longer text, cancelled part-way: the text goes back to what the view shows.
    h.state_mut().bench.source = "la zone économique".into();
    h.run_steps(1);
    assert!(h.state().bench.is_computing(), "{blocks} blocks");
    // The accessibility click arrives in one frame (a pointer click takes three, and this
    // pass has only four blocks).
    h.get_by_label("Cancel").click_accesskit();
    h.run_steps(1);
    assert!(!h.state().bench.is_computing());
    assert_eq!(h.state().bench.source, "la zone");
    assert!(!tokens(&h).contains("économique"), "{}", tokens(&h));
    assert_ne!(shown, "la zone");
}
