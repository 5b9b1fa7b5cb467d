//! `flashgc trace ...` (stats, volumes, convert, head) and opening `trace:PATH` workloads.
//! The work is done by the `flashgc-trace` library; this file only maps flags onto
//! [`TraceOptions`] and prints.

use flashgc_core::workload::{Op, Workload};
use flashgc_core::Config;
use flashgc_trace::{Flushes, Ops, Remap, TimeWindow, TraceError, TraceOptions};
use std::path::Path;

/// Flags that choose how a trace is read (shared by `run`/`compare` and `trace ...`).
#[derive(Debug, Clone, clap::Args, Default)]
pub struct ReadFlags {
    /// Trace format (auto-detected when unambiguous): msr, fiu, alibaba, tencent, spc,
    /// systor, mqsim, ssdsim, disksim, midas, fio2, fio3, blkparse, fgt, or a column map
    /// such as csv:ts=1,op=4,offset=5,size=6,offset_unit=byte,ts_unit=100ns,write=Write,read=Read.
    #[arg(long)]
    pub format: Option<String>,
    /// blkparse actions replayed as requests: D (issued to the driver, default), Q (queued), C (completed).
    #[arg(long)]
    pub blkparse_events: Option<String>,
    /// Keep one volume / device / ASU / LUN (names as listed by `flashgc trace volumes`).
    #[arg(long)]
    pub volume: Option<String>,
    /// Keep only these operations: all, read, write, write,trim.
    #[arg(long)]
    pub ops: Option<String>,
    /// Keep requests in START..END after the first request (units ns, us, ms, s, m, h; default s), e.g. 10..60.
    #[arg(long)]
    pub time_window: Option<String>,
    /// Count and skip malformed lines instead of stopping at the first.
    #[arg(long)]
    pub skip_bad_lines: bool,
}

/// Trace-reading flags shared by every command that can take `--workload trace:PATH`.
#[derive(Debug, Clone, clap::Args, Default)]
pub struct TraceFlags {
    #[command(flatten)]
    pub read: ReadFlags,
    /// Addresses beyond the device: none (error), compact (dense renumbering of touched pages), modulo.
    #[arg(long)]
    pub remap: Option<String>,
    /// `auto`: size the device's logical capacity from the trace's footprint (with --remap
    /// compact: the distinct pages; otherwise the highest page) and the chosen op.
    #[arg(long)]
    pub capacity: Option<String>,
    /// Replay the trace this many times (loop i is shifted in time by i x (span + mean inter-arrival)).
    #[arg(long, allow_negative_numbers = true)]
    pub loop_times: Option<u32>,
    /// Replay the trace until K x the logical capacity has been written (sets --write-volume K).
    #[arg(long, allow_negative_numbers = true)]
    pub loop_until: Option<f64>,
    /// Multiply trace times by this factor (0.5 = replay twice as fast).
    #[arg(long, allow_negative_numbers = true)]
    pub time_scale: Option<f64>,
    /// The trace's flushes (blkparse FN, fio sync) and FUA writes: replay (default: to the
    /// simulated write cache, as `flashgc serve` does with NBD FLUSH and FUA) or ignore.
    #[arg(long, value_name = "replay|ignore")]
    pub trace_flushes: Option<String>,
    /// Parse a text trace on the simulation's own thread (default: on a second thread
    /// when the machine has two cores; the results are identical either way).
    #[arg(long)]
    pub no_pipeline: bool,
    /// A resumed run's trace path as the original run gave it (relative to the original
    /// run's directory): the trace is opened by its absolute path and named by this one in
    /// the result, which then equals the uninterrupted run's. Not a flag.
    #[arg(skip)]
    pub shown_as: Option<String>,
}

impl ReadFlags {
    fn options(&self) -> Result<TraceOptions, TraceError> {
        let mut o = TraceOptions {
            format: self.format.clone(),
            blkparse_events: self.blkparse_events.clone(),
            volume: self.volume.clone(),
            skip_bad_lines: self.skip_bad_lines,
            ..TraceOptions::default()
        };
        if let Some(s) = &self.ops {
            o.ops = Ops::parse(s)?;
        }
        if let Some(s) = &self.time_window {
            o.time_window = Some(TimeWindow::parse(s)?);
        }
        Ok(o)
    }
}

impl TraceFlags {
    /// The library options these flags describe.
    pub fn options(&self) -> Result<TraceOptions, TraceError> {
        let mut o = self.read.options()?;
        if let Some(s) = &self.remap {
            o.remap = Remap::parse(s)?;
        }
        if let Some(n) = self.loop_times {
            o.loop_times = n;
        }
        // The library lets `loop_until` override `loop_times`; given both, one would be
        // dropped without a word.
        if self.loop_times.is_some() && self.loop_until.is_some() {
            return Err(TraceError::Option {
                option: "--loop-times",
                message: "and --loop-until both given: --loop-until replays as many passes as its \
                          target needs; give one of them"
                    .into(),
            });
        }
        o.loop_until = self.loop_until;
        if let Some(s) = self.time_scale {
            o.time_scale = s;
        }
        if let Some(s) = &self.trace_flushes {
            o.flushes = Flushes::parse(s)?;
        }
        o.pipeline = !self.no_pipeline;
        o.check()?;
        Ok(o)
    }
}

/// `flashgc trace` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TraceCmd {
    /// Trace statistics: counts, bytes, footprint, sizes, sequentiality, update intervals, duplicates.
    Stats {
        /// Trace file (plain, .gz, .zst or .fgt).
        file: String,
        #[command(flatten)]
        read: ReadFlags,
        /// Page size for footprints and update intervals, bytes.
        #[arg(long, default_value_t = 4096)]
        page_size: u32,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the volumes (devices, ASUs, LUNs) of a multi-volume trace with their sizes.
    Volumes {
        /// Trace file.
        file: String,
        #[command(flatten)]
        read: ReadFlags,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace to the binary .fgt format (replays far faster than text).
    Convert {
        /// Trace file.
        file: String,
        /// Output .fgt file.
        #[arg(short = 'o', long)]
        output: String,
        /// Trace format (auto-detected when unambiguous).
        #[arg(long)]
        format: Option<String>,
        /// blkparse actions to keep (default D).
        #[arg(long)]
        blkparse_events: Option<String>,
        /// Count and skip malformed lines.
        #[arg(long)]
        skip_bad_lines: bool,
    },
    /// Print the first requests as parsed (time in ns relative to the first request, bytes).
    Head {
        /// Trace file.
        file: String,
        #[command(flatten)]
        read: ReadFlags,
        /// Number of requests.
        #[arg(short = 'n', long, default_value_t = 10)]
        count: usize,
    },
}

/// Adjusts `cfg` for a trace before the simulation is built: `--capacity auto` sets
/// `ftl.logical_gib` from the footprint; `--loop-until K` sets `run.write_volume = K`.
pub fn prepare(flags: &TraceFlags, path: &str, cfg: &mut Config) -> Result<(), String> {
    let opts = flags.options().map_err(|e| e.to_string())?;
    prepare_capacity(flags, &opts, path, cfg)?;
    if let Some(k) = opts.loop_until {
        warn_long_loops(&opts, path, cfg, k)?;
    }
    Ok(())
}

/// `--loop-until K` sets the write volume to `K`: applied right after the configuration is
/// built, so that the configuration is checked with it (a `--warmup` above the preset's
/// write volume but below `K` is valid).
pub fn apply_loop_until(flags: &TraceFlags, cfg: &mut Config) {
    // Out of range, K is left to the trace options' check, which names `--loop-until`
    // (as the write volume, it would be reported as `run.write_volume`).
    if let Some(k) = flags
        .loop_until
        .filter(|k| k.is_finite() && *k > 0.0 && *k <= 1e6)
    {
        cfg.run.write_volume = k;
    }
}

/// More passes than this over a trace for `--loop-until` get a warning before the run.
const MANY_PASSES: u64 = 1000;

/// Warns up front when `--loop-until K` needs more than [`MANY_PASSES`] passes over the
/// trace (a trace that writes little, e.g. a read-mostly one): such a run reads the trace
/// that many times and can take very long. Counting stops once one pass is known to write
/// enough, so a long trace costs only a fraction of one pass.
fn warn_long_loops(opts: &TraceOptions, path: &str, cfg: &Config, k: f64) -> Result<(), String> {
    let l = cfg.layout().map_err(|e| e.to_string())?;
    let target = ((k * l.logical_pages as f64).round() as u64).max(1);
    let enough = target.div_ceil(MANY_PASSES);
    let s = flashgc_trace::pass_summary(Path::new(path), opts, l.lpn_size, l.logical_pages, enough)
        .map_err(|e| e.to_string())?;
    if s.complete && s.write_pages > 0 && s.write_pages < enough {
        let passes = target.div_ceil(s.write_pages);
        eprintln!(
            "warning: --loop-until {k}: one pass over {path} writes only {} pages in {} requests, so {target} pages \
             take about {passes} passes ({} requests to read and simulate); expect a long run. \
             Consider --ops write or --ops write,trim (drops the reads), a smaller --loop-until, or a trace that writes more \
             (and `flashgc trace convert` for faster passes)",
            s.write_pages,
            s.requests,
            passes.saturating_mul(s.requests)
        );
    }
    Ok(())
}

fn prepare_capacity(
    flags: &TraceFlags,
    opts: &TraceOptions,
    path: &str,
    cfg: &mut Config,
) -> Result<(), String> {
    let opts = opts.clone();
    if let Some(k) = opts.loop_until {
        cfg.run.write_volume = k;
    }
    match flags.capacity.as_deref().map(str::trim) {
        None => Ok(()),
        Some("auto") => {
            let lpn = cfg.device.lpn_size;
            let fp =
                flashgc_trace::footprint(Path::new(path), &opts, lpn).map_err(|e| e.to_string())?;
            release_freed_memory();
            let pages = if opts.remap == Remap::Compact {
                fp.distinct_pages
            } else {
                fp.max_end_page
            };
            if pages == 0 {
                return Err(format!(
                    "{path}: --capacity auto: the trace (after filters) touches no pages"
                ));
            }
            let gib = |p: u64| p as f64 * lpn as f64 / (1u64 << 30) as f64;
            // Sized by its highest address, a trace of a few pages far into a large volume
            // builds (and fills) a device of that size, GiBs of memory for a tiny input:
            // say so before the device is built.
            if opts.remap != Remap::Compact && fp.distinct_pages.saturating_mul(100) < pages {
                eprintln!(
                    "note: --capacity auto: the trace touches {} distinct pages but addresses up to page {pages}; \
                     the device is sized to its highest address ({:.3} GiB logical); --remap compact sizes it \
                     to the pages touched",
                    fp.distinct_pages,
                    gib(pages)
                );
            }
            cfg.device.blocks_per_plane = 0;
            let mut want = pages;
            // Tiny traces: grow until the geometry has enough segments for GC to work.
            for _ in 0..40 {
                cfg.ftl.logical_gib = Some(gib(want));
                match cfg.layout() {
                    Ok(l) if l.logical_pages >= pages => {
                        // Record the capacity the device has, not the search's last request:
                        // whole blocks round that up, and the configuration's advisory then
                        // reported a gap between an `ftl.logical_gib` the user never gave
                        // and the device. The realised capacity builds the same device.
                        let searched = cfg.ftl.logical_gib;
                        cfg.ftl.logical_gib = Some(gib(l.logical_pages));
                        let same = cfg.layout().is_ok_and(|m| {
                            m.logical_pages == l.logical_pages && m.segments == l.segments
                        });
                        if !same {
                            cfg.ftl.logical_gib = searched;
                        }
                        if want > pages {
                            eprintln!(
                                "note: --capacity auto: the trace touches {pages} pages; the device was enlarged to {} logical pages, \
                                 the smallest this geometry supports",
                                l.logical_pages
                            );
                        }
                        return Ok(());
                    }
                    Ok(_) => want += want / 64 + 1,
                    Err(e) => {
                        let m = e.to_string();
                        if m.contains("spare") || m.contains("at least") {
                            want = want.saturating_mul(2);
                        } else {
                            return Err(format!(
                                "--capacity auto ({pages} pages of {lpn} bytes): {m}"
                            ));
                        }
                    }
                }
            }
            Err(format!(
                "--capacity auto: no device of this geometry fits {pages} pages"
            ))
        }
        Some(other) => Err(format!(
            "--capacity: `{other}`; allowed: auto (give an explicit size with --logical-gib)"
        )),
    }
}

/// Hands the memory freed by the sizing pass back to the system. Its set of page runs
/// (~40 B per run of distinct pages) is many small allocations: freed, glibc keeps them in
/// the process for reuse, which the simulator's large tables (mapped apart) never make, so
/// the run's peak RSS carried them to the end (51 MiB for 2 M distinct pages; BENCHMARKS.md,
/// Memory).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Opens `path` as a workload for a device of `logical_pages` pages of `lpn_size` bytes;
/// `per_page`: the FTL is in its content mode (a recording's multi-page writes are then
/// replayed a page at a time, each with its fingerprint).
pub fn open_workload(
    flags: &TraceFlags,
    path: &str,
    lpn_size: u32,
    logical_pages: u64,
    per_page: bool,
) -> Result<Box<dyn Workload>, String> {
    let mut opts = flags.options().map_err(|e| e.to_string())?;
    opts.per_page = per_page;
    let mut wl =
        flashgc_trace::TraceWorkload::open(Path::new(path), &opts, lpn_size, logical_pages)
            .map_err(|e| e.to_string())?;
    if let Some(name) = &flags.shown_as {
        wl.set_name(name);
    }
    if flags.capacity.is_some() {
        // `--capacity auto` sized the device to the distinct pages (`prepare_capacity`),
        // rounded up to whole blocks: with `--remap compact`, the remap table is sized for
        // them up front and never grows (nor holds two tables while it does).
        wl.reserve_distinct_pages(logical_pages);
    }
    match (opts.loop_until, BAR.get()) {
        (Some(k), Some(bar)) => Ok(Box::new(Ticking {
            target: ((k * logical_pages as f64).round() as u64).max(1),
            inner: wl,
            bar: bar.clone(),
            pages: 0,
            last: std::time::Instant::now(),
        })),
        _ => Ok(Box::new(wl)),
    }
}

/// The terminal progress bar of the command, if there is one ([`attach_bar`]).
static BAR: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();

/// Lets looped trace replays move `bar` (pages written of the target) between the
/// simulation's own updates, which come after each batch of 4096 requests: a trace that
/// writes little per pass (reads, other volumes) would otherwise move it rarely.
pub fn attach_bar(bar: &indicatif::ProgressBar) {
    let _ = BAR.set(bar.clone());
}

/// A `--loop-until` replay that updates the progress bar about four times a second.
struct Ticking {
    inner: flashgc_trace::TraceWorkload,
    bar: indicatif::ProgressBar,
    target: u64,
    pages: u64,
    last: std::time::Instant,
}

impl Workload for Ticking {
    fn fill(
        &mut self,
        buf: &mut Vec<flashgc_core::workload::Request>,
        max: usize,
    ) -> flashgc_core::Result<()> {
        let start = buf.len();
        self.inner.fill(buf, max)?;
        self.pages += buf[start..]
            .iter()
            .filter(|r| r.op == Op::Write)
            .map(|r| r.pages as u64)
            .sum::<u64>();
        if self.last.elapsed() >= std::time::Duration::from_millis(250) {
            self.last = std::time::Instant::now();
            self.bar.set_length(self.target);
            self.bar.set_position(self.pages.min(self.target));
        }
        Ok(())
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn is_infinite(&self) -> bool {
        self.inner.is_infinite()
    }
    fn may_flush(&self) -> bool {
        self.inner.may_flush()
    }
    fn memory(&self) -> Vec<(String, u64)> {
        self.inner.memory()
    }
}

/// Runs a `flashgc trace` subcommand; returns the process exit code.
pub fn run(cmd: TraceCmd) -> i32 {
    match run_inner(cmd) {
        Ok(()) => 0,
        Err(e) => {
            // Every trace error is about the input (file, format, options): exit code 2,
            // unless a signal stopped the command (`convert`): 128 + the signal.
            crate::print_error(&e.to_string());
            crate::interrupt::exit_code().map_or(2, i32::from)
        }
    }
}

fn json<T: serde::Serialize>(v: &T) -> Result<(), TraceError> {
    match serde_json::to_string_pretty(v) {
        Ok(s) => {
            println!("{s}");
            Ok(())
        }
        Err(e) => Err(TraceError::Option {
            option: "--json",
            message: e.to_string(),
        }),
    }
}

fn run_inner(cmd: TraceCmd) -> Result<(), TraceError> {
    match cmd {
        TraceCmd::Stats {
            file,
            read,
            page_size,
            json: j,
        } => {
            let s = flashgc_trace::stats(Path::new(&file), &read.options()?, page_size)?;
            if j {
                json(&s)?;
            } else {
                print!("{}", s.to_text());
            }
            Ok(())
        }
        TraceCmd::Volumes {
            file,
            read,
            json: j,
        } => {
            let v = flashgc_trace::volumes(Path::new(&file), &read.options()?)?;
            if j {
                json(&v)?;
            } else {
                println!(
                    "{:>12} {:>10} {:>10} {:>10} {:>16} {:>16} {:>16}",
                    "volume",
                    "requests",
                    "reads",
                    "writes",
                    "read_bytes",
                    "write_bytes",
                    "size_bytes"
                );
                for x in &v {
                    println!(
                        "{:>12} {:>10} {:>10} {:>10} {:>16} {:>16} {:>16}",
                        x.volume,
                        x.requests,
                        x.reads,
                        x.writes,
                        x.read_bytes,
                        x.write_bytes,
                        x.size_bytes
                    );
                }
                println!("{} volumes", v.len());
            }
            Ok(())
        }
        TraceCmd::Convert {
            file,
            output,
            format,
            blkparse_events,
            skip_bad_lines,
        } => {
            let o = TraceOptions {
                format,
                blkparse_events,
                skip_bad_lines,
                ..TraceOptions::default()
            };
            // Temporary files of a killed conversion (`kill -9`) go now; Ctrl-C and
            // SIGTERM stop this one with nothing written (the atomic writer removes its
            // temporary file).
            // A bad output path fails now, not after the whole conversion.
            let bad_output = |message: String| TraceError::Option {
                option: "-o",
                message,
            };
            if output.trim().is_empty() {
                return Err(bad_output("an empty path; give a file name".into()));
            }
            let target = crate::outfile::resolve(Path::new(&output))
                .map_err(|m| bad_output(format!("{output}: {m}")))?;
            crate::outfile::remove_stale_temps(&target);
            let stop = crate::interrupt::handlers()
                .map(|i| std::sync::Arc::clone(&i.stop))
                .unwrap_or_default();
            let r = flashgc_trace::convert_until(Path::new(&file), &o, Path::new(&output), &stop)?;
            println!(
                "{output}: {} records, {} volumes, {} bytes ({} per record{}), .fgt version {}",
                r.records,
                r.volumes,
                r.bytes,
                if r.content { 32 } else { 24 },
                if r.content {
                    ", with content hashes"
                } else {
                    ""
                },
                r.version
            );
            for w in r.diagnostics.warnings() {
                eprintln!("warning: {w}");
            }
            Ok(())
        }
        TraceCmd::Head { file, read, count } => {
            let opts = read.options()?;
            // A device as large as addressable, so no request is refused.
            let mut wl =
                flashgc_trace::TraceWorkload::open(Path::new(&file), &opts, 4096, u64::MAX / 8192)?;
            let mut buf = Vec::new();
            wl.fill_requests(&mut buf, count)?;
            println!(
                "{:>16} {:>6} {:>14} {:>6} content (4 KiB pages)",
                "time_ns", "op", "lpn", "pages"
            );
            for r in &buf {
                let op = match r.op {
                    Op::Read => "read",
                    Op::Write => "write",
                    Op::Trim => "trim",
                    Op::Flush => "flush",
                };
                println!(
                    "{:>16} {:>6} {:>14} {:>6} {:016x}",
                    r.time_ns, op, r.lpn, r.pages, r.content
                );
            }
            Ok(())
        }
    }
}
