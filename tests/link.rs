//! Links reproduce views: for random states of every view, opening the link a state gives
//! reproduces the same state; arbitrary text as a hash never panics.

use glimpse::app::link::{apply, encode, escape};
use glimpse::app::GlimpseApp;
use proptest::prelude::*;

const VIEWS: [&str; 7] = [
    "attention",
    "masking",
    "positions",
    "decoding",
    "scoring",
    "training",
    "lessons",
];
const MODELS: [&str; 5] = ["translate", "reverse", "lm", "repeat", "demo-encoder"];

prop_compose! {
    fn state()(
        view in 0..VIEWS.len(),
        model in 0..MODELS.len(),
        src in "[a-z ]{1,12}",
        layer in 0usize..2,
        head in 0usize..4,
        tau in 1u32..40,
        xv in 0usize..4,
        pre in any::<bool>(),
        ms in 0usize..4,
        mm in 0usize..6,
        pads in 0usize..6,
        prefix in 0usize..12,
        ps in 0usize..7,
        ds in 0usize..3,
        beam in 1usize..8,
        alpha in 0u32..20,
        seed in any::<u32>(),
        present in any::<bool>(),
        theme in 0usize..3,
        hide in 0usize..4,
        lesson in 0usize..6,
        page in 0usize..2,
        task in 0usize..6,
        pe in 0usize..6,
        width in 0usize..3,
        dk in 1u32..9,
    ) -> String {
        let hide = ["", "&hide=controls", "&hide=tabs", "&hide=controls,tabs"][hide];
        format!(
            "v=1&view={}&model={}&src={}&layer={layer}&head={head}&tau={}&xv={}&pre={}&ms={ms}&mm={mm}&pads={pads}&prefix={prefix}&ps={ps}&ds={}&beam={beam}&alpha={}&seed={seed}&present={}&theme={}&lesson={lesson}&page={page}&task={}&pe={}&width={}&stau=0.5&dk={}{hide}",
            VIEWS[view], MODELS[model], escape(&src), tau as f32 / 10.0,
            ["head", "grid", "lines", "walk"][xv], pre as u8,
            ["translate", "lm", "table"][ds], alpha as f32 / 10.0, present as u8,
            ["dark", "light", "contrast"][theme],
            ["copy", "reverse", "sort", "repeat", "translate", "lm"][task],
            ["none", "sinusoidal", "learned", "rope", "alibi", "relative"][pe],
            [16, 32, 64][width],
            1u32 << dk,
        )
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_state_round_trips_through_its_link(hash in state()) {
        let mut a = GlimpseApp::default();
        let notices = apply(&mut a, &hash);
        prop_assert!(notices.is_empty(), "{:?}", notices);
        let link = encode(&a);
        let mut b = GlimpseApp::default();
        let hash_b = format!("#{}", link);
        prop_assert!(apply(&mut b, &hash_b).is_empty());
        prop_assert_eq!(encode(&b), link);
    }

    #[test]
    fn any_text_as_a_hash_is_survivable(text in "\\PC{0,200}") {
        let mut a = GlimpseApp::default();
        let _ = apply(&mut a, &text);
        let _ = encode(&a);
    }
}
