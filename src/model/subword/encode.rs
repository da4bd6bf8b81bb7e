//! Text to ids and back: the library's encoding with the model's special tokens, then the
//! input limit (cut or refuse); decoding checks every id first.

use super::{
    guard, library, Overflow, Result, SubwordEncoding, SubwordError, SubwordTokenizer, Truncation,
    MAX_TEXT_BYTES,
};

impl SubwordTokenizer {
    /// Encodes a few words and forgets them: the library compiles its pre-tokenizer's regular
    /// expressions at their first use (the byte-level one took 36 ms in the browser), so
    /// that happens while the model is built (on the engine's worker where there is one,
    /// whose memory the page shares), not in the first frame that shows the model.
    pub fn warm_up(&self) {
        let _ = self.encode("Warm up: 1, 2.", None, false);
    }

    /// Encodes `text` (and `pair`, as BERT's second segment), with the model's special tokens when
    /// `add_special`, then applies the input limit.
    pub fn encode(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special: bool,
    ) -> Result<SubwordEncoding> {
        for t in std::iter::once(text).chain(pair) {
            if t.len() > MAX_TEXT_BYTES {
                return Err(SubwordError::TextTooLong {
                    len: t.len(),
                    limit: MAX_TEXT_BYTES,
                });
            }
        }
        let encoding = guard("encoding the text", || match pair {
            Some(p) => self.inner.encode((text, p), add_special),
            None => self.inner.encode(text, add_special),
        })?
        .map_err(library)?;
        let ids = encoding.get_ids().to_vec();
        let mask = encoding.get_special_tokens_mask();
        let mut out = SubwordEncoding {
            special: ids
                .iter()
                .enumerate()
                .map(|(i, id)| mask.get(i) == Some(&1) || self.special_ids.contains(id))
                .collect(),
            // From the vocabulary, not the matched text (an added token may have taken the
            // spaces it strips), so a piece is always `display_piece(id)`.
            pieces: ids
                .iter()
                .zip(encoding.get_tokens())
                .map(|(&id, t)| match self.inner.id_to_token(id) {
                    Some(stored) => self.show(id, &stored),
                    None => self.show(id, t),
                })
                .collect(),
            type_ids: encoding.get_type_ids().to_vec(),
            attention_mask: encoding.get_attention_mask().to_vec(),
            offsets: encoding.get_offsets().to_vec(),
            sequence: encoding.get_sequence_ids(),
            ids,
            truncation: None,
        };
        let n = out.ids.len();
        if [
            out.type_ids.len(),
            out.attention_mask.len(),
            out.offsets.len(),
            out.sequence.len(),
            out.pieces.len(),
        ]
        .iter()
        .any(|&l| l != n)
        {
            return Err(library("an encoding whose parts differ in length"));
        }
        if let Some(&id) = out.ids.iter().find(|&&id| id as usize >= self.vocab_size) {
            return Err(SubwordError::BadId {
                id,
                vocab: self.vocab_size,
            });
        }
        self.apply_limit(&mut out)?;
        Ok(out)
    }

    fn apply_limit(&self, enc: &mut SubwordEncoding) -> Result<()> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        let (len, max) = (enc.ids.len(), limit.max_tokens);
        if len <= max {
            return Ok(());
        }
        let fixed = enc.sequence.iter().filter(|s| s.is_none()).count();
        if limit.overflow == Overflow::Refuse || fixed >= max {
            return Err(SubwordError::TooLong { len, max });
        }
        let mut keep = [0usize; 2];
        for s in enc.sequence.iter().flatten() {
            keep[(*s).min(1)] += 1;
        }
        let total = keep;
        // Longest first, as Hugging Face does: the pair keeps as much of both texts as it can.
        while keep[0] + keep[1] > max - fixed {
            let i = usize::from(keep[1] > keep[0]);
            keep[i] -= 1;
        }
        let mut seen = [0usize; 2];
        let kept: Vec<bool> = enc
            .sequence
            .iter()
            .map(|s| match s {
                None => true,
                Some(s) => {
                    let i = (*s).min(1);
                    seen[i] += 1;
                    seen[i] <= keep[i]
                }
            })
            .collect();
        fn filter<T>(v: &mut Vec<T>, kept: &[bool]) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                kept[i - 1]
            });
        }
        filter(&mut enc.ids, &kept);
        filter(&mut enc.type_ids, &kept);
        filter(&mut enc.attention_mask, &kept);
        filter(&mut enc.offsets, &kept);
        filter(&mut enc.sequence, &kept);
        filter(&mut enc.special, &kept);
        filter(&mut enc.pieces, &kept);
        enc.truncation = Some(Truncation {
            original_len: len,
            max_tokens: max,
            dropped: [total[0] - keep[0], total[1] - keep[1]],
        });
        Ok(())
    }

    /// The text `ids` stand for, special tokens included.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        if let Some(&id) = ids.iter().find(|&&id| self.inner.id_to_token(id).is_none()) {
            return Err(SubwordError::BadId {
                id,
                vocab: self.vocab_size,
            });
        }
        // Some decoders index the last token and fail on none.
        if ids.is_empty() {
            return Ok(String::new());
        }
        guard("decoding", || self.inner.decode(ids, false))?.map_err(library)
    }
}
