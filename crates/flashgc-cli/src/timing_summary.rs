//! The human-readable summary of a timing report: latency percentiles, IOPS, bandwidth,
//! utilization, the write cache and firmware CPU lines, and the write-ratio series table
//! (`run --timing`, `serve`, `flashgc fio`). docs/timing.md describes the fields.

use flashgc_core::metrics::latency::LatencySummary;
use flashgc_core::metrics::result::TimingReport;
use std::fmt::Write as _;

/// Human-readable summary of a timing report (for `run --timing` output).
pub fn human(t: &TimingReport) -> String {
    let mut s = String::new();
    let lat = |name: &str, l: &LatencySummary, what: &str| {
        if l.count == 0 {
            // Percentiles of nothing would print as 0.0 us, which reads as instant service.
            return format!("  {name:5} latency: no {what}\n");
        }
        format!(
            "  {name:5} latency us: mean {:.1} | p50 {:.1} | p99 {:.1} | p99.9 {:.1} | p99.99 {:.1} | max {:.1}  ({} {what})\n",
            l.mean_us, l.p50_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us, l.count
        )
    };
    let _ = writeln!(
        s,
        "\ntiming: {:.3} s simulated, {:.0} IOPS, {:.1} MB/s{}",
        t.simulated_ns as f64 / 1e9,
        t.iops,
        t.bandwidth_mb_s,
        t.flash.as_ref().map_or(String::new(), |f| format!(
            ", GC {:.1} % of flash busy time",
            f.gc_time_share * 100.0
        ))
    );
    s += &lat("read", &t.read_latency, "requests");
    s += &lat("write", &t.write_latency, "requests");
    if let Some(l) = &t.flush_latency {
        // Flushes are not requests: the count closes the line as for the others.
        s += &lat("flush", l, "flushes");
    }
    if t.fua_writes > 0 {
        let _ = writeln!(
            s,
            "  {} of the writes with FUA (complete once programmed)",
            t.fua_writes
        );
    }
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    if let Some(f) = &t.flash {
        let _ = writeln!(
            s,
            "  utilization: channels mean {:.1} % max {:.1} %; {}s mean {:.1} % max {:.1} %",
            mean(&f.channel_utilization) * 100.0,
            max(&f.channel_utilization) * 100.0,
            f.cell_unit,
            mean(&f.cell_utilization) * 100.0,
            max(&f.cell_utilization) * 100.0
        );
    }
    if let Some(c) = &t.cache {
        let _ = writeln!(
            s,
            "  write cache {:?} {} pages: {} write hits, {} read hits, {} evictions ({} GCaR skips, {} entries scanned), {} dirty at end",
            c.policy, c.pages, c.write_hits, c.read_hits, c.evictions, c.gcar_skips, c.scanned_entries, c.dirty_at_end
        );
    }
    if let Some(c) = &t.cpu {
        let m = &c.time_ns;
        let _ = writeln!(
            s,
            "  firmware CPU {} core(s): utilization mean {:.2} % max {:.2} %; CPU queueing {:.3} us, service {:.3} us per request; ms: classifier {:.3}, victim {:.3}, GCaR scan {:.3}, ECC {:.3}, fingerprint {:.3} + lookup {:.3}, placement epochs {:.3}",
            c.cores,
            mean(&c.utilization) * 100.0,
            max(&c.utilization) * 100.0,
            c.queueing_us_per_request,
            c.service_us_per_request,
            m.classifier as f64 / 1e6,
            m.victim_select as f64 / 1e6,
            m.cache_scan as f64 / 1e6,
            m.ecc as f64 / 1e6,
            m.fingerprint as f64 / 1e6,
            m.fingerprint_lookup as f64 / 1e6,
            m.placement_epoch as f64 / 1e6,
        );
    }
    if !t.series.is_empty() {
        s += &series_table(&[("", t)]);
    }
    s
}

pub(crate) fn series_table(rows: &[(&str, &TimingReport)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  {:14} {:>9} {:>10} {:>9} {:>11} {:>11} {:>9} {:>11} {:>7}",
        "scheme", "GB(eq)", "IOPS", "MB/s", "rd p99 us", "wr p99 us", "erases", "GC moves", "WAF"
    );
    for (name, t) in rows {
        for p in &t.series {
            let _ = writeln!(
                s,
                "  {:14} {:>9.1} {:>10.0} {:>9.1} {:>11} {:>11} {:>9} {:>11} {:>7.3}",
                name,
                p.equivalent_gb,
                p.iops,
                p.bandwidth_mb_s,
                crate::output::p99_cell(&p.read),
                crate::output::p99_cell(&p.write),
                p.erases,
                p.gc_page_moves,
                p.waf_cumulative
            );
        }
    }
    s
}
