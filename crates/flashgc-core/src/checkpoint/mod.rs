//! Checkpoint files: the whole state of a WAF-mode run, so a long run survives a Ctrl-C, a
//! crash or a reboot and resumes to the same result bit for bit.
//!
//! # Format (version [`FORMAT_VERSION`])
//!
//! ```text
//! magic        8 bytes  "FGCKPT\r\n"
//! format       u32 LE   FORMAT_VERSION
//! version      u16 LE length + UTF-8: the flashgc version that wrote it (must match)
//! body_len     u64 LE   bytes of the body that follow the header
//! body_crc     u32 LE   CRC-32 (IEEE) of the body
//! body         sections, each: tag (4 bytes) + u64 LE length + payload
//! ```
//!
//! Sections, in order: `META` (JSON: the configuration, the caller's own data such as the
//! CLI flags, the trace file's identity), `SIM ` (bincode: precondition counts, recorder,
//! request position, workload position), `FTL ` (bincode: segment table, free pool,
//! frontiers, clocks, counters), `L2P `, `P2L `, `VALD` (raw little-endian arrays), `PLCY`
//! (the placement's [`crate::placement::Placement::save_state`]), `VICT` (the victim
//! policy's state). Large tables are written as raw slices, not element by element.
//!
//! Writing is atomic: a temporary file in the same directory is written, fsynced and renamed
//! over the target, then the directory is fsynced; a crash leaves the old checkpoint or the
//! new one, never a torn file. Reading checks magic, format and flashgc version, the file
//! size against `body_len` (truncation), every section's tag and length, and the CRC; every
//! problem is an [`Error::Input`] naming the file and what is wrong, never a panic.

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

mod serde_with;
mod state;
pub use serde_with::RawInt;
pub(crate) use serde_with::{
    cap_deque, cap_deques, cap_vecs, f64_or_inf, json_text, leak_str, opt_f64_or_inf, raw,
    RAW_CHUNK,
};
pub use state::{StateIn, StateOut};

/// File magic.
pub const MAGIC: &[u8; 8] = b"FGCKPT\r\n";
/// Version of the file layout; bumped whenever a saved structure changes (or what it
/// means: in version 10 a replayed trace's flush holds a closed-loop slot; in 11 raw
/// tables are stored in chunks and policy sections are streamed; in 12 deferred commit
/// saves the page of each resource's last host program and the reads served from the
/// write buffer; in 13 the flash media saves the unit of each resource's running program; in
/// 14 a deferred run's count of reads of a page GC is moving includes those that read the
/// old copy, and a queued write-back's page is read there; in 15 the scheduler saves the
/// waits of host programs for GC's write of their flash page's earlier unit).
pub const FORMAT_VERSION: u32 = 15;
/// The flashgc version written into (and required of) checkpoints.
pub const FLASHGC_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Bytes that writing or reading a checkpoint holds beside the run's own state, for the
/// memory estimate of a run that checkpoints or resumes: the file's 1 MiB buffer and one
/// chunk of a raw table being converted (8-byte elements). Measured: writing checkpoints
/// added 1.7-2.1 MiB to the peak RSS of 8 GiB runs (single, bf-gc, SepBIT), which then
/// sat at 0.90-0.93 of their estimate.
pub const IO_BYTES: u64 = (1 << 20) + RAW_CHUNK as u64 * 8;

/// Simulated times in a restored timed run's state must lie below this (2^60 ns, about
/// 36 years): beyond it, adding an operation's duration could overflow.
pub(crate) const TIME_LIMIT_NS: u64 = 1 << 60;

/// Whether every simulated time of `times` lies below [`TIME_LIMIT_NS`].
pub(crate) fn times_ok(times: impl IntoIterator<Item = u64>) -> bool {
    times.into_iter().all(|t| t < TIME_LIMIT_NS)
}

/// bincode 1.x with fixed-width little-endian integers (fast, and a stable layout).
fn opts() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
}

/// Encodes a policy's or structure's state (see the `serde_state!` macro).
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>> {
    use bincode::Options;
    opts()
        .serialize(v)
        .map_err(|e| Error::Input(format!("cannot encode checkpoint state: {e}")))
}

/// Decodes what [`encode`] wrote; an error (never a panic) on damaged bytes.
pub fn decode<T: DeserializeOwned>(b: &[u8]) -> Result<T> {
    use bincode::Options;
    let len = b.len() as u64;
    opts().deserialize(b).map_err(|e| match *e {
        // bincode reports a state that runs past its bytes as an empty "io error: ":
        // decoded again (only then) through a reader that counts what was read. The limit
        // stops a damaged length before it allocates, and the overrun alike.
        bincode::ErrorKind::Io(_) => {
            let mut counted = Counted { b, at: 0 };
            match opts()
                .with_limit(len)
                .deserialize_from::<_, T>(&mut counted)
            {
                Err(again) => state_error(again, counted.at as u64, len),
                Ok(_) => state_error(e, len, len),
            }
        }
        // A state followed by bytes it does not hold: bincode says only "Slice had bytes
        // remaining after deserialization"; decoded again to say where the state ends.
        bincode::ErrorKind::Custom(ref m) if m.contains("bytes remaining") => {
            let mut counted = Counted { b, at: 0 };
            let end = match opts()
                .allow_trailing_bytes()
                .with_limit(len)
                .deserialize_from::<_, T>(&mut counted)
            {
                Ok(_) => counted.at as u64,
                Err(again) => return state_error(again, counted.at as u64, len),
            };
            Error::Input(format!(
                "damaged checkpoint state: the state ends after {end} of its {len} bytes and \
                 {} bytes follow it (a length or count in it is damaged)",
                len - end
            ))
        }
        _ => state_error(e, len, len),
    })
}

/// The error of a state that does not decode from its `len` bytes, `at` of them read:
/// one that runs past its end says how far it got (bincode's own message says nothing).
fn state_error(e: bincode::Error, at: u64, len: u64) -> Error {
    let ran_out = match &*e {
        bincode::ErrorKind::SizeLimit => true,
        bincode::ErrorKind::Io(io) => io.kind() == std::io::ErrorKind::UnexpectedEof,
        _ => false,
    };
    let what = if ran_out {
        format!(
            "the state ended after {at} of {len} bytes where more were expected \
             (a length or count in it is damaged)"
        )
    } else {
        e.to_string()
    };
    Error::Input(format!("damaged checkpoint state: {what}"))
}

/// Bytes being decoded, as a [`Read`] that counts what was read.
struct Counted<'a> {
    b: &'a [u8],
    at: usize,
}
impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.b.len() - self.at);
        buf[..n].copy_from_slice(&self.b[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Implements `save_state`/`load_state` of a placement or victim policy whose whole struct
/// derives `Serialize`/`Deserialize`: the policy is rebuilt from its spec, then replaced by
/// the decoded state.
///
/// A checkpoint's CRC proves integrity, not consistency (anyone can write a file with a
/// valid CRC), so the decoded state is checked against the freshly built instance first:
/// `same: [a, b]` lists fields fixed by the spec and device (they must be equal), `len:
/// [t, u]` tables whose length they fix. Checks of the values themselves (stream ids in
/// range, candidates = sealed segments) go in the policy's `check_restored`.
macro_rules! serde_state {
    () => {
        $crate::checkpoint::serde_state!(same: [], len: []);
    };
    (same: [$($same:ident),*], len: [$($len:ident),*]) => {
        fn save_state(
            &self,
            out: &mut $crate::checkpoint::StateOut<'_>,
        ) -> $crate::error::Result<()> {
            out.put(self)
        }
        fn load_state(
            &mut self,
            state: &mut $crate::checkpoint::StateIn<'_>,
        ) -> $crate::error::Result<()> {
            // The fresh instance's tables go before the decoded ones arrive, so a resume
            // holds one copy of each (a failed load leaves the instance unusable; every
            // caller discards it).
            $(
                let $len = self.$len.len();
                self.$len = Default::default();
            )*
            let d: Self = state.get()?;
            $(
                if d.$same != self.$same {
                    return Err($crate::checkpoint::inconsistent(format!(
                        "`{}` is {:?}; the configuration gives {:?}",
                        stringify!($same),
                        d.$same,
                        self.$same
                    )));
                }
            )*
            $(
                if d.$len.len() != $len {
                    return Err($crate::checkpoint::inconsistent(format!(
                        "`{}` has {} entries; the configuration gives {}",
                        stringify!($len),
                        d.$len.len(),
                        $len
                    )));
                }
            )*
            *self = d;
            Ok(())
        }
    };
}

/// The error of restored state that decodes but contradicts the configuration or itself.
pub fn inconsistent(what: String) -> Error {
    Error::Input(format!("inconsistent checkpoint state: {what}"))
}
pub(crate) use serde_state;

/// The error of a policy that has not implemented checkpointing.
pub(crate) fn not_checkpointable(kind: &str, name: &str) -> Error {
    Error::config(
        "--checkpoint-every",
        format!("the {kind} `{name}` cannot be checkpointed yet (no save_state/load_state)"),
    )
}

// ---- writer ----

/// Streams sections into a temporary file and publishes it atomically.
pub struct CheckpointWriter {
    path: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
    crc: crc32fast::Hasher,
    body_len: u64,
    header_len: u64,
}

impl CheckpointWriter {
    /// Starts a checkpoint that [`CheckpointWriter::finish`] will publish at `path`.
    pub fn create(path: &Path) -> Result<CheckpointWriter> {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .ok_or_else(|| Error::Input(format!("{}: not a file path", path.display())))?;
        let tmp = dir.join(format!(
            ".{}.tmp{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let f = File::create(&tmp).map_err(|e| io_err(&tmp, "cannot create", e))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        let mut header = Vec::new();
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        header.extend_from_slice(&(FLASHGC_VERSION.len() as u16).to_le_bytes());
        header.extend_from_slice(FLASHGC_VERSION.as_bytes());
        header.extend_from_slice(&0u64.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        w.write_all(&header)
            .map_err(|e| io_err(&tmp, "cannot write", e))?;
        Ok(CheckpointWriter {
            path: path.to_path_buf(),
            tmp,
            w,
            crc: crc32fast::Hasher::new(),
            body_len: 0,
            header_len: header.len() as u64,
        })
    }

    fn put(&mut self, b: &[u8]) -> Result<()> {
        self.crc.update(b);
        self.body_len += b.len() as u64;
        self.w
            .write_all(b)
            .map_err(|e| io_err(&self.tmp, "cannot write", e))
    }

    /// A section of bytes.
    pub fn section(&mut self, tag: &[u8; 4], payload: &[u8]) -> Result<()> {
        self.put(tag)?;
        self.put(&(payload.len() as u64).to_le_bytes())?;
        self.put(payload)
    }

    /// A section holding `v` encoded as [`encode`] would, streamed into the file (its
    /// size computed first): the encoding is never held in memory whole.
    pub(crate) fn value<T: Serialize + ?Sized>(&mut self, tag: &[u8; 4], v: &T) -> Result<()> {
        use bincode::Options;
        let enc = |e| Error::Input(format!("cannot encode checkpoint state: {e}"));
        let len = opts().serialized_size(v).map_err(enc)?;
        self.put(tag)?;
        self.put(&len.to_le_bytes())?;
        let start = self.body_len;
        opts().serialize_into(BodyOut(self), v).map_err(enc)?;
        if self.body_len - start != len {
            return Err(Error::Input(format!(
                "internal: a checkpoint section's state took {} bytes where {len} were announced",
                self.body_len - start
            )));
        }
        Ok(())
    }

    /// A section holding a raw little-endian array.
    pub(crate) fn raw<T: RawInt>(&mut self, tag: &[u8; 4], v: &[T]) -> Result<()> {
        self.put(tag)?;
        self.put(&((v.len() * T::SIZE) as u64).to_le_bytes())?;
        let mut buf = vec![0u8; RAW_CHUNK * T::SIZE];
        for chunk in v.chunks(RAW_CHUNK) {
            let out = &mut buf[..chunk.len() * T::SIZE];
            for (x, o) in chunk.iter().zip(out.chunks_exact_mut(T::SIZE)) {
                x.to_le(o);
            }
            // Borrow juggling: `put` needs &mut self while `buf` is local.
            let out: &[u8] = out;
            self.crc.update(out);
            self.body_len += out.len() as u64;
            self.w
                .write_all(out)
                .map_err(|e| io_err(&self.tmp, "cannot write", e))?;
        }
        Ok(())
    }

    /// Patches the header, fsyncs, renames over the target and fsyncs the directory.
    /// Returns the file's size in bytes.
    pub fn finish(mut self) -> Result<u64> {
        let tmp = self.tmp.clone();
        self.w
            .flush()
            .map_err(|e| io_err(&tmp, "cannot write", e))?;
        let header_len = self.header_len;
        let body_len = self.body_len;
        let crc = std::mem::take(&mut self.crc).finalize();
        let f = self.w.get_mut();
        let patch = (|| -> std::io::Result<()> {
            f.seek(SeekFrom::Start(header_len - 12))?;
            f.write_all(&body_len.to_le_bytes())?;
            f.write_all(&crc.to_le_bytes())?;
            f.sync_all()
        })();
        patch.map_err(|e| io_err(&tmp, "cannot write", e))?;
        std::fs::rename(&tmp, &self.path)
            .map_err(|e| io_err(&self.path, "cannot rename the temporary checkpoint to", e))?;
        #[cfg(unix)]
        {
            let dir = self
                .path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(header_len + body_len)
    }
}

impl Drop for CheckpointWriter {
    fn drop(&mut self) {
        // An abandoned (failed) checkpoint leaves no temporary file behind; after `finish`
        // the temporary name no longer exists and this is a no-op.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// The body of a checkpoint being written, as a [`Write`] (CRC and length kept).
struct BodyOut<'a>(&'a mut CheckpointWriter);
impl Write for BodyOut<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .put(b)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The rest of one section of a checkpoint being read, as a [`Read`] (CRC kept).
struct Body<'a> {
    r: &'a mut CheckpointReader,
    left: u64,
}
impl Read for Body<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        if n > 0 {
            self.r
                .get(&mut buf[..n])
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            self.left -= n as u64;
        }
        Ok(n)
    }
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Input(format!("{}: {what}: {e}", path.display()))
}

// ---- reader ----

/// What a checkpoint is read from: a file, or bytes in memory (the fuzz harness).
trait Source: Read + Seek + Send {}
impl<T: Read + Seek + Send> Source for T {}

/// An open checkpoint: header checked, `META` read; the other sections are read in order
/// by [`crate::Simulation::from_checkpoint`].
pub struct CheckpointReader {
    path: PathBuf,
    r: Box<dyn Source>,
    crc: crc32fast::Hasher,
    want_crc: u32,
    left: u64,
    /// The `META` section.
    pub meta: Meta,
}

/// What a checkpoint says about the run it belongs to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    /// The effective configuration of the run.
    pub config: crate::Config,
    /// The caller's own data (the CLI stores its command line here).
    pub caller: serde_json::Value,
    /// Identity of the trace file, for `trace:` workloads.
    pub trace: Option<TraceIdentity>,
    /// User pages written in the measured phase when the checkpoint was taken.
    pub user_pages: u64,
    /// Requests consumed from the workload.
    pub requests: u64,
    /// The timing parameters of a timed run (absent for WAF-only runs); the driver's
    /// state is then the last section (`DRV `).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<crate::timing::TimingParams>,
}

/// Identifies a trace file cheaply: its size and CRC-32s of its first and last MiB.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceIdentity {
    /// The path as given in the workload spec.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// CRC-32 of the first MiB.
    pub head_crc: u32,
    /// CRC-32 of the last MiB.
    pub tail_crc: u32,
}

impl TraceIdentity {
    /// Computes the identity of the trace at `path`.
    pub fn of(path: &str) -> Result<TraceIdentity> {
        let p = Path::new(path);
        // Through `trace_file`: a trace read from a pipe is identified by its copy.
        let mut f = crate::trace_file::open(p).map_err(|e| io_err(p, "cannot open trace", e))?;
        let size = f
            .metadata()
            .map_err(|e| io_err(p, "cannot stat trace", e))?
            .len();
        const MIB: u64 = 1 << 20;
        let mut crc_of = |from: u64| -> std::io::Result<u32> {
            f.seek(SeekFrom::Start(from))?;
            let mut buf = Vec::with_capacity(MIB as usize);
            (&mut f).take(MIB).read_to_end(&mut buf)?;
            Ok(crc32fast::hash(&buf))
        };
        let head_crc = crc_of(0).map_err(|e| io_err(p, "cannot read trace", e))?;
        let tail_crc =
            crc_of(size.saturating_sub(MIB)).map_err(|e| io_err(p, "cannot read trace", e))?;
        Ok(TraceIdentity {
            path: path.to_string(),
            size,
            head_crc,
            tail_crc,
        })
    }
}

impl CheckpointReader {
    /// Opens `path`: checks magic, format version, flashgc version and size, reads `META`.
    pub fn open(path: &Path) -> Result<CheckpointReader> {
        // Looked at before opening: opening a FIFO blocks until a writer comes.
        if let Ok(m) = std::fs::metadata(path) {
            if !m.is_dir() && !m.is_file() {
                return Err(Error::Input(format!(
                    "{}: is not a regular file (a FIFO, socket or device), not a checkpoint file",
                    path.display()
                )));
            }
        }
        let f = File::open(path).map_err(|e| io_err(path, "cannot open checkpoint", e))?;
        let meta = f
            .metadata()
            .map_err(|e| io_err(path, "cannot stat checkpoint", e))?;
        // A directory opens on Unix; reading it would only say "bad magic".
        if meta.is_dir() {
            return Err(Error::Input(format!(
                "{}: is a directory, not a checkpoint file",
                path.display()
            )));
        }
        let size = meta.len();
        Self::from_source(path, Box::new(BufReader::with_capacity(1 << 20, f)), size)
    }

    /// Opens a checkpoint held in memory (`name` stands for its path in messages).
    pub fn from_bytes(name: &Path, bytes: Vec<u8>) -> Result<CheckpointReader> {
        let size = bytes.len() as u64;
        Self::from_source(name, Box::new(std::io::Cursor::new(bytes)), size)
    }

    fn from_source(path: &Path, mut r: Box<dyn Source>, size: u64) -> Result<CheckpointReader> {
        let bad = |what: String| Error::Input(format!("{}: {what}", path.display()));
        let mut magic = [0u8; 8];
        if r.read_exact(&mut magic).is_err() || &magic != MAGIC {
            return Err(bad(
                "not a flashgc checkpoint (bad magic; expected a file written by `flashgc run --checkpoint`)".into(),
            ));
        }
        let mut b4 = [0u8; 4];
        let mut b2 = [0u8; 2];
        let mut b8 = [0u8; 8];
        r.read_exact(&mut b4)
            .map_err(|_| bad("truncated header".into()))?;
        let format = u32::from_le_bytes(b4);
        if format != FORMAT_VERSION {
            return Err(bad(format!(
                "checkpoint format version {format}; this flashgc ({FLASHGC_VERSION}) reads version {FORMAT_VERSION} only"
            )));
        }
        r.read_exact(&mut b2)
            .map_err(|_| bad("truncated header".into()))?;
        let vlen = u16::from_le_bytes(b2) as usize;
        if vlen > 256 {
            return Err(bad("damaged header (version string too long)".into()));
        }
        let mut v = vec![0u8; vlen];
        r.read_exact(&mut v)
            .map_err(|_| bad("truncated header".into()))?;
        // Shown in the error below: only a printable version string is quoted.
        let printable = |b: &u8| b.is_ascii_graphic() || *b == b' ';
        if !v.iter().all(printable) {
            return Err(bad("damaged header (the version string is not text)".into()));
        }
        let version = String::from_utf8_lossy(&v).to_string();
        if version != FLASHGC_VERSION {
            return Err(bad(format!(
                "written by flashgc {version}; this is flashgc {FLASHGC_VERSION}: resume it with the version that wrote it"
            )));
        }
        r.read_exact(&mut b8)
            .map_err(|_| bad("truncated header".into()))?;
        let body_len = u64::from_le_bytes(b8);
        r.read_exact(&mut b4)
            .map_err(|_| bad("truncated header".into()))?;
        let want_crc = u32::from_le_bytes(b4);
        let header_len = 8 + 4 + 2 + vlen as u64 + 8 + 4;
        // Checked: a damaged length near 2^64 must not wrap to a small total.
        let announced = header_len.checked_add(body_len);
        if announced != Some(size) {
            let announced =
                announced.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
            return Err(bad(format!(
                "truncated or damaged: the header announces {announced} bytes but the file has {size}"
            )));
        }
        // Check the CRC before trusting any of the contents (a damaged configuration must
        // not be mistaken for a different run); the sections are then read a second time,
        // mostly from the page cache.
        let mut crc = crc32fast::Hasher::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut left = body_len;
        while left > 0 {
            let k = left.min(buf.len() as u64) as usize;
            r.read_exact(&mut buf[..k])
                .map_err(|e| bad(format!("cannot read checkpoint: {e}")))?;
            crc.update(&buf[..k]);
            left -= k as u64;
        }
        let got = crc.finalize();
        if got != want_crc {
            return Err(bad(format!(
                "damaged checkpoint: CRC mismatch (stored {want_crc:08x}, computed {got:08x}): the file was modified or corrupted"
            )));
        }
        r.seek(SeekFrom::Start(header_len))
            .map_err(|e| bad(format!("cannot read checkpoint: {e}")))?;
        let mut c = CheckpointReader {
            path: path.to_path_buf(),
            r,
            crc: crc32fast::Hasher::new(),
            want_crc,
            left: body_len,
            meta: Meta {
                config: crate::Config::default(),
                caller: serde_json::Value::Null,
                trace: None,
                user_pages: 0,
                requests: 0,
                timing: None,
            },
        };
        let m = c.section(b"META")?;
        c.meta = serde_json::from_slice(&m).map_err(|e| c.damaged(format!("META: {e}")))?;
        Ok(c)
    }

    /// The checkpoint's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn damaged(&self, what: String) -> Error {
        Error::Input(format!(
            "{}: damaged checkpoint: {what}",
            self.path.display()
        ))
    }

    fn get(&mut self, buf: &mut [u8]) -> Result<()> {
        if buf.len() as u64 > self.left {
            return Err(self.damaged("a section runs past the end of the file".into()));
        }
        self.r.read_exact(buf).map_err(|e| {
            Error::Input(format!(
                "{}: cannot read checkpoint: {e}",
                self.path.display()
            ))
        })?;
        self.left -= buf.len() as u64;
        self.crc.update(buf);
        Ok(())
    }

    fn header(&mut self, tag: &[u8; 4]) -> Result<u64> {
        let mut t = [0u8; 4];
        self.get(&mut t)?;
        if &t != tag {
            return Err(self.damaged(format!(
                "expected section {:?}, found {:?}",
                String::from_utf8_lossy(tag),
                String::from_utf8_lossy(&t)
            )));
        }
        let mut b8 = [0u8; 8];
        self.get(&mut b8)?;
        let len = u64::from_le_bytes(b8);
        if len > self.left {
            return Err(self.damaged(format!(
                "section {:?} is {len} bytes but only {} remain",
                String::from_utf8_lossy(tag),
                self.left
            )));
        }
        Ok(len)
    }

    /// Reads the next section, which must carry `tag`.
    pub fn section(&mut self, tag: &[u8; 4]) -> Result<Vec<u8>> {
        let len = self.header(tag)?;
        let mut v = vec![0u8; len as usize];
        self.get(&mut v)?;
        Ok(v)
    }

    /// Decodes a value from the next `left` bytes of the current section (streamed;
    /// `left` is what remains unread afterwards).
    fn decode_body<T: DeserializeOwned>(&mut self, left: &mut u64) -> Result<T> {
        use bincode::Options;
        let len = *left;
        let mut body = Body { r: self, left: len };
        // The limit stops a damaged length before it allocates, and an overrun of the
        // section's end.
        let v = opts().with_limit(len).deserialize_from(&mut body);
        *left = body.left;
        v.map_err(|e| state_error(e, len - *left, len))
    }

    /// Reads the next section, which must carry `tag`, as one value written by
    /// [`CheckpointWriter::value`] (streamed: its bytes are never held whole); `what`
    /// names it in errors.
    pub(crate) fn value<T: DeserializeOwned>(&mut self, tag: &[u8; 4], what: &str) -> Result<T> {
        let mut left = self.header(tag)?;
        let v = self
            .decode_body(&mut left)
            .map_err(|e| self.damaged(format!("{what}: {e}")))?;
        if left != 0 {
            return Err(self.damaged(format!(
                "section {:?} has {left} bytes after its state",
                String::from_utf8_lossy(tag)
            )));
        }
        Ok(v)
    }

    /// Reads a raw array section into `out`, which must have the section's length (the
    /// tables are already allocated by the rebuilt simulation).
    pub(crate) fn raw_into<T: RawInt>(&mut self, tag: &[u8; 4], out: &mut [T]) -> Result<()> {
        let len = self.header(tag)?;
        if len != (out.len() * T::SIZE) as u64 {
            return Err(self.damaged(format!(
                "section {:?} holds {len} bytes; this device needs {}",
                String::from_utf8_lossy(tag),
                out.len() * T::SIZE
            )));
        }
        let mut buf = vec![0u8; RAW_CHUNK * T::SIZE];
        for chunk in out.chunks_mut(RAW_CHUNK) {
            let b = &mut buf[..chunk.len() * T::SIZE];
            self.get(b)?;
            for (x, e) in chunk.iter_mut().zip(b.chunks_exact(T::SIZE)) {
                *x = T::from_le(e);
            }
        }
        Ok(())
    }

    /// Checks that the body ended and its CRC matches.
    pub fn finish(self) -> Result<()> {
        if self.left != 0 {
            return Err(self.damaged(format!(
                "{} unexpected bytes after the last section",
                self.left
            )));
        }
        let got = self.crc.clone().finalize();
        if got != self.want_crc {
            return Err(self.damaged(format!(
                "CRC mismatch (stored {:08x}, computed {got:08x}): the file was modified or corrupted",
                self.want_crc
            )));
        }
        Ok(())
    }
}
