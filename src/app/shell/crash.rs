//! In the browser a panic stops the app for good: the canvas freezes on its last frame. This
//! hook puts a readable message over it instead, with the link that reproduces the view, so a
//! lecturer sees what happened and can reload straight back to where they were.

/// Chain a hook after the current one (eframe's, which logs) that shows the overlay.
#[cfg(target_arch = "wasm32")]
pub fn install_overlay() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A worker of the threaded build shares this hook with the page (one memory). Its
        // panic stops that worker alone, which reports it (web/worker.js); eframe's hook
        // would stop the whole app.
        #[cfg(target_arch = "wasm32")]
        if web_sys::window().is_none() {
            web_sys::console::error_1(&format!("glimpse worker: {info}").into());
            return;
        }
        previous(info);
        let what =
            crate::util::panic_text(info.payload()).unwrap_or_else(|| crate::t!("crash-unknown"));
        let place = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        show(&format!("{what}{place}"));
    }));
}

#[cfg(target_arch = "wasm32")]
fn show(message: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(document) = window.document() else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    if document.get_element_by_id("glimpse_error").is_some() {
        return;
    }
    let Ok(overlay) = document.create_element("div") else {
        return;
    };
    let link = window.location().href().unwrap_or_default();
    overlay.set_id("glimpse_error");
    let _ = overlay.set_attribute(
        "style",
        "position:fixed;inset:0;background:rgba(20,20,20,0.94);color:#f0f0f0;\
         font:16px system-ui,sans-serif;padding:48px;overflow:auto;z-index:10",
    );
    let parts = [
        ("h2", crate::t!("crash-title")),
        ("p", crate::t!("crash-body")),
        ("pre", message.to_string()),
        ("p", link),
    ];
    for (tag, text) in parts {
        if let Ok(el) = document.create_element(tag) {
            el.set_text_content(Some(&text));
            // Long links and messages wrap anywhere rather than run off the screen.
            let style = match tag {
                "pre" => "white-space:pre-wrap;overflow-wrap:anywhere;color:#ff9b9b",
                _ => "overflow-wrap:anywhere",
            };
            let _ = el.set_attribute("style", style);
            let _ = overlay.append_child(&el);
        }
    }
    let _ = body.append_child(&overlay);
}

/// Natively a panic already prints to the terminal; nothing to install.
#[cfg(not(target_arch = "wasm32"))]
pub fn install_overlay() {}
