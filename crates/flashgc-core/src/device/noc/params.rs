//! The NoC model's parameters (paper Tables 1-2 and Eq. 1) and their options.

use crate::config::Config;
use crate::error::{Error, Result};
use serde::Serialize;

/// Which GC data path relocations take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcPath {
    /// Every relocated page: flash -> FMC -> interconnect -> CPU ECC -> interconnect -> flash.
    Conventional,
    /// Error-free pages are written back from the FMC buffer (paper's proposal).
    Selective,
}

impl GcPath {
    /// Parses `conventional` or `selective`.
    pub fn parse(field: &str, s: &str) -> Result<GcPath> {
        match s.trim().to_ascii_lowercase().as_str() {
            "conventional" => Ok(GcPath::Conventional),
            "selective" => Ok(GcPath::Selective),
            o => Err(Error::config(
                field,
                format!("unknown GC path `{o}`; allowed: conventional, selective"),
            )),
        }
    }
    /// The name used in output.
    pub fn name(self) -> &'static str {
        match self {
            GcPath::Conventional => "conventional",
            GcPath::Selective => "selective",
        }
    }
}

/// Which page crossings of the interconnect share a link (and so serialize).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interconnect {
    /// One link for every crossing in either direction (a bus-like worst case).
    Shared,
    /// One link per direction (toward the CPU, toward the flash), shared by all channels.
    Duplex,
    /// One link per channel port and direction: each channel's task queue has its own
    /// interconnect port (paper Section 4.1: "each task queue for a channel requires an
    /// interconnect port"); crossings of different channels overlap (non-blocking NoC).
    Port,
}

impl Interconnect {
    /// Parses `shared`, `duplex` or `port`.
    pub fn parse(field: &str, s: &str) -> Result<Interconnect> {
        match s.trim().to_ascii_lowercase().as_str() {
            "shared" => Ok(Interconnect::Shared),
            "duplex" => Ok(Interconnect::Duplex),
            "port" => Ok(Interconnect::Port),
            o => Err(Error::config(
                field,
                format!("unknown interconnect model `{o}`; allowed: shared, duplex, port"),
            )),
        }
    }
}

/// Parameters of the NoC controller model. Defaults: the paper's Tables 1-2 and Eq. 1.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct NocParams {
    /// GC data path.
    pub path: GcPath,
    /// Bits in one flash page crossing the interconnect (paper: 2^15 for 4 KiB).
    pub page_bits: u64,
    /// Bits moved per slice hop (paper: 4).
    pub transfer_unit_bits: u32,
    /// Average routing slices a transfer unit passes through (paper: 13.5 on a 16x8 NoC).
    pub avg_slices: f64,
    /// Delay between two neighbouring slices, ns (paper: 87 ns, Spartan-7 synthesis).
    pub hop_ns: f64,
    /// Which crossings share a link.
    pub interconnect: Interconnect,
    /// Probability that a relocated page has errors (paper: 1e-4).
    pub error_prob: f64,
    /// ECC check time per page on the CPU, ns (not given by the paper: 0).
    pub ecc_check_ns: u64,
    /// Extra LDPC correction time for a page with errors, ns (not given by the paper: 0).
    pub ecc_correct_ns: u64,
    /// SRAM access per page, ns (paper: 12 us).
    pub sram_ns: u64,
    /// NAND page read, ns (paper: 25 us).
    pub read_ns: u64,
    /// NAND page program, ns (paper: 200 us).
    pub program_ns: u64,
    /// NAND block erase, ns (paper: 700 us).
    pub erase_ns: u64,
    /// Width of one time-series window, ns (doubled as needed to keep the series short).
    pub window_ns: u64,
    /// Seed of the error draws.
    pub seed: u64,
}

/// 1 - (1 - ber)^bits: the probability that a page of `bits` bits has at least one bit error.
pub fn page_error_prob(ber: f64, bits: u64) -> f64 {
    -libm::expm1(bits as f64 * libm::log1p(-ber))
}

impl NocParams {
    /// The paper's parameters, with the flash timing and page size of `cfg`.
    pub fn from_config(cfg: &Config, path: GcPath) -> NocParams {
        let t = &cfg.device.timing;
        let ns = |us: f64| libm::round(us * 1000.0) as u64;
        NocParams {
            path,
            page_bits: cfg.device.page_size as u64 * 8,
            transfer_unit_bits: 4,
            avg_slices: 13.5,
            hop_ns: 87.0,
            interconnect: Interconnect::Port,
            error_prob: 1e-4,
            ecc_check_ns: 0,
            ecc_correct_ns: 0,
            sram_ns: ns(t.sram_us),
            read_ns: ns(t.read_us),
            program_ns: ns(t.program_us),
            erase_ns: ns(t.erase_us),
            window_ns: 100_000_000,
            seed: cfg.run.seed,
        }
    }

    /// Checks every field; errors name the field and the allowed range.
    pub fn validate(&self) -> Result<()> {
        if self.page_bits == 0 {
            return Err(Error::config("noc.page_bits", "must be at least 1"));
        }
        if self.transfer_unit_bits == 0 {
            return Err(Error::config(
                "noc.transfer_unit_bits",
                "must be at least 1",
            ));
        }
        if !(self.avg_slices.is_finite() && self.avg_slices >= 1.0) {
            return Err(Error::config("noc.avg_slices", "must be a number >= 1"));
        }
        if !(self.hop_ns.is_finite() && self.hop_ns >= 0.0) {
            return Err(Error::config("noc.hop_ns", "must be a number >= 0"));
        }
        // Times are whole ns (u64): a page crossing or an ECC step beyond a second would,
        // far enough beyond, saturate the clock and give silently wrong latencies.
        let max_ns = crate::config::MAX_OP_US * 1e3;
        let units = self.page_bits as f64 / self.transfer_unit_bits as f64;
        let moves = units + self.avg_slices - 1.0;
        if moves * self.hop_ns > max_ns {
            // Name the factor that makes the product large: the slices when they outweigh
            // the page's own transfer units.
            let field = match self.avg_slices - 1.0 > units {
                true => "noc.avg_slices",
                false => "noc.hop_ns",
            };
            return Err(Error::config(
                field,
                format!(
                    "a page crossing takes (page_bits / transfer_unit_bits + avg_slices - 1) x \
                     hop_ns = {moves} x {} ns; it must be at most {max_ns} ns (1 s)",
                    self.hop_ns
                ),
            ));
        }
        for (f, v) in [
            ("noc.ecc_check_ns", self.ecc_check_ns),
            ("noc.ecc_correct_ns", self.ecc_correct_ns),
        ] {
            if v as f64 > max_ns {
                return Err(Error::config(f, format!("{v} must be in [0, {max_ns}] ns")));
            }
        }
        if !(self.error_prob.is_finite() && (0.0..=1.0).contains(&self.error_prob)) {
            return Err(Error::config(
                "noc.error_prob",
                format!("{} must be in [0, 1]", self.error_prob),
            ));
        }
        if self.window_ns == 0 {
            return Err(Error::config("noc.window_ns", "must be at least 1 ns"));
        }
        Ok(())
    }

    /// One page crossing the interconnect, ns (paper Eq. 1, rounded to the nearest ns).
    pub fn traversal_ns(&self) -> u64 {
        let moves = self.page_bits as f64 / self.transfer_unit_bits as f64 + self.avg_slices - 1.0;
        libm::round(moves * self.hop_ns) as u64
    }
}
