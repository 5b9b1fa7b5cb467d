//! One client connection: the handshake, then the transmission phase. Requests are read,
//! applied to the data store, hashed, handed to the engine thread, and answered.
//!
//! * `--pace none`: the connection thread answers each request as soon as its data is in
//!   the store and the request is queued for the simulator; replies are batched and flushed
//!   whenever no further request is waiting in the input buffer.
//! * `--pace real`: successful reads, writes and flushes are answered by a per-connection
//!   reply thread at the wall-clock time of their simulated completion (the engine thread
//!   sends each reply with its due time); errors are answered at once.
//!
//! A write is acknowledged only after its bytes are in the store (and, with FUA, synced),
//! so no acknowledged write is lost when a client misbehaves or the server stops. A flush
//! syncs the store, then goes to the simulator (its write cache's dirty pages are
//! programmed); FUA requests go there with their flag.

use crate::nbd::{self, RequestHeader, REQUEST_BYTES};
use crate::server::{Ctx, Durability, EngineMsg, Piece, Pieces};
use flashgc_core::workload::{Op, Request};
use std::collections::BinaryHeap;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A connected socket (Unix or TCP).
pub enum Conn {
    /// Unix domain socket.
    Unix(std::os::unix::net::UnixStream),
    /// TCP socket.
    Tcp(std::net::TcpStream),
}

impl Conn {
    /// A second handle on the same socket.
    pub fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Unix(s) => Conn::Unix(s.try_clone()?),
            Conn::Tcp(s) => Conn::Tcp(s.try_clone()?),
        })
    }
    /// Shuts both directions down (wakes a thread blocked on it).
    pub fn shutdown(&self) {
        let _ = match self {
            Conn::Unix(s) => s.shutdown(std::net::Shutdown::Both),
            Conn::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Read for Conn {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(b),
            Conn::Tcp(s) => s.read(b),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(b),
            Conn::Tcp(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Unix(s) => s.flush(),
            Conn::Tcp(s) => s.flush(),
        }
    }
}

/// The handshake needs one object that reads and writes.
struct Duplex<'a> {
    r: &'a mut BufReader<Conn>,
    w: &'a mut BufWriter<Conn>,
}

impl Read for Duplex<'_> {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        self.r.read(b)
    }
}
impl Write for Duplex<'_> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.w.write(b)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// How a connection ended.
#[derive(Debug)]
pub enum ConnEnd {
    /// The client aborted the handshake.
    Aborted,
    /// The client sent `NBD_CMD_DISC`.
    SoftDisconnect,
    /// The client closed the connection between requests without `NBD_CMD_DISC`.
    Closed,
    /// The server is stopping.
    Shutdown,
    /// The client was dropped: why.
    Dropped(String),
}

/// A reply due at a wall-clock time (pace real).
pub struct Timed {
    /// When to send it.
    pub due: Instant,
    /// Order of submission (ties keep it).
    pub seq: u64,
    /// Reply bytes (header and data).
    pub bytes: Vec<u8>,
}

impl PartialEq for Timed {
    fn eq(&self, o: &Self) -> bool {
        self.due == o.due && self.seq == o.seq
    }
}
impl Eq for Timed {}
impl PartialOrd for Timed {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Timed {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Min-heap on (due, seq).
        (o.due, o.seq).cmp(&(self.due, self.seq))
    }
}

/// Sends the replies of one connection at their due times until every sender is gone.
fn replier(mut w: Conn, rx: Receiver<Timed>, ctx: Arc<Ctx>) {
    let mut heap: BinaryHeap<Timed> = BinaryHeap::new();
    let mut open = true;
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    loop {
        if ctx.stop.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        while heap.peek().is_some_and(|t| t.due <= now) {
            if let Some(t) = heap.pop() {
                out.extend_from_slice(&t.bytes);
            }
        }
        if !out.is_empty() {
            if w.write_all(&out).is_err() {
                return;
            }
            out.clear();
        }
        if !open && heap.is_empty() {
            return;
        }
        let wait = heap
            .peek()
            .map(|t| t.due.saturating_duration_since(Instant::now()))
            .unwrap_or(Duration::from_millis(100))
            .min(Duration::from_millis(100));
        if !open {
            std::thread::sleep(wait);
            continue;
        }
        match rx.recv_timeout(wait) {
            Ok(t) => heap.push(t),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => open = false,
        }
        while let Ok(t) = rx.try_recv() {
            heap.push(t);
        }
    }
}

/// The reply path of a connection.
enum Replies {
    Now(BufWriter<Conn>),
    Paced {
        tx: Sender<Timed>,
        seq: u64,
        thread: std::thread::JoinHandle<()>,
    },
}

impl Replies {
    fn send(&mut self, handle: u64, error: u32, data: Option<&[u8]>) -> io::Result<()> {
        match self {
            Replies::Now(w) => {
                w.write_all(&nbd::reply_header(error, handle))?;
                if let Some(d) = data {
                    w.write_all(d)?;
                }
                Ok(())
            }
            Replies::Paced { tx, seq, .. } => {
                *seq += 1;
                let mut bytes = nbd::reply_header(error, handle).to_vec();
                if let Some(d) = data {
                    bytes.extend_from_slice(d);
                }
                tx.send(Timed {
                    due: Instant::now(),
                    seq: *seq,
                    bytes,
                })
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "reply thread ended"))
            }
        }
    }
}

/// Serves one client until it leaves, misbehaves or the server stops.
pub fn serve_conn(conn: Conn, id: u64, ctx: Arc<Ctx>) -> ConnEnd {
    let (r, w) = match (conn.try_clone(), conn.try_clone()) {
        (Ok(r), Ok(w)) => (r, w),
        _ => return ConnEnd::Dropped("cannot clone the socket".into()),
    };
    let mut rd = BufReader::with_capacity(1 << 18, r);
    let mut wr = BufWriter::with_capacity(1 << 16, w);
    let stopping = || ctx.stop.load(Ordering::Relaxed);
    match nbd::handshake(
        &mut Duplex {
            r: &mut rd,
            w: &mut wr,
        },
        &ctx.export,
        &stopping,
    ) {
        Ok(()) => {}
        Err(nbd::HandshakeEnd::Aborted) => return ConnEnd::Aborted,
        Err(nbd::HandshakeEnd::Violation(why)) => return ConnEnd::Dropped(why),
        Err(nbd::HandshakeEnd::Io(e)) => {
            return if stopping() {
                ConnEnd::Shutdown
            } else if e.kind() == std::io::ErrorKind::UnexpectedEof {
                ConnEnd::Dropped("closed the connection during the handshake".into())
            } else {
                ConnEnd::Dropped(format!("handshake: {e}"))
            }
        }
    }
    let mut replies = if ctx.pace_real {
        let (tx, rx) = mpsc::channel();
        let w = match conn.try_clone() {
            Ok(w) => w,
            Err(e) => return ConnEnd::Dropped(format!("cannot clone the socket: {e}")),
        };
        let c = ctx.clone();
        let thread = std::thread::spawn(move || replier(w, rx, c));
        Replies::Paced { tx, seq: 0, thread }
    } else {
        Replies::Now(wr)
    };
    let end = transmission(&mut rd, &mut replies, id, &ctx);
    let end = match (end, &stopping()) {
        (Err(_), true) => ConnEnd::Shutdown,
        (Err(e), false) => ConnEnd::Dropped(format!("connection failed: {e}")),
        (Ok(e), _) => e,
    };
    match replies {
        Replies::Now(mut w) => {
            let _ = w.flush();
        }
        Replies::Paced { tx, thread, .. } => {
            drop(tx);
            let _ = thread.join();
        }
    }
    conn.shutdown();
    end
}

/// Reads and discards `n` payload bytes (a write that is refused still sends its data).
fn drain(rd: &mut BufReader<Conn>, n: u64) -> io::Result<()> {
    let got = io::copy(&mut rd.by_ref().take(n), &mut io::sink())?;
    if got < n {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the client disconnected in the middle of a write payload",
        ));
    }
    Ok(())
}

fn content_of(page: &[u8]) -> u64 {
    let h = xxhash_rust::xxh3::xxh3_64(page);
    // 0 means "unknown content" in flashgc.
    if h == 0 {
        1
    } else {
        h
    }
}

fn transmission(
    rd: &mut BufReader<Conn>,
    replies: &mut Replies,
    _id: u64,
    ctx: &Ctx,
) -> io::Result<ConnEnd> {
    let size = ctx.export.size;
    let lpn = ctx.lpn_size;
    let mut buf: Vec<u8> = Vec::new();
    let mut page = vec![0u8; lpn as usize];
    let zero_content = content_of(&vec![0u8; lpn as usize]);
    loop {
        if let Replies::Now(w) = replies {
            if rd.buffer().is_empty() {
                w.flush()?;
            }
        }
        if ctx.stop.load(Ordering::Relaxed) {
            return Ok(ConnEnd::Shutdown);
        }
        if rd.fill_buf()?.is_empty() {
            return Ok(ConnEnd::Closed);
        }
        let mut hb = [0u8; REQUEST_BYTES];
        if rd.read_exact(&mut hb).is_err() {
            return Ok(ConnEnd::Dropped(
                "disconnected in the middle of a request header".into(),
            ));
        }
        let Some(h) = RequestHeader::decode(&hb) else {
            return Ok(ConnEnd::Dropped(format!(
                "bad request magic {:#010x} (the stream cannot be resynchronised)",
                u32::from_be_bytes([hb[0], hb[1], hb[2], hb[3]])
            )));
        };
        let arrival = Instant::now();
        let end = h.offset.checked_add(h.len as u64);
        let in_range = end.is_some_and(|e| e <= size);
        ctx.requests.fetch_add(1, Ordering::Relaxed);
        match h.kind {
            nbd::CMD_WRITE => {
                let bad_flags = h.flags & !nbd::CMD_FLAG_FUA != 0;
                let err = if h.len > nbd::MAX_REQUEST {
                    Some((nbd::EINVAL, "longer than the 32 MiB request limit"))
                } else if !in_range {
                    Some((nbd::ENOSPC, "beyond the end of the export"))
                } else if bad_flags {
                    Some((nbd::EINVAL, "unsupported command flags"))
                } else {
                    None
                };
                if let Some((code, why)) = err {
                    if let Err(e) = drain(rd, h.len as u64) {
                        return Ok(ConnEnd::Dropped(e.to_string()));
                    }
                    refuse(ctx, &h, why);
                    replies.send(h.handle, code, None)?;
                    continue;
                }
                buf.resize(h.len as usize, 0);
                if rd.read_exact(&mut buf).is_err() {
                    return Ok(ConnEnd::Dropped(
                        "disconnected in the middle of a write payload (the write was not applied)"
                            .into(),
                    ));
                }
                if h.len == 0 {
                    replies.send(h.handle, 0, None)?;
                    continue;
                }
                if let Err(e) = ctx.store.write(h.offset, &buf).and_then(|_| {
                    if h.flags & nbd::CMD_FLAG_FUA != 0 {
                        ctx.store.flush()
                    } else {
                        Ok(())
                    }
                }) {
                    crate::server::log(&format!("write at {} failed: {e}", h.offset));
                    replies.send(h.handle, nbd::EIO, None)?;
                    continue;
                }
                ctx.bytes_written.fetch_add(h.len as u64, Ordering::Relaxed);
                let first = h.offset / lpn;
                let last = (h.offset + h.len as u64 - 1) / lpn;
                let mut pieces = Vec::with_capacity((last - first + 1) as usize);
                for p in first..=last {
                    let po = p * lpn;
                    let content = if po >= h.offset && po + lpn <= h.offset + h.len as u64 {
                        let s = (po - h.offset) as usize;
                        content_of(&buf[s..s + lpn as usize])
                    } else {
                        page_content(ctx, &buf, h.offset, po, &mut page)
                    };
                    pieces.push(page_piece(Op::Write, p, lpn, content));
                }
                mark_continuations(&mut pieces);
                let d = durability(ctx, h.flags);
                submit(ctx, replies, &h, arrival, Pieces::from(pieces), None, d)?;
            }
            nbd::CMD_READ => {
                let err = if h.len > nbd::MAX_REQUEST {
                    Some((nbd::EINVAL, "longer than the 32 MiB request limit"))
                } else if !in_range {
                    Some((nbd::EINVAL, "beyond the end of the export"))
                } else if h.flags & !nbd::CMD_FLAG_FUA != 0 {
                    Some((nbd::EINVAL, "unsupported command flags"))
                } else {
                    None
                };
                if let Some((code, why)) = err {
                    refuse(ctx, &h, why);
                    replies.send(h.handle, code, None)?;
                    continue;
                }
                if h.len == 0 {
                    replies.send(h.handle, 0, Some(&[]))?;
                    continue;
                }
                buf.resize(h.len as usize, 0);
                if let Err(e) = ctx.store.read(h.offset, &mut buf) {
                    crate::server::log(&format!("read at {} failed: {e}", h.offset));
                    replies.send(h.handle, nbd::EIO, None)?;
                    continue;
                }
                ctx.bytes_read.fetch_add(h.len as u64, Ordering::Relaxed);
                let first = h.offset / lpn;
                let last = (h.offset + h.len as u64 - 1) / lpn;
                let piece = Piece {
                    req: Request {
                        time_ns: 0,
                        op: Op::Read,
                        lpn: first,
                        pages: (last - first + 1) as u32,
                        content: 0,
                        fua: false,
                    },
                    offset: h.offset,
                    len: h.len as u64,
                    cont: false,
                };
                // FUA on a read asks nothing of the device's write cache.
                let d = Durability::Plain;
                submit(ctx, replies, &h, arrival, Pieces::One(piece), Some(&buf), d)?;
            }
            nbd::CMD_TRIM | nbd::CMD_WRITE_ZEROES => {
                let zeroes = h.kind == nbd::CMD_WRITE_ZEROES;
                let allowed = if zeroes {
                    nbd::CMD_FLAG_FUA | nbd::CMD_FLAG_NO_HOLE
                } else {
                    nbd::CMD_FLAG_FUA
                };
                let err = if !in_range {
                    Some((
                        if zeroes { nbd::ENOSPC } else { nbd::EINVAL },
                        "beyond the end of the export",
                    ))
                } else if h.flags & !allowed != 0 {
                    Some((nbd::EINVAL, "unsupported command flags"))
                } else {
                    None
                };
                if let Some((code, why)) = err {
                    refuse(ctx, &h, why);
                    replies.send(h.handle, code, None)?;
                    continue;
                }
                if h.len == 0 {
                    replies.send(h.handle, 0, None)?;
                    continue;
                }
                let mut pieces = zero_pieces(ctx, &h, zeroes, zero_content, &mut page);
                mark_continuations(&mut pieces);
                // TRIM frees the whole LPN pages it covers (reads of them return zeros, as
                // on a drive with deterministic zeros after TRIM); WRITE_ZEROES zeroes its
                // whole range.
                let (zo, zl) = if zeroes {
                    (h.offset, h.len as u64)
                } else {
                    let a = h.offset.div_ceil(lpn) * lpn;
                    let b = (h.offset + h.len as u64) / lpn * lpn;
                    (a, b.saturating_sub(a))
                };
                if zl > 0 {
                    if let Err(e) = ctx.store.zero(zo, zl) {
                        crate::server::log(&format!("zeroing at {zo} failed: {e}"));
                        replies.send(h.handle, nbd::EIO, None)?;
                        continue;
                    }
                }
                if h.flags & nbd::CMD_FLAG_FUA != 0 {
                    if let Err(e) = ctx.store.flush() {
                        crate::server::log(&format!("flush failed: {e}"));
                        replies.send(h.handle, nbd::EIO, None)?;
                        continue;
                    }
                }
                if pieces.is_empty() {
                    replies.send(h.handle, 0, None)?;
                } else {
                    let d = durability(ctx, h.flags);
                    submit(ctx, replies, &h, arrival, Pieces::from(pieces), None, d)?;
                }
            }
            nbd::CMD_FLUSH => {
                if let Err(e) = ctx.store.flush() {
                    crate::server::log(&format!("flush failed: {e}"));
                    replies.send(h.handle, nbd::EIO, None)?;
                    continue;
                }
                // The simulated device's flush: its write cache's dirty pages are
                // programmed; answered at its completion (pace real).
                ctx.flushes.fetch_add(1, Ordering::Relaxed);
                let none = Pieces::Many(Vec::new());
                submit(ctx, replies, &h, arrival, none, None, Durability::Flush)?;
            }
            nbd::CMD_DISC => return Ok(ConnEnd::SoftDisconnect),
            other => {
                refuse(ctx, &h, &format!("command {other} is not supported"));
                replies.send(h.handle, nbd::EINVAL, None)?;
            }
        }
    }
}

/// Logs a refused request (once per connection thread it is cheap enough: refusals are
/// rare) and counts it.
fn refuse(ctx: &Ctx, h: &RequestHeader, why: &str) {
    let n = ctx.refused.fetch_add(1, Ordering::Relaxed);
    if n < 100 {
        crate::server::log(&format!(
            "refused command {} at offset {} of {} bytes (flags {:#x}): {why}",
            h.kind, h.offset, h.len, h.flags
        ));
    } else if n == 100 {
        crate::server::log("more refused requests; no longer logging them");
    }
}

fn page_piece(op: Op, p: u64, lpn: u64, content: u64) -> Piece {
    Piece {
        req: Request {
            time_ns: 0,
            op,
            lpn: p,
            pages: 1,
            content,
            fua: false,
        },
        offset: p * lpn,
        len: lpn,
        cont: false,
    }
}

/// Marks each write piece that starts where the write piece before it ends as that
/// request's continuation: one NBD request's pages, served as one simulator request unless
/// the FTL's content mode needs each page's fingerprint, and recorded one page per record
/// either way (`.fgt` version 3 continuation records).
fn mark_continuations(pieces: &mut [Piece]) {
    for i in 1..pieces.len() {
        let (a, b) = (pieces[i - 1].req, pieces[i].req);
        pieces[i].cont = a.op == Op::Write && b.op == Op::Write && b.lpn == a.lpn + a.pages as u64;
    }
}

/// The content of page `po` after a write of `data` at `off` that covers it partly: the
/// stored page (data kept), or the written bytes over zeros (`--data none`).
fn page_content(ctx: &Ctx, data: &[u8], off: u64, po: u64, page: &mut [u8]) -> u64 {
    let lpn = page.len() as u64;
    if !ctx.keeps_data || ctx.store.read(po, page).is_err() {
        page.fill(0);
        let a = off.max(po);
        let b = (off + data.len() as u64).min(po + lpn);
        page[(a - po) as usize..(b - po) as usize]
            .copy_from_slice(&data[(a - off) as usize..(b - off) as usize]);
    }
    content_of(page)
}

/// The simulator requests of a TRIM or WRITE_ZEROES: whole pages are trimmed (TRIM, and
/// WRITE_ZEROES without NO_HOLE, which the device may deallocate) or written with a zero
/// page (WRITE_ZEROES with NO_HOLE); pages covered in part are written with their new
/// content (WRITE_ZEROES) or left alone (TRIM frees only whole pages).
fn zero_pieces(
    ctx: &Ctx,
    h: &RequestHeader,
    zeroes: bool,
    zero_content: u64,
    page: &mut [u8],
) -> Vec<Piece> {
    let lpn = ctx.lpn_size;
    let end = h.offset + h.len as u64;
    let a = h.offset.div_ceil(lpn);
    let b = end / lpn;
    let mut v = Vec::new();
    let edge = |p: u64, page: &mut [u8]| -> Piece {
        // Content after the zeroing: the stored page with the range cleared.
        let po = p * lpn;
        if !ctx.keeps_data || ctx.store.read(po, page).is_err() {
            page.fill(0);
        }
        let s = h.offset.max(po);
        let e = end.min(po + lpn);
        page[(s - po) as usize..(e - po) as usize].fill(0);
        page_piece(Op::Write, p, lpn, content_of(page))
    };
    let first = h.offset / lpn;
    let last = (end - 1) / lpn;
    let partial = |p: u64| p * lpn < h.offset || (p + 1) * lpn > end;
    if zeroes && partial(first) {
        v.push(edge(first, page));
    }
    if a < b {
        if zeroes && h.flags & nbd::CMD_FLAG_NO_HOLE != 0 {
            v.extend((a..b).map(|p| page_piece(Op::Write, p, lpn, zero_content)));
        } else {
            v.push(Piece {
                req: Request {
                    time_ns: 0,
                    op: Op::Trim,
                    lpn: a,
                    pages: (b - a) as u32,
                    content: 0,
                    fua: false,
                },
                offset: a * lpn,
                len: (b - a) * lpn,
                cont: false,
            });
        }
    }
    if zeroes && last != first && partial(last) {
        v.push(edge(last, page));
    }
    v
}

/// A write-like request's durability: FUA when its flag is set (counted).
fn durability(ctx: &Ctx, flags: u16) -> Durability {
    if flags & nbd::CMD_FLAG_FUA != 0 {
        ctx.fua_requests.fetch_add(1, Ordering::Relaxed);
        Durability::Fua
    } else {
        Durability::Plain
    }
}

fn submit(
    ctx: &Ctx,
    replies: &mut Replies,
    h: &RequestHeader,
    arrival: Instant,
    pieces: Pieces,
    data: Option<&[u8]>,
    durability: Durability,
) -> io::Result<()> {
    let deferred = match replies {
        Replies::Paced { tx, seq, .. } => {
            *seq += 1;
            let mut bytes = nbd::reply_header(0, h.handle).to_vec();
            if let Some(d) = data {
                bytes.extend_from_slice(d);
            }
            Some((tx.clone(), *seq, bytes))
        }
        Replies::Now(_) => None,
    };
    if ctx
        .tx
        .send(EngineMsg {
            arrival,
            pieces,
            durability,
            reply: deferred,
        })
        .is_err()
    {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            "the simulator stopped",
        ));
    }
    if let Replies::Now(_) = replies {
        replies.send(h.handle, 0, data)?;
    }
    Ok(())
}
