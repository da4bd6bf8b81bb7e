//! Beam search, recorded as a tree. Every expanded hypothesis is a node; each step expands
//! the live hypotheses, ranks all candidates by `Σ log p / L^α`, keeps the best B and marks
//! the rest pruned (they stay in the tree). Hypotheses ending in `<eos>` are finished.

use super::source::Source;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BeamConfig {
    pub width: usize,
    /// Length-normalisation exponent α: score = cumulative log p / L^α (L generated tokens).
    pub alpha: f32,
    /// Most tokens to generate.
    pub max_len: usize,
}

impl Default for BeamConfig {
    fn default() -> Self {
        Self {
            width: 3,
            alpha: 0.0,
            max_len: 12,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum NodeState {
    /// In the beam, to be expanded next step.
    Live,
    /// Expanded already (an inner node).
    Expanded,
    /// Ranked below the beam: `rank` among `of` candidates of its step.
    Pruned { rank: usize, of: usize },
    /// Ended with `<eos>` inside the beam.
    Finished,
    /// Still live when the length limit was reached.
    Stopped,
    /// Still live when the search ended because (α = 0) a finished hypothesis already scored
    /// higher than it ever can: each further token only lowers its score.
    Outscored,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub id: usize,
    pub parent: Option<usize>,
    pub token: u32,
    pub text: String,
    /// Generated tokens up to and including this one (0 for the root).
    pub length: usize,
    /// The step that created it (0: the root).
    pub step: usize,
    pub log_p: f32,
    pub cum: f32,
    /// `cum / length^α`.
    pub score: f32,
    pub state: NodeState,
    /// On the path greedy decoding takes.
    pub greedy: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct BeamSearch {
    pub config: BeamConfig,
    pub nodes: Vec<Node>,
    /// Per step: the candidate node ids in rank order (best first).
    pub candidates: Vec<Vec<usize>>,
    pub done: bool,
}

/// `cum / L^α` (L ≥ 1).
pub fn normalised(cum: f32, length: usize, alpha: f32) -> f32 {
    cum / (length.max(1) as f32).powf(alpha)
}

impl BeamSearch {
    /// A search whose root is `prompt` (starting with `<bos>`).
    pub fn new(source: &dyn Source, config: BeamConfig, prompt: &[u32]) -> Self {
        let root = Node {
            id: 0,
            parent: None,
            token: *prompt.last().unwrap_or(&source.bos()),
            text: prompt
                .iter()
                .map(|&t| source.token(t))
                .collect::<Vec<_>>()
                .join(" "),
            length: 0,
            step: 0,
            log_p: 0.0,
            cum: 0.0,
            score: 0.0,
            state: NodeState::Live,
            greedy: true,
        };
        Self {
            config: BeamConfig {
                width: config.width.clamp(1, 64),
                ..config
            },
            nodes: vec![root],
            candidates: Vec::new(),
            done: false,
        }
    }

    /// The token ids from the root's prompt to `node`.
    pub fn prefix(&self, prompt: &[u32], node: usize) -> Vec<u32> {
        let mut path = Vec::new();
        let mut at = Some(node);
        while let Some(i) = at {
            if self.nodes[i].parent.is_some() {
                path.push(self.nodes[i].token);
            }
            at = self.nodes[i].parent;
        }
        path.reverse();
        let mut p = prompt.to_vec();
        p.extend(path);
        p
    }

    pub fn live(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .filter(|n| n.state == NodeState::Live)
            .map(|n| n.id)
            .collect()
    }

    /// One step: expand every live hypothesis by its best `width` tokens, rank all candidates,
    /// keep the best `width`. Returns false once the search is over.
    pub fn step(&mut self, source: &mut dyn Source, prompt: &[u32]) -> Result<bool, String> {
        let live = self.live();
        if self.done || live.is_empty() {
            self.done = true;
            return Ok(false);
        }
        let step = self.candidates.len() + 1;
        let (width, alpha) = (self.config.width, self.config.alpha);
        let mut fresh = Vec::new();
        for &parent in &live {
            let lp = source.log_probs(&self.prefix(prompt, parent))?;
            let mut order: Vec<usize> = (0..lp.len()).filter(|&t| lp[t].is_finite()).collect();
            order.sort_by(|&a, &b| lp[b].total_cmp(&lp[a]).then(a.cmp(&b)));
            let greedy_child = self.nodes[parent].greedy;
            for (k, &t) in order.iter().take(width).enumerate() {
                let p = &self.nodes[parent];
                let (length, cum) = (p.length + 1, p.cum + lp[t]);
                let id = self.nodes.len();
                self.nodes.push(Node {
                    id,
                    parent: Some(parent),
                    token: t as u32,
                    text: source.token(t as u32),
                    length,
                    step,
                    log_p: lp[t],
                    cum,
                    score: normalised(cum, length, alpha),
                    state: NodeState::Pruned { rank: 0, of: 0 },
                    greedy: greedy_child && k == 0,
                });
                fresh.push(id);
            }
            self.nodes[parent].state = NodeState::Expanded;
        }
        fresh.sort_by(|&a, &b| {
            self.nodes[b]
                .score
                .total_cmp(&self.nodes[a].score)
                .then(a.cmp(&b))
        });
        let of = fresh.len();
        let eos = source.eos();
        let last_step = step >= self.config.max_len;
        for (rank, &id) in fresh.iter().enumerate() {
            let n = &mut self.nodes[id];
            n.state = if rank >= width {
                NodeState::Pruned { rank: rank + 1, of }
            } else if n.token == eos {
                NodeState::Finished
            } else if last_step {
                NodeState::Stopped
            } else {
                NodeState::Live
            };
        }
        self.candidates.push(fresh);
        if self.beam_is_decided() {
            for n in self.nodes.iter_mut().filter(|n| n.state == NodeState::Live) {
                n.state = NodeState::Outscored;
            }
        }
        self.done = self.live().is_empty();
        Ok(!self.done)
    }

    /// The search can stop early only when that is provably safe: without length
    /// normalisation scores only fall as a hypothesis grows, so once the best finished score
    /// is above every live one nothing can overtake it. (With α > 0 it runs to the end.)
    fn beam_is_decided(&self) -> bool {
        let best_done = self
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Finished)
            .map(|n| n.score)
            .fold(f32::NEG_INFINITY, f32::max);
        let best_live = self
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Live)
            .map(|n| n.score)
            .fold(f32::NEG_INFINITY, f32::max);
        self.config.alpha == 0.0 && best_done >= best_live
    }

    /// Run to the end.
    pub fn run(&mut self, source: &mut dyn Source, prompt: &[u32]) -> Result<(), String> {
        while self.step(source, prompt)? {}
        Ok(())
    }

    /// Finished (and length-stopped) hypotheses, best score first.
    pub fn ranking(&self) -> Vec<usize> {
        let mut done: Vec<usize> = self
            .nodes
            .iter()
            .filter(|n| {
                matches!(
                    n.state,
                    NodeState::Finished | NodeState::Stopped | NodeState::Outscored
                )
            })
            .map(|n| n.id)
            .collect();
        done.sort_by(|&a, &b| {
            self.nodes[b]
                .score
                .total_cmp(&self.nodes[a].score)
                .then(a.cmp(&b))
        });
        done
    }

    /// The generated tokens of a node (without the prompt).
    pub fn tokens(&self, node: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = Some(node);
        while let Some(i) = at {
            if self.nodes[i].parent.is_some() {
                out.push(self.nodes[i].text.clone());
            }
            at = self.nodes[i].parent;
        }
        out.reverse();
        out
    }
}

/// Greedy decoding: the most likely token each step, until `<eos>` or `max_len` tokens.
pub fn greedy(
    source: &mut dyn Source,
    prompt: &[u32],
    max_len: usize,
) -> Result<(Vec<u32>, f32), String> {
    let mut prefix = prompt.to_vec();
    let (mut out, mut cum) = (Vec::new(), 0.0f32);
    for _ in 0..max_len {
        let Some((t, l)) = most_likely(&source.log_probs_onward(&prefix)?) else {
            break;
        };
        out.push(t);
        prefix.push(t);
        cum += l;
        if t == source.eos() {
            break;
        }
    }
    Ok((out, cum))
}

/// Greedy decoding's choice: the most likely token and its log p (the lowest id on a tie);
/// `None` when no token is possible.
pub fn most_likely(log_probs: &[f32]) -> Option<(u32, f32)> {
    log_probs
        .iter()
        .enumerate()
        .filter(|(_, x)| x.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(t, &l)| (t as u32, l))
}

#[cfg(test)]
mod tests {
    use super::super::table::{TableSource, TEXTBOOK};
    use super::super::ModelSource;
    use super::*;
    use crate::model::builtin;
    use crate::model::tokenizer::BOS;

    fn best(b: &BeamSearch) -> (Vec<String>, f32) {
        let top = b.ranking()[0];
        (b.tokens(top), b.nodes[top].cum)
    }

    #[test]
    fn beam_finds_what_myopic_greedy_misses() {
        let mut t = TableSource::parse(TEXTBOOK, 1.0).unwrap();
        let (g, g_cum) = greedy(&mut t, &[BOS], 10).unwrap();
        let names: Vec<String> = g.iter().map(|&i| t.token(i)).collect();
        assert_eq!(names, ["the", "cat", "<eos>"]);
        assert!((g_cum.exp() - 0.5 * 0.4).abs() < 1e-6);
        let mut b = BeamSearch::new(
            &t,
            BeamConfig {
                width: 2,
                ..Default::default()
            },
            &[BOS],
        );
        b.run(&mut t, &[BOS]).unwrap();
        let (seq, cum) = best(&b);
        assert_eq!(seq, ["a", "cat", "<eos>"]);
        assert!((cum.exp() - 0.4 * 0.9).abs() < 1e-6);
        // The greedy path is marked in the tree.
        let marked: Vec<String> = b
            .nodes
            .iter()
            .filter(|n| n.greedy && n.parent.is_some())
            .map(|n| n.text.clone())
            .collect();
        assert!(marked.starts_with(&["the".to_string()]));
    }

    #[test]
    fn width_one_is_greedy() {
        for name in ["translate", "reverse"] {
            let m = builtin::load(name).unwrap();
            let info = builtin::info(name).unwrap();
            let mut s = ModelSource::new(m, info.example_source, 1.0, true).unwrap();
            let (g, _) = greedy(&mut s, &[BOS], 12).unwrap();
            let mut b = BeamSearch::new(
                &s,
                BeamConfig {
                    width: 1,
                    alpha: 0.0,
                    max_len: 12,
                },
                &[BOS],
            );
            b.run(&mut s, &[BOS]).unwrap();
            let top = b.ranking()[0];
            let ids: Vec<u32> = b.prefix(&[BOS], top)[1..].to_vec();
            assert_eq!(ids, g, "{name}");
        }
    }

    #[test]
    fn every_child_adds_its_log_p_to_its_parent() {
        let m = builtin::load("translate").unwrap();
        let mut s = ModelSource::new(m, "la zone économique européenne", 1.0, true).unwrap();
        let mut b = BeamSearch::new(
            &s,
            BeamConfig {
                width: 4,
                alpha: 0.7,
                max_len: 8,
            },
            &[BOS],
        );
        b.run(&mut s, &[BOS]).unwrap();
        assert!(b.nodes.len() > 10);
        for n in &b.nodes[1..] {
            let p = &b.nodes[n.parent.unwrap()];
            assert!((n.cum - (p.cum + n.log_p)).abs() < 1e-5);
            assert!((n.score - normalised(n.cum, n.length, 0.7)).abs() < 1e-6);
        }
        let (seq, _) = best(&b);
        assert_eq!(seq.join(" "), "the european economic area <eos>");
    }

    #[test]
    fn alpha_changes_the_ranking_as_the_formula_says() {
        // A short and a long ending: without normalisation the short one wins (fewer
        // factors below 1); with α = 1 the per-token average decides.
        let table = "<bos> -> x 0.6, y 0.4\n<bos> x -> <eos> 1\n<bos> y -> y 0.9, <eos> 0.1\n<bos> y y -> y 0.95, <eos> 0.05\n<bos> y y y -> <eos> 1";
        let run = |alpha| {
            let mut t = TableSource::parse(table, 1.0).unwrap();
            let mut b = BeamSearch::new(
                &t,
                BeamConfig {
                    width: 3,
                    alpha,
                    max_len: 6,
                },
                &[BOS],
            );
            b.run(&mut t, &[BOS]).unwrap();
            best(&b).0.join(" ")
        };
        // cum: "x <eos>" ln 0.6 = −0.51 (L 2); "y y y <eos>" ln(0.4·0.9·0.95) = −1.07 (L 4)
        assert_eq!(run(0.0), "x <eos>");
        // α = 1: −0.51 / 2 = −0.255 vs −1.07 / 4 = −0.268: still x, barely; α = 1.5 flips it.
        assert_eq!(run(1.0), "x <eos>");
        assert_eq!(run(1.5), "y y y <eos>");
    }

    #[test]
    fn cached_and_recomputed_decoding_build_the_same_tree() {
        let m = builtin::load("translate").unwrap();
        let cfg = BeamConfig {
            width: 3,
            alpha: 0.6,
            max_len: 8,
        };
        let tree = |cache| {
            let mut s =
                ModelSource::new(m.clone(), "la zone économique européenne", 1.0, cache).unwrap();
            let mut b = BeamSearch::new(&s, cfg, &[BOS]);
            b.run(&mut s, &[BOS]).unwrap();
            (b, s.work())
        };
        let ((a, wa), (b, wb)) = (tree(true), tree(false));
        assert_eq!(a.nodes.len(), b.nodes.len());
        for (x, y) in a.nodes.iter().zip(&b.nodes) {
            assert_eq!((x.token, x.parent, &x.state), (y.token, y.parent, &y.state));
            assert!((x.cum - y.cum).abs() < 1e-4);
        }
        assert!(wa.positions < wb.positions, "{wa:?} {wb:?}");
    }
}
