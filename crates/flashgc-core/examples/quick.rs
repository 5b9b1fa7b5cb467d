use flashgc_core::{Config, Simulation};
fn main() {
    for victim in ["greedy", "fifo", "random", "cost-benefit", "d-choices:d=4", "windowed-greedy"] {
        let mut c = Config::default_preset();
        c.ftl.logical_gib = Some(1.0);
        c.device.pages_per_block = 64;
        c.run.victim = victim.into();
        c.run.write_volume = 12.0;
        c.run.warmup = Some(8.0);
        let t = std::time::Instant::now();
        let r = Simulation::run_synthetic(&c, &mut |_| {}).unwrap();
        let dt = t.elapsed().as_secs_f64();
        println!("{victim:16} waf {:.4} model {:?} alpha {:?} progs/s {:.1}M", r.steady_state.waf, r.model.as_ref().map(|m| (m.waf, m.relative_error)), r.steady_state.effective_alpha, r.total.flash_programs as f64 / dt / 1e6);
    }
}
