//! Analytic WAF models for uniform random writes (Desnoyers, "Analytic modeling of SSD
//! write performance", SYSTOR 2012), used to cross-check the simulator.
//!
//! `alpha` = physical / logical pages = 1 + op, counting every physical page beyond the
//! logical ones as spare. Simulated devices keep free segments in reserve and partly
//! written frontiers, which hold no data; compare simulations against these models at the
//! *effective* alpha the simulator reports (written pages / logical pages).

/// Principal branch W0 of the Lambert W function for x in [-1/e, inf).
pub fn lambert_w0(x: f64) -> f64 {
    let e_inv = -libm::exp(-1.0);
    if x <= e_inv {
        return -1.0;
    }
    // Initial guess: branch-point series near -1/e, log-based for large x.
    let mut w = if x < -0.25 {
        let p = libm::sqrt(2.0 * (1.0 + core::f64::consts::E * x));
        -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p
    } else if x < 3.0 {
        x / (1.0 + x).max(0.5) * 0.9
    } else {
        let l = libm::log(x);
        l - libm::log(l)
    };
    // Halley iterations.
    for _ in 0..64 {
        let ew = libm::exp(w);
        let f = w * ew - x;
        let wp1 = w + 1.0;
        if wp1.abs() < 1e-300 {
            break;
        }
        let denom = ew * wp1 - (w + 2.0) * f / (2.0 * wp1);
        let dw = f / denom;
        w -= dw;
        if dw.abs() <= 1e-15 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

/// FIFO (LRW) victim, Eq. 4: WAF = alpha / (alpha + W0(-alpha e^-alpha)).
pub fn waf_fifo(alpha: f64) -> f64 {
    alpha / (alpha + lambert_w0(-alpha * libm::exp(-alpha)))
}

/// Greedy victim with `np` pages per segment, Eq. 12: WAF_FIFO(k alpha) / k, k = 1 + 1/(2 np),
/// at least 1.
///
/// The approximation tends to 1/k < 1 as alpha grows (WAF_FIFO tends to 1), and dips below
/// 1 earlier for small segments; no device writes fewer pages than the host, so the
/// result is clamped to 1 there.
pub fn waf_greedy(alpha: f64, np: f64) -> f64 {
    let k = 1.0 + 1.0 / (2.0 * np);
    (waf_fifo(k * alpha) / k).max(1.0)
}

/// Uniformly random victim: WAF = alpha / (alpha - 1).
pub fn waf_random(alpha: f64) -> f64 {
    alpha / (alpha - 1.0)
}

/// Hot/cold FIFO, Eq. 14: a fraction `f` of the pages receives a fraction `r` of the writes,
/// all in one write frontier. Solves
/// A = 1 + r/(e^{r alpha/(f A)} - 1) + (1-r)/(e^{(1-r) alpha/((1-f) A)} - 1) for A by bisection.
pub fn waf_hotcold_fifo(alpha: f64, r: f64, f: f64) -> f64 {
    let g = |a: f64| {
        1.0 + r / (libm::exp(r * alpha / (f * a)) - 1.0)
            + (1.0 - r) / (libm::exp((1.0 - r) * alpha / ((1.0 - f) * a)) - 1.0)
            - a
    };
    // g(1) > 0 and g(A) < 0 for large A: bisection on a sign change.
    let (mut lo, mut hi) = (1.0, 2.0);
    while g(hi) > 0.0 && hi < 1e9 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Hot/cold greedy, Eq. 16: A_FIFO(k alpha) / k with k = 1 + 1/(2 np), at least 1 (as
/// [`waf_greedy`]).
pub fn waf_hotcold_greedy(alpha: f64, r: f64, f: f64, np: f64) -> f64 {
    let k = 1.0 + 1.0 / (2.0 * np);
    (waf_hotcold_fifo(k * alpha, r, f) / k).max(1.0)
}

/// All model predictions for a device (`op` as (physical - logical) / logical).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelTable {
    /// Over-provisioning.
    pub op: f64,
    /// alpha = 1 + op.
    pub alpha: f64,
    /// Pages per segment.
    pub pages_per_segment: u32,
    /// Hot/cold split (write share r, space share f), if asked.
    pub hot: Option<(f64, f64)>,
    /// (model, WAF) rows.
    pub rows: Vec<(String, f64)>,
}

/// Evaluates every model for the given parameters.
pub fn table(op: f64, np: u32, hot: Option<(f64, f64)>) -> ModelTable {
    let alpha = 1.0 + op;
    let npf = np as f64;
    let mut rows = vec![
        ("uniform FIFO (Eq. 4)".to_string(), waf_fifo(alpha)),
        (
            format!("uniform greedy, {np} pages/segment (Eq. 12)"),
            waf_greedy(alpha, npf),
        ),
        (
            "uniform random victim (alpha/(alpha-1))".to_string(),
            waf_random(alpha),
        ),
    ];
    if let Some((r, f)) = hot {
        rows.push((
            format!("hot/cold {}/{} FIFO (Eq. 14)", r * 100.0, f * 100.0),
            waf_hotcold_fifo(alpha, r, f),
        ));
        rows.push((
            format!(
                "hot/cold {}/{} greedy, {np} pages/segment (Eq. 16)",
                r * 100.0,
                f * 100.0
            ),
            waf_hotcold_greedy(alpha, r, f, npf),
        ));
    }
    ModelTable {
        op,
        alpha,
        pages_per_segment: np,
        hot,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table in BRIEF.md (Desnoyers' values).
    #[test]
    fn brief_table() {
        let rows = [
            (0.07, 7.817, 6.343, 7.001, 7.595, 15.286),
            (0.10, 5.677, 4.870, 5.242, 5.562, 11.000),
            (0.20, 3.188, 2.930, 3.053, 3.153, 6.000),
            (0.28, 2.481, 2.328, 2.402, 2.461, 4.571),
        ];
        for (op, fifo, g32, g64, g256, rnd) in rows {
            let a = 1.0 + op;
            let close = |x: f64, y: f64| (x - y).abs() < 0.0015;
            assert!(close(waf_fifo(a), fifo), "fifo {op}: {}", waf_fifo(a));
            assert!(
                close(waf_greedy(a, 32.0), g32),
                "g32 {op}: {}",
                waf_greedy(a, 32.0)
            );
            assert!(close(waf_greedy(a, 64.0), g64), "g64 {op}");
            assert!(close(waf_greedy(a, 256.0), g256), "g256 {op}");
            assert!(close(waf_random(a), rnd), "random {op}");
        }
    }

    #[test]
    fn hotcold_reduces_to_uniform_when_shares_match() {
        // r = f means no skew: Eq. 14 must equal Eq. 4.
        for op in [0.07, 0.2] {
            let a = 1.0 + op;
            let u = waf_fifo(a);
            let h = waf_hotcold_fifo(a, 0.3, 0.3);
            assert!((u - h).abs() < 1e-6, "{u} vs {h}");
        }
        // Skew makes FIFO worse (hot pages are cleaned before cold ones die).
        assert!(waf_hotcold_fifo(1.1, 0.9, 0.1) > waf_fifo(1.1));
    }

    #[test]
    fn greedy_is_never_below_one() {
        // Unclamped, Eq. 12 gives 1/k < 1 for large alpha (0.998 at alpha 1e6, np 256).
        for np in [1.0, 2.0, 8.0, 256.0] {
            for a in [1.01, 1.5, 3.0, 10.0, 1e6] {
                assert!(waf_greedy(a, np) >= 1.0, "{a} {np}");
                assert!(waf_hotcold_greedy(a, 0.8, 0.2, np) >= 1.0, "{a} {np}");
            }
        }
    }

    #[test]
    fn lambert_w_identity() {
        for &x in &[-0.36, -0.3, -0.1, 0.0, 0.5, 2.0, 10.0, 1000.0] {
            let w = lambert_w0(x);
            assert!(
                (w * w.exp() - x).abs() < 1e-10 * (1.0 + x.abs()),
                "x={x} w={w}"
            );
        }
    }
}
