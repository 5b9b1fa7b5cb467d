//! Quick look at every victim policy on a 1 GiB device: WAF, model, speed.
//! `cargo run --release -p flashgc-core --example quick [victim...]`
use flashgc_core::{Config, Simulation};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let victims: Vec<String> = if args.is_empty() {
        [
            "greedy",
            "fifo",
            "random",
            "cost-benefit",
            "d-choices:d=4",
            "windowed-greedy",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    } else {
        args
    };
    for victim in victims {
        let mut c = Config::default_preset();
        c.ftl.logical_gib = Some(1.0);
        c.device.pages_per_block = 64;
        c.run.victim = victim.clone();
        c.run.write_volume = 12.0;
        c.run.warmup = Some(8.0);
        let t = std::time::Instant::now();
        let r = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
        let dt = t.elapsed().as_secs_f64();
        println!(
            "{victim:24} WAF {:.4}  model {:?}  alpha {:?}  {:.1} M programs/s",
            r.steady_state.waf,
            r.model.as_ref().map(|m| (m.waf, m.relative_error)),
            r.steady_state.effective_alpha,
            r.total.flash_programs as f64 / dt / 1e6
        );
    }
}
