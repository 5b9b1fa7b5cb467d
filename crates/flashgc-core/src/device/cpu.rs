//! Firmware CPU: the controller's cores as timed resources.
//!
//! Every operation of the FTL's op stream ([`crate::ops`]) that makes the firmware compute
//! is priced in nanoseconds of a controller core ([`CpuCosts`]): a scheme's classifier per
//! user write (a host program), ECC decoding per page read, a victim selection per GC
//! victim (its erase), GCaR's replacement scan per cache entry examined, and the explicit
//! [`Compute`] operations (fingerprints, fingerprint-store lookups). The work of one host
//! page operation runs on the core that frees up first (lowest index on ties), from the
//! operation's arrival or when that core is free, whichever is later; the host's flash
//! operations start only after the host's own CPU work ends. GC and background CPU work
//! occupies a core the same way (it delays later CPU work) but does not hold back the flash
//! operations of its GC pass (see docs/cpu.md, "What is approximate").
//!
//! The model sits between the driver and the device model: the driver hands it each
//! batch of operations before the device times them ([`Cpu::page`], [`Cpu::internal`]).
//! Off (`--cpu-cost off`, the default), the driver holds no `Cpu` and nothing changes.
//!
//! Defaults and their sources are in docs/cpu.md; where a paper gives no figure, the cost
//! was measured on the simulation host by the micro-benchmarks of
//! [`crate::driver::calibrate`] and is multiplied by [`CpuParams::scale`].

use crate::error::{Error, Result};
use crate::ops::{Compute, FlashOp, Origin};
use serde::{Deserialize, Serialize};

/// One GCaR scan step (one cached page examined: LRU link, mapping entry, chip state) on
/// the simulation host, ns: `driver::calibrate::gcar_scan_host_ns(65536, 1 << 20, 64,
/// 100_000)`, AMD EPYC, 2026-11-24 (`--example cpu_calibrate`).
pub const GCAR_SCAN_HOST_NS: f64 = 3.4;

/// The firmware-CPU options as given (a timing parameter; absent = off).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuParams {
    /// Controller cores running firmware (Cosmos+: one of the Zynq's two Cortex-A9 cores).
    pub cores: u32,
    /// Controller-core ns per simulation-host ns, for costs measured on the host.
    pub scale: f64,
    /// Explicit costs, firmware ns (absent = the default, see [`CpuCosts`]).
    #[serde(default, skip_serializing_if = "CostOverrides::is_empty")]
    pub ns: CostOverrides,
}

impl Default for CpuParams {
    fn default() -> Self {
        CpuParams {
            cores: 1,
            scale: DEFAULT_SCALE,
            ns: CostOverrides::default(),
        }
    }
}

/// Default [`CpuParams::scale`]: a named assumption (docs/cpu.md): a 1 GHz Cortex-A9
/// (sup-gc Table 1) against a ~3 GHz server core.
pub const DEFAULT_SCALE: f64 = 4.0;

/// Costs given explicitly (firmware ns per unit); None = default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostOverrides {
    /// Classifier work per user write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier: Option<f64>,
    /// One victim selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victim: Option<f64>,
    /// One GCaR scan step (one cache entry examined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scan: Option<f64>,
    /// ECC decoding per flash page read (host, GC and translation reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc_read: Option<f64>,
    /// ECC check per page of a `Compute::EccDecode` operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc_decode: Option<f64>,
    /// Extra per corrected page of a `Compute::EccDecode` operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc_correct: Option<f64>,
    /// Fingerprint (SHA-1) per page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<f64>,
    /// Fingerprint-store work (Bloom probe, table lookup or update) per lookup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint_lookup: Option<f64>,
}

impl CostOverrides {
    /// The keys of `--cpu-ns`, in the order of the docs.
    pub const KEYS: &'static [&'static str] = &[
        "classifier",
        "victim",
        "cache_scan",
        "ecc_read",
        "ecc_decode",
        "ecc_correct",
        "fingerprint",
        "fingerprint_lookup",
    ];

    fn is_empty(&self) -> bool {
        *self == CostOverrides::default()
    }

    fn slot(&mut self, key: &str) -> Option<&mut Option<f64>> {
        Some(match key {
            "classifier" => &mut self.classifier,
            "victim" => &mut self.victim,
            "cache_scan" => &mut self.cache_scan,
            "ecc_read" => &mut self.ecc_read,
            "ecc_decode" => &mut self.ecc_decode,
            "ecc_correct" => &mut self.ecc_correct,
            "fingerprint" => &mut self.fingerprint,
            "fingerprint_lookup" => &mut self.fingerprint_lookup,
            _ => return None,
        })
    }

    /// Parses `key=ns,key=ns` (e.g. `classifier=500,ecc_read=2000`); `field` names the
    /// option in errors, which name the key too (`--cpu-ns.classifier`).
    pub fn parse(field: &str, s: &str) -> Result<CostOverrides> {
        let mut o = CostOverrides::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| {
                Error::config(
                    field,
                    format!(
                        "`{item}`: expected key=nanoseconds, keys: {}",
                        Self::KEYS.join(", ")
                    ),
                )
            })?;
            let k = k.trim().replace('-', "_");
            let slot = o.slot(&k).ok_or_else(|| {
                Error::config(
                    field,
                    format!("unknown cost `{k}`; allowed: {}", Self::KEYS.join(", ")),
                )
            })?;
            let x: f64 = v.trim().parse().map_err(|_| {
                Error::config(
                    format!("{field}.{k}"),
                    format!("`{}` is not a number of ns", v.trim()),
                )
            })?;
            // The last value silently won.
            if slot.is_some() {
                return Err(Error::config(
                    format!("{field}.{k}"),
                    "given twice; give each cost once",
                ));
            }
            *slot = Some(x);
        }
        o.validate(field)?;
        Ok(o)
    }

    fn validate(&self, field: &str) -> Result<()> {
        let mut o = self.clone();
        for k in Self::KEYS {
            if let Some(Some(x)) = o.slot(k).map(|s| *s) {
                if !(x.is_finite() && (0.0..=1e12).contains(&x)) {
                    return Err(Error::config(
                        format!("{field}.{k}"),
                        format!("{x}: must be a number of ns in [0, 1e12]"),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl CpuParams {
    /// Checks every field; errors name the field (`cpu_field(key)` spells it, e.g.
    /// `--cpu-cores` or `timing.cpu_cores`) and the allowed range.
    pub fn validate_named(&self, name: &dyn Fn(&str) -> String) -> Result<()> {
        if self.cores == 0 || self.cores > 1024 {
            return Err(Error::config(
                name("cpu_cores"),
                format!("{}: must be in 1..=1024 controller cores", self.cores),
            ));
        }
        if !(self.scale.is_finite() && self.scale > 0.0 && self.scale <= 1e6) {
            return Err(Error::config(
                name("cpu_scale"),
                format!(
                    "{}: must be a positive number (controller ns per host ns) up to 1e6",
                    self.scale
                ),
            ));
        }
        self.ns.validate(&name("cpu_ns"))
    }

    /// [`CpuParams::validate_named`] with the timing section's field names.
    pub fn validate(&self) -> Result<()> {
        self.validate_named(&|k| format!("timing.{k}"))
    }
}

/// Applies the firmware-CPU options to `cpu` (the timing parameter): `cost` on/off
/// (off: no CPU model; absent: on when any other CPU option is given), `cores`, `scale`,
/// `ns` (explicit costs, `key=ns,...`). `name` spells an option's key for errors
/// (`cpu_cores` -> `--cpu-cores` or `timing.cpu_cores`). The one parser of the CLI and
/// the Python binding ([`crate::timing::TimingOptions::apply`] calls it).
pub fn apply_options(
    cpu: &mut Option<CpuParams>,
    cost: Option<&str>,
    cores: Option<i64>,
    scale: Option<f64>,
    ns: Option<&str>,
    name: &dyn Fn(&str) -> String,
) -> Result<()> {
    let others = cores.is_some() || scale.is_some() || ns.is_some();
    let on = match cost {
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "1" => true,
            "off" | "false" | "no" | "0" => false,
            _ => {
                return Err(Error::config(
                    name("cpu_cost"),
                    format!("`{v}`: allowed on, off"),
                ))
            }
        },
        None => others || cpu.is_some(),
    };
    if !on {
        if others {
            return Err(Error::config(
                name("cpu_cost"),
                format!(
                    "off, but {} / {} / {} were given: drop them or turn the cost model on",
                    name("cpu_cores"),
                    name("cpu_scale"),
                    name("cpu_ns")
                ),
            ));
        }
        *cpu = None;
        return Ok(());
    }
    let mut c = cpu.take().unwrap_or_default();
    if let Some(n) = cores {
        if !(1..=1024).contains(&n) {
            return Err(Error::config(
                name("cpu_cores"),
                format!("{n}: must be in 1..=1024 controller cores"),
            ));
        }
        c.cores = n as u32;
    }
    if let Some(x) = scale {
        c.scale = x;
    }
    if let Some(s) = ns {
        c.ns = CostOverrides::parse(&name("cpu_ns"), s)?;
    }
    c.validate_named(name)?;
    *cpu = Some(c);
    Ok(())
}

/// The costs a run uses, firmware ns per unit (what the result reports).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuCosts {
    /// Per user write (the placement scheme's classifier).
    pub classifier_ns: u64,
    /// Per GC victim (selection).
    pub victim_ns: u64,
    /// Per cache entry a GCaR replacement examines.
    pub cache_scan_ns: u64,
    /// Per flash page read (ECC decoding in firmware; 0 = a hardware ECC engine).
    pub ecc_read_ns: u64,
    /// Per page of an explicit ECC check (`Compute::EccDecode`).
    pub ecc_decode_ns: u64,
    /// Extra per corrected page of an explicit ECC check.
    pub ecc_correct_ns: u64,
    /// Per page fingerprinted.
    pub fingerprint_ns: u64,
    /// Per fingerprint-store lookup or update.
    pub fingerprint_lookup_ns: u64,
}

/// splitgc Sec. 3.4: ECC check 20 us per page.
pub const ECC_CHECK_NS: f64 = 20_000.0;
/// splitgc Sec. 3.4: SHA-1 fingerprint generation 80 us per page.
pub const FINGERPRINT_NS: f64 = 80_000.0;
/// splitgc Sec. 3.4: fingerprint management (Bloom filter and table update) 10 us.
pub const FINGERPRINT_LOOKUP_NS: f64 = 10_000.0;

impl CpuCosts {
    /// The costs of `p` for a placement whose classifier costs `classifier_host_ns` per user
    /// write and a victim policy whose selection costs `victim_host_ns`, both on the
    /// simulation host (what the schemes declare).
    pub fn resolve(p: &CpuParams, classifier_host_ns: f64, victim_host_ns: f64) -> CpuCosts {
        let o = &p.ns;
        let ns = |x: f64| x.round() as u64;
        CpuCosts {
            classifier_ns: ns(o.classifier.unwrap_or(classifier_host_ns * p.scale)),
            victim_ns: ns(o.victim.unwrap_or(victim_host_ns * p.scale)),
            cache_scan_ns: ns(o.cache_scan.unwrap_or(GCAR_SCAN_HOST_NS * p.scale)),
            ecc_read_ns: ns(o.ecc_read.unwrap_or(0.0)),
            ecc_decode_ns: ns(o.ecc_decode.unwrap_or(ECC_CHECK_NS)),
            ecc_correct_ns: ns(o.ecc_correct.unwrap_or(0.0)),
            fingerprint_ns: ns(o.fingerprint.unwrap_or(FINGERPRINT_NS)),
            fingerprint_lookup_ns: ns(o.fingerprint_lookup.unwrap_or(FINGERPRINT_LOOKUP_NS)),
        }
    }
}

/// CPU time by component, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    /// Placement classifiers (per user write).
    pub classifier: u64,
    /// Victim selection.
    pub victim_select: u64,
    /// GCaR replacement scans.
    pub cache_scan: u64,
    /// ECC decoding (page reads and explicit checks).
    pub ecc: u64,
    /// Fingerprints.
    pub fingerprint: u64,
    /// Fingerprint-store lookups and updates.
    pub fingerprint_lookup: u64,
    /// A placement's periodic work (MiDAS's MCAM/GCS at epoch ends).
    pub placement_epoch: u64,
}

impl CpuTime {
    fn total(&self) -> u64 {
        self.classifier
            + self.victim_select
            + self.cache_scan
            + self.ecc
            + self.fingerprint
            + self.fingerprint_lookup
            + self.placement_epoch
    }
}

/// The firmware-CPU part of a timed result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuReport {
    /// Controller cores.
    pub cores: u32,
    /// The costs used, firmware ns per unit.
    pub costs: CpuCosts,
    /// Busy fraction of each core over the simulated span.
    pub utilization: Vec<f64>,
    /// CPU time by component, ns (host and internal work).
    pub time_ns: CpuTime,
    /// CPU time of GC and background work (included in `time_ns`), ns.
    pub internal_ns: u64,
    /// Host page operations with CPU work.
    pub host_ops: u64,
    /// Host page operations whose CPU work waited for a busy core.
    pub delayed_ops: u64,
    /// Mean time a host request's CPU work waited for a busy core, us per request (the
    /// latency CPU queueing added, at most: the flash may have been busy too).
    pub queueing_us_per_request: f64,
    /// Mean CPU service time on a host request's path, us per request.
    pub service_us_per_request: f64,
}

/// The firmware cores and what they did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cpu {
    costs: CpuCosts,
    /// Controller ns per host ns (for a placement's periodic work, priced as it happens).
    scale: f64,
    /// Per core: when it is free.
    free: Vec<u64>,
    /// Per core: busy ns.
    busy: Vec<u64>,
    time: CpuTime,
    internal_ns: u64,
    host_ops: u64,
    delayed: u64,
    wait_ns: u64,
    service_ns: u64,
}

impl Cpu {
    /// `cores` idle cores with costs `costs`; `scale` converts a placement's periodic
    /// work from host to controller ns.
    pub fn new(cores: u32, costs: CpuCosts, scale: f64) -> Cpu {
        Cpu {
            costs,
            scale,
            free: vec![0; cores.max(1) as usize],
            busy: vec![0; cores.max(1) as usize],
            time: CpuTime::default(),
            internal_ns: 0,
            host_ops: 0,
            delayed: 0,
            wait_ns: 0,
            service_ns: 0,
        }
    }

    /// Controller cores.
    pub fn cores(&self) -> u32 {
        self.free.len() as u32
    }

    /// The costs in use.
    pub fn costs(&self) -> &CpuCosts {
        &self.costs
    }

    /// The placement did `host_ns` of periodic work (simulation-host ns, see
    /// `Placement::take_cpu_work_ns`; MiDAS's MCAM/GCS search). It runs in the background
    /// at low priority (papers/midas.txt Sec. 6.4: "run in the background"), in the cores'
    /// idle time: counted in CPU time and in the least busy core's utilisation, it delays
    /// no other work (docs/cpu.md).
    #[inline]
    pub fn placement_work(&mut self, host_ns: f64) {
        if host_ns > 0.0 {
            let ns = (host_ns * self.scale).round() as u64;
            #[cfg(test)]
            crate::device::audit::cpu::placement(ns, &self.busy);
            self.time.placement_epoch = self.time.placement_epoch.saturating_add(ns);
            self.internal_ns = self.internal_ns.saturating_add(ns);
            if let Some(b) = self.busy.iter_mut().min() {
                *b = b.saturating_add(ns);
            }
        }
    }

    /// Prices `ops` into host and internal work, adding to the component times. The loop
    /// only counts the operations of each fixed price (once per host page operation, over
    /// every GC operation issued with it); the prices are applied once at the end.
    fn price(&mut self, ops: &[FlashOp]) -> (u64, u64) {
        let (mut host, mut internal) = (0u64, 0u64);
        // Host programs (classifier), reads and copybacks by host and internal origin
        // (ECC), GC erases (victim selection).
        let (mut programs, mut reads, mut erases) = (0u64, [0u64; 2], 0u64);
        for op in ops {
            match *op {
                FlashOp::Program { origin, .. } => programs += (origin == Origin::Host) as u64,
                FlashOp::Read { origin, .. } | FlashOp::Copyback { origin, .. } => {
                    reads[(origin != Origin::Host) as usize] += 1;
                }
                FlashOp::Erase { origin, .. } => erases += (origin == Origin::Gc) as u64,
                FlashOp::Compute { work, origin } => {
                    let ns = self.compute(work);
                    if origin == Origin::Host {
                        host += ns;
                    } else {
                        internal += ns;
                    }
                }
            }
        }
        let c = &self.costs;
        let (classifier, victim) = (programs * c.classifier_ns, erases * c.victim_ns);
        let ecc = [reads[0] * c.ecc_read_ns, reads[1] * c.ecc_read_ns];
        self.time.classifier += classifier;
        self.time.ecc += ecc[0] + ecc[1];
        self.time.victim_select += victim;
        (host + classifier + ecc[0], internal + ecc[1] + victim)
    }

    /// Prices one explicit piece of CPU work (out of line: only some schemes issue them,
    /// and inlined into [`Cpu::price`] it made every call load all the costs first).
    #[inline(never)]
    fn compute(&mut self, w: Compute) -> u64 {
        let c = self.costs;
        match w {
            Compute::EccDecode { pages, corrected } => {
                let per = c.ecc_decode_ns + if corrected { c.ecc_correct_ns } else { 0 };
                let ns = pages as u64 * per;
                self.time.ecc += ns;
                ns
            }
            Compute::Fingerprint { pages } => {
                let ns = pages as u64 * c.fingerprint_ns;
                self.time.fingerprint += ns;
                ns
            }
            Compute::FingerprintLookup { lookups } => {
                let ns = lookups as u64 * c.fingerprint_lookup_ns;
                self.time.fingerprint_lookup += ns;
                ns
            }
            Compute::Classifier { writes } => {
                let ns = writes as u64 * c.classifier_ns;
                self.time.classifier += ns;
                ns
            }
            Compute::VictimSelect => {
                self.time.victim_select += c.victim_ns;
                c.victim_ns
            }
            Compute::CacheScan { entries } => {
                let ns = entries as u64 * c.cache_scan_ns;
                self.time.cache_scan += ns;
                ns
            }
        }
    }

    /// Runs `ns` of work ready at `t` on the core free first; returns (start, end).
    #[inline]
    fn run(&mut self, t: u64, ns: u64) -> (u64, u64) {
        let mut k = 0;
        for (i, &f) in self.free.iter().enumerate().skip(1) {
            if f < self.free[k] {
                k = i;
            }
        }
        let start = t.max(self.free[k]);
        // Saturating: a restored checkpoint's times are checked only for shape.
        let end = start.saturating_add(ns);
        #[cfg(test)]
        crate::device::audit::cpu::job(k, t, start, end);
        self.free[k] = end;
        self.busy[k] = self.busy[k].saturating_add(ns);
        (start, end)
    }

    /// The CPU work of one host page operation's `ops` (and the GCaR scan steps recorded
    /// for it) arriving at `t`: the host's work first, then GC and background work issued
    /// with it. Returns when the host's CPU work ends and when the GC/background work ends
    /// (each `t` when there is none): the host's flash operations start no earlier than the
    /// first; under foreground GC the GC pass's flash operations start at the second.
    pub fn page(&mut self, ops: &[FlashOp], t: u64) -> (u64, u64) {
        #[cfg(test)]
        crate::device::audit::cpu::batch(ops, &self.costs, true);
        let (host, internal) = self.price(ops);
        let mut end = t;
        if host > 0 {
            let (s, e) = self.run(t, host);
            self.host_ops += 1;
            self.service_ns += host;
            if s > t {
                self.delayed += 1;
                self.wait_ns = self.wait_ns.saturating_add(s - t);
            }
            end = e;
        }
        let mut gc_end = t;
        if internal > 0 {
            gc_end = self.run(t, internal).1;
            self.internal_ns += internal;
        }
        (end, gc_end)
    }

    /// GC or background operations issued at `t` outside a host operation (proactive GC,
    /// idle-time work): their CPU work occupies a core.
    pub fn internal(&mut self, ops: &[FlashOp], t: u64) {
        #[cfg(test)]
        crate::device::audit::cpu::batch(ops, &self.costs, false);
        let (host, internal) = self.price(ops);
        let ns = host + internal;
        if ns > 0 {
            self.run(t, ns);
            self.internal_ns += ns;
        }
    }

    /// The report over a simulated span of `span_ns` with `requests` host requests.
    pub fn report(&self, span_ns: u64, requests: u64) -> CpuReport {
        let per_req = |ns: u64| {
            if requests > 0 {
                ns as f64 / requests as f64 / 1000.0
            } else {
                0.0
            }
        };
        CpuReport {
            cores: self.free.len() as u32,
            costs: self.costs,
            utilization: self
                .busy
                .iter()
                .map(|&b| {
                    if span_ns > 0 {
                        (b as f64 / span_ns as f64).min(1.0)
                    } else {
                        0.0
                    }
                })
                .collect(),
            time_ns: self.time,
            internal_ns: self.internal_ns,
            host_ops: self.host_ops,
            delayed_ops: self.delayed,
            queueing_us_per_request: per_req(self.wait_ns),
            service_us_per_request: per_req(self.service_ns),
        }
    }

    /// One line for the result's notes.
    pub fn describe(&self) -> String {
        let c = &self.costs;
        format!(
            "firmware CPU: {} core(s), classifier {} ns/write, victim {} ns, GCaR scan {} ns/entry, ECC {} ns/page read",
            self.free.len(),
            c.classifier_ns,
            c.victim_ns,
            c.cache_scan_ns,
            c.ecc_read_ns
        )
    }

    /// Whether restored state fits a model built with `cores` cores and `costs`.
    pub fn consistent(&self, cores: u32, costs: &CpuCosts) -> bool {
        self.free.len() == cores as usize
            && self.busy.len() == cores as usize
            && self.costs == *costs
            && self.time.total() >= self.internal_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs() -> CpuCosts {
        CpuCosts {
            classifier_ns: 100,
            victim_ns: 7,
            cache_scan_ns: 3,
            ecc_read_ns: 11,
            ecc_decode_ns: 20_000,
            ecc_correct_ns: 5_000,
            fingerprint_ns: 80_000,
            fingerprint_lookup_ns: 10_000,
        }
    }

    /// Every kind of operation priced by hand: host work first (gates the host's flash
    /// operations), internal work after it on the core free first.
    #[test]
    fn every_operation_is_priced_and_host_work_goes_first() {
        let (h, g, b) = (Origin::Host, Origin::Gc, Origin::Background);
        let ops = [
            FlashOp::Compute {
                work: Compute::CacheScan { entries: 5 },
                origin: h,
            },
            FlashOp::Compute {
                work: Compute::Fingerprint { pages: 2 },
                origin: h,
            },
            FlashOp::Compute {
                work: Compute::FingerprintLookup { lookups: 3 },
                origin: g,
            },
            FlashOp::Compute {
                work: Compute::EccDecode {
                    pages: 1,
                    corrected: true,
                },
                origin: b,
            },
            FlashOp::Read { ppn: 1, origin: h },
            FlashOp::Copyback {
                src: 2,
                dst: 3,
                origin: g,
            },
            FlashOp::Erase { seg: 0, origin: g },
            FlashOp::Program { ppn: 4, origin: h },
            FlashOp::Program { ppn: 5, origin: g },
        ];
        let mut cpu = Cpu::new(1, costs(), 4.0);
        // host: 5 scan steps 15 + 2 fingerprints 160000 + read ECC 11 + classifier 100;
        // internal: 3 lookups 30000 + decode and correct 25000 + GC read ECC 11 + victim 7.
        assert_eq!(
            cpu.page(&ops, 1000),
            (1000 + 160_126, 1000 + 160_126 + 55_018)
        );
        let r = cpu.report(1_000_000, 1);
        assert_eq!(r.internal_ns, 55_018);
        assert_eq!(
            r.time_ns,
            CpuTime {
                classifier: 100,
                victim_select: 7,
                cache_scan: 15,
                ecc: 11 + 25_000 + 11,
                fingerprint: 160_000,
                fingerprint_lookup: 30_000,
                placement_epoch: 0,
            }
        );
        assert_eq!(r.utilization, vec![(160_126.0 + 55_018.0) / 1e6]);
        // The next host work waits for both: the core is busy until 1000 + 215144.
        let w = [FlashOp::Program { ppn: 6, origin: h }];
        assert_eq!(cpu.page(&w, 2000), (1000 + 215_144 + 100, 2000));
        let r = cpu.report(1_000_000, 2);
        assert_eq!((r.host_ops, r.delayed_ops), (2, 1));
        assert_eq!(
            r.queueing_us_per_request,
            (216_144.0 - 2000.0) / 2.0 / 1000.0
        );
        // Background work issued outside a host operation, and a placement's epoch work
        // (background: counted, delays nothing).
        cpu.internal(&[FlashOp::Erase { seg: 1, origin: g }], 0);
        cpu.placement_work(1000.0);
        let r = cpu.report(1_000_000, 2);
        assert_eq!(r.time_ns.victim_select, 14);
        assert_eq!(r.time_ns.placement_epoch, 4000);
        assert_eq!(r.internal_ns, 55_018 + 7 + 4000);
    }

    /// Two cores: work goes to the core free first, the lower index on ties.
    #[test]
    fn work_goes_to_the_core_free_first() {
        let mut cpu = Cpu::new(2, costs(), 1.0);
        let w = [FlashOp::Program {
            ppn: 0,
            origin: Origin::Host,
        }];
        assert_eq!(cpu.page(&w, 0).0, 100); // core 0
        assert_eq!(cpu.page(&w, 10).0, 110); // core 1
        assert_eq!(cpu.page(&w, 20).0, 200); // core 0 again (free at 100)
        let r = cpu.report(1000, 3);
        assert_eq!(r.utilization, vec![0.2, 0.1]);
        assert_eq!(r.delayed_ops, 1);
    }

    #[test]
    fn cost_overrides_parse_and_name_the_key() {
        let o = CostOverrides::parse("--cpu-ns", "classifier=5, ecc-read=7").unwrap();
        assert_eq!((o.classifier, o.ecc_read), (Some(5.0), Some(7.0)));
        let e = CostOverrides::parse("--cpu-ns", "victim=1e13").unwrap_err();
        assert!(e.to_string().contains("--cpu-ns.victim"), "{e}");
        let e = CostOverrides::parse("--cpu-ns", "victim=1,victim=2").unwrap_err();
        assert!(
            e.to_string().contains("--cpu-ns.victim`: given twice"),
            "{e}"
        );
        let e = CostOverrides::parse("--cpu-ns", "victim").unwrap_err();
        assert!(e.to_string().contains("key=nanoseconds"), "{e}");
    }
}
