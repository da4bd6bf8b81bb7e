//! Splitting the forward pass's work across threads. Two shapes of work are split: the output
//! columns of a matrix product (each thread multiplies by its own slice of the weight matrix, so
//! the packing of the weights is split too) and the heads of an attention layer. Every split
//! computes exactly the numbers the serial code computes, in the same order within a cell, so
//! results do not depend on the thread count.
//!
//! Natively the threads are rayon's pool. In the browser the plain build has one thread; the
//! threaded build (scripts/web_threads.sh) has a pool of Web Workers on one shared memory
//! (`app::threads`), which only threads allowed to wait use: the page's own thread may never
//! block (`Atomics.wait` throws there), so work it does itself stays serial.

use ndarray::{ArrayViewMut2, Axis};

/// Below this many multiply-adds a product is not worth handing to another thread.
const MIN_PARALLEL_WORK: usize = 1 << 16;

/// Column blocks are multiples of this width (the matrix-product kernels' panel width), so a
/// split never leaves a thread a ragged edge it could have avoided.
const COLUMN_ALIGN: usize = 16;

/// Threads the forward pass may use here: rayon's pool (the machine's cores unless
/// [`set_threads`] chose otherwise); in the browser, the threaded build's pool on a thread
/// that may wait, else 1.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::current_num_threads()
    }
    #[cfg(target_arch = "wasm32")]
    {
        web::threads()
    }
}

/// The browser's side of the pool: how many threads the threaded build started, and whether
/// this thread may wait for them.
#[cfg(target_arch = "wasm32")]
mod web {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Pool threads started (0: none, the plain build or a page that is not isolated).
    static POOL: AtomicUsize = AtomicUsize::new(0);

    thread_local! {
        /// Set on the workers (pool threads and the thread that runs jobs off the page).
        static MAY_WAIT: Cell<bool> = const { Cell::new(false) };
    }

    pub fn threads() -> usize {
        if MAY_WAIT.with(Cell::get) {
            POOL.load(Ordering::Relaxed).max(1)
        } else {
            1
        }
    }

    pub fn pool_started(threads: usize) {
        POOL.store(threads, Ordering::Relaxed);
    }

    pub fn pool() -> usize {
        POOL.load(Ordering::Relaxed)
    }

    pub fn this_thread_may_wait() {
        MAY_WAIT.with(|w| w.set(true));
    }
}

/// The threaded browser build started a pool of `threads` workers (`app::threads`).
#[cfg(target_arch = "wasm32")]
pub fn web_pool_started(threads: usize) {
    web::pool_started(threads);
}

/// Threads the threaded browser build's pool has (0 until it is built, and in the plain build).
#[cfg(target_arch = "wasm32")]
pub fn web_pool_threads() -> usize {
    web::pool()
}

/// This thread is a worker that may wait for the pool (never the page's thread).
#[cfg(target_arch = "wasm32")]
pub fn this_thread_may_wait() {
    web::this_thread_may_wait();
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

/// Runs `f` (a forward pass or a decoding step whose largest product has `largest_product`
/// multiply-adds) on one of the pool's threads while the others wait for its products' halves
/// spinning, as llama.cpp's threads do. A decoding step's products take 50–300 µs each, and a
/// `rayon::join` from outside the pool (a hand-off and a sleep per product) or to a sleeping
/// thread (a wake-up per product) cost about what the second core gave back: two threads were
/// no faster than one. A pass whose products are too small to split, with one thread (the
/// plain browser build, the page's own thread), or inside the pool already (its threads are
/// busy), `f` just runs here.
#[cfg_attr(
    all(target_arch = "wasm32", not(target_feature = "atomics")),
    allow(unused_variables)
)]
pub fn in_pool<R: Send>(largest_product: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        let splits = largest_product / MIN_PARALLEL_WORK >= 2;
        if splits && threads() > 1 && rayon::current_thread_index().is_none() {
            let done = AtomicBool::new(false);
            let done = &done;
            return rayon::scope(|s| {
                let owner = rayon::current_thread_index();
                for _ in 1..threads() {
                    s.spawn(move |_| {
                        // The owner waits for `f`, not for itself.
                        if rayon::current_thread_index() == owner {
                            return;
                        }
                        while !done.load(Ordering::Acquire) {
                            // Nothing to steal: let the system run something else on
                            // this core, if it has anything (a busy machine), and look again.
                            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                                std::thread::yield_now();
                            }
                        }
                    });
                }
                let result = f();
                done.store(true, Ordering::Release);
                result
            });
        }
    }
    f()
}

/// Run `a` and `b`, on two threads where there are.
fn join<A: FnOnce() + Send, B: FnOnce() + Send>(a: A, b: B) {
    #[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
    if threads() > 1 {
        rayon::join(a, b);
        return;
    }
    a();
    b();
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

    /// `in_pool` gives `f`'s result, its products inside cover every column once, and passes
    /// on the pool at once (nested, and from many threads, as tests and the app's threads
    /// call it) finish: the waiting threads never hold up one another.
    #[test]
    fn work_in_the_pool_finishes_and_covers_everything() {
        let once = |cols: usize| {
            in_pool(usize::MAX, || {
                let mut y = Array2::<f32>::zeros((2, cols));
                for_column_blocks(y.view_mut(), usize::MAX, &|first, mut block| {
                    for ((_, c), v) in block.indexed_iter_mut() {
                        *v += (first + c) as f32;
                    }
                });
                y.row(1).iter().map(|&v| v as usize).sum::<usize>()
            })
        };
        assert_eq!(once(100), (0..100).sum::<usize>());
        assert_eq!(
            in_pool(usize::MAX, || in_pool(usize::MAX, || once(64))),
            (0..64).sum::<usize>()
        );
        assert_eq!(in_pool(0, || once(16)), (0..16).sum::<usize>());
        std::thread::scope(|s| {
            let runs: Vec<_> = (0..8)
                .map(|i| s.spawn(move || (0..50).map(|_| once(32 + i)).sum::<usize>()))
                .collect();
            for (i, run) in runs.into_iter().enumerate() {
                assert_eq!(run.join().unwrap(), 50 * (0..32 + i).sum::<usize>());
            }
        });
    }
}
