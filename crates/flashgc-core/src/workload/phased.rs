//! A workload that switches between generators at given write volumes (e.g. zipf:1.0 for
//! 8 x capacity, then hotcold:80/20), optionally cycling: for workload-change experiments
//! such as MiDAS's reconfiguration and irregular-pattern fallback.

use super::{Op, Request, Workload};
use crate::error::Result;

/// One phase: a workload and the user page writes it contributes (None = until it ends).
pub struct Phase {
    /// The generator.
    pub workload: Box<dyn Workload>,
    /// User page writes before switching to the next phase.
    pub pages: Option<u64>,
}

/// Phases served one after another; with `cycle`, the sequence repeats (each phase's
/// generator continues where it stopped).
pub struct Phased {
    phases: Vec<Phase>,
    cycle: bool,
    cur: usize,
    written: u64,
    tmp: Vec<Request>,
}

impl Phased {
    /// Phases in order; `cycle` repeats them forever.
    pub fn new(phases: Vec<Phase>, cycle: bool) -> Phased {
        Phased {
            phases,
            cycle,
            cur: 0,
            written: 0,
            tmp: Vec::new(),
        }
    }
}

impl Workload for Phased {
    fn fill(&mut self, buf: &mut Vec<Request>, max: usize) -> Result<()> {
        // Stop when a whole cycle of phases produced nothing (every generator ended).
        let mut empty_phases = 0;
        while self.cur < self.phases.len() && empty_phases <= self.phases.len() {
            let ph = &mut self.phases[self.cur];
            let remaining = ph.pages.map(|p| p.saturating_sub(self.written));
            let mut done = remaining == Some(0);
            if !done {
                // Never draw more requests than the phase still needs: none are dropped.
                let want = remaining.map_or(max, |r| (r.min(max as u64) as usize).max(1));
                self.tmp.clear();
                ph.workload.fill(&mut self.tmp, want)?;
                done = self.tmp.is_empty();
                empty_phases = if done { empty_phases + 1 } else { 0 };
                for r in &self.tmp {
                    if r.op == Op::Write {
                        self.written += r.pages as u64;
                    }
                    buf.push(*r);
                }
                if ph.pages.is_some_and(|p| self.written >= p) {
                    done = true;
                }
            }
            if done {
                self.written = 0;
                self.cur += 1;
                if self.cycle && self.cur == self.phases.len() {
                    self.cur = 0;
                }
            }
            if !buf.is_empty() {
                return Ok(());
            }
        }
        Ok(())
    }
    fn describe(&self) -> String {
        let parts: Vec<String> = self
            .phases
            .iter()
            .map(|p| match p.pages {
                Some(n) => format!("{} x {n} pages", p.workload.describe()),
                None => p.workload.describe(),
            })
            .collect();
        format!(
            "phased[{}{}]",
            parts.join(" -> "),
            if self.cycle { ", cycling" } else { "" }
        )
    }
    fn is_infinite(&self) -> bool {
        self.phases.iter().all(|p| p.workload.is_infinite())
    }
    fn may_flush(&self) -> bool {
        self.phases.iter().any(|p| p.workload.may_flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Synthetic, SyntheticKind};

    #[test]
    fn switches_after_the_given_volume() {
        let a = Synthetic::new(SyntheticKind::Sequential, 1000, 1, 0.0, 1);
        let b = Synthetic::new(SyntheticKind::Uniform, 10, 1, 0.0, 1);
        let mut w = Phased::new(
            vec![
                Phase {
                    workload: Box::new(a),
                    pages: Some(100),
                },
                Phase {
                    workload: Box::new(b),
                    pages: Some(5),
                },
            ],
            true,
        );
        let mut buf = Vec::new();
        while buf.len() < 210 {
            w.fill(&mut buf, 64).unwrap();
        }
        assert!(buf[..100]
            .iter()
            .enumerate()
            .all(|(i, r)| r.lpn == i as u64));
        assert!(buf[100..105].iter().all(|r| r.lpn < 10));
        assert_eq!(
            buf[105].lpn, 100,
            "the first phase resumes where it stopped"
        );
        assert!(w.is_infinite());
    }
}
