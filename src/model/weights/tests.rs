use super::*;
use crate::model::config::tests::small;
use crate::model::config::Family;
use ndarray::IxDyn;

#[test]
fn init_then_round_trip_through_tensors() {
    for family in [Family::Encoder, Family::Decoder, Family::EncoderDecoder] {
        for pos in [
            Positional::Learned,
            Positional::Relative { max_distance: 3 },
        ] {
            let cfg = small(family, pos);
            let map = init_tensors(&cfg, 1);
            let w = Weights::from_tensors(&cfg, map.clone()).unwrap();
            assert_eq!(w.to_tensors(), map);
        }
    }
}

#[test]
fn missing_extra_misshapen_and_nan_tensors_are_named() {
    let cfg = small(Family::Decoder, Positional::None);
    let good = init_tensors(&cfg, 1);

    let mut m = good.clone();
    m.remove("dec.1.ffn.w2");
    assert_eq!(
        check_tensors(&cfg, &m),
        Err(ModelError::MissingTensor("dec.1.ffn.w2".into()))
    );

    let mut m = good.clone();
    m.insert("dec.9.ffn.w2".into(), ArrayD::zeros(IxDyn(&[2])));
    assert_eq!(
        check_tensors(&cfg, &m),
        Err(ModelError::UnexpectedTensor("dec.9.ffn.w2".into()))
    );

    let mut m = good.clone();
    m.insert("tok_embed".into(), ArrayD::zeros(IxDyn(&[3, 3])));
    assert!(matches!(
        check_tensors(&cfg, &m),
        Err(ModelError::ShapeMismatch { .. })
    ));

    let mut m = good;
    m.get_mut("dec.0.ln_attn.beta").unwrap()[[1]] = f32::NAN;
    assert_eq!(
        check_tensors(&cfg, &m),
        Err(ModelError::NonFinite("dec.0.ln_attn.beta".into()))
    );
}

#[test]
fn tied_models_have_no_lm_head_weight() {
    let mut cfg = small(Family::Decoder, Positional::None);
    cfg.tie_embeddings = true;
    assert!(!tensor_specs(&cfg)
        .iter()
        .any(|s| s.name == "lm_head.weight"));
    let w = Weights::from_tensors(&cfg, init_tensors(&cfg, 3)).unwrap();
    assert_eq!(w.output_matrix(), &w.tok_embed);
}
