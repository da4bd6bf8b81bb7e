//! Splitting the forward pass's work across threads (natively; the browser runs it all on its
//! one thread). Two shapes of work are split: the output columns of a matrix product (each
//! thread multiplies by its own slice of the weight matrix, so the packing of the weights is
//! split too) and the heads of an attention layer. Every split computes exactly the numbers the
//! serial code computes, in the same order within a cell, so results do not depend on the
//! thread count.

use ndarray::{ArrayViewMut2, Axis};

/// Below this many multiply-adds a product is not worth handing to another thread.
const MIN_PARALLEL_WORK: usize = 1 << 16;

/// Column blocks are multiples of this width (the matrix-product kernels' panel width), so a
/// split never leaves a thread a ragged edge it could have avoided.
const COLUMN_ALIGN: usize = 16;

/// Threads the forward pass may use: rayon's pool (the machine's cores unless
/// [`set_threads`] chose otherwise); 1 in the browser.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::current_num_threads()
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// Use `n` threads (≥ 1) from now on. Only the first call before any parallel work takes
/// effect (rayon's global pool is built once); returns whether this call set it.
pub fn set_threads(n: usize) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .is_ok()
    }
    #[cfg(target_arch = "wasm32")]
    {
        n <= 1
    }
}

/// Run `a` and `b`, on two threads where there are.
fn join<A: FnOnce() + Send, B: FnOnce() + Send>(a: A, b: B) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::join(a, b);
    }
    #[cfg(target_arch = "wasm32")]
    {
        a();
        b();
    }
}

/// Calls `f(first_column, block)` on column blocks of `y` that together cover it, one block
/// per thread when the product is big enough (`work`: its multiply-adds).
pub fn for_column_blocks<F>(y: ArrayViewMut2<f32>, work: usize, f: &F)
where
    F: Fn(usize, ArrayViewMut2<f32>) + Sync,
{
    let parts = threads().min(work / MIN_PARALLEL_WORK).max(1);
    split_columns(y, 0, parts, f);
}

fn split_columns<F>(y: ArrayViewMut2<f32>, first: usize, parts: usize, f: &F)
where
    F: Fn(usize, ArrayViewMut2<f32>) + Sync,
{
    let n = y.ncols();
    let mid = (n * (parts / 2) / parts.max(1)) / COLUMN_ALIGN * COLUMN_ALIGN;
    if parts <= 1 || mid == 0 || mid >= n {
        f(first, y);
        return;
    }
    let (left, right) = y.split_at(Axis(1), mid);
    join(
        || split_columns(left, first, parts / 2, f),
        || split_columns(right, first + mid, parts - parts / 2, f),
    );
}

/// Work that can be cut in two along its first axis (the heads of an attention layer: each
/// head's slices of every array it writes).
pub trait Split: Sized + Send {
    /// How many items (heads) this part holds.
    fn items(&self) -> usize;
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// Calls `f(first, part)` on parts of `work` that together cover it (`first`: the index of the
/// part's first item), one part per thread when the items (about `work_each` multiply-adds
/// each) are worth it.
pub fn for_parts<S: Split, F>(work: S, work_each: usize, f: &F)
where
    F: Fn(usize, S) + Sync,
{
    let parts = threads()
        .min(work.items().saturating_mul(work_each) / MIN_PARALLEL_WORK)
        .max(1);
    split_parts(work, 0, parts, f);
}

fn split_parts<S: Split, F>(work: S, first: usize, parts: usize, f: &F)
where
    F: Fn(usize, S) + Sync,
{
    let n = work.items();
    if parts <= 1 || n < 2 {
        f(first, work);
        return;
    }
    let mid = (n * (parts / 2) / parts).max(1);
    let (left, right) = work.split_at(mid);
    join(
        || split_parts(left, first, parts / 2, f),
        || split_parts(right, first + mid, parts - parts / 2, f),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn column_blocks_cover_every_column_once() {
        for cols in [1, 15, 16, 33, 1000] {
            let mut y = Array2::<f32>::zeros((3, cols));
            for_column_blocks(y.view_mut(), usize::MAX, &|first, mut block| {
                for ((_, c), v) in block.indexed_iter_mut() {
                    *v += (first + c) as f32 + 1.0;
                }
            });
            for ((_, c), v) in y.indexed_iter() {
                assert_eq!(*v, c as f32 + 1.0, "{cols} columns");
            }
        }
    }

    struct Items<'a>(&'a mut [usize]);

    impl Split for Items<'_> {
        fn items(&self) -> usize {
            self.0.len()
        }
        fn split_at(self, mid: usize) -> (Self, Self) {
            let (a, b) = self.0.split_at_mut(mid);
            (Items(a), Items(b))
        }
    }

    #[test]
    fn every_item_is_visited_once_with_its_index() {
        for n in [0, 1, 2, 7, 100] {
            let mut seen = vec![0usize; n];
            for_parts(Items(&mut seen), usize::MAX / 128, &|first, part: Items| {
                for (i, s) in part.0.iter_mut().enumerate() {
                    *s += first + i + 1;
                }
            });
            assert!(seen.iter().enumerate().all(|(i, &s)| s == i + 1));
        }
    }
}
