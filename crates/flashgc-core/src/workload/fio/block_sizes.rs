//! fio's block-size mixes: `bs=READS,WRITES`, `bsrange=MIN-MAX[,MIN-MAX]`
//! (`blocksize_range`) and `bssplit=SIZE/PERC:...[,SIZE/PERC:...]`, as a
//! [`BlockSizeMix`] (one [`Sizes`] per direction) and the per-request draw of a length
//! ([`LengthDraw`]).
//!
//! What follows fio, read from its source:
//!
//! * Parsing (options.c `str_split_parse`, `split_parse_ddir`, `bssplit_ddir`): a value
//!   without a comma applies to reads and writes; `READS,WRITES` gives each its own list
//!   (a third, trim part is accepted and ignored: flashgc issues no trims from fio jobs);
//!   an empty part leaves that direction at its `bs`. Entries are `SIZE[/PERC]`
//!   separated by `:`; a percentage above 100 is refused (fio clamps it to 100), a
//!   missing or zero one is blank: the blanks share `(100 - sum) / blanks` (integer division), a
//!   single blank entry alone takes 100. The entries are then sorted by percentage,
//!   ascending (fio's `bs_cmp` qsort; flashgc's sort is stable, so entries of equal
//!   percentage keep their written order, which fio's qsort leaves unspecified).
//! * The draw (io_u.c `get_next_buflen`, `io_u_fits`): the direction is drawn first
//!   (`get_rw_ddir`), then the offset, then the length from that direction's sizes. One
//!   size (`min_bs == max_bs`): that size, nothing drawn. `bssplit`: v uniform in 0..100,
//!   the first entry (sorted order, zero shares skipped) whose cumulative percentage
//!   exceeds v *and* that fits before the region's end; none: the last entry with a
//!   share, and if that does not fit either, a new draw (fio's `do ... while
//!   (!io_u_fits)`). Percentages summing to less than 100 thus give the rest to the last
//!   entry. `bsrange`: `min + floor(max * u)`, u uniform in [0, 1), rounded down to a
//!   multiple of min (`bs_unaligned` off), capped at max, drawn again until it fits.
//! * Offsets are aligned to the direction's smallest size (fio's `blockalign` defaults
//!   to `min_bs`) over `region / min_bs` blocks (`last_block`), so the smallest size
//!   always fits; a job's own `blockalign` and `bs_unaligned` are module `align`'s.
//! * `bs_unaligned` (module `align`): a `bsrange` length is drawn in bytes and not
//!   rounded; it covers the LPNs its bytes touch. Without it a `bssplit` entry that is
//!   not a multiple of the smallest is rounded down to one after it is chosen, as fio
//!   rounds every length (`buflen -= buflen % minbs`): `8k/50:12k/50` gives only 8k
//!   requests. The choice itself tests the entry's own size against the room left, and
//!   the last entry's rounded size is what a draw with no fitting entry returns.
//!
//! What flashgc chooses: v and u come from flashgc's seeded RNG (a stream of its own,
//! like fio's `bsrange_state`), not fio's `r / perc <= frand_max / 100` on Tausworthe
//! draws, so the shares are exactly the percentages; sums over 100 are refused whatever
//! the blanks (fio refuses them only with two or more blanks; with fewer its unsigned
//! arithmetic wraps); and where fio would loop for ever (no entry with a share fits at
//! the offset: only a zero-share smallest size does) the smallest size is used.

use crate::error::{Error, Result};
use crate::workload::{Op, Rng};

/// The most LPNs one request may span (as `fio.bs`).
const MAX_REQUEST_PAGES: u64 = 1 << 16;

/// fio's `BSSPLIT_MAX`.
const MAX_SPLIT_ENTRIES: usize = 64;

/// One `SIZE/PERC` entry of a `bssplit` list, blanks already shared out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SplitEntry {
    /// Request length, bytes.
    pub bs: u64,
    /// Share of the direction's requests, percent (0: never drawn).
    pub perc: u32,
}

/// The request lengths of one direction.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sizes {
    /// One length, bytes (`bs`).
    Fixed(u64),
    /// fio's `bsrange=MIN-MAX`, bytes.
    Range {
        /// Smallest length (and the offset alignment).
        min: u64,
        /// Largest length.
        max: u64,
    },
    /// fio's `bssplit`, sorted by percentage ascending (at least two entries: one entry
    /// is [`Sizes::Fixed`]).
    Split(Vec<SplitEntry>),
}

impl Sizes {
    /// The smallest length, bytes (fio's `min_bs`: offsets are aligned to it).
    pub fn min(&self) -> u64 {
        match self {
            Sizes::Fixed(b) => *b,
            Sizes::Range { min, .. } => *min,
            Sizes::Split(e) => e.iter().map(|e| e.bs).min().unwrap_or(0),
        }
    }

    /// The largest length, bytes (fio's `max_bs`).
    pub fn max(&self) -> u64 {
        match self {
            Sizes::Fixed(b) => *b,
            Sizes::Range { max, .. } => *max,
            Sizes::Split(e) => e.iter().map(|e| e.bs).max().unwrap_or(0),
        }
    }

    /// Every length that may be drawn (for the LPN-size check).
    fn lengths(&self) -> Vec<u64> {
        match self {
            Sizes::Fixed(b) => vec![*b],
            Sizes::Range { min, max } => vec![*min, *max],
            Sizes::Split(e) => e.iter().map(|e| e.bs).collect(),
        }
    }

    /// fio's spelling: `4096`, `4096-65536`, `4096/50:65536/50`.
    pub fn describe(&self) -> String {
        match self {
            Sizes::Fixed(b) => b.to_string(),
            Sizes::Range { min, max } => format!("{min}-{max}"),
            Sizes::Split(e) => e
                .iter()
                .map(|e| format!("{}/{}", e.bs, e.perc))
                .collect::<Vec<_>>()
                .join(":"),
        }
    }
}

/// A job's request lengths per direction (fio's `bs=R,W`, `bsrange`, `bssplit`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BlockSizeMix {
    /// The option that set the mix (`bssplit`, `bsrange` or `bs`), named in errors.
    pub option: String,
    /// Lengths of reads.
    pub read: Sizes,
    /// Lengths of writes.
    pub write: Sizes,
}

impl BlockSizeMix {
    /// A `bssplit` value (`LIST` or `READS,WRITES[,TRIMS]`) over a job whose `bs` is
    /// `bs` (a direction whose list is empty keeps it). The message says what is wrong;
    /// the caller names the file, line or field.
    pub fn parse_bssplit(v: &str, bs: u64) -> std::result::Result<BlockSizeMix, String> {
        let (read, write) = per_direction(v, split_list)?;
        Ok(BlockSizeMix {
            option: "bssplit".into(),
            read: read.unwrap_or(Sizes::Fixed(bs)),
            write: write.unwrap_or(Sizes::Fixed(bs)),
        })
    }

    /// The sizes of the direction `op` draws from.
    pub fn of(&self, op: Op) -> &Sizes {
        match op {
            Op::Read => &self.read,
            _ => &self.write,
        }
    }

    /// The one length of a job that reads (`reads`) and/or writes (`writes`) when every
    /// direction it uses has the same fixed length: such a job is a plain `bs` job.
    pub fn single(&self, reads: bool, writes: bool) -> Option<u64> {
        let used: Vec<&Sizes> = [(reads, &self.read), (writes, &self.write)]
            .into_iter()
            .filter(|u| u.0)
            .map(|u| u.1)
            .collect();
        match used.as_slice() {
            [Sizes::Fixed(a)] => Some(*a),
            [Sizes::Fixed(a), Sizes::Fixed(b)] if a == b => Some(*a),
            _ => None,
        }
    }

    /// fio's spelling of the mix: `bssplit=...`, `bsrange=...` or `bs=R,W`.
    pub fn describe(&self) -> String {
        let (r, w) = (self.read.describe(), self.write.describe());
        let name = match (&self.read, &self.write) {
            (Sizes::Split(_), _) | (_, Sizes::Split(_)) => "bssplit",
            (Sizes::Range { .. }, _) | (_, Sizes::Range { .. }) => "bsrange",
            _ => "bs",
        };
        if r == w {
            format!("{name}={r}")
        } else {
            format!("{name}={r},{w}")
        }
    }

    /// Checks every length against the LPN size (errors name `fio.OPTION`).
    pub fn check(&self, lpn_size: u32) -> Result<()> {
        let lpn = lpn_size as u64;
        for b in self.read.lengths().into_iter().chain(self.write.lengths()) {
            if b == 0 || b % lpn != 0 {
                return Err(Error::config(
                    format!("fio.{}", self.option),
                    format!("{b} must be a positive multiple of the LPN size {lpn_size}"),
                ));
            }
            if b / lpn > MAX_REQUEST_PAGES {
                return Err(Error::config(
                    format!("fio.{}", self.option),
                    format!("{b} bytes: at most {MAX_REQUEST_PAGES} LPNs per request"),
                ));
            }
        }
        Ok(())
    }
}

/// fio's `READS,WRITES[,TRIMS]` split of a block-size option: one part for both, an
/// empty part None (the direction keeps its `bs`).
pub fn per_direction<T>(
    v: &str,
    one: impl Fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<(Option<T>, Option<T>), String> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!(
            "`{v}`: at most three comma-separated parts (READS,WRITES,TRIMS)"
        ));
    }
    if parts.iter().all(|p| p.is_empty()) {
        return Err(format!("`{v}`: no size given"));
    }
    let get = |k: usize| match parts.get(k) {
        Some(p) if !p.is_empty() => one(p).map(Some),
        _ => Ok(None),
    };
    if parts.len() == 1 {
        let x = get(0)?;
        return Ok((x, get(0)?));
    }
    // The trim part is checked (a typo there is still a typo) and not used.
    get(2)?;
    Ok((get(0)?, get(1)?))
}

/// A positive size (fio's suffixes; [`super::parse_size`]).
pub fn positive_size(p: &str) -> std::result::Result<u64, String> {
    match super::parse_size(p) {
        Some(0) => Err(format!("`{p}`: a block size must be positive")),
        Some(b) => Ok(b),
        None => Err(format!("`{p}` is not a size (e.g. 4k, 64k, 1m)")),
    }
}

/// One direction's `bsrange` (`MIN-MAX`; fio swaps nothing: MIN > MAX is refused).
pub fn range(p: &str) -> std::result::Result<Sizes, String> {
    let (a, b) = p
        .split_once('-')
        .ok_or_else(|| format!("`{p}`: expected MIN-MAX (e.g. 4k-64k)"))?;
    let (min, max) = (positive_size(a)?, positive_size(b)?);
    if min > max {
        return Err(format!(
            "`{p}`: the minimum {min} is above the maximum {max}"
        ));
    }
    Ok(if min == max {
        Sizes::Fixed(min)
    } else {
        Sizes::Range { min, max }
    })
}

/// One direction's `bssplit` list (`SIZE[/PERC]:...`), fio's `bssplit_ddir`: blanks
/// shared, sorted by percentage.
pub fn split_list(list: &str) -> std::result::Result<Sizes, String> {
    let mut entries = Vec::new();
    let mut blanks = 0u32;
    let mut sum = 0u32;
    // fio stops at the first empty entry (a trailing `:`).
    for e in list.split(':').take_while(|e| !e.trim().is_empty()) {
        let (size, perc) = match e.split_once('/') {
            Some((s, p)) => {
                let p = p.trim();
                let x: u64 = p.parse().map_err(|_| {
                    format!("`{e}`: the percentage `{p}` is not a whole number (0..=100)")
                })?;
                // fio clamps a share above 100 to 100 without a word, which hides a
                // typo (`4k/500` for `4k/50`): refused here. 0 is a blank, as fio.
                if x > 100 {
                    return Err(format!(
                        "`{e}`: the percentage {x} is over 100 (a share is 0..=100)"
                    ));
                }
                (s, (x > 0).then_some(x as u32))
            }
            None => (e, None),
        };
        let bs = positive_size(size.trim())?;
        match perc {
            Some(p) => sum += p,
            None => blanks += 1,
        }
        entries.push((bs, perc));
        if entries.len() > MAX_SPLIT_ENTRIES {
            return Err(format!(
                "`{list}`: at most {MAX_SPLIT_ENTRIES} entries (fio's BSSPLIT_MAX)"
            ));
        }
    }
    if entries.is_empty() {
        return Err(format!("`{list}`: expected SIZE/PERC[:SIZE/PERC...]"));
    }
    if sum > 100 {
        return Err(format!(
            "`{list}`: the percentages add up to {sum}, more than 100"
        ));
    }
    let share = if blanks == 1 && entries.len() == 1 {
        100
    } else {
        (100 - sum).checked_div(blanks).unwrap_or(0)
    };
    let mut out: Vec<SplitEntry> = entries
        .into_iter()
        .map(|(bs, p)| SplitEntry {
            bs,
            perc: p.unwrap_or(share),
        })
        .collect();
    out.sort_by_key(|e| e.perc);
    // fio: min_bs == max_bs is one size, drawn without a random number.
    if out.iter().all(|e| e.bs == out[0].bs) {
        return Ok(Sizes::Fixed(out[0].bs));
    }
    Ok(Sizes::Split(out))
}

/// One direction's sizes in LPNs, ready to draw from.
#[derive(Debug, Clone)]
enum Pages {
    Fixed(u64),
    Range {
        min: u64,
        max: u64,
    },
    /// (pages, percent) in fio's sorted order; `last` is the index of the last entry
    /// with a share.
    Split {
        entries: Vec<(u64, u64)>,
        last: usize,
        /// Chosen sizes are rounded down to a multiple of the smallest (fio without
        /// `bs_unaligned`).
        round: bool,
    },
    /// A `bsrange` with `bs_unaligned`: lengths in bytes, `lpn` bytes per LPN.
    Bytes {
        min: u64,
        max: u64,
        lpn: u64,
    },
}

impl Pages {
    fn new(s: &Sizes, lpn: u64, unaligned: bool) -> Pages {
        match s {
            Sizes::Fixed(b) => Pages::Fixed(b / lpn),
            Sizes::Range { min, max } if unaligned => Pages::Bytes {
                min: *min,
                max: *max,
                lpn,
            },
            Sizes::Range { min, max } => Pages::Range {
                min: min / lpn,
                max: max / lpn,
            },
            Sizes::Split(e) => {
                let entries: Vec<(u64, u64)> =
                    e.iter().map(|e| (e.bs / lpn, e.perc as u64)).collect();
                let last = entries.iter().rposition(|e| e.1 > 0).unwrap_or(0);
                Pages::Split {
                    entries,
                    last,
                    round: !unaligned,
                }
            }
        }
    }

    fn min(&self) -> u64 {
        match self {
            Pages::Fixed(p) => *p,
            Pages::Range { min, .. } => *min,
            Pages::Split { entries, .. } => entries.iter().map(|e| e.0).min().unwrap_or(1),
            Pages::Bytes { min, lpn, .. } => min.div_ceil(*lpn),
        }
    }
}

/// Draws request lengths per direction as fio's `get_next_buflen` (see the module docs),
/// from a seeded stream of its own.
#[derive(Debug, Clone)]
pub struct LengthDraw {
    read: Pages,
    write: Pages,
    rng: Rng,
    /// Bytes per LPN.
    lpn: u64,
}

impl LengthDraw {
    /// Lengths of `mix` in LPNs of `lpn_size` bytes (checked by [`BlockSizeMix::check`]);
    /// `unaligned`: fio's `bs_unaligned` (`bsrange` lengths in bytes, not rounded down to
    /// a multiple of the smallest).
    pub fn new(mix: &BlockSizeMix, lpn_size: u32, seed: u64, unaligned: bool) -> LengthDraw {
        let lpn = lpn_size.max(1) as u64;
        LengthDraw {
            read: Pages::new(&mix.read, lpn, unaligned),
            write: Pages::new(&mix.write, lpn, unaligned),
            rng: Rng::new(seed),
            lpn,
        }
    }

    /// The length, bytes, of a request of direction `op` with `room` bytes left before
    /// the region's end (at least the direction's smallest length): a `bs_unaligned`
    /// range draws bytes, every other form whole LPNs ([`LengthDraw::next`]).
    pub fn next_bytes(&mut self, op: Op, room: u64) -> u64 {
        match *self.of(op) {
            Pages::Bytes { min, max, .. } => loop {
                // fio: min + max x u, no rounding down (`bs_unaligned`), capped at max.
                let len = (min + (max as f64 * self.rng.unit()) as u64).min(max);
                if len <= room {
                    return len;
                }
            },
            _ => self.next(op, room / self.lpn) * self.lpn,
        }
    }

    /// The smallest length of direction `op`, LPNs (the offset alignment).
    pub fn min_pages(&self, op: Op) -> u64 {
        self.of(op).min()
    }

    fn of(&self, op: Op) -> &Pages {
        match op {
            Op::Read => &self.read,
            _ => &self.write,
        }
    }

    /// The length, LPNs, of a request of direction `op` with `room` LPNs left before the
    /// region's end (at least the direction's smallest length).
    pub fn next(&mut self, op: Op, room: u64) -> u64 {
        let sizes = match op {
            Op::Read => &self.read,
            _ => &self.write,
        };
        match sizes {
            Pages::Fixed(p) => *p,
            Pages::Bytes { .. } => {
                // An aligned offset: the bytes fit iff the LPNs they touch do.
                let lpn = self.lpn;
                self.next_bytes(op, room.saturating_mul(lpn)).div_ceil(lpn)
            }
            Pages::Range { min, max } => loop {
                let mut len = min + (*max as f64 * self.rng.unit()) as u64;
                len -= len % min;
                let len = len.min(*max);
                if len <= room {
                    return len;
                }
            },
            Pages::Split {
                entries,
                last,
                round,
            } => {
                // fio chooses by the entry's own size, then rounds the choice down.
                let min = sizes.min();
                let rounded = |p: u64| if *round { p - p % min } else { p };
                let fallback = rounded(entries[*last].0);
                let last_fits = entries[*last].1 > 0 && fallback <= room;
                if !last_fits && !entries.iter().any(|e| e.1 > 0 && e.0 <= room) {
                    // Only a zero-share size fits (fio would loop for ever).
                    return min;
                }
                loop {
                    let v = self.rng.below(100);
                    let mut cum = 0;
                    for &(pages, perc) in entries.iter().filter(|e| e.1 > 0) {
                        cum += perc;
                        if v < cum && pages <= room {
                            return rounded(pages);
                        }
                    }
                    if fallback <= room {
                        return fallback;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "block_sizes_tests.rs"]
mod tests;
