"""Arguments the Python API used to take silently, or refuse with an error from deep inside
the package naming no argument (second audit of the Python package): each is refused with
a message naming the argument, field, column or row."""

import numpy as np
import pandas as pd
import pytest

import flashgc
from flashgc import FlashgcError

from .conftest import TINY

# --- configurations --------------------------------------------------------------------


def test_nan_in_a_config_file_is_refused_with_overrides_too():
    # JSON has no NaN: with overrides the value turned into null and ran as the default op.
    text = "[ftl]\nop = nan\n"
    for kw in ({}, {"seed": 2}):
        with pytest.raises(FlashgcError, match=r"`ftl.op`: NaN is not a finite number"):
            flashgc.load_config(text, **kw)
    with pytest.raises(FlashgcError, match=r"`run.read_ratio`: inf is not a finite number"):
        flashgc.run("[run]\nread_ratio = inf\n", "uniform", **TINY)


def test_a_dotted_override_below_a_field_names_it():
    with pytest.raises(FlashgcError, match=r"override `ftl.op.x`: `ftl.op` is a field, not a section"):
        flashgc.load_config("default", **{"ftl.op.x": 1})
    with pytest.raises(FlashgcError, match=r"`ftl.op` is a field, not a section"):
        flashgc.load_config("default", op=0.1, **{"ftl.op.x": 1})
    # An optional section (unset in the base) given a value and a field below it.
    with pytest.raises(FlashgcError, match=r"`ftl.mapping_cache` is a field given its own value"):
        flashgc.load_config("default", **{"ftl.mapping_cache": 5, "ftl.mapping_cache.entries": 1})
    with pytest.raises(FlashgcError, match="an empty name between dots"):
        flashgc.load_config("default", **{"run..seed": 1})


def test_a_section_given_a_value_says_it_is_a_section():
    # It said "unknown configuration field `device`".
    with pytest.raises(FlashgcError, match="`device` is a section of the configuration"):
        flashgc.load_config("default", device=5)
    with pytest.raises(TypeError, match="`run.workload`: bytes are not a configuration value"):
        flashgc.load_config("default", workload=b"uniform")


def test_a_config_path_that_is_no_text_file_is_named(tmp_path):
    with pytest.raises(FlashgcError, match="is a directory, not a TOML file"):
        flashgc.load_config(tmp_path)
    binary = tmp_path / "b.toml"
    binary.write_bytes(b"[ftl]\nop = 0.1\n\xff\xfe\n")
    with pytest.raises(FlashgcError, match=r"b.toml`: line 3: not UTF-8 text \(byte 0xff"):
        flashgc.load_config(binary)
    with pytest.raises(TypeError, match="config's `preset` must be a preset name"):
        flashgc.load_config({"preset": 5})


def test_config_getitem_lists_the_sections():
    with pytest.raises(KeyError, match="'nope' is not a section of the configuration; sections: .*ftl"):
        flashgc.load_config("default")["nope"]


# --- request tables ---------------------------------------------------------------------


def _table(**cols):
    n = 8
    base = {"op": np.ones(n, dtype=np.uint8), "lpn": np.arange(n), "pages": np.ones(n, dtype=np.int64)}
    base.update(cols)
    return base


@pytest.mark.parametrize(
    "col, values, message",
    [
        # Cast to u64 without a word: a float beyond 2^64 became 0 or u64::MAX.
        ("lpn", np.full(8, 1e30), r"column `lpn`: row 0 \(request 1\): 1e\+30 is not a whole number in 0..=2\^64-1"),
        ("pages", np.full(8, 1e20), r"column `pages`: row 0 \(request 1\): 1e\+20"),
        ("lpn", np.arange(8) + 0j, "column `lpn` of dtype complex128 is not allowed"),
        ("lpn", np.arange(8).astype("datetime64[s]"), "column `lpn` of dtype datetime64"),
        ("lpn", np.ones(8, dtype=bool), "column `lpn` of dtype bool is not allowed"),
        ("lpn", np.array([*range(7), 2**70], dtype=object), r"row 7 \(request 8\): 1180591620717411303424 "),
        ("lpn", np.array(["0", "a"] * 4), "column `lpn` of dtype <U1 is not allowed"),
        ("content", [None] * 8, r"column `content`: row 0 \(request 1\): None is not a whole number"),
        ("lpn", np.array([0, 1, -3, 3, 4, 5, 6, 7]), r"row 2 \(request 3\): -3 is negative"),
        ("op", np.ones((8, 1), dtype=np.uint8), r"column `op` has shape \(8, 1\)"),
        ("op", 1, r"column `op` has shape \(\)"),
    ],
)
def test_request_columns_are_checked_not_cast(col, values, message):
    with pytest.raises(FlashgcError, match=message):
        flashgc.run("default", _table(**{col: values}), **TINY)


def test_request_table_odd_shapes_are_named():
    t = _table()
    t[5] = np.zeros(8)
    with pytest.raises(FlashgcError, match="unknown column.*5"):
        flashgc.run("default", t, **TINY)
    with pytest.raises(FlashgcError, match="a tuple of columns must be .* got 2 items"):
        flashgc.run("default", (t["op"], t["lpn"]), **TINY)
    # Whole-number objects and floats are still taken, as numbers.
    ok = _table(lpn=np.arange(8, dtype=object), pages=np.ones(8))
    assert flashgc.run("default", ok, **TINY).raw["total"]["user_writes"] == 8


def test_core_rows_and_python_rows_name_the_same_request():
    with pytest.raises(FlashgcError, match=r"row 3 \(request 4\): op 7"):
        flashgc.run("default", _table(op=np.array([1, 1, 1, 7, 1, 1, 1, 1])), **TINY)


# --- trace options ----------------------------------------------------------------------


def test_trace_options_are_refused_where_no_trace_is_read():
    with pytest.raises(FlashgcError, match="trace_options: .* the workload is the synthetic `uniform`"):
        flashgc.run("default", "uniform", trace_options={"remap": "compact"}, **TINY)
    with pytest.raises(FlashgcError, match="the workload is a request table"):
        flashgc.run("default", _table(), trace_options={"loop_times": 2}, **TINY)
    # No option given is no option ignored.
    assert flashgc.run("default", "uniform", trace_options={"remap": None}, **TINY).waf > 0


def test_trace_option_errors_name_the_python_keys(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,0,Write,0,4096,100\n")
    with pytest.raises(FlashgcError, match=r"^trace_options: `remap`: `x`; allowed: none"):
        flashgc.run("default", trace, trace_options={"remap": "x"}, **TINY)
    with pytest.raises(FlashgcError, match=r"^trace_options: `loop_until`: 1e300: a multiple"):
        flashgc.run("default", trace, trace_options={"loop_until": 1e300}, **TINY)


# --- other arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (("fifo", "1.07"), "alpha must be a number, not str"),
        (("fifo", None), "alpha must be a number, not NoneType"),
        (("greedy", 1.07, "64"), "pages_per_segment must be a number"),
        (("fifo", 1.07, None, (0.8,)), r"hot must be a pair \(r, f\)"),
        (("fifo", 1.07, None, "ab"), r"hot must be a pair \(r, f\)"),
        ((5, 1.07), "victim must be a policy name"),
    ],
)
def test_model_waf_names_a_wrong_argument(args, message):
    with pytest.raises(TypeError, match=message):
        flashgc.model_waf(*args)


def test_model_waf_takes_a_list_for_hot():
    assert flashgc.model_waf("fifo", 1.07, None, [0.8, 0.2]) == flashgc.model_waf("fifo", 1.07, None, (0.8, 0.2))


def test_misc_arguments_are_named():
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        flashgc.run("default", "uniform", progress="yes", **TINY)
    with pytest.raises(TypeError, match="summary_row takes a run result dict"):
        flashgc.summary_row(None)
    with pytest.raises(FlashgcError, match="not a flashgc run result: missing steady_state"):
        flashgc.summary_row({})
    with pytest.raises(TypeError, match="grid must be a mapping"):
        flashgc.sweep(5)
    with pytest.raises(TypeError, match="schemes must be a"):
        flashgc.parse_schemes(5)
    with pytest.raises(TypeError, match="seeds must be an integer or a list of integers, not str"):
        flashgc.compare("default", "uniform", seeds="12", **TINY)
    with pytest.raises(FlashgcError, match=r"placements: `single,sup-gc` is one string; .* \['single', 'sup-gc'\]"):
        flashgc.compare("default", "uniform", placements="single,sup-gc", **TINY)
    with pytest.raises(TypeError, match="placements must be a scheme name or a list"):
        flashgc.compare("default", "uniform", placements=5, **TINY)


def test_an_mqsim_scenario_beyond_64_bits_is_refused(tmp_path):
    xml = tmp_path / "w.xml"
    xml.write_text("<MQSim_IO_Scenarios></MQSim_IO_Scenarios>")
    with pytest.raises(FlashgcError, match="IO scenarios are numbered from 1"):
        flashgc.run(None, mqsim_workload=xml, scenario=2**64, timing={}, **TINY)


def test_pandas_nullable_integers_still_work():
    df = pd.DataFrame(_table()).astype({"lpn": "Int64"})
    assert flashgc.run("default", df, **TINY).raw["total"]["user_writes"] == 8


# --- sweep files --------------------------------------------------------------------------


def test_sweep_file_errors_name_the_file_and_line(tmp_path):
    f = tmp_path / "s.toml"
    base = "[base]\nlogical_gib = 0.0625\npages_per_block = 32\nwrite_volume = 0.3\n"
    f.write_text(base + '[grid]\nseed = [1]\nop = [0.1, "x"]\n')
    with pytest.raises(FlashgcError, match=r"s\.toml: line 7: `grid\.op`: sweep point 1 .*`ftl\.op`"):
        flashgc.sweep_from_file(f, out=str(tmp_path / "r.parquet"), progress=False)
    f.write_text(base + '[grid]\nplacement = ["single", "nope"]\n')
    with pytest.raises(FlashgcError, match=r"s\.toml: line 6: `grid\.placement`: .*`nope`"):
        flashgc.sweep_from_file(f, out=str(tmp_path / "r.parquet"), progress=False)
    f.write_text("workers = 0\n[grid]\nop = [0.1]\n")
    with pytest.raises(FlashgcError, match=r"s\.toml: line 1: `workers` must be"):
        flashgc.sweep_from_file(f)
    f.write_bytes(b"[grid]\nop = [0.1]\n\xff\n")
    with pytest.raises(FlashgcError, match=r"s\.toml: line 3: not UTF-8 text"):
        flashgc.sweep_from_file(f)
    with pytest.raises(FlashgcError, match="is a directory, not a sweep file"):
        flashgc.sweep_from_file(tmp_path)
    with pytest.raises(FlashgcError, match="nope.toml: cannot be read"):
        flashgc.sweep_from_file(tmp_path / "nope.toml")


def test_report_inputs_are_named(tmp_path):
    from flashgc.report import load_results

    bad = tmp_path / "bad.json"
    bad.write_text('{"a":')
    with pytest.raises(ValueError, match=r"bad\.json: line 1: not valid JSON"):
        load_results(bad)
    other = tmp_path / "other.json"
    other.write_text("{}")
    with pytest.raises(FlashgcError, match=r"other\.json: summary_row: not a flashgc run result"):
        load_results(other)
    with pytest.raises(FlashgcError, match=r"other\.json: summary_row"):
        load_results(iter([str(other)]))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="empty: no results in it"):
        load_results(empty)


def test_a_workload_beside_flow_sections_is_refused():
    # The flows replace run.workload; a workload given beside them ran instead of the
    # flows (while the CLI ran the flows and dropped --workload).
    flows = '[[flow]]\nname = "a"\nrw = "randwrite"\nbs = 4096\niodepth = 4\n'
    cfg = flashgc.load_config(flows, **TINY)
    with pytest.raises(FlashgcError, match=r"workload `uniform`: the configuration's 1 \[\[flow\]\] section"):
        flashgc.run(cfg, "uniform", timing={})
    with pytest.raises(FlashgcError, match=r"workload a request table: the configuration's 1"):
        flashgc.run(cfg, _table(), timing={})
    assert len(flashgc.run(cfg, timing={}).raw["flows"]) == 1


def test_synthetic_fields_are_refused_where_no_synthetic_workload_runs(tmp_path):
    # read_ratio and request_pages were dropped without a word for traces, request tables
    # and flows.
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,0,Write,0,4096,100\n")
    with pytest.raises(FlashgcError, match=r"^read_ratio: synthetic workloads only; the workload is the trace"):
        flashgc.run("default", trace, read_ratio=0.5, **TINY)
    with pytest.raises(FlashgcError, match=r"run.request_pages: synthetic workloads only; .* a request table"):
        flashgc.run("default", _table(), **{"run.request_pages": 4}, **TINY)
    with pytest.raises(FlashgcError, match="sweep point 0 .*read_ratio: synthetic workloads only"):
        flashgc.sweep({"read_ratio": [0.5]}, base=dict(TINY, workload=f"trace:{trace}"), out=str(tmp_path / "r"))
    assert flashgc.run("default", "uniform", read_ratio=0.5, **TINY).raw["total"]["reads"] > 0


def test_timing_options_of_a_mode_that_is_off_are_refused():
    with pytest.raises(FlashgcError, match=r"`timing.gcar_window`: applies to the GCaR write-cache policy only"):
        flashgc.run("default", "uniform", timing={"gcar_window": 5}, **TINY)
    with pytest.raises(FlashgcError, match=r"`timing.bg_free`: applies to proactive GC only"):
        flashgc.run("default", "uniform", timing={"bg_free": 3, "gc_mode": "preemptible"}, **TINY)
    r = flashgc.run("default", "uniform", timing={"bg_free": 3, "gc_mode": "background"}, **TINY)
    assert r.timing is not None


def test_content_fields_without_content_mode_are_refused():
    with pytest.raises(FlashgcError, match="dup_ratio: options of the content mode, which the GC action `move`"):
        flashgc.run("default", "uniform", dup_ratio=0.9, **TINY)
    r = flashgc.run("default", "uniform", dup_ratio=0.9, gc_action="cagc", **TINY)
    assert r.raw["total"]["user_writes"] > 0
