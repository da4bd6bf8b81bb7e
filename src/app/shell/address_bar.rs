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
            return;
        }
        // Links leave out these three at their defaults; start from the defaults so the view
        // is the one the link was copied from.
        self.look.presenter = false;
        self.look.theme = Default::default();
        self.nav.hidden = link::Hidden::default();
        self.open_link(hash);
        self.nav.last_hash = hash.to_string();
    }

    /// Keep the address bar's hash in step with the view, so copying the URL shares it.
    pub(crate) fn sync_hash(&mut self) {
        let hash = link::encode(self);
        if hash == self.nav.last_hash {
            return;
        }
        #[cfg(target_arch = "wasm32")]
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let url = format!("#{hash}");
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        self.nav.last_hash = hash;
    }
}
