//! The FTL's invariant checker (tests, `--check`, restored checkpoints): every structure
//! agrees with every other.

use super::*;

impl Ftl {
    /// Checks every invariant of the FTL's state. O(device); for tests and `--check`.
    pub fn check(&self) -> std::result::Result<(), String> {
        if self.content.is_some() {
            return self.check_content();
        }
        let pps = self.p.pages_per_segment as u64;
        // L2P and P2L agree; each mapped LPN's page is valid.
        let mut mapped = 0u64;
        for (lpn, &ppn) in self.map.l2p.iter().enumerate() {
            if ppn == NONE {
                continue;
            }
            mapped += 1;
            if !self.map.is_valid(ppn) {
                return Err(format!("LPN {lpn} maps to PPN {ppn} which is not valid"));
            }
            if self.map.p2l[ppn as usize] as usize != lpn {
                return Err(format!(
                    "L2P[{lpn}] = {ppn} but P2L[{ppn}] = {}",
                    self.map.p2l[ppn as usize]
                ));
            }
        }
        // Valid counts equal bitmaps; no valid page beyond a write pointer.
        let mut total_valid = 0u64;
        let mut written = 0u64;
        let mut sealed_invalid = 0u64;
        let mut counts = [0usize; 4];
        for s in 0..self.segs.len() {
            let base = s as u64 * pps;
            let mut n = 0u32;
            let mut beyond = false;
            let w = self.segs.written[s];
            self.map.for_each_valid(base, pps, |ppn| {
                n += 1;
                if (ppn as u64 - base) >= w as u64 {
                    beyond = true;
                }
            });
            if n != self.segs.valid[s] {
                return Err(format!(
                    "segment {s}: valid count {} but bitmap has {n}",
                    self.segs.valid[s]
                ));
            }
            if beyond {
                return Err(format!("segment {s}: valid page beyond write pointer {w}"));
            }
            let st = self.segs.state[s];
            counts[st as usize] += 1;
            if st == SegState::Free && (w != 0 || n != 0) {
                return Err(format!("free segment {s} holds data"));
            }
            if st == SegState::Sealed && w as u64 != pps {
                return Err(format!("sealed segment {s} is not full"));
            }
            total_valid += n as u64;
            written += w as u64;
            if st == SegState::Sealed {
                sealed_invalid += (w - n) as u64;
            }
        }
        if sealed_invalid != self.sealed_invalid {
            return Err(format!(
                "sealed-garbage counter {} but sealed segments hold {sealed_invalid} invalid pages",
                self.sealed_invalid
            ));
        }
        // No page lost or duplicated: valid pages = mapped LPNs.
        if total_valid != mapped {
            return Err(format!(
                "{total_valid} valid pages but {mapped} mapped LPNs"
            ));
        }
        if written != self.written_pages {
            return Err(format!(
                "written-page counter {} but segments hold {written}",
                self.written_pages
            ));
        }
        // Segment accounting: free pool = free segments; open = frontiers.
        if counts[SegState::Free as usize] != self.free.len() {
            return Err(format!(
                "{} segments are free but the pool holds {}",
                counts[SegState::Free as usize],
                self.free.len()
            ));
        }
        let open = self.open.iter().filter(|f| f.seg != NONE).count();
        if counts[SegState::Open as usize] != open {
            return Err(format!(
                "{} segments open but {open} frontiers",
                counts[SegState::Open as usize]
            ));
        }
        if counts.iter().sum::<usize>() != self.segs.len() {
            return Err("segment states do not add up".into());
        }
        Ok(())
    }
}
