//! The contrastive lab: InfoNCE on a sentence encoder. A batch of sentence pairs is embedded
//! by the picked model (mean pooling, as MiniLM was trained), every anchor is compared with
//! every pair's positive, and the loss reads each row as "classify the positive among the N
//! candidates" at temperature τ. A hard negative can join the candidates.
//!
//! Embeddings are computed one sentence per frame and kept by text, so the page keeps drawing
//! and editing one sentence recomputes only it; `maths` holds the loss, `view` the drawing.

pub mod maths;
mod view;

use super::{Lab, Shared};
use crate::app::export;
use crate::app::link::{LinkReader, LinkWriter};
use crate::model::transformer::Model;
use crate::model::ForwardOptions;
use std::collections::HashMap;

/// The batch the lab opens with: four pairs of paraphrases, two of music and two of pets
/// asleep, so each anchor meets a negative on its own topic.
pub const DEFAULT_PAIRS: &str = "A man is playing a guitar. | Someone is playing an instrument.
A woman is playing the violin. | A musician performs on a string instrument.
The cat sleeps on the sofa. | A kitten is napping on the couch.
The dog sleeps in the garden. | A puppy is resting outside.";
/// A negative close to the first anchor: the same words, another meaning.
pub const DEFAULT_HARD: &str = "A man is selling a guitar.";
/// The temperature's range; 0.05 is SimCSE's.
pub const TAUS: std::ops::RangeInclusive<f32> = 0.01..=1.0;

pub struct ContrastiveLab {
    /// One "anchor | positive" pair per line.
    pub pairs: String,
    pub hard_negative: String,
    pub use_hard: bool,
    pub tau: f32,
    /// Unit embeddings by (model name, sentence).
    embeddings: HashMap<(String, String), Result<Vec<f32>, String>>,
}

impl Default for ContrastiveLab {
    fn default() -> Self {
        Self {
            pairs: DEFAULT_PAIRS.into(),
            hard_negative: DEFAULT_HARD.into(),
            use_hard: false,
            tau: 0.05,
            embeddings: HashMap::new(),
        }
    }
}

/// The picked model's unit sentence embedding of `text`, by one forward pass.
pub fn embed(model: &Model, text: &str) -> Result<Vec<f32>, String> {
    let input = model.prepare(text, "").input;
    let trace = model
        .forward(&input, &ForwardOptions::default())
        .map_err(|e| e.to_string())?;
    maths::sentence_embedding(&trace).ok_or_else(|| crate::t!("contrastive-error-no-output"))
}

impl ContrastiveLab {
    /// The sentences the view needs: anchors, positives, then the hard negative if used.
    fn sentences(&self, pairs: &[(String, String)]) -> Vec<String> {
        let mut all: Vec<String> = pairs.iter().map(|(a, _)| a.clone()).collect();
        all.extend(pairs.iter().map(|(_, p)| p.clone()));
        if self.use_hard && !self.hard_negative.trim().is_empty() {
            all.push(
                self.hard_negative
                    .trim()
                    .chars()
                    .take(maths::MAX_CHARS)
                    .collect(),
            );
        }
        all
    }

    /// Embeds the first sentence not yet embedded (one pass per frame); true while some are
    /// left.
    pub fn embed_next(&mut self, model: &Model, sentences: &[String]) -> bool {
        let name = model.config.name.clone();
        let missing = sentences
            .iter()
            .find(|s| !self.embeddings.contains_key(&(name.clone(), (*s).clone())));
        match missing {
            Some(s) => {
                let e = embed(model, s);
                self.embeddings.insert((name, s.clone()), e);
                // Keep the cache to what a few batches need.
                if self.embeddings.len() > 256 {
                    self.embeddings.clear();
                }
                true
            }
            None => false,
        }
    }

    /// The embedding of `s` on `model`, once computed.
    fn embedding(&self, model: &str, s: &str) -> Option<&Result<Vec<f32>, String>> {
        self.embeddings.get(&(model.to_string(), s.to_string()))
    }
}

impl Lab for ContrastiveLab {
    fn id(&self) -> &'static str {
        "contrastive"
    }

    fn uses_shared_input(&self) -> bool {
        false
    }

    /// The model picker chooses the encoder (MiniLM was trained for this).
    fn uses_shared_model(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, shared: &mut Shared<'_>) {
        let rect = ui.max_rect();
        ui.horizontal_wrapped(|ui| {
            export::view_menu(ui, shared.exporter, rect, "glimpse-contrastive.png", &[]);
        });
        let model = shared.bench.model.as_deref().map_err(String::as_str);
        self.show(ui, model);
    }

    fn keys(&self) -> &'static [&'static str] {
        &["cpairs", "chard", "cuse", "ctau"]
    }

    fn save(&self, w: &mut LinkWriter) {
        let fresh = Self::default();
        if self.pairs != fresh.pairs {
            w.put("cpairs", &self.pairs);
        }
        if self.hard_negative != fresh.hard_negative {
            w.put("chard", &self.hard_negative);
        }
        w.put("cuse", self.use_hard as u8);
        w.put("ctau", self.tau);
    }

    fn load(&mut self, r: &mut LinkReader) {
        // Bounded, so a hostile link cannot make the lab hold megabytes.
        let text = |v: &str| (v.len() <= 4000).then(|| v.to_string());
        if let Some(x) = r.read("cpairs", text) {
            self.pairs = x;
        }
        if let Some(x) = r.read("chard", text) {
            self.hard_negative = x;
        }
        if let Some(x) = r.flag("cuse") {
            self.use_hard = x;
        }
        if let Some(x) = r.number("ctau", TAUS) {
            self.tau = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::open;
    use egui_kittest::kittest::Queryable;

    /// Frames until every sentence is embedded (one per frame).
    fn settle(h: &mut egui_kittest::Harness<'static, crate::app::GlimpseApp>) {
        for _ in 0..30 {
            h.run_steps(1);
        }
    }

    #[test]
    fn the_lab_embeds_one_sentence_a_frame_and_shows_the_loss() {
        let mut h = open("view=contrastive&model=translate");
        settle(&mut h);
        h.get_by_label_contains("translate was not trained to embed sentences");
        h.get_by_label_contains("over 4 candidates per anchor");
        h.get_by_label_contains("s sub ij = cos(anchor i, candidate j)");
        // The loss as a display formula, read in words.
        h.get_by_label_contains(
            "L sub i = −log the fraction exp(s sub ii /τ), over sum over j of exp(s sub ij /τ), \
             end of fraction; s sub ij = cos(z sub i, z sub j super +)",
        );
        assert!(
            h.query_all_by_label_contains("heatmap anchor × candidate")
                .count()
                >= 2
        );
        h.get_by_role_and_label(egui::accesskit::Role::Slider, "temperature τ");
        h.get_by_label("add it to every anchor's candidates")
            .click();
        settle(&mut h);
        h.get_by_label_contains("over 5 candidates per anchor");
        h.get_by_label_contains("The hard negative raises the mean loss");
        // Bad text: the reason, in place.
        h.state_mut().lab_mut::<ContrastiveLab>().pairs = "only one | pair".into();
        h.run_steps(2);
        h.get_by_label_contains("type at least two pairs");
    }

    /// On all-MiniLM-L6-v2 (when fetched) the two music anchors confuse each other's
    /// positives, and the hard negative "selling a guitar" costs the guitar anchor most.
    #[test]
    fn on_minilm_the_music_pairs_confuse_and_the_hard_negative_costs_anchor_one() {
        if crate::util::real_models::minilm().is_none() {
            return;
        }
        let mut h = open("view=contrastive&model=all-MiniLM-L6-v2&cuse=1");
        for _ in 0..600 {
            h.run_steps(1);
            if h.query_by_label_contains("Mean InfoNCE loss").is_some() {
                break;
            }
        }
        h.get_by_label_contains("2 of 4 anchors rank their positive first");
        h.get_by_label_contains("Most for anchor 1");
        assert_eq!(h.query_all_by_label_contains("was not trained").count(), 0);
    }
}
