//! Human-readable, CSV and file output.

use flashgc_core::RunResult;
use std::fmt::Write as _;
use std::io::Write as _;

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename.
pub fn write_atomic(path: &str, bytes: &[u8]) -> std::io::Result<()> {
    let p = std::path::Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, p)
}

fn gib(pages: u64, page_bytes: u32) -> f64 {
    pages as f64 * page_bytes as f64 / (1u64 << 30) as f64
}

/// Memory the machine has available now (Linux `MemAvailable`), in GiB.
pub fn available_memory_gib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / (1u64 << 20) as f64)
}

/// Peak resident set size of this process (Linux `VmHWM`), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The garbage-proportion trigger, when set: what it is and how many victims it took.
fn gc_trigger_note(r: &RunResult) -> String {
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

/// The report of one run, for a terminal.
pub fn human(r: &RunResult, secs: f64) -> String {
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
        "\nuser writes {} pages ({:.2} GiB) | GC writes {} | erases {} | GC victims {} in {} episodes | reads {} | trims {}",
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
    let _ = writeln!(
        s,
        "\nmetadata memory ({:.2} bytes per logical page in all)",
        r.memory_bytes_per_lpn
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
    let metadata: u64 = r.memory.iter().map(|m| m.bytes).sum();
    let estimate = metadata + (8 << 20);
    let _ = write!(
        s,
        "memory: estimated {:.3} GiB before the run (metadata + 8 MiB process)",
        estimate as f64 / (1u64 << 30) as f64
    );
    match peak_rss_bytes() {
        Some(rss) => {
            let _ = writeln!(s, ", peak RSS {:.3} GiB", rss as f64 / (1u64 << 30) as f64);
        }
        None => {
            let _ = writeln!(s);
        }
    }
    for note in &r.notes {
        let _ = writeln!(s, "note: {note}");
    }
    let _ = writeln!(
        s,
        "\nsimulated {} flash programs in {:.2} s ({:.1} M programs/s wall clock)",
        t.flash_programs,
        secs,
        t.flash_programs as f64 / secs.max(1e-9) / 1e6
    );
    s
}

/// One table row per configuration; `costs` = measured classifier ns per user write.
pub fn compare_table(
    rs: &[(RunResult, f64)],
    costs: &[Option<f64>],
    pairing: Option<&str>,
) -> String {
    let mut s = String::new();
    let Some((first, _)) = rs.first() else {
        return "no configurations\n".into();
    };
    let l = &first.device.layout;
    let _ = writeln!(
        s,
        "flashgc {} compare | workload {} | seed {} | {:.2} GiB logical, op {:.4} ({}) | {} pages/segment | {:.2} x capacity written, steady state after {:.2} x",
        first.flashgc_version,
        first.workload,
        first.seed,
        first.device.logical_gib,
        l.op,
        l.op_given_as,
        l.pages_per_segment,
        first.total.user_writes as f64 / l.logical_pages as f64,
        first.warmup_user_pages as f64 / l.logical_pages as f64
    );
    if let Some(p) = pairing {
        let _ = writeln!(s, "schemes: {p}");
    }
    let t = gc_trigger_note(first);
    if !t.is_empty() {
        let _ = writeln!(s, "GC trigger:{}", t.trim_start_matches(';'));
    }
    let _ = writeln!(
        s,
        "{:<22} {:<20} {:>9} {:>9} {:>13} {:>10} {:>9} {:>10} {:>12} {:>8}",
        "placement",
        "victim",
        "WAF(ss)",
        "WAF(all)",
        "GC writes",
        "erases",
        "B/LPN",
        "cls ns/w",
        "model WAF",
        "secs"
    );
    for (i, (r, secs)) in rs.iter().enumerate() {
        let model = r
            .model
            .as_ref()
            .map(|m| format!("{:.4}", m.waf))
            .unwrap_or_else(|| "-".into());
        let cost = costs
            .get(i)
            .copied()
            .flatten()
            .map(|c| format!("{c:.1}"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            s,
            "{:<22} {:<20} {:>9.4} {:>9.4} {:>13} {:>10} {:>9.2} {:>10} {:>12} {:>8.2}",
            r.placement,
            r.victim,
            r.steady_state.waf,
            r.total.waf,
            r.total.gc_writes,
            r.total.erases,
            r.memory_bytes_per_lpn,
            cost,
            model,
            secs
        );
    }
    let _ = writeln!(
        s,
        "WAF = flash page programs / user page writes; pages are {} B; B/LPN = metadata bytes per logical page;\n\
         cls ns/w = classifier CPU time per user write (wall-clock micro-benchmark on this machine, not part of the results); secs = wall clock.",
        l.lpn_size
    );
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV with a `classifier_ns_per_write` column (wall clock) appended.
pub fn csv_with_costs(rs: &[RunResult], costs: &[Option<f64>]) -> String {
    let mut out = String::new();
    for (i, line) in csv(rs).lines().enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{line},classifier_ns_per_write");
        } else {
            let c = costs
                .get(i - 1)
                .copied()
                .flatten()
                .map(|c| format!("{c:.2}"))
                .unwrap_or_default();
            let _ = writeln!(out, "{line},{c}");
        }
    }
    out
}

/// CSV with one row per configuration.
pub fn csv(rs: &[RunResult]) -> String {
    let mut s = String::from(
        "placement,victim,workload,seed,logical_pages,op,pages_per_segment,user_writes,gc_writes,erases,waf,steady_state_waf,effective_alpha,model_waf,memory_bytes_per_lpn\n",
    );
    for r in rs {
        let l = &r.device.layout;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
            r.memory_bytes_per_lpn
        );
    }
    s
}
