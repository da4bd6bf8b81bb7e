//! Procedurally generated image tasks: no dataset to download, an endless supply of images,
//! and labels that are right by construction.
//!
//! Images are 16×16 grayscale, pixels in [0, 1] (0 = background, 1 = ink), stored as an
//! `Array2<f32>` indexed (row, column). Both tasks need the patches to talk to each other,
//! which is what attention is for:
//! - `Larger`: two filled squares of different sizes; is the larger one left or right of the
//!   smaller? The answer relates two patches (or groups of patches) to each other.
//! - `Count`: 1–4 filled 2×2 squares; how many? A square can straddle up to four patches, so
//!   the pieces must be put together before counting.

use crate::util::rng::Rng;
use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// Side of every task image, in pixels.
pub const IMAGE_SIDE: usize = 16;

/// Largest grid `from_cells` accepts (the app's drawing grid is far smaller).
const MAX_CELLS_SIDE: usize = 64;

/// One in this many images (by a hash of its pixels) is held out: training never sees it.
const HELD_OUT_EVERY: u64 = 8;

/// A procedurally generated classification task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VisionTask {
    /// Two squares of different sizes: is the larger one left (0) or right (1) of the smaller?
    Larger,
    /// 1–4 separate 2×2 squares: how many (label = count − 1)?
    Count,
}

/// Which stream of images: the two never share an image (see `VisionTask::sample_split`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Split {
    Train,
    HeldOut,
}

/// A filled axis-aligned square: top-left corner and side length, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Square {
    row: usize,
    col: usize,
    side: usize,
}

impl Square {
    /// Twice the x coordinate of the centre, kept whole: 2·col + side − 1.
    fn centre_x2(&self) -> usize {
        2 * self.col + self.side - 1
    }

    /// Neither overlapping nor touching, not even at a corner: one whole pixel between them.
    fn apart_from(&self, other: &Square) -> bool {
        self.row + self.side < other.row
            || other.row + other.side < self.row
            || self.col + self.side < other.col
            || other.col + other.side < self.col
    }
}

impl VisionTask {
    pub const ALL: [VisionTask; 2] = [VisionTask::Larger, VisionTask::Count];

    /// The short name links and the command line use.
    pub fn code(&self) -> &'static str {
        match self {
            VisionTask::Larger => "larger",
            VisionTask::Count => "count",
        }
    }

    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }

    /// Steps a run trains for: where seed 1 passes 90 % held out (`train`'s tests).
    pub fn steps(&self) -> u64 {
        match self {
            VisionTask::Larger => 1600,
            VisionTask::Count => 400,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            VisionTask::Larger => "larger square: left or right?",
            VisionTask::Count => "count the squares",
        }
    }

    pub fn classes(&self) -> usize {
        self.class_names().len()
    }

    pub fn class_names(&self) -> &'static [&'static str] {
        match self {
            VisionTask::Larger => &["left", "right"],
            VisionTask::Count => &["1", "2", "3", "4"],
        }
    }

    /// One random image and its label, from either split.
    pub fn sample(&self, rng: &mut Rng) -> (Array2<f32>, usize) {
        let squares = match self {
            VisionTask::Larger => larger_squares(rng),
            VisionTask::Count => count_squares(rng),
        };
        (render(&squares), self.label(&squares))
    }

    /// One random image of `split`: images are drawn as by `sample` and kept only if their
    /// pixel hash puts them in that split, so no training image is ever a held-out one.
    pub fn sample_split(&self, rng: &mut Rng, split: Split) -> (Array2<f32>, usize) {
        loop {
            let (image, label) = self.sample(rng);
            if split_of(&image) == split {
                return (image, label);
            }
        }
    }

    fn label(&self, squares: &[Square]) -> usize {
        match (self, squares) {
            (VisionTask::Larger, [a, b]) => {
                let (big, small) = if a.side > b.side { (a, b) } else { (b, a) };
                usize::from(big.centre_x2() > small.centre_x2())
            }
            (VisionTask::Larger, _) => 0,
            (VisionTask::Count, _) => squares.len().clamp(1, 4) - 1,
        }
    }
}

/// Two squares with different sides in 1..=5, apart, their centres at different x.
fn larger_squares(rng: &mut Rng) -> Vec<Square> {
    loop {
        let (s1, s2) = (1 + rng.below(5), 1 + rng.below(5));
        if s1 == s2 {
            continue;
        }
        let a = random_square(rng, s1);
        let b = random_square(rng, s2);
        // Resample rather than leave "left or right" undefined.
        if a.apart_from(&b) && a.centre_x2() != b.centre_x2() {
            return vec![a, b];
        }
    }
}

/// 1–4 (uniformly) 2×2 squares, pairwise apart.
fn count_squares(rng: &mut Rng) -> Vec<Square> {
    let n = 1 + rng.below(4);
    loop {
        let mut squares: Vec<Square> = Vec::with_capacity(n);
        // Four 2×2 squares always fit in 16×16; a crowded layout just starts again.
        for _ in 0..50 {
            let s = random_square(rng, 2);
            if squares.iter().all(|o| o.apart_from(&s)) {
                squares.push(s);
                if squares.len() == n {
                    return squares;
                }
            }
        }
    }
}

fn random_square(rng: &mut Rng, side: usize) -> Square {
    let room = IMAGE_SIDE + 1 - side;
    Square {
        row: rng.below(room),
        col: rng.below(room),
        side,
    }
}

fn render(squares: &[Square]) -> Array2<f32> {
    let mut image = Array2::zeros((IMAGE_SIDE, IMAGE_SIDE));
    for s in squares {
        for r in s.row..(s.row + s.side).min(IMAGE_SIDE) {
            for c in s.col..(s.col + s.side).min(IMAGE_SIDE) {
                image[(r, c)] = 1.0;
            }
        }
    }
    image
}

/// FNV-1a over which pixels are inked: the same picture always lands in the same split.
fn split_of(image: &Array2<f32>) -> Split {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &v in image.iter() {
        h ^= u64::from(v > 0.5);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // FNV's low bits mix poorly; the SplitMix64 finaliser spreads every bit over the top ones.
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^= h >> 31;
    if (h >> 32).is_multiple_of(HELD_OUT_EVERY) {
        Split::HeldOut
    } else {
        Split::Train
    }
}

/// An image from a user-drawn grid of `side`×`side` cells, row by row (true = ink).
pub fn from_cells(cells: &[bool], side: usize) -> Result<Array2<f32>, String> {
    if side == 0 || side > MAX_CELLS_SIDE {
        return Err(format!(
            "a drawn grid must be 1 to {MAX_CELLS_SIDE} cells wide, not {side}"
        ));
    }
    if cells.len() != side * side {
        return Err(format!(
            "a {side}×{side} grid has {} cells, got {}",
            side * side,
            cells.len()
        ));
    }
    Array2::from_shape_vec(
        (side, side),
        cells.iter().map(|&c| if c { 1.0 } else { 0.0 }).collect(),
    )
    .map_err(|e| e.to_string())
}

/// Squares of the fixed gallery: (row, col, side).
const LARGER_GALLERY: [[(usize, usize, usize); 2]; 6] = [
    [(2, 1, 5), (9, 12, 2)],  // big top-left, small bottom-right: left
    [(10, 11, 4), (3, 2, 1)], // big bottom-right: right
    [(6, 3, 3), (6, 10, 2)],  // same row, similar sizes: left
    [(1, 9, 5), (12, 6, 3)],  // big above and a little right: right
    [(0, 0, 1), (11, 11, 5)], // tiny in a corner: right
    [(9, 2, 2), (2, 12, 1)],  // two small ones: left
];
const COUNT_GALLERY: [&[(usize, usize)]; 6] = [
    &[(7, 7)],                             // one square astride four patches
    &[(1, 1), (12, 13)],                   // two, in opposite corners
    &[(2, 2), (2, 9), (10, 5)],            // three
    &[(1, 1), (1, 12), (12, 1), (12, 12)], // four, one per corner
    &[(3, 3), (3, 6)],                     // two close together (one pixel apart)
    &[(5, 0), (0, 10), (13, 6), (8, 14)],  // four along the edges
];

/// The app's "pick an image" gallery: six fixed images per task with their labels.
pub fn examples(task: VisionTask) -> Vec<(Array2<f32>, usize)> {
    let layouts: Vec<Vec<Square>> = match task {
        VisionTask::Larger => LARGER_GALLERY
            .iter()
            .map(|pair| {
                pair.iter()
                    .map(|&(row, col, side)| Square { row, col, side })
                    .collect()
            })
            .collect(),
        VisionTask::Count => COUNT_GALLERY
            .iter()
            .map(|list| {
                list.iter()
                    .map(|&(row, col)| Square { row, col, side: 2 })
                    .collect()
            })
            .collect(),
    };
    layouts
        .iter()
        .map(|squares| (render(squares), task.label(squares)))
        .collect()
}

/// Gallery image `index` (0..6) of `task`, or None past the end.
pub fn example(task: VisionTask, index: usize) -> Option<(Array2<f32>, usize)> {
    examples(task).into_iter().nth(index)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The inked components (4-connected), each as its bounding box (row, col, height, width)
    /// and pixel count, found by flood fill: an independent reading of the picture.
    pub(crate) fn components(image: &Array2<f32>) -> Vec<(usize, usize, usize, usize, usize)> {
        let (h, w) = image.dim();
        let mut seen = Array2::from_elem((h, w), false);
        let mut out = Vec::new();
        for start in 0..h * w {
            let (r0, c0) = (start / w, start % w);
            if image[(r0, c0)] < 0.5 || seen[(r0, c0)] {
                continue;
            }
            let (mut top, mut left, mut bottom, mut right, mut count) = (r0, c0, r0, c0, 0);
            let mut stack = vec![(r0, c0)];
            seen[(r0, c0)] = true;
            while let Some((r, c)) = stack.pop() {
                count += 1;
                (top, left) = (top.min(r), left.min(c));
                (bottom, right) = (bottom.max(r), right.max(c));
                let near = [
                    (r.wrapping_sub(1), c),
                    (r + 1, c),
                    (r, c.wrapping_sub(1)),
                    (r, c + 1),
                ];
                for (nr, nc) in near {
                    if nr < h && nc < w && image[(nr, nc)] > 0.5 && !seen[(nr, nc)] {
                        seen[(nr, nc)] = true;
                        stack.push((nr, nc));
                    }
                }
            }
            out.push((top, left, bottom - top + 1, right - left + 1, count));
        }
        out
    }

    /// The label recomputed from the pixels alone; also checks the picture is well formed.
    pub(crate) fn label_from_pixels(task: VisionTask, image: &Array2<f32>) -> usize {
        let parts = components(image);
        for &(_, _, hgt, wid, count) in &parts {
            assert_eq!(hgt, wid, "not a square");
            assert_eq!(count, hgt * wid, "not filled");
        }
        match task {
            VisionTask::Larger => {
                assert_eq!(parts.len(), 2, "{parts:?}");
                let (a, b) = (parts[0], parts[1]);
                assert_ne!(a.2, b.2, "same size");
                let (big, small) = if a.2 > b.2 { (a, b) } else { (b, a) };
                let (bx, sx) = (2 * big.1 + big.3, 2 * small.1 + small.3);
                assert_ne!(bx, sx, "centres share x");
                usize::from(bx > sx)
            }
            VisionTask::Count => {
                assert!(parts.iter().all(|p| p.2 == 2));
                parts.len() - 1
            }
        }
    }

    #[test]
    fn labels_are_right_by_construction() {
        for task in VisionTask::ALL {
            let mut rng = Rng::new(11);
            let mut seen = vec![0usize; task.classes()];
            for _ in 0..2000 {
                let (image, label) = task.sample(&mut rng);
                assert_eq!(image.dim(), (IMAGE_SIDE, IMAGE_SIDE));
                assert!(image.iter().all(|&v| (0.0..=1.0).contains(&v)));
                assert_eq!(label_from_pixels(task, &image), label, "{task:?}");
                seen[label] += 1;
            }
            // Every class is common, so a constant guess cannot score high.
            let most = *seen.iter().max().unwrap_or(&0) as f32 / 2000.0;
            assert!(most < 0.6, "{task:?}: {seen:?}");
        }
    }

    #[test]
    fn train_and_held_out_never_share_an_image() {
        for task in VisionTask::ALL {
            let mut rng = Rng::new(5);
            for _ in 0..300 {
                let (a, _) = task.sample_split(&mut rng, Split::Train);
                let (b, _) = task.sample_split(&mut rng, Split::HeldOut);
                assert_eq!(split_of(&a), Split::Train);
                assert_eq!(split_of(&b), Split::HeldOut);
            }
        }
    }

    #[test]
    fn sampling_is_deterministic() {
        let draw = |seed| VisionTask::Larger.sample(&mut Rng::new(seed));
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3).0, draw(4).0);
    }

    #[test]
    fn gallery_labels_match_the_pixels() {
        for task in VisionTask::ALL {
            let gallery = examples(task);
            assert_eq!(gallery.len(), 6);
            for (image, label) in &gallery {
                assert_eq!(label_from_pixels(task, image), *label);
            }
            assert!(example(task, 5).is_some());
            assert!(example(task, 6).is_none());
        }
        let larger: Vec<usize> = examples(VisionTask::Larger).iter().map(|e| e.1).collect();
        assert_eq!(larger, vec![0, 1, 0, 1, 1, 0]);
        let count: Vec<usize> = examples(VisionTask::Count).iter().map(|e| e.1).collect();
        assert_eq!(count, vec![0, 1, 2, 3, 1, 3]);
    }

    #[test]
    fn drawn_cells_become_an_image() {
        let mut cells = vec![false; 16];
        cells[5] = true;
        let image = from_cells(&cells, 4).unwrap();
        assert_eq!(image[(1, 1)], 1.0);
        assert_eq!(image.sum(), 1.0);
        let err = from_cells(&cells, 5).unwrap_err();
        assert!(err.contains("25 cells, got 16"), "{err}");
        assert!(from_cells(&[], 0).is_err());
    }
}
