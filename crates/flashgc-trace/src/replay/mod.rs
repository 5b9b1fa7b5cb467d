//! The [`TraceWorkload`] that turns a trace's records into the simulator's LPN requests:
//! filters, splitting into pages, remapping, looping, time scaling. Options are in
//! `options.rs`; the `.fgt` hot loop in `fgt_fast.rs`.

mod fgt_fast;
mod memory;
mod resume;

use crate::error::TraceError;
use crate::filter::{Filter, PageMap};
use crate::input::TraceInput;
use crate::options::{Flushes, Ops, Remap, TraceOptions};
use crate::pipe::PipedSource;
use crate::record::{Record, RecordSource};
use crate::source::AnySource;
use flashgc_core::workload::{Op, Request, Workload};
use std::collections::HashSet;
use std::path::Path;

/// The latest request time a replay may reach, ns (2^62, 146 years): scaled or looped
/// times beyond it would saturate the simulator's nanosecond clock once latencies are
/// added, leaving every later request at the same instant with meaningless latencies.
pub const MAX_TIME_NS: u64 = 1 << 62;

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
    /// Distinct pages `compact` was sized for up front (0: not sized; see `memory.rs`).
    reserved: u64,
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
    /// Trace requests handed out so far over all passes (a request counts when its first
    /// LPN run is handed out): the count of the workload line, as `trace stats` counts.
    records_out: u64,
    /// `pending` starts with the first run of a trace request not counted in
    /// `records_out` yet (the request read ahead when the replay was opened).
    pending_uncounted: bool,
    opts: TraceOptions,
    /// The name [`Workload::describe`] gives the trace, when not the path it was opened by.
    name: Option<String>,
    /// What was opened (a resumed replay reopens it at its position).
    input: TraceInput,
    /// `--trace-flushes`.
    flushes: Flushes,
    /// `--trace-flushes replay` on a trace that can hold flushes, FUA writes or preflush
    /// requests ([`AnySource::carries_flushes`]): only then does the replay take
    /// [`Self::step`]'s tests for them (and the driver its own, [`Workload::may_flush`]).
    may_flush: bool,
    /// Flushes handed out ([`Op::Flush`] requests; a preflush request's included).
    flushes_out: u64,
    /// FUA writes read (trace requests, however many LPN runs they split into).
    fua_out: u64,
    /// The record being emitted is a FUA write (its runs get [`Request::fua`]).
    cur_fua: bool,
    /// The last [`Self::step`] handed out a run of a request (not only a flush).
    stepped_request: bool,
    /// A flush was handed out (the counts then tell flushes from requests).
    flush_seen: bool,
}

/// Notes `volume` among the volumes a replay has handed out requests of (at most 1000
/// kept, for the run's description); `last`, the volume seen last, spares the set lookup
/// for the runs of records of one volume that traces mostly are.
#[inline(always)]
fn note_volume(last: &mut Option<u64>, volumes: &mut HashSet<u64>, volume: u64) {
    if *last != Some(volume) {
        *last = Some(volume);
        if volumes.len() < 1000 {
            volumes.insert(volume);
        }
    }
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

    /// Names the trace `name` in [`Workload::describe`] (and so in a run's result) instead
    /// of the path it was opened by: a resumed run opens a trace given by a relative path
    /// through its absolute path, and its result must name it as the original run did.
    pub fn set_name(&mut self, name: &str) {
        self.name = Some(name.to_string());
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
        let mut src = opts.open_input(input)?;
        // A recording's multi-page writes: one request each, unless each page's fingerprint
        // is needed.
        let joins = match &mut src {
            AnySource::Fgt(f) => {
                f.set_join(!opts.per_page);
                !opts.per_page && f.continuations() > 0
            }
            _ => false,
        };
        let loops = if opts.loop_until.is_some() {
            u32::MAX
        } else {
            opts.loop_times.max(1)
        };
        if opts.pipeline && crate::pipe::worth_it_for(input, opts.pipeline_min_bytes) {
            src = match src {
                AnySource::Text(t) => AnySource::Piped(Box::new(PipedSource::spawn(*t, loops))),
                AnySource::Blk(b) => AnySource::Piped(Box::new(PipedSource::spawn(*b, loops))),
                other => other,
            };
        }
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
            reserved: 0,
            next_id: 0,
            loops,
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
            // The hot loop hands out one request per record.
            plain: !joins
                && opts.remap == Remap::None
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
            records_out: 0,
            pending_uncounted: false,
            opts: opts.clone(),
            name: None,
            input: input.clone(),
            flushes: opts.flushes,
            may_flush: false,
            flushes_out: 0,
            fua_out: 0,
            cur_fua: false,
            stepped_request: false,
            flush_seen: false,
        };
        w.may_flush = w.flushes == Flushes::Replay && w.src.carries_flushes();
        // Read ahead to the first request so an empty trace is reported before a run starts
        // (flushes before it wait with it; a trace of flushes alone is empty).
        let mut first = Vec::new();
        while !first.iter().any(|r: &Request| r.op != Op::Flush) && !w.done {
            match w.may_flush {
                true => w.step::<true>(&mut first)?,
                false => w.step::<false>(&mut first)?,
            }
        }
        if !first.iter().any(|r| r.op != Op::Flush) {
            return Err(w.empty_error());
        }
        w.pending = first;
        w.pending_uncounted = true;
        Ok(w)
    }

    fn empty_error(&self) -> TraceError {
        TraceError::Empty {
            file: self.src.file().to_string(),
            message: self.filter.empty_message(&self.src),
        }
    }

    /// Diagnostics of reading the trace.
    pub fn diagnostics(&self) -> &crate::record::Diagnostics {
        self.src.diagnostics()
    }

    /// Warnings of this replay (reader diagnostics plus replay-level ones).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.src.diagnostics().warnings();
        if let Some(name) = self.name.as_deref().filter(|&n| n != self.src.file()) {
            // The reader names lines by the path it opened (a resumed run's absolute one);
            // the result names them as the trace was given, as the uninterrupted run does.
            let (opened, given) = (format!("{}:", self.src.file()), format!("{name}:"));
            for s in &mut w {
                *s = s.replace(&opened, &given);
            }
        }
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

    /// Requests of the trace read in the first pass so far, after the filters: what
    /// `trace stats` counts as requests. Each hands the simulator one or more LPN runs
    /// (see [`Self::requests_out`]); read-ahead means this can run one record ahead of
    /// what [`Self::fill_requests`] returned.
    pub fn pass_requests(&self) -> u64 {
        self.emitted_pass0
    }

    /// Requests (LPN runs) handed to the simulator so far, over all passes: a trace
    /// request split by `--remap compact` or `modulo` counts once per run.
    pub fn requests_out(&self) -> u64 {
        self.requests_out
    }

    /// Trace requests handed to the simulator so far, over all passes, each counted once
    /// however many LPN runs `--remap` split it into: what `trace stats` counts (per pass)
    /// and what the workload line reports.
    pub fn trace_requests_out(&self) -> u64 {
        self.records_out
    }

    /// Flushes handed to the simulator so far (a preflush request's flush included; none
    /// with `--trace-flushes ignore`), and FUA writes read.
    pub fn flushes_out(&self) -> (u64, u64) {
        (self.flushes_out, self.fua_out)
    }

    /// A request beyond the device; `end == u64::MAX`: one whose last byte is beyond 2^64
    /// (no remapping helps: the line is damaged).
    fn cap_err(&self, r: &Record, first: u64, end: u64) -> TraceError {
        if end == u64::MAX {
            return crate::record::beyond_2_64(self.src.file(), r.line, r.rec.offset, r.rec.len);
        }
        let message = format!(
            "request at byte offset {} ({} bytes) covers pages {first}..{end}, beyond the device's {} logical pages \
             of {} bytes; use --remap compact or --remap modulo, --capacity auto, or a larger device",
            r.rec.offset, r.rec.len, self.logical, self.lpn_size
        );
        TraceError::Capacity {
            file: self.src.file().to_string(),
            line: r.line,
            message,
        }
    }

    /// Reads one record and appends its requests to `out` (none when it is filtered out
    /// or a pass ended). `FLUSHES` is the `may_flush` field: without it the flush records of
    /// a trace replayed with `--trace-flushes ignore` are dropped, and the preflush and FUA
    /// flags are not looked at (a trace that cannot hold them has none), so that the loop
    /// of a trace without flushes keeps none of their tests.
    #[inline]
    fn step<const FLUSHES: bool>(&mut self, out: &mut Vec<Request>) -> Result<(), TraceError> {
        let next = match &mut self.src {
            AnySource::Fgt(f) => f.next_fast(),
            AnySource::Piped(p) => p.next_record()?,
            AnySource::Text(t) => t.next_record()?,
            AnySource::Blk(b) => b.next_record()?,
        };
        let Some(r) = next else {
            return self.end_of_pass();
        };
        let Some(rel) = self.filter.keep(&r) else {
            return Ok(());
        };
        let flush = r.rec.op == Op::Flush;
        if flush && !FLUSHES {
            return Ok(());
        }
        note_volume(&mut self.last_volume, &mut self.volumes, r.rec.volume);
        let t = if self.scale == 1.0 {
            rel
        } else {
            let t = rel as f64 * self.scale;
            if t >= MAX_TIME_NS as f64 {
                return Err(TraceError::Option {
                    option: "--time-scale",
                    message: format!(
                        "{}: line {}: {rel} ns after the first request, times {}, is {t:.3e} ns: beyond the simulation clock ({MAX_TIME_NS} ns, 146 years); use a smaller factor",
                        self.src.file(),
                        r.line,
                        self.scale
                    ),
                });
            }
            t as u64
        };
        // Flushes are not requests (they count apart), but the next loop starts after them.
        if self.loop_idx == 0 {
            self.first_emit.get_or_insert(t);
            self.last_emit = t;
            self.emitted_pass0 += !flush as u64;
        }
        let time_ns = t.saturating_add((self.loop_idx as u64).saturating_mul(self.period));
        if FLUSHES && (flush || r.rec.preflush) {
            // A preflush request is a flush, then the request, as the block layer does it.
            self.flush_seen = true;
            out.push(Request {
                time_ns,
                op: Op::Flush,
                lpn: 0,
                pages: 0,
                content: 0,
                fua: false,
            });
            if flush {
                return Ok(());
            }
        }
        if FLUSHES {
            self.cur_fua = r.rec.fua && r.rec.op == Op::Write;
            self.fua_out += self.cur_fua as u64;
        }
        self.emit::<FLUSHES>(&r, time_ns, out)
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
        // The next pass's times are its shift plus at most pass 0's span (checked here, once
        // per pass, instead of per request).
        let span = self.last_emit - self.first_emit.unwrap_or(0);
        let end = (self.loop_idx as u64 + 1)
            .checked_mul(self.period)
            .and_then(|s| s.checked_add(span));
        if end.is_none_or(|e| e >= MAX_TIME_NS) {
            return Err(TraceError::Option {
                option: if self.until_pages.is_some() {
                    "--loop-until"
                } else {
                    "--loop-times"
                },
                message: format!(
                    "{}: pass {} of the trace ({} ns each, {}) would end beyond the simulation clock ({MAX_TIME_NS} ns, 146 years); \
                     loop fewer times or use a smaller --time-scale (a WAF-only run does not use the times: --time-scale 1e-6 \
                     changes no WAF){}",
                    self.src.file(),
                    self.loop_idx + 2,
                    self.period,
                    human_span(self.period),
                    // blkparse's per-CPU clock artifact makes a trace of seconds span decades.
                    if self.period > 365 * 86_400 * 1_000_000_000 {
                        "; a pass of more than a year usually means one bogus timestamp jump \
                         (`flashgc trace stats` prints the span; --time-window keeps the part before it)"
                    } else {
                        ""
                    }
                ),
            });
        }
        self.loop_idx += 1;
        self.written_this_pass = 0;
        self.src.rewind()?;
        self.filter.first_time = None;
        Ok(())
    }

    /// The requests of record `r` at `time_ns` (`FLUSHES` as in [`Self::step`], whose
    /// instance of `FLUSHES` is then the only caller: inlined there).
    #[inline]
    fn emit<const FLUSHES: bool>(
        &mut self,
        r: &Record,
        time_ns: u64,
        out: &mut Vec<Request>,
    ) -> Result<(), TraceError> {
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
                self.push_run::<FLUSHES>(out, rec.op, time_ns, first, n, content);
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
                    self.push_run::<FLUSHES>(out, rec.op, time_ns, p, k, content);
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
                            self.push_run::<FLUSHES>(
                                out, rec.op, time_ns, run_start, run_len, content,
                            );
                        }
                        run_start = id;
                        run_len = 1;
                    }
                }
                if run_len > 0 {
                    self.push_run::<FLUSHES>(out, rec.op, time_ns, run_start, run_len, content);
                }
            }
        }
        Ok(())
    }

    /// Hands out `n` pages from `lpn` (the part the write target leaves), in runs of at
    /// most `u32::MAX` pages; `FLUSHES` as in [`Self::step`].
    #[inline]
    fn push_run<const FLUSHES: bool>(
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
                fua: FLUSHES && self.cur_fua,
            });
            self.stepped_request = true;
            lpn += k;
            n -= k;
        }
    }

    /// Fills `buf` with up to `max` requests (the [`Workload`] contract, with the trace
    /// error type).
    pub fn fill_requests(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<(), TraceError> {
        let start = buf.len();
        if self.pending_pos < self.pending.len() {
            let k = max.min(self.pending.len() - self.pending_pos);
            if k > 0 && std::mem::take(&mut self.pending_uncounted) {
                self.records_out += 1;
            }
            buf.extend_from_slice(&self.pending[self.pending_pos..self.pending_pos + k]);
            self.pending_pos += k;
            if self.pending_pos == self.pending.len() {
                self.pending.clear();
                self.pending_pos = 0;
            }
        }
        if self.plain {
            // One run per record there (no remap, no write target).
            match &self.src {
                AnySource::Fgt(f) if f.version() == crate::fgt::FGT_VERSION_PLAIN => {
                    self.records_out += self.fill_plain_fgt::<false>(buf, start + max)?;
                }
                AnySource::Fgt(_) => {
                    self.records_out += self.fill_plain_fgt::<true>(buf, start + max)?;
                }
                _ => {}
            }
        }
        match self.may_flush {
            true => self.fill_steps::<true>(buf, start + max)?,
            false => self.fill_steps::<false>(buf, start + max)?,
        }
        // A record that split into more requests than fit: keep the rest for the next call.
        if buf.len() - start > max {
            self.pending.extend(buf.drain(start + max..));
        }
        let flushes = if self.flush_seen {
            buf[start..].iter().filter(|r| r.op == Op::Flush).count()
        } else {
            0
        };
        self.flushes_out += flushes as u64;
        self.requests_out += (buf.len() - start - flushes) as u64;
        Ok(())
    }

    /// The general path of [`Self::fill_requests`]: records read by [`Self::step`] until
    /// `buf` holds `limit` requests or the replay ends.
    fn fill_steps<const FLUSHES: bool>(
        &mut self,
        buf: &mut Vec<Request>,
        limit: usize,
    ) -> Result<(), TraceError> {
        while buf.len() < limit && !self.done {
            // A record's first run always lands in the part handed out now (the loop runs
            // only while there is room); the rest of a split record may wait in `pending`.
            self.stepped_request = false;
            self.step::<FLUSHES>(buf)?;
            self.records_out += self.stepped_request as u64;
        }
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
            self.name.as_deref().unwrap_or(self.src.file()),
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
        // Trace requests, as `trace stats` counts them; a remap may split one into several
        // LPN runs (the simulator's requests), said beside when it did.
        s.push_str(&format!(", {} requests", self.records_out));
        if self.requests_out != self.records_out {
            s.push_str(&format!(" ({} LPN runs)", self.requests_out));
        }
        // Said only for traces that have them (other results stay as they were).
        if self.flushes_out > 0 {
            s.push_str(&format!(", {} flushes", self.flushes_out));
        }
        if self.fua_out > 0 {
            s.push_str(&format!(", {} FUA writes", self.fua_out));
        }
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

    fn may_flush(&self) -> bool {
        self.may_flush
    }

    fn memory(&self) -> Vec<(String, u64)> {
        self.memory_items()
    }

    fn save_position(&self) -> Option<Vec<u8>> {
        self.position()
    }

    fn load_position(&mut self, state: &[u8]) -> flashgc_core::Result<()> {
        self.seek_to(state).map_err(Into::into)
    }
}

/// `ns` in the largest unit that keeps it readable (s, h, days, years), for messages.
fn human_span(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s < 3600.0 {
        format!("{s:.3} s")
    } else if s < 86_400.0 * 2.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s < 86_400.0 * 365.0 * 2.0 {
        format!("{:.1} days", s / 86_400.0)
    } else {
        format!("{:.1} years", s / (86_400.0 * 365.25))
    }
}
