//! Controller options of the timed device models: the scheduling policy of each resource's
//! queue, program/erase suspend and DRAM timing (issue 15; docs/controller.md).
//!
//! Every option defaults to today's controller (first come first served in commit order,
//! no suspend, a write-cache hit costs the media's SRAM access, a mapping-cache hit costs
//! nothing), and a default [`ControllerParams`] is left out of the result record, so that
//! runs without these options reproduce earlier results bit for bit.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The order in which a resource's queue serves the operations waiting for it.
///
/// Classes of operations: host reads (`R_host`), GC reads (`R_gc`: page-move reads),
/// host writes (`W_host`), GC writes (`W_gc`: page-move write-backs) and erases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Scheduler {
    /// First come first served in commit order (today's controller; operations are timed
    /// as they are issued).
    #[default]
    Fcfs,
    /// MQSim's transaction scheduling unit order (TSU_OutOfOrder, GC not urgent): reads
    /// before writes before erases, host before GC within a kind: `R_host`, `R_gc`,
    /// `W_host`, `W_gc`, erase.
    ReadFirst,
    /// Host operations (reads and writes, first come first served among them) before GC
    /// work, unless fewer than `urgency` segments are free: then GC goes first.
    HostFirst {
        /// Free segments below which GC wins.
        urgency: u32,
    },
    /// The NoC controller's four task queues per channel (papers/noc-copyback-gc.txt
    /// Sec. 3.2): `R_host`, `W_host`, `R_gc`, `W_gc`, then erases. The paper names the
    /// queues but not their order; host before GC and reads before writes is this
    /// model's choice (docs/controller.md).
    NocPriority,
}

/// Default `urgency` of `host-first`: GC wins when fewer than this many segments are free.
pub const DEFAULT_URGENCY: u32 = 2;

/// Class of a queued operation (index into a policy's rank table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Host read.
    RHost = 0,
    /// GC or background read.
    RGc = 1,
    /// Host write.
    WHost = 2,
    /// GC or background write.
    WGc = 3,
    /// Erase.
    Erase = 4,
}

impl Scheduler {
    /// Parses `fcfs`, `read-first`, `host-first[:urgency=N]` or `noc-priority`; `field`
    /// names the option in errors.
    pub fn parse(field: &str, s: &str) -> Result<Scheduler> {
        let s = s.trim().to_ascii_lowercase();
        let (name, args) = s.split_once(':').unwrap_or((s.as_str(), ""));
        let allowed = "allowed: fcfs, read-first, host-first[:urgency=N], noc-priority";
        let no_args = |sch: Scheduler| {
            if args.is_empty() {
                Ok(sch)
            } else {
                Err(Error::config(
                    field,
                    format!("`{name}` takes no parameters (got `{args}`)"),
                ))
            }
        };
        match name {
            "fcfs" => no_args(Scheduler::Fcfs),
            "read-first" => no_args(Scheduler::ReadFirst),
            "noc-priority" | "noc" => no_args(Scheduler::NocPriority),
            "host-first" => {
                let mut urgency = DEFAULT_URGENCY;
                for kv in args.split(',').filter(|a| !a.is_empty()) {
                    match kv.split_once('=') {
                        Some(("urgency", v)) => {
                            urgency = v.trim().parse().map_err(|_| {
                                Error::config(
                                    format!("{field} urgency"),
                                    format!("`{v}`: must be a whole number of free segments in 0..=4294967295"),
                                )
                            })?;
                        }
                        _ => {
                            return Err(Error::config(
                                field,
                                format!("host-first: unknown parameter `{kv}`; allowed: urgency=N"),
                            ))
                        }
                    }
                }
                Ok(Scheduler::HostFirst { urgency })
            }
            _ => Err(Error::config(field, format!("`{s}`: {allowed}"))),
        }
    }

    /// The name with its parameters, as `parse` reads it.
    pub fn name(self) -> String {
        match self {
            Scheduler::Fcfs => "fcfs".into(),
            Scheduler::ReadFirst => "read-first".into(),
            Scheduler::HostFirst { urgency } => format!("host-first:urgency={urgency}"),
            Scheduler::NocPriority => "noc-priority".into(),
        }
    }

    /// Rank of `class` (lower goes first) when `urgent` (free segments below the urgency
    /// threshold).
    #[inline]
    pub fn rank(self, class: Class, urgent: bool) -> u8 {
        let host = matches!(class, Class::RHost | Class::WHost);
        match self {
            Scheduler::Fcfs => 0,
            Scheduler::ReadFirst => class as u8,
            Scheduler::HostFirst { .. } => (host == urgent) as u8,
            Scheduler::NocPriority => match class {
                Class::RHost => 0,
                Class::WHost => 1,
                Class::RGc => 2,
                Class::WGc => 3,
                Class::Erase => 4,
            },
        }
    }
}

/// Program/erase suspend: a host read arriving at a die (or plane) busy with a program or
/// an erase suspends it, is served, and the operation resumes with the time it had left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suspend {
    /// Time from the suspend command until the die accepts the read, ns (tPSPD/tESPD).
    pub suspend_ns: u64,
    /// Time to resume the suspended operation, ns (overhead added to its remaining time).
    pub resume_ns: u64,
    /// Suspensions allowed per program or erase (later reads wait for it).
    pub max_per_op: u32,
}

/// Default suspend latency, us: ONFI-class parts specify program/erase suspend latencies
/// of tens of microseconds (e.g. Micron MLC/TLC data sheets: tPSPD/tESPD up to 30 us);
/// MQSim's ssdconfig.xml uses `Suspend_Program_Time` 100 us and `Suspend_Erase_Time`
/// 700 us... but those include the resumed work; this model keeps the operation's
/// remaining time separately. A named assumption.
pub const DEFAULT_SUSPEND_US: f64 = 20.0;
/// Default resume overhead, us (a named assumption of the same order as the suspend).
pub const DEFAULT_RESUME_US: f64 = 20.0;
/// Default suspensions per operation (controllers bound them to guarantee progress;
/// a named assumption).
pub const DEFAULT_MAX_SUSPENDS: u32 = 4;
/// Most suspensions per operation a run may allow.
pub const MAX_SUSPENDS_LIMIT: u32 = 255;

impl Default for Suspend {
    fn default() -> Self {
        Suspend {
            suspend_ns: (DEFAULT_SUSPEND_US * 1000.0) as u64,
            resume_ns: (DEFAULT_RESUME_US * 1000.0) as u64,
            max_per_op: DEFAULT_MAX_SUSPENDS,
        }
    }
}

/// Controller options as given (CLI flags, Python keywords, `[timing]` keys): each None
/// keeps what `c` has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// `fcfs`, `read-first`, `host-first[:urgency=N]`, `noc-priority`.
    pub scheduler: Option<&'a str>,
    /// Suspend on or off.
    pub suspend: Option<bool>,
    /// Suspend latency, us (implies suspend on).
    pub suspend_us: Option<f64>,
    /// Resume overhead, us (implies suspend on).
    pub resume_us: Option<f64>,
    /// Most suspensions per operation (implies suspend on).
    pub max_suspends: Option<i64>,
    /// DRAM access per cache hit, ns.
    pub dram_ns: Option<f64>,
    /// Channel arbitration: `fifo` or `backfill`.
    pub channel: Option<&'a str>,
}

/// Applies `o` to `c`, checking every value (errors name the option through `name`).
pub fn apply_options(
    c: &mut ControllerParams,
    o: Options<'_>,
    name: &dyn Fn(&str) -> String,
) -> Result<()> {
    if let Some(v) = o.scheduler {
        c.scheduler = Scheduler::parse(&name("scheduler"), v)?;
    }
    let detail = o.suspend_us.is_some() || o.resume_us.is_some() || o.max_suspends.is_some();
    let on = match o.suspend {
        Some(on) => {
            if !on && detail {
                return Err(Error::config(
                    name("suspend"),
                    format!(
                        "suspend is off but {}/{}/{} were given",
                        name("suspend_us"),
                        name("resume_us"),
                        name("max_suspends")
                    ),
                ));
            }
            on
        }
        None => detail || c.suspend.is_some(),
    };
    if on {
        let mut s = c.suspend.unwrap_or_default();
        let us = |key: &str, v: f64| -> Result<u64> {
            if v.is_finite() && (0.0..=1e6).contains(&v) {
                Ok((v * 1000.0).round() as u64)
            } else {
                Err(Error::config(
                    name(key),
                    format!("{v}: must be in 0..=1000000 us"),
                ))
            }
        };
        if let Some(v) = o.suspend_us {
            s.suspend_ns = us("suspend_us", v)?;
        }
        if let Some(v) = o.resume_us {
            s.resume_ns = us("resume_us", v)?;
        }
        if let Some(m) = o.max_suspends {
            let lim = MAX_SUSPENDS_LIMIT;
            if m < 1 || m > lim as i64 {
                return Err(Error::config(
                    name("max_suspends"),
                    format!(
                        "{m} must be in 1..={lim} (use {} off to disable suspend)",
                        name("suspend")
                    ),
                ));
            }
            s.max_per_op = m as u32;
        }
        c.suspend = Some(s);
    } else {
        c.suspend = None;
    }
    if let Some(d) = o.dram_ns {
        if !(d.is_finite() && (0.0..=1e9).contains(&d)) {
            return Err(Error::config(
                name("dram_ns"),
                format!("{d}: must be in 0..=1000000000 ns"),
            ));
        }
        c.dram_ns = Some(d.round() as u64);
    }
    if let Some(v) = o.channel {
        c.channel = match v.trim().to_ascii_lowercase().as_str() {
            "fifo" => ChannelArb::Fifo,
            "backfill" | "back-fill" => ChannelArb::Backfill,
            _ => {
                return Err(Error::config(
                    name("channel"),
                    format!("`{v}`: allowed fifo, backfill"),
                ))
            }
        };
    }
    Ok(())
}

/// How a flash channel orders the transfers reserved on it (docs/timing.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelArb {
    /// One next-free time per channel: transfers in commit order (flashgc's original
    /// reservation table).
    #[default]
    Fifo,
    /// A transfer takes the first idle gap of the channel at or after it is ready, as a
    /// channel arbiter serving whichever die is ready does.
    Backfill,
}

impl ChannelArb {
    fn is_fifo(&self) -> bool {
        *self == ChannelArb::Fifo
    }
}

/// The controller options of a timed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ControllerParams {
    /// Queue policy of every resource.
    #[serde(default)]
    pub scheduler: Scheduler,
    /// Program/erase suspend (None: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<Suspend>,
    /// DRAM access per mapping unit, ns: a write-cache hit costs one (instead of the
    /// media's SRAM access) and a mapping-cache hit costs one (instead of nothing).
    /// None: today's costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_ns: Option<u64>,
    /// Channel arbitration of the flash device (the NoC model has its own interconnect).
    #[serde(default, skip_serializing_if = "ChannelArb::is_fifo")]
    pub channel: ChannelArb,
}

impl ControllerParams {
    /// Whether every option is at today's default (the record then leaves it out).
    pub fn is_default(&self) -> bool {
        *self == ControllerParams::default()
    }

    /// Whether host operations are queued and committed by priority (deferred
    /// completions) rather than timed as they are issued.
    pub fn deferred(&self) -> bool {
        self.scheduler != Scheduler::Fcfs || self.suspend.is_some()
    }

    /// Checks the options; errors name the field and the allowed range.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = self.suspend {
            if s.max_per_op == 0 || s.max_per_op > MAX_SUSPENDS_LIMIT {
                return Err(Error::config(
                    "timing.max_suspends",
                    format!(
                        "{} must be in 1..={MAX_SUSPENDS_LIMIT} (turn suspend off instead of 0)",
                        s.max_per_op
                    ),
                ));
            }
            for (f, v) in [
                ("timing.suspend_us", s.suspend_ns),
                ("timing.resume_us", s.resume_ns),
            ] {
                if v > 1_000_000_000 {
                    return Err(Error::config(f, "must be in 0..=1000000 us"));
                }
            }
        }
        if self.dram_ns.is_some_and(|d| d > 1_000_000_000) {
            return Err(Error::config(
                "timing.dram_ns",
                "must be in 0..=1000000000 ns",
            ));
        }
        Ok(())
    }

    /// One line for the result's notes.
    pub fn describe(&self) -> String {
        let mut s = format!("controller: scheduler {}", self.scheduler.name());
        match self.suspend {
            Some(p) => s += &format!(
                ", program/erase suspend on (suspend {} ns, resume {} ns, at most {} per operation)",
                p.suspend_ns, p.resume_ns, p.max_per_op
            ),
            None => s += ", suspend off",
        }
        if let Some(d) = self.dram_ns {
            s += &format!(", DRAM access {d} ns per cache hit");
        }
        if self.channel == ChannelArb::Backfill {
            s += ", channels back-fill idle gaps";
        }
        s + " (docs/controller.md)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_rejects_bad_urgency() {
        let p = |s| Scheduler::parse("--scheduler", s);
        assert_eq!(p("fcfs").unwrap(), Scheduler::Fcfs);
        assert_eq!(p("Read-First").unwrap(), Scheduler::ReadFirst);
        assert_eq!(
            p("host-first:urgency=7").unwrap(),
            Scheduler::HostFirst { urgency: 7 }
        );
        assert_eq!(
            p("host-first").unwrap(),
            Scheduler::HostFirst {
                urgency: DEFAULT_URGENCY
            }
        );
        let e = p("host-first:urgency=-1").unwrap_err().to_string();
        assert!(e.contains("--scheduler urgency"), "{e}");
        assert!(p("read-first:x=1").is_err());
        assert!(p("lifo").unwrap_err().to_string().contains("allowed"));
    }

    #[test]
    fn read_first_orders_reads_writes_erases() {
        let r = |c| Scheduler::ReadFirst.rank(c, false);
        assert!(r(Class::RHost) < r(Class::RGc));
        assert!(r(Class::RGc) < r(Class::WHost));
        assert!(r(Class::WHost) < r(Class::WGc));
        assert!(r(Class::WGc) < r(Class::Erase));
        let h = Scheduler::HostFirst { urgency: 2 };
        assert!(h.rank(Class::WHost, false) < h.rank(Class::RGc, false));
        assert!(h.rank(Class::WHost, true) > h.rank(Class::RGc, true));
    }
}
