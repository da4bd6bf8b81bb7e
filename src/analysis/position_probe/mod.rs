//! Does position survive depth? A linear probe per layer reads each token's position from the
//! residual stream, and the positional component of the stream is measured beside it.
//!
//! The data: many short passages (chunks) of one text, each run through the model; the stream
//! `resid[l]` of every token (row) is labelled with its position t. Three chunks in four train
//! the probe, the fourth is held out.
//!
//! The probe is a least-squares classifier: standardise each feature on the training rows
//! (`a = (x − μ) / σ`), then solve the ridge system
//!
//! `(AᵀA + λI) W = Aᵀ(Y − Ȳ)`, with Y the one-hot positions and λ = [`RIDGE`] · tr(AᵀA) / d,
//!
//! and read a held-out row's position as `argmax_t (a W + Ȳ)_t`.
//!
//! The positional component: the mean stream at each position, `μ_t`, minus the mean over all
//! rows, `μ`. Its share of the stream's variance is `Σ_t n_t ‖μ_t − μ‖² / Σ_i ‖x_i − μ‖²`
//! (between-position over total). Position 0 is left out of both: it holds a special token
//! (`[CLS]`, `<bos>`) or, in a causal model, the first token every later one can attend to,
//! and its one outlying vector would stand for all positions.

pub mod chunks;

use ndarray::{s, Array1, Array2, ArrayView2, Axis};

/// λ relative to the mean diagonal of AᵀA. Chosen once on all-MiniLM-L6-v2 from 0.01, 0.1, 1
/// (held-out exact position: 1 best at every layer but the first).
pub const RIDGE: f64 = 1.0;
/// Rows whose contribution to AᵀA one call of [`LayerFit::advance`] adds at most: the work a
/// frame does (rows · d² multiply-adds).
pub const ROWS_PER_ADVANCE: usize = 256;

/// What the probe found at one layer.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LayerProbe {
    /// Held-out rows whose position the probe names exactly.
    pub exact: f32,
    /// Held-out rows it names within one position.
    pub within_one: f32,
    /// Share of the stream's variance that is positional (positions ≥ 1, all rows).
    pub share: f32,
    /// √(mean over rows of ‖μ_t − μ‖²): the positional component's size.
    pub positional_norm: f32,
    /// √(mean over rows of ‖x − μ‖²): the stream's size around its mean.
    pub stream_norm: f32,
}

/// Every chunk's stream by layer: `layers[l]` stacks the chunks' T × d matrices.
#[derive(Debug, Clone, Default)]
pub struct ProbeData {
    /// Tokens per chunk.
    pub positions: usize,
    layers: Vec<Vec<Array2<f32>>>,
}

/// Chunk k is held out when k % 4 == 3.
pub fn held_out(chunk: usize) -> bool {
    chunk % 4 == 3
}

impl ProbeData {
    pub fn new(positions: usize) -> Self {
        Self {
            positions,
            layers: Vec::new(),
        }
    }

    pub fn chunks(&self) -> usize {
        self.layers.first().map_or(0, Vec::len)
    }

    /// Streams `resid[0..=L]`, L + 1 matrices of `positions` rows. A chunk of another shape
    /// (another model's) is refused.
    pub fn push(&mut self, streams: &[ArrayView2<f32>]) -> Result<(), String> {
        let shape_ok = |m: &ArrayView2<f32>| m.nrows() == self.positions && m.ncols() > 0;
        if streams.is_empty() || !streams.iter().all(shape_ok) {
            return Err(format!(
                "a chunk must give every layer's stream for {} tokens",
                self.positions
            ));
        }
        if self.layers.is_empty() {
            self.layers = vec![Vec::new(); streams.len()];
        }
        let width = self.layers[0].first().map(|m| m.ncols());
        if self.layers.len() != streams.len() || width.is_some_and(|w| w != streams[0].ncols()) {
            return Err("a chunk from another model".into());
        }
        for (layer, m) in self.layers.iter_mut().zip(streams) {
            layer.push(m.to_owned());
        }
        Ok(())
    }

    /// Streams per chunk: L + 1.
    pub fn depth(&self) -> usize {
        self.layers.len()
    }

    /// Layer `l`'s rows of the chunks `keep` selects, stacked, with their positions.
    fn rows(&self, l: usize, keep: impl Fn(usize) -> bool) -> (Array2<f64>, Vec<usize>) {
        let chunks: Vec<&Array2<f32>> = self.layers[l]
            .iter()
            .enumerate()
            .filter(|(k, _)| keep(*k))
            .map(|(_, m)| m)
            .collect();
        let d = chunks.first().map_or(0, |m| m.ncols());
        let mut x = Array2::zeros((chunks.len() * self.positions, d));
        for (k, m) in chunks.iter().enumerate() {
            let rows = k * self.positions..(k + 1) * self.positions;
            x.slice_mut(s![rows, ..]).assign(&m.mapv(f64::from));
        }
        let t = (0..chunks.len()).flat_map(|_| 0..self.positions).collect();
        (x, t)
    }

    /// The probe of layer `l`, fitted in slices ([`LayerFit::advance`]).
    pub fn fit(&self, l: usize) -> Option<LayerFit> {
        if l >= self.depth() || self.chunks() < 4 || self.positions < 2 {
            return None;
        }
        let (train, train_t) = self.rows(l, |k| !held_out(k));
        let (test, test_t) = self.rows(l, held_out);
        let (all, all_t) = self.rows(l, |_| true);
        let share = positional_share(all.view(), &all_t, self.positions);
        // a = (x − μ) / σ on the training rows; a constant feature keeps σ = 1 (it adds 0).
        let mean = train.mean_axis(Axis(0))?;
        let sd = train
            .var_axis(Axis(0), 0.0)
            .mapv(|v| if v > 1e-12 { v.sqrt() } else { 1.0 });
        let standardise = |x: Array2<f64>| (x - &mean) / &sd;
        let train = standardise(train);
        let test = standardise(test);
        let d = train.ncols();
        // Aᵀ(Y − Ȳ): Y one-hot, so column t sums the rows at position t, minus n_t · mean(a) = 0
        // (a is centred on the training rows): just the per-position sums.
        let mut aty = Array2::zeros((d, self.positions));
        for (row, &t) in train.rows().into_iter().zip(&train_t) {
            let mut col = aty.column_mut(t);
            col += &row;
        }
        Some(LayerFit {
            train,
            train_t,
            test,
            test_t,
            gram: Array2::zeros((d, d)),
            done_rows: 0,
            aty,
            share,
        })
    }
}

/// One layer's probe being fitted: AᵀA accumulated a slice of rows at a time, then solved.
pub struct LayerFit {
    train: Array2<f64>,
    train_t: Vec<usize>,
    test: Array2<f64>,
    test_t: Vec<usize>,
    gram: Array2<f64>,
    done_rows: usize,
    aty: Array2<f64>,
    share: (f32, f32, f32),
}

impl LayerFit {
    /// Adds up to `rows` training rows to AᵀA; when every row is in, solves and scores.
    pub fn advance(&mut self, rows: usize) -> Option<LayerProbe> {
        let n = self.train.nrows();
        if self.done_rows < n {
            let end = (self.done_rows + rows.max(1)).min(n);
            let a = self.train.slice(s![self.done_rows..end, ..]);
            self.gram += &a.t().dot(&a);
            self.done_rows = end;
            if end < n {
                return None;
            }
        }
        let d = self.gram.nrows();
        let lambda = RIDGE * self.gram.diag().sum() / d.max(1) as f64;
        let mut g = self.gram.clone();
        g.diag_mut().mapv_inplace(|v| v + lambda.max(1e-9));
        let w = cholesky_solve(g, &self.aty)?;
        let classes = self.aty.ncols();
        let prior: Array1<f64> = {
            let mut p = Array1::zeros(classes);
            for &t in &self.train_t {
                p[t] += 1.0 / self.train_t.len() as f64;
            }
            p
        };
        let scores = self.test.dot(&w) + &prior;
        let (mut exact, mut near) = (0usize, 0usize);
        for (row, &t) in scores.rows().into_iter().zip(&self.test_t) {
            let guess = crate::util::argmax(row.iter().map(|&v| v as f32)).map_or(0, |g| g.0);
            exact += usize::from(guess == t);
            near += usize::from(guess.abs_diff(t) <= 1);
        }
        let held = self.test_t.len().max(1) as f32;
        let (share, positional_norm, stream_norm) = self.share;
        Some(LayerProbe {
            exact: exact as f32 / held,
            within_one: near as f32 / held,
            share,
            positional_norm,
            stream_norm,
        })
    }
}

/// (share, positional norm, stream norm) over the rows at positions ≥ 1.
pub fn positional_share(x: ArrayView2<f64>, t: &[usize], positions: usize) -> (f32, f32, f32) {
    let d = x.ncols();
    let mut sums = Array2::<f64>::zeros((positions, d));
    let mut counts = vec![0usize; positions];
    let mut total = Array1::<f64>::zeros(d);
    let mut n = 0usize;
    for (row, &p) in x.rows().into_iter().zip(t) {
        if p == 0 || p >= positions {
            continue;
        }
        let mut s = sums.row_mut(p);
        s += &row;
        counts[p] += 1;
        total += &row;
        n += 1;
    }
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let mu = total / n as f64;
    let mut between = 0.0;
    for (p, &c) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
        let mu_t = sums.row(p).mapv(|v| v / c as f64);
        between += c as f64 * (&mu_t - &mu).mapv(|v| v * v).sum();
    }
    let mut within_all = 0.0;
    for (row, &p) in x.rows().into_iter().zip(t) {
        if p != 0 && p < positions {
            within_all += (&row - &mu).mapv(|v| v * v).sum();
        }
    }
    let share = if within_all > 0.0 {
        between / within_all
    } else {
        0.0
    };
    (
        share as f32,
        (between / n as f64).sqrt() as f32,
        (within_all / n as f64).sqrt() as f32,
    )
}

/// Solves `G X = B` for a symmetric positive-definite G by Cholesky (G = L Lᵀ), column by
/// column; None if G is not positive definite.
pub fn cholesky_solve(mut g: Array2<f64>, b: &Array2<f64>) -> Option<Array2<f64>> {
    let n = g.nrows();
    if g.ncols() != n || b.nrows() != n {
        return None;
    }
    // L overwrites G's lower triangle.
    for j in 0..n {
        let mut diag = g[[j, j]];
        for k in 0..j {
            diag -= g[[j, k]] * g[[j, k]];
        }
        if diag <= 0.0 || !diag.is_finite() {
            return None;
        }
        let l_jj = diag.sqrt();
        g[[j, j]] = l_jj;
        for i in j + 1..n {
            let mut v = g[[i, j]];
            for k in 0..j {
                v -= g[[i, k]] * g[[j, k]];
            }
            g[[i, j]] = v / l_jj;
        }
    }
    let mut x = b.clone();
    for mut col in x.columns_mut() {
        // L y = b, then Lᵀ x = y.
        for i in 0..n {
            let mut v = col[i];
            for k in 0..i {
                v -= g[[i, k]] * col[k];
            }
            col[i] = v / g[[i, i]];
        }
        for i in (0..n).rev() {
            let mut v = col[i];
            for k in i + 1..n {
                v -= g[[k, i]] * col[k];
            }
            col[i] = v / g[[i, i]];
        }
    }
    Some(x)
}

/// The whole probe on `model`, headless (the CLI and the tests; the app runs the same steps a
/// slice per frame): every chunk's forward pass, then every layer's fit.
pub fn probe_model(
    model: &crate::model::Model,
    seed: u64,
) -> Result<(chunks::ProbeInputs, Vec<LayerProbe>), String> {
    let inputs = chunks::probe_inputs(model, seed)?;
    let mut data = ProbeData::new(inputs.positions);
    for input in &inputs.inputs {
        let trace = model
            .forward(input, &crate::model::ForwardOptions::default())
            .map_err(|e| e.to_string())?;
        data.push(&streams(&trace)?)?;
    }
    let layers = (0..data.depth())
        .map(|l| {
            let mut fit = data.fit(l).ok_or("too few chunks for a probe")?;
            loop {
                if let Some(p) = fit.advance(ROWS_PER_ADVANCE) {
                    return Ok(p);
                }
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((inputs, layers))
}

/// `resid[0..=L]` of the stack the probe reads: the encoder where there is one (the source's
/// positions), else the decoder.
pub fn streams(trace: &crate::model::Trace) -> Result<Vec<ArrayView2<'_, f32>>, String> {
    let stack = trace
        .encoder
        .as_ref()
        .or(trace.decoder.as_ref())
        .filter(|s| !s.blocks.is_empty())
        .ok_or("the pass kept no layer's stream")?;
    Ok(super::residual_stream(stack)
        .into_iter()
        .map(|m| m.view())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    fn fit_all(data: &ProbeData, l: usize) -> LayerProbe {
        let mut fit = data.fit(l).unwrap();
        loop {
            if let Some(p) = fit.advance(7) {
                return p;
            }
        }
    }

    /// Cholesky against a system with a known answer.
    #[test]
    fn cholesky_solves_a_known_system() {
        let g = ndarray::arr2(&[[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]]);
        let x = ndarray::arr2(&[[1.0, -2.0], [0.5, 0.0], [-1.0, 3.0]]);
        let b = g.dot(&x);
        let got = cholesky_solve(g, &b).unwrap();
        assert!((got - x).iter().all(|v| v.abs() < 1e-12));
        let not_pd = ndarray::arr2(&[[1.0, 2.0], [2.0, 1.0]]);
        assert!(cholesky_solve(not_pd, &ndarray::Array2::zeros((2, 1))).is_none());
    }

    /// Streams made of a position code plus noise: layer 0 carries position cleanly (the probe
    /// names it, the share is large), layer 1 is noise alone (chance, share near 0). The share
    /// of layer 0 is the closed form ‖p‖² / (‖p‖² + d σ²) within sampling error.
    #[test]
    fn the_probe_reads_a_planted_position_and_not_noise() {
        let (positions, d, chunks) = (8, 16, 40);
        let mut rng = Rng::new(3);
        let code: Vec<Vec<f32>> = (0..positions)
            .map(|_| (0..d).map(|_| 2.0 * rng.normal() as f32).collect())
            .collect();
        let mut data = ProbeData::new(positions);
        for _ in 0..chunks {
            let noise = |rng: &mut Rng| 0.5 * rng.normal() as f32;
            let l0 = Array2::from_shape_fn((positions, d), |(t, j)| code[t][j] + noise(&mut rng));
            let l1 = Array2::from_shape_fn((positions, d), |_| noise(&mut rng));
            data.push(&[l0.view(), l1.view()]).unwrap();
        }
        let clean = fit_all(&data, 0);
        assert_eq!(clean.exact, 1.0, "{clean:?}");
        let noise = fit_all(&data, 1);
        assert!(noise.exact < 0.3 && noise.share < 0.05, "{noise:?}");
        // Positions 1..8's codes around their own mean, against that plus the noise.
        let mean: Vec<f64> = (0..d)
            .map(|j| (1..positions).map(|t| f64::from(code[t][j])).sum::<f64>() / 7.0)
            .collect();
        let spread: f64 = (1..positions)
            .map(|t| {
                (0..d)
                    .map(|j| (f64::from(code[t][j]) - mean[j]).powi(2))
                    .sum::<f64>()
            })
            .sum::<f64>()
            / 7.0;
        let expected = spread / (spread + d as f64 * 0.25);
        assert!(
            (f64::from(clean.share) - expected).abs() < 0.01,
            "{} vs {expected}",
            clean.share
        );
        assert!(clean.positional_norm > 3.0 * noise.positional_norm);
    }

    /// A chunk of another shape is refused; too few chunks give no fit.
    #[test]
    fn mismatched_chunks_are_refused() {
        let mut data = ProbeData::new(4);
        let a = Array2::<f32>::zeros((4, 3));
        let b = Array2::<f32>::zeros((5, 3));
        assert!(data.push(&[a.view(), b.view()]).is_err());
        data.push(&[a.view(), a.view()]).unwrap();
        let wider = Array2::<f32>::zeros((4, 6));
        assert!(data.push(&[wider.view(), wider.view()]).is_err());
        assert!(data.push(&[a.view()]).is_err());
        assert!(data.fit(0).is_none());
    }
}
