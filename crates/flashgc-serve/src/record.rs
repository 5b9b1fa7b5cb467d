//! `--record FILE.fgt`: the served request stream as a `.fgt` trace with content
//! fingerprints, written as requests are served and renamed into place at shutdown (a
//! crash leaves `FILE.fgt.partial`, never a truncated `FILE.fgt`).
//!
//! A read or trim as the client sent it (trims cover the whole LPN pages they free), a
//! write as one record per LPN page carrying that page's content hash (flashgc carries one
//! fingerprint per request), its pages after the first flagged as continuations (`.fgt`
//! version 3): a replay joins them into the one request the client sent, unless the FTL's
//! content mode needs the fingerprints (docs/traces.md). Times are the simulator's
//! arrival times in ns.
//! An NBD FLUSH is a flush record and a FUA write's pages carry the FUA flag (`.fgt`
//! version 2, written only when the session had either), so a replay sends them to the
//! write cache as the session did.

use flashgc_core::workload::{Op, Request};
use flashgc_trace::fgt::FgtWriter;
use flashgc_trace::{Rec, VolumeKind};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A recording in progress.
pub struct Recorder {
    w: FgtWriter<BufWriter<File>>,
    partial: PathBuf,
    path: PathBuf,
    keep: bool,
}

impl Recorder {
    /// Starts a recording that will be renamed to `path` (kept) or deleted after use
    /// (`keep` false: a scratch recording for the result replay).
    pub fn create(path: &Path, keep: bool) -> Result<Recorder, String> {
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let f = File::create(&partial)
            .map_err(|e| format!("--record {}: cannot create: {e}", partial.display()))?;
        let w = FgtWriter::new(
            BufWriter::with_capacity(1 << 20, f),
            &partial.display().to_string(),
            true,
            VolumeKind::None,
        )
        .map_err(|e| e.to_string())?;
        Ok(Recorder {
            w,
            partial,
            path: path.to_path_buf(),
            keep,
        })
    }

    /// Appends one request of the simulator's op and content, at the recorded byte range
    /// `(offset, len)` (`time_ns` non-decreasing); `fua`: served with NBD's FUA flag
    /// (kept on writes, the only requests it changes); `cont`: a write page continuing the
    /// previous record's write (the same NBD request).
    pub fn push(
        &mut self,
        time_ns: u64,
        req: &Request,
        (offset, len): (u64, u64),
        fua: bool,
        cont: bool,
    ) -> Result<(), String> {
        self.push_rec(Rec {
            time_ns,
            op: req.op,
            offset,
            len,
            volume: 0,
            content: req.content,
            fua: fua && req.op == Op::Write,
            preflush: false,
            cont,
        })
    }

    /// Appends a flush (NBD's FLUSH) at `time_ns`.
    pub fn push_flush(&mut self, time_ns: u64) -> Result<(), String> {
        self.push_rec(Rec {
            time_ns,
            op: Op::Flush,
            offset: 0,
            len: 0,
            volume: 0,
            content: 0,
            fua: false,
            preflush: false,
            cont: false,
        })
    }

    fn push_rec(&mut self, rec: Rec) -> Result<(), String> {
        let n = self.w.records() + 1;
        self.w
            .push(&rec, n, &self.partial.display().to_string())
            .map_err(|e| e.to_string())
    }

    /// Records so far.
    pub fn records(&self) -> u64 {
        self.w.records()
    }

    /// Completes the file and moves it into place; returns its path and record count.
    pub fn finish(self) -> Result<(PathBuf, u64, bool), String> {
        let (n, _, _) = self
            .w
            .finish(|_| "nbd".to_string())
            .map_err(|e| e.to_string())?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| {
            format!(
                "cannot move {} to {}: {e}",
                self.partial.display(),
                self.path.display()
            )
        })?;
        Ok((self.path, n, self.keep))
    }
}
