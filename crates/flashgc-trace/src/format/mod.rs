//! Trace formats: names, `--format` specs, per-line parsers and auto-detection.
//!
//! Every parser turns one text line into a [`Rec`] in common units: time in nanoseconds
//! (absolute, in the trace's own epoch), byte offset and byte length, a volume key and an
//! optional 64-bit content fingerprint. The units of each format are listed in
//! `docs/traces.md`.

mod fields;
mod generic;
mod lines;

use crate::error::FieldError;
use fields::parse_uint;
pub(crate) use fields::LineParser;
#[cfg(test)]
use fields::{parse_hash, parse_time};
use flashgc_core::workload::Op;
pub use generic::GenericSpec;
pub(crate) use lines::flush_rec;

/// The longest request any trace format holds, in bytes (4 GiB - 1): `.fgt` and blktrace
/// records store the length in 32 bits, and text formats refuse longer requests the same
/// way, as malformed lines.
pub const MAX_REQUEST_BYTES: u64 = u32::MAX as u64;

/// Field separator of a text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// Comma separated (spaces around fields are trimmed).
    Comma,
    /// Runs of spaces and tabs.
    Space,
}

/// How a format names volumes (devices, disks, LUNs, ASUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VolumeKind {
    /// The format has no volume field.
    None,
    /// A non-negative integer (ASU, LUN, volume id, device number).
    Number,
    /// A `major,minor` device pair (blkparse, FIU).
    MajMin,
    /// Free text (MSR `host_disk`, fio file names, generic volume columns).
    Text,
}

impl VolumeKind {
    pub(crate) fn code(self) -> u8 {
        match self {
            VolumeKind::None => 0,
            VolumeKind::Number => 1,
            VolumeKind::MajMin => 2,
            VolumeKind::Text => 3,
        }
    }
    pub(crate) fn from_code(c: u8) -> Option<VolumeKind> {
        Some(match c {
            0 => VolumeKind::None,
            1 => VolumeKind::Number,
            2 => VolumeKind::MajMin,
            3 => VolumeKind::Text,
            _ => return None,
        })
    }

    /// The key of a `--volume` value for this kind.
    pub fn key_of(self, s: &str) -> Result<u64, String> {
        let s = s.trim();
        match self {
            VolumeKind::None => Err("this trace format has no volume field".into()),
            VolumeKind::Number => s.parse::<u64>().map_err(|_| {
                format!("`{s}` is not a volume number (this format numbers its volumes: 0, 1, ...)")
            }),
            VolumeKind::MajMin => {
                let (a, b) = s
                    .split_once([',', ':'])
                    .ok_or_else(|| format!("`{s}` is not a device `major,minor`, e.g. 8,16"))?;
                let a: u32 = a
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{s}`: bad major number"))?;
                let b: u32 = b
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{s}`: bad minor number"))?;
                Ok(((a as u64) << 32) | b as u64)
            }
            VolumeKind::Text => Ok(fnv1a(s.as_bytes())),
        }
    }

    /// The display name of `key` (Text keys need the name table instead).
    pub(crate) fn name_of(self, key: u64) -> String {
        match self {
            VolumeKind::None => "-".into(),
            VolumeKind::Number => key.to_string(),
            VolumeKind::MajMin => format!("{},{}", key >> 32, key & 0xffff_ffff),
            VolumeKind::Text => format!("#{key:016x}"),
        }
    }
}

/// FNV-1a 64, the key of text volume names.
pub(crate) fn fnv1a(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in b {
        h ^= c as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// blkparse event selection (action letters, e.g. `D` or `Q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlkEvents(u32);

impl BlkEvents {
    /// Parses letters such as `D`, `Q`, `C` or `QD` (upper case blkparse actions; each
    /// must be one of [`BLK_ACTIONS`]).
    pub fn parse(s: &str) -> Result<BlkEvents, String> {
        let mut m = 0u32;
        for c in s.trim().chars().filter(|c| *c != ',') {
            if !c.is_ascii() || !BLK_ACTIONS.contains(&(c as u8)) {
                return Err(format!(
                    "`{c}` is not a blkparse action; the actions are {}: D (issued to the driver), \
                     Q (queued) and C (completed) are the usual ones",
                    blk_action_list()
                ));
            }
            m |= 1 << (c as u8 - b'A');
        }
        if m == 0 {
            return Err("give at least one blkparse action letter, e.g. D or Q".into());
        }
        Ok(BlkEvents(m))
    }
    /// Whether action letter `c` is selected.
    pub(crate) fn has(self, c: u8) -> bool {
        c.is_ascii_uppercase() && self.0 & (1 << (c - b'A')) != 0
    }
    /// The letters, e.g. `D`.
    pub fn letters(self) -> String {
        (0..26u8)
            .filter(|i| self.0 & (1 << i) != 0)
            .map(|i| (b'A' + i) as char)
            .collect()
    }
}

impl Default for BlkEvents {
    fn default() -> Self {
        BlkEvents(1 << (b'D' - b'A'))
    }
}

/// Every blkparse action letter (blktrace's action codes 1..=15 in order, as blkparse
/// prints them; blkparse(1) names them: Q queued, M/F back/front merge, G get request,
/// S sleep, R requeue, D issued, C completed, P plug, U/T unplug, I inserted, X split,
/// B bounced, A remapped).
pub(crate) const BLK_ACTIONS: &[u8; 15] = b"QMFGSRDCPUTIXBA";

/// [`BLK_ACTIONS`] as `A, B, C, ...` for messages.
fn blk_action_list() -> String {
    let mut l = BLK_ACTIONS.to_vec();
    l.sort_unstable();
    l.iter()
        .map(|&c| (c as char).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The action letters set in the mask `m` (bit `c - 'A'` for letter `c`), e.g. `C, Q`.
pub(crate) fn blk_letters(m: u32) -> String {
    (0..26u8)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| ((b'A' + i) as char).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A trace format.
#[derive(Debug, Clone, PartialEq)]
pub enum Format {
    /// MSR Cambridge CSV: `Timestamp(100 ns FILETIME),Hostname,DiskNumber,Read|Write,Offset(B),Size(B),ResponseTime`.
    Msr,
    /// FIU: `ts_ns pid process lba(sectors) size(sectors) R|W major minor [md5]`.
    Fiu,
    /// Alibaba block traces: `device_id,R|W,offset(B),length(B),timestamp(us)`.
    Alibaba,
    /// Tencent CBS: `timestamp(s),offset(sectors),size(sectors),0=read|1=write,volume`.
    Tencent,
    /// SPC / UMass: `ASU,LBA(sectors),size(B),r|w,timestamp(s)`.
    Spc,
    /// Systor'17: `Timestamp(s),Response,IOType(R|W),LUN,Offset(B),Size(B)` (header line).
    Systor,
    /// MQSim ASCII: `time_ns device lba(sectors) size(sectors) 0=write|1=read`.
    Mqsim,
    /// SSDSim ASCII: `time_ns device lsn(sectors) size(sectors) 1=read|0=write`.
    Ssdsim,
    /// DiskSim ASCII: `time_ms devno blkno(sectors) size(sectors) flags(bit 0 = read)`.
    Disksim,
    /// MiDAS simulator: `timestamp type(0=read,1=write,2=other,3=trim) lba(4 KiB pages) size(B)`.
    Midas,
    /// fio iolog v2: `filename action [offset(B) length(B)]` after `fio version 2 iolog`.
    Fio2,
    /// fio iolog v3: `timestamp(ms) filename action [offset(B) length(B)]`.
    Fio3,
    /// blkparse default output; the selected actions (default D) become requests.
    Blkparse(BlkEvents),
    /// Generic column-mapped text.
    Generic(Box<GenericSpec>),
    /// The `.fgt` binary format.
    Fgt,
}

/// Names accepted by `--format`, for messages.
pub const FORMAT_NAMES: &str = "msr, fiu, alibaba, tencent, spc (umass), systor, mqsim, ssdsim, disksim, midas, \
                                fio2, fio3, blkparse, fgt, or csv:/ssv: column maps \
                                (e.g. csv:ts=1,op=4,offset=5,size=6,offset_unit=byte,ts_unit=100ns,write=Write,read=Read)";

impl Format {
    /// Parses a `--format` value. `blk` is the blkparse event selection.
    pub fn parse(s: &str, blk: BlkEvents) -> Result<Format, String> {
        let s = s.trim();
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n.trim().to_ascii_lowercase(), Some(r)),
            None => (s.to_ascii_lowercase(), None),
        };
        let plain = |f: Format| -> Result<Format, String> {
            match rest {
                None => Ok(f),
                Some(r) => Err(format!("format `{name}` takes no parameters, got `{r}`")),
            }
        };
        match name.as_str() {
            "msr" | "msr-cambridge" => plain(Format::Msr),
            "fiu" => plain(Format::Fiu),
            "alibaba" => plain(Format::Alibaba),
            "tencent" | "tencent-cbs" => plain(Format::Tencent),
            "spc" | "umass" => plain(Format::Spc),
            "systor" | "systor17" => plain(Format::Systor),
            "mqsim" => plain(Format::Mqsim),
            "ssdsim" => plain(Format::Ssdsim),
            "disksim" => plain(Format::Disksim),
            "midas" => plain(Format::Midas),
            "fio2" | "fio-v2" | "iolog2" => plain(Format::Fio2),
            "fio3" | "fio-v3" | "iolog3" => plain(Format::Fio3),
            "fio" | "iolog" => Err("say which iolog version: fio2 or fio3".into()),
            "blkparse" | "blktrace" => match rest {
                None => Ok(Format::Blkparse(blk)),
                Some(r) => Ok(Format::Blkparse(BlkEvents::parse(
                    r.trim_start_matches("events="),
                )?)),
            },
            "fgt" => plain(Format::Fgt),
            "csv" | "ssv" | "tsv" | "ws" => {
                let sep = if name == "csv" {
                    Sep::Comma
                } else {
                    Sep::Space
                };
                GenericSpec::parse(sep, rest.unwrap_or(""), s).map(|g| Format::Generic(Box::new(g)))
            }
            _ => Err(format!("unknown format `{name}`; known: {FORMAT_NAMES}")),
        }
    }

    /// Whether traces of this format can hold flushes, FUA writes or preflush requests
    /// (blkparse's RWBS and blktrace's categories, fio's `sync`, `.fgt` version 2): a replay
    /// of the others keeps no test for them on its hot path.
    pub fn carries_flushes(&self) -> bool {
        matches!(
            self,
            Format::Fio2 | Format::Fio3 | Format::Blkparse(_) | Format::Fgt
        )
    }

    /// Short name, e.g. `msr` or `csv:...`.
    pub fn name(&self) -> String {
        match self {
            Format::Msr => "msr".into(),
            Format::Fiu => "fiu".into(),
            Format::Alibaba => "alibaba".into(),
            Format::Tencent => "tencent".into(),
            Format::Spc => "spc".into(),
            Format::Systor => "systor".into(),
            Format::Mqsim => "mqsim".into(),
            Format::Ssdsim => "ssdsim".into(),
            Format::Disksim => "disksim".into(),
            Format::Midas => "midas".into(),
            Format::Fio2 => "fio2".into(),
            Format::Fio3 => "fio3".into(),
            Format::Blkparse(e) => format!("blkparse:{}", e.letters()),
            Format::Generic(g) => g.text.clone(),
            Format::Fgt => "fgt".into(),
        }
    }

    /// How this format names volumes.
    pub fn volume_kind(&self) -> VolumeKind {
        match self {
            Format::Msr | Format::Fio2 | Format::Fio3 => VolumeKind::Text,
            Format::Fiu | Format::Blkparse(_) => VolumeKind::MajMin,
            Format::Alibaba
            | Format::Tencent
            | Format::Spc
            | Format::Systor
            | Format::Mqsim
            | Format::Ssdsim
            | Format::Disksim => VolumeKind::Number,
            Format::Midas => VolumeKind::None,
            Format::Generic(g) => {
                if g.volume.is_some() {
                    VolumeKind::Text
                } else {
                    VolumeKind::None
                }
            }
            Format::Fgt => VolumeKind::None,
        }
    }

    /// Whether records of this format can carry content fingerprints.
    pub fn has_content(&self) -> bool {
        match self {
            Format::Fiu | Format::Fgt => true,
            Format::Generic(g) => g.hash.is_some(),
            _ => false,
        }
    }

    fn sep(&self) -> Sep {
        match self {
            Format::Msr | Format::Alibaba | Format::Tencent | Format::Spc | Format::Systor => {
                Sep::Comma
            }
            Format::Generic(g) => g.sep,
            _ => Sep::Space,
        }
    }
}

/// One parsed request in common units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rec {
    /// Absolute time in ns, in the trace's own epoch.
    pub time_ns: u64,
    /// Operation.
    pub op: Op,
    /// Start in bytes.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Volume key (0 when the format has no volume).
    pub volume: u64,
    /// Content fingerprint, 0 when unknown.
    pub content: u64,
    /// A write with Force Unit Access (blkparse RWBS `F` after the `W`, blktrace's
    /// `BLK_TC_FUA`): it completes once its pages are on flash.
    pub fua: bool,
    /// A flush precedes the request (blkparse RWBS `F` before the op letter, blktrace's
    /// `BLK_TC_FLUSH` on a request with data): replayed as a flush, then the request, as
    /// the block layer splits it. A flush on its own is [`Op::Flush`] (no data, length 0).
    pub preflush: bool,
    /// This write continues the previous record's request: a request recorded one page per
    /// record for the pages' content fingerprints (`flashgc serve --record`, `.fgt` version
    /// 3). A replay joins such records into the one request the application sent, except
    /// where the FTL's content mode needs each page's fingerprint
    /// (`TraceOptions::per_page`). Always false in text formats.
    pub cont: bool,
}

/// Result of parsing one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parsed {
    Rec(Rec),
    /// Blank line, comment or header: not counted.
    Blank,
    /// A valid line that is not a request (blkparse events without data, fio open/close,
    /// MiDAS `LOAD_END`): counted as ignored.
    Ignored,
    /// A blkparse event with data whose action (the letter) is not selected: counted as
    /// ignored, and its letter kept for the hint of an empty trace.
    Unselected(u8),
}

/// Formats tried by auto-detection, in order.
fn candidates() -> Vec<Format> {
    vec![
        Format::Msr,
        Format::Fiu,
        Format::Alibaba,
        Format::Tencent,
        Format::Spc,
        Format::Systor,
        Format::Mqsim,
        Format::Disksim,
        Format::Midas,
        Format::Blkparse(BlkEvents::default()),
    ]
}

/// Detects the format from the first lines of a text trace. Errors say which `--format`
/// to pass.
pub(crate) fn detect(lines: &[Vec<u8>], blk: BlkEvents) -> Result<Format, String> {
    let nonblank: Vec<&Vec<u8>> = lines
        .iter()
        .filter(|l| !l.trim_ascii().is_empty())
        .collect();
    let Some(first) = nonblank.first() else {
        return Err("the file is empty: no lines to detect a format from".into());
    };
    if first.contains(&0) {
        return Err(
            "this looks like a binary file, not a text trace (a .fgt file starts with `FLASHGCT`)"
                .into(),
        );
    }
    let f = first.trim_ascii();
    if f.starts_with(b"fio version 2 iolog") {
        return Ok(Format::Fio2);
    }
    if f.starts_with(b"fio version 3 iolog") {
        return Ok(Format::Fio3);
    }
    if f.starts_with(b"Timestamp,Response,IOType,LUN,Offset,Size") {
        return Ok(Format::Systor);
    }
    if lines::is_msr_header(f) {
        return Ok(Format::Msr);
    }
    let mut fits = Vec::new();
    // Formats whose requests fill the first lines until one bad line, for the error when
    // nothing fits.
    let mut near: Vec<NearMiss> = Vec::new();
    for cand in candidates() {
        let mut p = LineParser::new(cand.clone());
        let mut recs = 0;
        let mut ok = true;
        for (i, l) in lines.iter().enumerate() {
            match p.parse(l) {
                Ok(Parsed::Rec(_)) => recs += 1,
                Ok(_) => {}
                Err(e) => {
                    ok = false;
                    if recs > 0 {
                        let found = if e.index == usize::MAX {
                            &l[..l.len().min(60)]
                        } else {
                            let t = p.field_text(l, e.index);
                            &t[..t.len().min(40)]
                        };
                        near.push(NearMiss {
                            line: i,
                            found: crate::error::shown(found, found.len()),
                            error: e,
                            format: cand.clone(),
                        });
                    }
                    break;
                }
            }
        }
        // blkparse: lines that are all "not events" do not count as a fit.
        if ok && recs > 0 {
            fits.push(cand);
        }
    }
    let blk_fit = fits.iter().position(|f| matches!(f, Format::Blkparse(_)));
    if fits.is_empty() {
        // A blkparse file whose sample holds no selected events still has event lines.
        if lines
            .iter()
            .filter(|l| !l.trim_ascii().is_empty())
            .take(5)
            .all(|l| looks_blkparse(l))
        {
            return Ok(Format::Blkparse(blk));
        }
        if let Some(m) = near_miss(&near) {
            return Err(m);
        }
        let shown = crate::error::shown(f, 100);
        return Err(format!(
            "cannot detect the trace format from its first lines (first line: `{shown}`); pass --format NAME, \
             one of {FORMAT_NAMES}"
        ));
    }
    if let Some(i) = blk_fit {
        let _ = fits.remove(i);
        if fits.is_empty() {
            return Ok(Format::Blkparse(blk));
        }
    }
    let names: Vec<String> = fits.iter().map(|f| f.name()).collect();
    if names == ["mqsim", "disksim"] {
        return Err("five-column ASCII trace: the layout is shared by MQSim, SSDSim (both: time in ns, 0 = write, 1 = read) \
                    and DiskSim (time in ms, flags bit 0 = read); pass --format mqsim (same as ssdsim) or --format disksim"
            .into());
    }
    if fits.len() == 1 {
        return Ok(fits.pop().unwrap_or(Format::Msr));
    }
    Err(format!(
        "the first lines fit several formats ({}); pass --format with one of them",
        names.join(", ")
    ))
}

/// A format that reads the first lines as requests up to a bad one.
struct NearMiss {
    /// 0-based index of the bad line.
    line: usize,
    /// The bad field's text (the line's, when the line as a whole is wrong).
    found: String,
    error: FieldError,
    format: Format,
}

/// The error for first lines that a format (or several) reads up to a bad line: that
/// line, its field and what was expected, instead of "cannot detect the format" (a small
/// file truncated mid-line, or a damaged line near the top). None when no format read a
/// request first.
fn near_miss(near: &[NearMiss]) -> Option<String> {
    let last = near.iter().map(|n| n.line).max()?;
    let best: Vec<&NearMiss> = near.iter().filter(|n| n.line == last).collect();
    let names: Vec<String> = best
        .iter()
        .map(|n| format!("`{}`", n.format.name()))
        .collect();
    let n = best[0];
    let field = if n.error.index == usize::MAX {
        format!("`{}`", n.error.field)
    } else {
        format!("field {} `{}`", n.error.index + 1, n.error.field)
    };
    Some(format!(
        "line {}: the lines above it read as {}, but this one does not: {field}: {}, found `{}` \
         (a truncated or damaged line?); pass --format {} (with --skip-bad-lines to count and \
         skip such lines), or --format NAME for another format",
        last + 1,
        names.join(" or "),
        n.error.expected,
        n.found,
        n.format.name(),
    ))
}

fn looks_blkparse(l: &[u8]) -> bool {
    let t = l.trim_ascii();
    let first = t.split(|&c| c == b' ' || c == b'\t').next().unwrap_or(&[]);
    match memchr::memchr(b',', first) {
        Some(c) => parse_uint(&first[..c]).is_some() && parse_uint(&first[c + 1..]).is_some(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_exact() {
        assert_eq!(
            parse_time(b"1456095145.133076000", 1_000_000_000),
            Some(1_456_095_145_133_076_000)
        );
        assert_eq!(parse_time(b"0.000001850", 1_000_000_000), Some(1_850));
        assert_eq!(parse_time(b"1.5", 1_000_000), Some(1_500_000));
        assert_eq!(parse_time(b"12", 100), Some(1_200));
        assert_eq!(parse_time(b"-1", 1), None);
        assert_eq!(parse_time(b".", 1), None);
        assert_eq!(parse_time(b"1e3", 1), Some(1000));
    }

    #[test]
    fn hashes_take_the_first_8_bytes() {
        assert_eq!(
            parse_hash(b"d6c75ba46e82326fefa545b57a12e221"),
            Some(0xd6c75ba46e82326f)
        );
        assert_eq!(parse_hash(b"xyz"), None);
    }

    #[test]
    fn generic_spec_checks_keys() {
        let f = Format::parse(
            "csv:ts=1,op=4,offset=5,size=6,offset_unit=byte,ts_unit=100ns,write=W",
            BlkEvents::default(),
        );
        assert!(f.is_ok(), "{f:?}");
        let e = Format::parse("csv:ts=1,op=4,offset=5", BlkEvents::default()).unwrap_err();
        assert!(e.contains("size"), "{e}");
        let e = Format::parse(
            "csv:op=1,offset=2,size=3,write=W,colour=red",
            BlkEvents::default(),
        )
        .unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e =
            Format::parse("csv:op=0,offset=2,size=3,write=W", BlkEvents::default()).unwrap_err();
        assert!(e.contains("from 1"), "{e}");
    }

    #[test]
    fn generic_spec_refuses_a_value_mapped_to_two_operations() {
        // It was accepted, the write list winning.
        for (spec, want, ops) in [
            (
                "csv:op=1,offset=2,size=3,write=W,trim=W",
                "`write=W` and `trim=W` both list the op value `w`",
                "mapped to both write and trim",
            ),
            (
                "csv:op=1,offset=2,size=3,write=W|WS,read=r|ws",
                "`write=W|WS` and `read=r|ws` both list the op value `ws`",
                "mapped to both write and read",
            ),
            (
                "ssv:op=1,offset=2,size=3,write=1,read=0,trim=D|0",
                "`read=0` and `trim=D|0` both list the op value `0`",
                "mapped to both read and trim",
            ),
        ] {
            let e = Format::parse(spec, BlkEvents::default()).unwrap_err();
            assert!(e.contains(want) && e.contains(ops), "{spec}: {e}");
        }
        // Disjoint lists are fine.
        let f = Format::parse(
            "csv:op=1,offset=2,size=3,write=W|WS,read=R,trim=D",
            BlkEvents::default(),
        );
        assert!(f.is_ok(), "{f:?}");
    }
}
