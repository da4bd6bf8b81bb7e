//! Files fetched by the browser: built-in models beside the app, served checkpoints, hub and
//! URL downloads. A download reads its body in chunks so progress can be shown.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Why a fetch failed: no response at all (offline, CORS), or an HTTP error status.
pub enum Failure {
    Network,
    Status(u16),
    /// The body broke off or could not be read.
    Body,
}

/// The response for `url` (relative to the page), once its headers have arrived.
pub async fn open(url: &str) -> Result<web_sys::Response, Failure> {
    let window = web_sys::window().ok_or(Failure::Network)?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| Failure::Network)?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| Failure::Network)?;
    if !response.ok() {
        return Err(Failure::Status(response.status()));
    }
    Ok(response)
}

/// The body's length from `Content-Length`, when the server gives it.
pub fn length(response: &web_sys::Response) -> Option<u64> {
    response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse().ok())
}

/// Stop a download whose body is not wanted (a file refused from its length).
pub fn abandon(response: &web_sys::Response) {
    if let Some(stream) = response.body() {
        let _ = stream.cancel();
    }
}

/// The whole body, chunk by chunk; `received` is called with the bytes so far after each.
pub async fn body(
    response: web_sys::Response,
    received: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, Failure> {
    let Some(stream) = response.body() else {
        return Ok(Vec::new());
    };
    let reader: web_sys::ReadableStreamDefaultReader =
        stream.get_reader().dyn_into().map_err(|_| Failure::Body)?;
    let mut bytes = Vec::with_capacity(length(&response).unwrap_or(0).min(1 << 31) as usize);
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|_| Failure::Body)?;
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .map(|d| d.is_truthy())
            .unwrap_or(true);
        if done {
            break;
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(|_| Failure::Body)?;
        let value: js_sys::Uint8Array = value.dyn_into().map_err(|_| Failure::Body)?;
        let start = bytes.len();
        bytes.resize(start + value.length() as usize, 0);
        value.copy_to(&mut bytes[start..]);
        received(bytes.len() as u64);
    }
    Ok(bytes)
}

/// The bytes at `url`, or why not as a sentence: no network, or an HTTP error.
pub async fn bytes(url: &str) -> Result<Vec<u8>, String> {
    let describe = |f: Failure| match f {
        Failure::Network => crate::t!("models-fetch-offline", url = url),
        Failure::Status(s) => format!("{url}: HTTP {s}"),
        Failure::Body => crate::t!("models-fetch-broke-off", url = url),
    };
    let response = open(url).await.map_err(describe)?;
    body(response, &mut |_| {}).await.map_err(describe)
}
