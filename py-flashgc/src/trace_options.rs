//! Trace replay options given from Python (`trace_options={...}`): the trace reader's
//! options under the keys the Python API documents, errors named by those keys.

use flashgc_trace::{Flushes, Ops, Remap, TimeWindow, TraceOptions};

/// Trace replay options from a JSON object (the fields of `flashgc_trace::TraceOptions`,
/// with the CLI's spellings for the enumerations).
pub(crate) fn trace_options(json: Option<&str>) -> Result<TraceOptions, String> {
    parse(json).map_err(|e| flashgc_core::error::compact_numbers(&python_names(&e)).into_owned())
}

/// True when `json` sets at least one option (an empty mapping, or one of nulls, sets none).
pub(crate) fn given(json: Option<&str>) -> bool {
    json.and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
        .and_then(|v| v.as_object().map(|m| m.values().any(|x| !x.is_null())))
        .unwrap_or(false)
}

/// The CLI's flag names in the trace crate's messages (`--loop-times: ...`) as the keys a
/// Python caller gave (`trace_options: `loop_times`: ...`).
fn python_names(msg: &str) -> String {
    const FLAGS: [(&str, &str); 9] = [
        ("--format", "format"),
        ("--blkparse-events", "blkparse_events"),
        ("--remap", "remap"),
        ("--ops", "ops"),
        ("--loop-times", "loop_times"),
        ("--loop-until", "loop_until"),
        ("--time-scale", "time_scale"),
        ("--time-window", "time_window"),
        ("--trace-flushes", "flushes"),
    ];
    let mut out = msg.replacen("trace options:", "trace_options:", 1);
    for (flag, key) in FLAGS {
        if let Some(rest) = out.strip_prefix(flag).filter(|r| r.starts_with(':')) {
            out = format!("trace_options: `{key}`{rest}");
        }
        // A message may name another option too ("... with --loop-until").
        out = out.replace(&format!("{flag} "), &format!("`{key}` "));
    }
    out
}

fn parse(json: Option<&str>) -> Result<TraceOptions, String> {
    let mut o = TraceOptions::default();
    let Some(json) = json else { return Ok(o) };
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("trace options: not valid JSON: {e}"))?;
    let serde_json::Value::Object(m) = v else {
        return Err("trace options: expected a mapping, e.g. {\"remap\": \"compact\"}".into());
    };
    const KNOWN: &str =
        "format, blkparse_events, volume, remap, loop_times, loop_until, time_scale, ops, time_window, skip_bad_lines, flushes, pipeline";
    // As the CLI: `loop_until` would override `loop_times` without a word.
    if ["loop_times", "loop_until"]
        .iter()
        .all(|k| m.get(*k).is_some_and(|v| !v.is_null()))
    {
        return Err(
            "trace options: loop_times and loop_until both given: loop_until replays as many \
             passes as its target needs; give one of them"
                .into(),
        );
    }
    for (k, v) in m {
        if v.is_null() {
            continue;
        }
        let bad = |what: &str| format!("trace options: `{k}` must be {what}, got {v}");
        let text = || {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad("a string"))
        };
        let num = || v.as_f64().ok_or_else(|| bad("a number"));
        match k.as_str() {
            "format" => o.format = Some(text()?),
            "blkparse_events" => o.blkparse_events = Some(text()?),
            "volume" => {
                o.volume = Some(match &v {
                    serde_json::Value::Number(n) => n.to_string(),
                    _ => text()?,
                })
            }
            "remap" => o.remap = Remap::parse(&text()?).map_err(|e| e.to_string())?,
            "ops" => o.ops = Ops::parse(&text()?).map_err(|e| e.to_string())?,
            "time_window" => {
                o.time_window = Some(TimeWindow::parse(&text()?).map_err(|e| e.to_string())?)
            }
            "loop_times" => {
                o.loop_times = v
                    .as_u64()
                    .filter(|n| *n <= u32::MAX as u64)
                    .ok_or_else(|| bad("a count"))? as u32
            }
            "loop_until" => o.loop_until = Some(num()?),
            "time_scale" => o.time_scale = num()?,
            "skip_bad_lines" => {
                o.skip_bad_lines = v.as_bool().ok_or_else(|| bad("true or false"))?
            }
            "pipeline" => o.pipeline = v.as_bool().ok_or_else(|| bad("true or false"))?,
            "flushes" => o.flushes = Flushes::parse(&text()?).map_err(|e| e.to_string())?,
            _ => {
                return Err(format!(
                    "trace options: unknown option `{k}`; allowed: {KNOWN}"
                ))
            }
        }
    }
    o.check().map_err(|e| e.to_string())?;
    Ok(o)
}
