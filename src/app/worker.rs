//! Web Workers running Glimpse's own wasm, so long work leaves the page's thread free to draw.
//!
//! The page starts `web/worker.js` as a module worker and sends it the URLs of the app's
//! JavaScript glue and wasm (read from Trunk's preload links); the worker instantiates the same
//! module (the browser's cache already holds it) and calls `glimpse_worker_start`, which routes
//! each message to its job by name. A message is `{job, json, floats?}`: a job's command or
//! update as JSON, plus an optional `Float32Array` transferred, not copied. A panic in the
//! worker comes back as `{crashed}`, so the page can say why in place and carry on.
//!
//! Natively the same jobs run on threads; this module exists only in the browser.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What a worker sent the page.
pub enum Incoming {
    Message {
        json: String,
        floats: Vec<f32>,
    },
    /// The worker stopped (a panic, a failed start); the reason in words.
    Crashed(String),
}

/// What arrived and is not yet read; floats stay in their JS array until then.
enum Arrived {
    Message {
        json: String,
        floats: Option<js_sys::Float32Array>,
    },
    Crashed(String),
}

/// The page's handle on one worker: messages out, an inbox of what came back. Only the newest
/// message's floats are kept (a job's floats are its latest state, the weights): while the
/// page reads nothing (another tab open, the browser tab hidden) the inbox grows by the JSON
/// alone.
pub struct PageWorker {
    worker: web_sys::Worker,
    job: &'static str,
    inbox: Rc<RefCell<Vec<Arrived>>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl PageWorker {
    /// A worker for `job`; `wake` runs whenever something arrives (to ask for a frame). Fails
    /// where the page has no Trunk preload links (a page built otherwise) or no module workers.
    pub fn spawn(job: &'static str, wake: Box<dyn Fn()>) -> Result<Self, String> {
        let (js, wasm) = module_urls().ok_or("the page does not name Glimpse's module")?;
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let script = resolve("worker.js").ok_or("no base URL")?;
        let worker = web_sys::Worker::new_with_options(&script, &options)
            .map_err(|e| format!("no worker: {e:?}"))?;
        let inbox = Rc::new(RefCell::new(Vec::new()));
        let wake = Rc::new(wake);
        let on_message = {
            let (inbox, wake) = (Rc::clone(&inbox), Rc::clone(&wake));
            Closure::<dyn FnMut(_)>::new(move |event: web_sys::MessageEvent| {
                let arrived = read(&event.data());
                let mut inbox = inbox.borrow_mut();
                if matches!(
                    arrived,
                    Arrived::Message {
                        floats: Some(_),
                        ..
                    }
                ) {
                    for older in inbox.iter_mut() {
                        if let Arrived::Message { floats, .. } = older {
                            *floats = None;
                        }
                    }
                }
                inbox.push(arrived);
                drop(inbox);
                wake();
            })
        };
        let on_error = {
            let inbox = Rc::clone(&inbox);
            // A script that fails to load sends a plain `Event`; an uncaught error an `ErrorEvent`.
            Closure::<dyn FnMut(_)>::new(move |event: web_sys::Event| {
                event.prevent_default();
                let reason = event
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "the worker could not start".to_string());
                inbox.borrow_mut().push(Arrived::Crashed(reason));
                wake();
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let boot = js_sys::Object::new();
        let urls = js_sys::Object::new();
        set(&urls, "js", &js.into());
        set(&urls, "wasm", &wasm.into());
        set(&boot, "boot", &urls);
        worker
            .post_message(&boot)
            .map_err(|e| format!("the worker refused its start: {e:?}"))?;
        Ok(Self {
            worker,
            job,
            inbox,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Send the job a command.
    pub fn post(&self, json: &str) {
        let message = js_sys::Object::new();
        set(&message, "job", &self.job.into());
        set(&message, "json", &json.into());
        if let Err(e) = self.worker.post_message(&message) {
            log::warn!(
                "glimpse: a message to the {} worker failed: {e:?}",
                self.job
            );
        }
    }

    /// Everything that arrived since the last call, oldest first.
    pub fn drain(&self) -> Vec<Incoming> {
        let arrived = std::mem::take(&mut *self.inbox.borrow_mut());
        arrived
            .into_iter()
            .map(|a| match a {
                Arrived::Message { json, floats } => Incoming::Message {
                    json,
                    floats: floats.map(|f| f.to_vec()).unwrap_or_default(),
                },
                Arrived::Crashed(reason) => Incoming::Crashed(reason),
            })
            .collect()
    }
}

impl Drop for PageWorker {
    fn drop(&mut self) {
        // No event may reach the handlers once they are freed.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// The app's wasm and its glue, made absolute against the page's `<base>`: the pair the page
/// loaded (`window.glimpseModule`, set by the start-up script that picks the plain or the
/// threaded build, web/pick_build.mjs), else the `<link rel=preload>` Trunk writes (wasm-bindgen
/// names them `NAME_bg.wasm` and `NAME.js`).
pub fn module_urls() -> Option<(String, String)> {
    let window = web_sys::window()?;
    let picked = js_sys::Reflect::get(&window, &"glimpseModule".into()).ok()?;
    let field = |k: &str| js_sys::Reflect::get(&picked, &k.into()).ok()?.as_string();
    if let (Some(js), Some(wasm)) = (field("js"), field("wasm")) {
        return Some((resolve(&js)?, resolve(&wasm)?));
    }
    let link = window
        .document()?
        .query_selector("link[rel=preload][href$='_bg.wasm']")
        .ok()??;
    let wasm = link.get_attribute("href")?;
    let js = format!("{}.js", wasm.strip_suffix("_bg.wasm")?);
    Some((resolve(&js)?, resolve(&wasm)?))
}

pub fn resolve(relative: &str) -> Option<String> {
    let base = web_sys::window()?.document()?.base_uri().ok()??;
    Some(web_sys::Url::new_with_base(relative, &base).ok()?.href())
}

fn set(object: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(object, &key.into(), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn read(data: &JsValue) -> Arrived {
    if let Some(reason) = get(data, "crashed").as_string() {
        return Arrived::Crashed(reason);
    }
    Arrived::Message {
        json: get(data, "json").as_string().unwrap_or_default(),
        floats: get(data, "floats").dyn_into::<js_sys::Float32Array>().ok(),
    }
}

// ---- Inside the worker ----

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// The worker's entry (`glimpse_worker_start`): report panics to the page, then route each
/// message to its job.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("{info}");
        web_sys::console::error_1(&message.as_str().into());
        let report = js_sys::Object::new();
        set(&report, "crashed", &message.into());
        let _ = scope().post_message(&report);
    }));
    let on_message = Closure::<dyn FnMut(_)>::new(|event: web_sys::MessageEvent| {
        let data = event.data();
        let json = get(&data, "json").as_string().unwrap_or_default();
        match get(&data, "job").as_string().as_deref() {
            Some(crate::app::labs::training::run::remote::JOB) => {
                crate::app::labs::training::run::remote::in_worker(&json)
            }
            other => log::warn!("glimpse worker: no job {other:?}"),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as the page keeps it; so does its handler.
    on_message.forget();
}

/// Send the page a job's update, the floats transferred rather than copied.
pub fn reply(job: &str, json: &str, floats: &[f32]) {
    let message = js_sys::Object::new();
    set(&message, "job", &job.into());
    set(&message, "json", &json.into());
    let array = js_sys::Float32Array::from(floats);
    set(&message, "floats", &array);
    let transfer = js_sys::Array::of1(&array.buffer());
    if let Err(e) = scope().post_message_with_transfer(&message, &transfer) {
        log::warn!("glimpse worker: a reply failed: {e:?}");
    }
}

/// Run `f` once after `ms` milliseconds, letting messages in between.
pub fn after(ms: i32, f: impl FnOnce() + 'static) {
    let callback = Closure::once_into_js(f);
    let _ =
        scope().set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), ms);
}

/// Gives the page's thread back to the browser: drawing, input, downloads and the probe's calls
/// run between two steps. A message to ourselves is a task like any other, queued behind the
/// ones waiting (`scheduler.yield()` would jump that queue; a chained zero-delay timer waits
/// 4 ms).
pub async fn yield_to_browser() {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return;
    };
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        channel.port1().set_onmessage(Some(&resolve));
        let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
