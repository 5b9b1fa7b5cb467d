//! Replay options and the [`TraceWorkload`] that turns records into the simulator's
//! LPN requests: filters, splitting into pages, remapping, looping, time scaling.

use crate::error::TraceError;
use crate::format::VolumeKind;
use crate::input::TraceInput;
use crate::source::{open_input, AnySource, Record, RecordSource};
use flashgc_core::workload::{Op, Request, Workload};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

/// What to do with addresses beyond the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Remap {
    /// Keep addresses; a request beyond the logical capacity is an error.
    #[default]
    None,
    /// Dense renumbering of the pages the trace touches, in order of first touch
    /// (per volume), as the SepBIT artifact does.
    Compact,
    /// Page number modulo the logical capacity.
    Modulo,
}

impl Remap {
    /// Parses `none`, `compact` or `modulo`.
    pub fn parse(s: &str) -> Result<Remap, TraceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(Remap::None),
            "compact" => Ok(Remap::Compact),
            "modulo" | "mod" => Ok(Remap::Modulo),
            _ => Err(TraceError::Option {
                option: "--remap",
                message: format!("`{s}`; allowed: none, compact, modulo"),
            }),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Remap::None => "none",
            Remap::Compact => "compact",
            Remap::Modulo => "modulo",
        }
    }
}

/// Which operations to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ops {
    /// Everything.
    #[default]
    All,
    /// Reads only.
    Read,
    /// Writes only.
    Write,
    /// Writes and trims (no reads).
    NoRead,
}

impl Ops {
    /// Parses `all`, `read`, `write` or `write,trim`.
    pub fn parse(s: &str) -> Result<Ops, TraceError> {
        match s.trim().to_ascii_lowercase().replace(' ', "").as_str() {
            "all" | "rw" | "read,write" | "write,read" => Ok(Ops::All),
            "read" | "r" => Ok(Ops::Read),
            "write" | "w" => Ok(Ops::Write),
            "write,trim" | "trim,write" => Ok(Ops::NoRead),
            _ => Err(TraceError::Option {
                option: "--ops",
                message: format!("`{s}`; allowed: all, read, write, write,trim"),
            }),
        }
    }
    #[inline]
    fn keeps(self, op: Op) -> bool {
        match self {
            Ops::All => true,
            Ops::Read => op == Op::Read,
            Ops::Write => op == Op::Write,
            Ops::NoRead => op != Op::Read,
        }
    }
}

/// A time window relative to the trace's first request, in ns: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    /// Start (inclusive), ns after the first request.
    pub start_ns: u64,
    /// End (exclusive), ns after the first request.
    pub end_ns: u64,
}

impl TimeWindow {
    /// Parses `START..END` with optional units (`ns us ms s m h`; default `s`), e.g.
    /// `10..60`, `500ms..2s`, `1h..`.
    pub fn parse(s: &str) -> Result<TimeWindow, TraceError> {
        let err = |m: String| TraceError::Option {
            option: "--time-window",
            message: m,
        };
        let (a, b) = s.split_once("..").ok_or_else(|| {
            err(format!(
                "`{s}`: expected START..END, e.g. 10..60 (seconds) or 500ms..2s"
            ))
        })?;
        let one = |t: &str, dflt: u64| -> Result<u64, TraceError> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(dflt);
            }
            let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let mul = match unit {
                "ns" => 1.0,
                "us" => 1e3,
                "ms" => 1e6,
                "" | "s" => 1e9,
                "m" | "min" => 60e9,
                "h" => 3600e9,
                _ => {
                    return Err(err(format!(
                        "`{t}`: unknown unit `{unit}`; allowed: ns, us, ms, s, m, h"
                    )))
                }
            };
            let v: f64 = num
                .parse()
                .map_err(|_| err(format!("`{t}` is not a number")))?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(err(format!("`{t}` must be a non-negative time")));
            }
            Ok((v * mul).round().min(u64::MAX as f64) as u64)
        };
        let w = TimeWindow {
            start_ns: one(a, 0)?,
            end_ns: one(b, u64::MAX)?,
        };
        if w.end_ns <= w.start_ns {
            return Err(err(format!("`{s}`: the end must be after the start")));
        }
        Ok(w)
    }
}

/// How to read and replay a trace. Plain data with defaults; the CLI's flags convert into
/// it, and the Python package fills it directly.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOptions {
    /// `--format`: a format name or column map; `None` = auto-detect.
    pub format: Option<String>,
    /// `--blkparse-events`: blkparse actions to replay (default `D`).
    pub blkparse_events: Option<String>,
    /// `--volume`: keep one volume / device / ASU / LUN (`None` = all).
    pub volume: Option<String>,
    /// `--remap`.
    pub remap: Remap,
    /// `--loop-times`: replay the trace this many times (1 = once).
    pub loop_times: u32,
    /// `--loop-until`: replay until this many times the logical capacity has been
    /// written (overrides `loop_times`).
    pub loop_until: Option<f64>,
    /// `--time-scale`: multiply times (relative to the first request) by this factor
    /// (0.5 = twice as fast).
    pub time_scale: f64,
    /// `--ops`.
    pub ops: Ops,
    /// `--time-window`.
    pub time_window: Option<TimeWindow>,
    /// `--skip-bad-lines`: count and skip malformed lines instead of stopping.
    pub skip_bad_lines: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: None,
            blkparse_events: None,
            volume: None,
            remap: Remap::None,
            loop_times: 1,
            loop_until: None,
            time_scale: 1.0,
            ops: Ops::All,
            time_window: None,
            skip_bad_lines: false,
        }
    }
}

impl TraceOptions {
    /// Checks value ranges.
    pub fn check(&self) -> Result<(), TraceError> {
        if self.loop_times == 0 {
            return Err(TraceError::Option {
                option: "--loop-times",
                message: "must be at least 1".into(),
            });
        }
        if let Some(k) = self.loop_until {
            if !(k.is_finite() && k > 0.0 && k <= 1e6) {
                return Err(TraceError::Option {
                    option: "--loop-until",
                    message: format!("{k}: a multiple of the logical capacity in (0, 1e6]"),
                });
            }
        }
        if !(self.time_scale.is_finite() && self.time_scale >= 0.0 && self.time_scale <= 1e9) {
            return Err(TraceError::Option {
                option: "--time-scale",
                message: format!("{}: a factor in [0, 1e9]", self.time_scale),
            });
        }
        Ok(())
    }

    /// Opens the record source these options describe.
    pub fn open(&self, path: &Path) -> Result<AnySource, TraceError> {
        self.open_input(&TraceInput::from(path))
    }

    /// [`Self::open`] for a file or a buffer in memory.
    pub fn open_input(&self, input: &TraceInput) -> Result<AnySource, TraceError> {
        self.check()?;
        open_input(
            input,
            self.format.as_deref(),
            self.blkparse_events.as_deref(),
            self.skip_bad_lines,
        )
    }
}

/// Little-endian u64 at `i` (the caller guarantees `i + 8 <= b.len()`).
#[inline(always)]
fn rd8(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 8) {
        Some(x) => u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]),
        None => 0,
    }
}

/// A fast hasher for page keys (multiply-xorshift; keys are not adversarial).
#[derive(Default, Clone, Copy)]
pub(crate) struct PageHasher(u64);

impl Hasher for PageHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^ (x >> 29)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(29) ^ i).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
}

pub(crate) type PageMap<V> = HashMap<(u64, u64), V, BuildHasherDefault<PageHasher>>;

/// Volume / op / time-window filter, shared by replay and statistics.
pub(crate) struct Filter {
    pub volume: Option<u64>,
    ops: Ops,
    window: Option<TimeWindow>,
    /// Time of the first record in the file (any volume, any op).
    pub first_time: Option<u64>,
}

impl Filter {
    pub fn new(opts: &TraceOptions, src: &dyn RecordSource) -> Result<Filter, TraceError> {
        let volume = match &opts.volume {
            None => None,
            Some(v) => {
                let kind = src.volume_kind();
                if kind == VolumeKind::None {
                    return Err(TraceError::Option {
                        option: "--volume",
                        message: format!("format {} has no volume field", src.format().name()),
                    });
                }
                Some(kind.key_of(v).map_err(|m| TraceError::Option {
                    option: "--volume",
                    message: m,
                })?)
            }
        };
        Ok(Filter {
            volume,
            ops: opts.ops,
            window: opts.time_window,
            first_time: None,
        })
    }

    /// Relative time of `r` if it passes the filter.
    #[inline]
    pub fn keep(&mut self, r: &Record) -> Option<u64> {
        let first = *self.first_time.get_or_insert(r.rec.time_ns);
        let rel = r.rec.time_ns.saturating_sub(first);
        if let Some(v) = self.volume {
            if r.rec.volume != v {
                return None;
            }
        }
        if !self.ops.keeps(r.rec.op) {
            return None;
        }
        if let Some(w) = self.window {
            if rel < w.start_ns || rel >= w.end_ns {
                return None;
            }
        }
        Some(rel)
    }
}

/// A trace replayed as a [`Workload`].
///
/// Looping: with `loop_times = N` the filtered trace is replayed N times; loop `i` is
/// shifted in time by `i * (S + G)`, where `S` is the time span of the (scaled, filtered)
/// trace and `G = S / (n - 1)` its mean inter-arrival time, so a loop starts one mean
/// inter-arrival after the previous one ends. With `loop_until = K` the trace is replayed
/// (same shifts) until exactly `K x logical capacity` pages have been written (the last
/// write is cut short); the workload then reports [`Workload::is_infinite`] = true so the
/// simulation applies its warm-up and steady-state windows, and it also stops by itself,
/// so the run ends at the smaller of `K` and `run.write_volume`. The CLI sets
/// `run.write_volume = K`.
pub struct TraceWorkload {
    src: AnySource,
    filter: Filter,
    lpn_size: u64,
    /// log2(lpn_size) when it is a power of two (it always is in practice): shifts instead
    /// of divisions on the hot path.
    lpn_shift: Option<u32>,
    logical: u64,
    remap: Remap,
    compact: PageMap<u32>,
    next_id: u64,
    loops: u32,
    loop_idx: u32,
    until_pages: Option<u64>,
    written: u64,
    written_this_pass: u64,
    scale: f64,
    first_emit: Option<u64>,
    last_emit: u64,
    emitted_pass0: u64,
    period: u64,
    pending: Vec<Request>,
    pending_pos: usize,
    /// No filter, remap, scaling or write target: `.fgt` replay takes the hot loop.
    plain: bool,
    done: bool,
    volumes: HashSet<u64>,
    last_volume: Option<u64>,
    hash_dropped: u64,
    requests_out: u64,
    opts: TraceOptions,
}

impl TraceWorkload {
    /// Opens `path` for a device of `logical_pages` pages of `lpn_size` bytes. Fails with
    /// [`TraceError::Empty`] when nothing passes the filters.
    pub fn open(
        path: &Path,
        opts: &TraceOptions,
        lpn_size: u32,
        logical_pages: u64,
    ) -> Result<TraceWorkload, TraceError> {
        Self::open_input(&TraceInput::from(path), opts, lpn_size, logical_pages)
    }

    /// [`Self::open`] for a file or a buffer in memory.
    pub fn open_input(
        input: &TraceInput,
        opts: &TraceOptions,
        lpn_size: u32,
        logical_pages: u64,
    ) -> Result<TraceWorkload, TraceError> {
        if lpn_size == 0 || logical_pages == 0 {
            return Err(TraceError::Option {
                option: "--lpn-size",
                message: "the device needs a non-zero LPN size and logical capacity".into(),
            });
        }
        let src = opts.open_input(input)?;
        let filter = Filter::new(opts, &src)?;
        let until_pages = opts
            .loop_until
            .map(|k| ((k * logical_pages as f64).round() as u64).max(1));
        let mut w = TraceWorkload {
            src,
            filter,
            lpn_size: lpn_size as u64,
            lpn_shift: lpn_size
                .is_power_of_two()
                .then(|| lpn_size.trailing_zeros()),
            logical: logical_pages,
            remap: opts.remap,
            compact: PageMap::default(),
            next_id: 0,
            loops: if opts.loop_until.is_some() {
                u32::MAX
            } else {
                opts.loop_times.max(1)
            },
            loop_idx: 0,
            until_pages,
            written: 0,
            written_this_pass: 0,
            scale: opts.time_scale,
            first_emit: None,
            last_emit: 0,
            emitted_pass0: 0,
            period: 0,
            pending: Vec::new(),
            pending_pos: 0,
            plain: opts.remap == Remap::None
                && opts.loop_until.is_none()
                && opts.volume.is_none()
                && opts.ops == Ops::All
                && opts.time_window.is_none()
                && opts.time_scale == 1.0,
            done: false,
            volumes: HashSet::new(),
            last_volume: None,
            hash_dropped: 0,
            requests_out: 0,
            opts: opts.clone(),
        };
        // Read ahead to the first request so an empty trace is reported before a run starts.
        let mut first = Vec::new();
        while first.is_empty() && !w.done {
            w.step(&mut first)?;
        }
        if first.is_empty() {
            return Err(w.empty_error());
        }
        w.pending = first;
        Ok(w)
    }

    fn empty_error(&self) -> TraceError {
        let d = self.src.diagnostics();
        let mut message = if d.requests == 0 {
            format!("the trace holds no requests ({} lines read", d.lines)
        } else {
            format!(
                "no request passes the filters ({} requests read",
                d.requests
            )
        };
        if d.ignored_lines > 0 {
            message.push_str(&format!(", {} lines are not requests", d.ignored_lines));
        }
        if d.zero_length > 0 {
            message.push_str(&format!(", {} zero-length requests skipped", d.zero_length));
        }
        if d.bad_lines > 0 {
            message.push_str(&format!(", {} malformed lines skipped", d.bad_lines));
        }
        message.push(')');
        if let crate::format::Format::Blkparse(e) = self.src.format() {
            message.push_str(&format!(
                "; only blkparse `{}` events are replayed: pass --blkparse-events with the actions this file holds (e.g. Q, D or C)",
                e.letters()
            ));
        }
        TraceError::Empty {
            file: self.src.file().to_string(),
            message,
        }
    }

    /// Diagnostics of reading the trace.
    pub fn diagnostics(&self) -> &crate::source::Diagnostics {
        self.src.diagnostics()
    }

    /// Warnings of this replay (reader diagnostics plus replay-level ones).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.src.diagnostics().warnings();
        if self.filter.volume.is_none() && self.volumes.len() > 1 && self.remap != Remap::Compact {
            w.push(format!(
                "{}{} volumes share one address space; pass --volume to replay one, or --remap compact to keep them apart",
                self.volumes.len(),
                if self.volumes.len() >= 1000 { "+" } else { "" }
            ));
        }
        if self.hash_dropped > 0 {
            w.push(format!(
                "{} requests carried one content hash for several pages; their content was treated as unknown",
                self.hash_dropped
            ));
        }
        w
    }

    /// Requests handed out so far.
    pub fn requests_out(&self) -> u64 {
        self.requests_out
    }

    fn cap_err(&self, r: &Record, first: u64, end: u64) -> TraceError {
        TraceError::Capacity {
            file: self.src.file().to_string(),
            line: r.line,
            message: format!(
                "request at byte offset {} ({} bytes) covers pages {first}..{end}, beyond the device's {} logical pages \
                 of {} bytes; use --remap compact or --remap modulo, --capacity auto, or a larger device",
                r.rec.offset, r.rec.len, self.logical, self.lpn_size
            ),
        }
    }

    /// Reads one record and appends its requests to `out` (none when it is filtered out
    /// or a pass ended).
    #[inline]
    fn step(&mut self, out: &mut Vec<Request>) -> Result<(), TraceError> {
        let next = match &mut self.src {
            AnySource::Fgt(f) => f.next_fast(),
            AnySource::Text(t) => t.next_record()?,
        };
        let Some(r) = next else {
            return self.end_of_pass();
        };
        let Some(rel) = self.filter.keep(&r) else {
            return Ok(());
        };
        if self.last_volume != Some(r.rec.volume) {
            self.last_volume = Some(r.rec.volume);
            if self.volumes.len() < 1000 {
                self.volumes.insert(r.rec.volume);
            }
        }
        let t = if self.scale == 1.0 {
            rel
        } else {
            (rel as f64 * self.scale) as u64
        };
        if self.loop_idx == 0 {
            self.first_emit.get_or_insert(t);
            self.last_emit = t;
            self.emitted_pass0 += 1;
        }
        let time_ns = t.saturating_add((self.loop_idx as u64).saturating_mul(self.period));
        self.emit(&r, time_ns, out)
    }

    fn end_of_pass(&mut self) -> Result<(), TraceError> {
        if self.loop_idx == 0 {
            let first = self.first_emit.unwrap_or(0);
            let span = self.last_emit - first;
            let gap = if self.emitted_pass0 > 1 {
                span / (self.emitted_pass0 - 1)
            } else {
                0
            };
            self.period = span.saturating_add(gap);
        }
        if self.emitted_pass0 == 0 {
            self.done = true;
            return Ok(());
        }
        if self.until_pages.is_some() && self.written_this_pass == 0 {
            return Err(TraceError::Empty {
                file: self.src.file().to_string(),
                message: "--loop-until: the trace (after filters) writes nothing, so the write target is never reached"
                    .into(),
            });
        }
        if self.loop_idx + 1 >= self.loops {
            self.done = true;
            return Ok(());
        }
        self.loop_idx += 1;
        self.written_this_pass = 0;
        self.src.rewind()?;
        self.filter.first_time = None;
        Ok(())
    }

    #[inline]
    fn emit(&mut self, r: &Record, time_ns: u64, out: &mut Vec<Request>) -> Result<(), TraceError> {
        let rec = &r.rec;
        let Some(last_byte) = rec.offset.checked_add(rec.len - 1) else {
            return Err(self.cap_err(r, rec.offset / self.lpn_size, u64::MAX));
        };
        let (first, end) = match self.lpn_shift {
            Some(sh) => (rec.offset >> sh, (last_byte >> sh) + 1),
            None => (rec.offset / self.lpn_size, last_byte / self.lpn_size + 1),
        };
        let n = end - first;
        let content = if rec.content != 0 {
            if n == 1 {
                rec.content
            } else {
                self.hash_dropped += 1;
                0
            }
        } else {
            0
        };
        match self.remap {
            Remap::None => {
                if end > self.logical {
                    return Err(self.cap_err(r, first, end));
                }
                self.push_run(out, rec.op, time_ns, first, n, content);
            }
            Remap::Modulo => {
                // A request longer than the device would write some pages several times
                // over (and split into unboundedly many runs): refuse it.
                if n > self.logical {
                    return Err(TraceError::Capacity {
                        file: self.src.file().to_string(),
                        line: r.line,
                        message: format!(
                            "--remap modulo: a request of {} bytes covers {n} pages, more than the device's {} logical pages of {} bytes; \
                             use a larger device",
                            rec.len, self.logical, self.lpn_size
                        ),
                    });
                }
                let mut p = first % self.logical;
                let mut left = n;
                while left > 0 {
                    let k = left.min(self.logical - p);
                    self.push_run(out, rec.op, time_ns, p, k, content);
                    left -= k;
                    p = 0;
                }
            }
            Remap::Compact => {
                let mut run_start = 0u64;
                let mut run_len = 0u64;
                for page in first..end {
                    let next = self.next_id;
                    let id = *self
                        .compact
                        .entry((rec.volume, page))
                        .or_insert_with(|| next as u32) as u64;
                    if id == next {
                        self.next_id += 1;
                        if id >= self.logical || id >= u32::MAX as u64 {
                            return Err(TraceError::Capacity {
                                file: self.src.file().to_string(),
                                line: r.line,
                                message: format!(
                                    "--remap compact: the trace touches more distinct pages than the device's {} logical pages; \
                                     use --capacity auto or a larger device",
                                    self.logical
                                ),
                            });
                        }
                    }
                    if run_len > 0 && id == run_start + run_len {
                        run_len += 1;
                    } else {
                        if run_len > 0 {
                            self.push_run(out, rec.op, time_ns, run_start, run_len, content);
                        }
                        run_start = id;
                        run_len = 1;
                    }
                }
                if run_len > 0 {
                    self.push_run(out, rec.op, time_ns, run_start, run_len, content);
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn push_run(
        &mut self,
        out: &mut Vec<Request>,
        op: Op,
        time_ns: u64,
        lpn: u64,
        mut n: u64,
        content: u64,
    ) {
        if op == Op::Write {
            if let Some(u) = self.until_pages {
                let left = u - self.written;
                if n >= left {
                    n = left;
                    self.done = true;
                }
                self.written += n;
            }
            self.written_this_pass += n;
        }
        let mut lpn = lpn;
        while n > 0 {
            let k = n.min(u32::MAX as u64);
            out.push(Request {
                time_ns,
                op,
                lpn,
                pages: k as u32,
                content,
            });
            lpn += k;
            n -= k;
        }
    }

    /// The hot loop for `.fgt` replay without filters, remapping, scaling or a write
    /// target: the same result as [`Self::step`], without the per-record branches.
    fn fill_plain_fgt(&mut self, buf: &mut Vec<Request>, limit: usize) -> Result<(), TraceError> {
        let Some(sh) = self.lpn_shift else {
            return Ok(());
        };
        let AnySource::Fgt(f) = &self.src else {
            return Ok(());
        };
        let want = limit.saturating_sub(buf.len());
        let (recs, rs) = f.remaining(want);
        if recs.len() < rs {
            return Ok(());
        }
        let keys = f.keys();
        let logical = self.logical;
        let shift = (self.loop_idx as u64).saturating_mul(self.period);
        let first_time = *self.filter.first_time.get_or_insert(rd8(recs, 0));
        let pass0 = self.loop_idx == 0;
        let mut bad = false;
        let mut done = 0usize;
        let mut t = 0u64;
        buf.reserve(want);
        for b in recs.chunks_exact(rs) {
            let time = rd8(b, 0);
            let offset = rd8(b, 8);
            let len = u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as u64;
            let vi = u16::from_le_bytes([b[20], b[21]]) as usize;
            let op = match b[22] {
                0 => Op::Read,
                1 => Op::Write,
                _ => Op::Trim,
            };
            let lb = match offset.checked_add(len - 1) {
                Some(lb) if (lb >> sh) < logical => lb,
                _ => {
                    bad = true;
                    break;
                }
            };
            let first = offset >> sh;
            let pages = (lb >> sh) + 1 - first;
            let volume = keys.get(vi).copied().unwrap_or(0);
            if self.last_volume != Some(volume) {
                self.last_volume = Some(volume);
                if self.volumes.len() < 1000 {
                    self.volumes.insert(volume);
                }
            }
            t = time.saturating_sub(first_time);
            if pass0 {
                self.first_emit.get_or_insert(t);
            }
            if op == Op::Write {
                self.written_this_pass += pages;
            }
            let c = if rs == crate::fgt::RECORD_BYTES_CONTENT {
                rd8(b, 24)
            } else {
                0
            };
            let content = if pages == 1 {
                c
            } else {
                self.hash_dropped += (c != 0) as u64;
                0
            };
            buf.push(Request {
                time_ns: t.saturating_add(shift),
                op,
                lpn: first,
                pages: pages as u32,
                content,
            });
            done += 1;
        }
        if pass0 && done > 0 {
            self.last_emit = t;
            self.emitted_pass0 += done as u64;
        }
        if let AnySource::Fgt(f) = &mut self.src {
            f.advance(done);
            if bad {
                if let Some(r) = f.next_fast() {
                    return Err(self.cap_err(&r, r.rec.offset >> sh, u64::MAX));
                }
            }
        }
        Ok(())
    }

    /// Fills `buf` with up to `max` requests (the [`Workload`] contract, with the trace
    /// error type).
    pub fn fill_requests(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<(), TraceError> {
        let start = buf.len();
        if self.pending_pos < self.pending.len() {
            let k = max.min(self.pending.len() - self.pending_pos);
            buf.extend_from_slice(&self.pending[self.pending_pos..self.pending_pos + k]);
            self.pending_pos += k;
            if self.pending_pos == self.pending.len() {
                self.pending.clear();
                self.pending_pos = 0;
            }
        }
        if self.plain && matches!(self.src, AnySource::Fgt(_)) {
            self.fill_plain_fgt(buf, start + max)?;
        }
        while buf.len() - start < max && !self.done {
            self.step(buf)?;
        }
        // A record that split into more requests than fit: keep the rest for the next call.
        if buf.len() - start > max {
            self.pending.extend(buf.drain(start + max..));
        }
        self.requests_out += (buf.len() - start) as u64;
        Ok(())
    }
}

impl Workload for TraceWorkload {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> flashgc_core::Result<()> {
        self.fill_requests(buf, max).map_err(Into::into)
    }

    fn describe(&self) -> String {
        let mut s = format!(
            "trace {} (format {}",
            self.src.file(),
            self.src.format().name()
        );
        if let Some(v) = &self.opts.volume {
            s.push_str(&format!(", volume {v}"));
        }
        if self.remap != Remap::None {
            s.push_str(&format!(", remap {}", self.remap.name()));
        }
        if self.opts.ops != Ops::All {
            let ops = match self.opts.ops {
                Ops::All => "all",
                Ops::Read => "read",
                Ops::Write => "write",
                Ops::NoRead => "write,trim",
            };
            s.push_str(&format!(", ops {ops}"));
        }
        if let Some(k) = self.opts.loop_until {
            s.push_str(&format!(
                ", looped until {k} x capacity written ({} passes)",
                self.loop_idx + 1
            ));
        } else if self.loops > 1 {
            s.push_str(&format!(", looped {} times", self.loops));
        }
        if self.scale != 1.0 {
            s.push_str(&format!(", time x{}", self.scale));
        }
        s.push_str(&format!(", {} requests", self.requests_out));
        let w = self.warnings();
        if !w.is_empty() {
            s.push_str("; warnings: ");
            s.push_str(&w.join("; "));
        }
        s.push(')');
        s
    }

    fn is_infinite(&self) -> bool {
        self.until_pages.is_some()
    }
}
