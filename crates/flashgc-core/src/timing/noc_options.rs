//! The NoC controller's timing options (docs/noc.md): which device, the GC path, the
//! interconnect, ECC and error rates, each checked against its range.

use super::{TimingOptions, TimingParams};
use crate::config::Config;
use crate::device::noc::{page_error_prob, GcPath, Interconnect, NocParams};
use crate::error::{Error, Result};

impl TimingOptions {
    /// The NoC device's options (`device = "noc"` or any NoC option) onto `p.noc`, each
    /// checked against its range; the flash device leaves `p.noc` empty.
    pub(super) fn apply_noc(
        &self,
        cfg: &Config,
        p: &mut TimingParams,
        name: &dyn Fn(&str) -> String,
    ) -> Result<()> {
        let noc_given = self.noc_path.is_some()
            || self.interconnect.is_some()
            || self.error_prob.is_some()
            || self.ber.is_some()
            || self.hop_ns.is_some()
            || self.avg_slices.is_some()
            || self.unit_bits.is_some()
            || self.ecc_check_us.is_some()
            || self.ecc_correct_us.is_some()
            || self.window_ms.is_some();
        let noc = match self
            .device
            .as_deref()
            .map(|d| d.trim().to_ascii_lowercase())
        {
            None => noc_given || p.noc.is_some(),
            Some(d) if d == "noc" => true,
            Some(d) if d == "flash" => {
                if noc_given {
                    return Err(Error::config(
                        name("device"),
                        "NoC options were given for the flash device; use the noc device",
                    ));
                }
                false
            }
            Some(d) => {
                return Err(Error::config(
                    name("device"),
                    format!("`{d}`: allowed flash, noc"),
                ))
            }
        };
        if !noc {
            p.noc = None;
            return Ok(());
        }
        let mut n = p
            .noc
            .take()
            .unwrap_or_else(|| NocParams::from_config(cfg, GcPath::Conventional));
        if let Some(v) = &self.noc_path {
            n.path = GcPath::parse(&name("noc_path"), v)?;
        }
        if let Some(v) = &self.interconnect {
            n.interconnect = Interconnect::parse(&name("interconnect"), v)?;
        }
        if let Some(v) = self.hop_ns {
            n.hop_ns = v;
        }
        if let Some(v) = self.avg_slices {
            n.avg_slices = v;
        }
        if let Some(v) = self.unit_bits {
            n.transfer_unit_bits = v;
        }
        // At most a second, as every flash operation (beyond, the ns clock saturates).
        let max_us = crate::config::MAX_OP_US;
        let us = |key: &str, v: Option<f64>| -> Result<Option<u64>> {
            match v {
                None => Ok(None),
                Some(x) if x.is_finite() && (0.0..=max_us).contains(&x) => {
                    Ok(Some((x * 1000.0).round() as u64))
                }
                Some(x) => Err(Error::config(
                    name(key),
                    format!("{x}: must be in [0, {max_us}] us"),
                )),
            }
        };
        if let Some(v) = us("ecc_check_us", self.ecc_check_us)? {
            n.ecc_check_ns = v;
        }
        if let Some(v) = us("ecc_correct_us", self.ecc_correct_us)? {
            n.ecc_correct_ns = v;
        }
        match (self.error_prob, self.ber) {
            (Some(_), Some(_)) => {
                return Err(Error::config(
                    name("ber"),
                    format!(
                        "give either {} or {}, not both",
                        name("error_prob"),
                        name("ber")
                    ),
                ))
            }
            (Some(e), None) => {
                if !(e.is_finite() && (0.0..=1.0).contains(&e)) {
                    return Err(Error::config(
                        name("error_prob"),
                        format!("{e}: must be in [0, 1]"),
                    ));
                }
                n.error_prob = e;
            }
            (None, Some(b)) => {
                if !(b.is_finite() && (0.0..=1.0).contains(&b)) {
                    return Err(Error::config(
                        name("ber"),
                        format!("{b}: must be in [0, 1]"),
                    ));
                }
                n.error_prob = page_error_prob(b, n.page_bits);
            }
            (None, None) => {}
        }
        if let Some(w) = self.window_ms {
            if !(w.is_finite() && w > 0.0) {
                return Err(Error::config(
                    name("window_ms"),
                    format!("{w}: must be > 0"),
                ));
            }
            n.window_ns = (w * 1e6).round().max(1.0) as u64;
        }
        n.validate()?;
        p.noc = Some(n);
        Ok(())
    }
}
