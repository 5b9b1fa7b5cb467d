//! Golden files of the differential tests (`tests/differential.rs`): results captured from
//! the engine before the one-engine refactor (issue 14), compared field by field.
//!
//! A golden file is a JSON object `{case name: result JSON}`. With `FLASHGC_BLESS=1` the
//! tests write the current results instead of comparing (only ever done on the commit the
//! goldens document: see `tests/golden/README.md`).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Path of a golden file under `tests/golden/`.
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Whether the run should write goldens instead of comparing.
pub fn blessing() -> bool {
    std::env::var("FLASHGC_BLESS").is_ok_and(|v| v == "1")
}

/// Loads a golden file.
pub fn load(name: &str) -> BTreeMap<String, Value> {
    let p = path(name);
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (goldens are committed)", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Writes a golden file: one case per line, so that diffs show which case changed.
pub fn store(name: &str, cases: &BTreeMap<String, Value>) {
    let mut s = String::from("{\n");
    let n = cases.len();
    for (i, (k, v)) in cases.iter().enumerate() {
        s += &format!(
            "{}: {}{}\n",
            serde_json::to_string(k).unwrap(),
            serde_json::to_string(v).unwrap(),
            if i + 1 < n { "," } else { "" }
        );
    }
    s += "}\n";
    std::fs::write(path(name), s).unwrap();
}

/// Compares a new result with its golden value. Every field of the golden must be present
/// with an identical value (numbers compared exactly: JSON floats round-trip), except:
///
/// * keys in `added` may appear in the new result only (fields the refactor adds);
/// * `notes`: the golden's notes must appear in the new notes in the same order (new notes,
///   e.g. advisories, may be interleaved).
///
/// Returns the differences (path: golden vs new), empty when they match.
pub fn diff(golden: &Value, new: &Value, added: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    walk("", golden, new, added, &mut out);
    out
}

fn walk(path: &str, g: &Value, n: &Value, added: &[&str], out: &mut Vec<String>) {
    match (g, n) {
        (Value::Object(go), Value::Object(no)) => {
            for (k, gv) in go {
                let p = format!("{path}.{k}");
                match no.get(k) {
                    None => out.push(format!("{p}: missing in the new result")),
                    Some(nv) if k == "notes" => {
                        let (Some(ga), Some(na)) = (gv.as_array(), nv.as_array()) else {
                            walk(&p, gv, nv, added, out);
                            continue;
                        };
                        let mut it = na.iter();
                        for note in ga {
                            if !it.any(|x| x == note) {
                                out.push(format!("{p}: note {note} missing (or out of order)"));
                            }
                        }
                    }
                    Some(nv) => walk(&p, gv, nv, added, out),
                }
            }
            for k in no.keys() {
                if !go.contains_key(k) && !added.contains(&k.as_str()) {
                    out.push(format!("{path}.{k}: new field not in the golden"));
                }
            }
        }
        (Value::Array(ga), Value::Array(na)) => {
            if ga.len() != na.len() {
                out.push(format!("{path}: {} elements vs {}", ga.len(), na.len()));
                return;
            }
            for (i, (a, b)) in ga.iter().zip(na).enumerate() {
                walk(&format!("{path}[{i}]"), a, b, added, out);
            }
        }
        _ => {
            if g != n {
                out.push(format!("{path}: golden {g} vs new {n}"));
            }
        }
    }
}

/// Compares (or, when blessing, collects) every case of a golden file. `cases` gives each
/// case's name and its new result.
pub fn check(file: &str, cases: BTreeMap<String, Value>, added: &[&str]) {
    check_skipping(file, cases, added, &|_, _| false)
}

/// Like [`check`], leaving out what a documented change of semantics makes impossible to
/// reproduce: `skipped(case, "")` drops a whole case, `skipped(case, path)` one field's
/// differences (`path` as in the messages, e.g. `.memory[5].bytes`); the caller says why.
pub fn check_skipping(
    file: &str,
    cases: BTreeMap<String, Value>,
    added: &[&str],
    skipped: &dyn Fn(&str, &str) -> bool,
) {
    if blessing() {
        store(file, &cases);
        return;
    }
    let golden = load(file);
    let mut failures = Vec::new();
    for (name, g) in &golden {
        if skipped(name, "") {
            continue;
        }
        match cases.get(name) {
            None => failures.push(format!("{name}: case not run")),
            Some(n) => {
                let mut d = diff(g, n, added);
                d.retain(|m| !skipped(name, m.split(':').next().unwrap_or("")));
                if !d.is_empty() {
                    let shown: Vec<&String> = d.iter().take(8).collect();
                    failures.push(format!(
                        "{name}: {} differences, first: {shown:#?}",
                        d.len()
                    ));
                }
            }
        }
    }
    for name in cases.keys() {
        if !golden.contains_key(name) {
            failures.push(format!("{name}: no golden for this case"));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} cases differ from the golden:\n{}",
        failures.len(),
        golden.len(),
        failures.join("\n")
    );
}
