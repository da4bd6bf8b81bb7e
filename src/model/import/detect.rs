//! Tells checkpoint formats apart by their first bytes and their names, so that a dropped
//! file meets the right reader, and a PyTorch pickle is refused with a reason instead of a
//! confusing parse error.

use super::error::{ImportError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Safetensors,
    Gguf,
    /// `torch.save` since PyTorch 1.6: a zip archive of pickles.
    PyTorchZip,
    /// A bare pickle (older `torch.save`).
    Pickle,
    /// JSON text (config.json, an index, tokenizer.json).
    Json,
    Unknown,
}

/// The kind of a file from its first bytes.
pub fn detect(bytes: &[u8]) -> FileKind {
    match bytes {
        [b'G', b'G', b'U', b'F', ..] => FileKind::Gguf,
        [b'P', b'K', 3, 4, ..] => FileKind::PyTorchZip,
        // Pickle protocol 2..5 opens with PROTO (0x80) and the protocol number.
        [0x80, 2..=5, ..] => FileKind::Pickle,
        [first, ..] if first.is_ascii_whitespace() || *first == b'{' => FileKind::Json,
        // An 8-byte little-endian header length, then the JSON header's `{`.
        [_, _, _, _, _, _, _, _, b'{', ..] => FileKind::Safetensors,
        _ => FileKind::Unknown,
    }
}

/// The reason Glimpse refuses PyTorch's pickled checkpoints.
const PICKLE: &str = "it is a PyTorch pickle checkpoint, which Glimpse does not read (loading a \
pickle can run arbitrary code); save the model as safetensors instead, e.g. \
`model.save_pretrained(dir, safe_serialization=True)`";

/// An error for file names that are PyTorch pickles (`pytorch_model.bin`, `*.pt`, `*.pth`,
/// `*.ckpt`, `*.pkl`, and their shard indexes).
pub fn refuse_pickle_name(file: &str) -> Result<()> {
    let lower = file.to_ascii_lowercase();
    let stem = lower.strip_suffix(".index.json").unwrap_or(&lower);
    let pickled = [".bin", ".pt", ".pth", ".ckpt", ".pkl"]
        .iter()
        .any(|ext| stem.ends_with(ext));
    if pickled {
        return Err(ImportError::UnsupportedFormat {
            file: file.to_string(),
            reason: PICKLE.into(),
        });
    }
    Ok(())
}

/// An error when `bytes` are a pickle, a PyTorch zip or a GGUF file handed to the safetensors
/// reader (or the other way round), saying what the file is.
pub fn expect_kind(file: &str, bytes: &[u8], wanted: FileKind) -> Result<()> {
    let found = detect(bytes);
    let reason = match found {
        FileKind::PyTorchZip | FileKind::Pickle => PICKLE.to_string(),
        FileKind::Gguf if wanted != FileKind::Gguf => {
            "it is a GGUF file (llama.cpp); open it as a .gguf file".into()
        }
        FileKind::Safetensors if wanted == FileKind::Gguf => {
            "it looks like a safetensors file, not GGUF".into()
        }
        _ => return Ok(()),
    };
    Err(ImportError::UnsupportedFormat {
        file: file.to_string(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_first_bytes() {
        assert_eq!(detect(b"GGUF\x03\0\0\0"), FileKind::Gguf);
        assert_eq!(detect(b"PK\x03\x04rest"), FileKind::PyTorchZip);
        assert_eq!(detect(&[0x80, 2, b'}']), FileKind::Pickle);
        assert_eq!(detect(b"  {\"a\":1}"), FileKind::Json);
        assert_eq!(detect(b"\x10\0\0\0\0\0\0\0{}"), FileKind::Safetensors);
        assert_eq!(detect(b""), FileKind::Unknown);
        assert_eq!(detect(b"GG"), FileKind::Unknown);
    }

    #[test]
    fn pickles_are_refused_by_name_and_by_content() {
        for name in [
            "pytorch_model.bin",
            "model.PT",
            "x.pth",
            "pytorch_model.bin.index.json",
        ] {
            let e = refuse_pickle_name(name).unwrap_err();
            assert!(e.to_string().contains("pickle"), "{e}");
        }
        assert!(refuse_pickle_name("model.safetensors").is_ok());
        assert!(refuse_pickle_name("model.safetensors.index.json").is_ok());
        let e = expect_kind("w", b"PK\x03\x04....", FileKind::Safetensors).unwrap_err();
        assert!(e.to_string().contains("safe_serialization"), "{e}");
        let e = expect_kind("w", b"GGUF....", FileKind::Safetensors).unwrap_err();
        assert!(e.to_string().contains("GGUF"), "{e}");
        assert!(expect_kind("w", b"GGUF", FileKind::Gguf).is_ok());
    }
}
