//! Configurations across the Python boundary: a preset, a TOML text and a JSON object of
//! overrides merged in layers, with errors naming the dotted path of a bad field.

use crate::{input_err, py_err};
use flashgc_core::Config;
use pyo3::prelude::*;

/// Deep-merges the override object `over` into `base` (the serialized configuration).
/// Objects merge key by key; a null removes the key (the field goes back to its default);
/// a key the configuration does not have is an error naming its dotted path.
fn merge(base: &mut serde_json::Value, over: serde_json::Value, path: &str) -> PyResult<()> {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                let field = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if !b.contains_key(&k) {
                    let mut known: Vec<&str> = b.keys().map(String::as_str).collect();
                    known.sort_unstable();
                    return Err(input_err(format!(
                        "overrides: unknown field `{field}`; known at this level: {}",
                        known.join(", ")
                    )));
                }
                if v.is_null() {
                    b.remove(&k);
                    continue;
                }
                let bv = b.get_mut(&k).expect("checked above");
                if bv.is_null() {
                    // An optional section that is unset (e.g. `ftl.mapping_cache`).
                    *bv = v;
                } else if bv.is_object() && v.is_object() {
                    merge(bv, v, &field)?;
                } else if v.is_object() {
                    return Err(input_err(format!(
                        "overrides: `{field}` is a value, not a section"
                    )));
                } else {
                    *bv = v;
                }
            }
            Ok(())
        }
        _ => Err(input_err(
            "overrides: expected a mapping of sections, e.g. {\"run\": {\"seed\": 2}}",
        )),
    }
}

/// Builds a configuration in layers: the preset, then `toml_text` (named `origin` in
/// errors), then the JSON object `overrides_json` (named `overrides` in errors).
pub(crate) fn build_config(
    preset: Option<&str>,
    toml_text: Option<&str>,
    origin: &str,
    overrides_json: Option<&str>,
    complete: bool,
) -> PyResult<Config> {
    let cfg = match (complete, toml_text) {
        (true, Some(t)) => config_from_toml(t)?,
        _ => Config::load(preset, toml_text.map(|t| (origin, t))).map_err(py_err)?,
    };
    // JSON has no NaN or infinity: serialized below they would turn into nulls, and the
    // nulls into defaults, so `op = nan` in a file would run as the default op.
    if let Some((field, v)) = toml::Value::try_from(&cfg)
        .ok()
        .and_then(|v| non_finite(&v, ""))
    {
        return Err(input_err(format!(
            "{origin}: `{field}`: {v} is not a finite number"
        )));
    }
    let Some(over) = overrides_json else {
        return Ok(cfg);
    };
    let over: serde_json::Value = serde_json::from_str(over)
        .map_err(|e| input_err(format!("overrides: not valid JSON: {e}")))?;
    let mut value =
        serde_json::to_value(&cfg).map_err(|e| input_err(format!("configuration: {e}")))?;
    let base = value.clone();
    // Optional sections left out of the serialized configuration when unset, so that
    // overrides can set them: the mapping cache and the host flows.
    if let Some(ftl) = value.get_mut("ftl").and_then(|v| v.as_object_mut()) {
        ftl.entry("mapping_cache")
            .or_insert(serde_json::Value::Null);
    }
    if let Some(top) = value.as_object_mut() {
        top.entry("flow")
            .or_insert(serde_json::Value::Array(Vec::new()));
    }
    let leaves = override_leaves(&over, "");
    merge(&mut value, over, "")?;
    let mut out: Config = match deserialize(value) {
        Ok(c) => c,
        Err(e) => {
            // serde_json names no field: find the override that fails on its own.
            let field = leaves.into_iter().find_map(|(path, leaf)| {
                let mut one = base.clone();
                merge(&mut one, leaf, "").ok()?;
                deserialize(one)
                    .err()
                    .map(|e| format!("overrides: `{path}`: {e}"))
            });
            return Err(input_err(field.unwrap_or(format!("overrides: {e}"))));
        }
    };
    if out.preset.is_none() {
        out.preset = cfg.preset;
    }
    Ok(out)
}

/// The dotted path and value of the first NaN or infinite float in `v`.
fn non_finite(v: &toml::Value, path: &str) -> Option<(String, f64)> {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        toml::Value::Float(f) if !f.is_finite() => Some((path.to_string(), *f)),
        toml::Value::Table(t) => t.iter().find_map(|(k, x)| non_finite(x, &join(k))),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| non_finite(x, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// A merged configuration value as a [`Config`], its serialized `None`s (nulls) dropped so
/// that they deserialize as defaults.
fn deserialize(mut value: serde_json::Value) -> Result<Config, serde_json::Error> {
    fn drop_nulls(v: &mut serde_json::Value) {
        if let serde_json::Value::Object(m) = v {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
    }
    drop_nulls(&mut value);
    serde_json::from_value(value)
}

/// Every leaf of the override object `over` as its dotted path and an override object that
/// sets only it (to name the field a failed deserialization is about).
fn override_leaves(over: &serde_json::Value, path: &str) -> Vec<(String, serde_json::Value)> {
    let serde_json::Value::Object(o) = over else {
        return vec![(path.to_string(), over.clone())];
    };
    let mut out = Vec::new();
    for (k, v) in o {
        let field = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        for (p, leaf) in override_leaves(v, &field) {
            let mut one = serde_json::Map::new();
            one.insert(k.clone(), leaf);
            out.push((p, serde_json::Value::Object(one)));
        }
    }
    out
}

/// Parses a complete configuration (as `resolve_config` returns it). Not merged over a
/// preset: a field left unset (e.g. `ftl.op` when `ftl.op_of_physical` is given) must stay
/// unset.
pub(crate) fn config_from_toml(config_toml: &str) -> PyResult<Config> {
    toml::from_str(config_toml)
        .map_err(|e: toml::de::Error| input_err(format!("configuration: {}", e.message())))
}
