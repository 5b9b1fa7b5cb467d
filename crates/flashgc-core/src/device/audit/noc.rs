//! Schedule audit of the NoC controller model (`device/noc`): every reservation of a
//! channel, an interconnect link, the SRAM port or the ECC unit, grouped by the media call
//! that made it, and the rules it must satisfy (docs/controller.md, "Schedule audit").

use super::check::Violations;
use super::{with, Log, NO_REQ};
use crate::device::noc::{Interconnect, NocParams, NocReport, Task};
use crate::ops::Origin;
use std::collections::HashMap;

/// A NoC resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Res {
    /// A channel's flash hardware (its task queues).
    Chan(u32),
    /// An interconnect link (index as the model numbers them).
    Link(u32),
    /// The SRAM port.
    Sram,
    /// The CPU's ECC unit.
    Ecc,
}

/// Which media call made a reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    Read,
    Unmapped,
    Program,
    MoveRead,
    MoveWrite,
    Erase,
}

/// One reservation of a NoC resource.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NocRes {
    pub res: Res,
    /// The channel task (channel reservations only).
    pub task: Option<Task>,
    pub start: u64,
    pub end: u64,
    /// The ready time the model passed for it.
    pub ready: u64,
    /// The resource's free time before (channels; 0 otherwise).
    pub free_before: u64,
    /// The media call it belongs to (index into `NocLog::calls`).
    pub call: u32,
}

/// One media call: an operation of the scheduler's op stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NocCall {
    pub call: Call,
    pub origin: Origin,
    /// The ready time the scheduler passed (the operation's queue ready time).
    pub ready: u64,
    pub mv: Option<(u32, u32)>,
    /// Segment (erases).
    pub seg: u32,
    /// Page (reads and programs; 0 otherwise): the write-buffer check finds a buffered
    /// read's host program by it.
    pub ppn: u32,
    /// Request (host operations; `NO_REQ` otherwise).
    pub req: u64,
    /// Committed out of the policy's order (see `CellOp::forced`).
    pub forced: bool,
}

/// Everything the NoC model reserved in one run.
#[derive(Debug, Default)]
pub(crate) struct NocLog {
    pub res: Vec<NocRes>,
    pub calls: Vec<NocCall>,
}

/// The NoC model's service times, for the checks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NocRules {
    pub read: u64,
    pub program: u64,
    pub erase: u64,
    pub sram: u64,
    pub trav: u64,
    pub ecc_check: u64,
    pub ecc_correct: u64,
    pub selective: bool,
    pub interconnect: Interconnect,
    pub seg_blocks: u32,
    /// The `noc-priority` ranks apply.
    pub priority: bool,
}

impl NocRules {
    /// The rules of parameters `p`.
    pub fn of(p: &NocParams, seg_blocks: u32) -> NocRules {
        NocRules {
            read: p.read_ns,
            program: p.program_ns,
            erase: p.erase_ns,
            sram: p.sram_ns,
            trav: p.traversal_ns(),
            ecc_check: p.ecc_check_ns,
            ecc_correct: p.ecc_correct_ns,
            selective: p.path == crate::device::noc::GcPath::Selective,
            interconnect: p.interconnect,
            seg_blocks,
            priority: false,
        }
    }
}

/// The NoC media begins call `call` of `origin` ready at `ready` (`mv`: a page move's
/// pair; `seg`: an erase's segment).
pub(crate) fn call(
    call: Call,
    origin: Origin,
    ready: u64,
    mv: Option<(u32, u32)>,
    seg: u32,
    ppn: u32,
) {
    with(|l| {
        let req = if origin == Origin::Host {
            l.cur_req
        } else {
            NO_REQ
        };
        let forced = l.forcing > 0;
        l.noc.calls.push(NocCall {
            call,
            origin,
            ready,
            mv,
            seg,
            ppn,
            req,
            forced,
        });
    });
}

/// A reservation of `res` (`task`: a channel task) ready at `ready`, from `start` to
/// `end`; `free_before`: the resource's free time before it.
pub(crate) fn res(
    res: Res,
    task: Option<Task>,
    ready: u64,
    free_before: u64,
    (start, end): (u64, u64),
) {
    with(|l| {
        let call = l.noc.calls.len().saturating_sub(1) as u32;
        l.noc.res.push(NocRes {
            res,
            task,
            start,
            end,
            ready,
            free_before,
            call,
        });
    });
}

fn show(i: usize, x: &NocRes, c: &NocCall) -> String {
    format!(
        "noc res {i} {:?} {:?} [{}, {}] ready {} ({:?} {:?} ready {} req {})",
        x.res, x.task, x.start, x.end, x.ready, c.call, c.origin, c.ready, c.req as i64
    )
}

/// Every rule on the NoC part of `log` (`reads_first`: the `noc-priority` ranks apply).
pub(super) fn check(log: &Log, r: &NocRules, pps: u32, v: &mut Violations) {
    let n = &log.noc;
    exclusive(n, v);
    service(n, r, v);
    paths(n, r, v);
    moves(n, pps, v);
    requests(log, v);
    if r.priority {
        priorities(n, v);
    }
}

/// No two reservations overlap on one resource.
fn exclusive(n: &NocLog, v: &mut Violations) {
    let mut per: HashMap<Res, Vec<(u64, u64, usize)>> = HashMap::new();
    for (i, x) in n.res.iter().enumerate() {
        per.entry(x.res).or_default().push((x.start, x.end, i));
    }
    for list in per.values_mut() {
        list.sort_unstable();
        for w in list.windows(2) {
            let ((_, e0, i0), (s1, _, i1)) = (w[0], w[1]);
            if s1 < e0 {
                let (a, b) = (&n.res[i0], &n.res[i1]);
                v.push(|| {
                    format!(
                        "overlap on a NoC resource: {} and {}",
                        show(i0, a, &n.calls[a.call as usize]),
                        show(i1, b, &n.calls[b.call as usize])
                    )
                });
            }
        }
    }
}

/// Each reservation holds its resource exactly its service time (the model has no
/// stretching: a reservation is [max(ready, free), + service)) and starts no earlier than
/// it is ready.
fn service(n: &NocLog, r: &NocRules, v: &mut Violations) {
    for (i, x) in n.res.iter().enumerate() {
        let ok: &[u64] = match (x.res, x.task) {
            (Res::Chan(_), Some(Task::RHost | Task::RGc)) => &[r.read],
            (Res::Chan(_), Some(Task::WHost | Task::WGc | Task::Direct)) => &[r.program],
            (Res::Chan(_), Some(Task::Erase)) => &[r.erase],
            (Res::Link(_), _) => &[r.trav],
            (Res::Sram, _) => &[r.sram],
            (Res::Ecc, _) => &[r.ecc_check, r.ecc_check + r.ecc_correct],
            (Res::Chan(_), None) => &[],
        };
        let c = &n.calls[x.call as usize];
        if !ok.contains(&(x.end - x.start)) {
            v.push(|| format!("{} does not take its service time {ok:?}", show(i, x, c)));
        }
        if x.start < x.ready || (matches!(x.res, Res::Chan(_)) && x.start < x.free_before) {
            v.push(|| format!("{} starts before it is ready or free", show(i, x, c)));
        }
    }
}

/// The link a crossing toward the CPU (`dir` 0) or the flash (1) of channel `ch` takes.
fn link(r: &NocRules, ch: Option<u32>, dir: u32) -> Option<u32> {
    match r.interconnect {
        Interconnect::Shared => Some(0),
        Interconnect::Duplex => Some(dir),
        Interconnect::Port => ch.map(|c| 2 * c + dir),
    }
}

/// Each call's reservations follow its data path (docs/noc.md, "Paths of one page"): the
/// resources in order, each step ready when the one before ends (the first when the call
/// is ready; a segment's block erases all when the erase is), on the right links.
fn paths(n: &NocLog, r: &NocRules, v: &mut Violations) {
    let mut by_call: Vec<Vec<usize>> = vec![Vec::new(); n.calls.len()];
    for (i, x) in n.res.iter().enumerate() {
        by_call[x.call as usize].push(i);
    }
    for (k, c) in n.calls.iter().enumerate() {
        let list = &by_call[k];
        let rs: Vec<&NocRes> = list.iter().map(|&i| &n.res[i]).collect();
        let host = matches!(c.origin, Origin::Host | Origin::Translation);
        // The channel the call's flash task is on (its last reservation, but for a read).
        let chan = |x: &NocRes| match x.res {
            Res::Chan(ch) => Some(ch),
            _ => None,
        };
        let shape_ok = match (c.call, rs.as_slice()) {
            (Call::Read, [f, l, e, s]) if host => {
                f.task == Some(Task::RHost)
                    && l.res == Res::Link(link(r, chan(f), 0).unwrap_or(u32::MAX))
                    && e.res == Res::Ecc
                    && s.res == Res::Sram
            }
            (Call::Read, [f, l, e]) if !host => {
                f.task == Some(Task::RGc)
                    && l.res == Res::Link(link(r, chan(f), 0).unwrap_or(u32::MAX))
                    && e.res == Res::Ecc
            }
            (Call::Unmapped, [s]) => s.res == Res::Sram,
            (Call::Program, [s, l, f]) => {
                let want = if c.origin == Origin::Host {
                    Task::WHost
                } else {
                    Task::WGc
                };
                s.res == Res::Sram
                    && l.res == Res::Link(link(r, chan(f), 1).unwrap_or(u32::MAX))
                    && f.task == Some(want)
            }
            (Call::MoveRead, [f]) => f.task == Some(Task::RGc),
            (Call::MoveWrite, [l, e, f]) => {
                r.selective
                    && is_dir(r, l.res, 0)
                    && e.res == Res::Ecc
                    && f.task == Some(Task::Direct)
                    && e.end - e.start == r.ecc_check
            }
            (Call::MoveWrite, [l, e, b, f]) => {
                is_dir(r, l.res, 0)
                    && e.res == Res::Ecc
                    && b.res == Res::Link(link(r, chan(f), 1).unwrap_or(u32::MAX))
                    && f.task == Some(Task::WGc)
                    && (!r.selective || e.end - e.start == r.ecc_check + r.ecc_correct)
            }
            (Call::Erase, l) => {
                l.len() == r.seg_blocks as usize && l.iter().all(|x| x.task == Some(Task::Erase))
            }
            _ => false,
        };
        if !shape_ok {
            v.push(|| format!("NoC call {k} {c:?} takes the path {rs:?}"));
            continue;
        }
        for (j, x) in rs.iter().enumerate() {
            let want = if j == 0 || c.call == Call::Erase {
                c.ready
            } else {
                rs[j - 1].end
            };
            if x.ready != want {
                v.push(|| {
                    format!(
                        "{} ready at {}, not when the step before ended ({want})",
                        show(list[j], x, c),
                        x.ready
                    )
                });
            }
        }
    }
}

/// Whether `res` is a link toward the CPU (`dir` 0) or the flash.
fn is_dir(r: &NocRules, res: Res, dir: u32) -> bool {
    match (res, r.interconnect) {
        (Res::Link(0), Interconnect::Shared) => true,
        (Res::Link(i), Interconnect::Duplex) => i == dir,
        (Res::Link(i), Interconnect::Port) => i % 2 == dir,
        _ => false,
    }
}

/// A write-back starts after its read ended; a victim's erase after its relocation reads
/// ended (docs/noc.md: the erase is ready when the victim's reads are done).
fn moves(n: &NocLog, pps: u32, v: &mut Violations) {
    let mut read_end: HashMap<(u32, u32), Vec<u64>> = HashMap::new();
    let mut victim: HashMap<u32, u64> = HashMap::new();
    let mut first: Vec<Option<usize>> = vec![None; n.calls.len()];
    for (i, x) in n.res.iter().enumerate() {
        first[x.call as usize].get_or_insert(i);
    }
    for (k, c) in n.calls.iter().enumerate() {
        let Some(fi) = first[k] else { continue };
        let f = &n.res[fi];
        match (c.call, c.mv) {
            (Call::MoveRead, Some(m)) => {
                read_end.entry(m).or_default().push(f.end);
                let e = victim.entry(m.0 / pps).or_default();
                *e = (*e).max(f.end);
            }
            (Call::MoveWrite, Some(m)) => match read_end.get_mut(&m).and_then(|l| l.pop()) {
                Some(e) if f.start < e => v.push(|| {
                    format!(
                        "NoC write-back {c:?} starts at {} before its read ended ({e})",
                        f.start
                    )
                }),
                Some(_) => {}
                None => v.push(|| format!("NoC write-back {c:?} without its read")),
            },
            (Call::Erase, _) => {
                let e = victim.remove(&c.seg).unwrap_or(0);
                if let Some(x) = n
                    .res
                    .iter()
                    .skip(fi)
                    .take_while(|x| x.call as usize == k)
                    .find(|x| x.start < e)
                {
                    v.push(|| {
                        format!("NoC erase {c:?} {x:?} before its victim's reads ended ({e})")
                    });
                }
            }
            _ => {}
        }
    }
}

/// A host reservation starts no earlier than its request arrived, and the request
/// completes no earlier than it ends.
fn requests(log: &Log, v: &mut Violations) {
    let n = &log.noc;
    for (i, x) in n.res.iter().enumerate() {
        let c = &n.calls[x.call as usize];
        if c.req == NO_REQ {
            continue;
        }
        match log.reqs.get(c.req as usize) {
            Some(q) if x.start < q.arrival || (q.ends == 1 && q.done < x.end) => v.push(|| {
                format!(
                    "{} outside its request (arrival {}, done {})",
                    show(i, x, c),
                    q.arrival,
                    q.done
                )
            }),
            Some(_) => {}
            None => v.push(|| format!("{} of an unknown request", show(i, x, c))),
        }
    }
}

/// The queue rank under `noc-priority` (docs/controller.md): `R_host`, `W_host`, `R_gc`,
/// `W_gc` (and direct write-backs), erases.
fn rank(t: Task) -> u8 {
    match t {
        Task::RHost => 0,
        Task::WHost => 1,
        Task::RGc => 2,
        Task::WGc | Task::Direct => 3,
        Task::Erase => 4,
    }
}

/// `noc-priority`: no channel task claims its channel while a host task of a better rank
/// (a host read `R_host`, or a host write `W_host`, of origin Host), queued on that channel
/// and ready by then, starts only after it ends. A task claims its channel at
/// max(its call's ready time, the channel's free time before it): the scheduler decides
/// there, at the earliest (`probe_*`); a waiting host operation is ready from its call's
/// ready time. Not checked (the model's documented approximations, docs/controller.md):
/// forced commits, translation reads and writes (reserved when issued), a page move's
/// write-back (one decision with its read, on the read's channel), and the order among GC
/// tasks (they keep the FTL's order).
fn priorities(n: &NocLog, v: &mut Violations) {
    // Per channel: waiting host tasks (start, call ready, rank, index), by start.
    let mut per: HashMap<u32, Vec<(u64, u64, u8, usize)>> = HashMap::new();
    for (i, x) in n.res.iter().enumerate() {
        let c = &n.calls[x.call as usize];
        if let (Res::Chan(ch), Some(t)) = (x.res, x.task) {
            if c.origin == Origin::Host && matches!(t, Task::RHost | Task::WHost) {
                per.entry(ch)
                    .or_default()
                    .push((x.start, c.ready, rank(t), i));
            }
        }
    }
    for list in per.values_mut() {
        list.sort_unstable();
    }
    // Per erase call and channel: its first task's claim (one decision per erase).
    let mut erase_claim: HashMap<(u32, u32), u64> = HashMap::new();
    for (i, x) in n.res.iter().enumerate() {
        let (Res::Chan(ch), Some(t)) = (x.res, x.task) else {
            continue;
        };
        let c = &n.calls[x.call as usize];
        if c.forced || c.origin == Origin::Translation || c.call == Call::MoveWrite {
            continue;
        }
        let claim = match t {
            Task::Erase => *erase_claim
                .entry((x.call, ch))
                .or_insert(c.ready.max(x.free_before)),
            _ => c.ready.max(x.free_before),
        };
        let Some(list) = per.get(&ch) else { continue };
        let j = list.partition_point(|w| w.0 < x.end);
        if let Some(w) = list[j..]
            .iter()
            .find(|w| w.2 < rank(t) && w.1 <= claim && w.3 != i)
        {
            let (wi, wx) = (w.3, &n.res[w.3]);
            v.push(|| {
                format!(
                    "noc-priority: {} claimed its channel at {claim} while {} was ready",
                    show(i, x, c),
                    show(wi, wx, &n.calls[wx.call as usize])
                )
            });
        }
    }
}

/// The NoC report's totals equal what the record sums to: tasks per queue, copy-backs,
/// erroneous pages (when the record tells them apart: selective copy-back, or a correction
/// time), erases, and the relocations' elapsed time (write-back end minus its read's start)
/// and service time (the sum of their reservations).
pub(super) fn totals(log: &Log, r: &NocRules, rep: &NocReport, v: &mut Violations) {
    let n = &log.noc;
    let mut tasks = [0u64; 6];
    for x in &n.res {
        if let Some(t) = x.task {
            tasks[t as usize] += 1;
        }
    }
    let mut by_call: Vec<Vec<&NocRes>> = vec![Vec::new(); n.calls.len()];
    for x in &n.res {
        by_call[x.call as usize].push(x);
    }
    let (mut copybacks, mut errors, mut erases) = (0u64, 0u64, 0u64);
    let (mut elapsed, mut service) = (0u128, 0u128);
    let mut reads: HashMap<(u32, u32), Vec<(u64, u64)>> = HashMap::new();
    for (k, c) in n.calls.iter().enumerate() {
        let rs = &by_call[k];
        match (c.call, c.mv) {
            (Call::MoveRead, Some(m)) => {
                if let Some(f) = rs.first() {
                    reads.entry(m).or_default().push((f.start, f.end - f.start));
                }
            }
            (Call::MoveWrite, Some(m)) => {
                copybacks += 1;
                let ecc = rs.iter().find(|x| x.res == Res::Ecc);
                errors += match (r.selective, ecc) {
                    (true, _) => (rs.len() == 4) as u64,
                    (false, Some(e)) if r.ecc_correct > 0 => (e.end - e.start > r.ecc_check) as u64,
                    _ => 0,
                };
                let (start, read) = reads
                    .get_mut(&m)
                    .and_then(|l| l.pop())
                    .unwrap_or((c.ready, 0));
                let end = rs.last().map_or(c.ready, |x| x.end);
                elapsed += (end - start) as u128;
                service +=
                    read as u128 + rs.iter().map(|x| (x.end - x.start) as u128).sum::<u128>();
            }
            (Call::Erase, _) => erases += 1,
            _ => {}
        }
    }
    let t = &rep.tasks;
    let got = [t.r_host, t.r_gc, t.w_host, t.w_gc, t.erase, t.direct];
    let us = |ns: u128| ns as f64 / 1000.0;
    let counted = r.selective || r.ecc_correct > 0;
    let sums = [
        ("tasks", format!("{tasks:?}"), format!("{got:?}")),
        (
            "copybacks",
            copybacks.to_string(),
            rep.copybacks.to_string(),
        ),
        (
            "error_pages",
            errors.to_string(),
            if counted { rep.error_pages } else { 0 }.to_string(),
        ),
        ("erases", erases.to_string(), rep.erases.to_string()),
        (
            "relocation_elapsed_us",
            us(elapsed).to_string(),
            rep.relocation_elapsed_us.to_string(),
        ),
        (
            "relocation_service_us",
            us(service).to_string(),
            rep.relocation_service_us.to_string(),
        ),
    ];
    for (name, want, got) in sums {
        if want != got {
            v.push(|| format!("NoC report {name} is {got}, the record sums to {want}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checker reports two reservations overlapping on one link, a channel task shorter
    /// than its service time, and a host read overtaken under `noc-priority`.
    #[test]
    fn hand_made_violations_are_reported() {
        let p = NocRules {
            read: 10,
            program: 100,
            erase: 500,
            sram: 1,
            trav: 7,
            ecc_check: 0,
            ecc_correct: 0,
            selective: false,
            interconnect: Interconnect::Port,
            seg_blocks: 1,
            priority: true,
        };
        let call = |call, origin, ready, req| NocCall {
            call,
            origin,
            ready,
            mv: None,
            seg: 0,
            ppn: 0,
            req,
            forced: false,
        };
        let r = |res, task, call, (start, end)| NocRes {
            res,
            task,
            start,
            end,
            ready: start,
            free_before: 0,
            call,
        };
        let mut log = Log::default();
        log.reqs.push(super::super::Req {
            arrival: 0,
            ends: 1,
            done: 1000,
        });
        log.noc.calls = vec![
            call(Call::Program, Origin::Gc, 0, NO_REQ),
            call(Call::Read, Origin::Host, 0, 0),
            call(Call::Read, Origin::Host, 0, 0),
        ];
        log.noc.res = vec![
            r(Res::Sram, None, 0, (0, 1)),
            r(Res::Link(1), None, 0, (1, 8)),
            r(Res::Chan(0), Some(Task::WGc), 0, (8, 108)),
            // Ready at 0, this host read runs after the GC write that claimed the channel
            // at 0.
            r(Res::Chan(0), Some(Task::RHost), 1, (108, 118)),
            r(Res::Link(0), None, 1, (118, 125)),
            r(Res::Ecc, None, 1, (125, 125)),
            r(Res::Sram, None, 1, (125, 126)),
            // Overlaps the read before on channel 0 and link 0, crosses in 6 ns instead of
            // 7, and skips the SRAM.
            r(Res::Chan(0), Some(Task::RHost), 2, (110, 120)),
            r(Res::Link(0), None, 2, (120, 126)),
            r(Res::Ecc, None, 2, (126, 126)),
        ];
        let mut v = Violations::default();
        check(&log, &p, 4, &mut v);
        let all = v.0.join("\n");
        assert!(all.contains("overlap on a NoC resource"), "{all}");
        assert!(all.contains("does not take its service time"), "{all}");
        assert!(all.contains("noc-priority"), "{all}");
        assert!(all.contains("takes the path"), "{all}");
    }
}
