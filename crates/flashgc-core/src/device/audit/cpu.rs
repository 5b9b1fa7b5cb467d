//! Schedule audit of the firmware CPU (`device/cpu.rs`): every job a controller core runs,
//! priced again here from the operations it was issued for, and the rules the jobs and
//! the CPU report must satisfy (docs/controller.md, "Schedule audit").

use super::check::Violations;
use super::{with, Log, NO_REQ};
use crate::device::cpu::{CpuCosts, CpuReport, CpuTime};
use crate::ops::{Compute, FlashOp, Origin};
use std::collections::{HashMap, VecDeque};

/// One job of a core.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuJob {
    pub core: u32,
    /// When the work was issued (ready).
    pub ready: u64,
    pub start: u64,
    pub end: u64,
    /// The price of its operations as this audit computes it (`None`: a job the audit did
    /// not expect).
    pub price: Option<u64>,
    /// A host page operation's own work (it gates the host's flash operations).
    pub host: bool,
    pub req: u64,
    /// Cell and NoC reservations recorded before it (to find the flash operations it gates).
    pub at_op: usize,
    pub at_noc: usize,
}

/// Everything the CPU model did in one run.
#[derive(Debug, Default)]
pub(crate) struct CpuLog {
    pub jobs: Vec<CpuJob>,
    /// A placement's periodic work: (the core it was counted on, ns).
    pub placement: Vec<(u32, u64)>,
    /// CPU time by component, priced here.
    pub time: CpuTime,
    /// Jobs the audit expects next: (host, ns).
    expect: VecDeque<(bool, u64)>,
    /// Expected jobs that never ran.
    pub missing: u64,
}

/// Prices `ops` as docs/cpu.md says: returns (host ns, internal ns) and adds to `t`.
fn price(ops: &[FlashOp], c: &CpuCosts, t: &mut CpuTime) -> (u64, u64) {
    let (mut host, mut internal) = (0, 0);
    for op in ops {
        let (ns, origin) = match *op {
            FlashOp::Program { origin, .. } if origin == Origin::Host => {
                t.classifier += c.classifier_ns;
                (c.classifier_ns, origin)
            }
            FlashOp::Read { origin, .. } | FlashOp::Copyback { origin, .. } => {
                t.ecc += c.ecc_read_ns;
                (c.ecc_read_ns, origin)
            }
            FlashOp::Erase { origin, .. } if origin == Origin::Gc => {
                t.victim_select += c.victim_ns;
                (c.victim_ns, origin)
            }
            FlashOp::Compute { work, origin } => {
                let (ns, slot) = match work {
                    Compute::EccDecode { pages, corrected } => (
                        pages as u64 * (c.ecc_decode_ns + corrected as u64 * c.ecc_correct_ns),
                        &mut t.ecc,
                    ),
                    Compute::Fingerprint { pages } => {
                        (pages as u64 * c.fingerprint_ns, &mut t.fingerprint)
                    }
                    Compute::FingerprintLookup { lookups } => (
                        lookups as u64 * c.fingerprint_lookup_ns,
                        &mut t.fingerprint_lookup,
                    ),
                    Compute::Classifier { writes } => {
                        (writes as u64 * c.classifier_ns, &mut t.classifier)
                    }
                    Compute::VictimSelect => (c.victim_ns, &mut t.victim_select),
                    Compute::CacheScan { entries } => {
                        (entries as u64 * c.cache_scan_ns, &mut t.cache_scan)
                    }
                };
                *slot += ns;
                (ns, origin)
            }
            _ => (0, Origin::Host),
        };
        if origin == Origin::Host {
            host += ns;
        } else {
            internal += ns;
        }
    }
    (host, internal)
}

/// The CPU model prices `ops` (`page`: one host page operation's, whose host work runs
/// first; else work issued outside a host operation, one job).
pub(crate) fn batch(ops: &[FlashOp], costs: &CpuCosts, page: bool) {
    with(|l| {
        let c = &mut l.cpu;
        c.missing += c.expect.len() as u64;
        c.expect.clear();
        let (h, i) = price(ops, costs, &mut c.time);
        if page {
            c.expect
                .extend([(true, h), (false, i)].into_iter().filter(|x| x.1 > 0));
        } else if h + i > 0 {
            c.expect.push_back((false, h + i));
        }
    });
}

/// Core `core` runs work issued at `ready` from `start` to `end`.
pub(crate) fn job(core: usize, ready: u64, start: u64, end: u64) {
    with(|l| {
        let (host, price) = match l.cpu.expect.pop_front() {
            Some((h, ns)) => (h, Some(ns)),
            None => (false, None),
        };
        let job = CpuJob {
            core: core as u32,
            ready,
            start,
            end,
            price,
            host,
            req: if host { l.cur_req } else { NO_REQ },
            at_op: l.ops.len(),
            at_noc: l.noc.res.len(),
        };
        l.cpu.jobs.push(job);
    });
}

/// A placement's periodic work of `ns`, counted on the least busy core (`busy` before).
pub(crate) fn placement(ns: u64, busy: &[u64]) {
    with(|l| {
        let k = (0..busy.len()).min_by_key(|&k| busy[k]).unwrap_or(0);
        l.cpu.placement.push((k as u32, ns));
        l.cpu.time.placement_epoch += ns;
    });
}

/// The rules on the jobs: no two overlap on a core; each takes its price; none starts
/// before it was issued; each host job's request completes no earlier than it ends, and the
/// request's host flash and NoC reservations start no earlier than its CPU work gates them
/// ([`gates`]; `gated`: first come first served).
pub(super) fn check(log: &Log, gated: bool, v: &mut Violations) {
    let c = &log.cpu;
    if c.missing > 0 || !c.expect.is_empty() {
        v.push(|| {
            format!(
                "{} priced CPU jobs never ran",
                c.missing + c.expect.len() as u64
            )
        });
    }
    let mut per: Vec<Vec<(u64, u64, usize)>> = Vec::new();
    for (i, j) in c.jobs.iter().enumerate() {
        match j.price {
            Some(p) if j.end - j.start == p => {}
            _ => v.push(|| format!("CPU job {i} {j:?} does not take its price")),
        }
        if j.start < j.ready {
            v.push(|| format!("CPU job {i} {j:?} starts before it was issued"));
        }
        let k = j.core as usize;
        if per.len() <= k {
            per.resize(k + 1, Vec::new());
        }
        per[k].push((j.start, j.end, i));
        if j.req == NO_REQ {
            continue;
        }
        match log.reqs.get(j.req as usize) {
            Some(q) if q.ends == 1 && q.done < j.end => {
                v.push(|| format!("request {} {q:?} completes before its CPU job {j:?}", j.req))
            }
            Some(_) => {}
            None => v.push(|| format!("CPU job {i} {j:?} of an unknown request")),
        }
    }
    for (k, list) in per.iter_mut().enumerate() {
        list.sort_unstable();
        for w in list.windows(2) {
            if w[1].0 < w[0].1 {
                let (a, b) = (&c.jobs[w[0].2], &c.jobs[w[1].2]);
                v.push(|| format!("overlap on CPU core {k}: {a:?} and {b:?}"));
            }
        }
    }
    gates(log, gated, v);
}

/// Host reservations start no earlier than the host CPU job of their page: `gated` (first
/// come first served), the last host job recorded before them, when it is of the same
/// request; under deferred commit, which reserves them later, the first host job of their
/// request (the driver's host ready time only grows over a request's pages; with the
/// audit's costs every page with a host flash operation has host CPU work).
fn gates(log: &Log, gated: bool, v: &mut Violations) {
    let host: Vec<&CpuJob> = log.cpu.jobs.iter().filter(|j| j.host).collect();
    let mut first: HashMap<u64, &CpuJob> = HashMap::new();
    for j in &host {
        first.entry(j.req).or_insert(j);
    }
    let gate = |at: &dyn Fn(&CpuJob) -> usize, i: usize, req: u64| {
        if req == NO_REQ {
            return None;
        }
        if !gated {
            return first.get(&req).copied();
        }
        let n = host.partition_point(|j| at(j) <= i);
        n.checked_sub(1).map(|k| host[k]).filter(|j| j.req == req)
    };
    for (i, o) in log.ops.iter().enumerate() {
        if o.origin != Origin::Host {
            continue;
        }
        if let Some(j) = gate(&|j| j.at_op, i, o.req) {
            if o.start < j.end {
                v.push(|| format!("host cell op {i} {o:?} starts before its CPU work {j:?}"));
            }
        }
    }
    let n = &log.noc;
    for (i, x) in n.res.iter().enumerate() {
        let c = &n.calls[x.call as usize];
        if let Some(j) = gate(&|j| j.at_noc, i, c.req) {
            if x.start < j.end {
                v.push(|| format!("host NoC res {i} {x:?} starts before its CPU work {j:?}"));
            }
        }
    }
}

/// The CPU report's totals equal what the record sums to: busy time per core (its
/// utilisation over `span` ns), time by component, internal time, host operations and
/// those delayed, queueing and service time per request.
pub(super) fn totals(log: &Log, rep: &CpuReport, span: u64, requests: u64, v: &mut Violations) {
    let c = &log.cpu;
    let cores = rep.cores as usize;
    let mut busy = vec![0u64; cores];
    let (mut internal, mut host_ops, mut delayed, mut wait, mut service) = (0, 0, 0, 0, 0);
    for j in &c.jobs {
        if let Some(b) = busy.get_mut(j.core as usize) {
            *b += j.end - j.start;
        }
        if j.host {
            host_ops += 1;
            delayed += (j.start > j.ready) as u64;
            wait += j.start - j.ready;
            service += j.end - j.start;
        } else {
            internal += j.end - j.start;
        }
    }
    for &(k, ns) in &c.placement {
        busy[k as usize] += ns;
        internal += ns;
    }
    let util: Vec<f64> = busy
        .iter()
        .map(|&b| match span {
            0 => 0.0,
            s => (b as f64 / s as f64).min(1.0),
        })
        .collect();
    let per_req = |ns: u64| match requests {
        0 => 0.0,
        n => ns as f64 / n as f64 / 1000.0,
    };
    let sums = [
        (
            "utilization",
            format!("{util:?}"),
            format!("{:?}", rep.utilization),
        ),
        (
            "time_ns",
            format!("{:?}", c.time),
            format!("{:?}", rep.time_ns),
        ),
        (
            "internal_ns",
            internal.to_string(),
            rep.internal_ns.to_string(),
        ),
        ("host_ops", host_ops.to_string(), rep.host_ops.to_string()),
        (
            "delayed_ops",
            delayed.to_string(),
            rep.delayed_ops.to_string(),
        ),
        (
            "queueing_us_per_request",
            per_req(wait).to_string(),
            rep.queueing_us_per_request.to_string(),
        ),
        (
            "service_us_per_request",
            per_req(service).to_string(),
            rep.service_us_per_request.to_string(),
        ),
    ];
    for (name, want, got) in sums {
        if want != got {
            v.push(|| format!("CPU report {name} is {got}, the record sums to {want}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker reports two jobs overlapping on one core, a job shorter than its price,
    /// and a report whose totals differ from the record.
    #[test]
    fn hand_made_violations_are_reported() {
        let job = |core, start, end, price| CpuJob {
            core,
            ready: 0,
            start,
            end,
            price: Some(price),
            host: false,
            req: NO_REQ,
            at_op: 0,
            at_noc: 0,
        };
        let mut log = Log::default();
        log.cpu.jobs = vec![job(0, 0, 100, 100), job(0, 50, 150, 100), job(1, 0, 10, 20)];
        let mut v = Violations::default();
        check(&log, true, &mut v);
        let rep = CpuReport {
            cores: 2,
            costs: crate::device::cpu::CpuCosts {
                classifier_ns: 0,
                victim_ns: 0,
                cache_scan_ns: 0,
                ecc_read_ns: 0,
                ecc_decode_ns: 0,
                ecc_correct_ns: 0,
                fingerprint_ns: 0,
                fingerprint_lookup_ns: 0,
            },
            utilization: vec![0.2, 0.02],
            time_ns: CpuTime::default(),
            internal_ns: 210,
            host_ops: 0,
            delayed_ops: 0,
            queueing_us_per_request: 0.0,
            service_us_per_request: 0.0,
        };
        totals(&log, &rep, 1000, 1, &mut v);
        let all = v.0.join("\n");
        assert!(all.contains("overlap on CPU core 0"), "{all}");
        assert!(all.contains("does not take its price"), "{all}");
        // Core 0 was busy 200 of 1000 ns, core 1 10 ns: the report's 0.01 is wrong.
        assert!(all.contains("CPU report utilization"), "{all}");
        assert!(!all.contains("CPU report internal_ns"), "{all}");
    }
}
