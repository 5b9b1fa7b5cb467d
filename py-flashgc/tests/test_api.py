"""The Python API: run, compare, configurations, workloads, errors, determinism."""

import json
import pathlib
import shutil
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

import flashgc
from flashgc import FlashgcError


def test_run_returns_result_with_dataframes(tiny):
    r = flashgc.run("default", "uniform", **tiny)
    assert isinstance(r, flashgc.Result)
    assert r.raw["workload"] == "uniform" and r.raw["placement"] == "single"
    s = r.series
    assert isinstance(s, pd.DataFrame)
    assert list(s.columns[:5]) == ["user_bytes", "capacity_written", "waf_window", "waf_cumulative", "erases"]
    # Windows default to a quarter of the logical capacity: 3 x capacity -> 12 windows
    # (13 when the capacity is not a multiple of 4 pages: the last one is the remainder).
    assert len(s) in (12, 13)
    assert s["capacity_written"].iloc[-1] == pytest.approx(3.0, abs=1e-3)
    assert s["user_bytes"].is_monotonic_increasing and s["erases"].is_monotonic_increasing
    # The last window's cumulative WAF is the whole measured phase's WAF.
    assert s["waf_cumulative"].iloc[-1] == pytest.approx(r.waf_total, rel=1e-12)
    h = r.victim_valid_ratio
    assert list(h.columns) == ["valid_ratio_lo", "valid_ratio_hi", "count"]
    # Every GC victim (precondition included) is in the histogram exactly once.
    assert h["count"].sum() == r.raw["precondition"]["gc_victims"] + r.raw["total"]["gc_victims"]
    m = r.memory
    assert (m["bytes"] >= 0).all() and m["bytes"].sum() > 0
    assert m["bytes"].sum() / r.raw["device"]["logical_pages"] == pytest.approx(r.raw["memory_bytes_per_lpn"])
    c = r.counts
    assert list(c.index) == ["precondition", "total", "steady_state"]
    # WAF = 1 + GC writes / user writes, recomputed from the counters.
    t = r.raw["total"]
    assert r.waf_total == pytest.approx(1 + t["gc_writes"] / t["user_writes"], rel=1e-12)
    assert r.summary()["waf"] == r.waf


def test_uniform_greedy_matches_desnoyers_model(tiny):
    tiny.update(write_volume=12.0, warmup=8.0)
    r = flashgc.run("default", "uniform", victim="greedy", **tiny)
    m = r.model
    assert m is not None and "Eq. 12" in m["model"]
    np_ = r.raw["device"]["pages_per_segment"]
    # The binding's model is the core's model, evaluated at the measured effective alpha.
    assert flashgc.model_waf("greedy", m["alpha"], np_) == m["waf"]
    # Simulated steady-state WAF within 5 % of the analytic prediction (tiny device, short run).
    assert abs(r.waf - m["waf"]) / m["waf"] < 0.05, (r.waf, m)


def test_model_waf_matches_brief_table():
    # BRIEF.md's table (Desnoyers, SYSTOR 2012) at op = 0.07.
    assert flashgc.model_waf("fifo", 1.07) == pytest.approx(7.817, abs=2e-3)
    assert flashgc.model_waf("greedy", 1.07, 64) == pytest.approx(7.001, abs=2e-3)
    assert flashgc.model_waf("random", 1.07) == pytest.approx(15.286, abs=2e-3)
    with pytest.raises(FlashgcError, match="pages_per_segment"):
        flashgc.model_waf("greedy", 1.07)
    with pytest.raises(FlashgcError, match="alpha"):
        flashgc.model_waf("fifo", 0.9)


def test_same_config_and_seed_give_identical_results(tiny):
    a = flashgc.run("default", "zipf:1.0", seed=7, **tiny)
    b = flashgc.run("default", "zipf:1.0", seed=7, **tiny)
    assert a.to_json() == b.to_json()
    c = flashgc.run("default", "zipf:1.0", seed=8, **tiny)
    assert c.raw["total"]["gc_writes"] != a.raw["total"]["gc_writes"]


def test_config_forms_are_equivalent(tmp_path, tiny):
    toml = (
        'preset = "default"\n[ftl]\nlogical_gib = 0.0625\nop = 0.1\n'
        "[device]\npages_per_block = 64\n[run]\nwrite_volume = 3.0\nseed = 3\n"
    )
    f = tmp_path / "c.toml"
    f.write_text(toml)
    as_dict = {
        "preset": "default",
        "ftl": {"logical_gib": 0.0625, "op": 0.1},
        "device": {"pages_per_block": 64},
        "run": {"write_volume": 3.0, "seed": 3},
    }
    configs = [
        flashgc.load_config(str(f)),
        flashgc.load_config(f),
        flashgc.load_config(toml),
        flashgc.load_config(as_dict),
        flashgc.load_config("default", op=0.1, seed=3, **tiny),
        flashgc.load_config(None, **{"ftl.op": 0.1, "run.seed": 3}, **tiny),
    ]
    for c in configs[1:]:
        assert c == configs[0], (c.data, configs[0].data)
    assert configs[0]["ftl"]["op"] == 0.1 and configs[0]["run"]["seed"] == 3
    # A Config goes back in unchanged, and a run from any form gives the same numbers.
    assert flashgc.load_config(configs[3]) == configs[0]
    r1 = flashgc.run(configs[0], "uniform")
    r2 = flashgc.run(as_dict, "uniform")
    assert r1.to_json() == r2.to_json()


def test_op_of_physical_replaces_op(tiny):
    c = flashgc.load_config("default", op_of_physical=0.2, **tiny)
    assert "op" not in c["ftl"] or c["ftl"]["op"] is None
    lay = c.layout()
    assert lay["op_given_as"] == "op_of_physical"
    assert lay["op_of_physical"] == pytest.approx(0.2, abs=2e-3)


def test_blocks_per_plane_replaces_a_presets_logical_gib():
    # cosmos-openssd sizes its device by logical_gib (957 GiB); a keyword blocks_per_plane
    # sizes it instead, as in a TOML file and with --blocks-per-plane.
    c = flashgc.load_config("cosmos-openssd", blocks_per_plane=16)
    assert c["ftl"].get("logical_gib") is None
    assert c["device"]["blocks_per_plane"] == 16
    assert c.layout()["logical_pages"] < flashgc.load_config("cosmos-openssd").layout()["logical_pages"]


def test_presets_and_registries():
    assert "default" in flashgc.presets() and "cosmos-openssd" in flashgc.presets()
    assert {"single", "sup-gc"} <= set(flashgc.placements())
    assert {"greedy", "fifo", "cost-benefit"} <= set(flashgc.victims())


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"op": 0.0}, r"ftl\.op.*out of range"),
        ({"placement": "nope"}, r"unknown placement scheme `nope`; known: .*sup-gc"),
        ({"victim": "d-choices:q=3"}, r"q"),
        ({"chanels": 2}, r"unknown configuration field `chanels`"),
        ({"device.chanels": 2}, r"unknown field `device\.chanels`"),
        ({"channels": "four"}, r"overrides"),
    ],
)
def test_core_errors_arrive_as_exceptions(tiny, kwargs, pattern):
    with pytest.raises(FlashgcError, match=pattern):
        flashgc.run("default", "uniform", **{**tiny, **kwargs})


def test_bad_inputs_name_the_file_and_the_choices(tmp_path, tiny):
    assert issubclass(FlashgcError, ValueError)
    bad = tmp_path / "bad.toml"
    bad.write_text("[device\nchannels = 2\n")
    with pytest.raises(FlashgcError, match=r"bad\.toml.*line 1"):
        flashgc.load_config(bad)
    with pytest.raises(FlashgcError, match="neither a preset"):
        flashgc.load_config("no-such-preset")
    with pytest.raises(FlashgcError, match=r"zipf theta 9 must be in"):
        flashgc.run("default", "zipf:9", **tiny)
    with pytest.raises(FlashgcError, match="unknown workload"):
        flashgc.run("default", "pareto", **tiny)


def test_request_table_sequential_rewrite_has_waf_one(tiny):
    cfg = flashgc.load_config("default", **tiny)
    n = cfg.layout()["logical_pages"]
    # Rewrite the whole (preconditioned) device twice, 8 pages per request, in order:
    # every victim is fully invalid, so GC moves nothing.
    lpn = np.tile(np.arange(0, n - n % 8, 8, dtype=np.uint64), 2)
    table = pd.DataFrame({"op": "W", "lpn": lpn, "pages": 8})
    r = flashgc.run(cfg, table)
    assert r.raw["ended_by"] == "workload_end"
    assert r.raw["total"]["user_writes"] == 8 * len(lpn)
    assert r.raw["total"]["gc_writes"] == 0 and r.waf_total == 1.0
    assert r.raw["total"]["erases"] > 0
    assert r.raw["workload"].startswith(f"requests ({len(lpn)} requests")


def test_request_arrays_count_reads_and_trims(tiny):
    ops = np.array([1, 1, 0, 0, 0, 2, 1], dtype=np.uint8)
    lpn = np.array([0, 100, 0, 100, 5000, 0, 7])
    pages = np.array([4, 2, 4, 2, 1, 3, 1])
    r = flashgc.run("default", np.stack([ops, lpn, pages], axis=1), **tiny)
    t = r.raw["total"]
    assert t["user_writes"] == 7 and t["reads"] == 7 and t["trims"] == 3
    # Same table as strings in a dict, and as a structured array.
    r2 = flashgc.run(
        "default", {"op": ["write", "w", "R", "read", "r", "trim", "W"], "lpn": lpn, "pages": pages}, **tiny
    )
    assert r2.raw["total"] == t
    rec = np.zeros(len(ops), dtype=[("op", "u1"), ("lpn", "u8"), ("pages", "u4")])
    rec["op"], rec["lpn"], rec["pages"] = ops, lpn, pages
    assert flashgc.run("default", rec, **tiny).raw["total"] == t


def test_request_table_errors(tiny):
    with pytest.raises(FlashgcError, match=r"row 1 \(request 2\): op 7 is not allowed"):
        flashgc.run("default", {"op": [1, 7], "lpn": [0, 1], "pages": [1, 1]}, **tiny)
    with pytest.raises(FlashgcError, match=r"row 0 \(request 1\): op 'x'"):
        flashgc.run("default", {"op": ["x"], "lpn": [0], "pages": [1]}, **tiny)
    with pytest.raises(FlashgcError, match="missing column"):
        flashgc.run("default", {"op": [1], "lpn": [0]}, **tiny)
    with pytest.raises(FlashgcError, match=r"pages 0 must be"):
        flashgc.run("default", {"op": [1], "lpn": [0], "pages": [0]}, **tiny)
    with pytest.raises(FlashgcError, match="exceed the logical capacity"):
        flashgc.run("default", {"op": [1], "lpn": [10**9], "pages": [1]}, **tiny)


def test_compare_is_a_dataframe_and_independent_of_jobs(tiny):
    kw = dict(placements=["single", "sup-gc"], victims=["greedy", "fifo"], seeds=[1, 2], **tiny)
    df = flashgc.compare("default", "hotcold:80/20", **kw)
    assert isinstance(df, pd.DataFrame) and len(df) == 8
    assert list(df["placement"]) == ["single"] * 4 + ["sup-gc"] * 4
    assert list(df["victim"]) == ["greedy", "greedy", "fifo", "fifo"] * 2
    df2 = flashgc.compare("default", "hotcold:80/20", jobs=2, **kw)
    pd.testing.assert_frame_equal(df, df2, check_exact=True)
    # Each row is what a single run gives.
    one = flashgc.run("default", "hotcold:80/20", placement="sup-gc", victim="fifo", seed=2, **tiny)
    assert df.iloc[7]["waf"] == one.waf


def test_compare_runs_explicit_scheme_pairs_in_order(tiny):
    pairs = [("midas", "fifo"), ("sepbit", "cost-benefit:sqrt"), ("single", "greedy")]
    df = flashgc.compare("default", "zipf:1.0", schemes=pairs, **tiny)
    assert list(zip(df["placement"], df["victim"])) == pairs
    # The CLI's string form and dicts give the same runs (same numbers).
    df2 = flashgc.compare(
        "default",
        "zipf:1.0",
        schemes=["midas/fifo", {"placement": "sepbit", "victim": "cost-benefit:sqrt"}, "single/greedy"],
        **tiny,
    )
    pd.testing.assert_frame_equal(df, df2, check_exact=True)
    one = flashgc.run("default", "zipf:1.0", placement="sepbit", victim="cost-benefit:sqrt", **tiny)
    assert df.iloc[1]["waf"] == one.waf


def test_scheme_pairs_parse_like_the_cli_and_reject_unknown_names():
    assert flashgc.parse_schemes("bf-gc:thresholds=4/2/1/greedy,midas:sample=1,uid_counts=sampled/fifo") == [
        ("bf-gc:thresholds=4/2/1", "greedy"),
        ("midas:sample=1,uid_counts=sampled", "fifo"),
    ]
    with pytest.raises(flashgc.FlashgcError, match="unknown victim policy .*lifo.*known: greedy"):
        flashgc.parse_schemes("midas/lifo")
    with pytest.raises(flashgc.FlashgcError, match="PLACEMENT/VICTIM"):
        flashgc.parse_schemes("midas")
    with pytest.raises(flashgc.FlashgcError, match="not both"):
        flashgc.compare("default", "uniform", schemes=[("single", "greedy")], placements=["single"])
    paper = dict(flashgc.paper_schemes())
    assert paper["midas"] == "fifo" and paper["sepbit"].startswith("cost-benefit")
    assert set(paper) == set(flashgc.placements())


def test_the_gil_is_released_while_simulating(tiny):
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        tiny["write_volume"] = 8.0
        before = counter[0]
        flashgc.run("default", "uniform", **tiny)
        during = counter[0] - before
    finally:
        stop.set()
        t.join()
    # With the GIL held for the whole call the spinning thread could not count at all.
    assert during > 1000, during


def test_result_json_round_trip(tiny):
    r = flashgc.run("default", "uniform", **tiny)
    assert json.loads(r.to_json()) == r.raw
    assert "waf=" in repr(r)


# The shared traces live beside the repository (../shared/traces), never inside it.
MSR = str(pathlib.Path(__file__).resolve().parents[2].parent / "shared/traces/msr_cambridge/msr-cambridge1-sample.csv")


@pytest.mark.skipif(not pathlib.Path(MSR).exists(), reason=f"{MSR} not present (shared traces)")
def test_trace_workload_replays_the_msr_sample(tiny):
    # traces/README.md: 1,000 requests, 492 writes of 3,580,928 bytes, 508 reads of 6,108,672.
    r = flashgc.run("default", MSR, trace_options={"remap": "compact"}, **tiny)
    t = r.raw["total"]
    assert r.raw["ended_by"] == "workload_end" and "msr" in r.raw["workload"]
    # Unaligned requests touch at most one extra 4 KiB page at each end.
    assert 3580928 / 4096 <= t["user_writes"] <= 3580928 / 4096 + 2 * 492
    assert 6108672 / 4096 <= t["reads"] <= 6108672 / 4096 + 2 * 508
    same = flashgc.run("default", "trace:" + MSR, trace_options={"remap": "compact"}, **tiny)
    assert same.to_json() == r.to_json()
    looped = flashgc.run("default", MSR, trace_options={"remap": "compact", "loop_times": 3}, **tiny)
    assert looped.raw["total"]["user_writes"] == 3 * t["user_writes"]
    with pytest.raises(FlashgcError, match="unknown option `remapp`"):
        flashgc.run("default", MSR, trace_options={"remapp": "compact"}, **tiny)
    with pytest.raises(FlashgcError, match="no such file"):
        flashgc.run("default", "trace:/nonexistent/trace.csv", **tiny)


def test_timing_layer_gives_latency_and_keeps_the_waf(tiny):
    # Foreground GC makes no timing-dependent decision: the FTL counts must not change.
    plain = flashgc.run("default", "zipf:1.0", **tiny)
    timed = flashgc.run("default", "zipf:1.0", timing={"queue_depth": 8, "checkpoint_bytes": 2**24}, **tiny)
    assert plain.timing is None and plain.latency is None
    assert timed.raw["total"] == plain.raw["total"]
    lat = timed.latency
    assert list(lat.index) == ["read", "write"] and lat.loc["write", "count"] == timed.raw["timing"]["write_requests"]
    w = lat.loc["write"]
    assert 0 < w["p50_us"] <= w["p99_us"] <= w["p999_us"] <= w["max_us"]
    ts = timed.timing_series
    assert len(ts) >= 3 and {"iops", "bandwidth_mb_s", "write_p99_us"} <= set(ts.columns)
    assert timed.summary()["write_p99_us"] == w["p99_us"]
    # Blocking GC queues nothing: no host write waits for the one GC FIFO.
    assert (timed.summary()["gc_page_waits"], timed.summary()["gc_page_wait_ops"]) == (0, 0)
    # With 16 KiB flash pages and preemptible GC, `single`'s host writes share pages with
    # GC's queued write-backs: the summary counts the waits, and a note says what they mean.
    shared = flashgc.run(
        "default", "zipf:0.8", timing={"gc_mode": "preemptible"}, **{**tiny, "page_size": 16384, "op": 0.2}
    )
    row = shared.summary()
    assert row["gc_page_waits"] == shared.raw["timing"]["gc_page_waits"] > 0
    assert row["gc_page_wait_ops"] >= row["gc_page_waits"]
    assert any(n.startswith("approximate:") and "upper bound" in n for n in shared.notes)
    with pytest.raises(FlashgcError, match="unknown parameter `qd`"):
        flashgc.run("default", "uniform", timing={"qd": 8}, **tiny)
    with pytest.raises(FlashgcError, match="gc_mode"):
        flashgc.run("default", "uniform", timing={"gc_mode": "sometimes"}, **tiny)


def test_content_aware_gc_actions_run_with_their_victims(tiny):
    # SplitGC, CAGC and DAGC are GC actions of the core FTL: plain configuration fields.
    out = {}
    for action, victim in [("move", "greedy"), ("cagc", "greedy"), ("dagc", "dagc"), ("splitgc", "splitgc")]:
        # The content mode's dup_ratio is refused under `move`, which tracks no content.
        content = {"dup_ratio": 0.3} if action != "move" else {}
        r = flashgc.run("default", "uniform", gc_action=action, victim=victim, read_ratio=0.2, **content, **tiny)
        out[action] = r
        if action == "move":
            assert "dedup" not in r.raw
        else:
            d = r.raw["dedup"]
            assert d["gc_action"].startswith(action)
            assert d["counters"]["checked_reads"] > 0
            assert 0.2 < d["measured_dup_share"] < 0.4
    # CAGC deduplicates what GC migrates: fewer GC writes than plain greedy.
    assert out["cagc"].raw["total"]["gc_writes"] < out["move"].raw["total"]["gc_writes"]
    # An unknown action is an error naming the known ones.
    with pytest.raises(FlashgcError, match="GC action"):
        flashgc.run("default", "uniform", gc_action="no-such-action", **tiny)


def test_noc_device_through_the_shared_timing_options():
    # The NoC controller is a device option of any run: selective copy-back under sup-gc,
    # percentiles in the common timing section, the model's own figures in `noc`.
    kw = dict(blocks_per_plane=16, op=0.1, placement="sup-gc")
    opts = {"device": "noc", "gc_mode": "per-die", "rate_iops": 300, "max_requests": 6000}
    conv = flashgc.run("noc-ssdc", "uniform", timing={**opts, "noc_path": "conventional"}, **kw)
    sel = flashgc.run("noc-ssdc", "uniform", timing={**opts, "noc_path": "selective"}, **kw)
    assert conv.noc["copybacks"] > 0 and conv.noc["copybacks"] == sel.noc["copybacks"]
    assert sel.noc["tasks"]["direct"] > 0 and conv.noc["tasks"]["direct"] == 0
    assert conv.raw["schema_version"] == 2 and conv.raw["ended_by"] == "requests"
    for q in ("mean_us", "p99_us", "p999_us", "p9999_us", "max_us"):
        assert sel.latency.loc["write", q] <= conv.latency.loc["write", q]
    row = sel.summary()
    assert row["noc_path"] == "selective" and row["copybacks"] == sel.noc["copybacks"]
    assert list(sel.noc_series.columns)[:3] == ["t_ms", "host_requests", "gc_tasks"]
    assert flashgc.run("default", "uniform", logical_gib=0.0625, pages_per_block=64, write_volume=1.0).noc is None
    with pytest.raises(FlashgcError, match="timing.noc_path"):
        flashgc.run("noc-ssdc", "uniform", timing={**opts, "noc_path": "sideways"}, **kw)


def test_flows_and_mapping_cache_through_the_configuration():
    flows = (
        '[[flow]]\nname = "reader"\nrw = "randrw"\nrwmixwrite = 10\niodepth = 4\nsize = "32m"\n'
        '[[flow]]\nname = "writer"\nrw = "randwrite"\niodepth = 2\noffset = "32m"\n'
    )
    base = "[device]\npages_per_block = 32\n[ftl]\nlogical_gib = 0.0625\nop = 0.15\n[run]\nwrite_volume = 1.0\n"
    r = flashgc.run(base + flows, timing={"max_requests": 4000})
    f = r.raw["flows"]
    assert [x["name"] for x in f] == ["reader", "writer"]
    assert sum(x["requests"] for x in f) == r.raw["timing"]["requests"] == 4000
    assert f[1]["read_requests"] == 0 and f[0]["read_requests"] > f[0]["write_requests"]
    # The mapping cache: one translation page of DRAM; translation writes are in the WAF.
    m = flashgc.run(base, "uniform", **{"ftl.mapping_cache": {"bytes": 4096}})
    t = m.raw["total"]["translation"]
    assert t["misses"] > 0 and t["translation_writes"] > 0
    assert m.raw["total"]["waf"] > t["waf_without_translation"]
    assert "translation" not in flashgc.run(base, "uniform").raw["total"]
    with pytest.raises(FlashgcError, match="ftl.mapping_cache.bytes"):
        flashgc.run(base, "uniform", **{"ftl.mapping_cache": {"bytes": 1 << 40}})


def test_firmware_cpu_through_the_shared_timing_options(tiny):
    # docs/cpu.md: off by default (no `cpu` section); on, the cores' report; bad values name the field.
    kw = dict(tiny, placement="bf-gc")
    off = flashgc.run("default", "zipf:1.0", timing={"queue_depth": 8}, **kw)
    on = flashgc.run("default", "zipf:1.0", timing={"queue_depth": 8, "cpu_cores": 2, "cpu_cost": "on"}, **kw)
    assert "cpu" not in off.raw["timing"]
    cpu = on.raw["timing"]["cpu"]
    assert cpu["cores"] == 2 and len(cpu["utilization"]) == 2
    assert cpu["time_ns"]["classifier"] == cpu["costs"]["classifier_ns"] * on.raw["timing"]["write_requests"] > 0
    with pytest.raises(FlashgcError, match="timing.cpu_cores"):
        flashgc.run("default", "uniform", timing={"cpu_cores": 0}, **tiny)
    with pytest.raises(FlashgcError, match="timing.cpu_ns.classifier"):
        flashgc.run("default", "uniform", timing={"cpu_ns": "classifier=-1"}, **tiny)


def test_layout_and_channel_options_through_the_shared_timing_options(tiny):
    # docs/timing.md: round-robin allocation and back-filling channels are plain timing
    # options; the same FTL work, another timing; bad values name the field.
    kw = dict(tiny, placement="sup-gc")
    base = flashgc.run("default", "zipf:1.0", timing={"queue_depth": 8}, **kw)
    other = flashgc.run(
        "default", "zipf:1.0", timing={"queue_depth": 8, "alloc": "round-robin", "channel": "backfill"}, **kw
    )
    assert other.raw["total"] == base.raw["total"]
    t = other.raw["timing"]
    assert t["params"]["alloc"] == "round-robin" and t["params"]["controller"]["channel"] == "backfill"
    assert t["backfill_dropped"] == 0 and "backfill_dropped" not in base.raw["timing"]
    with pytest.raises(FlashgcError, match="timing.channel"):
        flashgc.run("default", "uniform", timing={"channel": "lifo"}, **tiny)
    with pytest.raises(FlashgcError, match="timing.alloc"):
        flashgc.run("default", "uniform", timing={"alloc": "diagonal"}, **tiny)


def _mqsim_flow(read_percentage, queue_depth, seed):
    return (
        "<IO_Flow_Parameter_Set_Synthetic>\n<Priority_Class>HIGH</Priority_Class>\n"
        "<Channel_IDs>0,1,2,3</Channel_IDs>\n<Chip_IDs>0,1</Chip_IDs>\n<Die_IDs>0</Die_IDs>\n"
        "<Plane_IDs>0</Plane_IDs>\n<Working_Set_Percentage>80</Working_Set_Percentage>\n"
        "<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>\n"
        f"<Read_Percentage>{read_percentage}</Read_Percentage>\n"
        "<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>\n"
        "<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>\n"
        "<Address_Alignment_Unit>8</Address_Alignment_Unit>\n"
        "<Request_Size_Distribution>FIXED</Request_Size_Distribution>\n"
        f"<Average_Request_Size>8</Average_Request_Size>\n<Seed>{seed}</Seed>\n<Intensity>32768</Intensity>\n"
        f"<Average_No_of_Reqs_in_Queue>{queue_depth}</Average_No_of_Reqs_in_Queue>\n"
        "<Stop_Time>400000000</Stop_Time>\n<Total_Requests_To_Generate>0</Total_Requests_To_Generate>\n"
        "</IO_Flow_Parameter_Set_Synthetic>\n"
    )


def test_mqsim_workload_runs_its_scenario_as_flows(tmp_path):
    # MQSim's workload.xml, as the CLI's --mqsim-workload FILE --scenario N reads it: a
    # writer at queue depth 8 and a 70 %-read mix at queue depth 2, for 400 ms.
    xml = tmp_path / "workload.xml"
    xml.write_text(
        '<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n<IO_Scenario>\n'
        + _mqsim_flow(0, 8, 798)
        + _mqsim_flow(70, 2, 6533)
        + "</IO_Scenario>\n</MQSim_IO_Scenarios>\n"
    )
    dev = {"logical_gib": 0.0625, "pages_per_block": 32, "op": 0.15}
    r = flashgc.run(None, mqsim_workload=xml, scenario=1, timing={}, **dev)
    # MQSim's fields as flows: Read_Percentage 70 -> 30 % writes; Stop_Time (ns) -> runtime.
    flows = r.config.data["flow"]
    assert [(f["name"], f["iodepth"], f["runtime_ms"]) for f in flows] == [("flow0", 8, 400.0), ("flow1", 2, 400.0)]
    assert flows[1]["rwmixwrite"] == 30.0
    f = r.raw["flows"]
    assert [x["name"] for x in f] == ["flow0", "flow1"]
    assert f[0]["read_requests"] == 0 and f[0]["write_requests"] > 200
    assert f[1]["read_requests"] / f[1]["requests"] == pytest.approx(0.7, abs=0.1)
    assert r.raw["ended_by"] == "runtime"
    assert any("<Intensity> ignored" in n for n in r.raw["notes"])
    # compare: every scheme runs the scenario; the same scheme gives the same result.
    df = flashgc.compare(None, mqsim_workload=str(xml), timing={}, placements=["single", "sup-gc"], **dev)
    assert list(df["placement"]) == ["single", "sup-gc"] and (df["ended_by"] == "runtime").all()
    pd.testing.assert_frame_equal(df.iloc[[0]], pd.DataFrame([r.summary()]), check_dtype=False)
    # Bad input names the option or the file.
    with pytest.raises(FlashgcError, match="scenario 2 does not exist"):
        flashgc.run(None, mqsim_workload=xml, scenario=2, timing={}, **dev)
    with pytest.raises(FlashgcError, match="mqsim_workload"):
        flashgc.run(None, "uniform", mqsim_workload=xml, timing={}, **dev)
    with pytest.raises(FlashgcError, match="scenario"):
        flashgc.run(None, scenario=1, timing={}, **dev)
    with pytest.raises(FlashgcError, match="nonexistent.xml: cannot read the MQSim workload"):
        flashgc.run(None, mqsim_workload=tmp_path / "nonexistent.xml", timing={}, **dev)
    with pytest.raises(FlashgcError, match="already has \\[\\[flow\\]\\] sections"):
        flashgc.run(r.config, mqsim_workload=xml, timing={})


def test_a_sweep_runs_mqsim_scenarios_as_flows(tmp_path):
    # Two schemes x two IO scenarios of one MQSim workload file, in-process: each point's
    # configuration carries its scenario's flows, and each row equals flashgc.run's.
    xml = tmp_path / "workload.xml"
    scenario = "<IO_Scenario>\n" + _mqsim_flow(0, 4, 11) + "</IO_Scenario>\n"
    other = "<IO_Scenario>\n" + _mqsim_flow(70, 2, 12) + "</IO_Scenario>\n"
    xml.write_text('<?xml version="1.0"?>\n<MQSim_IO_Scenarios>\n' + scenario + other + "</MQSim_IO_Scenarios>\n")
    dev = {"logical_gib": 0.0625, "pages_per_block": 32, "op": 0.15}
    grid = {"placement": ["single", "sup-gc"], "mqsim_workload": xml, "scenario": [1, 2], "timing": {}, **dev}
    df = flashgc.sweep(grid, out=tmp_path / "out", scheduler="local")
    assert len(df) == 4 and set(df["param_scenario"]) == {1, 2}
    assert set(df["param_mqsim_workload"]) == {str(xml)}
    for _, row in df.iterrows():
        raw = json.loads(row["result_json"])
        want = flashgc.run(
            None,
            mqsim_workload=xml,
            scenario=int(row["param_scenario"]),
            timing={},
            placement=row["param_placement"],
            **dev,
        )
        assert raw["flows"] == want.raw["flows"] and raw["total"] == want.raw["total"]
    first_flow = {int(r["param_scenario"]): json.loads(r["result_json"])["flows"][0] for _, r in df.iterrows()}
    reads = {k: f["read_requests"] for k, f in first_flow.items()}
    assert reads[1] == 0 and reads[2] > 0
    with pytest.raises(FlashgcError, match="sweep point 0 .*scenario 3 does not exist"):
        flashgc.sweep(dict(grid, scenario=3), out=tmp_path / "bad", scheduler="local")


def test_midas_history_is_a_frame_of_adoptions_and_fallbacks():
    # The CLI test's run (0.25 GiB, op 0.2, zipf 0.9): one adoption whose checks start once
    # every sized group has given a victim, then a fallback naming its transition.
    r = flashgc.run(
        "default",
        "zipf:0.9",
        logical_gib=0.25,
        op=0.2,
        write_volume=10.0,
        warmup=5.0,
        placement="midas:sample=1",
        victim="fifo",
    )
    h = r.midas_history
    assert isinstance(h, pd.DataFrame)
    adopted = h[h["event"] == "first configuration"].iloc[0]
    assert adopted["capacity_written"] < adopted["checks_from"] < 10.0
    fb = h[h["event"] == "fallback"].iloc[0]
    assert fb["irregular_measured"] - fb["irregular_predicted"] >= 0.1
    assert fb["irregular_rule"].startswith("measured - predicted")
    assert flashgc.run("default", "uniform", logical_gib=0.25, write_volume=2.0).midas_history is None


def test_trace_flushes_reach_the_write_cache_unless_ignored(tiny, tmp_path):
    # Eight blkparse writes and a flush (`D FN`): with a write cache the flush programs
    # the eight pages; `flushes: ignore` leaves them cached (docs/traces.md).
    lines = [f"  8,0 0 {i} 0.{i:09d} 1 D W {8 * i} + 8 [a]" for i in range(8)]
    lines.append("  8,0 0 9 0.000001000 1 D FN [a]")
    trace = tmp_path / "f.blkparse.txt"
    trace.write_text("\n".join(lines) + "\n")
    timing = {"cache_pages": 64}
    r = flashgc.run("default", f"trace:{trace}", timing=timing, **tiny)
    assert r.raw["timing"]["flushes"] == 1
    assert r.raw["total"]["user_writes"] == 8
    assert "1 flushes" in r.raw["workload"]
    ignored = flashgc.run("default", f"trace:{trace}", timing=timing, trace_options={"flushes": "ignore"}, **tiny)
    assert ignored.raw["total"]["user_writes"] == 0
    assert ignored.raw["timing"]["cache"]["dirty_at_end"] == 8
    with pytest.raises(FlashgcError, match="allowed: replay, ignore"):
        flashgc.run("default", f"trace:{trace}", trace_options={"flushes": "never"}, **tiny)


def test_run_draws_a_progress_bar_on_a_terminal_only(python_exe):
    # `script` gives the child a terminal; the bar is drawn there unless progress=False,
    # and never into a pipe (the default off a terminal).
    script = shutil.which("script")
    if script is None:
        pytest.skip("no `script` (util-linux) to give the run a terminal")
    code = (
        "import flashgc; flashgc.run('default', 'uniform', logical_gib=0.0625, pages_per_block=64, write_volume=16{})"
    )
    for extra, drawn in [("", True), (", progress=False", False)]:
        cmd = f'{python_exe} -c "{code.format(extra)}"'
        out = subprocess.run([script, "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert (" pages " in out.stdout and "WAF " in out.stdout) == drawn, (extra, out.stdout)
    piped = subprocess.run([python_exe, "-c", code.format("")], capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr
