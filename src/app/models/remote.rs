//! Downloading a checkpoint's files in the browser (served beside the app, from a hub, from a
//! URL): the config first, so an unsupported architecture or a model too large for the tab
//! is refused before its weights are fetched; then the tokenizer and the weights (one file or
//! the shards an index names), reporting bytes received.

use crate::app::models::fetch::{self, Failure};
use crate::app::models::sources::{check_size, http_failure, network_failure, Location};
use crate::model::import::files::{estimated_memory, CONFIG, TOKENIZER, WEIGHTS};
use crate::model::import::safetensors_file::INDEX_FILE;
use crate::model::import::{parse_index, Architecture, CheckpointFiles, Limits};

/// Bytes received so far, and the total when the server says.
pub type Report<'a> = &'a dyn Fn(u64, Option<u64>);

/// Every file the checkpoint at `loc` needs, or why it cannot be opened here.
pub async fn download(loc: &Location, report: Report<'_>) -> Result<CheckpointFiles, String> {
    let mut files = CheckpointFiles::new();
    let mut done = Done::default();
    if let Some(gguf) = &loc.gguf {
        let bytes = done
            .fetch(
                loc,
                gguf,
                Some(&|len| check_size(loc, len, estimated_memory(len, true, None))),
                report,
            )
            .await?;
        files.add(gguf, bytes);
        return Ok(files);
    }
    let config = done.fetch(loc, CONFIG, None, report).await?;
    let config = String::from_utf8(config)
        .map_err(|_| crate::t!("models-file-not-utf8", model = &loc.label, file = CONFIG))?;
    // Refuse what Glimpse cannot run before downloading megabytes of weights.
    Architecture::from_config_json(&config).map_err(|e| format!("{}: {e}", loc.label))?;
    let tokenizer = done.fetch(loc, TOKENIZER, None, report).await?;
    let fits = |len| check_size(loc, len, estimated_memory(len, false, Some(&config)));
    match done.fetch(loc, WEIGHTS, Some(&fits), report).await {
        Ok(weights) => files.add(WEIGHTS, weights),
        Err(e) if e.contains("HTTP 404") => {
            // No single file: a sharded checkpoint names its shards in an index.
            let index = done
                .fetch(loc, INDEX_FILE, None, report)
                .await
                .map_err(|_| e)?;
            let text = String::from_utf8(index.clone()).map_err(|_| {
                crate::t!(
                    "models-file-not-utf8",
                    model = &loc.label,
                    file = INDEX_FILE
                )
            })?;
            let shards = parse_index(&text, &Limits::default())
                .map_err(|e| format!("{}: {e}", loc.label))?;
            files.add(INDEX_FILE, index);
            let mut so_far = 0u64;
            for shard in shards.shards() {
                let fits = |len: u64| {
                    check_size(
                        loc,
                        so_far + len,
                        estimated_memory(so_far + len, false, Some(&config)),
                    )
                };
                let bytes = done.fetch(loc, shard, Some(&fits), report).await?;
                so_far += bytes.len() as u64;
                files.add(shard, bytes);
            }
        }
        Err(e) => return Err(e),
    }
    files.add(CONFIG, config.into_bytes());
    files.add(TOKENIZER, tokenizer);
    Ok(files)
}

/// Bytes of the files already downloaded, so progress counts the whole checkpoint.
#[derive(Default)]
struct Done {
    bytes: u64,
}

impl Done {
    /// One file: `fits` sees its length (when the server gives one) before its body is read.
    async fn fetch(
        &mut self,
        loc: &Location,
        file: &str,
        fits: Option<&dyn Fn(u64) -> Result<(), String>>,
        report: Report<'_>,
    ) -> Result<Vec<u8>, String> {
        let describe = |f: Failure| match f {
            Failure::Network => network_failure(loc, file),
            Failure::Status(s) => http_failure(loc, file, s),
            Failure::Body => {
                crate::t!("models-download-broke-off", model = &loc.label, file = file)
            }
        };
        let response = fetch::open(&loc.url(file)).await.map_err(describe)?;
        let length = fetch::length(&response);
        if let (Some(fits), Some(len)) = (fits, length) {
            if let Err(e) = fits(len) {
                fetch::abandon(&response);
                return Err(e);
            }
        }
        let before = self.bytes;
        let total = length.map(|l| before + l);
        report(before, total);
        let bytes = fetch::body(response, &mut |got| report(before + got, total))
            .await
            .map_err(describe)?;
        self.bytes += bytes.len() as u64;
        Ok(bytes)
    }
}
