//! `flashgc serve`: the simulated SSD as an NBD block device (crate `flashgc-serve`,
//! docs/serve.md). Flags as `flashgc run` for the device and schemes, `--timing` and its
//! flags for flash timing, `--gc-action` for the FTL's content mode (dedup-aware GC).

use crate::{cmd_timing, CommonArgs, Fail};
use flashgc_serve::{Backend, DataMode, Endpoint, Pace, ServeOptions};
use std::io::IsTerminal;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Flags of `flashgc serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    timing: cmd_timing::TimingFlags,
    /// Listen on this Unix domain socket (clients: `nbd+unix:///?socket=PATH`).
    #[arg(long, value_name = "PATH", conflicts_with = "listen")]
    socket: Option<String>,
    /// Listen on this TCP address, e.g. 127.0.0.1:10809 (clients: `nbd://127.0.0.1:10809`).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Where the bytes live: none (writes dropped, reads return zeros), memory (sparse), or
    /// file:PATH (pread/pwrite).
    #[arg(long, default_value = "memory")]
    data: String,
    /// none: answer at once and record simulated latencies; real: answer at the simulated
    /// completion time (needs --timing).
    #[arg(long, default_value = "none")]
    pace: String,
    /// Wall-clock time per simulated time: 1 = real time, 10 = ten times slower than the
    /// simulated device (arrival times are wall-clock arrivals divided by it).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    time_scale: f64,
    /// Record the served request stream with content hashes as a .fgt trace
    /// (`flashgc run --workload trace:FILE.fgt` replays it).
    #[arg(long, value_name = "FILE.fgt")]
    record: Option<String>,
    /// Name of the export (the empty default name is accepted too).
    #[arg(long, default_value = "flashgc")]
    export_name: String,
    /// Stop after this many client connections have ended, N >= 1 (default: serve until
    /// SIGINT/SIGTERM/SIGHUP). One fio job (its nbd engine) opens two.
    #[arg(long, value_name = "N")]
    exit_after_clients: Option<u64>,
    /// No live statistics line (it is shown only on a terminal anyway).
    #[arg(long)]
    quiet: bool,
    /// Print the result as JSON at shutdown.
    #[arg(long)]
    json: bool,
    /// Write the result JSON to this file at shutdown (atomically).
    #[arg(long, short = 'o')]
    output: Option<String>,
}

fn backend(a: &ServeArgs, cfg: &flashgc_core::Config) -> Result<Backend, Fail> {
    let t = &a.timing;
    if t.wants_fio()
        || t.size.is_some()
        || t.paper.is_some()
        || t.data_gb.is_some()
        || t.checkpoint_gb.is_some()
    {
        return Err(Fail(
            2,
            "fio flags (--rw, --rwmixwrite, --bs, --size, --distribution, --paper, --data-gb, --checkpoint-gb) \
             do not apply to `serve`: its workload is what the clients send"
                .into(),
        ));
    }
    // Synthetic-workload and run-length flags would be accepted and then ignored.
    let ignored = [
        ("--rate", t.rate.is_some()),
        ("--requests", t.requests.is_some()),
        ("--write-volume", a.common.write_volume.is_some()),
        ("--read-ratio", a.common.read_ratio.is_some()),
        ("--request-pages", a.common.request_pages.is_some()),
    ];
    if let Some((flag, _)) = ignored.iter().find(|f| f.1) {
        return Err(Fail(
            2,
            format!(
                "{flag} does not apply to `serve`: the clients decide what is sent, how fast and for \
                 how long (stop the server with Ctrl-C, or --exit-after-clients N)"
            ),
        ));
    }
    if t.iodepth.is_some() || t.numjobs.is_some() {
        return Err(Fail(
            2,
            "--iodepth/--numjobs do not apply to `serve`: the clients decide how many requests are outstanding".into(),
        ));
    }
    if let Some(h) = &t.host {
        if h.trim() != "open" {
            return Err(Fail(
                2,
                format!(
                    "--host {h}: `serve` is open loop (requests arrive when clients send them)"
                ),
            ));
        }
    }
    if t.timing || t.any_timing_flag() {
        let mut flags = t.clone();
        flags.timing = true;
        return Ok(Backend::Timed(Box::new(flags.params(cfg, false)?)));
    }
    Ok(Backend::Waf)
}

/// Runs `flashgc serve` until SIGINT/SIGTERM (or `--exit-after-clients`).
pub fn serve(a: &ServeArgs) -> Result<(), Fail> {
    if a.common.workload.is_some() {
        return Err(Fail(
            2,
            "--workload does not apply to `serve`: its workload is what the clients send".into(),
        ));
    }
    if a.exit_after_clients == Some(0) {
        return Err(Fail(
            2,
            "--exit-after-clients 0: give N >= 1 connections (one fio job opens 2: a probe, then its I/O)".into(),
        ));
    }
    let cfg = crate::build_config(&a.common)?;
    cfg.layout()?;
    crate::output::check_output(a.output.as_deref())?;
    if let Some(r) = &a.record {
        // Checked before serving: the trace is moved there only when the server stops, so
        // a path that cannot take it (a directory, a missing one) would lose the recording.
        crate::outfile::check_writable("--record", r).map_err(|e| Fail(2, e))?;
    }
    let backend = backend(a, &cfg)?;
    let endpoint = match (&a.socket, &a.listen) {
        // An empty path would bind a socket no client can name.
        (Some(p), None) if p.trim().is_empty() => {
            return Err(Fail(2, "--socket: give a path for the socket".into()))
        }
        (Some(p), None) => Endpoint::Unix(PathBuf::from(p)),
        (None, Some(l)) => Endpoint::Tcp(l.clone()),
        _ => {
            return Err(Fail(
                2,
                "give --socket PATH or --listen ADDR (e.g. 127.0.0.1:10809)".into(),
            ))
        }
    };
    let data = DataMode::parse(&a.data).map_err(|e| Fail(2, e))?;
    let data_file = match &data {
        DataMode::File(p) => Some(p.to_string_lossy().into_owned()),
        _ => None,
    };
    // A result or recording over the disk image (or the configuration), or a disk image
    // that is the configuration, replaced it without a word.
    crate::output::distinct_files(&[
        ("--config", a.common.config.as_deref()),
        ("--data", data_file.as_deref()),
        ("--socket", a.socket.as_deref()),
        ("--record", a.record.as_deref()),
        ("-o", a.output.as_deref()),
    ])?;
    let pace = Pace::parse(&a.pace).map_err(|e| Fail(2, e))?;
    let opts = ServeOptions {
        cfg,
        backend,
        endpoint,
        data,
        pace,
        time_scale: a.time_scale,
        record: a.record.as_ref().map(PathBuf::from),
        export_name: a.export_name.clone(),
        exit_after_clients: a.exit_after_clients,
        live: !a.quiet && std::io::stderr().is_terminal(),
    };
    // SIGINT / SIGTERM / SIGHUP (the terminal or ssh session closed) stop the server
    // cleanly; a second one ends the process at once.
    let stop = Arc::new(AtomicBool::new(false));
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::flag;
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            flag::register_conditional_default(sig, Arc::clone(&stop))
                .and_then(|_| flag::register(sig, Arc::clone(&stop)))
                .map_err(|e| Fail(1, format!("cannot install the signal handler: {e}")))?;
        }
    }
    let mut listening = false;
    let out = flashgc_serve::serve(opts, stop, |_| listening = true)
        .map_err(|e| Fail(if listening { 1 } else { 2 }, e))?;
    let s = &out.session;
    // Written without `eprintln!`/`println!`, which panic on a failed write: after SIGHUP
    // the terminal is gone, and the result must still reach `-o`.
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "flashgc serve: stopped after {} clients ({} dropped), {} NBD requests ({} refused, {} flushes, {} FUA), {:.1} MB written, {:.1} MB read, {:.0} requests per wall-clock second",
        s.clients,
        s.dropped_clients,
        s.nbd_requests,
        s.refused_requests,
        s.flushes,
        s.fua_requests,
        s.bytes_written as f64 / 1e6,
        s.bytes_read as f64 / 1e6,
        s.wall_iops
    );
    if let Some(p) = &out.record {
        let _ = writeln!(
            err,
            "flashgc serve: recorded {} requests in {} (replay: flashgc run --workload trace:{} with the same flags)",
            s.sim_requests,
            p.display(),
            p.display()
        );
    }
    let r = &out.result;
    let json = serde_json::to_string_pretty(r).map_err(|e| Fail(1, e.to_string()))?;
    // Printed first, then written: a result that cannot be saved is still shown.
    let mut text = if a.json {
        format!("{json}\n")
    } else {
        crate::output::human(r, s.wall_seconds, None)
    };
    if let (false, Some(t)) = (a.json, &r.timing) {
        text.push_str(&crate::timing_summary::human(t));
    }
    let _ = std::io::stdout().write_all(text.as_bytes());
    crate::output::save_printed(a.output.as_deref(), json.as_bytes())
}
