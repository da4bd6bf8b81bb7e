//! The mathematics of the RoPE panel as plain functions of numbers: a pair rotated as the
//! model rotates it, the score by positions and by offset, the curves and the angle table the
//! panel plots, and the hand-typed table with its `glimpse pe` command. Tested here, without
//! drawing anything.

use crate::model::position;
use ndarray::Array2;

/// Largest position of the sliders and plots: 64 positions, like the angle heatmap.
pub const MAX_POSITION: usize = 63;

/// What the angle heatmap colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AngleView {
    /// θ in radians: grows without bound along the positions.
    Angle,
    /// θ mod 2π: where on the circle the pair points.
    Wrapped,
    /// cos θ: the first component of a rotated (1, 0).
    Cos,
}

/// `v` turned counter-clockwise by `theta`, with the arithmetic of the model's rotation
/// (`position::rope_rotate_in_place`): sine and cosine rounded to f32, then f32 products.
pub fn rotate_pair(v: [f32; 2], theta: f64) -> [f32; 2] {
    let (sin, cos) = theta.sin_cos();
    let (sin, cos) = (sin as f32, cos as f32);
    [v[0] * cos - v[1] * sin, v[0] * sin + v[1] * cos]
}

pub(super) fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

pub(super) fn norm(v: [f32; 2]) -> f32 {
    dot(v, v).sqrt()
}

/// The score of pair `p` of a query at position `i` and a key at position `j`: the dot
/// product of both pairs after each is rotated by its own `position::rope_angle`.
pub fn pair_score(
    q: [f32; 2],
    k: [f32; 2],
    i: usize,
    j: usize,
    p: usize,
    d_head: usize,
    base: f32,
) -> f32 {
    let qi = rotate_pair(q, position::rope_angle(i, p, d_head, base));
    let kj = rotate_pair(k, position::rope_angle(j, p, d_head, base));
    dot(qi, kj)
}

/// The same score through the offset alone: `qᵀ R(o) k` with `o = j − i`. The angle is
/// linear in the position, so a negative offset turns by minus the angle of `|o|`.
pub fn offset_score(
    q: [f32; 2],
    k: [f32; 2],
    offset: i64,
    p: usize,
    d_head: usize,
    base: f32,
) -> f32 {
    let angle = position::rope_angle(offset.unsigned_abs() as usize, p, d_head, base);
    let angle = if offset < 0 { -angle } else { angle };
    dot(q, rotate_pair(k, angle))
}

/// Rotate hand-typed rows (one per token) by their positions with `position::rope_rotate`.
/// Refuses what the CLI's `--apply` refuses, with a message: no rows, empty, ragged or odd
/// rows, non-finite numbers, a position count that does not match, a base not above 1.
pub fn table_rotate(
    rows: &[Vec<f32>],
    positions: &[usize],
    base: f32,
) -> Result<Vec<Vec<f32>>, String> {
    let width = rows
        .first()
        .map(Vec::len)
        .ok_or_else(|| crate::t!("positions-rope-error-no-rows"))?;
    if width == 0 {
        return Err(crate::t!("positions-rope-error-empty"));
    }
    if let Some(r) = rows.iter().position(|row| row.len() != width) {
        return Err(crate::t!(
            "positions-rope-error-ragged",
            row = r,
            numbers = rows[r].len(),
            width = width,
        ));
    }
    if width % 2 != 0 {
        return Err(crate::t!("positions-rope-error-odd", width = width));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err(crate::t!("positions-rope-error-non-finite"));
    }
    if positions.len() != rows.len() {
        return Err(crate::t!(
            "positions-rope-error-count",
            rows = rows.len(),
            positions = positions.len(),
        ));
    }
    if !(base > 1.0 && base.is_finite()) {
        return Err(crate::t!(
            "positions-rope-error-base",
            base = format!("{base}")
        ));
    }
    let x =
        Array2::from_shape_vec((rows.len(), width), rows.concat()).map_err(|e| e.to_string())?;
    let rotated = position::rope_rotate(&x, positions, base);
    Ok(rotated.outer_iter().map(|r| r.to_vec()).collect())
}

/// The `glimpse pe` command that prints the same rotation as the table. One position is
/// written `t..=t`: a bare number `n` means the positions 0…n−1 to the CLI.
pub fn cli_command(positions: &[usize], base: f32) -> String {
    let spec = match positions {
        [t] => format!("{t}..={t}"),
        _ => positions
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    };
    let base_flag = if base == 10000.0 {
        String::new()
    } else {
        format!(" --base {base}")
    };
    format!("glimpse pe --kind rope --positions {spec} --apply rows.json{base_flag}")
}

/// The rows as the JSON that `--apply` reads.
pub fn rows_json(rows: &[Vec<f32>]) -> String {
    serde_json::to_string(rows).unwrap_or_default()
}

/// One animation step: both positions move on by one, keeping their offset; at the end of
/// the slider both move back so that the smaller is 0.
pub fn advance(i: usize, j: usize) -> (usize, usize) {
    if i.max(j) >= MAX_POSITION {
        let m = i.min(j);
        (i - m, j - m)
    } else {
        (i + 1, j + 1)
    }
}

/// Angle in (−π, π].
pub fn wrap_angle(a: f64) -> f64 {
    let w = a.rem_euclid(std::f64::consts::TAU);
    if w > std::f64::consts::PI {
        w - std::f64::consts::TAU
    } else {
        w
    }
}

/// The angle φ that turns `a` onto `b`, in (−π, π].
pub fn angle_between(a: [f32; 2], b: [f32; 2]) -> f64 {
    wrap_angle((b[1] as f64).atan2(b[0] as f64) - (a[1] as f64).atan2(a[0] as f64))
}

/// Whether the score by positions and the score by offset agree, up to f32 rounding.
pub fn scores_agree(by_positions: f32, by_offset: f32) -> bool {
    (by_positions - by_offset).abs() <= 1e-4 * (1.0 + by_positions.abs())
}

/// `[i, score]` of pair `p` for a query at every position i and its key at i + o (the offset
/// fixed), while both stay on the plot: a flat line.
pub fn scores_along_i(
    q: [f32; 2],
    k: [f32; 2],
    o: i64,
    p: usize,
    d_head: usize,
    base: f32,
) -> Vec<[f64; 2]> {
    (0..=MAX_POSITION)
        .filter_map(|i| {
            let j = usize::try_from(i as i64 + o).ok()?;
            (j <= MAX_POSITION).then(|| [i as f64, pair_score(q, k, i, j, p, d_head, base) as f64])
        })
        .collect()
}

/// `[o, score]` of pair `p` for every offset o = j − i on the plot, each at the smallest
/// positions with that offset.
pub fn scores_along_offset(
    q: [f32; 2],
    k: [f32; 2],
    p: usize,
    d_head: usize,
    base: f32,
) -> Vec<[f64; 2]> {
    let max = MAX_POSITION as i64;
    (-max..=max)
        .map(|o| {
            let (i, j) = ((-o).max(0) as usize, o.max(0) as usize);
            [o as f64, pair_score(q, k, i, j, p, d_head, base) as f64]
        })
        .collect()
}

/// What the angle heatmap colours, from `position::rope_angles` (positions × pairs).
pub fn angle_values(angles: &Array2<f32>, view: AngleView) -> Array2<f32> {
    match view {
        AngleView::Angle => angles.clone(),
        AngleView::Wrapped => angles.mapv(|a| a.rem_euclid(std::f32::consts::TAU)),
        AngleView::Cos => angles.mapv(f32::cos),
    }
}

/// The length of a row of the table: rotation keeps it.
pub fn length(v: &[f32]) -> f32 {
    v.iter().map(|a| a * a).sum::<f32>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn rotate_pair_by_a_quarter_turn() {
        let r = rotate_pair([1.0, 0.0], std::f64::consts::FRAC_PI_2);
        assert!(r[0].abs() < 1e-7 && (r[1] - 1.0).abs() < 1e-7, "{r:?}");
        let r = rotate_pair([0.0, 2.0], std::f64::consts::PI);
        assert!(r[0].abs() < 1e-6 && (r[1] + 2.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn rotate_pair_is_what_the_model_does_to_pair_p() {
        // A 6-wide row holding the pair at p = 1; rope_rotate turns it by rope_angle(t, 1, 6).
        let (q, t, p, d) = ([0.7f32, -0.4], 9usize, 1usize, 6usize);
        let mut x = Array2::zeros((1, d));
        x[[0, 2 * p]] = q[0];
        x[[0, 2 * p + 1]] = q[1];
        let r = position::rope_rotate(&x, &[t], 10000.0);
        let mine = rotate_pair(q, position::rope_angle(t, p, d, 10000.0));
        assert_eq!([r[[0, 2 * p]], r[[0, 2 * p + 1]]], mine);
    }

    #[test]
    fn pair_score_depends_only_on_the_offset() {
        let (q, k) = ([1.0, 0.3], [0.6, 0.8]);
        for (p, d) in [(0, 8), (1, 8), (3, 8), (5, 64)] {
            for (i, j) in [(0, 0), (2, 5), (7, 3), (0, 40)] {
                let s = pair_score(q, k, i, j, p, d, 10000.0);
                for shift in [1, 3, 17, 100, 1000] {
                    let shifted = pair_score(q, k, i + shift, j + shift, p, d, 10000.0);
                    assert!((s - shifted).abs() < 1e-5, "p {p} ({i},{j}) + {shift}");
                }
                let o = j as i64 - i as i64;
                assert!((s - offset_score(q, k, o, p, d, 10000.0)).abs() < 1e-5);
            }
        }
        // Offset 0: the plain dot product. Pair 0 at offset 1 turns k by 1 rad.
        assert!((pair_score(q, k, 4, 4, 0, 8, 10000.0) - 0.84).abs() < 1e-6);
        let k1 = [
            0.6 * 1f32.cos() - 0.8 * 1f32.sin(),
            0.6 * 1f32.sin() + 0.8 * 1f32.cos(),
        ];
        let want = q[0] * k1[0] + q[1] * k1[1];
        assert!((pair_score(q, k, 0, 1, 0, 8, 10000.0) - want).abs() < 1e-6);
    }

    #[test]
    fn table_rotate_is_rope_rotate() {
        let rows = vec![vec![0.3, -1.2, 2.0, 0.5], vec![1.0, 2.0, 3.0, 4.0]];
        let x = array![[0.3f32, -1.2, 2.0, 0.5], [1.0, 2.0, 3.0, 4.0]];
        let want = position::rope_rotate(&x, &[7, 123], 500.0);
        let got = table_rotate(&rows, &[7, 123], 500.0).unwrap();
        for (g, w) in got.iter().zip(want.outer_iter()) {
            assert_eq!(g, &w.to_vec());
        }
    }

    #[test]
    fn at_position_zero_the_table_is_unchanged() {
        let rows = vec![vec![0.3, -1.2, 2.0, 0.5], vec![1.0, 2.0, 3.0, 4.0]];
        assert_eq!(table_rotate(&rows, &[0, 0], 10000.0).unwrap(), rows);
    }

    #[test]
    fn rotated_rows_keep_their_norms() {
        let rows = vec![
            vec![0.3, -1.2, 2.0, 0.5, 7.0, -3.0],
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ];
        let out = table_rotate(&rows, &[5, 61], 10000.0).unwrap();
        let len = |v: &[f32]| v.iter().map(|a| a * a).sum::<f32>().sqrt();
        for (x, y) in rows.iter().zip(&out) {
            assert!((len(x) - len(y)).abs() < 1e-4);
        }
        for t in 0..64 {
            let r = rotate_pair([1.0, 0.3], position::rope_angle(t, 0, 8, 10000.0));
            assert!((norm(r) - norm([1.0, 0.3])).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_tables_are_errors_with_messages() {
        let odd = vec![vec![1.0, 2.0, 3.0]];
        assert!(table_rotate(&odd, &[0], 10000.0)
            .unwrap_err()
            .contains("even"));
        let ragged = vec![vec![1.0, 2.0], vec![1.0, 2.0, 3.0, 4.0]];
        assert!(table_rotate(&ragged, &[0, 1], 10000.0)
            .unwrap_err()
            .contains("row 1"));
        let ok = vec![vec![1.0, 2.0]];
        assert!(table_rotate(&ok, &[0, 1], 10000.0)
            .unwrap_err()
            .contains("positions"));
        assert!(table_rotate(&ok, &[0], 1.0).unwrap_err().contains("base"));
        assert!(table_rotate(&[], &[], 10000.0).is_err());
        assert!(table_rotate(&[vec![]], &[0], 10000.0).is_err());
        assert!(table_rotate(&[vec![f32::NAN, 0.0]], &[0], 10000.0).is_err());
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_cli_command_prints_the_same_rotation() {
        let rows = [vec![1.0, 0.0, 0.5, -2.0], vec![0.25, 1.0, 3.0, 1.5]];
        for (positions, base) in [
            (vec![0, 1], 10000.0f32),
            (vec![9], 500.0),
            (vec![3, 40], 10000.0),
        ] {
            let rows = &rows[..positions.len()];
            let command = cli_command(&positions, base);
            let spec = command
                .split_whitespace()
                .skip_while(|w| *w != "--positions")
                .nth(1)
                .unwrap();
            assert_eq!(crate::cli::parse_positions(spec).unwrap(), positions);
            assert_eq!(command.contains("--base"), base != 10000.0);
            let report = crate::cli::pe_report(
                crate::cli::PeKind::Rope,
                None,
                &positions,
                base,
                Some(&rows_json(rows)),
                8,
                "",
            )
            .unwrap();
            let ours = table_rotate(rows, &positions, base).unwrap();
            for (r, row) in ours.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    let cli = report["rotated"][r][c].as_f64().unwrap();
                    assert!((cli - *v as f64).abs() < 1e-6, "({r}, {c})");
                }
            }
        }
        assert_eq!(
            cli_command(&[0, 1, 2], 10000.0),
            "glimpse pe --kind rope --positions 0,1,2 --apply rows.json"
        );
    }

    #[test]
    fn animation_steps_keep_the_offset() {
        assert_eq!(advance(2, 5), (3, 6));
        assert_eq!(advance(60, MAX_POSITION), (0, 3));
        assert_eq!(advance(MAX_POSITION, 10), (53, 0));
        assert_eq!(advance(MAX_POSITION, MAX_POSITION), (0, 0));
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5) + 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_score_along_i_is_flat_and_along_the_offset_starts_at_the_dot_product() {
        let (q, k) = ([1.0, 0.3], [0.6, 0.8]);
        for o in [-5i64, 0, 3, 40] {
            let line = scores_along_i(q, k, o, 1, 8, 10000.0);
            assert_eq!(line.len(), MAX_POSITION + 1 - o.unsigned_abs() as usize);
            assert!(
                line.iter().all(|[_, s]| (s - line[0][1]).abs() < 1e-5),
                "o = {o}"
            );
        }
        let curve = scores_along_offset(q, k, 0, 8, 10000.0);
        assert_eq!(curve.len(), 2 * MAX_POSITION + 1);
        let at_zero = curve[MAX_POSITION];
        assert_eq!(at_zero[0], 0.0);
        assert!((at_zero[1] - dot(q, k) as f64).abs() < 1e-6);
        for [o, s] in curve {
            let want = offset_score(q, k, o as i64, 0, 8, 10000.0) as f64;
            assert!((s - want).abs() < 1e-5, "offset {o}");
        }
    }

    #[test]
    fn the_angle_between_the_rotated_pair_is_the_difference_of_their_angles() {
        let (q, k) = ([1.0f32, 0.0], [1.0f32, 0.0]);
        let (ti, tj) = (0.4, 1.9);
        let phi = angle_between(rotate_pair(q, ti), rotate_pair(k, tj));
        assert!((phi - (tj - ti)).abs() < 1e-6, "{phi}");
        assert!((angle_between([1.0, 0.0], [-1.0, -1e-9]) + std::f64::consts::PI).abs() < 1e-6);
        assert!(scores_agree(0.5, 0.50001) && !scores_agree(0.5, 0.6));
    }

    #[test]
    fn angle_views_wrap_and_take_the_cosine() {
        let angles = position::rope_angles(&[0, 1, 7, 63], 8, 10000.0);
        assert_eq!(angle_values(&angles, AngleView::Angle), angles);
        let wrapped = angle_values(&angles, AngleView::Wrapped);
        assert!(wrapped
            .iter()
            .all(|w| (0.0..std::f32::consts::TAU).contains(w)));
        let cos = angle_values(&angles, AngleView::Cos);
        for (c, a) in cos.iter().zip(&angles) {
            assert_eq!(*c, a.cos());
        }
        assert_eq!(length(&[3.0, 4.0]), 5.0);
    }
}
