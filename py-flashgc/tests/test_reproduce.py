"""`flashgc reproduce`: claim files, verdict rules, and a quick reproduction of every paper
whose verdicts must equal the ones docs/reproduce.md states (a change that flips a verdict
fails here; update the docs with `python -m flashgc.reproduce.docs` when it is meant)."""

import json
import math
import os
import re
import subprocess

import pytest

from flashgc.reproduce import PAPERS, load_claims, reproduce
from flashgc.reproduce.claims import CANNOT, CONTRADICTS, DIRECTION, HOLDS, Claim, evaluate, judge
from flashgc.reproduce.core import plan
from flashgc.reproduce.docs import stated_no_gc, stated_verdicts
from flashgc.reproduce.papers.common import APP_TRACES_ENV, traces_dir
from flashgc.reproduce.runner import Capabilities, find_binary

from . import browser
from .conftest import ROOT

DOC = os.path.join(ROOT, "docs", "reproduce.md")


@pytest.fixture(autouse=True)
def no_recorded_app_traces(tmp_path_factory, monkeypatch):
    """The documented quick verdicts are those of a machine without recorded application
    traces (sup-gc Figs. 19-20 cannot run there): a recording in the user's cache
    (~/.cache/flashgc/app-traces) must not change what these tests compare.
    tests/test_app_traces.py runs them from a recording of its own."""
    monkeypatch.setenv(APP_TRACES_ENV, str(tmp_path_factory.mktemp("no-app-traces")))


@pytest.fixture(scope="module")
def binary():
    try:
        return find_binary()
    except FileNotFoundError as e:  # the test scripts build it first
        pytest.fail(str(e))


@pytest.fixture(scope="module")
def caps(binary):
    return Capabilities(binary)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return str(tmp_path_factory.mktemp("reproduce"))


def _claim(**kw):
    base = dict(
        id="x",
        paper="p",
        figure="Fig. 1",
        kind="change",
        metric="m",
        setting="s",
        quote="q",
        a="a",
        b="b",
        tolerance=5.0,
        noise=1.0,
    )
    base.update(kw)
    return Claim(**base)


def test_verdict_rules():
    c = _claim(value=-30.0, tolerance=9.0)
    assert judge(c, -25.0)[0] == HOLDS
    assert judge(c, -60.0)[0] == DIRECTION
    assert judge(c, 10.0)[0] == CONTRADICTS
    assert judge(c, -0.5)[0] == CONTRADICTS  # no effect where the paper reports one
    eq = _claim(value=0.0, tolerance=2.0)
    assert judge(eq, 1.5)[0] == HOLDS and judge(eq, -3.0)[0] == CONTRADICTS
    sign = _claim(sign="+")
    assert judge(sign, 4.0)[0] == HOLDS and judge(sign, -4.0)[0] == CONTRADICTS
    small = _claim(value=-0.4, tolerance=5.0)  # the paper's own effect is below the noise level
    assert judge(small, -0.1)[0] == HOLDS
    val = _claim(kind="value", value=714.0, tolerance=1.0, unit="us")
    assert judge(val, 713.79)[0] == HOLDS and judge(val, 700.0)[0] == CONTRADICTS


def test_evaluate_changes_ranges_orders_and_missing():
    data = {
        ("a1", "m"): 60.0,
        ("b1", "m"): 100.0,
        ("a2", "m"): 45.0,
        ("b2", "m"): 100.0,
        ("k1", "m"): -30.0,
        ("k2", "m"): -10.0,
        ("k3", "m"): -20.0,
        ("z", "m"): 5.0,
        ("zero", "m"): 0.0,
    }

    def metric(key, name):
        if (key, name) not in data:
            from flashgc.reproduce.claims import Missing

            raise Missing(f"needs {key}")
        return data[(key, name)]

    rng = _claim(a="a{w}", b="b{w}", over=[{"w": "1"}, {"w": "2"}], aggregate="all", range=(-67.0, -38.0))
    v = evaluate(rng, metric)
    assert v.verdict == HOLDS and v.values == pytest.approx({"1": -40.0, "2": -55.0})
    mean = _claim(a="a{w}", b="b{w}", over=[{"w": "1"}, {"w": "2"}], aggregate="mean", value=-47.5)
    assert evaluate(mean, metric).verdict == HOLDS
    order = _claim(kind="order", keys=["k1", "k3", "k2"], order="ascending")
    assert evaluate(order, metric).verdict == HOLDS
    order2 = _claim(kind="order", keys=["k2", "k3", "k1"], order="ascending")
    assert evaluate(order2, metric).verdict == CONTRADICTS
    assert evaluate(_claim(a="a1", b="nope", value=-40.0), metric).verdict == CANNOT
    up = evaluate(_claim(a="z", b="zero", sign="-"), metric)  # against zero: unbounded increase
    assert up.verdict == CONTRADICTS and math.isinf(up.value)
    assert evaluate(_claim(needs="a trace that is not public", value=1.0), metric).verdict == CANNOT


@pytest.mark.parametrize("paper", list(PAPERS))
def test_claim_files_refer_to_cases_that_exist(paper, caps):
    header, claims = load_claims(paper)
    assert header["source"].startswith("papers/") and claims
    base, _ = plan(PAPERS[paper], "full", caps)
    for c in claims:
        assert c.quote and c.setting and c.figure
        if c.needs or (c.needs_feature and caps.feature(c.needs_feature)):
            continue  # cannot run yet; once the feature lands, its cases must exist (this test says so)
        for k in c.case_keys():
            assert k in base.cases, f"{paper} claim {c.id}: no case `{k}`"


#: Papers whose quick cases read ../shared/traces (the project never copies them).
NEEDS_TRACES = {"splitgc", "midas"}


@pytest.mark.parametrize("paper", list(PAPERS))
def test_quick_reproduction_gives_the_documented_verdicts(paper, out):
    if paper in NEEDS_TRACES and not os.path.isdir(traces_dir()):
        pytest.skip(f"the shared traces folder {traces_dir()} is absent (set FLASHGC_TRACES)")
    expected = stated_verdicts(DOC, paper, "quick")
    assert expected, f"docs/reproduce.md has no quick block for {paper}"
    res = reproduce(paper, scale="quick", out=out, progress=False, report=False)[paper]
    got = {c["id"]: c["verdict"] for c in res["claims"]}
    assert set(got) == set(expected), "claims differ from docs/reproduce.md: " + str(set(got) ^ set(expected))
    flipped = {k: (expected[k], got[k]) for k in got if got[k] != expected[k]}
    assert not flipped, f"{paper}: verdicts differ from docs/reproduce.md (doc, now): {flipped}"
    assert res["failed"] == []
    # Every case garbage-collects, except those the docs name (e.g. the paper's own no-GC points).
    assert sorted(res["no_gc"]) == sorted(stated_no_gc(DOC, paper) or [])
    with open(os.path.join(out, f"{paper}.json"), encoding="utf-8") as f:
        assert json.load(f)["counts"] == res["counts"]


def test_cli_resumes_and_writes_the_report(binary, out, python_exe):
    env = dict(os.environ, FLASHGC_PYTHON=python_exe)
    cmd = [binary, "reproduce", "noc", "--scale", "quick", "-o", out, "-q", "--json"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    # Again on the same directory: every case is in the dataset, nothing reruns, same verdicts.
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    assert json.loads(first.stdout)["noc"]["claims"] == json.loads(p.stdout)["noc"]["claims"]
    res = json.loads(p.stdout)["noc"]
    assert res["machine"]["ran_now"] == 0  # every case was in the dataset already
    html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    assert '<h2 id="noc">' in html and html.count("<figure") >= 4
    assert os.path.exists(os.path.join(out, "figures", "noc", "noc-table4.svg"))
    bad = subprocess.run([binary, "reproduce", "nosuch"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "unknown paper" in bad.stderr


def test_no_gc_run_is_reported(out):
    res = json.load(open(os.path.join(out, "sup-gc.json"), encoding="utf-8"))
    # The paper's 1 % write point never collects; the output says so instead of hiding it.
    assert "w1/cosmos" in res["no_gc"]
    assert all(re.match(r"^(seq|w1)/", k) for k in res["no_gc"])


@pytest.mark.skipif(not browser.available(), reason=f"{browser.CHROMIUM} not found (scripts/install-chromium.sh)")
def test_report_loads_in_headless_chromium(out, binary, python_exe):
    html_path = os.path.join(out, "report.html")
    if not os.path.exists(html_path):  # the CLI test writes it; run alone, write it here
        env = dict(os.environ, FLASHGC_PYTHON=python_exe)
        subprocess.run([binary, "reproduce", "noc", "-o", out, "-q"], env=env, check=True, timeout=600)
    loaded = browser.load(html_path)
    assert loaded["returncode"] == 0 and loaded["console"] == [], loaded["console"]
    body = re.search(r"<body[^>]*>", loaded["dom"]).group(0)
    n = re.search(r'data-figures="(\d+)/(\d+)"', body)
    assert n and n.group(1) == n.group(2) and int(n.group(2)) >= 4, body


def test_histogram_percentiles():
    from flashgc.reproduce.papers.common import hist_percentile, merged_histogram

    r = 10 ** (1 / 20)
    up = 1000.0
    h = merged_histogram([[up, 60]], [[up, 40], [up * r, 100]])
    assert h == [[up, 100], [up * r, 100]]
    # Half of the requests are in the first bin: the median is its upper edge.
    assert hist_percentile(h, 0.5) == pytest.approx(up)
    # A quarter: halfway through the first bin on a log scale.
    assert hist_percentile(h, 0.25) == pytest.approx(up / r * r**0.5)
    assert hist_percentile(h, 1.0) == pytest.approx(up * r)


# --- a fixture paper: deliberately contradicted claims, a case that cannot run, resumption ---

FIXTURE_CLAIMS = """
paper = "fixture"
title = "fixture"
source = "papers/none.txt"

[[claim]]
id = "fifo-beats-greedy"
figure = "Fig. 1"
kind = "change"
metric = "waf"
a = "uniform/fifo"
b = "uniform/greedy"
sign = "-"
setting = "uniform random writes: the opposite of what every model says (greedy copies less)"
quote = "deliberately wrong"

[[claim]]
id = "greedy-beats-fifo"
figure = "Fig. 1"
kind = "change"
metric = "waf"
a = "uniform/fifo"
b = "uniform/greedy"
sign = "+"
setting = "uniform random writes, FIFO against greedy"
quote = "the right direction"

[[claim]]
id = "fifo-waf-is-1"
figure = "Fig. 1"
kind = "value"
metric = "waf"
a = "uniform/fifo"
paper = 1.0
tolerance = 0.05
setting = "a WAF no GC at 7 % op can reach"
quote = "deliberately wrong"

[[claim]]
id = "bad-command"
figure = "Fig. 2"
kind = "change"
metric = "waf"
a = "uniform/nosuch"
b = "uniform/greedy"
sign = "-"
setting = "a case whose command flashgc rejects"
quote = "cannot run"

[[claim]]
id = "missing-baseline"
figure = "Fig. 2"
kind = "change"
metric = "waf"
a = "uniform/later"
b = "uniform/greedy"
sign = "-"
setting = "a case that needs a baseline this build does not have"
quote = "cannot run"
"""


def _fixture_paper():
    from flashgc.reproduce.papers.midas import Midas
    from flashgc.reproduce.runner import Case, Need

    class Fixture(Midas):
        name = "fixture"

        def sensitivity(self, scale):
            return {"op": [0.28]}

        def sensitivity_filter(self, key, scale):
            return True

        def cases(self, s, caps):
            dev = [*self._common(s), "--logical-gib", "0.0625", "--pages-per-block", "32", "--workload", "uniform"]
            vol = ["--write-volume", "4", "--warmup", "2"]

            def case(key, scheme, needs=()):
                argv = [*dev, *vol, "--placement", "single", "--victim", scheme, "--json"]
                return Case(f"uniform/{key}", "Fig. 1", "run", argv, {"scheme": key}, list(needs))

            return [
                case("greedy", "greedy"),
                case("fifo", "fifo"),
                case("nosuch", "no-such-victim"),
                case("later", "greedy", [Need("placement:not-yet-landed", "the NotYet baseline (issue 99)")]),
            ]

    return Fixture()


def test_features_the_build_has_are_detected(caps):
    """A claim that needs a feature runs once the build has it: the detection must look for
    what the CLI really offers (the NoC read claims once looked for a `--priorities` flag
    that never existed, and said "cannot run" after the task queues had landed)."""
    assert caps.feature("noc-priorities") is None
    assert caps.feature("cpu-cost") is None
    # bf-gc's warm-up phase: a job file's stonewall groups (it once looked for a `--flow` flag).
    assert caps.feature("fio-warmup") is None
    # Each check reads the CLI: a value the flag does not list is not detected.
    assert not caps.has("choice:noc:--scheduler:no-such-scheduler")
    assert not caps.has("mention:fio:--job:no-such-option")


def _sections(job: str) -> list:
    """[(section, {option: value})] of a fio job file, in order."""
    out: list = []
    for line in job.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("["):
            out.append((line.strip("[]"), {}))
        else:
            k, _, v = line.partition("=")
            out[-1][1][k.strip()] = v.strip()
    return out


def test_bf_gc_warms_up_in_a_phase_of_its_own_and_measures_after_it(caps, binary):
    """Sec. 4.3: 1 TB written to reach GC's steady state, then 300 GB measured. The warm-up
    is a random-write group before the measured randrw job, and every metric is of the
    measured phase (the old single job at 1 % writes hardly wrote in its 'warm-up')."""
    from flashgc.reproduce.papers.bf_gc import JOBS, WARMUP_GB
    from flashgc.reproduce.runner import execute_case

    paper = PAPERS["bf-gc"]
    s = paper.settings("quick")
    case = next(c for c in paper.cases(s, caps) if c.key == "w1/cosmos")
    ((name, job),) = case.files.items()
    assert case.argv[case.argv.index("--job") + 1] == name and "--data-gb" not in case.argv
    (g, glob), (w, warm), (m, meas) = _sections(job)
    assert (g, w, m) == ("global", "warmup", "measured")
    assert warm["rw"] == "randwrite" and "stonewall" not in warm
    assert meas["rw"] == "randrw" and meas["rwmixwrite"] == "1" and "stonewall" in meas
    gb = case.labels["gb_bytes"]
    jobs = int(glob["numjobs"])
    assert jobs == JOBS and int(warm["io_size"]) * jobs == pytest.approx(WARMUP_GB * gb)
    assert int(meas["io_size"]) * jobs == pytest.approx(300 * gb)
    # The sensitivity variant warms up with the measured job itself.
    same = next(c for c in paper.cases(dict(s, warmup="same-job"), caps) if c.key == "w1/cosmos")
    assert _sections(next(iter(same.files.values())))[1][1]["rw"] == "randrw"

    row = execute_case(
        {"run_id": "x", "binary": binary, "argv": case.argv, "paper": "bf-gc", "key": case.key, "files": case.files}
    )
    assert row["status"] == "ok", row.get("error")
    raw = json.loads(row["result_json"])
    r = raw[0]
    series = r["timing"]["series"]
    end = next(p for p in series if p["data_bytes"] == int(warm["io_size"]) * jobs)
    flows = [f for f in r["flows"] if f["name"].startswith("measured.")]
    assert len(flows) == jobs
    # The measured job starts at the warm-up's last completion: the point at its end.
    assert all(f["start_ns"] == round(end["time_s"] * 1e9) for f in flows)
    met = paper.metrics(case, raw)
    last = series[-1]
    assert met["erases@300"] == last["erases"] - end["erases"] == met["erases"]
    assert met["gc_moves"] == last["gc_page_moves"] - end["gc_page_moves"]
    # The warm-up's erases are in the run's total, not in the measured phase's.
    assert 0 < met["erases"] < r["total"]["erases"] and end["erases"] > 0
    # The phase's IOPS from its flows' own request counts over its span.
    reqs = sum(f["requests"] for f in flows)
    assert met["iops"] == pytest.approx(reqs / (last["time_s"] - end["time_s"]), rel=1e-6)
    assert met["gc_active"] == 1.0


def _run_fixture(tmp_path, binary, caps, only=None):
    from flashgc.reproduce.core import reproduce_paper
    from flashgc.reproduce.runner import build_id

    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "fixture.toml"
    path.write_text(FIXTURE_CLAIMS)
    res, _ = reproduce_paper(
        _fixture_paper(), "quick", str(tmp_path), caps, binary, build_id(binary), "local", 1, False, str(path), only
    )
    return res


def test_contradicted_and_unrunnable_claims_are_reported(tmp_path, binary, caps):
    res = _run_fixture(tmp_path, binary, caps)
    v = {c["id"]: c for c in res["claims"]}
    # The opposite direction and an impossible value contradict; nothing tunes them away.
    assert v["fifo-beats-greedy"]["verdict"] == CONTRADICTS, v["fifo-beats-greedy"]
    assert v["fifo-beats-greedy"]["detail"] == "the other direction"
    assert v["fifo-waf-is-1"]["verdict"] == CONTRADICTS
    assert v["greedy-beats-fifo"]["verdict"] == HOLDS and v["greedy-beats-fifo"]["value"] > 1.0
    # A rejected command and a missing baseline: `cannot run`, each with its reason.
    assert v["bad-command"]["verdict"] == CANNOT
    assert "flashgc failed on uniform/nosuch" in v["bad-command"]["detail"]
    assert "no-such-victim" in v["bad-command"]["detail"]
    assert v["missing-baseline"]["verdict"] == CANNOT
    assert v["missing-baseline"]["detail"] == "needs the NotYet baseline (issue 99)"
    assert [f["key"] for f in res["failed"]] == ["uniform/nosuch"]
    assert res["counts"] == {HOLDS: 1, DIRECTION: 0, CONTRADICTS: 2, CANNOT: 2}
    # The deciding-setting column and the variant each claim ran.
    # Greedy copies less than FIFO at 28 % op too: no swept value changes the verdict.
    assert v["fifo-beats-greedy"]["deciding"] == "none of op"
    assert v["missing-baseline"]["deciding"] == "—"
    assert v["greedy-beats-fifo"]["ran"] == {"uniform/fifo": "single/fifo", "uniform/greedy": "single/greedy"}


def test_interrupted_reproduction_resumes_without_redoing_finished_cases(tmp_path, binary, caps, monkeypatch):
    from flashgc.reproduce import runner

    real = runner.execute_case
    calls = []

    def interrupted(task):
        calls.append(task["key"])
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the second case runs
        return real(task)

    monkeypatch.setattr(runner, "execute_case", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run_fixture(tmp_path, binary, caps)
    monkeypatch.setattr(runner, "execute_case", real)
    stored = sorted(p.name for p in (tmp_path / "runs").iterdir() if p.suffix == ".parquet")
    assert len(stored) == 1, stored  # the first case finished and was written
    mtime = (tmp_path / "runs" / stored[0]).stat().st_mtime_ns
    res = _run_fixture(tmp_path, binary, caps)
    plan_ = res["runs"]  # runnable cases at the base and the sweep point
    # Everything but the finished case ran now (the rejected command is never stored).
    assert res["machine"]["ran_now"] == plan_ - 1
    assert (tmp_path / "runs" / stored[0]).stat().st_mtime_ns == mtime
    again = _run_fixture(tmp_path, binary, caps)
    # Only the rejected command retries (at the base and at the sweep point).
    assert again["machine"]["ran_now"] == 2
    assert again["claims"] == res["claims"]


def test_list_prints_every_claim_and_runs_nothing(tmp_path, capsys, monkeypatch):
    from flashgc.__main__ import main

    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "all", "--list"]) == 0
    text = capsys.readouterr().out
    for name in PAPERS:
        header, claims = load_claims(name)
        assert f"== {name}: {header['title']} ({header['source']}): {len(claims)} claims" in text
        for c in claims:
            assert re.search(rf"^  {re.escape(c.id)} +{re.escape(c.figure)} +paper ", text, re.M), c.id
    assert not any(tmp_path.iterdir()), "--list wrote files"


# --- one claim (`--claim`) ---------------------------------------------------------------

#: Two noc claims reading the same single case (cassandra): the cheapest runnable selection.
ONE_CASE_CLAIMS = ["T4-write-mean:cassandra", "T5-write-max:cassandra"]


def _reproduce_cli(binary, python_exe, *args):
    env = dict(os.environ, FLASHGC_PYTHON=python_exe)
    return subprocess.run([binary, "reproduce", *args], capture_output=True, text=True, env=env, timeout=600)


def test_claim_run_gives_the_whole_papers_rows_from_its_cases_only(binary, python_exe, out, tmp_path):
    # The whole paper (reused from `out` when the tests above ran it).
    full = reproduce("noc", scale="quick", out=out, progress=False, report=False)["noc"]
    rows = {c["id"]: c for c in full["claims"]}
    # Ids copied from --list, one qualified by its paper, comma-separated, through the CLI
    # (the Rust command forwards to Python) on the Dask path, in a fresh directory.
    listed = _reproduce_cli(binary, python_exe, "noc", "--list")
    assert listed.returncode == 0, listed.stderr
    assert re.findall(r"^  (\S+) ", listed.stdout, re.M) == list(rows)
    a, b = ONE_CASE_CLAIMS
    args = ["--claim", f"noc:{a},{b}", "-o", str(tmp_path), "-q", "--json", "--no-report"]
    p = _reproduce_cli(binary, python_exe, "noc", *args)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)["noc"]
    assert [c["id"] for c in res["claims"]] == ONE_CASE_CLAIMS and res["selected"] == ONE_CASE_CLAIMS
    for c in res["claims"]:  # bit for bit, sensitivity and deciding setting included
        assert json.dumps(c) == json.dumps(rows[c["id"]]), c["id"]
    # Only the shared case ran, once per setting (base and the quick sweep points).
    points = 1 + sum(len(d["values"]) - 1 for d in full["sensitivity"])
    assert [c["key"] for c in res["cases"]] == ["cassandra"]
    assert res["runs"] == res["machine"]["ran_now"] == points < full["runs"]
    assert res["counts"] == {k: sum(1 for c in res["claims"] if c["verdict"] == k) for k in res["counts"]}
    assert "--claim" in res["command"]
    # The claim run's own files; no whole-paper result was written.
    assert sorted(os.listdir(tmp_path)) == ["claims", "runs"]
    assert os.listdir(os.path.join(tmp_path, "claims")) == ["noc.json"]
    on_disk = json.load(open(os.path.join(tmp_path, "claims", "noc.json"), encoding="utf-8"))
    assert on_disk["claims"] == res["claims"]


def test_claim_run_leaves_the_whole_papers_results_alone(out):
    full = reproduce("noc", scale="quick", out=out, progress=False, report=False)["noc"]
    before = {}
    for root, _, files in os.walk(out):
        for f in files:
            p = os.path.join(root, f)
            before[p] = (os.stat(p).st_mtime_ns, open(p, "rb").read())

    def claim(cid):
        return reproduce("noc", scale="quick", out=out, progress=False, claims=[cid], scheduler="local")["noc"]

    res = claim("T4-write-mean:sqlite")
    assert res["machine"]["ran_now"] == 0  # its cases are the whole run's, in out/runs
    row = next(c for c in full["claims"] if c["id"] == "T4-write-mean:sqlite")
    assert res["claims"] == [row]
    for p, (mtime, data) in before.items():
        assert os.stat(p).st_mtime_ns == mtime and open(p, "rb").read() == data, p
    figs = os.path.join(out, "claims", "figures", "noc")
    after = {os.path.join(r, f) for r, _, fs in os.walk(out) for f in fs}
    assert after - set(before) == {
        os.path.join(out, "claims", "noc.json"),
        os.path.join(out, "claims", "report.html"),
        os.path.join(figs, "noc-sens-T4-write-mean_sqlite.png"),
    }
    # Another selection in the same directory: its figures only, none left from the last one.
    # A figure reading cases not run is skipped and named; the one reading cassandra only is drawn.
    res = claim("T4-write-mean:cassandra")
    assert sorted(os.listdir(figs)) == [
        "noc-fig7-cassandra.png",
        "noc-fig7-cassandra.svg",
        "noc-sens-T4-write-mean_cassandra.png",
    ]
    skipped = {s["figure"]: s["needs"] for s in res["figures_skipped"]}
    assert set(skipped) == {"noc-table4", "noc-table5", "noc-fig8", "noc-fig7-mysql"}
    assert skipped["noc-fig7-mysql"] == ["mysql"] and "cassandra" not in skipped["noc-table4"]
    html = open(os.path.join(out, "claims", "report.html"), encoding="utf-8").read()
    assert "Not drawn in this run of selected claims" in html and "noc-fig7-mysql (needs mysql)" in html
    on_disk = json.load(open(os.path.join(out, "claims", "noc.json"), encoding="utf-8"))
    assert on_disk["figures_skipped"] == res["figures_skipped"] and on_disk["selected"] == [res["claims"][0]["id"]]


def test_whole_run_after_a_claim_run_reuses_its_cases(tmp_path, binary, caps):
    fresh = _run_fixture(tmp_path / "fresh", binary, caps)
    one = _run_fixture(tmp_path / "shared", binary, caps, only=["greedy-beats-fifo"])
    assert [c["id"] for c in one["claims"]] == ["greedy-beats-fifo"]
    assert one["runs"] == 4  # uniform/greedy and uniform/fifo at the base and the op sweep point
    whole = _run_fixture(tmp_path / "shared", binary, caps)
    # Only the cases the claim did not read ran now (the rejected command never is stored).
    assert whole["machine"]["ran_now"] == whole["runs"] - one["runs"]
    assert whole["claims"] == fresh["claims"]
    assert one["claims"][0] == next(c for c in fresh["claims"] if c["id"] == "greedy-beats-fifo")


def test_unknown_claim_is_a_user_error_naming_the_valid_ids(binary, python_exe, tmp_path):
    o = str(tmp_path / "o")
    p = _reproduce_cli(binary, python_exe, "noc", "--claim", "T4-write-mean:cassandra,nosuch", "-o", o)
    assert p.returncode == 2, p.stderr
    _, claims = load_claims("noc")
    assert "unknown claim `nosuch` in noc" in p.stderr
    assert ", ".join(c.id for c in claims) in p.stderr
    assert not os.path.exists(o)  # refused before anything ran
    p = _reproduce_cli(binary, python_exe, "noc", "--claim", "midas:F11-waf", "-o", o)
    assert p.returncode == 2 and "midas is not among the papers asked for" in p.stderr


def test_every_listed_id_selects_itself(capsys):
    from flashgc.__main__ import main
    from flashgc.reproduce.selection import resolve

    assert main(["reproduce", "all", "--list"]) == 0
    listed = re.findall(r"^  (\S+) ", capsys.readouterr().out, re.M)
    catalog = {n: [c.id for c in load_claims(n)[1]] for n in PAPERS}
    assert len(listed) == sum(map(len, catalog.values()))
    owner = {i: n for n, ids in catalog.items() for i in ids}
    for i in listed:
        assert resolve([i], catalog, PAPERS) == {owner[i]: [i]}
        assert resolve([f"{owner[i]}:{i}"], catalog, PAPERS) == {owner[i]: [i]}
    # --list --claim lists just the selection.
    assert main(["reproduce", "noc", "--list", "--claim", "T4-write-mean"]) == 0
    got = re.findall(r"^  (\S+) ", capsys.readouterr().out, re.M)
    assert got == [i for i in catalog["noc"] if i.startswith("T4-write-mean:")]


def test_claim_selection_rules():
    from flashgc.reproduce.selection import resolve, split_ids

    cat = {"p": ["A", "T:x", "T:y", "B"], "q": ["B", "C"]}
    assert split_ids(["A,T:x", " C ", "A"]) == ["A", "T:x", "C"]
    assert resolve(["B", "T:x", "A"], {"p": cat["p"]}) == {"p": ["A", "T:x", "B"]}  # the file's order
    assert resolve(["T"], cat) == {"p": ["T:x", "T:y"]}  # a table's stem: all its entries
    assert resolve(["C", "p:B"], cat) == {"p": ["B"], "q": ["C"]}
    with pytest.raises(ValueError, match=r"`B` is in several papers \(p, q\): write PAPER:ID, e\.g\. p:B or q:B"):
        resolve(["B"], cat)
    with pytest.raises(ValueError, match=r"unknown claim `D` in p, q; valid ids .*p: A, T:x, T:y, B; q: B, C"):
        resolve(["D"], cat)
    with pytest.raises(ValueError, match=r"unknown claim `Z` in q"):
        resolve(["q:Z"], cat)
    with pytest.raises(ValueError, match="no claim id"):
        resolve(split_ids([" , "]), cat)


def test_upper_bounds_name_the_runs_whose_latencies_are_bounds(tiny):
    """A run whose host writes waited for the one GC queue (16 KiB flash pages shared by
    `single`'s host and GC writes, preemptible GC) is listed with its setting, at the base
    and at a sensitivity point; a run without such waits, and a failed one, are not; the text
    tables name it."""
    import flashgc
    from flashgc.reproduce.cli import tables
    from flashgc.reproduce.core import Point, upper_bounds

    shared = flashgc.run(
        "default", "zipf:0.8", timing={"gc_mode": "preemptible"}, **{**tiny, "page_size": 16384, "op": 0.2}
    )
    plain = flashgc.run("default", "zipf:0.8", timing={}, **{**tiny, "op": 0.2})

    class C:
        """A case: its key and its run's id."""

        def __init__(self, key):
            self.key = key

        def run_id(self, build):
            return f"{build}/{self.key}"

    rows = {
        "b/shared": {"status": "ok", "result_json": shared.to_json()},
        "b/plain": {"status": "ok", "result_json": plain.to_json()},
        "b/failed": {"status": "error", "error": "x"},
    }
    cases = {k: C(k) for k in ("shared", "plain", "failed")}
    points = [Point(None, None, {}, cases), Point("gc_mode", "background", {}, cases)]
    ub = upper_bounds(points, rows, "b")
    assert ub == [["", "", "shared"], ["gc_mode", "background", "shared"]]
    r = {"claims": [], "counts": {k: 0 for k in ("holds", "direction only", "contradicts", "cannot run")}}
    r.update(paper="p", title="t", scale="quick", command="c", platform="x", notes=[], runs=2)
    r.update(cases=[], no_gc=[], failed=[], upper_bounds=ub)
    text = " ".join(tables(r, width=200).split())
    assert "upper bounds: host writes of these runs waited for the one GC queue" in text
    assert "shared, shared (gc_mode=background)" in text
