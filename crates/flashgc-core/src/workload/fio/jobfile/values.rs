//! The values of job-file options: fio's sizes (with `%` of the device), times, per-
//! direction pairs, integers and booleans, each error naming the file, line and option.

use super::SizeSpec;
use crate::error::{Error, Result};

pub(super) fn err(file: &str, line: usize, option: &str, msg: impl std::fmt::Display) -> Error {
    Error::Input(format!("{file}:{line}: option `{option}`: {msg}"))
}

/// fio's size syntax: a number with an optional k/m/g/t suffix (powers of 1024, fio's
/// default `kb_base=1024`), or a percentage of the device.
pub(super) fn size(file: &str, line: usize, option: &str, v: &str) -> Result<SizeSpec> {
    let t = v.trim().to_ascii_lowercase();
    if let Some(p) = t.strip_suffix('%') {
        let x: f64 = p
            .trim()
            .parse()
            .map_err(|_| err(file, line, option, format!("`{v}` is not a percentage")))?;
        if !(x > 0.0 && x <= 100.0) {
            return Err(err(
                file,
                line,
                option,
                format!("{x} % must be in (0, 100]"),
            ));
        }
        return Ok(SizeSpec::Percent(x));
    }
    // A number that does not parse and one out of range read differently.
    if let Some(b) = crate::workload::fio::parse_size(&t) {
        return Ok(SizeSpec::Bytes(b));
    }
    let looks_like_number = t
        .trim_end_matches(|c: char| "kmgtib".contains(c))
        .trim()
        .parse::<f64>()
        .is_ok_and(|x| x.is_finite() && x >= 0.0);
    if looks_like_number {
        return Err(err(file, line, option, format!("`{v}` is out of range")));
    }
    Err(err(
        file,
        line,
        option,
        format!("`{v}` is not a size (e.g. 4k, 128m, 1g, 50%)"),
    ))
}

/// fio's time syntax: seconds by default; suffixes us, ms, s, m, h, d.
pub(super) fn time_ns(file: &str, line: usize, option: &str, v: &str) -> Result<u64> {
    time_in(file, line, option, v, 1e9)
}

/// fio's time syntax with `unit` ns for a number without a suffix (fio's `thinktime` is
/// in microseconds).
pub(super) fn time_in(file: &str, line: usize, option: &str, v: &str, unit: f64) -> Result<u64> {
    let t = v.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("us") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60e9)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600e9)
    } else if let Some(n) = t.strip_suffix('d') {
        (n, 86400e9)
    } else {
        (t.as_str(), unit)
    };
    let x: f64 = num.trim().parse().map_err(|_| {
        err(
            file,
            line,
            option,
            format!("`{v}` is not a time (e.g. 30, 500ms, 2m)"),
        )
    })?;
    if !(x.is_finite() && x >= 0.0 && x * mult < 1.8e19) {
        return Err(err(file, line, option, format!("`{v}` is out of range")));
    }
    Ok((x * mult).round() as u64)
}

/// fio's per-direction form `READS,WRITES[,TRIMS]` (a single value applies to both; an
/// empty part leaves that direction uncapped; trims are not simulated from job files).
pub(super) fn per_direction<T>(
    v: &str,
    mut one: impl FnMut(&str) -> Result<T>,
) -> Result<(Option<T>, Option<T>)>
where
    T: Clone,
{
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let mut get = |k: usize| match parts.get(k) {
        Some(p) if !p.is_empty() => one(p).map(Some),
        _ => Ok(None),
    };
    if parts.len() == 1 {
        let x = get(0)?;
        return Ok((x.clone(), x));
    }
    Ok((get(0)?, get(1)?))
}

pub(super) fn int(file: &str, line: usize, option: &str, v: &str, lo: u64, hi: u64) -> Result<u64> {
    let x: u64 = v.trim().parse().map_err(|_| {
        err(
            file,
            line,
            option,
            format!("`{v}` is not a non-negative integer"),
        )
    })?;
    if x < lo || x > hi {
        return Err(err(
            file,
            line,
            option,
            format!("{x} must be in {lo}..={hi}"),
        ));
    }
    Ok(x)
}

pub(super) fn boolean(file: &str, line: usize, option: &str, v: Option<&str>) -> Result<bool> {
    match v.map(|s| s.trim()) {
        None | Some("1") | Some("true") => Ok(true),
        Some("0") | Some("false") => Ok(false),
        Some(o) => Err(err(file, line, option, format!("`{o}`: expected 0 or 1"))),
    }
}

/// A size in bytes (no percentage), at least 1.
pub(super) fn size_bytes(file: &str, line: usize, option: &str, v: &str) -> Result<u64> {
    match size(file, line, option, v)? {
        SizeSpec::Bytes(b) if b > 0 => Ok(b),
        SizeSpec::Bytes(_) => Err(err(file, line, option, "must be at least 1 byte")),
        SizeSpec::Percent(_) => Err(err(
            file,
            line,
            option,
            format!("`{v}`: a size in bytes, not a percentage"),
        )),
    }
}

/// An option of which flashgc models one value (or spellings of it): `v` must be one of
/// `allowed` (case-insensitive); `why` says why the others are refused.
pub(super) fn only(
    file: &str,
    line: usize,
    option: &str,
    v: &str,
    allowed: &[&str],
    why: &str,
) -> Result<()> {
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(v.trim())) {
        return Ok(());
    }
    Err(err(
        file,
        line,
        option,
        format!("`{v}`: only {} ({why})", allowed.join(" or ")),
    ))
}
