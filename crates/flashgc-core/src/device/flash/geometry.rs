//! Physical layout: where a PPN lives (channel, chip, die, plane, block, page).
//!
//! The FTL numbers mapping units `ppn = segment * pages_per_segment + offset`. A flash page
//! holds `upp = page_size / lpn_size` consecutive mapping units, so flash page
//! `fp = offset / upp` of the segment. A segment is `k = segment_blocks` blocks:
//!
//! * static allocation (default): flash page `fp` of a segment goes to block `j = fp % k` of
//!   the segment at page `fp / k` of that block (consecutive flash pages of a superblock are
//!   striped over its `k` units, round robin). Block `j` of segment `s` is global block
//!   `g = s * k + j`, which lives on parallel unit `g % units` as that unit's block `g / units`.
//!   Consecutive segments therefore start on consecutive units, so single-block segments
//!   (k = 1) taken from the FIFO free pool rotate over the units.
//! * dynamic allocation (`first-idle`): the unit of each new flash page of a superblock is
//!   chosen at program time: the unit among the segment's `k` units that becomes idle first
//!   (ties: lowest index) and still has an unwritten page in its block. A table remembers the
//!   choice per flash page so that later reads find the page.
//! * dynamic allocation (`round-robin`): the unit of each new flash page is the first of
//!   the segment's units with room at or after a device-wide cursor in unit order, and the
//!   cursor moves past it (Cosmos+ OpenSSD's GreedyFTL gives each new slice the next die,
//!   channel first, whatever the data: `FindDieForFreeSliceAllocation`). With segments of
//!   every unit (`segment_blocks` = units) the die of the n-th programmed flash page no
//!   longer depends on which stream or segment it goes to. The choice is remembered per
//!   flash page as with `first-idle`.
//!
//! Parallel unit index `u` (0..units) maps to (channel, chip, die, plane) by a striping order
//! of MQSim's channel-way-die-plane family: a permutation of the letters `C`, `W`, `D`, `P`,
//! first letter varying fastest. `CWDP` (MQSim's default) puts consecutive units on
//! consecutive channels, then ways, then dies, then planes.

use crate::config::DeviceConfig;
use crate::error::{Error, Result};

/// Page allocation over parallel units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alloc {
    /// Static striping (see module docs).
    Static,
    /// Dynamic: the first idle unit of the superblock.
    FirstIdle,
    /// Dynamic: the next unit of a device-wide rotation (Cosmos+'s die allocation).
    RoundRobin,
}

impl Alloc {
    /// Whether the unit of a flash page is chosen when it is programmed (and remembered).
    #[inline(always)]
    pub fn dynamic(self) -> bool {
        self != Alloc::Static
    }
}

/// Division by a constant, by shift and mask when the divisor is a power of two (the
/// geometry's divisors almost always are; this is the timing layer's hottest arithmetic).
#[derive(Debug, Clone, Copy)]
pub struct FastDiv {
    d: u32,
    shift: u32,
    pow2: bool,
}

impl FastDiv {
    /// Divisor `d` (at least 1).
    pub fn new(d: u32) -> FastDiv {
        let d = d.max(1);
        FastDiv {
            d,
            shift: d.trailing_zeros(),
            pow2: d.is_power_of_two(),
        }
    }
    /// `x / d`.
    #[inline(always)]
    pub fn quot(self, x: u32) -> u32 {
        if self.pow2 {
            x >> self.shift
        } else {
            x / self.d
        }
    }
    /// `x % d`.
    #[inline(always)]
    pub fn modulo(self, x: u32) -> u32 {
        if self.pow2 {
            x & (self.d - 1)
        } else {
            x % self.d
        }
    }
    /// `x / d` for 64-bit `x`.
    #[inline(always)]
    pub fn quot64(self, x: u64) -> u64 {
        if self.pow2 {
            x >> self.shift
        } else {
            x / self.d as u64
        }
    }
    /// `x % d` for 64-bit `x`.
    #[inline(always)]
    pub fn modulo64(self, x: u64) -> u64 {
        if self.pow2 {
            x & (self.d as u64 - 1)
        } else {
            x % self.d as u64
        }
    }
}

/// One unit's coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitCoord {
    /// Channel.
    pub channel: u32,
    /// Chip (way) within the channel.
    pub chip: u32,
    /// Die within the chip.
    pub die: u32,
    /// Plane within the die.
    pub plane: u32,
}

/// Where a mapping unit lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loc {
    /// Parallel unit (plane) index in striping order.
    pub unit: u32,
    /// Block within the unit's plane.
    pub block: u32,
    /// Flash page within the block.
    pub page: u32,
    /// Mapping unit within the flash page (0..upp).
    pub sub: u32,
}

/// The device's physical geometry as the timing layer sees it.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// Parallel units (planes).
    pub units: u32,
    /// Blocks per segment.
    pub k: u32,
    /// Mapping units per flash page.
    pub upp: u32,
    /// Mapping units per segment.
    pub pps: u32,
    /// Flash pages per block.
    pub pages_per_block: u32,
    /// Coordinates of each unit.
    pub coords: Vec<UnitCoord>,
    /// Channels.
    pub channels: u32,
    /// Dies in the device.
    pub dies: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Striping order, e.g. "CWDP".
    pub order: String,
    die_index: Vec<u32>,
    d_pps: FastDiv,
    d_upp: FastDiv,
    d_k: FastDiv,
    d_units: FastDiv,
}

impl Geometry {
    /// Builds the geometry; `order` is a permutation of `CWDP` (case-insensitive).
    pub fn new(d: &DeviceConfig, pps: u32, order: &str) -> Result<Geometry> {
        let o = order.trim().to_ascii_uppercase();
        let mut letters: Vec<char> = o.chars().collect();
        letters.sort_unstable();
        if letters != ['C', 'D', 'P', 'W'] {
            return Err(Error::config(
                "timing.striping",
                format!("`{order}` must be a permutation of the letters C, W, D, P (channel, way, die, plane), e.g. CWDP"),
            ));
        }
        // `Config::layout` bounds the product; a geometry that skipped it must not wrap.
        let units = d.planes();
        if units > crate::config::MAX_PLANES {
            return Err(Error::config(
                "device",
                format!(
                    "{units} planes; at most {} are supported",
                    crate::config::MAX_PLANES
                ),
            ));
        }
        let units = units as usize;
        let mut coords = Vec::with_capacity(units);
        let mut die_index = Vec::with_capacity(units);
        for u in 0..units as u32 {
            let mut rest = u;
            let mut c = UnitCoord {
                channel: 0,
                chip: 0,
                die: 0,
                plane: 0,
            };
            for ch in o.chars() {
                let (radix, slot) = match ch {
                    'C' => (d.channels, &mut c.channel),
                    'W' => (d.chips_per_channel, &mut c.chip),
                    'D' => (d.dies_per_chip, &mut c.die),
                    _ => (d.planes_per_die, &mut c.plane),
                };
                *slot = rest % radix;
                rest /= radix;
            }
            die_index.push((c.channel * d.chips_per_channel + c.chip) * d.dies_per_chip + c.die);
            coords.push(c);
        }
        Ok(Geometry {
            units: units as u32,
            k: d.segment_blocks,
            upp: d.page_size / d.lpn_size,
            pps,
            pages_per_block: d.pages_per_block,
            coords,
            channels: d.channels,
            dies: d.channels * d.chips_per_channel * d.dies_per_chip,
            planes_per_die: d.planes_per_die,
            order: o,
            die_index,
            d_pps: FastDiv::new(pps),
            d_upp: FastDiv::new(d.page_size / d.lpn_size),
            d_k: FastDiv::new(d.segment_blocks),
            d_units: FastDiv::new(units as u32),
        })
    }

    /// Global die index of a unit (channel-major: stable across striping orders).
    #[inline(always)]
    pub fn die_of(&self, unit: u32) -> u32 {
        self.die_index[unit as usize]
    }

    /// The unit of block `j` of segment `seg` (static block placement), and the block's
    /// index within that unit.
    #[inline(always)]
    pub fn block_unit(&self, seg: u32, j: u32) -> (u32, u32) {
        let g = seg as u64 * self.k as u64 + j as u64;
        (
            self.d_units.modulo64(g) as u32,
            self.d_units.quot64(g) as u32,
        )
    }

    /// Segment of a PPN.
    #[inline(always)]
    pub fn seg_of(&self, ppn: u32) -> u32 {
        self.d_pps.quot(ppn)
    }

    /// Global flash page index of a PPN (`ppn / upp`).
    #[inline(always)]
    pub fn fpage_of(&self, ppn: u32) -> u32 {
        self.d_upp.quot(ppn)
    }

    /// Mapping unit of a PPN within its flash page (`ppn % upp`).
    #[inline(always)]
    pub fn sub_of(&self, ppn: u32) -> u32 {
        self.d_upp.modulo(ppn)
    }

    /// Static unit of a PPN (what [`Geometry::locate`] returns as `unit`, cheaper).
    #[inline(always)]
    pub fn unit_static(&self, ppn: u32) -> u32 {
        let seg = self.d_pps.quot(ppn);
        let fp = self.d_upp.quot(self.d_pps.modulo(ppn));
        let g = seg as u64 * self.k as u64 + self.d_k.modulo(fp) as u64;
        self.d_units.modulo64(g) as u32
    }

    /// Static location of a PPN.
    #[inline(always)]
    pub fn locate(&self, ppn: u32) -> Loc {
        let seg = self.d_pps.quot(ppn);
        let off = self.d_pps.modulo(ppn);
        let fp = self.d_upp.quot(off);
        let (unit, block) = self.block_unit(seg, self.d_k.modulo(fp));
        Loc {
            unit,
            block,
            page: self.d_k.quot(fp),
            sub: self.d_upp.modulo(off),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_division_matches_plain_division() {
        for d in 1..=40u32 {
            let f = FastDiv::new(d);
            for x in (0..5000u32).chain([u32::MAX - 7, u32::MAX]) {
                assert_eq!((f.quot(x), f.modulo(x)), (x / d, x % d), "{x} / {d}");
                let y = x as u64 * 3;
                assert_eq!((f.quot64(y), f.modulo64(y)), (y / d as u64, y % d as u64));
            }
        }
    }

    #[test]
    fn striping_orders_and_superblock_pages() {
        let d = DeviceConfig {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            segment_blocks: 4,
            ..DeviceConfig::default()
        };
        let g = Geometry::new(&d, 4 * 256, "cwdp").unwrap();
        // CWDP: channel fastest, then way, then plane.
        let c: Vec<(u32, u32, u32)> = g
            .coords
            .iter()
            .map(|c| (c.channel, c.chip, c.plane))
            .collect();
        assert_eq!(
            &c[..5],
            &[(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1)]
        );
        let p = Geometry::new(&d, 4 * 256, "PDWC").unwrap();
        assert_eq!((p.coords[1].plane, p.coords[1].channel), (1, 0));
        // Superblock of 4 blocks: flash page i on block i % 4; segment 1 starts on unit 4.
        let units: Vec<u32> = (0..6).map(|i| g.locate(i).unit).collect();
        assert_eq!(units, [0, 1, 2, 3, 0, 1]);
        assert_eq!(g.locate(4).page, 1);
        assert_eq!(g.locate(1024).unit, 4);
        assert_eq!(g.locate(2048).unit, 0);
        assert_eq!(g.locate(2048).block, 1);
        for ppn in 0..4096 {
            assert_eq!(g.unit_static(ppn), g.locate(ppn).unit);
        }
        assert!(Geometry::new(&d, 1024, "CWDX").is_err());
    }
}
