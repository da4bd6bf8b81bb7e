//! Threads in the browser, for the threaded build (scripts/web_threads.sh: the same app with
//! wasm atomics and one shared memory, loaded where the page is cross-origin isolated).
//!
//! Two kinds of Web Worker run `web/worker.js` on the page's own memory:
//! - the **pool**: rayon's threads, which split a forward pass's products and heads
//!   (`model::parallel`) as natively;
//! - the **engine**: one worker that runs whole jobs off the page's thread ([`off_page`]), e.g.
//!   a forward pass of SmolLM2, and may wait for the pool while the page's thread only draws.
//!
//! The page's thread never waits on the others (a browser forbids `Atomics.wait` there, and a
//! contended lock would throw): it hands a job over as a message and reads the answer with
//! `try_lock`, once a frame. No worker touches egui.

use std::cell::RefCell;
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A job for the engine, boxed twice so a thin pointer crosses `postMessage`.
type Job = Box<dyn FnOnce() + Send>;

thread_local! {
    /// The engine worker, on the page's thread; `None` until started, or after it crashed.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    /// Why a worker stopped, once one has (the page shows it in place and carries on).
    static CRASHED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The app's context, to draw a frame when a worker stops (an idle page draws none).
    static REPAINT: RefCell<Option<egui::Context>> = const { RefCell::new(None) };
}

struct Engine {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

/// Threads the pool has (0: the plain build, or not started yet: the engine builds the pool
/// after it has loaded, and passes run on the page's thread until then).
pub fn pool_threads() -> usize {
    crate::model::parallel::web_pool_threads()
}

/// Whether long work goes to the engine: its pool is built and no worker has stopped.
pub fn engine_ready() -> bool {
    pool_threads() > 0 && crashed().is_none()
}

/// The app's context, so a worker's crash is shown at once.
pub fn set_repaint(ctx: &egui::Context) {
    REPAINT.with(|r| *r.borrow_mut() = Some(ctx.clone()));
}

/// Why a worker of the pool or the engine stopped, if one has.
pub fn crashed() -> Option<String> {
    CRASHED.with(|c| c.borrow().clone())
}

/// Start `threads` pool workers and the engine. Called once, on the page's thread, before any
/// work; it only posts messages. The engine then builds rayon's pool: building it waits until
/// every pool thread runs, and only a worker may wait.
pub fn start(threads: usize) -> Result<(), String> {
    let (js, _) = crate::app::worker::module_urls().ok_or("the page does not name the module")?;
    for _ in 0..threads {
        spawn("pool", &js, 0)?;
    }
    let worker = spawn("engine", &js, threads as u32)?;
    let on_message = Closure::<dyn FnMut(_)>::new(|event: web_sys::MessageEvent| {
        let reason = js_sys::Reflect::get(&event.data(), &"crashed".into())
            .ok()
            .and_then(|r| r.as_string());
        if let Some(reason) = reason {
            // Shown in place (the Compute panel); the page carries on without threads.
            log::warn!("glimpse: a worker stopped: {reason}");
            CRASHED.with(|c| *c.borrow_mut() = Some(reason));
            REPAINT.with(|r| r.borrow().as_ref().map(egui::Context::request_repaint));
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    ENGINE.with(|e| {
        *e.borrow_mut() = Some(Engine {
            worker,
            _on_message: on_message,
        })
    });
    Ok(())
}

/// A worker running `web/worker.js` as `role` on this module and memory; `number` is the
/// engine's pool size.
fn spawn(role: &str, js: &str, number: u32) -> Result<web_sys::Worker, String> {
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    options.set_name(&format!("glimpse {role}"));
    let script = crate::app::worker::resolve("worker.js").ok_or("no base URL")?;
    let worker = web_sys::Worker::new_with_options(&script, &options)
        .map_err(|e| format!("no worker: {e:?}"))?;
    let start = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&start, &k.into(), v).map(|_| ());
    let urls = set("js", &js.into())
        .and_then(|_| set("module", &wasm_bindgen::module()))
        .and_then(|_| set("memory", &wasm_bindgen::memory()))
        .and_then(|_| set("number", &number.into()));
    let message = js_sys::Object::new();
    urls.and_then(|_| js_sys::Reflect::set(&message, &role.into(), &start).map(|_| ()))
        .map_err(|e| format!("{e:?}"))?;
    worker
        .post_message(&message)
        .map_err(|e| format!("the worker refused its start: {e:?}"))?;
    Ok(worker)
}

/// Run `job` on the engine, off the page's thread. Where there is none (not started, or a
/// worker crashed) it runs here, serially: slower, never wrong.
pub fn off_page(job: impl FnOnce() + Send + 'static) {
    let job: Box<Job> = Box::new(Box::new(job));
    let job = ENGINE.with(|e| {
        let engine = e.borrow();
        let Some(engine) = engine.as_ref().filter(|_| crashed().is_none()) else {
            return Some(job);
        };
        let pointer = Box::into_raw(job);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"run".into(), &(pointer as u32).into());
        match engine.worker.post_message(&message) {
            Ok(()) => None,
            // Never sent, so never seen by the engine: ours again.
            // SAFETY: `pointer` came from `Box::into_raw` just above and was not handed out.
            Err(_) => Some(unsafe { Box::from_raw(pointer) }),
        }
    });
    if let Some(job) = job {
        (*job)();
    }
}

/// rayon's threads, made by the engine's `build_global`, waiting for a pool worker to run them.
static THREADS_TO_RUN: Mutex<Vec<rayon::ThreadBuilder>> = Mutex::new(Vec::new());
static THREAD_READY: Condvar = Condvar::new();

/// A pool worker's entry: wait for one of rayon's threads and run it (for good).
#[wasm_bindgen]
pub fn glimpse_pool_thread() {
    crate::model::parallel::this_thread_may_wait();
    let thread = {
        let Ok(mut waiting) = THREADS_TO_RUN.lock() else {
            return;
        };
        loop {
            if let Some(thread) = waiting.pop() {
                break thread;
            }
            waiting = match THREAD_READY.wait(waiting) {
                Ok(w) => w,
                Err(_) => return,
            };
        }
    };
    thread.run();
}

/// The engine's entry, once loaded: build rayon's pool of `threads` (each run by a pool
/// worker), then take jobs. Says so to the page's log either way.
#[wasm_bindgen]
pub fn glimpse_engine_start(threads: u32) {
    crate::model::parallel::this_thread_may_wait();
    let threads = threads.max(1) as usize;
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .spawn_handler(|thread| {
            THREADS_TO_RUN
                .lock()
                .map_err(|_| std::io::Error::other("the pool's queue broke"))?
                .push(thread);
            THREAD_READY.notify_one();
            Ok(())
        })
        .build_global();
    match built {
        Ok(()) => {
            crate::model::parallel::web_pool_started(threads);
            log::info!("glimpse: {threads} threads compute, off the page's thread");
        }
        Err(e) => log::warn!("glimpse: no thread pool ({e}): passes run on the page's thread"),
    }
}

/// The engine runs one job the page sent ([`off_page`]).
#[wasm_bindgen]
pub fn glimpse_engine_run(pointer: u32) {
    // SAFETY: `off_page` made `pointer` with `Box::into_raw` and sent it to the engine alone.
    let job = unsafe { Box::from_raw(pointer as *mut Job) };
    (*job)();
}

/// `f`'s answer, computed on the engine while the page's thread goes on (polled every few
/// milliseconds, never waited for); on the page's thread where there is no engine. A worker
/// that stopped before answering gives its reason.
pub async fn away<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let job = AwayJob::start((), move |_| Some(f()));
    loop {
        if let Some(answer) = job.answer() {
            return answer;
        }
        let tick = js_sys::Promise::new(&mut |resolve, _| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 5);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(tick).await;
    }
}

/// Work on the engine that says how far it has got (`P`) and answers once (`T`); the page's
/// thread looks at both without waiting. Dropping it asks the work to stop.
pub struct AwayJob<P, T> {
    shared: std::sync::Arc<AwayShared<P, T>>,
    /// The last progress seen (kept when the engine holds the lock at that moment).
    seen: RefCell<P>,
}

struct AwayShared<P, T> {
    progress: Mutex<P>,
    stop: std::sync::atomic::AtomicBool,
    answer: Mutex<Option<T>>,
}

/// What the work sees of its job: where to say how far it is, and whether to stop.
pub struct Report<P, T> {
    shared: std::sync::Arc<AwayShared<P, T>>,
}

impl<P, T> Report<P, T> {
    pub fn progress(&self, p: P) {
        if let Ok(mut slot) = self.shared.progress.lock() {
            *slot = p;
        }
    }

    /// Nobody waits for the answer any more.
    pub fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }
}

impl<P: Clone + Send + 'static, T: Send + 'static> AwayJob<P, T> {
    /// Hands `work` to the engine; its answer (`None`: it stopped) is kept for [`answer`].
    pub fn start(first: P, work: impl FnOnce(&Report<P, T>) -> Option<T> + Send + 'static) -> Self {
        let shared = std::sync::Arc::new(AwayShared {
            progress: Mutex::new(first.clone()),
            stop: Default::default(),
            answer: Mutex::new(None),
        });
        let report = Report {
            shared: std::sync::Arc::clone(&shared),
        };
        off_page(move || {
            if let Some(answer) = work(&report) {
                if let Ok(mut slot) = report.shared.answer.lock() {
                    *slot = Some(answer);
                }
            }
        });
        Self {
            shared,
            seen: RefCell::new(first),
        }
    }

    /// How far it has got.
    pub fn progress(&self) -> P {
        if let Ok(p) = self.shared.progress.try_lock() {
            *self.seen.borrow_mut() = p.clone();
        }
        self.seen.borrow().clone()
    }

    /// The answer, once (`None` until it is there); a worker's crash, in words, as `Err`.
    pub fn answer(&self) -> Option<Result<T, String>> {
        if let Some(answer) = self
            .shared
            .answer
            .try_lock()
            .ok()
            .and_then(|mut a| a.take())
        {
            return Some(Ok(answer));
        }
        crashed().map(Err)
    }
}

impl<P, T> Drop for AwayJob<P, T> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}
