//! Position and index ranges as typed on the command line: `8`, `2..6`, `2..=6`, `0,3,7`.

use super::MAX_PE_POSITIONS;

/// Layer or head indices: `5` is that one (unlike a position SPEC, where `8` is 0‥7), and
/// `2..6`, `2..=6` or `0,3,7` as for positions.
pub fn parse_indices(spec: &str) -> Result<Vec<usize>, String> {
    match spec.trim().parse::<usize>() {
        Ok(one) => Ok(vec![one]),
        Err(_) => parse_positions(spec),
    }
}

/// Parse `8`, `2..6`, `2..=6` or `0,3,7`.
pub fn parse_positions(spec: &str) -> Result<Vec<usize>, String> {
    let num = |s: &str| {
        s.trim().parse::<usize>().map_err(|_| {
            format!(
                "`{}` in --positions is not a non-negative whole number",
                s.trim()
            )
        })
    };
    let spec = spec.trim();
    let positions: Vec<usize> = if let Some((a, b)) = spec.split_once("..=") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(format!("--positions {spec}: the end is before the start"));
        }
        check_count(b - a + 1)?;
        (a..=b).collect()
    } else if let Some((a, b)) = spec.split_once("..") {
        let (a, b) = (num(a)?, num(b)?);
        if b < a {
            return Err(format!("--positions {spec}: the end is before the start"));
        }
        if b == a {
            return Err(format!("--positions {spec}: the range is empty"));
        }
        check_count(b - a)?;
        (a..b).collect()
    } else if spec.contains(',') {
        let v = spec.split(',').map(num).collect::<Result<Vec<_>, _>>()?;
        check_count(v.len())?;
        v
    } else {
        let n = num(spec)?;
        if n == 0 {
            return Err("--positions 0 asks for no positions".into());
        }
        check_count(n)?;
        (0..n).collect()
    };
    Ok(positions)
}

fn check_count(n: usize) -> Result<(), String> {
    if n > MAX_PE_POSITIONS {
        Err(format!(
            "--positions asks for {n} positions; at most {MAX_PE_POSITIONS} are printed"
        ))
    } else {
        Ok(())
    }
}
