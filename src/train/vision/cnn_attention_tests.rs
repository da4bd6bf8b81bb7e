use super::*;
use crate::train::vision::{example, VisionTask, IMAGE_SIDE};

fn larger_image() -> Array2<f32> {
    example(VisionTask::Larger, 0).expect("gallery image").0
}

/// The block written out pixel pair by pixel pair, in f64, straight from the notes' formulas:
/// S_(i,j),(k,l) = Σ_c′ Q[c′,i,j] K[c′,k,l] / √C′, A = softmax over (k,l),
/// O′[c′,(i,j)] = Σ_(k,l) A_(i,j),(k,l) V[c′,k,l], O = W_O O′ + b_O + X.
fn by_loops(block: &CnnAttention, image: ArrayView2<f32>) -> (Vec<Vec<f64>>, Array3<f64>) {
    let x = feature_map(image).mapv(f64::from);
    let (c, h, w) = x.dim();
    let n = h * w;
    let project = |wm: &Array2<f32>, b: &Array1<f32>, p: usize| -> Vec<f64> {
        (0..wm.nrows())
            .map(|o| {
                (0..c)
                    .map(|ch| f64::from(wm[[o, ch]]) * x[[ch, p / w, p % w]])
                    .sum::<f64>()
                    + f64::from(b[o])
            })
            .collect()
    };
    let q: Vec<Vec<f64>> = (0..n).map(|p| project(&block.wq, &block.bq, p)).collect();
    let k: Vec<Vec<f64>> = (0..n).map(|p| project(&block.wk, &block.bk, p)).collect();
    let v: Vec<Vec<f64>> = (0..n).map(|p| project(&block.wv, &block.bv, p)).collect();
    let reduced = block.wq.nrows() as f64;
    let mut a = vec![vec![0.0; n]; n];
    for i in 0..n {
        let s: Vec<f64> = (0..n)
            .map(|j| q[i].iter().zip(&k[j]).map(|(a, b)| a * b).sum::<f64>() / reduced.sqrt())
            .collect();
        let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = s.iter().map(|s| (s - max).exp()).sum();
        for j in 0..n {
            a[i][j] = (s[j] - max).exp() / z;
        }
    }
    let mut out = x.clone();
    for p in 0..n {
        let o_prime: Vec<f64> = (0..v[0].len())
            .map(|ch| (0..n).map(|j| a[p][j] * v[j][ch]).sum())
            .collect();
        for ch in 0..c {
            let projected: f64 = o_prime
                .iter()
                .enumerate()
                .map(|(r, o)| f64::from(block.wo[[ch, r]]) * o)
                .sum::<f64>()
                + f64::from(block.bo[ch]);
            out[[ch, p / w, p % w]] += projected;
        }
    }
    (a, out)
}

#[test]
fn the_block_matches_the_formulas_written_out_pixel_by_pixel() {
    let image = larger_image();
    for choice in [CnnWeights::Ink, CnnWeights::Edges, CnnWeights::Random(7)] {
        let block = CnnAttention::new(choice, 2.5);
        let trace = block.forward(image.view());
        let (a, out) = by_loops(&block, image.view());
        let n = IMAGE_SIDE * IMAGE_SIDE;
        assert_eq!(trace.weights.dim(), (n, n));
        for (i, row) in a.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                let d = (f64::from(trace.weights[[i, j]]) - want).abs();
                assert!(d < 1e-5, "{choice:?} A[{i},{j}] off by {d}");
            }
        }
        for (got, want) in trace.output.iter().zip(out.iter()) {
            assert!(
                (f64::from(*got) - want).abs() < 1e-4,
                "{choice:?} {got} {want}"
            );
        }
        assert_eq!(trace.output.dim(), trace.features.dim());
    }
}

/// A 1×1 convolution is one matrix product on the C × N flattening: the same matrix at every
/// pixel.
#[test]
fn a_one_by_one_convolution_is_a_matrix_product_on_the_pixels() {
    let block = CnnAttention::new(CnnWeights::Random(3), 1.0);
    let x = feature_map(larger_image().view());
    let conv = flatten(&conv1x1(&block.wq, &block.bq, &x));
    let product = block.wq.dot(&flatten(&x)) + block.bq.view().insert_axis(Axis(1));
    for (a, b) in conv.iter().zip(product.iter()) {
        assert!((a - b).abs() < 1e-6);
    }
    assert_eq!(conv.dim(), (REDUCED, IMAGE_SIDE * IMAGE_SIDE));
    // Three 2 × 4 matrices with 2 biases, and one 4 × 2 with 4: 42 numbers at any image size.
    assert_eq!(block.parameters(), 3 * (2 * 4 + 2) + (4 * 2 + 4));
}

/// The filters name what they find: a square's top row is + on the top-edge channel and its
/// bottom row −; its left column + on the left-edge channel.
#[test]
fn the_feature_channels_find_ink_and_edges() {
    let mut image = Array2::zeros((16, 16));
    image.slice_mut(ndarray::s![5..9, 5..9]).fill(1.0);
    let x = feature_map(image.view());
    assert_eq!(x[[0, 6, 6]], 1.0);
    assert_eq!(x[[0, 2, 2]], 0.0);
    assert!((x[[1, 6, 6]] - 1.0).abs() < 1e-6 && (x[[1, 4, 4]] - 1.0 / 9.0).abs() < 1e-6);
    assert!(x[[2, 5, 6]] > 0.3 && x[[2, 8, 6]] < -0.3 && x[[2, 6, 6]].abs() < 1e-6);
    assert!(x[[3, 6, 5]] > 0.3 && x[[3, 6, 8]] < -0.3 && x[[3, 6, 6]].abs() < 1e-6);
}

/// With the ink weights a pixel on a square gives nearly all its weight to ink, most of it
/// beyond the 3×3 window a convolution there sees; a blank pixel's query is zero, so it
/// spreads evenly, 1/N to each pixel.
#[test]
fn ink_finds_ink_far_beyond_the_kernel() {
    let image = larger_image();
    let trace = CnnAttention::new(CnnWeights::Ink, 3.0).forward(image.view());
    let ink: Vec<usize> = (0..256)
        .filter(|&p| image[[p / 16, p % 16]] > 0.5)
        .collect();
    let on = ink[0];
    let to_ink: f32 = ink.iter().map(|&p| trace.weights[[on, p]]).sum();
    assert!(to_ink > 0.95, "{to_ink}");
    assert!(trace.weight_beyond_kernel(on) > 0.5);
    let blank = (0..256)
        .find(|&p| {
            trace
                .features
                .slice(ndarray::s![.., p / 16, p % 16])
                .iter()
                .all(|&v| v == 0.0)
        })
        .expect("a pixel far from both squares");
    for &a in trace.weights.row(blank) {
        assert!((a - 1.0 / 256.0).abs() < 1e-7);
    }
}

/// With the edge weights, a top-edge pixel of one square gives more weight to the other
/// square's top edge than to its own square's bottom edge.
#[test]
fn edges_find_like_edges() {
    let mut image = Array2::zeros((16, 16));
    image.slice_mut(ndarray::s![2..5, 2..5]).fill(1.0);
    image.slice_mut(ndarray::s![9..14, 8..13]).fill(1.0);
    let trace = CnnAttention::new(CnnWeights::Edges, 3.0).forward(image.view());
    let at = |r: usize, c: usize| r * 16 + c;
    let top_of_first = at(2, 3);
    let other_top = trace.weights[[top_of_first, at(9, 10)]];
    let own_bottom = trace.weights[[top_of_first, at(4, 3)]];
    assert!(other_top > 10.0 * own_bottom, "{other_top} {own_bottom}");
}

/// Moving the picture moves the attention with it (the shapes stay inside the frame): the
/// block treats every pixel alike, like the convolutions around it.
#[test]
fn shifting_the_image_shifts_the_attention() {
    let mut image = Array2::zeros((16, 16));
    image.slice_mut(ndarray::s![3..6, 2..5]).fill(1.0);
    image.slice_mut(ndarray::s![8..12, 7..11]).fill(1.0);
    let mut shifted = Array2::zeros((16, 16));
    shifted
        .slice_mut(ndarray::s![2..14, 2..14])
        .assign(&image.slice(ndarray::s![0..12, 0..12]));
    let block = CnnAttention::new(CnnWeights::Random(5), 2.0);
    let (a, b) = (block.forward(image.view()), block.forward(shifted.view()));
    let moved = |p: usize| (p / 16 + 2) * 16 + p % 16 + 2;
    for q in [3 * 16 + 2, 9 * 16 + 8, 11 * 16 + 10] {
        for p in (0..256).filter(|p| p / 16 < 12 && p % 16 < 12) {
            let (x, y) = (a.weights[[q, p]], b.weights[[moved(q), moved(p)]]);
            assert!((x - y).abs() < 1e-6, "{q} {p}: {x} vs {y}");
        }
    }
}
