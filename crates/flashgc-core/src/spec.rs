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
    /// The memory the scheme's tables may take: [`Spec::set_memory_limit`].
    budget: Option<Budget>,
    /// Bytes of tables the scheme has allocated through [`Spec::table`] so far.
    reserved: std::cell::Cell<u64>,
}

/// `run.max_memory_gib` and what the run needs beside the scheme's own tables.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Budget {
    limit_gib: f64,
    committed: u64,
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
            budget: None,
            reserved: Default::default(),
        })
    }

    /// Sets the memory limit (`run.max_memory_gib`, None for none) the scheme's tables are
    /// checked against before they are allocated, with `committed` bytes the run needs
    /// beside them (the device's tables). Without it a table is still allocated fallibly.
    pub fn set_memory_limit(&mut self, limit_gib: Option<f64>, committed: u64) {
        self.budget = limit_gib.map(|limit_gib| Budget {
            limit_gib,
            committed,
        });
    }

    /// Refuses `bytes` more of the scheme's tables (`what`, sized by parameter `key`; an
    /// empty key names the spec's field) when, with the tables allocated before and the
    /// run's other needs, they would exceed the memory limit: checked before allocating,
    /// because an allocation beyond the process's memory aborts it.
    pub fn check_memory(&self, key: &str, what: &str, bytes: u64) -> Result<()> {
        let total = self.reserved.get().saturating_add(bytes);
        if let Some(b) = self.budget {
            let gib = (1u64 << 30) as f64;
            let need = total.saturating_add(b.committed);
            if need as f64 > b.limit_gib * gib {
                return Err(Error::config(
                    self.key_path(key),
                    format!(
                        "`{}` needs {bytes} B ({:.2} GiB) for its {what}; with the rest of the run that is about {:.2} GiB, \
                         over run.max_memory_gib = {:.2} GiB; {} or raise the limit \
                         (`--max-memory GIB` on the command line, `max_memory_gib` in Python)",
                        self.name,
                        bytes as f64 / gib,
                        need as f64 / gib,
                        b.limit_gib,
                        self.shrink_hint(key)
                    ),
                ));
            }
        }
        self.reserved.set(total);
        Ok(())
    }

    /// A table of `n` copies of `value` for the scheme's `what`, sized by parameter `key`:
    /// checked against the memory limit first ([`Spec::check_memory`]), then allocated
    /// fallibly, so that no size aborts the process.
    pub fn table<T: Clone>(&self, key: &str, what: &str, n: u64, value: T) -> Result<Vec<T>> {
        self.check_memory(key, what, n.saturating_mul(std::mem::size_of::<T>() as u64))?;
        self.try_table(key, what, n, value)
    }

    /// [`Spec::table`] without the memory-limit check, for tables checked together
    /// beforehand ([`Spec::check_memory`] of their sum).
    pub fn try_table<T: Clone>(&self, key: &str, what: &str, n: u64, value: T) -> Result<Vec<T>> {
        let bytes = n.saturating_mul(std::mem::size_of::<T>() as u64);
        crate::mem::try_vec(n, value).ok_or_else(|| self.alloc_error(key, what, bytes))
    }

    /// The error for a table of `bytes` the system would not allocate.
    pub fn alloc_error(&self, key: &str, what: &str, bytes: u64) -> Error {
        Error::config(
            self.key_path(key),
            format!(
                "`{}` needs {bytes} B ({:.2} GiB) for its {what}, which this process cannot allocate \
                 (a memory or address-space limit); {} to fit",
                self.name,
                bytes as f64 / (1u64 << 30) as f64,
                self.shrink_hint(key)
            ),
        )
    }

    /// How to make a table smaller: its parameter, or the device for a per-page table.
    fn shrink_hint(&self, key: &str) -> String {
        if key.is_empty() {
            "use a smaller device".to_string()
        } else {
            // Not "lower": some parameters shrink a table as they grow (MiDAS's `unit`).
            format!("change `{key}`, which sizes it,")
        }
    }

    /// [`Spec::path`], or the spec's own field for an empty key.
    fn key_path(&self, key: &str) -> String {
        if key.is_empty() {
            self.field.clone()
        } else {
            self.path(key)
        }
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
            Some(s) => s
                .parse::<T>()
                .map_err(|_| Error::config(self.path(key), unparsed(s, min, max)))?,
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
        for (k, v) in &self.params {
            if !used.iter().any(|u| u == k) {
                let mut known: Vec<_> = used
                    .iter()
                    .map(|u| {
                        if u == "_" {
                            "a bare value".to_string()
                        } else {
                            u.clone()
                        }
                    })
                    .collect();
                known.sort();
                known.dedup();
                let accepts = if known.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("it accepts: {}", known.join(", "))
                };
                // A bare word (`sup-gc:x`) is stored under `_`, which means nothing to the
                // user: name the scheme and the word instead.
                if k == "_" {
                    let msg = if used.iter().any(|u| u == v) {
                        format!("`{v}` needs a value: `{}:{v}=VALUE`", self.name)
                    } else {
                        format!("`{}` takes no parameter `{v}`; {accepts}", self.name)
                    };
                    return Err(Error::config(self.field.clone(), msg));
                }
                return Err(Error::config(
                    self.path(k),
                    format!("unknown parameter for `{}`; {accepts}", self.name),
                ));
            }
        }
        Ok(())
    }
}

/// Why `s` did not parse as a parameter of range `min..=max`: a number outside the type's
/// range (`d=1e11`, `regions=-1`) is out of range, not "not a number".
fn unparsed<T: std::fmt::Display>(s: &str, min: T, max: T) -> String {
    let range = format!("allowed range {min}..={max}");
    let bound = |b: &T| b.to_string().parse::<f64>().ok();
    match s.parse::<f64>() {
        Ok(f) if f.is_nan() => format!("`{s}` is not a number; {range}"),
        Ok(f) if f.fract() == 0.0 || f.is_infinite() => {
            let inside =
                bound(&min).is_some_and(|lo| f >= lo) && bound(&max).is_some_and(|hi| f <= hi);
            if inside {
                format!("`{s}`: write the whole number in digits; {range}")
            } else {
                format!("`{s}` is out of range; {range}")
            }
        }
        Ok(_) => format!("`{s}` is not a whole number; {range}"),
        Err(_) => format!("`{s}` is not a number; {range}"),
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
    fn numbers_beyond_the_type_are_out_of_range_not_unparsable() {
        // `d=1e11` and `regions=100000000000` said "is not a number".
        let s = Spec::parse("run.victim", "d-choices:d=100000000000").unwrap();
        let e = s.num::<u32>("d", 2, 1, 4096).unwrap_err().to_string();
        assert!(
            e.contains("`100000000000` is out of range; allowed range 1..=4096"),
            "{e}"
        );
        for (v, want) in [
            ("-1", "`-1` is out of range"),
            ("1e11", "`1e11` is out of range"),
            ("2.5", "`2.5` is not a whole number"),
            ("1e1", "`1e1`: write the whole number in digits"),
            ("x", "`x` is not a number"),
        ] {
            let s = Spec::parse("run.placement", &format!("dac:regions={v}")).unwrap();
            let e = s.num::<u8>("regions", 4, 2, 16).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("2..=16"), "{v}: {e}");
        }
    }

    #[test]
    fn a_bare_word_names_the_scheme_not_an_underscore_field() {
        let s = Spec::parse("run.placement", "sup-gc:x").unwrap();
        let e = s.finish().unwrap_err().to_string();
        assert!(
            e.contains("`run.placement`: `sup-gc` takes no parameter `x`; it takes no parameters"),
            "{e}"
        );
        let s = Spec::parse("run.victim", "cost-benefit:nope=1").unwrap();
        s.raw("_");
        s.num::<f64>("min_garbage", 0.0, 0.0, 1.0).unwrap();
        let e = s.finish().unwrap_err().to_string();
        assert!(e.contains("it accepts: a bare value, min_garbage"), "{e}");
    }

    #[test]
    fn tables_are_checked_against_the_limit_before_they_are_allocated() {
        let mut s = Spec::parse("run.placement", "mbf:bits=68719476736").unwrap();
        s.set_memory_limit(Some(1.0), 1 << 20);
        let e = s
            .table::<u64>("bits", "Bloom filter", 1 << 32, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "`run.placement.bits`: `mbf` needs 34359738368 B (32.00 GiB) for its Bloom filter"
            ) && e.contains("run.max_memory_gib = 1.00 GiB"),
            "{e}"
        );
        // Tables add up: two of 0.6 GiB pass one by one but not together.
        let half = (0.6 * (1u64 << 30) as f64) as u64;
        s.check_memory("bits", "a", half).unwrap();
        assert!(s.check_memory("bits", "b", half).is_err());
        // Without a limit a size the system cannot give is an error, not an abort.
        let s = Spec::parse("run.placement", "mhf").unwrap();
        let e = s
            .table::<u64>("counters", "counters", u64::MAX / 4, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot allocate"), "{e}");
        assert_eq!(s.table::<u8>("counters", "c", 3, 7).unwrap(), vec![7; 3]);
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
