//! Policy specifications: `name` or `name:key=value,key=value` (e.g. `d-choices:d=8`).
//!
//! The same string form is used on the command line and in TOML configs, so that one
//! vocabulary names every scheme and its parameters.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// A parsed policy specification with typed, checked parameter access.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Registered name of the scheme.
    pub name: String,
    params: BTreeMap<String, String>,
    /// Which config field the spec came from (for error messages), e.g. `victim`.
    field: String,
    used: std::cell::RefCell<Vec<String>>,
    /// Every parameter the scheme read, with the value it used (given or default), in the
    /// order read: [`Spec::resolved`].
    values: std::cell::RefCell<Vec<(String, String)>>,
}

impl Spec {
    /// Parses `name[:k=v,...]`. A bare value after the colon without `=` is stored under
    /// the key `_` (e.g. `cost-benefit:lfs`).
    pub fn parse(field: &str, text: &str) -> Result<Spec> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(Error::config(field, "empty scheme name"));
        }
        if name.contains([',', '=']) {
            // A list where one spec belongs (`run --config` with `single,,sup-gc`): an
            // empty entry is named as `compare` names it, not turned into a parameter.
            if let Some(i) = text.split(',').position(|p| p.trim().is_empty()) {
                return Err(Error::config(
                    field,
                    format!(
                        "`{text}`: entry {} of the comma-separated list is empty; separate the names with single commas",
                        i + 1
                    ),
                ));
            }
            let (n, rest) = name.split_once(',').unwrap_or((name, ""));
            return Err(Error::config(
                field,
                format!(
                    "`{text}`: parameters follow a colon after the name, e.g. `{}:{}`",
                    n.trim(),
                    if rest.is_empty() {
                        "key=value"
                    } else {
                        rest.trim()
                    }
                ),
            ));
        }
        let mut params = BTreeMap::new();
        if let Some(rest) = rest {
            // No parameter has an empty meaning: `greedy:` or `d-choices:d=8,` is a
            // truncated spec, not the defaults.
            if rest.trim().is_empty() {
                return Err(Error::config(
                    field,
                    format!(
                        "`{text}`: nothing follows the colon; give key=value parameters after it \
                         (e.g. `d-choices:d=8`, or a bare value as in `cost-benefit:sqrt`) or drop the colon"
                    ),
                ));
            }
            for (i, part) in rest.split(',').map(str::trim).enumerate() {
                if part.is_empty() {
                    return Err(Error::config(
                        field,
                        format!(
                            "`{text}`: parameter {} after the colon is empty; parameters are \
                             key=value pairs separated by single commas",
                            i + 1
                        ),
                    ));
                }
                let (k, v) = match part.split_once('=') {
                    Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
                    None => ("_".to_string(), part.to_string()),
                };
                if params.insert(k.clone(), v).is_some() {
                    return Err(Error::config(
                        format!("{field}.{k}"),
                        "parameter given twice",
                    ));
                }
            }
        }
        Ok(Spec {
            name: name.to_ascii_lowercase(),
            params,
            field: field.to_string(),
            used: Default::default(),
            values: Default::default(),
        })
    }

    /// The raw string value of a parameter, if given.
    pub fn raw(&self, key: &str) -> Option<&str> {
        let v = self.lookup(key);
        if let Some(v) = v {
            self.record(key, v.to_string());
        }
        v
    }

    fn lookup(&self, key: &str) -> Option<&str> {
        self.used.borrow_mut().push(key.to_string());
        self.params.get(key).map(String::as_str)
    }

    /// Notes the value a parameter took (the last one read wins; the first read keeps
    /// its place).
    fn record(&self, key: &str, value: String) {
        let mut vals = self.values.borrow_mut();
        match vals.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = value,
            None => vals.push((key.to_string(), value)),
        }
    }

    /// The spec as the scheme ran it: `name:key=value,...` with every parameter it read,
    /// defaults included (a bare `_` value first), so a result says which variant ran.
    /// Parsing it again gives the same scheme. Call after building.
    pub fn resolved(&self) -> String {
        let vals = self.values.borrow();
        let mut parts: Vec<String> = vals
            .iter()
            .filter(|(k, _)| k == "_")
            .map(|(_, v)| v.clone())
            .collect();
        parts.extend(
            vals.iter()
                .filter(|(k, _)| k != "_")
                .map(|(k, v)| format!("{k}={v}")),
        );
        if parts.is_empty() {
            self.name.clone()
        } else {
            format!("{}:{}", self.name, parts.join(","))
        }
    }

    /// A numeric parameter with a default and an inclusive allowed range.
    pub fn num<T>(&self, key: &str, default: T, min: T, max: T) -> Result<T>
    where
        T: std::str::FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        let v = match self.lookup(key) {
            None => default,
            Some(s) => s.parse::<T>().map_err(|_| {
                Error::config(
                    self.path(key),
                    format!("`{s}` is not a number; allowed range {min}..={max}"),
                )
            })?,
        };
        // NaN compares false with everything: test for being inside the range, not for
        // being outside it (`nan` passed `v < min || v > max`). Every float range is
        // finite, so infinities fall outside it.
        let inside = v >= min && v <= max;
        if !inside {
            let what = if v.partial_cmp(&v).is_none() {
                "is not a number"
            } else {
                "is out of range"
            };
            return Err(Error::config(
                self.path(key),
                format!("{v} {what}; allowed range {min}..={max}"),
            ));
        }
        self.record(key, v.to_string());
        Ok(v)
    }

    /// A parameter that must be one of `choices`.
    pub fn choice(&self, key: &str, default: &str, choices: &[&str]) -> Result<String> {
        let v = self.lookup(key).unwrap_or(default).to_ascii_lowercase();
        if choices.contains(&v.as_str()) {
            self.record(key, v.clone());
            Ok(v)
        } else {
            Err(Error::config(
                self.path(key),
                format!("`{v}` is not one of: {}", choices.join(", ")),
            ))
        }
    }

    /// Dotted path used in errors, e.g. `placement.levels`.
    pub fn path(&self, key: &str) -> String {
        format!("{}.{}", self.field, key)
    }

    /// Fails if a parameter was given that the scheme never asked for (typos must not
    /// silently fall back to defaults). Call after reading all parameters.
    pub fn finish(&self) -> Result<()> {
        let used = self.used.borrow();
        for k in self.params.keys() {
            if !used.iter().any(|u| u == k) {
                let mut known: Vec<_> = used.clone();
                known.sort();
                known.dedup();
                return Err(Error::config(
                    self.path(k),
                    format!(
                        "unknown parameter for `{}`; it accepts: {}",
                        self.name,
                        if known.is_empty() {
                            "no parameters".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_params_and_rejects_unknown() {
        let s = Spec::parse("victim", "d-choices:d=8").unwrap();
        assert_eq!(s.name, "d-choices");
        assert_eq!(s.num::<u32>("d", 2, 1, 64).unwrap(), 8);
        s.finish().unwrap();
        let s = Spec::parse("victim", "greedy:x=1").unwrap();
        let e = s.finish().unwrap_err();
        assert!(e.to_string().contains("victim.x"), "{e}");
        let s = Spec::parse("victim", "d-choices:d=0").unwrap();
        let e = s.num::<u32>("d", 2, 1, 64).unwrap_err();
        assert!(e.to_string().contains("1..=64"), "{e}");
    }

    #[test]
    fn a_colon_with_nothing_after_it_and_empty_parameters_are_refused() {
        // Accepted as the defaults before: `greedy:` ran plain greedy.
        for text in ["greedy:", "single: ", "cost-benefit:"] {
            let e = Spec::parse("run.victim", text).unwrap_err().to_string();
            assert!(
                e.contains("`run.victim`")
                    && e.contains(&format!("`{}`: nothing follows the colon", text.trim()))
                    && e.contains("key=value"),
                "{text}: {e}"
            );
        }
        for (text, at) in [
            ("d-choices:d=8,", 2),
            ("cost-benefit:,sqrt", 1),
            ("mida:hot=filter,,x=1", 2),
        ] {
            let e = Spec::parse("run.victim", text).unwrap_err().to_string();
            assert!(
                e.contains(&format!(
                    "`{text}`: parameter {at} after the colon is empty"
                )),
                "{text}: {e}"
            );
        }
        // A list with an empty entry where one spec belongs was hinted as `single:,sup-gc`.
        let e = Spec::parse("run.placement", "single,,sup-gc")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`single,,sup-gc`: entry 2 of the comma-separated list is empty"),
            "{e}"
        );
    }

    #[test]
    fn non_finite_floats_are_out_of_every_range() {
        // NaN passed `v < min || v > max` and ran (or failed mid-run).
        for v in ["nan", "NaN", "inf", "-inf", "infinity"] {
            let s = Spec::parse("run.victim", &format!("greedy:min_garbage={v}")).unwrap();
            let e = s
                .num::<f64>("min_garbage", 0.0, 0.0, 0.999_999)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("`run.victim.min_garbage`") && e.contains("0..=0.999999"),
                "{v}: {e}"
            );
        }
        let s = Spec::parse("run.victim", "greedy:min_garbage=nan").unwrap();
        let e = s.num::<f64>("min_garbage", 0.0, 0.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("NaN is not a number"), "{e}");
    }

    #[test]
    fn resolved_spells_out_every_parameter_read_with_its_value() {
        let s = Spec::parse("victim", "cost-benefit:sqrt,min_garbage=0.15").unwrap();
        assert_eq!(
            s.choice("_", s.raw("_").unwrap(), &["lfs", "sqrt"])
                .unwrap(),
            "sqrt"
        );
        assert_eq!(s.num::<f64>("min_garbage", 0.0, 0.0, 1.0).unwrap(), 0.15);
        assert_eq!(s.choice("impl", "auto", &["auto", "scan"]).unwrap(), "auto");
        s.finish().unwrap();
        assert_eq!(s.resolved(), "cost-benefit:sqrt,min_garbage=0.15,impl=auto");
        let s = Spec::parse("victim", "greedy").unwrap();
        assert_eq!(s.resolved(), "greedy");
        s.num::<u32>("d", 2, 1, 64).unwrap();
        assert_eq!(s.resolved(), "greedy:d=2");
    }
}
