//! The flag vocabulary every command shares ([`CommonArgs`]) and the configuration it
//! builds: preset, then TOML file, then flags.

use crate::{output, Fail};
use clap::Args;
use flashgc_core::config::Watermark;
use flashgc_core::Config;

/// Configuration flags shared by every command. Flags override the config file, which
/// overrides the preset.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct CommonArgs {
    /// Embedded device preset (see `flashgc presets`; default: `default`, a 4 GiB device).
    #[arg(long)]
    pub(crate) preset: Option<String>,
    /// TOML configuration file (layered over the preset).
    #[arg(long)]
    pub(crate) config: Option<String>,
    /// Workload: uniform | zipf:THETA | hotcold:W/S | seq | trace:PATH (default: uniform;
    /// `compare` without --config: zipf:1.0).
    #[arg(long)]
    pub(crate) workload: Option<String>,
    /// Over-provisioning as (physical - logical) / logical (default: the preset's, 0.07 for
    /// `default`).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) op: Option<f64>,
    /// Over-provisioning as (physical - logical) / physical (MQSim's definition).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) op_of_physical: Option<f64>,
    /// Logical capacity in GiB (sizes the device's blocks per plane).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) logical_gib: Option<f64>,
    /// Flash pages per block.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) pages_per_block: Option<u32>,
    /// Flash page size in bytes.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) page_size: Option<u32>,
    /// Mapping unit (LPN) size in bytes.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) lpn_size: Option<u32>,
    /// Blocks per segment (1 = block; k = superblock over k parallel units).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) segment_blocks: Option<u32>,
    /// Blocks per plane (instead of --logical-gib).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) blocks_per_plane: Option<u32>,
    /// GC starts below this many free segments (N, or X% of all segments).
    #[arg(long)]
    pub(crate) gc_low: Option<String>,
    /// GC runs until this many segments are free (N or X%).
    #[arg(long)]
    pub(crate) gc_high: Option<String>,
    /// User data to write, in multiples of the logical capacity (default 8).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) write_volume: Option<f64>,
    /// Warm-up excluded from the steady-state WAF, in multiples of the logical capacity
    /// (default: half the write volume).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) warmup: Option<f64>,
    /// Sequential precondition fill, fraction of the logical space (0..1; default 1, the
    /// preset's for `ssdsim-splitgc`: 0.9).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) fill: Option<f64>,
    /// Fraction of requests that are reads (synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) read_ratio: Option<f64>,
    /// Pages per request (synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) request_pages: Option<u32>,
    /// Random seed (default 1): same configuration and seed, same numbers.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) seed: Option<u64>,
    /// WAF time-series window, GiB of user writes (at least 1/1024: 1 MiB).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) window_gib: Option<f64>,
    /// Placement scheme (default single; `compare` and `fio`: a comma-separated list;
    /// `compare` without one runs every registered scheme with its paper's victim policy;
    /// see `flashgc policies`).
    #[arg(long)]
    pub(crate) placement: Option<String>,
    /// Victim policy (default greedy; `compare` and `fio`: a comma-separated list).
    #[arg(long)]
    pub(crate) victim: Option<String>,
    /// GC action: move (default) | splitgc | cagc | dagc, with parameters
    /// (`cagc:index=full`; `compare`: comma-separated list). See `flashgc policies`.
    #[arg(long)]
    pub(crate) gc_action: Option<String>,
    /// Content mode: share of written pages drawn from a pool of popular contents (pages
    /// whose request carries no content, e.g. synthetic workloads).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) dup_ratio: Option<f64>,
    /// Content mode: distinct popular contents in the pool.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) dup_pool: Option<u64>,
    /// Content mode: Zipf exponent of the popularity over the pool.
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) dup_theta: Option<f64>,
    /// What starts GC besides the free-segment watermarks: `free` (default) or
    /// `garbage:SHARE` (SepBIT's log-structured trigger, e.g. garbage:0.15).
    #[arg(long)]
    pub(crate) gc_trigger: Option<String>,
    /// Mapping-table cache (DFTL): controller DRAM for cached translation pages (BYTES,
    /// e.g. 64k, 1MiB) or `off` (the whole L2P in DRAM). See docs/mapping-cache.md.
    #[arg(long, value_name = "BYTES|off")]
    pub(crate) mapping_cache: Option<String>,
    /// Bytes per mapping entry of the mapping cache (default 4).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) mapping_entry_bytes: Option<u32>,
    /// Bytes per translation page of the mapping cache (default: the LPN size).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) translation_page_bytes: Option<u32>,
    /// Refuse runs whose estimated memory exceeds this many GiB (default: the memory the
    /// machine has available; `compare` divides it among its parallel runs).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) max_memory: Option<f64>,
}

/// The configuration file of this command and the fields its flags override, so that an
/// error about a field the file sets can name the file and the line
/// ([`config_line_of`]). Checked values are validated long after the file is read (by the
/// run, the layout, the timing model), where the file is no longer at hand.
struct ConfigSource {
    path: String,
    text: String,
    /// Dotted fields (or whole tables) the flags set.
    flag_fields: Vec<&'static str>,
}

static CONFIG_SOURCE: std::sync::Mutex<Option<ConfigSource>> = std::sync::Mutex::new(None);

/// The configuration fields each given flag of `a` sets (a table stands for its fields).
fn flag_fields(a: &CommonArgs) -> Vec<&'static str> {
    let given: [(bool, &[&'static str]); 28] = [
        (a.preset.is_some(), &["preset"]),
        (a.pages_per_block.is_some(), &["device.pages_per_block"]),
        (a.page_size.is_some(), &["device.page_size"]),
        (a.lpn_size.is_some(), &["device.lpn_size"]),
        (a.segment_blocks.is_some(), &["device.segment_blocks"]),
        (
            a.blocks_per_plane.is_some(),
            &["device.blocks_per_plane", "ftl.logical_gib"],
        ),
        (
            a.op.is_some() || a.op_of_physical.is_some(),
            &["ftl.op", "ftl.op_of_physical"],
        ),
        (a.logical_gib.is_some(), &["ftl.logical_gib"]),
        (a.gc_low.is_some(), &["ftl.gc_low"]),
        (a.gc_high.is_some(), &["ftl.gc_high"]),
        (a.gc_trigger.is_some(), &["ftl.gc_trigger"]),
        (a.mapping_cache.is_some(), &["ftl.mapping_cache"]),
        (
            a.mapping_entry_bytes.is_some(),
            &["ftl.mapping_cache.entry_bytes"],
        ),
        (
            a.translation_page_bytes.is_some(),
            &["ftl.mapping_cache.translation_page_bytes"],
        ),
        (a.workload.is_some(), &["run.workload"]),
        (
            a.write_volume.is_some(),
            &["run.write_volume", "run.warmup"],
        ),
        (a.warmup.is_some(), &["run.warmup"]),
        (a.fill.is_some(), &["run.fill"]),
        (a.read_ratio.is_some(), &["run.read_ratio"]),
        (a.request_pages.is_some(), &["run.request_pages"]),
        (a.seed.is_some(), &["run.seed"]),
        (a.window_gib.is_some(), &["run.window_gib"]),
        (a.placement.is_some(), &["run.placement"]),
        (a.victim.is_some(), &["run.victim"]),
        (a.gc_action.is_some(), &["run.gc_action"]),
        (a.dup_ratio.is_some(), &["content.dup_ratio"]),
        (a.dup_pool.is_some(), &["content.pool"]),
        (a.dup_theta.is_some(), &["content.theta"]),
    ];
    let mut v: Vec<&'static str> = given
        .iter()
        .filter(|g| g.0)
        .flat_map(|g| g.1.iter().copied())
        .collect();
    if a.max_memory.is_some() {
        v.push("run.max_memory_gib");
    }
    v
}

/// Notes fields a flag sets after [`build_config`] (`--scheme` sets the placement and the
/// victim), so that their errors are not blamed on the configuration file.
pub(crate) fn flag_sets(fields: &[&'static str]) {
    if let Ok(mut src) = CONFIG_SOURCE.lock() {
        if let Some(src) = src.as_mut() {
            src.flag_fields.extend_from_slice(fields);
        }
    }
}

/// `FILE: line N` for a configuration error about `field` (dotted, `flow[0].bs` for the
/// first `[[flow]]` section; `run.victim.d` for a parameter of the spec on the line of
/// `run.victim`; `device` for a check on a product of the table's keys, on the line of
/// its `[device]` header) when this command's configuration file sets that field and no
/// flag overrides it; None otherwise (the field comes from the preset, a flag, or is
/// derived).
pub(crate) fn config_line_of(field: &str) -> Option<String> {
    let guard = CONFIG_SOURCE.lock().ok()?;
    let src = guard.as_ref()?;
    let covered = |f: &str| f == field || field.starts_with(&format!("{f}."));
    if src.flag_fields.iter().any(|f| covered(f)) {
        return None;
    }
    let by_name = flow_by_name(&src.text, field);
    let field = by_name.as_deref().unwrap_or(field);
    let mut table = String::new();
    let mut arrays: std::collections::HashMap<String, usize> = Default::default();
    // A key the section leaves out (a flow without `requests`): its header line.
    let mut header = None;
    let mut parent = None;
    // A field that is a whole table (`device`, for a product of its keys beyond a bound):
    // the line of its `[device]` header, else of its first dotted key (`device.channels =`
    // at the top level).
    let mut table_header = None;
    let mut first_key = None;
    for (i, raw) in src.text.lines().enumerate() {
        let t = raw.trim();
        if let Some(h) = t.strip_prefix("[[") {
            let name = h.split("]]").next().unwrap_or("").trim().to_string();
            let n = arrays.entry(name.clone()).or_insert(0);
            table = format!("{name}[{n}]");
            *n += 1;
            if field.starts_with(&format!("{table}.")) {
                header = Some(i + 1);
            }
        } else if let Some(h) = t.strip_prefix('[') {
            table = h.split(']').next().unwrap_or("").trim().to_string();
            if table == field {
                table_header.get_or_insert(i + 1);
            }
        } else if let Some((k, _)) = t.split_once('=') {
            let k = k.trim().trim_matches('"');
            let full = if table.is_empty() {
                k.to_string()
            } else {
                format!("{table}.{k}")
            };
            if full == field {
                return Some(format!("{}: line {}", src.path, i + 1));
            }
            // A parameter of a spec the file gives (`run.placement.levels` of
            // `placement = "bf-gc:levels=0"`), or a key of an inline table.
            if field.starts_with(&format!("{full}.")) {
                parent = Some(i + 1);
            }
            if full.starts_with(&format!("{field}.")) {
                first_key.get_or_insert(i + 1);
            }
        }
    }
    parent
        .or(header)
        .or(table_header)
        .or(first_key)
        .map(|n| format!("{}: line {n}", src.path))
}

/// `flow[I].KEY` for a flow field named by the flow (`flow `NAME`.KEY`, as the flows'
/// checks name them; `NAME.j` for a numjobs copy), I its `[[flow]]` section in `text`.
fn flow_by_name(text: &str, field: &str) -> Option<String> {
    let (name, key) = field.strip_prefix("flow `")?.split_once("`.")?;
    let mut names: Vec<String> = Vec::new();
    let mut in_flow = false;
    for raw in text.lines() {
        let t = raw.trim();
        if t.starts_with('[') {
            in_flow = t.starts_with("[[flow]]");
            if in_flow {
                names.push(format!("flow{}", names.len()));
            }
        } else if let (true, Some((k, v))) = (in_flow, t.split_once('=')) {
            if k.trim() == "name" {
                if let Some(n) = names.last_mut() {
                    *n = v.trim().trim_matches('"').to_string();
                }
            }
        }
    }
    let i = names.iter().position(|n| n == name).or_else(|| {
        let (base, j) = name.rsplit_once('.')?;
        j.parse::<u32>().ok()?;
        names.iter().position(|n| n == base)
    })?;
    Some(format!("flow[{i}].{key}"))
}

/// Builds the configuration of `a`: preset, then the TOML file, then the flags; without a
/// memory limit from any of them, the memory this machine has available now.
pub(crate) fn build_config(a: &CommonArgs) -> Result<Config, Fail> {
    let mut c = build_config_as_given(a)?;
    default_memory_limit(&mut c);
    Ok(c)
}

/// Without a memory limit, the memory this machine has available now (a figure that
/// changes from one run to the next: `flashgc run` keeps it out of its checkpoints).
pub(crate) fn default_memory_limit(c: &mut Config) {
    let r = &mut c.run;
    r.max_memory_gib = r.max_memory_gib.or_else(output::available_memory_gib);
}

/// [`build_config`] with the memory limit as the preset, file or flag give it (None when
/// none does).
pub(crate) fn build_config_as_given(a: &CommonArgs) -> Result<Config, Fail> {
    let text = match &a.config {
        Some(path) if path.trim().is_empty() => {
            return Err(Fail(2, "--config: an empty path; give a file name".into()))
        }
        Some(path) => Some(
            flashgc_core::text_file::read(path)
                .map_err(|e| Fail(2, format!("{path}: cannot read config: {e}")))?,
        ),
        None => None,
    };
    if let (Some(path), Some(text), Ok(mut src)) = (&a.config, &text, CONFIG_SOURCE.lock()) {
        *src = Some(ConfigSource {
            path: path.clone(),
            text: text.clone(),
            flag_fields: flag_fields(a),
        });
    }
    let mut c = Config::load(
        a.preset.as_deref(),
        a.config.as_deref().zip(text.as_deref()),
    )?;
    let d = &mut c.device;
    if let Some(v) = a.pages_per_block {
        d.pages_per_block = v;
    }
    if let Some(v) = a.page_size {
        d.page_size = v;
    }
    if let Some(v) = a.lpn_size {
        d.lpn_size = v;
    }
    if let Some(v) = a.segment_blocks {
        d.segment_blocks = v;
    }
    if let Some(v) = a.blocks_per_plane {
        d.blocks_per_plane = v;
        c.ftl.logical_gib = None;
    }
    if let Some(v) = a.op {
        c.ftl.op = Some(v);
        c.ftl.op_of_physical = None;
    }
    if let Some(v) = a.op_of_physical {
        c.ftl.op_of_physical = Some(v);
        if a.op.is_none() {
            c.ftl.op = None;
        }
    }
    if let Some(v) = a.logical_gib {
        c.ftl.logical_gib = Some(v);
    }
    if let Some(v) = &a.gc_low {
        c.ftl.gc_low = Watermark::parse("--gc-low", v)?;
    }
    if let Some(v) = &a.gc_high {
        c.ftl.gc_high = Some(Watermark::parse("--gc-high", v)?);
    }
    if let Some(v) = &a.gc_trigger {
        c.ftl.gc_trigger = flashgc_core::config::GcTrigger::parse("--gc-trigger", v)?;
    }
    if let Some(v) = &a.mapping_cache {
        if v.trim().eq_ignore_ascii_case("off") {
            c.ftl.mapping_cache = None;
        } else {
            let bytes = crate::cmd_timing::parse_bytes("--mapping-cache", v)?;
            c.ftl
                .mapping_cache
                .get_or_insert_with(Default::default)
                .bytes = bytes;
        }
    }
    for (flag, v) in [
        ("--mapping-entry-bytes", a.mapping_entry_bytes),
        ("--translation-page-bytes", a.translation_page_bytes),
    ] {
        let Some(v) = v else { continue };
        let m = c.ftl.mapping_cache.as_mut().ok_or_else(|| {
            Fail(
                2,
                format!(
                    "{flag} needs a mapping cache (--mapping-cache BYTES or [ftl.mapping_cache])"
                ),
            )
        })?;
        if flag == "--mapping-entry-bytes" {
            m.entry_bytes = v;
        } else {
            m.translation_page_bytes = Some(v);
        }
    }
    if let (Some(w), false) = (&a.workload, c.flow.is_empty()) {
        // The flows replace `run.workload` (docs/flows.md): the flag would be dropped.
        return Err(Fail(
            2,
            format!(
                "--workload {w}: the configuration's {} [[flow]] section(s) are the workload; \
                 give one or the other",
                c.flow.len()
            ),
        ));
    }
    let r = &mut c.run;
    if let Some(v) = &a.workload {
        r.workload = v.clone();
    }
    if let Some(v) = a.write_volume {
        r.write_volume = v;
    }
    if let Some(v) = a.warmup {
        r.warmup = Some(v);
    }
    if let Some(v) = a.fill {
        r.fill = v;
    }
    if let Some(v) = a.read_ratio {
        r.read_ratio = v;
    }
    if let Some(v) = a.request_pages {
        r.request_pages = v;
    }
    if let Some(v) = a.seed {
        r.seed = v;
    }
    if let Some(v) = a.window_gib {
        r.window_gib = Some(v);
    }
    if let Some(v) = &a.placement {
        r.placement = v.clone();
    }
    if let Some(v) = &a.victim {
        r.victim = v.clone();
    }
    if let Some(v) = &a.gc_action {
        r.gc_action = v.clone();
    }
    if let Some(v) = a.dup_ratio {
        c.content.dup_ratio = v;
    }
    if let Some(v) = a.dup_pool {
        c.content.pool = v;
    }
    if let Some(v) = a.dup_theta {
        c.content.theta = v;
    }
    let r = &mut c.run;
    r.max_memory_gib = match a.max_memory {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            return Err(Fail(
                2,
                format!("--max-memory {v}: must be a positive number of GiB"),
            ))
        }
        Some(v) => Some(v),
        None => r.max_memory_gib,
    };
    // A warm-up beyond a reduced volume would be rejected; keep the default ratio instead.
    if a.write_volume.is_some() && a.warmup.is_none() {
        r.warmup = None;
    }
    synthetic_flags_only(a, &c)?;
    Ok(c)
}

/// Refuses the synthetic generator's flags where no synthetic workload runs: a trace has its
/// own reads and request sizes, and `[[flow]]` sections their own `rw` and `bs`, so the flag
/// would be dropped without a word.
fn synthetic_flags_only(a: &CommonArgs, c: &Config) -> Result<(), Fail> {
    let given: Vec<&str> = [
        ("--read-ratio", a.read_ratio.is_some()),
        ("--request-pages", a.request_pages.is_some()),
    ]
    .into_iter()
    .filter_map(|(f, g)| g.then_some(f))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    let what = if !c.flow.is_empty() {
        "the configuration's [[flow]] sections (each sets its own rw and bs)".to_string()
    } else if let Ok(flashgc_core::workload::WorkloadSpec::Trace(p)) =
        flashgc_core::workload::WorkloadSpec::parse("run.workload", &c.run.workload)
    {
        format!("the trace {p}, whose requests set their own reads and sizes")
    } else {
        return Ok(());
    };
    Err(Fail(
        2,
        format!(
            "{}: synthetic workloads only; the workload is {what}",
            given.join(", ")
        ),
    ))
}
