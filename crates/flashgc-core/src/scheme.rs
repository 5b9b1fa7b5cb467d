//! Placement/victim pairs: the unit a comparison runs.
//!
//! A comparison either crosses lists of placements and victim policies or runs explicit
//! pairs `PLACEMENT/VICTIM` (e.g. `midas/fifo,sepbit/cost-benefit`), each scheme with the
//! victim policy its paper evaluates it with. The CLI (`compare --scheme`), the Python
//! package (`flashgc.compare(schemes=...)`, sweep grids) and reports share this parser.
//!
//! Both halves are ordinary specs (`name:key=value,...`). A placement's list values use `/`
//! too (`bf-gc:thresholds=4/2/1`), so a pair is split at the last `/` whose right-hand side
//! starts with a registered victim policy name.

use crate::error::{Error, Result};

/// One placement/victim pair (both are spec strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemePair {
    /// Placement spec, e.g. `midas:sample=1`.
    pub placement: String,
    /// Victim policy spec, e.g. `cost-benefit:sqrt`.
    pub victim: String,
}

/// Splits a comma-separated list of specs. A spec's own parameters also use commas
/// (`midas:sample=1,hot=off`): a part that starts with `key=` (no `:` before its first
/// `=`) continues the previous spec, also when a pair's victim follows it
/// (`irrhand=off/cost-benefit:sqrt`).
///
/// A blank list gives no specs (the caller says what it needs); an empty entry in a list
/// (`single,,sup-gc`, `greedy,`) is an error naming `field` and the entry's position: a
/// list that silently lost an entry would run fewer schemes than were asked for.
pub fn split_specs(field: &str, s: &str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    if s.trim().is_empty() {
        return Ok(out);
    }
    for (i, part) in s.split(',').map(str::trim).enumerate() {
        if part.is_empty() {
            return Err(Error::config(
                field,
                format!(
                    "`{s}`: entry {} of the comma-separated list is empty; separate the names with single commas",
                    i + 1
                ),
            ));
        }
        let continues = part
            .split_once('=')
            .is_some_and(|(key, _)| !key.contains([':', '/']));
        if continues && !out.is_empty() {
            let last = out.last_mut().expect("non-empty");
            last.push(',');
            last.push_str(part);
        } else {
            out.push(part.to_string());
        }
    }
    Ok(out)
}

fn spec_name(spec: &str) -> &str {
    spec.split(':').next().unwrap_or("").trim()
}

fn known_pairs_hint() -> String {
    format!(
        "expected PLACEMENT/VICTIM, e.g. midas/fifo or sepbit/cost-benefit:sqrt; \
         known placements: {}; known victims: {}",
        crate::placement::names().join(", "),
        crate::victim::names().join(", ")
    )
}

/// Parses one pair `PLACEMENT/VICTIM`. Names are checked against the registries (an
/// unknown name is an error listing the known ones); parameters are checked when the
/// simulation is built.
pub fn parse_pair(field: &str, text: &str) -> Result<SchemePair> {
    let text = text.trim();
    let victims = crate::victim::names();
    let split = text
        .char_indices()
        .filter(|&(_, c)| c == '/')
        .map(|(i, _)| i)
        .rev()
        .find(|&i| victims.contains(&spec_name(&text[i + 1..]).to_ascii_lowercase().as_str()));
    let Some(i) = split else {
        // Say which half is wrong when the text has exactly one '/'.
        if let Some((p, v)) = text.split_once('/') {
            if !p.is_empty() && !v.contains('/') {
                return Err(Error::config(
                    field,
                    format!(
                        "unknown victim policy `{}` in `{text}`; known: {}",
                        spec_name(v),
                        victims.join(", ")
                    ),
                ));
            }
        }
        return Err(Error::config(
            field,
            format!(
                "`{text}` is not a placement/victim pair; {}",
                known_pairs_hint()
            ),
        ));
    };
    let (placement, victim) = (text[..i].trim(), text[i + 1..].trim());
    if placement.is_empty() || victim.is_empty() {
        return Err(Error::config(
            field,
            format!("`{text}` has an empty half; {}", known_pairs_hint()),
        ));
    }
    let pname = spec_name(placement).to_ascii_lowercase();
    if !crate::placement::names().contains(&pname.as_str()) {
        return Err(Error::config(
            field,
            format!(
                "unknown placement scheme `{pname}` in `{text}`; known: {}",
                crate::placement::names().join(", ")
            ),
        ));
    }
    Ok(SchemePair {
        placement: placement.to_string(),
        victim: victim.to_string(),
    })
}

/// Parses a comma-separated list of pairs (`midas/fifo,sepbit/cost-benefit`).
pub fn parse_pairs(field: &str, text: &str) -> Result<Vec<SchemePair>> {
    let specs = split_specs(field, text)?;
    if specs.is_empty() {
        return Err(Error::config(
            field,
            format!("no scheme pair given; {}", known_pairs_hint()),
        ));
    }
    specs.iter().map(|s| parse_pair(field, s)).collect()
}

/// The victim policy the paper of placement `placement` (a spec or a name) evaluates it
/// with, from the placement registry; `None` for an unknown name.
pub fn paper_victim(placement: &str) -> Option<&'static str> {
    let name = spec_name(placement).to_ascii_lowercase();
    crate::placement::REGISTRY
        .iter()
        .find(|r| r.0 == name)
        .map(|r| r.3)
}

/// Every registered placement paired with its paper's victim policy, in registry order.
pub fn paper_pairs() -> Vec<SchemePair> {
    crate::placement::REGISTRY
        .iter()
        .map(|r| SchemePair {
            placement: r.0.to_string(),
            victim: r.3.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_split_at_the_victim_and_keep_spec_parameters() {
        let p = parse_pairs(
            "scheme",
            "midas:sample=1,uid_counts=sampled/fifo, sepbit/cost-benefit:sqrt,min_garbage=0.15,bf-gc:thresholds=4/2/1/greedy",
        )
        .unwrap();
        assert_eq!(
            p,
            vec![
                SchemePair {
                    placement: "midas:sample=1,uid_counts=sampled".into(),
                    victim: "fifo".into()
                },
                SchemePair {
                    placement: "sepbit".into(),
                    victim: "cost-benefit:sqrt,min_garbage=0.15".into()
                },
                SchemePair {
                    placement: "bf-gc:thresholds=4/2/1".into(),
                    victim: "greedy".into()
                },
            ]
        );
    }

    #[test]
    fn parameters_continue_a_spec_even_when_a_victim_follows() {
        let p = parse_pairs(
            "scheme",
            "midas:grpconf=off,irrhand=off/cost-benefit:sqrt,single/d-choices:d=4",
        )
        .unwrap();
        let got: Vec<(&str, &str)> = p
            .iter()
            .map(|x| (x.placement.as_str(), x.victim.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("midas:grpconf=off,irrhand=off", "cost-benefit:sqrt"),
                ("single", "d-choices:d=4")
            ]
        );
    }

    #[test]
    fn bad_pairs_name_the_known_schemes() {
        // The unknown name alone in backticks, then the pair it came from, then the field.
        let e = parse_pairs("scheme", "midas/lifo").unwrap_err().to_string();
        assert!(e.contains("`scheme`"), "{e}");
        assert!(
            e.contains("unknown victim policy `lifo` in `midas/lifo`")
                && e.contains("cost-benefit"),
            "{e}"
        );
        let e = parse_pairs("scheme", "nosuch/fifo")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown placement scheme `nosuch` in `nosuch/fifo`") && e.contains("midas"),
            "{e}"
        );
        let e = parse_pairs("scheme", "midas").unwrap_err().to_string();
        assert!(
            e.contains("PLACEMENT/VICTIM") && e.contains("sepbit"),
            "{e}"
        );
        let e = parse_pairs("scheme", "/fifo").unwrap_err().to_string();
        assert!(e.contains("empty half"), "{e}");
        assert!(parse_pairs("scheme", " , ").is_err());
    }

    #[test]
    fn empty_entries_are_refused_with_their_position() {
        // Dropped silently before: `single,,sup-gc` ran two schemes, `greedy,` one.
        for (text, at) in [
            ("single,,sup-gc", 2),
            ("greedy,", 2),
            (",fifo", 1),
            ("midas/fifo, ,sepbit/greedy", 2),
        ] {
            let e = split_specs("run.placement", text).unwrap_err().to_string();
            assert!(
                e.contains("`run.placement`")
                    && e.contains(&format!(
                        "`{text}`: entry {at} of the comma-separated list is empty"
                    )),
                "{text}: {e}"
            );
        }
        let e = parse_pairs("--scheme", "midas/fifo,,sepbit/greedy")
            .unwrap_err()
            .to_string();
        assert!(e.contains("entry 2"), "{e}");
        assert_eq!(split_specs("f", " ").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn every_registered_placement_has_a_registered_paper_victim() {
        for p in paper_pairs() {
            let v = crate::spec::Spec::parse("victim", &p.victim).unwrap();
            assert!(
                crate::victim::names().contains(&v.name.as_str()),
                "{} -> {}",
                p.placement,
                p.victim
            );
        }
        assert_eq!(paper_victim("midas:sample=1"), Some("fifo"));
    }
}
