//! `flashgc presets`, `flashgc policies` and the commands forwarded to the Python package
//! (`sweep`, `report`).

use crate::Fail;
use flashgc_core::{placement, victim, Config};

pub(crate) fn cmd_presets(name: Option<String>) -> Result<(), Fail> {
    match name {
        Some(n) => print!("{}", Config::preset_text(&n)?),
        None => {
            println!("(`flashgc presets NAME` prints a preset's whole description and TOML)");
            for n in Config::preset_names() {
                let c = Config::load(Some(n), None)?;
                let l = c.layout()?;
                let text = Config::preset_text(n)?;
                let line = text.lines().next().unwrap_or("").trim_start_matches("# ");
                // The first line of a description that goes on mid-sentence: mark the cut
                // (`flashgc presets NAME` prints the whole text) instead of a dangling word.
                let first = if line.ends_with('.') {
                    line.to_string()
                } else {
                    format!("{} ...", line.trim_end_matches([':', ',']))
                };
                println!(
                    "{n:16} {:>9.2} GiB logical, op {:.4}, {} segments x {} pages  {first}",
                    l.logical_bytes() as f64 / (1u64 << 30) as f64,
                    l.op,
                    l.segments,
                    l.pages_per_segment
                );
            }
        }
    }
    Ok(())
}

pub(crate) fn cmd_policies() {
    println!("placement schemes (--placement):");
    for (n, d, _, v) in placement::REGISTRY {
        println!("  {n:16} {d} [paper victim: {v}]");
    }
    println!("victim policies (--victim):");
    for (n, d, _) in victim::REGISTRY {
        println!("  {n:16} {d}");
    }
    println!("GC actions (--gc-action):");
    for (n, d, _) in flashgc_core::gc_action::REGISTRY {
        println!("  {n:16} {d}");
    }
}

pub(crate) fn forward_python(sub: &str, args: &[String]) -> Result<(), Fail> {
    let py = std::env::var("FLASHGC_PYTHON").unwrap_or_else(|_| "python3".into());
    // A Python without the package would only say "No module named flashgc" (exit 1).
    let probe = std::process::Command::new(&py)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('flashgc') else 3)",
        ])
        .status();
    if let Ok(s) = probe {
        if s.code() == Some(3) {
            return Err(Fail(
                2,
                format!(
                    "`flashgc {sub}` runs in Python, and {py} has no `flashgc` package: install it \
                     (pip install ./py-flashgc, or bash scripts/test-python.sh for a .venv; \
                     docs/python.md) or set FLASHGC_PYTHON to a Python that has it"
                ),
            ));
        }
    }
    let mut cmd = std::process::Command::new(&py);
    // `reproduce` runs this very binary for its cases.
    if let Ok(exe) = std::env::current_exe() {
        cmd.env("FLASHGC_BIN", exe);
    }
    let status = cmd
        .arg("-m")
        .arg("flashgc")
        .arg(sub)
        .args(args)
        .status()
        .map_err(|e| {
            Fail(
                2,
                format!("cannot start {py}: {e} (install the Python package: see docs/python.md)"),
            )
        })?;
    match status.code() {
        Some(0) => Ok(()),
        Some(c) => Err(Fail(c.clamp(1, 255) as u8, String::new())),
        None => Err(Fail(1, format!("{py} -m flashgc {sub} was interrupted"))),
    }
}
