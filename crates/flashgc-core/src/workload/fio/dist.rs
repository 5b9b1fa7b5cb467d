//! fio's `random_distribution` values as flashgc parses them: [`Dist`], one parser for the
//! `flashgc fio --distribution` flag, fio job files and `[[flow]]` sections.
//!
//! The forms and their checks follow fio's `options.c` (`str_random_distribution_cb`,
//! `parse_zoned_distribution`, `zone_split_ddir`, `split_parse_distr`):
//!
//! * `random` / `uniform`;
//! * `zipf:THETA[:CENTER]` (flashgc: 0 < THETA <= 5);
//! * `pareto:H[:CENTER]`, 0 < H < 1;
//! * `normal:DEV[:CENTER]` (also `gauss:`, the spelling of fio's `file_service_type`),
//!   0 <= DEV < 100, DEV in percent of the region;
//! * `zoned:A/S:A/S...`: A % of the accesses go uniformly to the next S % of the region;
//!   the A must add up to 100, the S to at most 100 (the rest of the region is not
//!   accessed, as in fio); a zone given without `/S` (or with S = 0) gets an equal share
//!   of the region the others leave, `(100 - sum) / missing` in integer percent, as fio;
//! * `zoned_abs:A/SIZE:...`: the same with sizes in bytes (fio's size syntax, k/m/g/t =
//!   powers of 1024); they must fit in the region when the job runs.
//!
//! CENTER is in [0, 1]. At most 256 zones (fio's `ZONESPLIT_MAX`). Percentages are
//! integers, as fio reads them (fio truncates `10.5` to 10; flashgc refuses it). fio's
//! per-direction zone lists (`zoned:READS,WRITES[,TRIMS]`) are refused, as is
//! `sequence:...`.

use crate::error::{Error, Result};

/// The accepted forms, for messages. Keep `zipf:THETA[:CENTER]` in it: `[[flow]]` sections
/// add `hotcold:W/S` after it.
pub const FORMS: &str =
    "uniform (random), zipf:THETA[:CENTER], pareto:H[:CENTER], normal:DEV[:CENTER] \
                         (gauss:), zoned:A/S[:A/S...], zoned_abs:A/SIZE[:A/SIZE...]";

/// fio's `ZONESPLIT_MAX`.
pub const MAX_ZONES: usize = 256;

/// One zone of a `zoned` / `zoned_abs` distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Zone {
    /// Percent of the accesses (0..=100).
    pub access: u8,
    /// Percent of the region (`zoned`, after fio's share-out of missing sizes) or bytes
    /// (`zoned_abs`).
    pub size: u64,
}

/// A `zoned` or `zoned_abs` split of the accesses over consecutive zones from the start of
/// the region.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ZoneSplit {
    /// `zoned_abs`: zone sizes are bytes; else percent of the region.
    pub absolute: bool,
    /// Zones in region order.
    pub zones: Vec<Zone>,
}

impl ZoneSplit {
    /// fio's spelling (`zoned:60/10:40/90`, `zoned_abs:60/1073741824:...`).
    pub fn describe(&self) -> String {
        let z: Vec<String> = self
            .zones
            .iter()
            .map(|z| format!("{}/{}", z.access, z.size))
            .collect();
        let name = if self.absolute { "zoned_abs" } else { "zoned" };
        format!("{name}:{}", z.join(":"))
    }
}

/// Offset distribution of random jobs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dist {
    /// Uniform, drawn with replacement (fio's `random` with `norandommap`; the flags' and
    /// `[[flow]]` sections' `uniform`).
    Uniform,
    /// fio's default random offsets (`random_distribution=random` without `norandommap`):
    /// uniform draws through the job's random map, each block once per pass
    /// ([`super::RandomMap`]). Job files set it.
    ///
    /// Every pass after the first repeats the first's draws (offsets and directions):
    /// fio reseeds its generators when a pass starts (`clear_io_state`, with
    /// `randrepeat=1`, its default), as its logs show.
    RandomMap,
    /// fio's random map when each pass draws afresh: `randrepeat=0`, or a `time_based`
    /// job (its map resets within the pass, with no reseeding).
    RandomMapFresh,
    /// fio's `random_generator=lfsr` on uniform offsets: one permutation of the region's
    /// blocks, the same every pass ([`super::BlockCycle`]), and with `randrepeat=1` (fio's
    /// default) the same directions too: fio reseeds its generators when a pass starts, as
    /// for the random map (its logs). Job files set it.
    Lfsr,
    /// `random_generator=lfsr` when each pass draws its directions afresh: `randrepeat=0`
    /// (fio's LFSR then also starts each pass a step further along the same cycle, which
    /// flashgc does not copy) or a `time_based` job (the cycle repeats, the directions do
    /// not).
    LfsrFresh,
    /// Zipf with exponent theta (fio's `random_distribution=zipf:THETA`).
    Zipf(f64),
    /// Hot/cold (`hotcold:W/S`, host flows only; not fio's): `write_share` of the requests
    /// go uniformly to the first `space_share` of the region, the rest uniformly to the
    /// others (MQSim's RANDOM_HOTCOLD; `SyntheticKind::HotCold`).
    HotCold {
        /// Fraction of the requests that go to the hot part.
        write_share: f64,
        /// Fraction of the region that is hot.
        space_share: f64,
    },
    /// fio's `zipf:THETA:CENTER`: the hottest rank at `floor(CENTER x blocks)` (fio's
    /// `rand_off`), the others scattered as `Zipf`'s.
    ZipfCentered {
        /// The exponent.
        theta: f64,
        /// Where the hottest rank lands, as a fraction of the region, in [0, 1].
        center: f64,
    },
    /// fio's `zoned` / `zoned_abs`.
    Zoned(ZoneSplit),
    /// fio's `pareto:H[:CENTER]` (lib/zipf.c `pareto_next`).
    Pareto {
        /// fio's "Pareto power" H, 0 < H < 1.
        h: f64,
        /// Where rank 0 lands, as a fraction of the region (None: seeded at random, as
        /// fio's default).
        center: Option<f64>,
    },
    /// fio's `normal:DEV[:CENTER]` (lib/gauss.c `gauss_next`).
    Normal {
        /// Deviation in percent of the region, 0 <= DEV < 100.
        dev: f64,
        /// fio's centre, in [0, 1] (None: fio's default 0.5).
        center: Option<f64>,
    },
}

fn bad(msg: impl std::fmt::Display) -> Error {
    Error::config("fio.distribution", msg.to_string())
}

fn number(what: &str, v: &str) -> Result<f64> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| bad(format!("{what} `{v}` is not a number")))
}

/// `VAL[:CENTER]`, fio's `split_parse_distr`.
fn value_center(name: &str, what: &str, v: &str) -> Result<(f64, Option<f64>)> {
    let (val, center) = match v.split_once(':') {
        Some((a, c)) => (a, Some(c)),
        None => (v, None),
    };
    let x = number(&format!("{name} {what}"), val)?;
    let c = center
        .map(|c| number(&format!("{name} center"), c))
        .transpose()?;
    if let Some(c) = c.filter(|c| !(0.0..=1.0).contains(c)) {
        return Err(bad(format!("{name} center {c} must be in [0, 1]")));
    }
    Ok((x, c))
}

/// fio's size syntax for `zoned_abs` (k/m/g/t, powers of 1024, optional `i`/`b`).
fn bytes(v: &str) -> Result<u64> {
    super::parse_size(v)
        .ok_or_else(|| bad(format!("zone size `{v}` is not a size (e.g. 4k, 128m, 1g)")))
}

fn percent(what: &str, v: &str) -> Result<u64> {
    let x: u64 = v
        .trim()
        .parse()
        .map_err(|_| bad(format!("{what} `{v}` is not a whole percentage (0..=100)")))?;
    if x > 100 {
        return Err(bad(format!("{what} {x} % is over 100")));
    }
    Ok(x)
}

/// fio's `zone_split_ddir`: `A/S:A/S...` after the `zoned:` / `zoned_abs:` prefix.
fn zones(list: &str, absolute: bool, whole: &str) -> Result<ZoneSplit> {
    let name = if absolute { "zoned_abs" } else { "zoned" };
    if list.contains(',') {
        return Err(bad(format!(
            "`{whole}`: per-direction zone lists ({name}:READS,WRITES[,TRIMS]) are not \
             supported; give one list for all directions"
        )));
    }
    // fio stops at the first empty entry (a trailing `:`).
    let entries: Vec<&str> = list.trim().trim_end_matches(':').split(':').collect();
    if entries.len() > MAX_ZONES {
        return Err(bad(format!(
            "`{whole}`: {} zones, at most {MAX_ZONES} (fio's limit)",
            entries.len()
        )));
    }
    let mut parsed: Vec<(u64, Option<u64>)> = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        let k = k + 1;
        if e.trim().is_empty() {
            return Err(bad(format!(
                "`{whole}`: zone {k} is empty (expected {name}:A/S[:A/S...])"
            )));
        }
        let (a, s) = match e.split_once('/') {
            Some((a, s)) => (a, Some(s)),
            None => (*e, None),
        };
        let access = percent(&format!("zone {k}'s access share"), a)?;
        let size = match s {
            None => None,
            Some(s) if absolute => Some(bytes(s)?),
            // fio: a size of 0 % is a missing size.
            Some(s) => Some(percent(&format!("zone {k}'s region share"), s)?).filter(|&x| x > 0),
        };
        parsed.push((access, size));
    }
    let access: u64 = parsed.iter().map(|z| z.0).sum();
    if access != 100 {
        return Err(bad(format!(
            "`{whole}`: the access shares add up to {access} %, they must add up to 100"
        )));
    }
    let zones: Vec<Zone> = if absolute {
        // fio: a zone without a size has 0 bytes.
        parsed
            .iter()
            .map(|&(a, s)| Zone {
                access: a as u8,
                size: s.unwrap_or(0),
            })
            .collect()
    } else {
        let given: u64 = parsed.iter().filter_map(|z| z.1).sum();
        if given > 100 {
            return Err(bad(format!(
                "`{whole}`: the region shares add up to {given} %, at most 100"
            )));
        }
        let missing = parsed.iter().filter(|z| z.1.is_none()).count() as u64;
        let share = if missing == 1 && parsed.len() == 1 {
            100
        } else {
            (100 - given).checked_div(missing).unwrap_or(0)
        };
        parsed
            .iter()
            .map(|&(a, s)| Zone {
                access: a as u8,
                size: s.unwrap_or(share),
            })
            .collect()
    };
    if let Some(k) = zones.iter().position(|z| z.access > 0 && z.size == 0) {
        return Err(bad(format!(
            "`{whole}`: zone {} takes {} % of the accesses but has no space (fio would send \
             them to the next zone's first block)",
            k + 1,
            zones[k].access
        )));
    }
    Ok(ZoneSplit { absolute, zones })
}

impl Dist {
    /// fio's uniform offsets in passes: its random map, or its LFSR (`lfsr`), each pass
    /// repeating the first's draws when fio reseeds its generators at the pass
    /// (`reseeded`: `randrepeat=1` in a job that is not `time_based`, whose map resets
    /// within a pass without reseeding).
    pub fn in_passes(lfsr: bool, reseeded: bool) -> Dist {
        match (lfsr, reseeded) {
            (false, true) => Dist::RandomMap,
            (false, false) => Dist::RandomMapFresh,
            (true, true) => Dist::Lfsr,
            (true, false) => Dist::LfsrFresh,
        }
    }

    /// Parses a `random_distribution` value (see the module docs for the forms). Errors
    /// are configuration errors of `fio.distribution` naming the accepted forms.
    pub fn parse(s: &str) -> Result<Dist> {
        let t = s.trim().to_ascii_lowercase();
        if t == "uniform" || t == "random" {
            return Ok(Dist::Uniform);
        }
        let (name, rest) = match t.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (t.as_str(), None),
        };
        let need = |form: &str| {
            rest.ok_or_else(|| bad(format!("`{s}`: {name} needs a parameter ({form})")))
        };
        match name {
            "zipf" => {
                let (th, center) = value_center("zipf", "theta", need("zipf:THETA[:CENTER]")?)?;
                if !(th > 0.0 && th <= 5.0) {
                    return Err(bad(format!("zipf theta {th} must be in (0, 5]")));
                }
                Ok(match center {
                    None => Dist::Zipf(th),
                    Some(center) => Dist::ZipfCentered { theta: th, center },
                })
            }
            "pareto" => {
                let (h, center) = value_center("pareto", "H", need("pareto:H[:CENTER]")?)?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(bad(format!("pareto H {h} must be in (0, 1) (fio's range)")));
                }
                Ok(Dist::Pareto { h, center })
            }
            "normal" | "gauss" => {
                let (dev, center) =
                    value_center("normal", "deviation", need("normal:DEV[:CENTER]")?)?;
                if !(0.0..100.0).contains(&dev) {
                    return Err(bad(format!(
                        "normal deviation {dev} must be in [0, 100) (percent of the region, \
                         fio's range)"
                    )));
                }
                Ok(Dist::Normal { dev, center })
            }
            "zoned" => Ok(Dist::Zoned(zones(need("zoned:A/S[:A/S...]")?, false, s)?)),
            "zoned_abs" => Ok(Dist::Zoned(zones(
                need("zoned_abs:A/SIZE[:A/SIZE...]")?,
                true,
                s,
            )?)),
            "sequence" => Err(bad(format!(
                "`{s}`: fio's sequence distribution is not supported; allowed {FORMS}"
            ))),
            _ => Err(bad(format!("`{s}`: allowed {FORMS}"))),
        }
    }

    /// fio's spelling.
    pub fn describe(&self) -> String {
        let with_center = |name: &str, v: f64, c: Option<f64>| match c {
            Some(c) => format!("{name}:{v}:{c}"),
            None => format!("{name}:{v}"),
        };
        match self {
            Dist::Uniform => "uniform".to_string(),
            Dist::RandomMap => "random".to_string(),
            Dist::RandomMapFresh => "random (a new order each pass)".to_string(),
            Dist::Lfsr => "random (random_generator=lfsr)".to_string(),
            Dist::LfsrFresh => {
                "random (random_generator=lfsr, new directions each pass)".to_string()
            }
            Dist::Zipf(t) => format!("zipf:{t}"),
            Dist::ZipfCentered { theta, center } => format!("zipf:{theta}:{center}"),
            Dist::HotCold {
                write_share,
                space_share,
            } => format!("hotcold:{}/{}", write_share * 100.0, space_share * 100.0),
            Dist::Zoned(z) => z.describe(),
            Dist::Pareto { h, center } => with_center("pareto", *h, *center),
            Dist::Normal { dev, center } => with_center("normal", *dev, *center),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(s: &str) -> String {
        match Dist::parse(s) {
            Err(Error::Config { field, message }) => {
                assert_eq!(field, "fio.distribution");
                message
            }
            other => panic!("`{s}`: expected a configuration error, got {other:?}"),
        }
    }

    #[test]
    fn parses_fio_forms() {
        let z = |v: &[(u8, u64)]| {
            v.iter()
                .map(|&(access, size)| Zone { access, size })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            Dist::parse("zoned:60/10:30/20:10/70").unwrap(),
            Dist::Zoned(ZoneSplit {
                absolute: false,
                zones: z(&[(60, 10), (30, 20), (10, 70)])
            })
        );
        // Missing sizes share the rest (fio's zone_split_ddir), a trailing `:` ends the list.
        assert_eq!(
            Dist::parse("zoned:50/10:25:25/0:").unwrap(),
            Dist::Zoned(ZoneSplit {
                absolute: false,
                zones: z(&[(50, 10), (25, 45), (25, 45)])
            })
        );
        assert_eq!(
            Dist::parse("zoned_abs:60/1G:40/3g").unwrap(),
            Dist::Zoned(ZoneSplit {
                absolute: true,
                zones: z(&[(60, 1 << 30), (40, 3 << 30)])
            })
        );
        assert_eq!(
            Dist::parse("pareto:0.9").unwrap(),
            Dist::Pareto {
                h: 0.9,
                center: None
            }
        );
        assert_eq!(
            Dist::parse("Normal:5:0.25").unwrap(),
            Dist::Normal {
                dev: 5.0,
                center: Some(0.25)
            }
        );
        assert_eq!(
            Dist::parse("gauss:0").unwrap(),
            Dist::Normal {
                dev: 0.0,
                center: None
            }
        );
        assert_eq!(
            Dist::parse("zoned:60/10:30/20:10/70").unwrap().describe(),
            "zoned:60/10:30/20:10/70"
        );
        assert_eq!(
            Dist::parse("pareto:0.9:0.5").unwrap().describe(),
            "pareto:0.9:0.5"
        );
    }

    #[test]
    fn refuses_with_the_reason_and_the_forms() {
        assert!(msg("zoned:60/10:30/20:20/70").contains("access shares add up to 110"));
        assert!(msg("zoned:60/10:30/20").contains("add up to 90"));
        assert!(msg("zoned:60/50:40/60").contains("region shares add up to 110"));
        assert!(msg("zoned:60/10:40/100:0/0").contains("at most 100"));
        assert!(msg("zoned:50/100:50/0").contains("zone 2 takes 50 %"));
        assert!(msg("zoned:60/10.5:40/89.5").contains("whole percentage"));
        assert!(msg("zoned:60/10:40/90,50/50:50/50").contains("per-direction"));
        assert!(msg("zoned:60/10::40/90").contains("zone 2 is empty"));
        assert!(msg("zoned_abs:60/1G:40/lots").contains("not a size"));
        assert!(msg("zoned_abs:60/1G:40").contains("has no space"));
        assert!(msg("pareto:1").contains("(0, 1)"));
        assert!(msg("pareto:0").contains("(0, 1)"));
        assert!(msg("pareto").contains("pareto:H[:CENTER]"));
        assert!(msg("pareto:0.5:1.5").contains("center 1.5"));
        assert!(msg("normal:100").contains("[0, 100)"));
        assert!(msg("normal:-1").contains("[0, 100)"));
        assert!(msg("normal:x").contains("not a number"));
        assert!(msg("zipf:0.9:2").contains("center 2"));
        assert_eq!(
            Dist::parse("zipf:0.9:0.5").unwrap(),
            Dist::ZipfCentered {
                theta: 0.9,
                center: 0.5
            }
        );
        assert!(msg("sequence:1,2").contains("not supported"));
        let m = msg("lognormal:3");
        for f in [
            "zoned:A/S",
            "pareto:H",
            "normal:DEV",
            "zipf:THETA",
            "zoned_abs",
        ] {
            assert!(m.contains(f), "{m}");
        }
        let many = format!("zoned:{}", vec!["0/0"; 257].join(":"));
        assert!(msg(&many).contains("at most 256"));
    }
}
