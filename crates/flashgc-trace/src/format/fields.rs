//! The line parser's machinery: splitting a line into fields (comma or whitespace
//! separated) without allocating, and the exact number parsers (integers, decimal times
//! without floating point, hex hashes) every format uses, with field-naming errors.

use super::{Format, Parsed, Sep, MAX_REQUEST_BYTES};
use crate::error::FieldError;

/// Fields kept per line (later fields are counted, not stored).
const MAXF: usize = 16;

/// Line parser: holds the format and scratch space for field positions.
pub(crate) struct LineParser {
    /// The format parsed.
    pub format: Format,
    sep: Sep,
    /// Start and end byte of each field of the current line (the first [`MAXF`]).
    f: [(u32, u32); MAXF],
    /// Number of fields of the current line (may exceed [`MAXF`]).
    pub(super) n: usize,
    /// fio v2: accumulated `wait` time in ns.
    pub(super) fio_clock: u64,
    /// Lines seen (for generic `header=N` and header lines).
    pub(super) lines: u64,
}

#[inline(always)]
pub(super) fn parse_uint(s: &[u8]) -> Option<u64> {
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
pub(super) fn parse_time(s: &[u8], unit_ns: u64) -> Option<u64> {
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
    if frac.is_empty() {
        if int.is_empty() {
            return None;
        }
        return i.checked_mul(unit_ns);
    }
    if !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let d = &frac[..frac.len().min(18)];
    let f = parse_uint(d)?;
    let scale = POW10[d.len()];
    // The common case (seconds or ms with up to 9 or 6 decimals): the unit is a multiple
    // of 10^digits, so the fraction converts exactly without a 128-bit division.
    if unit_ns % scale == 0 {
        return i
            .checked_mul(unit_ns)?
            .checked_add(f.checked_mul(unit_ns / scale)?);
    }
    let ns = i as u128 * unit_ns as u128 + f as u128 * unit_ns as u128 / scale as u128;
    u64::try_from(ns).ok()
}

/// 10^k for k = 0..=18.
const POW10: [u64; 19] = {
    let mut t = [1u64; 19];
    let mut k = 1;
    while k < 19 {
        t[k] = t[k - 1] * 10;
        k += 1;
    }
    t
};

/// First 16 hex digits of a hash as a big-endian u64 (the first 8 bytes of an MD5).
pub(super) fn parse_hash(s: &[u8]) -> Option<u64> {
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

#[inline]
pub(super) fn eq_ic(a: &[u8], b: &[u8]) -> bool {
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

    /// The state after line `lines` whose record had time `last_time` (a resumed replay):
    /// fio v2's clock is the last request's time, as it was when that line was parsed.
    pub fn resume_at(&mut self, lines: u64, last_time: Option<u64>) {
        self.lines = lines;
        if self.format == Format::Fio2 {
            self.fio_clock = last_time.unwrap_or(0);
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
    pub(super) fn get<'a>(
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
    pub(super) fn uint(
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
    pub(super) fn scaled(
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

    /// A request length of `mul`-byte units, at most [`MAX_REQUEST_BYTES`] bytes (what
    /// `.fgt` and blktrace records hold; a longer one is a malformed line, not a request
    /// whose page-by-page statistics or replay would never end).
    #[inline(always)]
    pub(super) fn length(
        &self,
        line: &[u8],
        i: usize,
        name: &'static str,
        unit: &'static str,
        mul: u64,
    ) -> Result<u64, FieldError> {
        let v = self.uint(line, i, name, unit)?;
        match v.checked_mul(mul) {
            Some(b) if b <= MAX_REQUEST_BYTES => Ok(b),
            _ => {
                // The field's own unit, unless it is the bytes the limit is given in.
                let of = match unit {
                    "bytes" => String::new(),
                    u => format!(" (the field counts {u})"),
                };
                Err(FieldError::new(
                    i,
                    name,
                    format!(
                        "a request length of at most 4 GiB - 1 = {MAX_REQUEST_BYTES} bytes{of}"
                    ),
                ))
            }
        }
    }

    #[inline(always)]
    pub(super) fn time(
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
            Format::Msr => self.msr(line),
            Format::Fiu => self.fiu(line),
            Format::Alibaba => self.alibaba(line),
            Format::Tencent => self.tencent(line),
            Format::Spc => self.spc(line),
            Format::Systor => self.systor(line),
            Format::Mqsim | Format::Ssdsim => self.mqsim(line),
            Format::Disksim => self.disksim(line),
            Format::Midas => self.midas(line, first),
            Format::Fio2 => self.fio(line, false),
            Format::Fio3 => self.fio(line, true),
            Format::Blkparse(ev) => {
                let ev = *ev;
                self.blkparse(line, ev)
            }
            Format::Generic(g) => self.generic(line, g),
            Format::Fgt => Err(FieldError::new(
                usize::MAX,
                "line",
                "a binary .fgt file, not text",
            )),
        }
    }
}
