//! Files beside the app, fetched by the browser (built-in models, later checkpoints).

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The bytes at `url` (relative to the page), or why not: no network, or an HTTP error.
pub async fn bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no browser window")?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| format!("{url}: could not be fetched (offline?)"))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| format!("{url}: not an HTTP response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let body = response
        .array_buffer()
        .map_err(|_| format!("{url}: the body could not be read"))?;
    let body = JsFuture::from(body)
        .await
        .map_err(|_| format!("{url}: the download broke off"))?;
    Ok(js_sys::Uint8Array::new(&body).to_vec())
}
