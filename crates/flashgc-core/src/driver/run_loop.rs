//! The run loop: safe points (checkpoints, stop requests), request batches, progress.
//! One loop for every device model; the null model's instance is the WAF-only hot path.

use super::host::Core;
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::metrics::recorder::Progress;
use crate::metrics::recorder::Recorder;
use crate::metrics::result::RunResult;
use crate::sim::{RunControl, RunEnd, RunState, Simulation};
use crate::workload::flows::FlowEvent;
use crate::workload::{Op, Request, Workload};

/// `ended_by` of a run stopped at a safe point.
pub(super) const INTERRUPTED: &str = "interrupted";

/// Requests served between two safe points (checkpoints, stop requests).
pub const SAFE_POINT_REQUESTS: usize = 4096;

/// Moves `wl` past the first `n` requests (a resumed trace workload).
fn skip_requests(wl: &mut dyn Workload, n: u64) -> Result<()> {
    let mut buf: Vec<Request> = Vec::with_capacity(SAFE_POINT_REQUESTS);
    let mut left = n;
    while left > 0 {
        buf.clear();
        wl.fill(&mut buf, left.min(SAFE_POINT_REQUESTS as u64) as usize)?;
        if buf.is_empty() || buf.len() as u64 > left {
            return Err(Error::Input(format!(
                "the workload does not replay the {n} requests served before the checkpoint \
                 (it ended or changed after {} of them)",
                n - left
            )));
        }
        left -= buf.len() as u64;
    }
    Ok(())
}

/// Where the measured phase starts or continues: after a stop in memory, from a
/// checkpoint, or from the beginning (preconditioning first).
fn begin<D: DeviceModel>(
    sim: &mut Simulation,
    core: &mut Core<D>,
    wl: &mut dyn Workload,
) -> Result<RunState> {
    if let Some(st) = sim.paused.take() {
        return Ok(st);
    }
    if !D::TIMED {
        // Before the precondition fill, which can take long; a resumed run too.
        if let Some(fs) = wl.as_flows() {
            fs.check_untimed()?;
        }
    }
    if let Some(st) = sim.resumed.take() {
        // A timed driver's own state was restored with the simulation's.
        match &st.workload {
            Some(pos) => wl.load_position(pos)?,
            None => skip_requests(wl, st.requests)?,
        }
        // A checkpoint's stored flows can be edited into ones that never write.
        if let Some(t) = st.target {
            check_flows_end(core, wl, t.saturating_sub(st.rec.written()))?;
        }
        return Ok(RunState {
            rec: st.rec,
            requests: st.requests,
            target: st.target,
        });
    }
    let logical = sim.layout().logical_pages;
    let target = match core.p.data_volume_bytes {
        Some(_) if D::TIMED => None,
        _ => wl
            .is_infinite()
            .then(|| (sim.config().run.write_volume * logical as f64).round() as u64),
    };
    if let Some(t) = target {
        check_flows_end(core, wl, t)?;
    }
    // Checked before the precondition fill, which can take long.
    core.start(sim)?;
    let rec = core.new_recorder(sim, target);
    Ok(RunState {
        rec,
        requests: 0,
        target,
    })
}

/// Refuses flows that can never write the `left` user pages a write-volume target still
/// needs (they would run forever); a timed run bounded by its request count ends anyway.
fn check_flows_end<D: DeviceModel>(core: &Core<D>, wl: &mut dyn Workload, left: u64) -> Result<()> {
    match wl.as_flows() {
        Some(fs) if !(D::TIMED && core.p.max_requests.is_some()) => fs.check_reaches(left),
        _ => Ok(()),
    }
}

/// Serves `wl` on `sim` through `core` (see [`crate::Simulation::run_with`]).
pub(super) fn run<D: DeviceModel>(
    sim: &mut Simulation,
    core: &mut Core<D>,
    wl: &mut dyn Workload,
    progress: &mut dyn FnMut(&Progress),
    ctl: &mut RunControl<'_>,
) -> Result<RunEnd> {
    let RunState {
        mut rec,
        requests: mut request_index,
        target,
    } = begin(sim, core, wl)?;
    // A resumed run's requests in flight must belong to this workload's flows.
    core.check_inflight_flows(
        wl.as_flows()
            .map(|fs| (fs.inflight(), fs.flushes_awaiting_device())),
    )?;
    // Periodic checkpoints at multiples of the interval, so a resumed run keeps the
    // original schedule.
    let every = ctl.every_user_pages.filter(|&e| e > 0);
    let next_after = |w: u64| every.map(|e| (w / e + 1) * e);
    let mut next_ckpt = next_after(rec.written());
    let mut buf: Vec<Request> = Vec::with_capacity(SAFE_POINT_REQUESTS);
    let mut ended_by = "workload_end";
    // Fixed for the workload's lifetime: picks the batch loop once.
    let may_flush = wl.may_flush();
    'outer: loop {
        // Safe point: every request handed out so far has been served completely.
        if target.is_some_and(|t| rec.written() >= t) {
            ended_by = "write_volume";
            break;
        }
        if D::TIMED {
            if let Some(why) = core.ended(&rec, target) {
                ended_by = why;
                break;
            }
        }
        let stop = ctl
            .stop
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
            || ctl.stop_after_requests.is_some_and(|n| request_index >= n);
        if stop {
            // A checkpoint that cannot be written (a full disk, a removed directory) does
            // not lose the partial result, which may be all a long run has to show: it is
            // returned without a checkpoint, and its notes say why.
            let mut unsaved = None;
            let info = match &ctl.checkpoint {
                Some(path) => {
                    let st = RunState {
                        rec: rec.clone(),
                        requests: request_index,
                        target,
                    };
                    let written = core.checkpoint_state().and_then(|drv| {
                        sim.write_checkpoint(path, &ctl.caller, &st, wl, drv.map(|s| (&core.p, s)))
                    });
                    written.map_err(|e| unsaved = Some(e)).ok()
                }
                None => None,
            };
            if let (Some(i), Some(cb)) = (&info, ctl.on_checkpoint.as_mut()) {
                cb(i);
            }
            sim.paused = Some(RunState {
                rec: rec.clone(),
                requests: request_index,
                target,
            });
            let pre_writes = sim.precondition_counts().user_writes;
            let mut partial = core.finish_with(sim, wl.describe(), &rec, INTERRUPTED)?;
            attach_flows(&mut partial, core, wl);
            let end = &sim.ftl().counters;
            let resume = match (&info, &unsaved) {
                (Some(_), _) => "; `flashgc resume CHECKPOINT` finishes it".to_string(),
                (None, Some(e)) => format!("; no checkpoint could be written: {e}"),
                (None, None) => String::new(),
            };
            partial.notes.push(format!(
                "PARTIAL result: the run was stopped after {} user pages ({request_index} requests){resume}",
                end.user_writes - pre_writes,
            ));
            return Ok(RunEnd::Stopped {
                partial,
                checkpoint: info,
            });
        }
        if let (Some(n), Some(path)) = (next_ckpt, &ctl.checkpoint) {
            if rec.written() >= n {
                let drv = core.checkpoint_state()?;
                let st = RunState {
                    rec: rec.clone(),
                    requests: request_index,
                    target,
                };
                let info = sim.write_checkpoint(
                    &path.clone(),
                    &ctl.caller,
                    &st,
                    wl,
                    drv.map(|s| (&core.p, s)),
                )?;
                if let Some(cb) = ctl.on_checkpoint.as_mut() {
                    cb(&info);
                }
                next_ckpt = next_after(rec.written());
            }
        }
        buf.clear();
        // Safe points at multiples of SAFE_POINT_REQUESTS requests of the measured phase: a
        // run resumed from a stop anywhere meets them where the uninterrupted run does, so
        // its periodic checkpoints come at the same requests, with the same bytes.
        let per = SAFE_POINT_REQUESTS as u64;
        let to_safe = per - request_index % per;
        let want = match ctl.stop_after_requests {
            Some(n) => (n - request_index).min(to_safe),
            None => to_safe,
        } as usize;
        if let Some(fs) = wl.as_flows() {
            // Several flows: one arrival at a time, the earliest over all flows, each
            // completion reported back to its flow (closed loops wait for it).
            for _ in 0..want {
                if D::TIMED {
                    if let Some(why) = core.ended(&rec, target) {
                        ended_by = why;
                        break 'outer;
                    }
                }
                if D::TIMED && core.is_deferred() {
                    // Completions are decided later: before the next arrival, let the
                    // device run up to it and report what completes first (a closed-loop
                    // flow's next arrival may then come earlier).
                    while core.settle_flows(fs) {}
                    // A flush goes to the device and is decided later: back to settling
                    // before the next event.
                    let mut flush =
                        |i, t, order| core.flush_deferred(sim, t, i, order).map(|()| None);
                    let Some(event) = fs.next_event(true, true, &mut flush)? else {
                        break 'outer;
                    };
                    let FlowEvent::Request(i, req, t) = event else {
                        continue;
                    };
                    request_index += 1;
                    let order = fs.issued_pending(i, &req, t);
                    let durable = fs.sync_writes(i);
                    core.submit_flow_deferred(sim, &req, t, (i, order), durable, &mut rec)?;
                    continue;
                }
                let Some((i, req, t)) = (if D::TIMED {
                    fs.next_arrival_request_with(true, &mut |_, t, _| {
                        core.flush_at(sim, t).map(Some)
                    })?
                } else {
                    fs.next_arrival_request()?
                }) else {
                    break 'outer;
                };
                request_index += 1;
                if D::TIMED {
                    let durable = fs.sync_writes(i);
                    let c = core.submit_at(sim, &req, t, durable, &mut rec)?;
                    fs.completed(i, &req, t, c, true);
                    continue;
                }
                let done = serve_waf_only(sim, &req, &mut rec)?;
                fs.completed(i, &req, t, t, false);
                if done {
                    ended_by = "write_volume";
                    break 'outer;
                }
            }
            progress(&rec.progress(&sim.ftl().counters));
            continue;
        }
        wl.fill(&mut buf, want)?;
        if buf.is_empty() {
            break;
        }
        let end = match may_flush {
            true => serve_batch::<D, true>(sim, core, &buf, &mut rec, target, &mut request_index)?,
            false => {
                serve_batch::<D, false>(sim, core, &buf, &mut rec, target, &mut request_index)?
            }
        };
        if let Some(why) = end {
            ended_by = why;
            break;
        }
        if let Some(e) = sim.ftl().content_error() {
            return Err(Error::Workload(e.to_string()));
        }
        // Progress after every batch, whatever the device's size: a fixed step of pages
        // (it was 1 Mi) left the bar of a small or slow run at 0 until the end. A batch
        // takes milliseconds at most, and the callback is cheap.
        progress(&rec.progress(&sim.ftl().counters));
    }
    if let Some(e) = sim.ftl().content_error() {
        return Err(Error::Workload(e.to_string()));
    }
    sim.ftl().check_all_content()?;
    if ended_by == "workload_end" && wl.as_flows().is_some_and(|fs| fs.ended_by_steady_state()) {
        ended_by = "steady_state";
    } else if ended_by == "workload_end" && wl.as_flows().is_some_and(|fs| fs.ended_by_runtime()) {
        ended_by = "runtime";
    }
    if let Some(fs) = wl.as_flows() {
        // fio's end_fsync follows a job's last request, which may end the run's volume.
        if !D::TIMED {
            fs.final_flushes(false, &mut |_, t, _| Ok(Some(t)))?;
        } else if !core.is_deferred() {
            fs.final_flushes(true, &mut |_, t, _| core.flush_at(sim, t).map(Some))?;
        } else {
            // After the flows' last completions, which the device decides at its end.
            loop {
                core.drain_deferred();
                core.flow_completions(fs);
                if !fs.final_flush_owed() {
                    break;
                }
                fs.final_flushes(true, &mut |i, t, order| {
                    core.flush_deferred(sim, t, i, order).map(|()| None)
                })?;
            }
        }
    }
    let mut r = core.finish_with(sim, wl.describe(), &rec, ended_by)?;
    attach_flows(&mut r, core, wl);
    Ok(RunEnd::Finished(r))
}

/// Serves one batch of a workload's requests (not several flows'), each at its arrival
/// by the host model when timed; `request_index` counts them. `FLUSHES`: the workload may
/// hand out flushes and FUA writes ([`Workload::may_flush`]); without, the loop keeps no
/// test for them, and a flush is refused as a request without pages. Returns why the run
/// ended, when it did in the batch.
#[inline(always)]
fn serve_batch<D: DeviceModel, const FLUSHES: bool>(
    sim: &mut Simulation,
    core: &mut Core<D>,
    buf: &[Request],
    rec: &mut Recorder,
    target: Option<u64>,
    request_index: &mut u64,
) -> Result<Option<&'static str>> {
    let logical = sim.layout().logical_pages;
    const AHEAD: usize = 16;
    const AHEAD_OLD: usize = 4;
    for (j, req) in buf.iter().enumerate() {
        if D::TIMED {
            if let Some(why) = core.ended(rec, target) {
                return Ok(Some(why));
            }
            core.prefetch_for(sim, buf.get(j + 2), buf.get(j + 4));
        } else {
            if let Some(n) = buf.get(j + AHEAD) {
                if n.lpn < logical {
                    sim.ftl().prefetch(n.lpn as u32);
                }
            }
            // By now the L2P entry prefetched AHEAD requests ago has arrived.
            if let Some(n) = buf.get(j + AHEAD_OLD) {
                if n.lpn < logical {
                    sim.ftl().prefetch_old_copy(n.lpn as u32);
                }
            }
        }
        *request_index += 1;
        if FLUSHES && req.op == Op::Flush {
            // A replayed trace's flush: the write cache's dirty pages to flash (nothing
            // to do WAF-only, where there is no cache; the trace counts it).
            if D::TIMED {
                core.flush_next(sim, req)?;
            }
            continue;
        }
        debug_assert!(
            FLUSHES || !req.fua,
            "a FUA write from a workload without flushes"
        );
        let end = req.lpn.saturating_add(req.pages as u64);
        if req.pages == 0 || end > logical {
            return Err(bad_request(req, *request_index, logical));
        }
        if D::TIMED {
            core.submit_next::<FLUSHES>(sim, req, rec)?;
        } else if serve_waf_only(sim, req, rec)? {
            // WAF-only: page by page, stopping at the exact write volume.
            return Ok(Some("write_volume"));
        }
    }
    Ok(None)
}

/// The error of request `index`, `req`, whose pages are none or beyond the device's
/// `logical` pages (or a flush from a workload that said it hands out none).
#[cold]
fn bad_request(req: &Request, index: u64, logical: u64) -> Error {
    if req.op == Op::Flush {
        return Error::Workload(format!(
            "request {index}: a flush from a workload that hands out none (Workload::may_flush)"
        ));
    }
    Error::Workload(format!(
        "request {index}: pages {}..{} exceed the logical capacity of {logical} pages \
         (use a larger device, or remap the trace)",
        req.lpn,
        req.lpn.saturating_add(req.pages as u64)
    ))
}

/// Serves one request WAF-only, page by page; true when the write volume is reached.
// Always: it is the WAF-only hot loop of both batch loops and of the flows' loop.
#[inline(always)]
fn serve_waf_only(sim: &mut Simulation, req: &Request, rec: &mut Recorder) -> Result<bool> {
    let ftl = sim.ftl_mut();
    let end = req.lpn + req.pages as u64;
    match req.op {
        Op::Write => {
            for lpn in req.lpn..end {
                if req.content != 0 && ftl.content().is_some() {
                    let c = crate::content::page_content(req.content, lpn - req.lpn);
                    ftl.write_content(lpn as u32, c)?;
                } else {
                    ftl.write(lpn as u32)?;
                }
                if rec.user_page(&ftl.counters) {
                    return Ok(true);
                }
            }
        }
        Op::Read => {
            for lpn in req.lpn..end {
                ftl.read(lpn as u32);
            }
        }
        Op::Trim => {
            for lpn in req.lpn..end {
                ftl.trim(lpn as u32);
            }
        }
        // Flows' flushes do not come as requests.
        Op::Flush => {}
    }
    Ok(false)
}

/// Adds the per-flow section to a result of a run of several flows.
fn attach_flows<D: DeviceModel>(r: &mut RunResult, core: &mut Core<D>, wl: &mut dyn Workload) {
    if let Some(fs) = wl.as_flows() {
        // Deferred mode: the completions that finishing the run made final.
        core.flow_completions(fs);
        r.flows = Some(fs.report(if D::TIMED { core.span_ns() } else { 0 }, D::TIMED));
        if D::TIMED {
            r.notes.push(
                "several host flows: each flow has its own arrival process (the timing section's host model is not used); per-flow statistics in `flows`".into(),
            );
            if fs.specs().iter().any(|s| s.ramp_ns > 0) {
                r.notes.push(
                    "ramp_time: a flow's latency, IOPS and bandwidth in `flows` leave out the requests it issued in its ramp; the timing section, WAF, erases and the series count the whole run".into(),
                );
            }
        }
    }
}
