//! `flashgc`: the command line of the flashgc SSD garbage-collection laboratory.
//!
//! A thin layer: it builds a [`Config`](flashgc_core::Config) from a preset, a TOML file and
//! flags (one flag vocabulary for every command, `args.rs`), opens the workload, runs the
//! core and prints the result. One module per subcommand (`cmd_*.rs`).

mod args;
mod cmd_checkpoint;
mod cmd_compare;
mod cmd_dedup;
mod cmd_fio;
mod cmd_fiojob;
mod cmd_info;
mod cmd_midas;
mod cmd_model;
mod cmd_mqsim;
mod cmd_noc;
mod cmd_run;
mod cmd_serve;
mod cmd_timing;
mod cmd_trace;
mod compare_table;
mod interrupt;
mod outfile;
mod output;
mod startup;
mod timing_summary;

pub(crate) use args::{build_config, CommonArgs};
use clap::{Parser, Subcommand};
pub(crate) use cmd_compare::split_list;
pub(crate) use cmd_run::{bar_progress, open_workload, prepare_trace, RunArgs};
use flashgc_core::Error;
use std::process::ExitCode;

/// flashgc: a fast, faithful laboratory for SSD garbage collection.
#[derive(Parser, Debug)]
#[command(
    name = "flashgc",
    version,
    // The package description ("The flashgc command line") told a new user nothing.
    about = "flashgc: a laboratory for SSD garbage collection: GC schemes side by side on \
             synthetic workloads and real block I/O traces (WAF, erases, GC moves, latency)",
    long_about = None,
    after_help = "Start with `flashgc compare` (every placement scheme with its paper's victim \
                  policy on the built-in zipf(1.0) workload, about a minute on 2 cores), then \
                  `flashgc policies` and `flashgc presets`. `flashgc COMMAND --help` describes \
                  each command; README.md and docs/ describe the rest."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Simulate one configuration and report WAF, erases, GC moves, memory.
    Run(cmd_run::RunArgs),
    /// Continue a run from its checkpoint (`run --checkpoint-every`, or Ctrl-C) with the
    /// flags it was started with; the output equals an uninterrupted run's.
    Resume {
        /// Checkpoint file.
        checkpoint: String,
        /// Write the JSON result to this file (default: the original run's file name, in
        /// the current directory; never the path stored in the checkpoint).
        #[arg(long, short = 'o')]
        output: Option<String>,
    },
    /// Simulate several placement x victim combinations on the same workload and seed.
    Compare(cmd_run::RunArgs),
    /// Print analytic WAF models (Desnoyers) for a device; `model midas` for MiDAS's MCAM.
    Model(cmd_model::ModelArgs),
    /// List the embedded device presets, or print one (`presets NAME`).
    Presets {
        /// Preset to print as TOML.
        name: Option<String>,
    },
    /// List the registered placement schemes, victim policies and GC actions.
    Policies,
    /// Print the effective configuration (preset + file + flags) as TOML; with
    /// --mqsim-workload, an MQSim IO scenario as `[[flow]]` sections.
    Config(ConfigArgs),
    /// fio-like timed jobs (randrw, rwmixwrite, bs, numjobs, iodepth); `--paper sup-gc|bf-gc` runs a paper's write-ratio series.
    Fio(Box<cmd_fio::FioArgs>),
    /// NoC SSD controller: conventional vs selective copy-back GC (papers/noc-copyback-gc.txt).
    Noc(Box<cmd_noc::NocArgs>),
    /// Dedup-aware GC: SplitGC vs greedy, CAGC, DAGC on page content (papers/splitgc.txt).
    Dedup(Box<cmd_dedup::DedupArgs>),
    /// Serve the simulated SSD as an NBD block device (fio, qemu-io, nbdcopy, nbd-client) and record what it serves.
    Serve(Box<cmd_serve::ServeArgs>),
    /// Trace tools: statistics, volumes, the first requests as parsed, conversion to the
    /// binary .fgt format.
    Trace {
        #[command(subcommand)]
        cmd: cmd_trace::TraceCmd,
    },
    /// Run a parameter sweep on Dask (forwards to `python3 -m flashgc sweep`).
    Sweep {
        /// Arguments for `python3 -m flashgc sweep`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Build an HTML report from results (forwards to `python3 -m flashgc report`).
    Report {
        /// Arguments for `python3 -m flashgc report`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Reproduce a paper's evaluation: its claims beside flashgc's values, with verdicts
    /// (sup-gc, bf-gc, splitgc, noc, midas, all; `--scale quick|full`, `-o DIR`, `--claim ID`,
    /// `--app-traces DIR`; forwards to `python3 -m flashgc reproduce`, which runs this binary
    /// for every case).
    #[command(disable_help_flag = true)]
    Reproduce {
        /// Arguments for `python3 -m flashgc reproduce`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The command line with every value that looks like a negative number (`-` then a digit
/// or `.`: `--gc-low -2`, `--bs -4k`, `-n -1`) attached to the flag before it when that
/// flag takes a value (`--gc-low=-2`, `-n-1`). clap otherwise reads such a value as an
/// unknown short flag ("unexpected argument '-4' found", naming neither the flag nor the
/// value) unless the flag allows negative numbers and the value is a plain number; attached,
/// it reaches the flag's own check, which names the flag and the allowed values. No flag of
/// this command line starts with a digit, so nothing else changes.
pub(crate) fn negative_values_attached<T: Into<std::ffi::OsString>>(
    args: impl IntoIterator<Item = T>,
) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut it = args.into_iter().map(Into::into).peekable();
    let mut out: Vec<std::ffi::OsString> = it.next().into_iter().collect();
    while let Some(a) = it.next() {
        let s = a.to_str().unwrap_or_default();
        if let Some(sub) = cmd.find_subcommand(s) {
            cmd = sub.clone();
            out.push(a);
            continue;
        }
        let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
        let (flag_takes_value, short) = match (s.strip_prefix("--"), s.strip_prefix('-')) {
            (Some(long), _) => (
                cmd.get_arguments()
                    .any(|x| x.get_long() == Some(long) && takes_value(x)),
                false,
            ),
            (None, Some(c)) if c.chars().count() == 1 => (
                cmd.get_arguments().any(|x| {
                    x.get_short().map(String::from).as_deref() == Some(c) && takes_value(x)
                }),
                true,
            ),
            _ => (false, false),
        };
        let negative = |v: &std::ffi::OsString| {
            let b = v.as_encoded_bytes();
            b.len() >= 2 && b[0] == b'-' && (b[1].is_ascii_digit() || b[1] == b'.')
        };
        if flag_takes_value && it.peek().is_some_and(negative) {
            let v = it.next().expect("peeked");
            let mut joined = a;
            if !short {
                joined.push("=");
            }
            joined.push(v);
            out.push(joined);
        } else {
            out.push(a);
        }
    }
    out
}

/// Longest error message printed whole, bytes: messages quote the value they refuse, and a
/// 10 MB line of a configuration or job file was printed back whole.
const MAX_ERROR_BYTES: usize = 4096;

/// Prints `flashgc: error: MSG` on stderr, the middle of an overlong message elided.
pub(crate) fn print_error(msg: &str) {
    let msg = flashgc_core::error::compact_numbers(msg);
    eprintln!("flashgc: error: {}", elide(&msg, MAX_ERROR_BYTES));
}

/// `msg` itself, or its start and end around `[... N bytes elided ...]` when it is longer
/// than `most` bytes (cut at character boundaries).
fn elide(msg: &str, most: usize) -> std::borrow::Cow<'_, str> {
    if msg.len() <= most {
        return msg.into();
    }
    let floor = |mut i: usize| {
        while !msg.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head = floor(most / 2);
    let tail = floor(msg.len() - most / 4);
    format!(
        "{} [... {} bytes elided ...] {}",
        &msg[..head],
        tail - head,
        &msg[tail..]
    )
    .into()
}

/// A failure with the exit code it maps to: 2 for bad input, 1 for run-time failures.
pub(crate) struct Fail(pub(crate) u8, pub(crate) String);

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let code = match e {
            Error::Config { .. } | Error::Unknown { .. } | Error::Input(_) => 2,
            _ => 1,
        };
        // A field the configuration file sets: name the file and the line, as its parse
        // errors do (values are validated after the file is read).
        let at = match &e {
            Error::Config { field, .. } => args::config_line_of(field),
            Error::Unknown { field, .. } if !field.is_empty() => args::config_line_of(field),
            _ => None,
        };
        match at {
            Some(at) => Fail(code, format!("{at}: {e}")),
            None => Fail(code, e.to_string()),
        }
    }
}

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`flashgc ... | head`) instead of failing on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; restores the default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Allocations of 1 MiB and more (the tables) always get pages of their own: glibc
    // otherwise raises that threshold to the size of the largest block freed (up to 32
    // MiB), so after a resume freed the fresh tables, the next ones grew in the heap by
    // copying and left holes behind (a resumed CAGC run peaked 8 % above the uninterrupted
    // one and 11 % above the memory estimate). Smaller blocks (request batches) stay in the
    // heap: no system call per batch.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called before any allocation-heavy work and before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let cli = match Cli::try_parse_from(negative_values_attached(std::env::args_os())) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            if text.starts_with("error:") {
                // The parser's errors carry the prefix of every other error (README).
                eprint!("flashgc: {text}");
            } else {
                // --help, --version, or the help shown for a missing subcommand.
                let _ = e.print();
            }
            return ExitCode::from(code);
        }
    };
    // Said once per trace read from a pipe, a device or `-` (docs/traces.md), and when a
    // named pipe given as an input has nothing written to it yet.
    flashgc_core::notice::set(|m| eprintln!("flashgc: {m}"));
    let r = match cli.cmd {
        Cmd::Run(a) => cmd_run::cmd_run(a),
        Cmd::Resume { checkpoint, output } => cmd_run::cmd_resume(&checkpoint, output),
        Cmd::Compare(a) => cmd_compare::cmd_compare(a),
        Cmd::Model(a) => cmd_model::cmd_model(a),
        Cmd::Presets { name } => cmd_info::cmd_presets(name),
        Cmd::Policies => {
            cmd_info::cmd_policies();
            Ok(())
        }
        Cmd::Config(a) => build_config(&a.common).and_then(|mut c| {
            cmd_mqsim::apply(&a.mqsim, &mut c)?;
            c.layout()?;
            print!("{}", c.to_toml()?);
            Ok(())
        }),
        Cmd::Trace { cmd } => {
            let code = cmd_trace::run(cmd);
            if code == 0 {
                Ok(())
            } else {
                Err(Fail(code.clamp(1, 255) as u8, String::new()))
            }
        }
        Cmd::Dedup(a) => cmd_dedup::dedup(&a),
        Cmd::Noc(a) => cmd_noc::noc(&a),
        Cmd::Serve(a) => cmd_serve::serve(&a),
        Cmd::Fio(a) => match cmd_fio::fio(&a) {
            0 => Ok(()),
            code => Err(Fail(code.clamp(1, 255) as u8, String::new())),
        },
        Cmd::Sweep { args } => cmd_info::forward_python("sweep", &args),
        Cmd::Report { args } => cmd_info::forward_python("report", &args),
        Cmd::Reproduce { args } => cmd_info::forward_python("reproduce", &args),
    };
    // The temporary copies of traces read once (named ones outside Linux).
    flashgc_core::trace_file::forget_all();
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, msg)) => {
            if !msg.is_empty() {
                print_error(&msg);
            }
            ExitCode::from(code)
        }
    }
}

/// Flags of `flashgc config`.
#[derive(clap::Args, Debug)]
struct ConfigArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    mqsim: cmd_mqsim::MqsimFlags,
}

#[cfg(test)]
mod tests {
    use super::elide;

    #[test]
    fn overlong_messages_are_elided_in_the_middle() {
        assert_eq!(elide("short", 100), "short");
        let long = format!("start {} end", "é".repeat(5000));
        let e = elide(&long, 4096);
        assert!(e.len() < 4096, "{}", e.len());
        assert!(e.starts_with("start ") && e.ends_with(" end"), "{e}");
        assert!(e.contains("bytes elided"), "{e}");
    }
}
