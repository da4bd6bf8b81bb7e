//! Pieces as readers expect to see them: WordPiece keeps `##ing`; byte-level BPE shows the bytes
//! its characters stand for (`Ġthe` → ` the`, `Ċ` → `\n`); SentencePiece's `▁` is a space.
//! Control characters are written out (`\n`, `<0x07>`) so a piece is always one visible line, and
//! a byte that is only part of a UTF-8 character is shown as `<0xE2>`.

use super::SubwordKind;
use std::collections::HashMap;
use std::sync::OnceLock;

/// GPT-2's byte-level alphabet: printable Latin-1 bytes stand for themselves, the other 68 bytes
/// are shifted to U+0100 and up, in byte order.
pub fn byte_to_char() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = ['\0'; 256];
        let mut next = 256u32;
        for (b, slot) in table.iter_mut().enumerate() {
            let printable = matches!(b, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF);
            let code = if printable {
                b as u32
            } else {
                next += 1;
                next - 1
            };
            // Every code is below U+0200, so never a surrogate.
            *slot = char::from_u32(code).unwrap_or('\u{FFFD}');
        }
        table
    })
}

fn char_to_byte() -> &'static HashMap<char, u8> {
    static TABLE: OnceLock<HashMap<char, u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        byte_to_char()
            .iter()
            .enumerate()
            .map(|(b, &c)| (c, b as u8))
            .collect()
    })
}

/// The bytes a byte-level token stands for; `None` if a character is outside the alphabet.
pub fn byte_level_bytes(token: &str) -> Option<Vec<u8>> {
    let table = char_to_byte();
    token.chars().map(|c| table.get(&c).copied()).collect()
}

/// Whether every character of `token` is in the byte-level alphabet.
pub fn is_byte_level(token: &str) -> bool {
    let table = char_to_byte();
    token.chars().all(|c| table.contains_key(&c))
}

/// A token's text made visible on one line.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        push_char(&mut out, c);
    }
    out
}

fn push_char(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() && (c as u32) < 0x100 => {
            out.push_str(&format!("<0x{:02X}>", c as u32));
        }
        c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
        c => out.push(c),
    }
}

/// Bytes as text: valid UTF-8 runs escaped like `escape`, every other byte as `<0xHH>`.
pub fn show_bytes(mut bytes: &[u8]) -> String {
    let mut out = String::new();
    while !bytes.is_empty() {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(&escape(s));
                break;
            }
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(&escape(&String::from_utf8_lossy(good)));
                let n = e.error_len().unwrap_or(rest.len()).max(1).min(rest.len());
                for b in &rest[..n] {
                    out.push_str(&format!("<0x{b:02X}>"));
                }
                bytes = &rest[n..];
            }
        }
    }
    out
}

/// SentencePiece's byte-fallback token `<0xHH>`.
fn fallback_byte(token: &str) -> Option<u8> {
    let hex = token.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// How a vocabulary token of a tokenizer of `kind` is shown (added tokens are shown as written).
pub fn piece(kind: SubwordKind, token: &str) -> String {
    match kind {
        SubwordKind::WordPiece | SubwordKind::Bpe => escape(token),
        SubwordKind::ByteLevelBpe => match byte_level_bytes(token) {
            Some(bytes) => show_bytes(&bytes),
            None => escape(token),
        },
        SubwordKind::SentencePieceBpe => match fallback_byte(token) {
            Some(b) if b < 0x80 => escape(&char::from(b).to_string()),
            Some(_) => token.to_string(),
            None => escape(&token.replace('\u{2581}', " ")),
        },
    }
}
