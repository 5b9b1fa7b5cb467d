//! `flashgc model`: Desnoyers' analytic WAF models; `model midas` for MiDAS's MCAM.

use crate::{cmd_midas, Fail};
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub(crate) struct ModelArgs {
    #[command(subcommand)]
    sub: Option<ModelSub>,
    /// Over-provisioning (physical - logical) / logical.
    #[arg(long, default_value_t = 0.07, allow_negative_numbers = true)]
    op: f64,
    /// Pages per segment.
    #[arg(long, default_value_t = 256)]
    pages_per_segment: u32,
    /// Hot/cold split W/S, both as fractions or both as percents (e.g. 0.8/0.2 or 80/20).
    #[arg(long)]
    hot: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
pub(crate) enum ModelSub {
    /// MiDAS's MCAM prediction and GCS configuration.
    Midas(cmd_midas::MidasModelArgs),
}

fn parse_hot(s: &str) -> Result<(f64, f64), Fail> {
    let bad = || {
        Fail(
            2,
            format!("--hot `{s}`: expected W/S, e.g. 0.8/0.2 or 80/20"),
        )
    };
    let (w, f) = s.split_once('/').ok_or_else(bad)?;
    let mut w: f64 = w.trim().parse().map_err(|_| bad())?;
    let mut f: f64 = f.trim().parse().map_err(|_| bad())?;
    // A share above 1 is a percent; a pair with one share above 1 and the other at most 1
    // (1.2/0.2: 1.2 % and 0.2 %, or a typo for 0.8/0.2?) has no single reading.
    if (w > 1.0) != (f > 1.0) {
        return Err(Fail(
            2,
            format!(
                "--hot `{s}`: one share is above 1 (a percent) and the other at most 1 (a \
                 fraction); give both as fractions, e.g. 0.8/0.2, or both as percents, e.g. 80/20"
            ),
        ));
    }
    if w > 1.0 {
        w /= 100.0;
        f /= 100.0;
    }
    if !(w > 0.0 && w < 1.0 && f > 0.0 && f < 1.0) {
        return Err(Fail(
            2,
            format!("--hot `{s}`: both shares must be in (0, 1) or (0, 100)"),
        ));
    }
    Ok((w, f))
}

/// The smallest `--op` the models are evaluated at: below it Eq. 4's root (and so every
/// FIFO-based row) loses its precision, e.g. 1e-9 gives WAF 7.4e7 where 1 / (2 op) = 5e8
/// is right, and at 1e-16 1 + op is 1 and the WAF infinite.
const MIN_MODEL_OP: f64 = 1e-6;

pub(crate) fn cmd_model(a: ModelArgs) -> Result<(), Fail> {
    if let Some(ModelSub::Midas(m)) = &a.sub {
        let code = cmd_midas::model_midas(m);
        return if code == 0 {
            Ok(())
        } else {
            Err(Fail(code as u8, String::new()))
        };
    }
    if !(a.op.is_finite() && (MIN_MODEL_OP..=10.0).contains(&a.op)) {
        return Err(Fail(
            2,
            format!(
                "--op {}: allowed range [{MIN_MODEL_OP:e}, 10] (below it the models' WAF loses \
                 its precision and reaches infinity: 1 + op rounds to 1)",
                // As typed: 1e-9, not 0.000000001.
                if a.op != 0.0 && a.op.abs() < 1e-3 {
                    format!("{:e}", a.op)
                } else {
                    a.op.to_string()
                }
            ),
        ));
    }
    if a.pages_per_segment == 0 {
        return Err(Fail(2, "--pages-per-segment: must be at least 1".into()));
    }
    let hot = a.hot.as_deref().map(parse_hot).transpose()?;
    let t = flashgc_core::model::table(a.op, a.pages_per_segment, hot);
    // A safeguard beside the range: never print inf (JSON null) as a model's WAF.
    if let Some(row) = t.rows.iter().find(|r| !r.1.is_finite()) {
        return Err(Fail(
            2,
            format!(
                "--op {}: {} gives no finite WAF at this over-provisioning; allowed range \
                 [{MIN_MODEL_OP:e}, 10]",
                a.op, row.0
            ),
        ));
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&t).map_err(|e| Fail(1, e.to_string()))?
        );
    } else {
        println!(
            "Analytic WAF, uniform random writes (Desnoyers, SYSTOR 2012); op = {} ((physical - logical) / logical), alpha = {:.4}",
            flashgc_core::error::compact_numbers(&t.op.to_string()),
            t.alpha
        );
        for (name, v) in &t.rows {
            println!("  {name:58} {v:>8.4}");
        }
        println!("alpha counts every physical page beyond the logical ones as spare; simulated devices keep free segments in reserve, so compare at the effective alpha `flashgc run` reports.");
    }
    Ok(())
}
