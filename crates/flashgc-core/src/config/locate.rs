//! Where in the user's configuration text a deserialization error points: its line and
//! the dotted field, for messages such as `f.toml: line 7: `flow[0].rate`: unknown field`.

use crate::error::Error;

/// A deserialization error of `text` with the line and the dotted field name it points at
/// (`device.pages_per_block`, `flow[1].rate` in the second `[[flow]]` section, the table
/// itself for an error on its `[header]` line), or None when it carries no position.
pub(super) fn locate(origin: &str, text: &str, e: &toml::de::Error) -> Option<Error> {
    let span = e.span()?;
    let line = text.get(..span.start)?.matches('\n').count() + 1;
    let lines: Vec<&str> = text.lines().collect();
    let this_line = lines.get(line - 1).map_or("", |l| l.trim());
    // `[name]` or `[[name]]` on a line: the table's name (without the brackets).
    let header = |l: &str| -> Option<(String, bool)> {
        let l = l.trim();
        let array = l.starts_with("[[");
        let name = l.strip_prefix('[')?.split(']').next()?;
        Some((name.trim_matches('[').trim().to_string(), array))
    };
    // The table a key belongs to: the last header above its line; an array of tables
    // (`[[flow]]`) is numbered as the configuration's errors number it (`flow[0]`).
    let table_above = || -> Option<String> {
        let mut at = None;
        let mut counts: std::collections::HashMap<String, usize> = Default::default();
        for l in &lines[..line - 1] {
            if let Some((name, array)) = header(l) {
                at = Some(if array {
                    let n = counts.entry(name.clone()).or_insert(0);
                    *n += 1;
                    format!("{name}[{}]", *n - 1)
                } else {
                    name
                });
            }
        }
        at
    };
    let field = if let Some((name, _)) = header(this_line) {
        // The error is about the table itself (an unknown `[nosuch]` section).
        name
    } else {
        let key = this_line
            .split_once('=')
            .map(|(k, _)| k.trim().trim_matches('"').to_string())
            .filter(|k| !k.is_empty())?;
        match table_above() {
            Some(t) => format!("{t}.{key}"),
            None => key,
        }
    };
    Some(Error::Input(format!(
        "{origin}: line {line}: `{field}`: {}",
        e.message()
    )))
}
