//! The generic column-mapped format (`csv:` / `ssv:` specs): which column holds what,
//! in which unit, and which op values mean write, read and trim.

use super::Sep;

/// The generic column-mapped format (`csv:ts=1,op=4,offset=5,size=6,...`).
#[derive(Debug, Clone, PartialEq)]
pub struct GenericSpec {
    /// Field separator.
    pub(super) sep: Sep,
    /// Timestamp column (0-based); none: every request at time 0.
    pub(super) ts: Option<usize>,
    /// Op column.
    pub(super) op: usize,
    /// Offset column.
    pub(super) offset: usize,
    /// Size column.
    pub(super) size: usize,
    /// Volume column (names hashed with FNV-1a).
    pub(super) volume: Option<usize>,
    /// Content hash column (hex; the first 16 digits kept).
    pub(super) hash: Option<usize>,
    /// Nanoseconds per timestamp unit.
    pub(super) ts_unit_ns: u64,
    /// Bytes per offset unit.
    pub(super) offset_unit: u64,
    /// Bytes per size unit.
    pub(super) size_unit: u64,
    /// Op values meaning write (lower case).
    pub(super) write: Vec<Vec<u8>>,
    /// Op values meaning read (empty: every other value).
    pub(super) read: Vec<Vec<u8>>,
    /// Op values meaning trim.
    pub(super) trim: Vec<Vec<u8>>,
    /// Header lines to skip.
    pub(super) header: u64,
    /// Row filters (`keep=COL:V1|V2`): a row is a request only if each listed column holds
    /// one of its values (exact match); other rows are counted as ignored lines.
    pub(super) keep: Vec<(usize, Vec<Vec<u8>>)>,
    /// The spec as given (its display name).
    pub(super) text: String,
}

impl GenericSpec {
    /// Parses the `key=value,...` body of a `csv:` / `ssv:` spec (`text` is the whole spec).
    pub(super) fn parse(sep: Sep, body: &str, text: &str) -> Result<GenericSpec, String> {
        let mut g = GenericSpec {
            sep,
            ts: None,
            op: 0,
            offset: 0,
            size: 0,
            volume: None,
            hash: None,
            ts_unit_ns: 1,
            offset_unit: 1,
            size_unit: 1,
            write: Vec::new(),
            read: Vec::new(),
            trim: Vec::new(),
            header: 0,
            keep: Vec::new(),
            text: text.to_string(),
        };
        let col = |k: &str, v: &str| -> Result<usize, String> {
            match v.trim().parse::<usize>() {
                Ok(n) if (1..=64).contains(&n) => Ok(n - 1),
                _ => Err(format!(
                    "`{k}={v}`: a column number from 1 to 64 (columns count from 1)"
                )),
            }
        };
        let size_unit = |k: &str, v: &str| -> Result<u64, String> {
            Ok(match v.trim().to_ascii_lowercase().as_str() {
                "byte" | "bytes" | "b" => 1,
                "sector" | "sectors" | "512" => 512,
                "kib" | "k" => 1024,
                "4kib" | "page" | "4k" => 4096,
                _ => {
                    return Err(format!(
                        "`{k}={v}`: allowed units: byte, sector (512 B), kib, 4kib"
                    ))
                }
            })
        };
        let ops = |v: &str| -> Vec<Vec<u8>> {
            v.split('|')
                .map(|x| x.trim().to_ascii_lowercase().into_bytes())
                .filter(|x| !x.is_empty())
                .collect()
        };
        // `write=`, `read=`, `trim=` as given (the last of each), for the overlap check.
        let mut given: [Option<&str>; 3] = [None; 3];
        for kv in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("`{kv}`: expected key=value (keys: ts, op, offset, size, volume, hash, ts_unit, offset_unit, size_unit, write, read, trim, header, keep, sep)"))?;
            match k.trim() {
                "ts" | "time" => g.ts = Some(col(k, v)?),
                "op" => g.op = col(k, v)?,
                "offset" | "lba" => g.offset = col(k, v)?,
                "size" | "len" | "length" => g.size = col(k, v)?,
                "volume" | "device" => g.volume = Some(col(k, v)?),
                "hash" | "md5" => g.hash = Some(col(k, v)?),
                "ts_unit" => {
                    g.ts_unit_ns = match v.trim().to_ascii_lowercase().as_str() {
                        "ns" => 1,
                        "100ns" => 100,
                        "us" => 1_000,
                        "ms" => 1_000_000,
                        "s" => 1_000_000_000,
                        _ => return Err(format!("`ts_unit={v}`: allowed: ns, 100ns, us, ms, s")),
                    }
                }
                "offset_unit" => g.offset_unit = size_unit(k, v)?,
                "size_unit" => g.size_unit = size_unit(k, v)?,
                "write" => (g.write, given[0]) = (ops(v), Some(kv)),
                "read" => (g.read, given[1]) = (ops(v), Some(kv)),
                "trim" => (g.trim, given[2]) = (ops(v), Some(kv)),
                "keep" => {
                    let (c, vals) = v.split_once(':').ok_or_else(|| {
                        format!("`keep={v}`: expected COLUMN:VALUE[|VALUE...], e.g. keep=6:D (rows whose column 6 is D)")
                    })?;
                    let vals: Vec<Vec<u8>> = vals
                        .split('|')
                        .map(|x| x.trim().as_bytes().to_vec())
                        .filter(|x| !x.is_empty())
                        .collect();
                    if vals.is_empty() {
                        return Err(format!("`keep={v}`: give at least one value after the colon"));
                    }
                    g.keep.push((col(k, c)?, vals));
                }
                "header" => {
                    g.header = v.trim().parse().map_err(|_| format!("`header={v}`: number of header lines to skip"))?
                }
                "sep" => {
                    g.sep = match v.trim() {
                        "comma" | "," => Sep::Comma,
                        "space" | "ws" | "tab" => Sep::Space,
                        _ => return Err(format!("`sep={v}`: allowed: comma, space")),
                    }
                }
                other => {
                    return Err(format!(
                        "unknown key `{other}`; keys: ts, op, offset, size, volume, hash, ts_unit, offset_unit, size_unit, write, read, trim, header, keep, sep"
                    ))
                }
            }
        }
        let has = |k: &str| {
            body.split(',')
                .any(|kv| kv.trim().split('=').next().map(str::trim) == Some(k))
        };
        for (need, alts) in [
            ("op", &["op"][..]),
            ("offset", &["offset", "lba"]),
            ("size", &["size", "len", "length"]),
        ] {
            if !alts.iter().any(|a| has(a)) {
                return Err(format!("the column map needs `{need}=N` (1-based column)"));
            }
        }
        if g.write.is_empty() {
            return Err("the column map needs `write=VALUE` (the op value meaning write, e.g. write=W or write=1; several: write=W|WS)".into());
        }
        // A value in two lists would be silently read as the first op matched.
        let lists = [("write", &g.write), ("read", &g.read), ("trim", &g.trim)];
        for a in 0..3 {
            for b in a + 1..3 {
                if let Some(v) = lists[a].1.iter().find(|v| lists[b].1.contains(v)) {
                    return Err(format!(
                        "`{}` and `{}` both list the op value `{}` (values match \
                         case-insensitively): it is mapped to both {} and {}; give each value \
                         to one operation",
                        given[a].unwrap_or_default(),
                        given[b].unwrap_or_default(),
                        String::from_utf8_lossy(v),
                        lists[a].0,
                        lists[b].0
                    ));
                }
            }
        }
        Ok(g)
    }
}
