//! Work a view asks for that takes longer than a frame, cut into steps: in the threaded
//! browser build all of it runs on the engine worker while the page's thread looks once a
//! frame; elsewhere (natively, the plain web build, before the engine is up) one step runs each
//! frame on the page's thread. Either way the view's frame stays short: a Depth-tab probe is a
//! batch of gradients (30–40 ms in the browser) and a teacher-forced run 20–30 ms.

/// The work, one step at a time.
pub trait Steps: Send + 'static {
    type Output: Send + 'static;

    /// One step; the output once the last is done.
    fn step(&mut self) -> Option<Self::Output>;
}

pub struct Stepped<S: Steps> {
    how: How<S>,
}

enum How<S: Steps> {
    Here(S),
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    Away(crate::app::threads::AwayJob<(), S::Output>),
    /// The output was handed out.
    Taken,
}

impl<S: Steps> Stepped<S> {
    /// Starts `steps` on the engine when it is up; otherwise nothing runs before [`Self::poll`].
    pub fn new(steps: S) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        if crate::app::threads::engine_ready() {
            // The engine writes its messages (a step's error) in the reader's language.
            let lang = crate::i18n::current();
            let mut steps = steps;
            let job = crate::app::threads::AwayJob::start((), move |report| {
                crate::i18n::set(lang);
                loop {
                    if report.stopped() {
                        return None;
                    }
                    if let Some(done) = steps.step() {
                        return Some(done);
                    }
                }
            });
            return Self {
                how: How::Away(job),
            };
        }
        Self {
            how: How::Here(steps),
        }
    }

    /// Here, one step; away, a look. The output once, when it is done; `Err` says why the
    /// engine stopped (a worker crashed).
    pub fn poll(&mut self) -> Option<Result<S::Output, String>> {
        let answer = match &mut self.how {
            How::Here(steps) => steps.step().map(Ok),
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => job.answer(),
            How::Taken => None,
        };
        if answer.is_some() {
            self.how = How::Taken;
        }
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count {
        at: u32,
        to: u32,
    }

    impl Steps for Count {
        type Output = u32;
        fn step(&mut self) -> Option<u32> {
            self.at += 1;
            (self.at == self.to).then_some(self.at * 10)
        }
    }

    #[test]
    fn here_one_step_a_poll_and_the_output_once() {
        let mut job = Stepped::new(Count { at: 0, to: 3 });
        assert_eq!(job.poll(), None);
        assert_eq!(job.poll(), None);
        assert_eq!(job.poll(), Some(Ok(30)));
        assert_eq!(job.poll(), None, "handed out once");
    }
}
