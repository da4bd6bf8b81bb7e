//! One next-token pass of the decoding lab, run where it keeps the page drawing: on the engine
//! worker in the threaded browser build (`app::threads`), here everywhere else. A step of
//! SmolLM2 takes ~90 ms and its prompt longer, more than a frame; the search, greedy decoding,
//! sampling and the cache comparison each ask their source through a slot, and the frames in
//! between draw what is there.

use crate::decode::Source;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Passes answered off the page's thread since the app started (for the test probe).
static ANSWERED_OFF_PAGE: AtomicUsize = AtomicUsize::new(0);

/// How many of the lab's passes ran off the page's thread so far.
pub fn answered_off_page() -> usize {
    ANSWERED_OFF_PAGE.load(Ordering::Relaxed)
}

/// At most one pass in flight, for one prefix.
#[derive(Default)]
pub struct PassSlot {
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    in_flight: Option<(Vec<u32>, Away)>,
}

#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
type Away = crate::app::threads::AwayJob<(), Result<crate::decode::Passed, String>>;

impl PassSlot {
    /// `log p(next | prefix)` from `source`: the answer, or `None` while its pass runs
    /// elsewhere (ask again next frame, with the same prefix). Asking for another prefix
    /// drops the pass in flight. `here`: compute it now on this thread (a caller that must
    /// finish within the call, such as a whole step or a test).
    #[cfg_attr(
        not(all(target_arch = "wasm32", target_feature = "atomics")),
        allow(clippy::unnecessary_wraps)
    )]
    pub fn log_probs(
        &mut self,
        source: &mut dyn Source,
        prefix: &[u32],
        here: bool,
    ) -> Option<Result<Vec<f32>, String>> {
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        if !here {
            use crate::app::threads;
            if let Some((asked, job)) = &self.in_flight {
                if asked == prefix {
                    let answer = job.answer()?;
                    self.in_flight = None;
                    ANSWERED_OFF_PAGE.fetch_add(1, Ordering::Relaxed);
                    // A stopped worker's reason, or the pass's own error, becomes the lab's.
                    return Some(
                        answer
                            .and_then(|a| a)
                            .and_then(|p| source.finish(prefix, p)),
                    );
                }
                self.in_flight = None;
            }
            if threads::engine_ready() {
                match source.pass(prefix) {
                    Some(Ok(pass)) => {
                        let size = pass.size;
                        let job = Away::start((), move |_| {
                            Some(crate::model::parallel::in_pool(size, || pass.run()))
                        });
                        self.in_flight = Some((prefix.to_vec(), job));
                        return None;
                    }
                    Some(Err(e)) => return Some(Err(e)),
                    // A table answers at once.
                    None => {}
                }
            }
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "atomics")))]
        let _ = here;
        Some(source.log_probs(prefix))
    }
}
