use super::*;
use ndarray::array;

#[test]
fn masks_have_their_shapes() {
    let c = causal_mask(&[0, 1, 2], &[0, 1, 2]);
    assert_eq!(
        c,
        array![
            [true, false, false],
            [true, true, false],
            [true, true, true]
        ]
    );
    let p = prefix_mask(4, 2);
    assert!(p[[0, 1]] && !p[[0, 2]] && p[[2, 1]] && !p[[2, 3]] && p[[3, 3]]);
    let mut f = full_mask(2, 3);
    block_keys(&mut f, &[false, true, false]);
    assert_eq!(f, array![[true, false, true], [true, false, true]]);
}

#[test]
fn heads_split_and_merge_back() {
    let x = Array2::from_shape_fn((3, 6), |(r, c)| (r * 10 + c) as f32);
    let h = split_heads(x.view(), 3, 2);
    assert_eq!(h[[1, 2, 0]], x[[2, 2]]);
    assert_eq!(merge_heads(&h), x);
}

#[test]
fn divisor_is_sqrt_dk_times_temperature() {
    assert_eq!(score_divisor(Scoring::ScaledDot, 64, 1.0), 8.0);
    assert_eq!(score_divisor(Scoring::ScaledDot, 16, 0.5), 2.0);
    assert_eq!(score_divisor(Scoring::Additive, 16, 2.0), 2.0);
}
