"""The command line (python -m flashgc) and the example script, end to end."""

import json
import os
import subprocess

from .conftest import ROOT


def _run(args, python_exe, **kw):
    return subprocess.run([python_exe, *args], capture_output=True, text=True, timeout=600, cwd=ROOT, **kw)


def test_cli_run_prints_json_and_errors_exit_2(python_exe):
    p = _run(
        [
            "-m",
            "flashgc",
            "run",
            "default",
            "-w",
            "zipf:1.0",
            "--set",
            "logical_gib=0.0625",
            "--set",
            "pages_per_block=64",
            "--set",
            "write_volume=2",
            "--json",
        ],
        python_exe,
    )
    assert p.returncode == 0, p.stderr
    raw = json.loads(p.stdout)
    assert raw["workload"] == "zipf:1" and raw["steady_state"]["waf"] > 1
    p = _run(["-m", "flashgc", "run", "default", "--set", "op=0"], python_exe)
    assert p.returncode == 2 and "ftl.op" in p.stderr and "Traceback" not in p.stderr
    # An empty field name was looked up as the field ``.
    p = _run(["-m", "flashgc", "run", "default", "--set", "=1"], python_exe)
    assert p.returncode == 2 and "--set =1: expected FIELD=VALUE" in p.stderr


def test_example_reproduces_the_comparison_and_writes_its_report(tmp_path, python_exe):
    out = tmp_path / "ex"
    p = _run([os.path.join("examples", "sup_gc_vs_cosmos.py"), "--out", str(out), "--quick"], python_exe)
    assert p.returncode == 0, p.stderr
    assert "4 runs now" in p.stdout
    assert "hotcold:80/20" in p.stdout and "zipf:1" in p.stdout
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 5
    assert len([f for f in os.listdir(out / "figures") if f.endswith(".svg")]) == 5
    assert len(os.listdir(out / "results")) == 4
    # Running it again resumes: nothing is recomputed.
    p = _run([os.path.join("examples", "sup_gc_vs_cosmos.py"), "--out", str(out), "--quick", "--local"], python_exe)
    assert p.returncode == 0 and "0 runs now, 4 from an earlier run" in p.stdout
