//! The server: a listener (Unix socket or TCP), one thread per client connection, and one
//! engine thread that owns the simulator and the recording.
//!
//! Connections may overlap (an NBD client such as `nbdcopy` opens several); their requests
//! reach the engine in the order their headers were read. The simulator's arrival time of
//! a request is its wall-clock arrival since the first request, divided by `--time-scale`,
//! made non-decreasing (see docs/serve.md, "Time").

use crate::conn::{serve_conn, Conn, ConnEnd, Timed};
use crate::engine::{Backend, LiveCounters, LiveEngine, ServeResult};
use crate::live::LiveView;
use crate::nbd::Export;
use crate::record::Recorder;
use crate::store::{DataMode, Store};
use flashgc_core::workload::Request;
use flashgc_core::Config;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A Unix domain socket path.
    Unix(PathBuf),
    /// A TCP address, e.g. `127.0.0.1:10809` (port 0: any free port).
    Tcp(String),
}

/// When replies are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// As soon as the data is stored (simulated latencies are recorded, not felt).
    None,
    /// At the simulated completion time, scaled by the time scale (as FEMU does).
    Real,
}

impl Pace {
    /// Parses `none` or `real`.
    pub fn parse(s: &str) -> Result<Pace, String> {
        match s.trim() {
            "none" => Ok(Pace::None),
            "real" => Ok(Pace::Real),
            _ => Err(format!("--pace `{s}`: allowed none, real")),
        }
    }
}

/// Everything `flashgc serve` needs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The device and scheme configuration (as `flashgc run`).
    pub cfg: Config,
    /// The driver behind the export.
    pub backend: Backend,
    /// Where to listen.
    pub endpoint: Endpoint,
    /// Where the bytes live.
    pub data: DataMode,
    /// Reply pacing.
    pub pace: Pace,
    /// Wall-clock seconds per simulated second (1 = real time, 10 = the device runs ten
    /// times slower than the simulated one).
    pub time_scale: f64,
    /// Record the served stream (`.fgt` with content hashes) here.
    pub record: Option<PathBuf>,
    /// Export name.
    pub export_name: String,
    /// Stop after this many client connections have ended.
    pub exit_after_clients: Option<u64>,
    /// Live statistics on stderr (a terminal).
    pub live: bool,
}

/// One simulator request made from an NBD request, with the byte range recorded for it.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    /// The request (its time is set by the engine thread).
    pub req: Request,
    /// Recorded byte offset.
    pub offset: u64,
    /// Recorded byte length.
    pub len: u64,
    /// A write continuing the previous piece's write (the same NBD request's next page).
    pub cont: bool,
}

/// The pieces of one NBD request.
pub enum Pieces {
    /// A single piece (the common case: no allocation).
    One(Piece),
    /// Several.
    Many(Vec<Piece>),
}

impl From<Vec<Piece>> for Pieces {
    fn from(mut v: Vec<Piece>) -> Pieces {
        if v.len() == 1 {
            Pieces::One(v.pop().expect("one"))
        } else {
            Pieces::Many(v)
        }
    }
}

impl Pieces {
    fn as_slice(&self) -> &[Piece] {
        match self {
            Pieces::One(p) => std::slice::from_ref(p),
            Pieces::Many(v) => v,
        }
    }
}

/// What an NBD request asks of durability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// A plain request.
    Plain,
    /// A request with the FUA flag: its writes complete once programmed.
    Fua,
    /// `NBD_CMD_FLUSH` (no pieces): the write cache's dirty pages are programmed.
    Flush,
}

/// A request for the engine thread; `reply` (pace real) is sent at its completion.
pub struct EngineMsg {
    /// Wall-clock arrival.
    pub arrival: Instant,
    /// Simulator requests (none for a flush).
    pub pieces: Pieces,
    /// Plain, FUA or a flush.
    pub durability: Durability,
    /// Reply channel, sequence number and reply bytes.
    pub reply: Option<(Sender<Timed>, u64, Vec<u8>)>,
}

/// State shared by the connection threads.
pub struct Ctx {
    /// The export.
    pub export: Export,
    /// The data store.
    pub store: Store,
    /// Whether the store keeps data.
    pub keeps_data: bool,
    /// LPN size, bytes.
    pub lpn_size: u64,
    /// Pace real.
    pub pace_real: bool,
    /// Requests to the engine thread.
    pub tx: SyncSender<EngineMsg>,
    /// Set when the server stops.
    pub stop: Arc<AtomicBool>,
    /// NBD requests received.
    pub requests: AtomicU64,
    /// Requests refused with an error.
    pub refused: AtomicU64,
    /// Bytes read by clients.
    pub bytes_read: AtomicU64,
    /// Bytes written by clients.
    pub bytes_written: AtomicU64,
    /// `NBD_CMD_FLUSH` requests answered without an error.
    pub flushes: AtomicU64,
    /// Requests with the FUA flag answered without an error.
    pub fua_requests: AtomicU64,
}

/// Wall-clock figures of a session (machine-dependent: kept out of the result record).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SessionStats {
    /// Client connections accepted.
    pub clients: u64,
    /// Connections dropped for protocol violations or failures.
    pub dropped_clients: u64,
    /// NBD requests received.
    pub nbd_requests: u64,
    /// Requests answered with an NBD error.
    pub refused_requests: u64,
    /// Simulator requests served (writes count one per LPN page).
    pub sim_requests: u64,
    /// Bytes read by clients.
    pub bytes_read: u64,
    /// Bytes written by clients.
    pub bytes_written: u64,
    /// Flushes (`NBD_CMD_FLUSH`) served.
    pub flushes: u64,
    /// Requests with the FUA flag served.
    pub fua_requests: u64,
    /// Wall-clock seconds from the first request to the last.
    pub wall_seconds: f64,
    /// NBD requests per wall-clock second.
    pub wall_iops: f64,
}

/// What a session produced.
pub struct ServeOutcome {
    /// The result record (the streaming driver's record of the served stream).
    pub result: ServeResult,
    /// The live simulator's counters at shutdown.
    pub live: LiveCounters,
    /// Wall-clock figures.
    pub session: SessionStats,
    /// The recording, if kept.
    pub record: Option<PathBuf>,
}

struct EngineEnd {
    live: LiveCounters,
    result: Result<ServeResult, String>,
    /// The recording, closed (its path) or the error closing it.
    recording: Option<Result<(PathBuf, u64, bool), String>>,
    sim_requests: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

/// The engine thread: serves requests in arrival order, records them, sends paced replies.
fn engine_thread(
    mut engine: LiveEngine,
    mut recorder: Option<Recorder>,
    rx: Receiver<EngineMsg>,
    time_scale: f64,
    mut view: Option<LiveView>,
    stop: Arc<AtomicBool>,
) -> Result<EngineEnd, String> {
    let mut t0: Option<Instant> = None;
    let mut last_arrival: Option<Instant> = None;
    let mut last_t = 0u64;
    let mut n = 0u64;
    let join = !engine.content_mode();
    loop {
        let msg = match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(v) = view.as_mut() {
                    v.tick(&engine.counters(), false);
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let start = *t0.get_or_insert(msg.arrival);
        last_arrival = Some(msg.arrival);
        let wall = msg.arrival.saturating_duration_since(start).as_nanos() as f64;
        let t = ((wall / time_scale) as u64).max(last_t);
        last_t = t;
        let mut done = Some(t);
        let fua = msg.durability == Durability::Fua;
        if fua {
            engine.count_fua();
        }
        if msg.durability == Durability::Flush {
            // Under deferred commit the completion is decided later (pace none only).
            done = engine.flush(t).map_err(|e| {
                stop.store(true, Ordering::Relaxed);
                format!("the simulator failed: {e}")
            })?;
            if let Some(rec) = recorder.as_mut() {
                rec.push_flush(t)
                    .inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
            }
        }
        let pieces = msg.pieces.as_slice();
        let mut i = 0;
        while i < pieces.len() {
            // A write's pages are one request, as the client sent it, unless the content
            // mode needs each page's fingerprint (as a replay of the recording does them).
            let mut req = pieces[i].req;
            req.time_ns = t;
            let mut j = i + 1;
            while join && j < pieces.len() && pieces[j].cont {
                req.pages += pieces[j].req.pages;
                req.content = 0;
                j += 1;
            }
            let c = engine.submit(&req, t, fua).map_err(|e| {
                stop.store(true, Ordering::Relaxed);
                format!("the simulator failed: {e}")
            })?;
            // Under deferred commit the completion is decided later (pace none only).
            done = done.zip(c).map(|(d, c)| d.max(c));
            if let Some(rec) = recorder.as_mut() {
                for p in &pieces[i..j] {
                    rec.push(t, &p.req, (p.offset, p.len), fua, p.cont)
                        .inspect_err(|_| stop.store(true, Ordering::Relaxed))?;
                }
            }
            n += 1;
            i = j;
        }
        if let Some(v) = view.as_mut() {
            // A completion not known yet counts the request but no latency.
            let op = done.and(msg.pieces.as_slice().first().map(|p| p.req.op));
            v.request(op, done.map_or(0, |d| d - t));
            v.tick(&engine.counters(), false);
        }
        if let Some((tx, seq, bytes)) = msg.reply {
            // Pace real (refused with deferred commit): the completion is known.
            let done = done.unwrap_or(t);
            let due = start + Duration::from_nanos((done as f64 * time_scale) as u64);
            // The client may be gone: its reply is then dropped.
            let _ = tx.send(Timed { due, seq, bytes });
        }
    }
    if let Some(v) = view.as_mut() {
        v.tick(&engine.counters(), true);
    }
    // The recording holds every request already: close it before the drain below (long
    // under deferred commit), so that a second signal during the drain cannot lose it.
    let recording = recorder.map(Recorder::finish);
    if n > 0 {
        log("stopping: simulating the requests still in flight");
    }
    let result = engine
        .finish("requests served over NBD")
        .map_err(|e| format!("the simulator failed at the end: {e}"));
    Ok(EngineEnd {
        live: engine.counters(),
        result,
        recording,
        sim_requests: n,
        first: t0,
        last: last_arrival,
    })
}

enum Listener {
    Unix(std::os::unix::net::UnixListener, PathBuf),
    Tcp(std::net::TcpListener),
}

impl Listener {
    fn bind(ep: &Endpoint) -> Result<(Listener, String), String> {
        match ep {
            Endpoint::Unix(p) => {
                if let Ok(m) = std::fs::symlink_metadata(p) {
                    // Only a stale socket is ours to remove: a typo must not delete a file.
                    if !is_socket(&m) {
                        return Err(format!(
                            "--socket {}: exists and is not a socket ({}); choose another path",
                            p.display(),
                            kind_of(&m)
                        ));
                    }
                    if std::os::unix::net::UnixStream::connect(p).is_ok() {
                        return Err(format!(
                            "--socket {}: another server is listening there",
                            p.display()
                        ));
                    }
                    std::fs::remove_file(p).map_err(|e| {
                        format!(
                            "--socket {}: cannot remove the stale socket: {e}",
                            p.display()
                        )
                    })?;
                }
                let l = std::os::unix::net::UnixListener::bind(p)
                    .map_err(|e| format!("--socket {}: {e}", p.display()))?;
                l.set_nonblocking(true).map_err(|e| e.to_string())?;
                let uri = format!("nbd+unix:///?socket={}", p.display());
                Ok((Listener::Unix(l, p.clone()), uri))
            }
            Endpoint::Tcp(a) => {
                let l = std::net::TcpListener::bind(a).map_err(|e| format!("--listen {a}: {e}"))?;
                l.set_nonblocking(true).map_err(|e| e.to_string())?;
                let addr = l.local_addr().map_err(|e| e.to_string())?;
                Ok((Listener::Tcp(l), format!("nbd://{addr}")))
            }
        }
    }

    fn accept(&self) -> std::io::Result<Conn> {
        match self {
            Listener::Unix(l, _) => {
                let (s, _) = l.accept()?;
                s.set_nonblocking(false)?;
                Ok(Conn::Unix(s))
            }
            Listener::Tcp(l) => {
                let (s, _) = l.accept()?;
                s.set_nonblocking(false)?;
                s.set_nodelay(true)?;
                Ok(Conn::Tcp(s))
            }
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Listener::Unix(_, p) = self {
            // Whatever replaced the socket meanwhile stays.
            if std::fs::symlink_metadata(&*p).is_ok_and(|m| is_socket(&m)) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Whether `m` describes a Unix socket.
fn is_socket(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_socket()
}

/// What a path that is not a socket is, for the refusal.
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Connections ended so far.
#[derive(Default)]
struct Tally {
    ended: u64,
    dropped: u64,
    active: u64,
}

impl Tally {
    fn end(&mut self, id: u64, end: ConnEnd, conns: &Mutex<HashMap<u64, Conn>>) {
        self.active -= 1;
        self.ended += 1;
        conns.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        match end {
            ConnEnd::Dropped(why) => {
                self.dropped += 1;
                log(&format!("client {id}: dropped: {why}"));
            }
            ConnEnd::SoftDisconnect => log(&format!("client {id}: disconnected (NBD_CMD_DISC)")),
            ConnEnd::Closed => log(&format!(
                "client {id}: closed the connection without NBD_CMD_DISC"
            )),
            ConnEnd::Aborted => log(&format!(
                "client {id}: ended the handshake (NBD_OPT_ABORT, or closed before any option)"
            )),
            ConnEnd::Shutdown => log(&format!("client {id}: disconnected by the shutdown")),
        }
    }
}

/// One line on stderr. A failed write is ignored (`eprintln!` would panic): after SIGHUP
/// the terminal is gone, and the server must still stop cleanly and save its results.
pub(crate) fn log(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "flashgc serve: {msg}");
}

/// Runs a server until `stop` is set (SIGINT/SIGTERM), the engine fails, or
/// `exit_after_clients` connections have ended; then finishes the recording and builds
/// the result. `ready` is called with the NBD URI once the server listens.
pub fn serve(
    opts: ServeOptions,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(&str),
) -> Result<ServeOutcome, String> {
    if !(opts.time_scale.is_finite() && opts.time_scale > 0.0) {
        return Err(format!(
            "--time-scale {}: must be a positive number",
            opts.time_scale
        ));
    }
    if opts.pace == Pace::Real && opts.backend.deferred() {
        return Err(
            "--pace real with a priority scheduler or suspend: a reply waits for its completion, which later arrivals decide (use --pace none, or fcfs without suspend)".into(),
        );
    }
    if opts.pace == Pace::Real && !opts.backend.timed() {
        return Err(
            "--pace real needs a timing model (--timing): without one every request completes at its arrival".into(),
        );
    }
    let l = opts.cfg.layout().map_err(|e| e.to_string())?;
    // Bind first (a busy socket is reported before the device is preconditioned); clients
    // wait in the backlog until the accept loop starts.
    let (listener, uri) = Listener::bind(&opts.endpoint)?;
    let lpn = l.lpn_size as u64;
    let size = l.logical_pages * lpn;
    let engine = LiveEngine::new(&opts.cfg, &opts.backend).map_err(|e| e.to_string())?;
    let store = Store::open(&opts.data, size)?;
    let recorder = opts
        .record
        .as_ref()
        .map(|p| Recorder::create(p, true))
        .transpose()?;
    let (tx, rx) = mpsc::sync_channel::<EngineMsg>(1 << 14);
    let view = opts.live.then(LiveView::new);
    let scale = opts.time_scale;
    let estop = stop.clone();
    let engine_handle = std::thread::Builder::new()
        .name("flashgc-engine".into())
        .spawn(move || engine_thread(engine, recorder, rx, scale, view, estop))
        .map_err(|e| e.to_string())?;
    let ctx = Arc::new(Ctx {
        export: Export {
            name: opts.export_name.clone(),
            size,
            preferred_block: l.lpn_size,
        },
        store,
        keeps_data: opts.data.keeps_data(),
        lpn_size: lpn,
        pace_real: opts.pace == Pace::Real,
        tx,
        stop: stop.clone(),
        requests: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        bytes_read: AtomicU64::new(0),
        bytes_written: AtomicU64::new(0),
        flushes: AtomicU64::new(0),
        fua_requests: AtomicU64::new(0),
    });
    // Named as the flags spell them (`--data file:PATH`, `--pace real`).
    let data = match &opts.data {
        DataMode::None => "none".to_string(),
        DataMode::Memory => "memory".to_string(),
        DataMode::File(p) => format!("file:{}", p.display()),
    };
    let pace = match opts.pace {
        Pace::None => "none",
        Pace::Real => "real",
    };
    log(&format!(
        "serving `{}` ({size} bytes = {} pages of {lpn} B) at {uri}; data {data}, pace {pace}",
        opts.export_name, l.logical_pages
    ));
    ready(&uri);
    let conns: Arc<Mutex<HashMap<u64, Conn>>> = Arc::new(Mutex::new(HashMap::new()));
    let (done_tx, done_rx) = mpsc::channel::<(u64, ConnEnd)>();
    let mut threads = Vec::new();
    let mut next_id = 0u64;
    let mut tally = Tally::default();
    while !stop.load(Ordering::Relaxed) {
        while let Ok((id, end)) = done_rx.try_recv() {
            tally.end(id, end, &conns);
        }
        if opts.exit_after_clients.is_some_and(|n| tally.ended >= n) && tally.active == 0 {
            break;
        }
        match listener.accept() {
            Ok(conn) => {
                next_id += 1;
                tally.active += 1;
                let id = next_id;
                log(&format!("client {id}: connected"));
                if let Ok(c) = conn.try_clone() {
                    conns
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(id, c);
                }
                let ctx = ctx.clone();
                let done = done_tx.clone();
                threads.push(std::thread::spawn(move || {
                    let end = serve_conn(conn, id, ctx);
                    let _ = done.send((id, end));
                }));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => {
                log(&format!("accept failed: {e}"));
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    drop(listener);
    for c in conns.lock().unwrap_or_else(|e| e.into_inner()).values() {
        c.shutdown();
    }
    for t in threads {
        let _ = t.join();
    }
    drop(done_tx);
    while let Ok((id, end)) = done_rx.try_recv() {
        tally.end(id, end, &conns);
    }
    let ctx =
        Arc::try_unwrap(ctx).map_err(|_| "a connection thread is still running".to_string())?;
    let session_counts = (
        ctx.requests.load(Ordering::Relaxed),
        ctx.refused.load(Ordering::Relaxed),
        ctx.bytes_read.load(Ordering::Relaxed),
        ctx.bytes_written.load(Ordering::Relaxed),
        ctx.flushes.load(Ordering::Relaxed),
        ctx.fua_requests.load(Ordering::Relaxed),
    );
    if let Err(e) = ctx.store.flush() {
        log(&format!("final flush failed: {e}"));
    }
    drop(ctx);
    let end = engine_handle
        .join()
        .map_err(|_| "the engine thread panicked".to_string())??;
    let path = match end.recording {
        Some(r) => Some(r?.0),
        None => None,
    };
    let mut result = end.result?;
    let wall = match (end.first, end.last) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    };
    let session = SessionStats {
        clients: next_id,
        dropped_clients: tally.dropped,
        nbd_requests: session_counts.0,
        refused_requests: session_counts.1,
        sim_requests: end.sim_requests,
        bytes_read: session_counts.2,
        bytes_written: session_counts.3,
        flushes: session_counts.4,
        fua_requests: session_counts.5,
        wall_seconds: wall,
        wall_iops: if wall > 0.0 {
            session_counts.0 as f64 / wall
        } else {
            0.0
        },
    };
    let note = format!(
        "served over NBD: {} simulator requests from {} client connections ({} NBD requests), simulated as they arrived{}",
        end.sim_requests,
        next_id,
        session.nbd_requests,
        path.as_ref()
            .map_or(String::new(), |p| format!(" recorded in {}", p.display()))
    );
    result.notes.push(note);
    Ok(ServeOutcome {
        result,
        live: end.live,
        session,
        record: path,
    })
}
