//! Where each node of the beam tree goes: one column per step, rows ordered so that
//! children sit next to their parent and no two nodes of a column share a row.

use crate::decode::BeamSearch;

/// A node's place: its column (the step) and its row (fractional rows centre children on
/// their parent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub col: usize,
    pub row: f32,
}

/// One cell per node, in node order. Each column lists its nodes by (parent's row, the
/// order the parent produced them), centres each family on its parent, and pushes a node
/// down when the one above is less than a row away.
pub fn layout(beam: &BeamSearch) -> Vec<Cell> {
    let n = beam.nodes.len();
    let mut cells = vec![Cell { col: 0, row: 0.0 }; n];
    let columns = beam.nodes.iter().map(|x| x.step).max().unwrap_or(0);
    for col in 1..=columns {
        let mut ids: Vec<usize> = (0..n).filter(|&i| beam.nodes[i].step == col).collect();
        let parent_row = |i: usize| beam.nodes[i].parent.map_or(0.0, |p| cells[p].row);
        ids.sort_by(|&a, &b| parent_row(a).total_cmp(&parent_row(b)).then(a.cmp(&b)));
        let mut placed = Vec::with_capacity(ids.len());
        let mut above = f32::NEG_INFINITY;
        let mut k = 0;
        while k < ids.len() {
            // The family: consecutive nodes with the same parent.
            let parent = beam.nodes[ids[k]].parent;
            let size = ids[k..]
                .iter()
                .take_while(|&&i| beam.nodes[i].parent == parent)
                .count();
            let start = parent_row(ids[k]) - (size as f32 - 1.0) / 2.0;
            for (j, &i) in ids[k..k + size].iter().enumerate() {
                let row = (start + j as f32).max(above + 1.0).max(0.0);
                placed.push((i, row));
                above = row;
            }
            k += size;
        }
        for (i, row) in placed {
            cells[i] = Cell { col, row };
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::table::{TableSource, TEXTBOOK};
    use crate::decode::{BeamConfig, ModelSource};
    use crate::model::builtin;
    use crate::model::tokenizer::BOS;

    fn check(beam: &BeamSearch) {
        let cells = layout(beam);
        assert_eq!(cells.len(), beam.nodes.len());
        for (n, c) in beam.nodes.iter().zip(&cells) {
            assert!(c.row.is_finite() && c.row >= 0.0);
            assert_eq!(c.col, n.step);
            if let Some(p) = n.parent {
                assert_eq!(c.col, cells[p].col + 1, "node {}", n.id);
            }
        }
        for (i, a) in cells.iter().enumerate() {
            for b in &cells[i + 1..] {
                assert!(
                    a.col != b.col || (a.row - b.row).abs() >= 1.0 - 1e-4,
                    "{a:?} overlaps {b:?}"
                );
            }
        }
    }

    #[test]
    fn textbook_tree_has_a_place_for_every_node() {
        let mut t = TableSource::parse(TEXTBOOK, 1.0).unwrap();
        let mut b = BeamSearch::new(
            &t,
            BeamConfig {
                width: 2,
                ..Default::default()
            },
            &[BOS],
        );
        b.run(&mut t, &[BOS]).unwrap();
        check(&b);
    }

    #[test]
    fn wide_translation_tree_does_not_overlap() {
        let m = builtin::load("translate").unwrap();
        let mut s = ModelSource::new(m, "la zone économique européenne", 1.0, true).unwrap();
        let mut b = BeamSearch::new(
            &s,
            BeamConfig {
                width: 5,
                alpha: 0.6,
                max_len: 10,
            },
            &[BOS],
        );
        b.run(&mut s, &[BOS]).unwrap();
        check(&b);
        // A single child stays level with its parent.
        let cells = layout(&b);
        let first = b.candidates[0][0];
        assert_eq!(cells[0].row, 0.0);
        assert!(cells[first].row <= (b.config.width as f32 - 1.0) / 2.0);
    }
}
