//! Trace statistics (`flashgc trace stats`) and volume listing (`flashgc trace volumes`).
//!
//! Counts are streamed; the footprint and update-interval statistics keep runs of pages
//! that share a state ([`PageRuns`]), so their memory grows with the number of such runs
//! (at most about two per request, and at most one per distinct page), never with the
//! pages a single request spans. The duplicate statistics keep one entry per distinct
//! content hash.

use crate::error::TraceError;
use crate::filter::Filter;
use crate::input::TraceInput;
use crate::options::TraceOptions;
use crate::record::{Diagnostics, RecordSource};
use crate::runs::{PageRuns, RunState};
use flashgc_core::workload::Op;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// One size-histogram bucket: requests of `(prev, upto_bytes]` bytes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SizeBucket {
    /// Label, e.g. `<=4KiB` or `>1MiB`.
    pub size: String,
    /// Upper bound in bytes (`None` for the last, open bucket).
    pub upto_bytes: Option<u64>,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
}

/// One update-interval bucket: rewrites of a page `[from, to)` page writes after its
/// previous write.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IntervalBucket {
    /// Lower bound (inclusive), in written pages.
    pub from: u64,
    /// Upper bound (exclusive), in written pages.
    pub to: u64,
    /// Rewrites in the bucket.
    pub count: u64,
    /// Share of all rewrites.
    pub fraction: f64,
}

/// The update-interval distribution (UID, MiDAS §4.3): for every page write that
/// overwrites a page written earlier in the trace, the number of page writes since that
/// page's previous write (time measured in user-written pages, as MiDAS does).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UpdateIntervals {
    /// Page writes that overwrite an earlier write.
    pub rewrites: u64,
    /// Page writes to pages not written before in the trace.
    pub first_writes: u64,
    /// Mean interval (None without rewrites).
    pub mean: Option<f64>,
    /// Log2 buckets.
    pub buckets: Vec<IntervalBucket>,
}

/// Duplicate content among written pages (traces with content hashes only).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Duplicates {
    /// Written pages that carry a hash.
    pub written_pages_with_hash: u64,
    /// Distinct hashes among them.
    pub distinct_hashes: u64,
    /// `1 - distinct / written` (share of written pages whose content was written before).
    pub duplicate_ratio: f64,
}

/// Statistics of one trace (after the volume / op / time-window filters).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceStats {
    /// The trace file as given (path, or the name of a buffer in memory).
    pub file: String,
    /// The format's `--format` name, as detected or given.
    pub format: String,
    /// Page size used for footprints and intervals, bytes.
    pub page_bytes: u32,
    /// Requests (reads + writes + trims).
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Trim requests.
    pub trims: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Bytes trimmed.
    pub trim_bytes: u64,
    /// reads / (reads + writes); None for a trace without reads and writes.
    pub read_fraction: Option<f64>,
    /// Lowest start byte.
    pub min_offset: Option<u64>,
    /// Highest end byte.
    pub max_end: Option<u64>,
    /// Distinct pages touched (by address, volumes sharing one address space: what a replay
    /// without `--volume` and `--remap compact` touches).
    pub pages: u64,
    /// Distinct pages read (by address).
    pub pages_read: u64,
    /// Distinct pages written (by address).
    pub pages_written: u64,
    /// Distinct (volume, page) pairs: what `--remap compact` needs.
    pub volume_pages: u64,
    /// Time from the first to the last request, seconds.
    pub span_s: f64,
    /// Distinct volumes (devices, disks, LUNs, ASUs) among the kept requests.
    pub volumes: u64,
    /// Request size histogram.
    pub size_histogram: Vec<SizeBucket>,
    /// Share of reads starting where the previous read (same volume) ended.
    pub sequential_reads: Option<f64>,
    /// Share of writes starting where the previous write (same volume) ended.
    pub sequential_writes: Option<f64>,
    /// Update-interval distribution.
    pub update_intervals: UpdateIntervals,
    /// Duplicate content, when the trace has hashes.
    pub duplicates: Option<Duplicates>,
    /// Reader diagnostics (skipped lines, warnings).
    pub diagnostics: Diagnostics,
    /// Human-readable warnings.
    pub warnings: Vec<String>,
    /// Flushes (blkparse `FN`, fio `sync` / `datasync`, `.fgt` flush records, and the flush
    /// of a preflush request, RWBS `FW...`); not requests. Left out of the JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub flushes: u64,
    /// Writes with Force Unit Access (RWBS `WF...`); counted in `writes` too. Left out of
    /// the JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub fua_writes: u64,
    /// Write records that continue the write before them (`.fgt` version 3: a write recorded
    /// one page per record), counted in that write's request and size. Left out of the JSON
    /// when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub continuations: u64,
    /// Why no request is counted, when none is (what the file held, and the hint for
    /// blkparse events or an absent `--volume`); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

const SIZE_BOUNDS: [u64; 9] = [
    4096,
    8192,
    16384,
    32768,
    65536,
    131072,
    262144,
    524288,
    1 << 20,
];

fn size_label(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{}MiB", b >> 20)
    } else {
        format!("{}KiB", b >> 10)
    }
}

/// Page flag: read.
const READ: u8 = 1;
/// Page flag: written.
const WRITTEN: u8 = 2;

/// The state of a (volume, page) in the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct PageState {
    /// [`READ`] and [`WRITTEN`].
    flags: u8,
    /// The page write (counted over the trace, from 1) that wrote the page last; 0 when
    /// never written.
    last_write: u64,
}

impl RunState for PageState {
    fn advance(self, pages: u64) -> PageState {
        // Pages of one written run were written one after another.
        if self.flags & WRITTEN != 0 {
            PageState {
                last_write: self.last_write + pages,
                ..self
            }
        } else {
            self
        }
    }
}

/// The flags of the pages of `pages`, by address (for a trace of one volume so far).
fn address_runs(pages: &PageRuns<PageState>) -> PageRuns<u8> {
    let mut a = PageRuns::default();
    for (start, end, st) in pages.runs() {
        a.update(0, start, end, |_, _, old| old.unwrap_or(0) | st.flags);
    }
    a
}

/// The size-histogram bucket of a request of `len` bytes (the last: larger than every bound).
fn size_bucket(len: u64) -> usize {
    SIZE_BOUNDS
        .iter()
        .position(|&u| len <= u)
        .unwrap_or(SIZE_BOUNDS.len())
}

/// Computes the statistics of `path` with pages of `page_bytes` (4096 in the README).
pub fn stats(path: &Path, opts: &TraceOptions, page_bytes: u32) -> Result<TraceStats, TraceError> {
    stats_input(&TraceInput::from(path), opts, page_bytes)
}

/// [`stats()`] for a file or a buffer in memory.
pub fn stats_input(
    input: &TraceInput,
    opts: &TraceOptions,
    page_bytes: u32,
) -> Result<TraceStats, TraceError> {
    if page_bytes == 0 {
        return Err(TraceError::Option {
            // The option of `flashgc trace stats` that sets it.
            option: "--page-size",
            message: "0: the page size must be a positive number of bytes".into(),
        });
    }
    let pb = page_bytes as u64;
    let mut src = opts.open_input(input)?;
    let mut filter = Filter::new(opts, &src)?;
    let mut s = TraceStats {
        file: input.name(),
        format: src.format().name(),
        page_bytes,
        requests: 0,
        reads: 0,
        writes: 0,
        trims: 0,
        read_bytes: 0,
        write_bytes: 0,
        trim_bytes: 0,
        read_fraction: None,
        min_offset: None,
        max_end: None,
        pages: 0,
        pages_read: 0,
        pages_written: 0,
        volume_pages: 0,
        span_s: 0.0,
        volumes: 0,
        size_histogram: Vec::new(),
        sequential_reads: None,
        sequential_writes: None,
        update_intervals: UpdateIntervals {
            rewrites: 0,
            first_writes: 0,
            mean: None,
            buckets: Vec::new(),
        },
        duplicates: None,
        diagnostics: Diagnostics::default(),
        warnings: Vec::new(),
        flushes: 0,
        fua_writes: 0,
        continuations: 0,
        empty: None,
    };
    let mut hist = vec![(0u64, 0u64); SIZE_BOUNDS.len() + 1];
    // Per (volume, page): read / written flags and the index of the last write.
    let mut pages: PageRuns<PageState> = PageRuns::default();
    // Per page address (volumes sharing one address space): the same flags. Kept from the
    // second volume on; until then it would equal `pages` (half the work for one volume).
    let mut by_addr: Option<PageRuns<u8>> = None;
    let mut first_volume: Option<u64> = None;
    let mut last_end: std::collections::HashMap<(u64, u8), u64> = std::collections::HashMap::new();
    let (mut seq_r, mut seq_w) = (0u64, 0u64);
    let mut page_writes: u64 = 0;
    let mut ib = [0u64; 64];
    // Summed exactly (the per-page f64 sum it replaces was exact, and equal, below 2^53).
    let mut interval_sum: u128 = 0;
    let mut hashes: HashSet<u64> = HashSet::new();
    let mut hashed_writes: u64 = 0;
    let mut vols: HashSet<u64> = HashSet::new();
    let (mut t_first, mut t_last): (Option<u64>, u64) = (None, 0);
    // The write request a continuation record (`.fgt` version 3: a recorded write, one
    // page per record) extends: its size bucket and length so far. Sizes, counts and
    // sequentiality are those of the requests as the application sent them.
    let mut open_write: Option<(usize, u64)> = None;
    while let Some(r) = src.next_record()? {
        let Some(rel) = filter.keep(&r) else { continue };
        let rec = r.rec;
        if rec.op == Op::Flush {
            s.flushes += 1;
            open_write = None;
            continue;
        }
        let cont = rec.cont && rec.op == Op::Write && open_write.is_some();
        s.flushes += rec.preflush as u64;
        s.fua_writes += (rec.fua && rec.op == Op::Write && !cont) as u64;
        t_first.get_or_insert(rel);
        t_last = t_last.max(rel);
        vols.insert(rec.volume);
        s.requests += !cont as u64;
        s.continuations += cont as u64;
        let end = r.end_byte(src.file())?;
        s.min_offset = Some(s.min_offset.map_or(rec.offset, |m| m.min(rec.offset)));
        s.max_end = Some(s.max_end.map_or(end, |m| m.max(end)));
        let b = size_bucket(rec.len);
        let opk = match rec.op {
            Op::Read => 0u8,
            Op::Write => 1,
            Op::Trim | Op::Flush => 2,
        };
        let prev = last_end.insert((rec.volume, opk), end);
        let sequential = prev == Some(rec.offset);
        match rec.op {
            Op::Read => {
                s.reads += 1;
                s.read_bytes += rec.len;
                hist[b].0 += 1;
                seq_r += sequential as u64;
                open_write = None;
            }
            Op::Write => {
                s.write_bytes += rec.len;
                match (cont, open_write.as_mut()) {
                    (true, Some((ob, olen))) => {
                        hist[*ob].1 -= 1;
                        *olen += rec.len;
                        *ob = size_bucket(*olen);
                        hist[*ob].1 += 1;
                    }
                    _ => {
                        s.writes += 1;
                        hist[b].1 += 1;
                        seq_w += sequential as u64;
                        open_write = Some((b, rec.len));
                    }
                }
            }
            Op::Trim | Op::Flush => {
                s.trims += 1;
                s.trim_bytes += rec.len;
                open_write = None;
            }
        }
        let first = rec.offset / pb;
        let last = end.div_ceil(pb);
        if rec.op == Op::Write && rec.content != 0 {
            hashed_writes += 1;
            hashes.insert(rec.content);
        }
        let flag = match rec.op {
            Op::Read => READ,
            Op::Write => WRITTEN,
            Op::Trim | Op::Flush => 0,
        };
        if by_addr.is_none() && *first_volume.get_or_insert(rec.volume) != rec.volume {
            by_addr = Some(address_runs(&pages));
        }
        if let Some(a) = &mut by_addr {
            a.update(0, first, last, |_, _, old| old.unwrap_or(0) | flag);
        }
        // Pages are written in order: page p of this request is page write
        // `w0 + 1 + (p - first)` of the trace.
        let w0 = page_writes;
        let ui = &mut s.update_intervals;
        pages.update(rec.volume, first, last, |ps, pe, old| {
            let o = old.unwrap_or_default();
            if rec.op != Op::Write {
                return PageState {
                    flags: o.flags | flag,
                    ..o
                };
            }
            let n = pe - ps;
            let idx = w0 + 1 + (ps - first);
            if o.flags & WRITTEN != 0 {
                // Both write indexes advance by one per page, so every page of the piece
                // was rewritten after the same interval.
                let iv = idx - o.last_write;
                ib[63 - iv.leading_zeros() as usize] += n;
                interval_sum += iv as u128 * n as u128;
                ui.rewrites += n;
            } else {
                ui.first_writes += n;
            }
            PageState {
                flags: o.flags | WRITTEN,
                last_write: idx,
            }
        });
        if rec.op == Op::Write {
            page_writes += last - first;
        }
    }
    s.diagnostics = src.diagnostics().clone();
    s.warnings = s.diagnostics.warnings();
    if s.requests == 0 {
        s.empty = Some(filter.empty_message(&src));
    }
    s.volume_pages = pages.pages();
    let by_addr = by_addr.unwrap_or_else(|| address_runs(&pages));
    s.pages = by_addr.pages();
    for (start, end, flags) in by_addr.runs() {
        s.pages_read += (flags & READ != 0) as u64 * (end - start);
        s.pages_written += (flags & WRITTEN != 0) as u64 * (end - start);
    }
    s.volumes = vols.len() as u64;
    s.span_s = t_first.map_or(0.0, |f| (t_last - f) as f64 / 1e9);
    if s.reads + s.writes > 0 {
        s.read_fraction = Some(s.reads as f64 / (s.reads + s.writes) as f64);
    }
    if s.reads > 0 {
        s.sequential_reads = Some(seq_r as f64 / s.reads as f64);
    }
    if s.writes > 0 {
        s.sequential_writes = Some(seq_w as f64 / s.writes as f64);
    }
    let mut lo = 0u64;
    for (i, &(r, w)) in hist.iter().enumerate() {
        let (label, upto) = match SIZE_BOUNDS.get(i) {
            Some(&u) => (format!("{}..{}", size_label(lo), size_label(u)), Some(u)),
            None => (format!(">{}", size_label(lo)), None),
        };
        if i == 0 {
            s.size_histogram.push(SizeBucket {
                size: format!("<={}", size_label(SIZE_BOUNDS[0])),
                upto_bytes: upto,
                reads: r,
                writes: w,
            });
        } else {
            s.size_histogram.push(SizeBucket {
                size: label,
                upto_bytes: upto,
                reads: r,
                writes: w,
            });
        }
        if let Some(u) = upto {
            lo = u;
        }
    }
    let rw = s.update_intervals.rewrites;
    if rw > 0 {
        s.update_intervals.mean = Some(interval_sum as f64 / rw as f64);
        for (k, &c) in ib.iter().enumerate() {
            if c > 0 {
                s.update_intervals.buckets.push(IntervalBucket {
                    from: 1u64 << k,
                    to: if k == 63 { u64::MAX } else { 1u64 << (k + 1) },
                    count: c,
                    fraction: c as f64 / rw as f64,
                });
            }
        }
    }
    if hashed_writes > 0 {
        s.duplicates = Some(Duplicates {
            written_pages_with_hash: hashed_writes,
            distinct_hashes: hashes.len() as u64,
            duplicate_ratio: 1.0 - hashes.len() as f64 / hashed_writes as f64,
        });
    }
    Ok(s)
}

impl TraceStats {
    /// A human-readable report.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1} %", v * 100.0));
        o.push_str(&format!(
            "trace      {}\nformat     {}\n",
            self.file, self.format
        ));
        if self.requests == 0 {
            match &self.empty {
                Some(m) => o.push_str(&format!("{m}\n")),
                None => o.push_str("the trace holds no requests (after filters)\n"),
            }
        }
        o.push_str(&format!(
            "requests   {} (reads {}, writes {}, trims {}); read share {}\n",
            self.requests,
            self.reads,
            self.writes,
            self.trims,
            pct(self.read_fraction)
        ));
        if self.flushes > 0 || self.fua_writes > 0 {
            o.push_str(&format!(
                "flushes    {} (not requests); FUA writes {}\n",
                self.flushes, self.fua_writes
            ));
        }
        if self.continuations > 0 {
            o.push_str(&format!(
                "recorded   {} more write records continue the write before them (one per page, \
                 .fgt version 3): counted in that write\n",
                self.continuations
            ));
        }
        o.push_str(&format!(
            "bytes      read {} ({:.3} GiB), written {} ({:.3} GiB), trimmed {}\n",
            self.read_bytes,
            self.read_bytes as f64 / (1u64 << 30) as f64,
            self.write_bytes,
            self.write_bytes as f64 / (1u64 << 30) as f64,
            self.trim_bytes
        ));
        o.push_str(&format!(
            "footprint  {} distinct {}-byte pages ({} read, {} written) = {:.3} GiB; addresses {}..{}\n",
            self.pages,
            self.page_bytes,
            self.pages_read,
            self.pages_written,
            self.pages as f64 * self.page_bytes as f64 / (1u64 << 30) as f64,
            self.min_offset.map_or("-".into(), |v| v.to_string()),
            self.max_end.map_or("-".into(), |v| v.to_string())
        ));
        o.push_str(&format!(
            "span       {:.6} s; volumes {} ({} distinct volume pages)\n",
            self.span_s, self.volumes, self.volume_pages
        ));
        o.push_str(&format!(
            "sequential reads {}, writes {}\n",
            pct(self.sequential_reads),
            pct(self.sequential_writes)
        ));
        o.push_str("sizes      (bucket: reads / writes)\n");
        for b in &self.size_histogram {
            if b.reads + b.writes > 0 {
                o.push_str(&format!("  {:>14}: {} / {}\n", b.size, b.reads, b.writes));
            }
        }
        let u = &self.update_intervals;
        o.push_str(&format!(
            "update intervals (in written pages): {} rewrites, {} first writes, mean {}\n",
            u.rewrites,
            u.first_writes,
            u.mean.map_or("-".into(), |m| format!("{m:.1}"))
        ));
        for b in &u.buckets {
            o.push_str(&format!(
                "  [{}, {}): {} ({:.1} %)\n",
                b.from,
                b.to,
                b.count,
                b.fraction * 100.0
            ));
        }
        if let Some(d) = &self.duplicates {
            o.push_str(&format!(
                "duplicates {} hashed page writes, {} distinct contents, duplicate ratio {:.4}\n",
                d.written_pages_with_hash, d.distinct_hashes, d.duplicate_ratio
            ));
        }
        if self.diagnostics.ignored_lines > 0 {
            o.push_str(&format!(
                "ignored    {} lines that are not requests\n",
                self.diagnostics.ignored_lines
            ));
        }
        for w in &self.warnings {
            o.push_str(&format!("warning    {w}\n"));
        }
        o
    }
}

/// One volume of a multi-volume trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct VolumeInfo {
    /// Name to pass to `--volume`.
    pub volume: String,
    /// Requests.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Highest end byte (the smallest device that holds the volume).
    pub size_bytes: u64,
}

/// Lists the volumes of a trace (ordered by name; numeric names numerically).
pub fn volumes(path: &Path, opts: &TraceOptions) -> Result<Vec<VolumeInfo>, TraceError> {
    volumes_input(&TraceInput::from(path), opts)
}

/// [`volumes`] for a file or a buffer in memory.
pub fn volumes_input(
    input: &TraceInput,
    opts: &TraceOptions,
) -> Result<Vec<VolumeInfo>, TraceError> {
    let mut o = opts.clone();
    o.volume = None;
    let mut src = o.open_input(input)?;
    let mut filter = Filter::new(&o, &src)?;
    let mut m: std::collections::HashMap<u64, VolumeInfo> = std::collections::HashMap::new();
    while let Some(r) = src.next_record()? {
        if filter.keep(&r).is_none() || r.rec.op == Op::Flush {
            continue;
        }
        let v = m.entry(r.rec.volume).or_insert_with(|| VolumeInfo {
            volume: String::new(),
            requests: 0,
            reads: 0,
            writes: 0,
            read_bytes: 0,
            write_bytes: 0,
            size_bytes: 0,
        });
        // A continuation record (a recorded write's next page) is part of the request before.
        let new = !r.rec.cont as u64;
        v.requests += new;
        match r.rec.op {
            Op::Read => {
                v.reads += 1;
                v.read_bytes += r.rec.len;
            }
            Op::Write => {
                v.writes += new;
                v.write_bytes += r.rec.len;
            }
            Op::Trim | Op::Flush => {}
        }
        v.size_bytes = v.size_bytes.max(r.end_byte(src.file())?);
    }
    // Keyed by the volume key too: two keys may carry one name (a `.fgt` volume table
    // holds any names), and both are listed, in the same order in every run.
    let mut sorted: BTreeMap<(u64, String, u64), VolumeInfo> = BTreeMap::new();
    for (k, mut v) in m {
        v.volume = src.volume_name(k);
        let num = v.volume.parse::<u64>().unwrap_or(u64::MAX);
        sorted.insert((num, v.volume.clone(), k), v);
    }
    Ok(sorted.into_values().collect())
}

/// The pages a trace needs, for sizing a device (`--capacity auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Footprint {
    /// Distinct pages touched (per volume): the capacity `--remap compact` needs.
    pub distinct_pages: u64,
    /// One past the highest page touched: the capacity without remapping.
    pub max_end_page: u64,
}

/// Computes the footprint of `path` in pages of `page_bytes` after the filters.
pub fn footprint(
    path: &Path,
    opts: &TraceOptions,
    page_bytes: u32,
) -> Result<Footprint, TraceError> {
    footprint_input(&TraceInput::from(path), opts, page_bytes)
}

/// [`footprint`] for a file or a buffer in memory.
pub fn footprint_input(
    input: &TraceInput,
    opts: &TraceOptions,
    page_bytes: u32,
) -> Result<Footprint, TraceError> {
    let pb = page_bytes.max(1) as u64;
    let mut src = opts.open_input(input)?;
    let mut filter = Filter::new(opts, &src)?;
    let mut pages: PageRuns<()> = PageRuns::default();
    let mut max_end = 0u64;
    while let Some(r) = src.next_record()? {
        if filter.keep(&r).is_none() || r.rec.op == Op::Flush {
            continue;
        }
        let first = r.rec.offset / pb;
        let end = r.end_byte(src.file())?.div_ceil(pb);
        max_end = max_end.max(end);
        pages.update(r.rec.volume, first, end, |_, _, _| ());
    }
    let distinct_pages = pages.pages();
    if distinct_pages == 0 {
        return Err(TraceError::Empty {
            file: src.file().to_string(),
            message: filter.empty_message(&src),
        });
    }
    Ok(Footprint {
        distinct_pages,
        max_end_page: max_end,
    })
}
