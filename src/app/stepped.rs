//! Work a view asks for that takes longer than a frame, cut into steps: in the threaded
//! browser build all of it runs on the engine worker while the page's thread looks once a
//! frame; elsewhere (natively, the plain web build, before the engine is up) one step runs each
//! poll on the page's thread. Either way the view's frame stays short: a Depth-tab probe is a
//! batch of gradients (30–40 ms in the browser), a teacher-forced run 20–30 ms, and a
//! checkpoint's conversion holds the `tokenizers` crate's build, one call of 60–300 ms.

/// The work, one step at a time.
pub trait Steps: Send + 'static {
    type Output: Send + 'static;
    /// How far it has got (for a progress bar; `()` where nothing shows it).
    type Progress: Clone + Send + 'static;

    /// One step; the output once the last is done.
    fn step(&mut self) -> Option<Self::Output>;
    fn progress(&self) -> Self::Progress;
}

pub struct Stepped<S: Steps> {
    how: How<S>,
}

enum How<S: Steps> {
    Here(S),
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
    Away(crate::app::threads::AwayJob<S::Progress, S::Output>),
    /// The output was handed out; how far it had got then.
    Taken(S::Progress),
}

impl<S: Steps> Stepped<S> {
    /// Starts `steps` on the engine when it is up; otherwise nothing runs before [`Self::poll`].
    pub fn new(steps: S) -> Self {
        #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
        if crate::app::threads::engine_ready() {
            // The engine writes its messages (a step's error) in the reader's language.
            let lang = crate::i18n::current();
            let mut steps = steps;
            let job = crate::app::threads::AwayJob::start(steps.progress(), move |report| {
                crate::i18n::set(lang);
                loop {
                    if report.stopped() {
                        return None;
                    }
                    if let Some(done) = steps.step() {
                        return Some(done);
                    }
                    report.progress(steps.progress());
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
            How::Taken(_) => None,
        };
        if answer.is_some() {
            self.how = How::Taken(self.progress());
        }
        answer
    }

    /// How far it has got.
    pub fn progress(&self) -> S::Progress {
        match &self.how {
            How::Here(steps) => steps.progress(),
            #[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
            How::Away(job) => job.progress(),
            How::Taken(last) => last.clone(),
        }
    }

    /// Whether it runs off the page's thread (one look a frame is enough then).
    pub fn is_away(&self) -> bool {
        !matches!(self.how, How::Here(_) | How::Taken(_))
    }
}

/// Steps' output for a key (a view's settings), made once: a new key drops what the old one
/// made or was making and starts anew.
pub struct Keyed<K, S: Steps> {
    made: Option<(K, Made<S>)>,
}

enum Made<S: Steps> {
    Making(Stepped<S>),
    Done(Result<S::Output, String>),
}

impl<K, S: Steps> Default for Keyed<K, S> {
    fn default() -> Self {
        Self { made: None }
    }
}

impl<K: PartialEq + Clone, S: Steps> Keyed<K, S> {
    /// The output for `key` once it is made (`make` gives its steps when the key is new, and
    /// only then is the key copied); `None` while they run, a step a call here or away on the
    /// engine. `Err` says why the engine stopped.
    pub fn get(&mut self, key: &K, make: impl FnOnce() -> S) -> Option<&Result<S::Output, String>> {
        if self.made.as_ref().is_none_or(|(k, _)| k != key) {
            self.made = Some((key.clone(), Made::Making(Stepped::new(make()))));
        }
        let (_, made) = self.made.as_mut()?;
        if let Made::Making(job) = made {
            *made = Made::Done(job.poll()?);
        }
        self.done()
    }

    /// The output last made, if it is done, without looking at the key.
    pub fn done(&self) -> Option<&Result<S::Output, String>> {
        match &self.made {
            Some((_, Made::Done(answer))) => Some(answer),
            _ => None,
        }
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
        type Progress = u32;
        fn step(&mut self) -> Option<u32> {
            self.at += 1;
            (self.at == self.to).then_some(self.at * 10)
        }
        fn progress(&self) -> u32 {
            self.at
        }
    }

    #[test]
    fn here_one_step_a_poll_and_the_output_once() {
        let mut job = Stepped::new(Count { at: 0, to: 3 });
        assert!(!job.is_away());
        assert_eq!((job.poll(), job.progress()), (None, 1));
        assert_eq!((job.poll(), job.progress()), (None, 2));
        assert_eq!(job.poll(), Some(Ok(30)));
        assert_eq!(job.poll(), None, "handed out once");
        assert_eq!(job.progress(), 3, "how far it got is kept");
    }

    #[test]
    fn a_keyed_output_is_made_once_and_anew_for_a_new_key() {
        let mut made = 0;
        let mut kept = Keyed::default();
        let mut get = |key: u32, made: &mut u32| {
            kept.get(&key, || {
                *made += 1;
                Count { at: 0, to: key }
            })
            .cloned()
        };
        assert_eq!(get(2, &mut made), None);
        assert_eq!(get(2, &mut made), Some(Ok(20)));
        assert_eq!(get(2, &mut made), Some(Ok(20)), "kept");
        assert_eq!(get(1, &mut made), Some(Ok(10)), "a new key, made anew");
        assert_eq!(get(3, &mut made), None);
        assert_eq!(
            get(2, &mut made),
            None,
            "the key changed while making: started anew"
        );
        assert_eq!(get(2, &mut made), Some(Ok(20)));
        assert_eq!(made, 4);
    }
}
