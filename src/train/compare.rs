//! Training runs side by side: configurations that differ in one setting, trained in turn for
//! the same number of steps on the same examples (the same seed), so that any difference in
//! their curves comes from that setting. Step-able, like [`Trainer`], so the app can share its
//! frames with drawing.

use super::optim::Schedule;
use super::tasks::TaskKind;
use super::trainer::{EvalStats, StepStats, TrainConfig, Trainer};
use crate::model::config::NormPlacement;
use crate::model::Result;
use serde::Serialize;
use web_time::{Duration, Instant};

/// One configuration in a race, with its trainer and its held-out evaluations.
pub struct Contender {
    pub label: String,
    pub trainer: Trainer,
    /// (step, held-out evaluation), every `eval_every` steps and at the end.
    pub evals: Vec<(u64, EvalStats)>,
    /// Why it stopped early: a loss that is no longer finite, or an error.
    pub stopped: Option<String>,
    /// Seconds spent in its training steps (evaluations not counted): its run time.
    pub seconds: f64,
}

impl Contender {
    pub fn steps(&self) -> u64 {
        self.trainer.steps_done()
    }

    pub fn history(&self) -> &[StepStats] {
        &self.trainer.history
    }

    pub fn last_eval(&self) -> Option<&EvalStats> {
        self.evals.last().map(|(_, e)| e)
    }
}

/// Several contenders trained for `steps` steps each.
pub struct Race {
    pub contenders: Vec<Contender>,
    pub steps: u64,
    pub eval_every: u64,
    pub eval_examples: usize,
}

/// What a finished contender reached, for the CLI and the README.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub label: String,
    pub steps: u64,
    /// Mean training loss over the last tenth of the steps run.
    pub final_loss: f32,
    pub eval: Option<EvalStats>,
    pub stopped: Option<String>,
    /// Seconds spent training it.
    pub seconds: f64,
}

impl Race {
    pub fn new(
        entries: Vec<(String, TrainConfig)>,
        steps: u64,
        eval_every: u64,
        eval_examples: usize,
    ) -> Result<Self> {
        let contenders = entries
            .into_iter()
            .map(|(label, config)| {
                Ok(Contender {
                    trainer: Trainer::new(config, &label)?,
                    label,
                    evals: Vec::new(),
                    stopped: None,
                    seconds: 0.0,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            contenders,
            steps,
            eval_every: eval_every.max(1),
            eval_examples,
        })
    }

    fn running(&self, c: &Contender) -> bool {
        c.stopped.is_none() && c.steps() < self.steps
    }

    pub fn done(&self) -> bool {
        !self.contenders.iter().any(|c| self.running(c))
    }

    /// Steps done over steps wanted, across all contenders still counted.
    pub fn progress(&self) -> f32 {
        let wanted = self.steps * self.contenders.len() as u64;
        let done: u64 = self
            .contenders
            .iter()
            .map(|c| {
                if c.stopped.is_some() {
                    self.steps
                } else {
                    c.steps()
                }
            })
            .sum();
        done as f32 / wanted.max(1) as f32
    }

    /// One step of the contender furthest behind (so all advance together), evaluating it at
    /// every `eval_every`-th step and at the last. False when there is nothing left to do.
    pub fn step(&mut self) -> bool {
        let Some(i) = (0..self.contenders.len())
            .filter(|&i| self.running(&self.contenders[i]))
            .min_by_key(|&i| self.contenders[i].steps())
        else {
            return false;
        };
        let (steps, every, n) = (self.steps, self.eval_every, self.eval_examples);
        let c = &mut self.contenders[i];
        let start = Instant::now();
        let stepped = c.trainer.step();
        c.seconds += start.elapsed().as_secs_f64();
        match stepped {
            Ok(s) if !s.loss.is_finite() => {
                c.stopped = Some(format!(
                    "diverged at step {}: the loss is {}",
                    s.step, s.loss
                ));
            }
            Ok(s) if s.step % every == 0 || s.step == steps => match c.trainer.evaluate(n) {
                Ok(e) => c.evals.push((s.step, e)),
                Err(e) => c.stopped = Some(e.to_string()),
            },
            Ok(_) => {}
            Err(e) => c.stopped = Some(e.to_string()),
        }
        true
    }

    /// Steps within a time budget (at least one); how many were taken.
    pub fn run_for(&mut self, budget: Duration) -> usize {
        let start = Instant::now();
        let mut taken = 0;
        while self.step() {
            taken += 1;
            if start.elapsed() >= budget {
                break;
            }
        }
        taken
    }

    pub fn run_to_end(&mut self) {
        while self.step() {}
    }

    pub fn outcomes(&self) -> Vec<Outcome> {
        self.contenders
            .iter()
            .map(|c| {
                let h = c.history();
                let tail = &h[h.len() - h.len() / 10..];
                let final_loss =
                    tail.iter().map(|s| s.loss).sum::<f32>() / tail.len().max(1) as f32;
                Outcome {
                    label: c.label.clone(),
                    steps: c.steps(),
                    final_loss,
                    eval: c.last_eval().copied(),
                    stopped: c.stopped.clone(),
                    seconds: c.seconds,
                }
            })
            .collect()
    }
}

/// The side-by-side experiments the app and `glimpse compare` offer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Experiment {
    /// The same `layers`-deep model with its LayerNorms before and after each sub-layer;
    /// `warmup` false starts at the peak learning rate.
    Depth { layers: usize, warmup: bool },
    /// The same model with every key/value head shared by 1, 2 and 4 query heads (4 query
    /// heads: multi-head, grouped-query, multi-query attention).
    KvHeads,
    /// The same `d_model` split into 1, 2, 4, 8, 16 and 32 heads (those that divide it):
    /// d_k = d_model / h, so parameters and multiply-adds stay the same.
    HeadCount { d_model: usize },
}

/// The head counts [`Experiment::HeadCount`] trains: the notes' ablation table's.
pub const HEAD_COUNTS: [usize; 6] = [1, 2, 4, 8, 16, 32];

impl Experiment {
    /// The labelled configurations of `task` it trains for `steps` steps, all from `seed`.
    pub fn entries(self, task: TaskKind, seed: u64, steps: u64) -> Vec<(String, TrainConfig)> {
        let mut base = TrainConfig::for_task(task);
        base.seed = seed;
        // The task's cosine schedule, stretched or shrunk to the steps run.
        if let Schedule::WarmupCosine { total, .. } = &mut base.schedule {
            *total = steps;
        }
        match self {
            Experiment::Depth { layers, warmup } => {
                base.n_layers = layers;
                if let (Schedule::WarmupCosine { warmup: w, .. }, false) =
                    (&mut base.schedule, warmup)
                {
                    *w = 0;
                }
                [
                    (NormPlacement::Pre, "pre-norm"),
                    (NormPlacement::Post, "post-norm"),
                ]
                .into_iter()
                .map(|(norm, label)| {
                    (
                        label.to_string(),
                        TrainConfig {
                            norm,
                            ..base.clone()
                        },
                    )
                })
                .collect()
            }
            Experiment::KvHeads => [base.n_heads, 2, 1]
                .into_iter()
                .map(|kv| {
                    let label = match kv {
                        1 => "1 KV head (multi-query)".to_string(),
                        k if k == base.n_heads => format!("{k} KV heads (multi-head)"),
                        k => format!("{k} KV heads (grouped)"),
                    };
                    (
                        label,
                        TrainConfig {
                            kv_heads: Some(kv),
                            ..base.clone()
                        },
                    )
                })
                .collect(),
            Experiment::HeadCount { d_model } => HEAD_COUNTS
                .into_iter()
                .filter(|&h| h <= d_model && d_model.is_multiple_of(h))
                .map(|h| {
                    let label = format!("{h} × d_k {}", d_model / h);
                    (
                        label,
                        TrainConfig {
                            d_model,
                            d_ff: 2 * d_model,
                            n_heads: h,
                            ..base.clone()
                        },
                    )
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(seed: u64) -> TrainConfig {
        let mut c = TrainConfig::for_task(TaskKind::Copy);
        c.d_model = 16;
        c.d_ff = 32;
        c.n_layers = 1;
        c.batch_size = 2;
        c.seed = seed;
        c
    }

    /// Contenders advance in turn, are evaluated on schedule and end together; a run is the
    /// same as training that config alone (the race only interleaves).
    #[test]
    fn contenders_advance_together_and_match_training_alone() {
        let entries = vec![("a".to_string(), tiny(1)), ("b".to_string(), tiny(2))];
        let mut race = Race::new(entries, 6, 3, 4).unwrap();
        for _ in 0..3 {
            assert!(race.step());
        }
        let steps: Vec<u64> = race.contenders.iter().map(Contender::steps).collect();
        assert_eq!(steps, [2, 1]);
        race.run_to_end();
        assert!(race.done() && !race.step());
        assert_eq!(race.progress(), 1.0);
        for c in &race.contenders {
            assert_eq!(c.steps(), 6);
            let at: Vec<u64> = c.evals.iter().map(|(s, _)| *s).collect();
            assert_eq!(at, [3, 6]);
        }
        let mut alone = Trainer::new(tiny(2), "b").unwrap();
        for _ in 0..6 {
            alone.step().unwrap();
        }
        assert_eq!(alone.history, race.contenders[1].trainer.history);
    }

    /// A loss that stops being finite stops that contender with the step named; the others go on.
    #[test]
    fn a_diverging_contender_stops_with_its_step() {
        let mut wild = tiny(1);
        wild.schedule = crate::train::optim::Schedule::Constant { lr: 1e30 };
        wild.clip_norm = f32::INFINITY;
        let entries = vec![("wild".to_string(), wild), ("calm".to_string(), tiny(1))];
        let mut race = Race::new(entries, 40, 100, 2).unwrap();
        race.run_to_end();
        let stopped = race.contenders[0].stopped.as_deref().unwrap_or_default();
        assert!(stopped.starts_with("diverged at step"), "{stopped}");
        assert!(race.contenders[1].stopped.is_none());
        assert_eq!(race.contenders[1].steps(), 40);
        let out = race.outcomes();
        assert!(out[1].final_loss.is_finite() && out[1].eval.is_some());
    }

    #[test]
    fn a_bad_config_is_refused() {
        let mut c = tiny(1);
        c.kv_heads = Some(3);
        let err = Race::new(vec![("x".into(), c)], 1, 1, 1).err().unwrap();
        assert!(err.to_string().contains("3 key/value heads"), "{err}");
    }

    /// The notes: pre-norm trains stably in deep stacks, post-norm does not without warmup.
    /// Six blocks, no warmup, 600 steps of reverse from seed 1: pre-norm 98 % exact, held-out
    /// loss 0.024; post-norm 0 % exact, loss 1.62 (README).
    #[test]
    fn six_blocks_without_warmup_train_pre_norm_and_stall_post_norm() {
        let depth = Experiment::Depth {
            layers: 6,
            warmup: false,
        };
        let entries = depth.entries(TaskKind::Reverse, 1, 600);
        assert_eq!(entries[0].1.schedule.warmup(), 0);
        let mut race = Race::new(entries, 600, 600, 50).unwrap();
        race.run_to_end();
        let out = race.outcomes();
        let (pre, post) = (out[0].eval.unwrap(), out[1].eval.unwrap());
        assert_eq!(
            (out[0].label.as_str(), out[1].label.as_str()),
            ("pre-norm", "post-norm")
        );
        assert!(pre.exact_match >= 0.9 && pre.loss < 0.1, "{pre:?}");
        assert!(post.exact_match <= 0.05 && post.loss > 1.0, "{post:?}");
    }

    /// The notes: sharing keys and values makes the cache smaller at a small cost in quality.
    /// The translator at 600 steps from seed 1, 48 held-out examples (as the Heads off tab),
    /// natively: 4, 2 and 1 key/value heads end with training loss 0.0130, 0.0155, 0.0162 and
    /// 100, 97.9, 93.8 % exact; the cache per token is 128, 64 and 32 floats (README). Which
    /// of the shared variants does better on held-out sentences changes with the seed: the
    /// test holds only the cache, multi-head's lower training loss than multi-query's, and
    /// every variant within 10 points of multi-head's exact match.
    #[test]
    fn sharing_keys_and_values_shrinks_the_cache_at_a_small_cost() {
        let entries = Experiment::KvHeads.entries(TaskKind::Translate, 1, 600);
        let mut race = Race::new(entries, 600, 60, 48).unwrap();
        race.run_to_end();
        let caches: Vec<usize> = race
            .contenders
            .iter()
            .map(|c| c.trainer.model.config.kv_cache_floats_per_token())
            .collect();
        assert_eq!(caches, [128, 64, 32]);
        let out = race.outcomes();
        assert!(out[0].final_loss < out[2].final_loss, "{out:?}");
        let full = out[0].eval.unwrap().exact_match;
        for o in &out {
            assert!(o.eval.unwrap().exact_match >= full - 0.1, "{out:?}");
        }
        // The lesson page (Sharing keys and values) states this run's exact matches, in order.
        let percent = |e: f32| {
            if e == 1.0 {
                "100 %".to_string()
            } else {
                format!("{:.1} %", 100.0 * e)
            }
        };
        let said: Vec<String> = out
            .iter()
            .map(|o| percent(o.eval.unwrap().exact_match))
            .collect();
        let page =
            crate::i18n::format_in("en", "lesson-page-sharing-keys-and-values-mqa-text", &[])
                .expect("the page's text");
        let sentence = format!("go from {} to {} to {};", said[0], said[1], said[2]);
        assert!(
            page.contains(&sentence),
            "the page does not say {sentence:?}"
        );
        assert!(page.contains("600 steps each"));
    }

    /// The notes' ablation: too few and too many heads both cost quality at a fixed width. The
    /// character model 64 wide, 500 steps from seed 1 (the Heads off tab's sweep), natively on
    /// a 2-core AMD EPYC: held-out loss 1.858, 1.844, 1.789, 1.792, 1.948, 2.002 for 1, 2, 4,
    /// 8, 16, 32 heads, in 10.4 … 32.3 s each (seed 2: best at 4 heads too). The test trains
    /// the three that make the shape (1, 4 and 32 heads): the middle beats both ends, the
    /// parameters are the same and 32 heads take longer than one.
    #[test]
    fn one_width_cut_into_too_few_or_too_many_heads_does_worse() {
        let entries: Vec<_> = Experiment::HeadCount { d_model: 64 }
            .entries(TaskKind::CharLm, 1, 500)
            .into_iter()
            .filter(|(_, c)| [1, 4, 32].contains(&c.n_heads))
            .collect();
        let mut race = Race::new(entries, 500, 500, 48).unwrap();
        race.run_to_end();
        let params: Vec<usize> = race
            .contenders
            .iter()
            .map(|c| crate::model::weights::parameter_count(&c.trainer.model.config))
            .collect();
        assert!(
            params[0] == params[1] && params[1] == params[2],
            "{params:?}"
        );
        let out = race.outcomes();
        let loss: Vec<f32> = out.iter().map(|o| o.eval.unwrap().loss).collect();
        assert!(
            loss[1] < loss[0] - 0.03 && loss[1] < loss[2] - 0.1,
            "{out:?}"
        );
        assert!(out[2].seconds > out[0].seconds, "{out:?}");
        // The lesson page (How many heads?) states this run's losses.
        let page = crate::i18n::format_in("en", "lesson-page-how-many-heads-text", &[])
            .expect("the page's text");
        let said = format!(
            "{:.2} with one head, {:.2} with four and {:.2} with thirty-two",
            loss[0], loss[1], loss[2]
        );
        assert!(page.contains(&said), "the page does not say {said:?}");
        assert!(page.contains("six runs of 500 steps"));
    }
}
