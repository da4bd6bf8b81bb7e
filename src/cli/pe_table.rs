//! `glimpse pe` without `--json`: the report as tables a person reads, one row per position.

use serde_json::Value;
use std::fmt::Write;

/// Every matrix of the report as a table (rows labelled by position, `bias` one table per
/// head), every vector as a labelled list, scalars on the first line.
pub fn pe_table(report: &Value) -> String {
    let mut out = String::new();
    let Some(fields) = report.as_object() else {
        return report.to_string();
    };
    let positions: Vec<String> = match fields.get("positions") {
        Some(Value::Array(p)) => p.iter().map(|v| format!("pos {v}")).collect(),
        _ => Vec::new(),
    };
    let scalars: Vec<String> = fields
        .iter()
        .filter(|(_, v)| !v.is_array())
        .map(|(k, v)| format!("{k} {}", v.as_str().map_or(v.to_string(), str::to_owned)))
        .collect();
    let _ = writeln!(out, "{}", scalars.join(" · "));
    for (name, value) in fields {
        let Some(items) = value.as_array() else {
            continue;
        };
        if name == "positions" {
            continue;
        }
        match items.first() {
            Some(Value::Array(first)) if first.first().is_some_and(Value::is_array) => {
                // One matrix per head (ALiBi's bias).
                for (head, m) in items.iter().enumerate() {
                    let _ = writeln!(out, "\n{name}, head {head}:");
                    table(&mut out, m, &positions);
                }
            }
            Some(Value::Array(_)) => {
                let _ = writeln!(out, "\n{name}:");
                table(&mut out, value, &positions);
            }
            _ => {
                let _ = writeln!(out, "\n{name}:");
                let cells: Vec<String> = items.iter().map(number).collect();
                let _ = writeln!(out, "  {}", cells.join("  "));
            }
        }
    }
    out
}

fn table(out: &mut String, matrix: &Value, labels: &[String]) {
    let rows = matrix.as_array().map(Vec::as_slice).unwrap_or_default();
    let width = labels.iter().map(String::len).max().unwrap_or(0);
    for (r, row) in rows.iter().enumerate() {
        let label = labels.get(r).map_or(String::new(), String::clone);
        let cells: Vec<String> = row
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(number)
            .collect();
        let _ = writeln!(out, "  {label:>width$}  {}", cells.join(" "));
    }
}

/// Fixed width so columns line up; JSON `null` (−∞ in a bias) as `-inf`.
fn number(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if x.abs() >= 1e5 || (x != 0.0 && x.abs() < 1e-3) => format!("{x:>10.3e}"),
        Some(x) => format!("{x:>10.4}"),
        None if v.is_null() => format!("{:>10}", "-inf"),
        None => format!("{v:>10}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matrices_become_rows_labelled_by_position() {
        let report = json!({
            "kind": "rope", "dim": 2, "positions": [0, 3],
            "angles": [[0.0, 0.0], [3.0, 0.03]],
            "bias": [[[0.0, null]], [[1.5, 2.0]]],
            "slopes": [0.5, 0.25],
        });
        let text = pe_table(&report);
        assert!(text.starts_with("dim 2 · kind rope"), "{text}");
        assert!(
            text.contains(
                "angles:\n  pos 0      0.0000     0.0000\n  pos 3      3.0000     0.0300"
            ),
            "{text}"
        );
        assert!(text.contains("bias, head 1:"), "{text}");
        assert!(text.contains("-inf"), "{text}");
        assert!(text.contains("slopes:\n      0.5000      0.2500"), "{text}");
        assert!(!text.trim_start().starts_with('{'));
    }
}
