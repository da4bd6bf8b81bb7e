//! Training tasks with seeded generators and a fixed held-out split.
//!
//! Every example is a (source, target) pair of token pieces. Which split an example belongs to
//! is decided by a hash of its source, so the held-out set never overlaps training however
//! many examples are drawn.

use crate::model::config::Family;
use crate::model::tokenizer::TokenizerKind;
use crate::util::rng::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Output the input unchanged (diagonal alignment).
    Copy,
    /// Output the input backwards (anti-diagonal alignment).
    Reverse,
    /// Output the input's symbols in order.
    Sort,
    /// A random sequence followed by itself; only the repeat is scored (induction heads).
    Repeat,
    /// A toy French→English grammar with adjective–noun reordering and agreement.
    Translate,
    /// Next-character prediction on a bundled text (assets/corpora/attention.txt).
    #[serde(rename = "lm")]
    CharLm,
}

pub const ALL_TASKS: [TaskKind; 6] = [
    TaskKind::Copy,
    TaskKind::Reverse,
    TaskKind::Sort,
    TaskKind::Repeat,
    TaskKind::Translate,
    TaskKind::CharLm,
];

/// The character LM's text, written for Glimpse.
pub const CORPUS: &str = include_str!("../../assets/corpora/attention.txt");
/// Characters per language-model window (the model sees `<bos>` and this many, predicting each
/// next one).
pub const LM_WINDOW: usize = 48;
/// The held-out part of the corpus: its last tenth.
fn lm_split_point() -> usize {
    CORPUS.chars().count() * 9 / 10
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Train,
    HeldOut,
}

/// One example as token pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub source: Vec<String>,
    pub target: Vec<String>,
}

const LETTERS: &str = "abcdefghij";
const REPEAT_LETTERS: &str = "abcdefghijklmnopqrstuvwxyz";

impl TaskKind {
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Copy => "copy",
            TaskKind::Reverse => "reverse",
            TaskKind::Sort => "sort",
            TaskKind::Repeat => "repeat",
            TaskKind::Translate => "translate",
            TaskKind::CharLm => "lm",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        ALL_TASKS.into_iter().find(|t| t.name() == name)
    }

    /// The family that shows the task best.
    pub fn family(self) -> Family {
        match self {
            TaskKind::Repeat | TaskKind::CharLm => Family::Decoder,
            _ => Family::EncoderDecoder,
        }
    }

    pub fn tokenizer_kind(self) -> TokenizerKind {
        match self {
            TaskKind::Translate => TokenizerKind::Word,
            _ => TokenizerKind::Char,
        }
    }

    /// Every symbol the task can produce, in a fixed order (the vocabulary after specials).
    pub fn symbols(self) -> Vec<String> {
        match self {
            TaskKind::Copy | TaskKind::Reverse | TaskKind::Sort => {
                LETTERS.chars().map(String::from).collect()
            }
            TaskKind::Repeat => REPEAT_LETTERS.chars().map(String::from).collect(),
            TaskKind::Translate => grammar::vocabulary(),
            TaskKind::CharLm => {
                let mut chars: Vec<char> = CORPUS.chars().collect();
                chars.sort_unstable();
                chars.dedup();
                chars.into_iter().map(String::from).collect()
            }
        }
    }

    /// Longest source and target this task produces (pieces, without specials).
    pub fn max_pieces(self) -> usize {
        match self {
            TaskKind::Copy | TaskKind::Reverse | TaskKind::Sort => 8,
            TaskKind::Repeat => 24,
            TaskKind::Translate => 8,
            TaskKind::CharLm => LM_WINDOW,
        }
    }

    fn draw(self, rng: &mut Rng) -> Pair {
        let letters = |rng: &mut Rng, alphabet: &str, min: usize, max: usize| -> Vec<String> {
            let chars: Vec<char> = alphabet.chars().collect();
            let len = min + rng.below(max - min + 1);
            (0..len)
                .map(|_| chars[rng.below(chars.len())].to_string())
                .collect()
        };
        match self {
            TaskKind::Copy => {
                let s = letters(rng, LETTERS, 3, 8);
                Pair {
                    source: s.clone(),
                    target: s,
                }
            }
            TaskKind::Reverse => {
                let s = letters(rng, LETTERS, 3, 8);
                Pair {
                    target: s.iter().rev().cloned().collect(),
                    source: s,
                }
            }
            TaskKind::Sort => {
                let s = letters(rng, LETTERS, 3, 8);
                let mut t = s.clone();
                t.sort();
                Pair {
                    source: s,
                    target: t,
                }
            }
            TaskKind::Repeat => {
                let s = letters(rng, REPEAT_LETTERS, 6, 12);
                Pair {
                    source: s.clone(),
                    target: s,
                }
            }
            TaskKind::Translate => grammar::sentence(rng),
            TaskKind::CharLm => lm_window(rng, Split::Train),
        }
    }

    /// A pair whose source has exactly `len` letters (copy, reverse, sort only), for testing
    /// lengths a model never saw.
    pub fn pair_of_length(self, rng: &mut Rng, len: usize) -> Option<Pair> {
        let chars: Vec<char> = LETTERS.chars().collect();
        let s: Vec<String> = (0..len)
            .map(|_| chars[rng.below(chars.len())].to_string())
            .collect();
        let target = match self {
            TaskKind::Copy => s.clone(),
            TaskKind::Reverse => s.iter().rev().cloned().collect(),
            TaskKind::Sort => {
                let mut t = s.clone();
                t.sort();
                t
            }
            _ => return None,
        };
        Some(Pair { source: s, target })
    }

    /// A fixed example whose attention the training lab redraws as the model learns.
    pub fn probe_pair(self) -> Pair {
        let chars = |s: &str| s.chars().map(String::from).collect::<Vec<_>>();
        let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        match self {
            TaskKind::Copy => Pair {
                source: chars("jabbed"),
                target: chars("jabbed"),
            },
            TaskKind::Reverse => Pair {
                source: chars("abcdefgh"),
                target: chars("hgfedcba"),
            },
            TaskKind::Sort => Pair {
                source: chars("hbdgaec"),
                target: chars("abcdegh"),
            },
            TaskKind::Repeat => Pair {
                source: chars("glimpsehow"),
                target: chars("glimpsehow"),
            },
            TaskKind::Translate => Pair {
                source: words("la zone économique européenne"),
                target: words("the european economic area"),
            },
            TaskKind::CharLm => Pair {
                source: chars("the cat sat on the mat by the river"),
                target: vec![],
            },
        }
    }

    /// Which split a pair belongs to: about 10% is held out, by a hash of the source.
    pub fn split_of(self, pair: &Pair) -> Split {
        // FNV-1a over the pieces: stable across platforms and releases.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for piece in &pair.source {
            for b in piece.bytes().chain([0xff]) {
                h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        if h.is_multiple_of(10) {
            Split::HeldOut
        } else {
            Split::Train
        }
    }

    /// The next example of the wanted split.
    pub fn sample(self, rng: &mut Rng, split: Split) -> Pair {
        if self == TaskKind::CharLm {
            return lm_window(rng, split);
        }
        loop {
            let p = self.draw(rng);
            if self.split_of(&p) == split {
                return p;
            }
        }
    }
}

/// A window of `LM_WINDOW` characters from the training part of the corpus (its first nine
/// tenths) or from the held-out part (the last tenth). Windows never straddle the split.
fn lm_window(rng: &mut Rng, split: Split) -> Pair {
    let chars: Vec<char> = CORPUS.chars().collect();
    let cut = lm_split_point();
    let (lo, hi) = match split {
        Split::Train => (0, cut),
        Split::HeldOut => (cut, chars.len()),
    };
    let span = hi.saturating_sub(lo + LM_WINDOW).max(1);
    let start = lo + rng.below(span);
    let end = (start + LM_WINDOW).min(chars.len());
    Pair {
        source: chars[start..end].iter().map(|c| c.to_string()).collect(),
        target: vec![],
    }
}

/// The loss (nats per character) of predicting the held-out text from training-text character
/// frequencies alone (add-one smoothed): the bar a language model must clear.
pub fn lm_unigram_baseline() -> f32 {
    let chars: Vec<char> = CORPUS.chars().collect();
    let cut = lm_split_point();
    let symbols = TaskKind::CharLm.symbols();
    let count = |c: char, part: &[char]| part.iter().filter(|&&x| x == c).count();
    let train = &chars[..cut];
    let total = train.len() as f64 + symbols.len() as f64;
    let held = &chars[cut..];
    let mut loss = 0.0f64;
    for s in &symbols {
        let c = s.chars().next().unwrap_or(' ');
        let p = (count(c, train) as f64 + 1.0) / total;
        loss -= count(c, held) as f64 * p.ln();
    }
    (loss / held.len().max(1) as f64) as f32
}

/// The toy French→English grammar. French puts adjectives after the noun and agrees them in
/// gender; English puts them before, in reverse order: "la zone économique européenne" →
/// "the european economic area".
pub mod grammar {
    use super::Pair;
    use crate::util::rng::Rng;

    /// (French masculine, French feminine, English)
    const ADJECTIVES: &[(&str, &str, &str)] = &[
        ("noir", "noire", "black"),
        ("petit", "petite", "small"),
        ("grand", "grande", "big"),
        ("vert", "verte", "green"),
        ("économique", "économique", "economic"),
        ("européen", "européenne", "european"),
        ("rapide", "rapide", "fast"),
    ];
    /// (French, feminine?, English)
    const NOUNS: &[(&str, bool, &str)] = &[
        ("chat", false, "cat"),
        ("chien", false, "dog"),
        ("livre", false, "book"),
        ("zone", true, "area"),
        ("maison", true, "house"),
        ("voiture", true, "car"),
        ("table", true, "table"),
    ];
    /// (French, English) subject + verb.
    const SUBJECTS: &[(&str, &str, &str, &str)] = &[
        ("je", "suis", "i", "am"),
        ("tu", "es", "you", "are"),
        ("il", "est", "he", "is"),
        ("elle", "est", "she", "is"),
    ];

    pub fn vocabulary() -> Vec<String> {
        let mut v: Vec<&str> = vec![
            "le",
            "la",
            "the",
            "a",
            "je",
            "vois",
            "see",
            "étudiant",
            "étudiante",
            "student",
        ];
        for (m, f, e) in ADJECTIVES {
            v.extend([*m, *f, *e]);
        }
        for (f, _, e) in NOUNS {
            v.extend([*f, *e]);
        }
        for (fs, fv, es, ev) in SUBJECTS {
            v.extend([*fs, *fv, *es, *ev]);
        }
        v.extend(["est", "is", "."]);
        let mut out: Vec<String> = Vec::new();
        for w in v {
            if !out.iter().any(|x| x == w) {
                out.push(w.to_string());
            }
        }
        out
    }

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    /// A noun phrase with 0–2 distinct adjectives: (French, English).
    fn noun_phrase(rng: &mut Rng) -> (Vec<String>, Vec<String>) {
        let (noun_fr, fem, noun_en) = NOUNS[rng.below(NOUNS.len())];
        let n_adj = rng.below(3);
        let mut adjs: Vec<usize> = Vec::new();
        while adjs.len() < n_adj {
            let a = rng.below(ADJECTIVES.len());
            if !adjs.contains(&a) {
                adjs.push(a);
            }
        }
        let mut fr = words(&[if fem { "la" } else { "le" }, noun_fr]);
        let mut en = words(&["the"]);
        for &a in &adjs {
            let (m, f, _) = ADJECTIVES[a];
            fr.push(if fem { f } else { m }.to_string());
        }
        for &a in adjs.iter().rev() {
            en.push(ADJECTIVES[a].2.to_string());
        }
        en.push(noun_en.to_string());
        (fr, en)
    }

    pub fn sentence(rng: &mut Rng) -> Pair {
        match rng.below(4) {
            // "la zone économique européenne" → "the european economic area"
            0 => {
                let (fr, en) = noun_phrase(rng);
                Pair {
                    source: fr,
                    target: en,
                }
            }
            // "je vois le chat noir ." → "i see the black cat ."
            1 => {
                let (fr, en) = noun_phrase(rng);
                let mut s = words(&["je", "vois"]);
                s.extend(fr);
                s.push(".".into());
                let mut t = words(&["i", "see"]);
                t.extend(en);
                t.push(".".into());
                Pair {
                    source: s,
                    target: t,
                }
            }
            // "je suis étudiant ." → "i am a student ."
            2 => {
                let (fs, fv, es, ev) = SUBJECTS[rng.below(SUBJECTS.len())];
                let fem = fs == "elle" || (fs != "il" && rng.below(2) == 1);
                let s = words(&[fs, fv, if fem { "étudiante" } else { "étudiant" }, "."]);
                let t = words(&[es, ev, "a", "student", "."]);
                Pair {
                    source: s,
                    target: t,
                }
            }
            // "la voiture est petite ." → "the car is small ."
            _ => {
                let (noun_fr, fem, noun_en) = NOUNS[rng.below(NOUNS.len())];
                let (m, f, e) = ADJECTIVES[rng.below(ADJECTIVES.len())];
                let s = words(&[
                    if fem { "la" } else { "le" },
                    noun_fr,
                    "est",
                    if fem { f } else { m },
                    ".",
                ]);
                let t = words(&["the", noun_en, "is", e, "."]);
                Pair {
                    source: s,
                    target: t,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn targets_follow_their_rules() {
        let mut rng = Rng::new(1);
        for _ in 0..200 {
            let p = TaskKind::Reverse.sample(&mut rng, Split::Train);
            assert_eq!(p.target, p.source.iter().rev().cloned().collect::<Vec<_>>());
            let p = TaskKind::Sort.sample(&mut rng, Split::Train);
            assert!(p.target.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(p.source.len(), p.target.len());
        }
    }

    #[test]
    fn held_out_never_overlaps_training() {
        for task in ALL_TASKS {
            let mut rng = Rng::new(7);
            let train: HashSet<Vec<String>> = (0..2000)
                .map(|_| task.sample(&mut rng, Split::Train).source)
                .collect();
            let held: HashSet<Vec<String>> = (0..200)
                .map(|_| task.sample(&mut rng, Split::HeldOut).source)
                .collect();
            assert!(train.is_disjoint(&held), "{}", task.name());
        }
    }

    #[test]
    fn probe_pairs_use_the_task_vocabulary() {
        for task in ALL_TASKS {
            let vocab: HashSet<String> = task.symbols().into_iter().collect();
            let p = task.probe_pair();
            assert!(
                p.source.iter().chain(&p.target).all(|x| vocab.contains(x)),
                "{}",
                task.name()
            );
        }
    }

    #[test]
    fn same_seed_same_examples() {
        let a: Vec<Pair> = {
            let mut r = Rng::new(3);
            (0..20)
                .map(|_| TaskKind::Translate.sample(&mut r, Split::Train))
                .collect()
        };
        let mut r = Rng::new(3);
        let b: Vec<Pair> = (0..20)
            .map(|_| TaskKind::Translate.sample(&mut r, Split::Train))
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn the_textbook_phrases_are_in_the_grammar() {
        let mut rng = Rng::new(11);
        let seen: HashSet<(String, String)> = (0..20000)
            .map(|_| grammar::sentence(&mut rng))
            .map(|p| (p.source.join(" "), p.target.join(" ")))
            .collect();
        assert!(seen.contains(&(
            "la zone économique européenne".into(),
            "the european economic area".into()
        )));
        assert!(seen.contains(&("je suis étudiant .".into(), "i am a student .".into())));
    }

    #[test]
    fn every_piece_is_in_the_vocabulary() {
        for task in ALL_TASKS {
            let vocab: HashSet<String> = task.symbols().into_iter().collect();
            let mut rng = Rng::new(5);
            for _ in 0..500 {
                let p = task.sample(&mut rng, Split::Train);
                assert!(
                    p.source.len() <= task.max_pieces() && p.target.len() <= task.max_pieces() + 2
                );
                for piece in p.source.iter().chain(&p.target) {
                    assert!(
                        vocab.contains(piece),
                        "{}: {piece:?} not in vocabulary",
                        task.name()
                    );
                }
            }
        }
    }
}
