//! Human-readable, CSV and file output.

// The core's, so that the Python binding applies the same default limit.
pub use flashgc_core::driver::available_memory_gib;
use flashgc_core::RunResult;
use std::fmt::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` atomically, through symlinks, regular files only (see
/// [`crate::outfile`]).
pub fn write_atomic(path: &str, bytes: &[u8]) -> Result<(), String> {
    crate::outfile::write_atomic(path, bytes)
}

/// Writes a result that has already been printed to `-o path`; a failure is exit code 2
/// with a message that says the result is on standard output.
pub fn save_result(path: &str, bytes: &[u8], printed: bool) -> Result<(), crate::Fail> {
    write_atomic(path, bytes).map_err(|e| {
        crate::Fail(
            2,
            format!(
                "-o {path}: the result could not be written: {e}{}",
                if printed {
                    "; it is printed above (standard output)"
                } else {
                    ""
                }
            ),
        )
    })
}

/// Refuses, before a run, a file to write (`flag`: `-o`, `--checkpoint`) that is one the
/// run reads: its trace or its configuration file (`--config`; the same file, through
/// symlinks or hard links). The result would replace its own input, which was lost
/// without a word.
pub fn not_an_input(
    flag: &str,
    out: Option<&str>,
    cfg: &flashgc_core::Config,
    config_file: Option<&str>,
) -> Result<(), crate::Fail> {
    use flashgc_core::workload::WorkloadSpec;
    let Some(o) = out else {
        return Ok(());
    };
    let trace = match WorkloadSpec::parse("run.workload", &cfg.run.workload) {
        Ok(WorkloadSpec::Trace(t)) => Some(t),
        _ => None,
    };
    let inputs = [
        ("trace", trace.as_deref()),
        ("configuration file", config_file),
    ];
    for (what, input) in inputs {
        not_the_input(flag, o, what, input)?;
    }
    Ok(())
}

/// Refuses an output file `o` (of `flag`) that is the input `input` (a `what`) the run reads.
pub fn not_the_input(
    flag: &str,
    o: &str,
    what: &str,
    input: Option<&str>,
) -> Result<(), crate::Fail> {
    match input.filter(|i| flashgc_trace::same_file(Path::new(o), Path::new(i))) {
        Some(i) => Err(crate::Fail(
            2,
            format!("{flag} {o} is the {what} the run reads ({i}): writing it would replace the {what}; choose another file"),
        )),
        None => Ok(()),
    }
}

/// Refuses two of a command's files that are one file (`files`: the option naming each and
/// its path, inputs first): writing one would replace or corrupt the other (a result over
/// the served disk image or the fio job file, a recording over the configuration). Files
/// that do not exist yet count as one when their paths are, once symlinks are followed.
pub fn distinct_files(files: &[(&str, Option<&str>)]) -> Result<(), crate::Fail> {
    let given: Vec<(&str, &str)> = files
        .iter()
        .filter_map(|&(flag, path)| Some((flag, path?)))
        .collect();
    for (i, &(first_flag, first)) in given.iter().enumerate() {
        for &(flag, path) in &given[i + 1..] {
            if one_file(Path::new(first), Path::new(path)) {
                return Err(crate::Fail(
                    2,
                    format!(
                        "{flag} {path} is the file of {first_flag} {first}: writing one would \
                         replace or corrupt the other; choose another file"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// True when `a` and `b` name one file: [`flashgc_trace::same_file`] when both exist, else
/// the same path once symlinks are followed and made absolute (a file still to be created).
fn one_file(a: &Path, b: &Path) -> bool {
    let full = |p: &Path| {
        let p = crate::outfile::resolve(p).unwrap_or_else(|_| p.to_path_buf());
        std::path::absolute(&p).unwrap_or(p)
    };
    flashgc_trace::same_file(a, b) || full(a) == full(b)
}

/// Refuses, before a run, an `-o` that cannot take the result (missing directory, not a
/// regular file, no permission): exit code 2 instead of a lost result at the end; removes
/// the temporary files a killed run left beside it.
pub fn check_output(path: Option<&str>) -> Result<(), crate::Fail> {
    if let Some(o) = path {
        let target = crate::outfile::check_writable("-o", o).map_err(|e| crate::Fail(2, e))?;
        crate::outfile::remove_stale_temps(&target);
    }
    Ok(())
}

/// [`save_result`] for an optional `-o` (the result was printed before).
pub fn save_printed(path: Option<&str>, bytes: &[u8]) -> Result<(), crate::Fail> {
    match path {
        Some(p) => save_result(p, bytes, true),
        None => Ok(()),
    }
}

/// Prints the configuration's advisories (see `Config::advisories`) as warnings; runs also
/// keep them in their result's notes.
pub fn warn_advisories(cfg: &flashgc_core::Config) {
    for w in cfg.advisories() {
        eprintln!("flashgc: warning: {w}");
    }
}

/// A rate for the progress bar: whole units per second with thousands separators
/// (`1,310,251/s`), one decimal below 100.
pub fn format_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec < 0.0 {
        return "-/s".into();
    }
    if per_sec < 100.0 {
        return format!("{per_sec:.1}/s");
    }
    let digits = format!("{:.0}", per_sec);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out + "/s"
}

/// A progress bar on a terminal (None otherwise): position, rate and ETA in `unit`s.
pub fn progress_bar(len: u64, unit: &str) -> Option<indicatif::ProgressBar> {
    let b = new_bar(len, unit)?;
    if unit == "pages" {
        // A looped trace replay ticks the bar while it reads (see cmd_trace::attach_bar).
        crate::cmd_trace::attach_bar(&b);
    }
    Some(b)
}

/// [`progress_bar`] without the trace replay's ticks (for commands that run several
/// simulations one after another, each with a bar of its own).
pub fn new_bar(len: u64, unit: &str) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(len);
    b.set_style(bar_style(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} {unit} {{rate}} ETA {{eta}} {{msg}}"
    )));
    Some(b)
}

/// The bar of `compare`'s `runs` simulations, in thousandths of a run (each run in progress
/// moves it by its share of the pages it writes), with a spinner and clock that tick while
/// no run reports (a precondition fill, an oracle's pre-pass). None off a terminal.
pub fn runs_bar(runs: usize) -> Option<indicatif::ProgressBar> {
    let b = new_bar(runs as u64 * 1000, "runs")?;
    b.set_style(bar_style(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{percent}} % of {runs} runs ({{msg}} done) ETA {{eta}}"
    )));
    b.set_message(format!("0/{runs}"));
    b.enable_steady_tick(std::time::Duration::from_millis(250));
    Some(b)
}

/// The style of a bar whose length is unknown (a run to a trace's end, a data volume or a
/// request count): position and rate, without a bar or an ETA that would mean nothing.
pub fn open_ended_style(unit: &str) -> indicatif::ProgressStyle {
    bar_style(&format!(
        "{{spinner}} [{{elapsed_precise}}] {{human_pos}} {unit} {{rate}} {{msg}}"
    ))
}

/// `template` with the integer rate key (see [`format_rate`]).
fn bar_style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&format_rate(s.per_sec()));
            },
        )
}

fn gib(pages: u64, page_bytes: u32) -> f64 {
    pages as f64 * page_bytes as f64 / (1u64 << 30) as f64
}

/// Peak resident set size of this process (Linux `VmHWM`), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The garbage-proportion trigger, when set: what it is and how many victims it took.
pub(crate) fn gc_trigger_note(r: &RunResult) -> String {
    match r.device.layout.gc_garbage {
        None => String::new(),
        Some(g) => format!(
            "; and one victim per user write while garbage > {:.1} % of the written pages ({} of {} victims)",
            g * 100.0,
            r.total.gc_garbage_victims.unwrap_or(0),
            r.total.gc_victims
        ),
    }
}

/// The memory line of a run's report: the estimate the run was admitted with (and why it
/// is an upper bound, if it is one) or, without one, the metadata the result lists; then
/// the process's peak RSS so far, where the system reports it and `with_peak` asks for it
/// (a command that runs several simulations prints the process's peak once, after them:
/// [`peak_line`]). `run`, `fio` and `noc` print it, so the estimate checked against
/// `--max-memory` is always on screen.
pub fn memory_line(
    r: &RunResult,
    estimate: Option<(u64, Option<&str>)>,
    with_peak: bool,
) -> String {
    let mut s = String::new();
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    match estimate {
        Some((e, bound)) => {
            let _ = write!(
                s,
                "memory: estimated {:.1} MiB before the run (tables + policies{} + 7 MiB process{})",
                mib(e),
                match (&r.timing, &r.noc) {
                    (_, Some(_)) => " + NoC model, its time series and the driver",
                    (Some(_), None) => " + device model, cache and driver",
                    _ => "",
                },
                bound.map_or(String::new(), |why| format!("; an upper bound: {why}"))
            );
        }
        None => {
            let metadata: u64 = r.memory.iter().map(|m| m.bytes).sum();
            let _ = write!(s, "memory: {:.1} MiB of metadata", mib(metadata));
        }
    }
    match peak_rss_bytes().filter(|_| with_peak) {
        Some(rss) => {
            let _ = writeln!(s, ", peak RSS {:.1} MiB", mib(rss));
        }
        None => {
            let _ = writeln!(s);
        }
    }
    s
}

/// The process's peak RSS after `runs` simulations (empty where the system does not
/// report it): their estimates are each run's, the peak is the largest of them all.
pub fn peak_line(runs: usize) -> String {
    peak_rss_bytes().map_or(String::new(), |rss| {
        format!(
            "memory: peak RSS {:.1} MiB over the {runs} runs\n",
            rss as f64 / (1u64 << 20) as f64
        )
    })
}

/// The report of one run, for a terminal; `estimate`: the memory estimate the run was
/// admitted with (`Simulation::memory_estimate`), when known, and why it is an upper bound
/// if it is one (`Simulation::memory_estimate_upper_bound`).
pub fn human(r: &RunResult, secs: f64, estimate: Option<(u64, Option<&str>)>) -> String {
    let mut s = String::new();
    let d = &r.device;
    let l = &d.layout;
    let _ = writeln!(s, "flashgc {} run", r.flashgc_version);
    let _ = writeln!(
        s,
        "device    {} | {:.2} GiB logical, {:.2} GiB physical | op {:.4} ((physical-logical)/logical; given as {}), op_of_physical {:.4}",
        d.preset.as_deref().unwrap_or("custom"),
        d.logical_gib,
        d.physical_gib,
        l.op,
        l.op_given_as,
        l.op_of_physical
    );
    let _ = writeln!(
        s,
        "          {} segments x {} pages of {} B | GC below {} free segments, up to {}{}",
        l.segments,
        l.pages_per_segment,
        l.lpn_size,
        l.gc_low,
        l.gc_high,
        gc_trigger_note(r)
    );
    let _ = writeln!(
        s,
        "workload  {} | seed {} | fill {:.1} % sequential first ({} pages, not counted)",
        r.workload,
        r.seed,
        r.precondition.user_writes as f64 * 100.0 / l.logical_pages as f64,
        r.precondition.user_writes
    );
    let _ = writeln!(
        s,
        "policies  placement {} (streams: {}) | victim {}",
        r.placement,
        r.streams.join(", "),
        r.victim
    );
    let _ = writeln!(
        s,
        "as run    {} | {}   (every parameter, defaults included)",
        r.placement_spec, r.victim_spec
    );
    let t = &r.total;
    let ss = &r.steady_state;
    let _ = writeln!(
        s,
        "\nWAF steady state  {:.4}   (over {:.2} x capacity after a {:.2} x warm-up; flash programs / user writes)",
        ss.waf,
        ss.user_writes as f64 / l.logical_pages as f64,
        r.warmup_user_pages as f64 / l.logical_pages as f64
    );
    let _ = writeln!(s, "WAF whole run     {:.4}", t.waf);
    if let Some(x) = &ss.translation {
        let _ = writeln!(
            s,
            "mapping cache     hit ratio {:.4} | translation reads {}, writes {} ({} GC batch updates) | WAF without translation writes {:.4}   (steady state; WAF above includes them)",
            x.hit_ratio,
            x.translation_reads,
            x.translation_writes,
            x.gc_batch_updates,
            x.waf_without_translation
        );
    }
    if let Some(m) = &r.model {
        let _ = writeln!(
            s,
            "model             {:.4}   {} at effective alpha {:.4}; simulated is {:+.2} %",
            m.waf,
            m.model,
            m.alpha,
            m.relative_error * 100.0
        );
    }
    if let Some(a) = ss.effective_alpha {
        let _ = writeln!(s, "effective alpha   {a:.4}   (pages holding data at victim selection / logical pages; nominal 1 + op = {:.4})", 1.0 + l.op);
    }
    let _ = writeln!(
        s,
        // Every count with its unit: page counts are mapping units, erases are segments
        // (a superblock is one erase here; `erases per block` below counts blocks).
        "\nuser writes {} pages ({:.2} GiB) | GC writes {} pages | erases {} segments | GC victims {} in {} episodes | reads {} pages | trims {} pages",
        t.user_writes,
        gib(t.user_writes, l.lpn_size),
        t.gc_writes,
        t.erases,
        t.gc_victims,
        t.gc_episodes,
        t.reads,
        t.trims
    );
    let e = &r.erase_counts;
    let _ = writeln!(
        s,
        "erases per block (whole life incl. fill)  min {} | mean {:.2} | max {} | stddev {:.2}",
        e.min, e.mean, e.max, e.stddev
    );
    let hist = &r.victim_valid_ratio.counts;
    let n: u64 = hist.iter().sum();
    if n > 0 {
        let mean = hist
            .iter()
            .enumerate()
            .map(|(i, &c)| i as f64 * c as f64)
            .sum::<f64>()
            / n as f64
            / 100.0;
        let mut acc = 0;
        let mut p50 = 0;
        for (i, &c) in hist.iter().enumerate() {
            acc += c;
            if acc * 2 >= n {
                p50 = i;
                break;
            }
        }
        let _ = writeln!(
            s,
            "victim valid ratio  mean {:.3} | median {:.2} | {} victims",
            mean,
            p50 as f64 / 100.0,
            n
        );
    }
    // The listed items' total: a trace replay's items (after the simulator's) are in the
    // list but not in `memory_bytes_per_lpn`, which compares the schemes' tables.
    let _ = writeln!(
        s,
        "\nmetadata memory ({:.2} bytes per logical page in all)",
        r.memory_bytes_per_lpn
            + r.memory
                .iter()
                .filter(|m| m.structure.starts_with("trace "))
                .map(|m| m.bytes_per_lpn)
                .sum::<f64>()
    );
    for m in &r.memory {
        let _ = writeln!(
            s,
            "  {:44} {:>14} B  {:>7.3} B/LPN",
            m.structure, m.bytes, m.bytes_per_lpn
        );
    }
    if !r.series.is_empty() {
        let _ = writeln!(s, "\nWAF per window (capacity written: window WAF)");
        let step = r.series.len().div_ceil(12).max(1);
        let line: Vec<String> = r
            .series
            .iter()
            .step_by(step)
            .map(|p| format!("{:.1}x: {:.3}", p.capacity_written, p.waf_window))
            .collect();
        let _ = writeln!(s, "  {}", line.join(" | "));
    }
    s += &memory_line(r, estimate, true);
    for note in &r.notes {
        let _ = writeln!(s, "note: {note}");
    }
    // The wall-clock time covers the precondition fill too, so its programs count.
    let programs = t.flash_programs + r.precondition.flash_programs;
    // A rate over less than a millisecond (a server that served nothing) means nothing.
    let rate = if secs >= 1e-3 {
        format!(
            " ({:.1} M programs/s wall clock)",
            programs as f64 / secs / 1e6
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "\nsimulated {programs} flash programs ({} of the precondition fill) in {:.2} s{rate}",
        r.precondition.flash_programs, secs,
    );
    s
}

/// A p99 latency in us for a table cell: "-" for a direction without requests, whose
/// percentiles would print as 0.0 us (instant service).
pub fn p99_cell(l: &flashgc_core::metrics::latency::LatencySummary) -> String {
    if l.count == 0 {
        "-".to_string()
    } else {
        format!("{:.1}", l.p99_us)
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The timing and NoC columns of a CSV row (empty for the sections a record lacks).
fn csv_timing(r: &RunResult) -> String {
    let mut cols: Vec<String> = Vec::with_capacity(17);
    match &r.timing {
        Some(t) => {
            cols.push(if r.noc.is_some() { "noc" } else { "flash" }.into());
            cols.push(t.iops.to_string());
            cols.push(t.bandwidth_mb_s.to_string());
            for l in [&t.read_latency, &t.write_latency] {
                for v in [l.mean_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us] {
                    cols.push(v.to_string());
                }
            }
        }
        None => {
            cols.push("null".into());
            cols.extend(std::iter::repeat_n(String::new(), 12));
        }
    }
    match &r.noc {
        Some(n) => {
            cols.push(n.path.name().into());
            cols.push(n.copybacks.to_string());
            cols.push(n.error_pages.to_string());
        }
        None => cols.extend(std::iter::repeat_n(String::new(), 3)),
    }
    cols.join(",")
}

/// CSV with one row per configuration; with a `gc_action` column when any run used a
/// content-aware GC action.
pub fn csv(rs: &[RunResult]) -> String {
    let plain = csv_plain(rs);
    if rs.iter().all(|r| r.dedup.is_none()) {
        return plain;
    }
    let mut out = String::new();
    for (i, line) in plain.lines().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{line},gc_action");
        } else {
            let a = rs[i - 1]
                .dedup
                .as_ref()
                .map_or("move".to_string(), |d| d.gc_action.clone());
            let _ = writeln!(out, "{line},{}", csv_field(&a));
        }
    }
    out
}

fn csv_plain(rs: &[RunResult]) -> String {
    let mut s = String::from(
        "placement,victim,workload,seed,logical_pages,op,pages_per_segment,user_writes,gc_writes,erases,waf,steady_state_waf,effective_alpha,model_waf,memory_bytes_per_lpn,\
         device_model,iops,bandwidth_mb_s,read_mean_us,read_p99_us,read_p999_us,read_p9999_us,read_max_us,\
         write_mean_us,write_p99_us,write_p999_us,write_p9999_us,write_max_us,noc_path,copybacks,error_pages,\
         placement_spec,victim_spec,ended_by\n",
    );
    for r in rs {
        let l = &r.device.layout;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.placement),
            csv_field(&r.victim),
            csv_field(&r.workload),
            r.seed,
            l.logical_pages,
            l.op,
            l.pages_per_segment,
            r.total.user_writes,
            r.total.gc_writes,
            r.total.erases,
            r.total.waf,
            r.steady_state.waf,
            r.steady_state
                .effective_alpha
                .map(|a| a.to_string())
                .unwrap_or_default(),
            r.model
                .as_ref()
                .map(|m| m.waf.to_string())
                .unwrap_or_default(),
            r.memory_bytes_per_lpn,
            csv_timing(r),
            csv_field(&r.placement_spec),
            csv_field(&r.victim_spec),
            // What ended the run, as in the JSON: `interrupted` marks a partial result
            // (Ctrl-C or SIGTERM; the human table's PARTIAL).
            csv_field(&r.ended_by)
        );
    }
    s
}

/// The per-flow table of a run of several host flows.
pub fn human_flows(flows: &[flashgc_core::metrics::result::FlowReport]) -> String {
    let mut s = String::from(if flows.iter().any(|f| f.ramp_requests.is_some()) {
        "\nflows (rates over the run's simulated time, or for a flow with a ramp over its time \
         after the ramp; latency and rates leave the ramp's requests out)\n"
    } else {
        "\nflows (rates over the run's simulated time; they add up to the totals above; \
         `active` over each flow's own time, as fio prints a job's)\n"
    });
    for f in flows {
        let mut ramp = f
            .ramp_requests
            .map_or(String::new(), |n| format!(", {n} in the ramp"));
        if f.flushes > 0 {
            // Flushes are not requests (nor in the rates): counted beside them.
            ramp.push_str(&format!(", {} flushes", f.flushes));
        }
        let _ = writeln!(
            s,
            "  {:12} {} requests ({} reads, {} writes{ramp}) | {:.0} IOPS | {:.1} MB/s | active {:.0} IOPS, {:.1} MB/s | {} | {}",
            f.name,
            f.requests,
            f.read_requests,
            f.write_requests,
            f.iops,
            f.bandwidth_mb_s,
            f.active_iops,
            f.active_bandwidth_mb_s,
            f.arrival,
            f.pattern
        );
        let lat = [
            ("read", &f.read_latency),
            ("write", &f.write_latency),
            ("flush", &f.flush_latency),
        ];
        for (what, l) in lat {
            if let Some(l) = l.as_ref().filter(|l| l.count > 0) {
                let _ = writeln!(
                    s,
                    "  {:12}   {what:5} latency us: mean {:.1} | p50 {:.1} | p99 {:.1} | p99.9 {:.1} | max {:.1}",
                    "", l.mean_us, l.p50_us, l.p99_us, l.p999_us, l.max_us
                );
            }
        }
        if let Some(ss) = &f.steady_state {
            let _ = writeln!(s, "  {:12}   {}", "", human_steady_state(ss));
        }
    }
    s
}

/// A flow's steady state as fio's `steadystate  :` line reads (means over the window;
/// bandwidth in MiB/s, fio's default `kb_base`), with when it was attained.
fn human_steady_state(ss: &flashgc_core::metrics::result::SteadyStateReport) -> String {
    let kind = ss.ss.split(':').next().unwrap_or("");
    let (metric, how) = match kind.split_once('_') {
        Some((m, _)) => (m, " slope"),
        None => (kind, " mean dev"),
    };
    let at = ss
        .attained_ns
        .map_or(String::new(), |t| format!(" at {:.3} s", t as f64 / 1e9));
    format!(
        "steadystate: attained={}{at}, bw={:.1}MiB/s, iops={}, {metric}{how}={:.3}{} ({}{}, {} s window, {} samples)",
        if ss.attained { "yes" } else { "no" },
        ss.bw_mean as f64 / 1048576.0,
        ss.iops_mean,
        ss.criterion,
        if ss.percent { "%" } else { "" },
        ss.ss,
        if ss.group_reporting { ", group" } else { "" },
        ss.duration,
        ss.samples,
    )
}

#[cfg(test)]
mod tests {
    use super::format_rate;

    #[test]
    fn rates_have_no_spurious_decimals() {
        assert_eq!(format_rate(1_310_251.242_4), "1,310,251/s");
        assert_eq!(format_rate(999.6), "1,000/s");
        assert_eq!(format_rate(100.0), "100/s");
        assert_eq!(format_rate(12.34), "12.3/s");
        assert_eq!(format_rate(f64::NAN), "-/s");
    }
}
