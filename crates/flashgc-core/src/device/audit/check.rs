//! The rules a recorded schedule must satisfy (docs/controller.md, "Schedule audit").

use super::{CellOp, Kind, Log, NO_REQ};
use crate::device::flash::Costs;
use crate::device::policy::Suspend;
use crate::ops::Origin;
use std::collections::HashMap;

/// What the run's options allow, for the checks that depend on them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub costs: Costs,
    pub suspend: Option<Suspend>,
    /// Host reads rank before every write and erase (read-first, noc-priority).
    pub reads_first: bool,
    /// Requests the run reports.
    pub requests: u64,
    /// Mapping units per segment (a page's segment).
    pub pages_per_segment: u32,
    /// The NoC controller model's service times (a NoC run).
    pub noc: Option<super::noc::NocRules>,
    /// A page's host flash operations are reserved right after its CPU work (first come
    /// first served), so they must start after it.
    pub cpu_gated: bool,
    /// Mapping units per flash page.
    pub units_per_page: u32,
}

/// Checks every rule on `log`.
pub(crate) fn check(log: &Log, r: &Rules) -> Outcome {
    let mut v = Violations::default();
    let pieces = pieces(log, r, &mut v);
    exclusive(log, &pieces, &mut v);
    channels(log, r, &mut v);
    durations(log, r, &mut v);
    readiness(log, &mut v);
    moves(log, r, &mut v);
    data(log, &mut v);
    buffered(log, &pieces, &mut v);
    flash_pages(log, r, &mut v);
    requests(log, &pieces, r, &mut v);
    if r.reads_first {
        reads_first(log, &pieces, &mut v);
    }
    if let Some(n) = &r.noc {
        super::noc::check(log, n, r.pages_per_segment, &mut v);
    }
    super::cpu::check(log, r.cpu_gated, &mut v);
    Outcome { violations: v.0 }
}

/// What [`check`] found.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Violations (empty: the schedule is valid), at most `LIMIT` of them.
    pub violations: Vec<String>,
}

const LIMIT: usize = 20;

#[derive(Default)]
pub(super) struct Violations(pub(super) Vec<String>);

impl Violations {
    pub(super) fn push(&mut self, s: impl FnOnce() -> String) {
        if self.0.len() < LIMIT {
            self.0.push(s());
        }
    }
}

fn show(i: usize, o: &CellOp) -> String {
    format!(
        "op {i} {:?} {:?} cell {} ppn {} seg {} [{}, {}] ready {} req {}",
        o.kind, o.origin, o.cell, o.ppn as i64, o.seg, o.start, o.end, o.ready, o.req as i64
    )
}

/// Each operation's busy intervals on its cell: one, or several for a suspended program or
/// erase (split around each read that suspended it). Checks each suspension's arithmetic.
fn pieces(log: &Log, r: &Rules, v: &mut Violations) -> Vec<Vec<(u64, u64)>> {
    let mut p: Vec<Vec<(u64, u64)>> = log.ops.iter().map(|o| vec![(o.start, o.end)]).collect();
    let mut count: HashMap<usize, u32> = HashMap::new();
    for s in &log.suspensions {
        let Some(sp) = r.suspend else {
            v.push(|| "a suspension with suspend off".into());
            continue;
        };
        let (t, rd) = (&log.ops[s.target], &log.ops[s.read]);
        let n = count.entry(s.target).or_default();
        *n += 1;
        if *n > sp.max_per_op {
            v.push(|| format!("{} suspended {n} times", show(s.target, t)));
        }
        if !(t.kind == Kind::Erase || (t.kind == Kind::Program && t.last)) {
            v.push(|| format!("suspended a non-suspendable {}", show(s.target, t)));
        }
        let last = *p[s.target].last().expect("a piece");
        if last.1 != s.old_end || s.at < s.from || s.at >= s.old_end || s.at < last.0 {
            v.push(|| {
                format!(
                    "suspension at {} (phase from {}) of {} whose busy piece is {last:?}, end {}",
                    s.at,
                    s.from,
                    show(s.target, t),
                    s.old_end
                )
            });
            continue;
        }
        if rd.start != s.at + sp.suspend_ns
            || s.new_end != rd.end + sp.resume_ns + (s.old_end - s.at)
        {
            v.push(|| {
                format!(
                    "suspension of {} by {}: read must start suspend_ns after {} and the operation end resume_ns + its remaining time after the read (ends {} -> {})",
                    show(s.target, t),
                    show(s.read, rd),
                    s.at,
                    s.old_end,
                    s.new_end
                )
            });
        }
        if s.at < rd.ready {
            v.push(|| format!("{} suspended before it was ready", show(s.read, rd)));
        }
        let ps = &mut p[s.target];
        ps.last_mut().expect("a piece").1 = rd.start;
        ps.push((rd.end, s.new_end));
    }
    p
}

/// Rule 1: no two operations overlap on a cell.
fn exclusive(log: &Log, pieces: &[Vec<(u64, u64)>], v: &mut Violations) {
    let mut per: HashMap<u32, Vec<(u64, u64, usize)>> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        for &(s, e) in &pieces[i] {
            per.entry(o.cell).or_default().push((s, e, i));
        }
    }
    for list in per.values_mut() {
        list.sort_unstable();
        for w in list.windows(2) {
            let ((_, e0, i0), (s1, _, i1)) = (w[0], w[1]);
            if s1 < e0 {
                v.push(|| {
                    format!(
                        "overlap on a cell: {} and {}",
                        show(i0, &log.ops[i0]),
                        show(i1, &log.ops[i1])
                    )
                });
            }
        }
    }
}

/// Rule 1: no two transfers overlap on a channel; each takes one transfer time.
fn channels(log: &Log, r: &Rules, v: &mut Violations) {
    let mut per: HashMap<u32, Vec<(u64, u64)>> = HashMap::new();
    for x in &log.xfers {
        if x.end - x.start != r.costs.xfer {
            v.push(|| format!("transfer {x:?} does not take {} ns", r.costs.xfer));
        }
        per.entry(x.ch).or_default().push((x.start, x.end));
    }
    for (ch, list) in per.iter_mut() {
        list.sort_unstable();
        for w in list.windows(2) {
            if w[1].0 < w[0].1 {
                v.push(|| format!("overlap on channel {ch}: {:?} and {:?}", w[0], w[1]));
            }
        }
    }
}

/// The least time an operation holds its cell.
fn min_duration(o: &CellOp, c: &Costs) -> u64 {
    match o.kind {
        Kind::Read if o.shared || o.suspending => c.xfer,
        Kind::Read => c.read + c.xfer,
        Kind::CopybackRead => c.read,
        Kind::Erase => c.erase,
        // A copyback program has no transfer.
        Kind::Program if o.mv.is_some() && o.last => c.program,
        Kind::Program if o.last => c.xfer + c.program,
        Kind::Program => 0,
    }
}

/// Every operation holds its cell at least its service time.
fn durations(log: &Log, r: &Rules, v: &mut Violations) {
    for (i, o) in log.ops.iter().enumerate() {
        let d = min_duration(o, &r.costs);
        let exact = matches!(o.kind, Kind::Erase | Kind::CopybackRead);
        if o.end < o.start + d || (exact && o.end != o.start + d) {
            v.push(|| format!("{} shorter than its service time {d}", show(i, o)));
        }
    }
}

/// Rule 2: no operation starts before it is ready, nor a host operation before its
/// request arrived.
fn readiness(log: &Log, v: &mut Violations) {
    for (i, o) in log.ops.iter().enumerate() {
        if o.start < o.ready {
            v.push(|| format!("{} starts before it is ready", show(i, o)));
        }
        if o.req != NO_REQ {
            match log.reqs.get(o.req as usize) {
                Some(q) if o.start < q.arrival => v.push(|| {
                    format!(
                        "{} starts before its request arrived ({})",
                        show(i, o),
                        q.arrival
                    )
                }),
                Some(_) => {}
                None => v.push(|| format!("{} of an unknown request", show(i, o))),
            }
        }
    }
}

/// Rule 2: a page move's write-back starts after its read has delivered the data, and a
/// victim's erase after all its moves (reads and write-backs) have ended.
fn moves(log: &Log, r: &Rules, v: &mut Violations) {
    let mut reads: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    // Per victim segment: latest end of its moves since its last erase, and whether an
    // erase came since.
    let mut victim: HashMap<u32, (u64, bool)> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        match (o.kind, o.mv) {
            (Kind::Read | Kind::CopybackRead, Some(m)) => reads.entry(m).or_default().push(i),
            (Kind::Program, Some(m)) => match reads.get_mut(&m).and_then(|l| l.pop()) {
                Some(ri) if o.start < log.ops[ri].end => v.push(|| {
                    format!(
                        "write-back {} starts before its read {} ended",
                        show(i, o),
                        show(ri, &log.ops[ri])
                    )
                }),
                Some(_) => {}
                None => v.push(|| format!("write-back {} without its read", show(i, o))),
            },
            _ => {}
        }
        if let Some((src, _)) = o.mv {
            let seg = src / r.pages_per_segment;
            if o.kind != Kind::Erase {
                let e = victim.entry(seg).or_insert((0, false));
                if e.1 {
                    *e = (0, false);
                }
                e.0 = e.0.max(o.end);
            }
        }
        if o.kind == Kind::Erase {
            let e = victim.entry(o.seg).or_insert((0, false));
            if o.start < e.0 {
                v.push(|| {
                    format!(
                        "erase {} before its victim's moves ended ({})",
                        show(i, o),
                        e.0
                    )
                });
            }
            e.1 = true;
        }
    }
}

/// Rule 2, the data a page holds: a page is programmed once between erases of its segment,
/// read only after it has been programmed (or holds the untimed precondition data, before
/// any erase), and no read or program of a page overlaps an erase of its segment.
fn data(log: &Log, v: &mut Violations) {
    // Erase windows per segment: one erase call's block erases (consecutive in the log).
    let mut erases: HashMap<u32, Vec<(u64, u64)>> = HashMap::new();
    let mut prev_erase: Option<(u32, usize)> = None;
    for (i, o) in log.ops.iter().enumerate() {
        if o.kind != Kind::Erase {
            prev_erase = None;
            continue;
        }
        let w = erases.entry(o.seg).or_default();
        match prev_erase {
            Some((s, _)) if s == o.seg => {
                let last = w.last_mut().expect("a window");
                *last = (last.0.min(o.start), last.1.max(o.end));
            }
            _ => w.push((o.start, o.end)),
        }
        prev_erase = Some((o.seg, i));
    }
    for w in erases.values_mut() {
        w.sort_unstable();
    }
    // Each die's own erase of a segment, for translation reads (below).
    let mut die_erases: HashMap<(u32, u32), Vec<(u64, u64)>> = HashMap::new();
    for o in log.ops.iter().filter(|o| o.kind == Kind::Erase) {
        die_erases
            .entry((o.seg, o.cell))
            .or_default()
            .push((o.start, o.end));
    }
    let mut per_page: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        if matches!(o.kind, Kind::Read | Kind::Program | Kind::CopybackRead) {
            per_page.entry(o.ppn).or_default().push(i);
        }
    }
    let none = Vec::new();
    for (&ppn, list) in per_page.iter_mut() {
        list.sort_unstable_by_key(|&i| (log.ops[i].start, i));
        let seg = log.ops[list[0]].seg;
        let ws = erases.get(&seg).unwrap_or(&none);
        // None: before the first erase (the precondition may have written it).
        let mut state: Option<bool> = None;
        let mut programmed_end = 0;
        let mut read_unknown = false;
        let mut k = 0;
        for &i in list.iter() {
            let o = &log.ops[i];
            while k < ws.len() && ws[k].1 <= o.start {
                state = Some(false);
                read_unknown = false;
                k += 1;
            }
            let overlaps = |w: &&(u64, u64)| w.0 < o.end && w.1 > o.start;
            let own = die_erases.get(&(seg, o.cell));
            // A translation read is reserved as issued, not held behind an erase of its
            // segment as a waiting host read is: a wide segment's erase may start on one die
            // while it still runs on another (the flash draw on seed 18, case 869). Only its
            // own die's erase, that of its page's block, must not overlap it.
            let hit = match o.origin == Origin::Translation && o.kind != Kind::Program {
                true => own.and_then(|l| l.iter().find(overlaps)),
                // Any other operation ends before the segment's erase starts on any die, or
                // it is of the segment's earlier generation on its own block: it ends before
                // its own die's erase in that window starts. Host operations waiting on one
                // die are committed before their segment's erase is queued, but another die
                // may start its block's erase while they still run (the flash draw on seed
                // 23, case 444: host programs of a victim committed late, under overload).
                false => ws.iter().find(overlaps).filter(|w| {
                    !own.is_some_and(|l| l.iter().any(|e| w.0 <= e.0 && e.1 <= w.1 && o.end <= e.0))
                }),
            };
            if let Some(w) = hit {
                v.push(|| format!("{} overlaps an erase {w:?} of its segment", show(i, o)));
            }
            match o.kind {
                Kind::Program => {
                    if state == Some(true) {
                        v.push(|| {
                            format!("{} programs page {ppn} again without an erase", show(i, o))
                        });
                    }
                    if state.is_none() && read_unknown {
                        v.push(|| format!("{} programs page {ppn} after it was read", show(i, o)));
                    }
                    state = Some(true);
                    programmed_end = o.end;
                }
                _ => {
                    let valid = match state {
                        None => {
                            read_unknown = true;
                            true
                        }
                        Some(true) => programmed_end <= o.start,
                        Some(false) => false,
                    };
                    if !valid {
                        v.push(|| {
                            format!("{} reads page {ppn} that holds no data then", show(i, o))
                        });
                    }
                }
            }
        }
    }
}

/// Rule 2 for reads served from the write buffer (docs/controller.md): the latest host
/// program of the page issued before the read (by a request issued no later, the data the
/// read asks for) has not ended when the read is served (a suspended program ends with its
/// last piece), so the buffer still holds the data.
fn buffered(log: &Log, pieces: &[Vec<(u64, u64)>], v: &mut Violations) {
    if log.buffered.is_empty() {
        return;
    }
    // Per page: its host programs as (request, end after suspensions).
    let mut programs: HashMap<u32, Vec<(u64, u64)>> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        if o.kind == Kind::Program && o.origin == Origin::Host && o.mv.is_none() {
            let end = pieces[i].last().expect("a piece").1;
            programs.entry(o.ppn).or_default().push((o.req, end));
        }
    }
    // The NoC model's host programs end with their last reservation.
    let mut ends = vec![0u64; log.noc.calls.len()];
    for r in &log.noc.res {
        let e = &mut ends[r.call as usize];
        *e = (*e).max(r.end);
    }
    for (c, end) in log.noc.calls.iter().zip(ends) {
        if c.call == super::noc::Call::Program && c.origin == Origin::Host {
            programs.entry(c.ppn).or_default().push((c.req, end));
        }
    }
    for &(ppn, at, req) in &log.buffered {
        let latest = programs
            .get(&ppn)
            .and_then(|l| l.iter().filter(|p| p.0 <= req).max_by_key(|p| p.0));
        if latest.is_none_or(|p| p.1 <= at) {
            v.push(|| {
                format!(
                    "request {req}'s read of page {ppn} served from the write buffer at {at}: \
                     its host program {latest:?} (request, end) was not in flight then"
                )
            });
        }
    }
}

/// Rule 2, the flash page: once its segment has been erased, a flash page's units are
/// programmed in order (the last one starts the cell program), all on one cell (the unit a
/// dynamic allocation chose for the page, once), and each is read on the cell it was
/// programmed on. (Before a segment's first erase, the untimed precondition may have
/// written part of a flash page.)
fn flash_pages(log: &Log, r: &Rules, v: &mut Violations) {
    let upp = r.units_per_page.max(1);
    let fpages = r.pages_per_segment / upp;
    let erased_segs = |seg: u32| seg * fpages..(seg + 1) * fpages;
    // Per flash page of an erased segment: the units programmed since and their cell.
    let mut page: HashMap<u32, (u32, u32)> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        match o.kind {
            Kind::Erase => {
                for fp in erased_segs(o.seg) {
                    page.insert(fp, (0, u32::MAX));
                }
            }
            Kind::Program => {
                let (fp, sub) = (o.ppn / upp, o.ppn % upp);
                let Some(p) = page.get_mut(&fp) else { continue };
                if sub != p.0 {
                    v.push(|| {
                        format!(
                            "{} programs unit {sub} of its flash page when unit {} is next",
                            show(i, o),
                            p.0
                        )
                    });
                }
                if p.1 != u32::MAX && p.1 != o.cell {
                    v.push(|| {
                        format!(
                            "{} programs its flash page's unit on another cell ({})",
                            show(i, o),
                            p.1
                        )
                    });
                }
                *p = (sub + 1, o.cell);
            }
            Kind::Read | Kind::CopybackRead => {
                let fp = o.ppn / upp;
                if let Some(&(n, cell)) = page.get(&fp) {
                    if o.ppn % upp < n && cell != o.cell {
                        v.push(|| {
                            format!(
                                "{} reads on another cell than programmed ({cell})",
                                show(i, o)
                            )
                        });
                    }
                }
            }
        }
    }
}

/// Rules 3 and 5: every request completes once, no earlier than its operations end and
/// its least service time; every queued host operation was committed.
fn requests(log: &Log, pieces: &[Vec<(u64, u64)>], r: &Rules, v: &mut Violations) {
    if log.reqs.len() as u64 != r.requests {
        v.push(|| {
            format!(
                "{} requests served, {} reported",
                log.reqs.len(),
                r.requests
            )
        });
    }
    if log.pushed != log.committed {
        v.push(|| {
            format!(
                "{} host operations queued, {} committed",
                log.pushed, log.committed
            )
        });
    }
    let mut last = vec![0u64; log.reqs.len()];
    let mut least = vec![0u64; log.reqs.len()];
    for (i, o) in log.ops.iter().enumerate() {
        if o.req == NO_REQ || o.req as usize >= last.len() {
            continue;
        }
        let q = o.req as usize;
        let end = pieces[i].last().expect("a piece").1;
        last[q] = last[q].max(end);
        least[q] = least[q].max(min_duration(o, &r.costs));
    }
    for (k, q) in log.reqs.iter().enumerate() {
        if q.ends != 1 {
            v.push(|| format!("request {k} {q:?} completed {} times", q.ends));
            continue;
        }
        if q.done < last[k] {
            v.push(|| {
                format!(
                    "request {k} {q:?} completes before its last operation ends ({})",
                    last[k]
                )
            });
        }
        if q.done < q.arrival + least[k] {
            v.push(|| {
                format!(
                    "request {k} {q:?} faster than its service time {}",
                    least[k]
                )
            });
        }
    }
}

/// Rule 4 (read-first, noc-priority): no program or erase takes a cell while a host read
/// waiting there was ready, when the read then runs after it. A program or erase claims
/// its cell when the cell is free and the operation ready (the scheduler's decision comes
/// no earlier); a read ready by then ranks first and would have been decided first.
/// Exceptions the model documents (docs/controller.md): a mapping-cache translation write
/// is reserved when issued; a host program whose block's erase is still queued forces GC
/// through that erase; GC work on a segment first commits the host operations waiting on it;
/// the preemptible GC modes' pace commits GC at each host arrival; a segment's erase and a
/// copyback (read and program) are one decision each.
fn reads_first(log: &Log, pieces: &[Vec<(u64, u64)>], v: &mut Violations) {
    // Per cell: host reads by start, with the least ready time from each on.
    let mut per: HashMap<u32, Vec<(u64, u64, usize)>> = HashMap::new();
    for (i, o) in log.ops.iter().enumerate() {
        if o.kind == Kind::Read && o.origin == Origin::Host && !o.suspending {
            per.entry(o.cell).or_default().push((o.start, o.ready, i));
        }
    }
    let mut suffix: HashMap<u32, Vec<(u64, usize)>> = HashMap::new();
    for (c, list) in per.iter_mut() {
        list.sort_unstable();
        let mut m = (u64::MAX, usize::MAX);
        let mut s = vec![m; list.len()];
        for j in (0..list.len()).rev() {
            if list[j].1 < m.0 {
                m = (list[j].1, list[j].2);
            }
            s[j] = m;
        }
        suffix.insert(*c, s);
    }
    for (i, o) in log.ops.iter().enumerate() {
        let write = (o.kind == Kind::Erase || o.kind == Kind::Program)
            && o.origin != Origin::Translation
            && !o.forced;
        let (Some(list), true) = (per.get(&o.cell), write) else {
            continue;
        };
        let end = pieces[i].last().expect("a piece").1;
        let prev = i.checked_sub(1).map(|j| &log.ops[j]);
        let claim = match prev {
            _ if o.kind == Kind::Erase => erase_claim(log, i),
            // A copyback is one decision: its program follows its on-die read.
            Some(p) if p.kind == Kind::CopybackRead && p.mv == o.mv && o.mv.is_some() => {
                p.ready.max(p.free_before)
            }
            _ => o.ready.max(o.free_before),
        };
        let j = list.partition_point(|x| x.0 < end);
        if let Some(&(ready, ri)) = suffix[&o.cell].get(j) {
            if ready <= claim {
                v.push(|| {
                    format!(
                        "read-first: {} claimed its cell at {claim} while {} was ready",
                        show(i, o),
                        show(ri, &log.ops[ri])
                    )
                });
            }
        }
    }
}

/// When the erase call that block erase `i` belongs to claimed its cell: a segment's erase is
/// one decision, and its blocks on one die (without multi-plane operation) run one after the
/// other from there.
fn erase_claim(log: &Log, i: usize) -> u64 {
    let o = &log.ops[i];
    let same = |x: &CellOp| x.kind == Kind::Erase && x.seg == o.seg;
    let mut first = i;
    while first > 0 && same(&log.ops[first - 1]) {
        first -= 1;
    }
    log.ops[first..]
        .iter()
        .take_while(|x| same(x))
        .filter(|x| x.cell == o.cell)
        .map(|x| x.ready.max(x.free_before))
        .min()
        .expect("the erase itself")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: Kind, origin: Origin, cell: u32, ppn: u32, start: u64) -> CellOp {
        CellOp {
            cell,
            kind,
            origin,
            mv: None,
            ppn,
            seg: 0,
            start,
            end: start + 50,
            ready: start,
            free_before: start,
            req: if origin == Origin::Host { 0 } else { NO_REQ },
            suspending: false,
            last: kind == Kind::Program,
            shared: false,
            forced: false,
        }
    }

    /// A wide segment's erase is one block erase per die, each started when its die is
    /// free: an operation of the segment's earlier generation may still run on one die while
    /// another die's erase has started, as long as it ends before its own block's erase. A
    /// program of the next generation waits for the whole segment's erase, and a translation
    /// read is held only to its own block's.
    #[test]
    fn an_operation_is_checked_against_its_own_blocks_erase() {
        // Die 0 erases at 1000-1050, die 1 at 1100-1150; then `kind` of page 3 at `at`.
        let violations = |kind: Kind, origin: Origin, cell: u32, at: u64| {
            let mut log = Log::default();
            log.reqs.push(super::super::Req {
                arrival: 0,
                ends: 1,
                done: 100_000,
            });
            log.ops = vec![
                op(Kind::Erase, Origin::Gc, 0, u32::MAX, 1_000),
                op(Kind::Erase, Origin::Gc, 1, u32::MAX, 1_100),
                op(kind, origin, cell, 3, at),
            ];
            let mut v = Violations::default();
            data(&log, &mut v);
            v.0
        };
        let overlap = |v: Vec<String>| v.iter().any(|m| m.contains("overlaps an erase"));
        for origin in [Origin::Translation, Origin::Host] {
            // On die 1 at 1020-1070, before its own block's erase: another block is erased.
            let v = violations(Kind::Read, origin, 1, 1_020);
            assert!(!overlap(v.clone()), "{origin:?}: {v:?}");
            // On die 0, during its own block's erase.
            assert!(
                overlap(violations(Kind::Read, origin, 0, 1_020)),
                "{origin:?}"
            );
        }
        // A host program of the earlier generation, on die 1 before its block's erase.
        let v = violations(Kind::Program, Origin::Host, 1, 1_020);
        assert!(!overlap(v.clone()), "{v:?}");
        // A program on die 0 after its block's erase, while die 1's still runs: the next
        // generation starts only once the whole segment is erased.
        assert!(overlap(violations(Kind::Program, Origin::Host, 0, 1_060)));
    }
}
