//! The NoC model's section of a result: task queues, copy-backs, relocation time and the
//! paper's time series.

use super::{GcPath, NocMedia, NocParams, Task};
use serde::Serialize;

/// One window of the time series (paper Figs. 7 and 8).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocPoint {
    /// Window start, simulated ms.
    pub t_ms: f64,
    /// Host requests arriving in the window.
    pub host_requests: u64,
    /// GC channel tasks (R_gc, W_gc, erases, direct programs) issued in the window.
    pub gc_tasks: u64,
    /// Pages relocated (copy-backs) issued in the window.
    pub copybacks: u64,
    /// Host requests arrived but not completed at the window's end.
    pub pending_host: i64,
    /// GC tasks issued but not completed at the window's end.
    pub pending_gc: i64,
}

/// The `noc` section of a result: what the controller model measured (latencies, WAF and
/// erases are in the record's common sections).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocReport {
    /// GC path.
    pub path: GcPath,
    /// Parameters used.
    pub params: NocParams,
    /// One interconnect crossing, us (paper Eq. 1).
    pub traversal_us: f64,
    /// Pages relocated by GC (copy-backs).
    pub copybacks: u64,
    /// Relocated pages that had errors (took the corrected round trip).
    pub error_pages: u64,
    /// Tasks issued per queue.
    pub tasks: NocTasks,
    /// Sum over relocated pages of (program end - read start), us.
    pub relocation_elapsed_us: f64,
    /// Sum over relocated pages of the resource time on their path (no waiting), us.
    pub relocation_service_us: f64,
    /// GC victims erased (timed; equals the FTL's erases of the measured run).
    pub erases: u64,
    /// Simulated time until the last operation completed, s (from the first arrival's
    /// time origin, 0).
    pub simulated_s: f64,
    /// Width of one series window, ms.
    pub window_ms: f64,
    /// Host / GC / pending counts over time.
    pub series: Vec<NocPoint>,
    /// Bytes of model state per logical page (the FTL's own tables not included).
    pub model_bytes_per_logical_page: f64,
    /// What the model approximates.
    pub notes: Vec<&'static str>,
    /// Host reads served from the controller's write buffer because the scheduler would
    /// have started them before their page's host program ended (as `write_buffer_reads`
    /// of the flash model; docs/controller.md). With a priority scheduler; absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_buffer_reads: Option<u64>,
    /// Host and translation reads that waited for their page's GC write-back, or read its
    /// old copy (as `gc_move_reads` of the flash model). Absent when none did.
    #[serde(skip_serializing_if = "crate::types::is_zero")]
    pub gc_move_reads: u64,
}

/// Tasks issued per channel queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NocTasks {
    /// Host reads.
    pub r_host: u64,
    /// GC reads.
    pub r_gc: u64,
    /// Host writes.
    pub w_host: u64,
    /// GC writes (round trip through the CPU).
    pub w_gc: u64,
    /// GC erases (per block).
    pub erase: u64,
    /// Error-free pages programmed from the FMC buffer (`selective` only).
    pub direct: u64,
}

/// What [`NOTES`] says of GC under a queued GC mode (preemptible, background, idle), in place
/// of its foreground line ([`gc_mode_notes`]).
const QUEUED_GC_NOTE: &str = "GC is queued: a victim's tasks run in the idle gaps of the resources before the next host arrival, and are forced when a host write needs a segment whose erase is still queued";

/// The model's stated approximations (printed with every report; under a queued GC mode the
/// second says so, [`gc_mode_notes`]).
pub const NOTES: &[&str] = &[
    "channel hardware serves tasks first come first served in issue order; planes of a channel do not overlap",
    "GC runs in the foreground: a victim's tasks are issued when the host write that triggered it arrives",
    "selective: an error-free page is programmed on its FTL-chosen destination channel without an interconnect crossing, even when that channel differs from the source",
    "ECC check and correction times default to 0 (not given by the paper); the verdict's control message is free",
    "synthetic profiles follow the paper's Table 3 statistics; its traces are not public and its arrival rates are not given",
];

/// [`NOTES`] as they hold under a GC mode that schedules GC work when the FTL issues it
/// (`immediate`: foreground, per-die) or that queues it.
pub fn gc_mode_notes(immediate: bool) -> Vec<&'static str> {
    NOTES
        .iter()
        .map(|&n| match immediate || n != NOTES[1] {
            true => n,
            false => QUEUED_GC_NOTE,
        })
        .collect()
}

/// Latency improvement of `selective` over `conventional` on the same workload, in percent
/// of the conventional figure (mean and peak; positive = selective is faster).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NocComparison {
    /// (conventional - selective) / conventional mean read latency, %.
    pub read_mean_improvement_pct: f64,
    /// Same for the mean write latency, %.
    pub write_mean_improvement_pct: f64,
    /// Same for the peak read latency, %.
    pub read_max_improvement_pct: f64,
    /// Same for the peak write latency, %.
    pub write_max_improvement_pct: f64,
}

impl NocComparison {
    /// Compares (mean read, mean write, max read, max write) latencies of the two paths.
    pub fn new(conventional: [f64; 4], selective: [f64; 4]) -> NocComparison {
        let pct = |c: f64, s: f64| if c > 0.0 { (c - s) / c * 100.0 } else { 0.0 };
        NocComparison {
            read_mean_improvement_pct: pct(conventional[0], selective[0]),
            write_mean_improvement_pct: pct(conventional[1], selective[1]),
            read_max_improvement_pct: pct(conventional[2], selective[2]),
            write_max_improvement_pct: pct(conventional[3], selective[3]),
        }
    }
}

pub(super) fn build(m: &NocMedia) -> NocReport {
    let s = &m.series;
    let mut series = Vec::with_capacity(s.host_requests.len());
    let (mut ph, mut pg) = (0i64, 0i64);
    for i in 0..s.host_requests.len() {
        ph += s.pending_host[i];
        pg += s.pending_gc[i];
        series.push(NocPoint {
            t_ms: (i as u64 * s.window_ns) as f64 / 1e6,
            host_requests: s.host_requests[i],
            gc_tasks: s.gc_tasks[i],
            copybacks: s.copybacks[i],
            pending_host: ph,
            pending_gc: pg,
        });
    }
    let tc = m.tasks;
    let model_bytes =
        (m.chan_free.len() + m.link_free.len()) * 8 + s.host_requests.capacity() * 8 * 5;
    NocReport {
        path: m.p.path,
        params: m.p.clone(),
        traversal_us: m.trav as f64 / 1000.0,
        copybacks: m.copybacks,
        error_pages: m.error_pages,
        tasks: NocTasks {
            r_host: tc[Task::RHost as usize],
            r_gc: tc[Task::RGc as usize],
            w_host: tc[Task::WHost as usize],
            w_gc: tc[Task::WGc as usize],
            erase: tc[Task::Erase as usize],
            direct: tc[Task::Direct as usize],
        },
        relocation_elapsed_us: m.reloc_elapsed as f64 / 1000.0,
        relocation_service_us: m.reloc_service as f64 / 1000.0,
        erases: m.erases,
        simulated_s: m.last_end as f64 / 1e9,
        window_ms: s.window_ns as f64 / 1e6,
        series,
        model_bytes_per_logical_page: model_bytes as f64 / m.logical_pages.max(1) as f64,
        notes: NOTES.to_vec(),
        write_buffer_reads: None,
        gc_move_reads: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{gc_mode_notes, NOTES};

    /// The foreground line holds only where GC work is scheduled when issued; a queued mode's
    /// report says GC runs in idle gaps instead, and keeps every other note.
    #[test]
    fn the_gc_note_follows_the_gc_mode() {
        assert_eq!(gc_mode_notes(true), NOTES.to_vec());
        let queued = gc_mode_notes(false);
        assert_eq!(queued.len(), NOTES.len());
        assert!(queued[1].starts_with("GC is queued"), "{}", queued[1]);
        assert!(!queued.iter().any(|n| n.contains("foreground")));
        assert_eq!((queued[0], &queued[2..]), (NOTES[0], &NOTES[2..]));
    }
}
