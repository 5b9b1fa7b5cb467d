//! Trace formats: names, `--format` specs, per-line parsers and auto-detection.
//!
//! Every parser turns one text line into a [`Rec`] in common units: time in nanoseconds
//! (absolute, in the trace's own epoch), byte offset and byte length, a volume key and an
//! optional 64-bit content fingerprint. The units of each format are listed in
//! `docs/traces.md`.

use crate::error::FieldError;
use flashgc_core::workload::Op;

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
    /// Parses letters such as `D`, `Q`, `C` or `QD` (upper case blkparse actions).
    pub fn parse(s: &str) -> Result<BlkEvents, String> {
        let mut m = 0u32;
        for c in s.trim().chars().filter(|c| *c != ',') {
            if !c.is_ascii_uppercase() {
                return Err(format!(
                    "`{c}` is not a blkparse action; use upper-case action letters such as D (issued to the driver), \
                     Q (queued) or C (completed)"
                ));
            }
            m |= 1 << (c as u8 - b'A');
        }
        if m == 0 {
            return Err("give at least one blkparse action letter, e.g. D or Q".into());
        }
        Ok(BlkEvents(m))
    }
    fn has(self, c: u8) -> bool {
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

/// The generic column-mapped format (`csv:ts=1,op=4,offset=5,size=6,...`).
#[derive(Debug, Clone, PartialEq)]
pub struct GenericSpec {
    sep: Sep,
    ts: Option<usize>,
    op: usize,
    offset: usize,
    size: usize,
    volume: Option<usize>,
    hash: Option<usize>,
    ts_unit_ns: u64,
    offset_unit: u64,
    size_unit: u64,
    write: Vec<Vec<u8>>,
    read: Vec<Vec<u8>>,
    trim: Vec<Vec<u8>>,
    header: u64,
    text: String,
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
                                (e.g. csv:ts=1,op=4,offset=5,size=6,offset_unit=byte,ts_unit=100ns,write=W)";

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

impl GenericSpec {
    fn parse(sep: Sep, body: &str, text: &str) -> Result<GenericSpec, String> {
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
        for kv in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("`{kv}`: expected key=value (keys: ts, op, offset, size, volume, hash, ts_unit, offset_unit, size_unit, write, read, trim, header)"))?;
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
                "write" => g.write = ops(v),
                "read" => g.read = ops(v),
                "trim" => g.trim = ops(v),
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
                        "unknown key `{other}`; keys: ts, op, offset, size, volume, hash, ts_unit, offset_unit, size_unit, write, read, trim, header, sep"
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
        Ok(g)
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
}

/// Result of parsing one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parsed {
    Rec(Rec),
    /// Blank line, comment or header: not counted.
    Blank,
    /// A valid line that is not a request (blkparse events not selected, fio open/close,
    /// MiDAS `LOAD_END`): counted as ignored.
    Ignored,
}

const MAXF: usize = 16;

/// Line parser: holds the format and scratch space for field positions.
pub(crate) struct LineParser {
    pub format: Format,
    sep: Sep,
    f: [(u32, u32); MAXF],
    n: usize,
    /// fio v2: accumulated `wait` time in ns.
    fio_clock: u64,
    /// Lines seen (for generic `header=N`).
    lines: u64,
}

#[inline(always)]
fn parse_uint(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// Parses a non-negative decimal number of `unit_ns` nanoseconds into ns, exactly (no
/// floating point unless the text has an exponent).
#[inline(always)]
fn parse_time(s: &[u8], unit_ns: u64) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    if s.iter().any(|&c| c == b'e' || c == b'E') {
        let v: f64 = std::str::from_utf8(s).ok()?.parse().ok()?;
        let ns = v * unit_ns as f64;
        return (0.0..1.8e19).contains(&ns).then_some(ns as u64);
    }
    let (int, frac) = match memchr::memchr(b'.', s) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, &[][..]),
    };
    let i = if int.is_empty() { 0 } else { parse_uint(int)? };
    let mut ns = i as u128 * unit_ns as u128;
    if !frac.is_empty() {
        if !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let d = &frac[..frac.len().min(18)];
        let f = parse_uint(d)?;
        ns += f as u128 * unit_ns as u128 / 10u128.pow(d.len() as u32);
    } else if int.is_empty() {
        return None;
    }
    u64::try_from(ns).ok()
}

/// First 16 hex digits of a hash as a big-endian u64 (the first 8 bytes of an MD5).
fn parse_hash(s: &[u8]) -> Option<u64> {
    if s.len() < 16 || !s.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut v = 0u64;
    for &c in &s[..16] {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => c - b'A' + 10,
        };
        v = (v << 4) | d as u64;
    }
    Some(v)
}

fn eq_ic(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl LineParser {
    pub fn new(format: Format) -> Self {
        let sep = format.sep();
        LineParser {
            format,
            sep,
            f: [(0, 0); MAXF],
            n: 0,
            fio_clock: 0,
            lines: 0,
        }
    }

    /// Resets per-pass state (before a replay loop starts over).
    pub fn reset(&mut self) {
        self.fio_clock = 0;
        self.lines = 0;
    }

    #[inline(always)]
    fn split(&mut self, line: &[u8]) {
        let mut n = 0;
        match self.sep {
            Sep::Comma => {
                // One pass over the bytes; fields are trimmed of spaces and tabs.
                let mut start = 0usize;
                let len = line.len();
                let mut i = 0usize;
                loop {
                    while i < len && line[i] != b',' {
                        i += 1;
                    }
                    let (mut s, mut e) = (start, i);
                    while s < e && (line[s] == b' ' || line[s] == b'\t') {
                        s += 1;
                    }
                    while e > s && (line[e - 1] == b' ' || line[e - 1] == b'\t') {
                        e -= 1;
                    }
                    if n < MAXF {
                        self.f[n] = (s as u32, e as u32);
                    }
                    n += 1;
                    if i >= len {
                        break;
                    }
                    i += 1;
                    start = i;
                }
            }
            Sep::Space => {
                let mut i = 0usize;
                let len = line.len();
                while i < len {
                    while i < len && (line[i] == b' ' || line[i] == b'\t') {
                        i += 1;
                    }
                    if i >= len {
                        break;
                    }
                    let s = i;
                    while i < len && line[i] != b' ' && line[i] != b'\t' {
                        i += 1;
                    }
                    if n < MAXF {
                        self.f[n] = (s as u32, i as u32);
                    }
                    n += 1;
                }
            }
        }
        self.n = n;
    }

    /// Byte column (0-based) where field `i` starts, for error messages.
    pub fn field_start(&self, i: usize) -> usize {
        if i < self.n.min(MAXF) {
            self.f[i].0 as usize
        } else {
            0
        }
    }

    /// Text of field `i` of `line` (after a parse call on the same line).
    pub fn field_text<'a>(&self, line: &'a [u8], i: usize) -> &'a [u8] {
        if i < self.n.min(MAXF) {
            let (s, e) = self.f[i];
            &line[s as usize..e as usize]
        } else {
            line
        }
    }

    #[inline(always)]
    fn get<'a>(
        &self,
        line: &'a [u8],
        i: usize,
        name: &'static str,
    ) -> Result<&'a [u8], FieldError> {
        if i >= self.n || i >= MAXF {
            return Err(FieldError::new(
                usize::MAX,
                name,
                format!(
                    "at least {} fields (found {}) for format {}",
                    i + 1,
                    self.n,
                    self.format.name()
                ),
            ));
        }
        let (s, e) = self.f[i];
        Ok(&line[s as usize..e as usize])
    }

    #[inline(always)]
    fn uint(
        &self,
        line: &[u8],
        i: usize,
        name: &'static str,
        unit: &'static str,
    ) -> Result<u64, FieldError> {
        let t = self.get(line, i, name)?;
        parse_uint(t).ok_or_else(|| {
            let what = if t.first() == Some(&b'-') {
                "a non-negative integer"
            } else {
                "an integer"
            };
            FieldError::new(i, name, format!("{what} ({unit})"))
        })
    }

    #[inline(always)]
    fn scaled(
        &self,
        line: &[u8],
        i: usize,
        name: &'static str,
        unit: &'static str,
        mul: u64,
    ) -> Result<u64, FieldError> {
        let v = self.uint(line, i, name, unit)?;
        v.checked_mul(mul)
            .ok_or_else(|| FieldError::new(i, name, format!("a value below 2^64 bytes ({unit})")))
    }

    #[inline(always)]
    fn time(
        &self,
        line: &[u8],
        i: usize,
        unit_ns: u64,
        unit: &'static str,
    ) -> Result<u64, FieldError> {
        let t = self.get(line, i, "timestamp")?;
        parse_time(t, unit_ns).ok_or_else(|| {
            let what = if t.first() == Some(&b'-') {
                "a non-negative number"
            } else {
                "a number"
            };
            FieldError::new(i, "timestamp", format!("{what} ({unit})"))
        })
    }

    /// The display name of the text volume on `line` (after a parse of that line).
    pub fn volume_name(&self, line: &[u8]) -> String {
        let s = |i: usize| String::from_utf8_lossy(self.field_text(line, i)).into_owned();
        match self.format {
            Format::Msr => format!("{}_{}", s(1), s(2)),
            Format::Fio2 => s(0),
            Format::Fio3 => s(1),
            Format::Generic(ref g) => g.volume.map(s).unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// Parses one line (without terminator).
    #[inline]
    pub fn parse(&mut self, line: &[u8]) -> Result<Parsed, FieldError> {
        self.lines += 1;
        let first = line.iter().position(|&c| c != b' ' && c != b'\t');
        let Some(first) = first else {
            return Ok(Parsed::Blank);
        };
        if line[first] == b'#' {
            return Ok(Parsed::Blank);
        }
        self.split(line);
        match &self.format {
            Format::Msr => {
                let time_ns =
                    self.scaled(line, 0, "timestamp", "100 ns Windows FILETIME ticks", 100)?;
                let t = self.get(line, 3, "type")?;
                let op = if eq_ic(t, b"Write") {
                    Op::Write
                } else if eq_ic(t, b"Read") {
                    Op::Read
                } else {
                    return Err(FieldError::new(3, "type", "`Read` or `Write`"));
                };
                let offset = self.uint(line, 4, "offset", "bytes")?;
                let len = self.uint(line, 5, "size", "bytes")?;
                let host = self.get(line, 1, "hostname")?;
                let disk = self.get(line, 2, "disknumber")?;
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for &c in host.iter().chain(b"_".iter()).chain(disk.iter()) {
                    h ^= c as u64;
                    h = h.wrapping_mul(0x0100_0000_01b3);
                }
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume: h,
                    content: 0,
                }))
            }
            Format::Fiu => {
                if self.n != 8 && self.n != 9 {
                    return Err(FieldError::new(
                        usize::MAX,
                        "line",
                        format!("8 fields, or 9 with the MD5 (ts pid process lba size R|W major minor [md5]); found {}", self.n),
                    ));
                }
                let time_ns = self.time(line, 0, 1, "ns")?;
                let offset = self.scaled(line, 3, "lba", "512 B sectors", 512)?;
                let len = self.scaled(line, 4, "size", "512 B sectors", 512)?;
                let op = match self.get(line, 5, "op")? {
                    b"W" | b"w" => Op::Write,
                    b"R" | b"r" => Op::Read,
                    _ => return Err(FieldError::new(5, "op", "`R` or `W`")),
                };
                let maj = self.uint(line, 6, "major", "device major number")?;
                let min = self.uint(line, 7, "minor", "device minor number")?;
                let content = if self.n == 9 {
                    parse_hash(self.get(line, 8, "md5")?)
                        .ok_or_else(|| FieldError::new(8, "md5", "a 32-digit hexadecimal MD5"))?
                } else {
                    0
                };
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume: (maj << 32) | (min & 0xffff_ffff),
                    content,
                }))
            }
            Format::Alibaba => {
                let volume = self.uint(line, 0, "device_id", "volume number")?;
                let op = match self.get(line, 1, "opcode")? {
                    b"W" | b"w" => Op::Write,
                    b"R" | b"r" => Op::Read,
                    _ => return Err(FieldError::new(1, "opcode", "`R` or `W`")),
                };
                let offset = self.uint(line, 2, "offset", "bytes")?;
                let len = self.uint(line, 3, "length", "bytes")?;
                let time_ns = self.time(line, 4, 1_000, "microseconds")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Tencent => {
                let time_ns = self.time(line, 0, 1_000_000_000, "Unix seconds")?;
                let offset = self.scaled(line, 1, "offset", "512 B sectors", 512)?;
                let len = self.scaled(line, 2, "size", "512 B sectors", 512)?;
                let op = match self.get(line, 3, "iotype")? {
                    b"1" => Op::Write,
                    b"0" => Op::Read,
                    _ => return Err(FieldError::new(3, "iotype", "`0` (read) or `1` (write)")),
                };
                let volume = self.uint(line, 4, "volume", "volume id")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Spc => {
                let volume = self.uint(line, 0, "asu", "application storage unit number")?;
                let offset = self.scaled(line, 1, "lba", "512 B sectors", 512)?;
                let len = self.uint(line, 2, "size", "bytes")?;
                let op = match self.get(line, 3, "opcode")? {
                    b"W" | b"w" => Op::Write,
                    b"R" | b"r" => Op::Read,
                    _ => return Err(FieldError::new(3, "opcode", "`r` or `w`")),
                };
                let time_ns = self.time(line, 4, 1_000_000_000, "seconds")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Systor => {
                if self.lines == 1 && line.starts_with(b"Timestamp") {
                    return Ok(Parsed::Blank);
                }
                let time_ns = self.time(line, 0, 1_000_000_000, "Unix seconds")?;
                let t = self.get(line, 2, "iotype")?;
                let op = match t.first() {
                    Some(b'W') | Some(b'w') => Op::Write,
                    Some(b'R') | Some(b'r') => Op::Read,
                    _ => return Err(FieldError::new(2, "iotype", "`R` or `W`")),
                };
                let volume = self.uint(line, 3, "lun", "LUN number")?;
                let offset = self.uint(line, 4, "offset", "bytes")?;
                let len = self.uint(line, 5, "size", "bytes")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Mqsim | Format::Ssdsim => {
                let time_ns = self.time(line, 0, 1, "ns")?;
                let volume = self.uint(line, 1, "device", "device number")?;
                let offset = self.scaled(line, 2, "lba", "512 B sectors", 512)?;
                let len = self.scaled(line, 3, "size", "512 B sectors", 512)?;
                // Both simulators: 0 = write, 1 = read (MQSim's `Trace_Type`, SSDSim's `ope`).
                let op = match self.get(line, 4, "type")? {
                    b"0" => Op::Write,
                    b"1" => Op::Read,
                    _ => return Err(FieldError::new(4, "type", "`0` (write) or `1` (read)")),
                };
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Disksim => {
                let time_ns = self.time(line, 0, 1_000_000, "milliseconds")?;
                let volume = self.uint(line, 1, "devno", "device number")?;
                let offset = self.scaled(line, 2, "blkno", "512 B sectors", 512)?;
                let len = self.scaled(line, 3, "size", "512 B sectors", 512)?;
                let flags = self.uint(line, 4, "flags", "DiskSim flags, bit 0 = read")?;
                let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Midas => {
                if line[first..].starts_with(b"LOAD_END") {
                    return Ok(Parsed::Ignored);
                }
                if self.n != 4 {
                    return Err(FieldError::new(
                        usize::MAX,
                        "line",
                        format!("4 fields (timestamp type lba size); found {}", self.n),
                    ));
                }
                let time_ns = self.time(line, 0, 1_000_000_000, "seconds")?;
                let op = match self.get(line, 1, "type")? {
                    b"0" => Op::Read,
                    b"1" => Op::Write,
                    b"2" => return Ok(Parsed::Ignored),
                    b"3" => Op::Trim,
                    _ => {
                        return Err(FieldError::new(
                            1,
                            "type",
                            "`0` (read), `1` (write), `2` (other) or `3` (trim)",
                        ))
                    }
                };
                let offset = self.scaled(line, 2, "lba", "4 KiB pages", 4096)?;
                let len = self.uint(line, 3, "size", "bytes")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume: 0,
                    content: 0,
                }))
            }
            Format::Fio2 | Format::Fio3 => {
                let v3 = matches!(self.format, Format::Fio3);
                if self.lines == 1 && line.starts_with(b"fio version") {
                    let want: &[u8] = if v3 {
                        b"fio version 3 iolog"
                    } else {
                        b"fio version 2 iolog"
                    };
                    if line.trim_ascii_end() != want {
                        return Err(FieldError::new(
                            usize::MAX,
                            "header",
                            format!(
                                "`{}` (the header of this iolog version)",
                                String::from_utf8_lossy(want)
                            ),
                        ));
                    }
                    return Ok(Parsed::Blank);
                }
                let b = if v3 { 1 } else { 0 };
                let time_ns = if v3 {
                    self.time(line, 0, 1_000_000, "milliseconds")?
                } else {
                    self.fio_clock
                };
                let file = self.get(line, b, "filename")?;
                let volume = fnv1a(file);
                let act = self.get(line, b + 1, "action")?;
                let op = match act {
                    b"read" => Op::Read,
                    b"write" => Op::Write,
                    b"trim" => Op::Trim,
                    b"add" | b"open" | b"close" | b"sync" | b"datasync" => {
                        return Ok(Parsed::Ignored)
                    }
                    b"wait" => {
                        let us = self.uint(line, b + 2, "delay", "microseconds")?;
                        if !v3 {
                            self.fio_clock = self.fio_clock.saturating_add(us.saturating_mul(1000));
                        }
                        return Ok(Parsed::Ignored);
                    }
                    _ => {
                        return Err(FieldError::new(
                            b + 1,
                            "action",
                            "one of read, write, trim, wait, add, open, close, sync, datasync",
                        ))
                    }
                };
                let offset = self.uint(line, b + 2, "offset", "bytes")?;
                let len = self.uint(line, b + 3, "length", "bytes")?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content: 0,
                }))
            }
            Format::Blkparse(ev) => {
                let ev = *ev;
                // Event lines start with `maj,min`; everything else (per-CPU summaries) is not an event.
                let dev = self.get(line, 0, "device")?;
                let Some(c) = memchr::memchr(b',', dev) else {
                    return Ok(Parsed::Ignored);
                };
                let (Some(maj), Some(min)) = (parse_uint(&dev[..c]), parse_uint(&dev[c + 1..]))
                else {
                    return Ok(Parsed::Ignored);
                };
                if self.n < 7 {
                    return Ok(Parsed::Ignored);
                }
                let act = self.get(line, 5, "action")?;
                if act.len() != 1 || !ev.has(act[0]) {
                    return Ok(Parsed::Ignored);
                }
                let rwbs = self.get(line, 6, "rwbs")?;
                let op = if rwbs.contains(&b'D') {
                    Op::Trim
                } else if rwbs.contains(&b'W') {
                    Op::Write
                } else if rwbs.contains(&b'R') {
                    Op::Read
                } else {
                    // Flushes and other data-less requests.
                    return Ok(Parsed::Ignored);
                };
                if self.n < 10 || self.get(line, 8, "+")? != b"+" {
                    return Err(FieldError::new(
                        7.min(self.n.saturating_sub(1)),
                        "sector",
                        "`SECTOR + NSECTORS` after the RWBS field",
                    ));
                }
                let time_ns = self.time(line, 3, 1_000_000_000, "seconds")?;
                let offset = self.scaled(line, 7, "sector", "512 B sectors", 512)?;
                let len = self.scaled(line, 9, "nsectors", "512 B sectors", 512)?;
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume: (maj << 32) | (min & 0xffff_ffff),
                    content: 0,
                }))
            }
            Format::Generic(g) => {
                if self.lines <= g.header {
                    return Ok(Parsed::Blank);
                }
                let time_ns = match g.ts {
                    Some(i) => self.time(line, i, g.ts_unit_ns, "trace time units")?,
                    None => 0,
                };
                let t = self.get(line, g.op, "op")?;
                let is = |set: &Vec<Vec<u8>>| set.iter().any(|v| eq_ic(v, t));
                let op = if is(&g.write) {
                    Op::Write
                } else if is(&g.trim) {
                    Op::Trim
                } else if g.read.is_empty() || is(&g.read) {
                    Op::Read
                } else {
                    let list = |s: &Vec<Vec<u8>>| {
                        s.iter()
                            .map(|v| String::from_utf8_lossy(v).into_owned())
                            .collect::<Vec<_>>()
                            .join("|")
                    };
                    return Err(FieldError::new(
                        g.op,
                        "op",
                        format!(
                            "write={}, read={}{}",
                            list(&g.write),
                            list(&g.read),
                            if g.trim.is_empty() {
                                String::new()
                            } else {
                                format!(", trim={}", list(&g.trim))
                            }
                        ),
                    ));
                };
                let offset = self.scaled(line, g.offset, "offset", "offset_unit", g.offset_unit)?;
                let len = self.scaled(line, g.size, "size", "size_unit", g.size_unit)?;
                let volume = match g.volume {
                    Some(i) => fnv1a(self.get(line, i, "volume")?),
                    None => 0,
                };
                let content = match g.hash {
                    Some(i) => parse_hash(self.get(line, i, "hash")?).ok_or_else(|| {
                        FieldError::new(i, "hash", "at least 16 hexadecimal digits")
                    })?,
                    None => 0,
                };
                Ok(Parsed::Rec(Rec {
                    time_ns,
                    op,
                    offset,
                    len,
                    volume,
                    content,
                }))
            }
            Format::Fgt => Err(FieldError::new(
                usize::MAX,
                "line",
                "a binary .fgt file, not text",
            )),
        }
    }
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
    let mut fits = Vec::new();
    for cand in candidates() {
        let mut p = LineParser::new(cand.clone());
        let mut recs = 0;
        let mut ok = true;
        for l in lines {
            match p.parse(l) {
                Ok(Parsed::Rec(_)) => recs += 1,
                Ok(_) => {}
                Err(_) => {
                    ok = false;
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
        let shown = String::from_utf8_lossy(&f[..f.len().min(100)]).into_owned();
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
}
