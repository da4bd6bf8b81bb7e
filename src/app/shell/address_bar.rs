//! The address bar: its hash is the view as a link, kept in step both ways.

use crate::app::{link, GlimpseApp};

/// egui draws only on input; a hash change is not input, so ask for a frame.
#[cfg(target_arch = "wasm32")]
pub(crate) fn repaint_on_hash_change(ctx: &egui::Context) {
    use wasm_bindgen::JsCast;
    let ctx = ctx.clone();
    let callback = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || ctx.request_repaint());
    if let Some(window) = web_sys::window() {
        let _ = window
            .add_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    callback.forget();
}

impl GlimpseApp {
    /// A link pasted into the address bar of an open tab changes only the hash (no reload):
    /// open it as the page load would have.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn follow_address_bar(&mut self) {
        let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) else {
            return;
        };
        let hash = hash.trim_start_matches('#');
        if hash.is_empty() || hash == self.nav.last_hash {
            later::seen(hash);
            return;
        }
        // Our own link not written yet (`sync_hash`) is not the user's.
        if later::is_ours(hash) {
            return;
        }
        // Links leave out these three at their defaults; start from the defaults so the view
        // is the one the link was copied from.
        self.look.presenter = false;
        self.look.theme = Default::default();
        self.nav.hidden = link::Hidden::default();
        self.open_link(hash);
        self.nav.last_hash = hash.to_string();
        later::opened(hash);
    }

    /// Keep the address bar's hash in step with the view, so copying the URL shares it.
    pub(crate) fn sync_hash(&mut self) {
        let hash = link::encode(self);
        if hash == self.nav.last_hash {
            return;
        }
        #[cfg(target_arch = "wasm32")]
        later::write(&hash);
        self.nav.last_hash = hash;
    }
}

/// The address bar written in a task of its own, at most every `WAIT_MS`. In Chromium
/// `history.replaceState` with a link of 1-2 KB now and then holds the page's thread 10-60 ms,
/// which on top of a frame that lays out a new view made a long task (docs/benchmarks.md);
/// dragging a slider also changes the link every frame, and one write per pause is enough.
#[cfg(target_arch = "wasm32")]
pub(crate) mod later {
    use std::cell::RefCell;
    use wasm_bindgen::JsCast;

    const WAIT_MS: i32 = 100;
    /// After a refused write: Safari refuses more than 100 in 30 s (a slider dragged for ten
    /// seconds); the link is kept and written when it is allowed again.
    const RETRY_MS: i32 = 2000;

    thread_local! {
        /// What the address bar shows as far as the app knows: the hash it last wrote or
        /// opened (`None` until then: the page's own).
        static SHOWN: RefCell<Option<String>> = const { RefCell::new(None) };
        /// The hash to write at the next turn, and whether that turn is booked.
        static PENDING: RefCell<(Option<String>, bool)> = const { RefCell::new((None, false)) };
    }

    /// The address bar reads `hash` because the app put it there (or is about to).
    pub fn is_ours(hash: &str) -> bool {
        SHOWN.with(|s| s.borrow().as_deref() == Some(hash))
    }

    /// The user's link was opened: it is what the address bar shows; nothing older is written.
    pub fn opened(hash: &str) {
        SHOWN.with(|s| *s.borrow_mut() = Some(hash.to_string()));
        PENDING.with(|p| p.borrow_mut().0 = None);
    }

    /// The address bar reads `hash` (empty, or what the app already holds): it is what it
    /// shows, so the next write goes ahead.
    pub fn seen(hash: &str) {
        if !is_ours(hash) {
            SHOWN.with(|s| *s.borrow_mut() = Some(hash.to_string()));
        }
    }

    /// Books `hash` for the address bar.
    pub fn write(hash: &str) {
        PENDING.with(|p| p.borrow_mut().0 = Some(hash.to_string()));
        book(WAIT_MS);
    }

    /// A turn for `write_now` in `wait` ms, unless one is booked.
    fn book(wait: i32) {
        let booked = PENDING.with(|p| std::mem::replace(&mut p.borrow_mut().1, true));
        if booked {
            return;
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        let turn = wasm_bindgen::closure::Closure::once_into_js(write_now);
        let timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(turn.unchecked_ref(), wait);
        if timer.is_err() {
            write_now();
        }
    }

    /// Writes the booked hash, unless the address bar changed meanwhile to something the app
    /// did not write (a pasted link): the user's link wins, and `follow_address_bar` opens it.
    fn write_now() {
        let Some(hash) = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            p.1 = false;
            p.0.take()
        }) else {
            return;
        };
        let Some(window) = web_sys::window() else {
            return;
        };
        let now = window.location().hash().unwrap_or_default();
        let now = now.trim_start_matches('#');
        let untouched = SHOWN.with(|s| s.borrow().as_deref().is_none_or(|shown| shown == now));
        if !untouched {
            return;
        }
        let url = format!("#{hash}");
        let written = window.history().and_then(|history| {
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        });
        if written.is_ok() {
            SHOWN.with(|s| *s.borrow_mut() = Some(hash));
            return;
        }
        // Refused: the bar still shows what `SHOWN` says (so it is not taken for the user's
        // link); the newest link is written at the next turn.
        PENDING.with(|p| {
            p.borrow_mut().0.get_or_insert(hash);
        });
        book(RETRY_MS);
    }
}
