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
    // With its length the body is copied into one allocation made once. Without (a chunked
    // or compressed answer), the chunks are kept apart and joined at the end: growing one
    // buffer doubles it, and in the browser the memory of every smaller copy stays taken (a
    // 98 MB file had cost 274 MB).
    let known = length(&response).map(|n| n.min(1 << 31) as usize);
    let mut bytes = Vec::with_capacity(known.unwrap_or(0));
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut total = 0u64;
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
        let n = value.length() as usize;
        // Past the announced length the one buffer would have to grow: keep chunks instead.
        if chunks.is_empty() && known.is_some_and(|k| bytes.len() + n <= k) {
            let start = bytes.len();
            bytes.resize(start + n, 0);
            value.copy_to(&mut bytes[start..]);
        } else {
            chunks.push(value.to_vec());
        }
        total += n as u64;
        received(total);
    }
    if !chunks.is_empty() {
        bytes.reserve_exact(chunks.iter().map(Vec::len).sum());
        for c in chunks {
            bytes.extend_from_slice(&c);
        }
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
