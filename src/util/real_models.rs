//! Where `scripts/fetch_models.sh` keeps the real checkpoints: `$GLIMPSE_MODELS`, else
//! `~/.cache/glimpse/models`, outside any clone. The app offers them natively; the tests that
//! compare with `transformers` use them when present, and must find them when
//! `GLIMPSE_REQUIRE_REAL_MODELS` is set (CI), so a missing download fails instead of skipping.

use std::path::PathBuf;

/// The model cache folder.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("GLIMPSE_MODELS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/glimpse/models"),
    }
}

/// `rel` (a file or folder under the cache) when it is there. For tests: panics when it is
/// absent but `GLIMPSE_REQUIRE_REAL_MODELS` asks for it, and otherwise says it is skipped.
pub fn cached(rel: &str) -> Option<PathBuf> {
    let path = cache_dir().join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("GLIMPSE_REQUIRE_REAL_MODELS").is_none(),
        "{} is missing: run scripts/fetch_models.sh",
        path.display()
    );
    eprintln!(
        "skipped: {} is absent (scripts/fetch_models.sh fetches it)",
        path.display()
    );
    None
}

/// all-MiniLM-L6-v2's Hugging Face folder.
pub fn minilm() -> Option<PathBuf> {
    cached("all-MiniLM-L6-v2/model.safetensors")?
        .parent()
        .map(|p| p.to_path_buf())
}

/// SmolLM2-135M-Instruct's Q4_1 GGUF file.
pub fn smollm2() -> Option<PathBuf> {
    cached("SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
}
