//! fio's steady-state options (`steadystate`/`ss`, `steadystate_duration`/`ss_dur`,
//! `steadystate_ramp_time`/`ss_ramp`) and `group_reporting`, parsed as fio 3.33's
//! `str_steadystate_cb` does; the detection itself runs with the host flows
//! (`flows::steady`).

use super::values::{boolean, err, time_in};
use super::JobSpec;
use crate::error::Result;
use crate::workload::flows::{SteadyMetric, SteadySpec};

/// A job's steady-state options as given.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JobSteady {
    /// `ss`: (metric, slope, percent, limit); fio's default `iops_slope:0.01%`.
    pub criterion: (SteadyMetric, bool, bool, f64),
    /// `ss_dur`, ns (0: off, fio's default).
    pub dur_ns: u64,
    /// `ss_ramp`, ns (default 0).
    pub ramp_ns: u64,
    /// `group_reporting`.
    pub group_reporting: bool,
}

impl Default for JobSteady {
    fn default() -> JobSteady {
        JobSteady {
            criterion: (SteadyMetric::Iops, true, true, 0.01),
            dur_ns: 0,
            ramp_ns: 0,
            group_reporting: false,
        }
    }
}

impl JobSteady {
    /// The flows' settings: None when `ss_dur` is under one second (fio divides its
    /// microseconds by 10^6 and a window of 0 samples turns the detection off).
    pub fn spec(&self) -> Option<SteadySpec> {
        let dur = self.dur_ns / 1_000 / 1_000_000;
        let (metric, slope, percent, limit) = self.criterion;
        (dur > 0).then_some(SteadySpec {
            metric,
            slope,
            percent,
            limit,
            dur,
            ramp_us: self.ramp_ns / 1_000,
            group_reporting: self.group_reporting,
        })
    }
}

/// fio's `sscanf("%lf")`: the longest leading decimal number (after blanks); what follows
/// it is ignored, as fio does. fio's `(...)` arithmetic and C's `inf`/`nan`/hex forms are
/// refused.
fn leading_float(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'+' || b[end] == b'-') {
        end += 1;
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_end = digits(end);
    let mut e = int_end;
    let mut frac_digits = 0;
    if e < b.len() && b[e] == b'.' {
        let f = digits(e + 1);
        frac_digits = f - (e + 1);
        e = f;
    }
    if int_end == end && frac_digits == 0 {
        return None;
    }
    end = e;
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut x = end + 1;
        if x < b.len() && (b[x] == b'+' || b[x] == b'-') {
            x += 1;
        }
        let d = digits(x);
        if d > x {
            end = d;
        }
    }
    t[..end].parse().ok()
}

/// Parses `ss`'s value (`iops:X`, `iops:X%`, `iops_slope:X[%]`, `bw:X`, `bw_slope:X[%]`).
fn criterion(
    file: &str,
    line: usize,
    option: &str,
    v: &str,
) -> Result<(SteadyMetric, bool, bool, f64)> {
    // fio matches the criterion exactly (case-sensitive) up to the first `,` or `:`.
    let name_end = v.find(',').or_else(|| v.find(':')).unwrap_or(v.len());
    let (metric, slope) = match &v[..name_end] {
        "iops" => (SteadyMetric::Iops, false),
        "iops_slope" => (SteadyMetric::Iops, true),
        "bw" => (SteadyMetric::Bw, false),
        "bw_slope" => (SteadyMetric::Bw, true),
        c => {
            return Err(err(
                file,
                line,
                option,
                format!("`{c}`: the criterion is one of iops, iops_slope, bw, bw_slope (e.g. iops_slope:0.3%)"),
            ))
        }
    };
    let Some((_, threshold)) = v.split_once(':') else {
        return Err(err(
            file,
            line,
            option,
            "the threshold must be given with the criterion (e.g. iops:10%, bw_slope:2m)",
        ));
    };
    let threshold = threshold.trim();
    let bad = |what: &str| err(file, line, option, format!("`{threshold}`: {what}"));
    if threshold.starts_with('(') {
        return Err(bad(
            "fio's arithmetic expressions are not supported; give a number",
        ));
    }
    if let Some((num, _)) = threshold.split_once('%') {
        let x = leading_float(num.trim_end()).ok_or_else(|| bad("not a percentage (e.g. 0.3%)"))?;
        return Ok((metric, slope, true, x));
    }
    let limit = match metric {
        SteadyMetric::Iops => {
            leading_float(threshold).ok_or_else(|| bad("not a number of IOPS"))?
        }
        // fio's str_to_decimal with size suffixes (kb_base 1024).
        SteadyMetric::Bw => crate::workload::fio::parse_size(&threshold.to_ascii_lowercase())
            .ok_or_else(|| bad("not a bandwidth in bytes/s (e.g. 10m)"))?
            as f64,
    };
    Ok((metric, slope, false, limit))
}

impl JobSpec {
    /// Applies a steady-state option or `group_reporting`; false: not one of them.
    pub(super) fn set_steady_option(
        &mut self,
        file: &str,
        line: usize,
        option: &str,
        value: Option<&str>,
    ) -> Result<bool> {
        let need = || value.ok_or_else(|| err(file, line, option, "needs a value (option=value)"));
        match option {
            "steadystate" | "ss" => self.steady.criterion = criterion(file, line, option, need()?)?,
            // fio's FIO_OPT_STR_VAL_TIME with is_seconds: a bare number is seconds.
            "steadystate_duration" | "ss_dur" => {
                self.steady.dur_ns = time_in(file, line, option, need()?, 1e9)?
            }
            "steadystate_ramp_time" | "ss_ramp" => {
                self.steady.ramp_ns = time_in(file, line, option, need()?, 1e9)?
            }
            "group_reporting" => self.steady.group_reporting = boolean(file, line, option, value)?,
            "ss_interval" | "steadystate_check_interval" => {
                return Err(err(
                    file,
                    line,
                    option,
                    "is not a fio 3.33 option (later fio versions added it; fio 3.33 samples once a second)",
                ))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks a job's steady state against its other options and the jobs of its group
    /// before it (`group`: those jobs), as fio's `td_steadystate_init` does.
    pub(super) fn check_steady(&self, file: &str, group: &[&JobSpec]) -> Result<()> {
        let spec = self.steady.spec();
        let line = self
            .line_of("ss_dur")
            .max(self.line_of("steadystate_duration"));
        if spec.is_some() && self.ramp_ns.is_some() {
            return Err(err(
                file,
                self.line_of("ramp_time"),
                "ramp_time",
                format!(
                    "job `{}` has steady-state detection: fio 3.33 zeroes its I/O counters at the end of \
                     ramp_time but not the steady-state baseline, which then takes one wrapped-around \
                     sample; use ss_ramp instead",
                    self.name
                ),
            ));
        }
        // fio compares the settings it keeps: whole seconds, microseconds, the criterion.
        let key = |j: &JobSpec| {
            j.steady.spec().map(|s| {
                (
                    s.dur,
                    s.ramp_us,
                    s.metric,
                    s.slope,
                    s.percent,
                    s.limit.to_bits(),
                )
            })
        };
        if let Some(other) = group.iter().find(|j| key(j) != key(self)) {
            return Err(err(
                file,
                line,
                "steadystate",
                format!(
                    "job `{}` rejected: steadystate options must be consistent within reporting groups (fio 3.33); \
                     job `{}` of its group has different ones",
                    self.name, other.name
                ),
            ));
        }
        if spec.is_some() {
            if let Some(other) = group
                .iter()
                .find(|j| j.steady.group_reporting != self.steady.group_reporting)
            {
                return Err(err(
                    file,
                    self.line_of("group_reporting"),
                    "group_reporting",
                    format!(
                        "job `{}` and job `{}` of its group differ in group_reporting; with steady state \
                         give it to every job of the group or none",
                        self.name, other.name
                    ),
                ));
            }
            if let Some(other) = group
                .iter()
                .find(|j| self.steady.group_reporting && j.startdelay_ns != self.startdelay_ns)
            {
                return Err(err(
                    file,
                    self.line_of("startdelay"),
                    "startdelay",
                    format!(
                        "job `{}` and job `{}` report their steady state as a group but start at different \
                         times; flashgc samples a group from one start",
                        self.name, other.name
                    ),
                ));
            }
        }
        Ok(())
    }
}
