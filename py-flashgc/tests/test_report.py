"""The HTML report: self-contained, every figure rendered, checked in a real browser."""

import base64
import io
import json
import os
import re

import numpy as np
import pytest

import flashgc
from flashgc.report import report

from . import browser
from .conftest import TINY

GRID = {"placement": ["single", "sup-gc"], "workload": ["uniform", "hotcold:80/20"], "seed": [1, 2]}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("res")
    flashgc.sweep(GRID, config=flashgc.load_config("default", **TINY), out=out, scheduler="local")
    return out


@pytest.fixture(scope="module")
def page(results, tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    html = report(results, d / "report.html", figures_dir=d / "figs")
    return d, html


def _imgs(text):
    return re.findall(r'<img\b[^>]*src="([^"]*)"', text)


def test_report_is_self_contained_with_every_figure(page):
    d, html = page
    text = open(html, encoding="utf-8").read()
    srcs = _imgs(text)
    # WAF bars, WAF and erases over volume, victim valid ratios, erase counts.
    assert len(srcs) == 5
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    # No external resources of any kind (works offline, no CDN).
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "<link" not in text
    from PIL import Image

    for s in srcs:
        im = Image.open(io.BytesIO(base64.b64decode(s.split(",", 1)[1])))
        a = np.asarray(im.convert("L"), dtype=float)
        assert im.width > 300 and a.std() > 10
    # The page says why the latency and MiDAS sections are missing.
    assert "No latency data" in text and "No run carries a MiDAS configuration history" in text
    # Figures exported for papers, PNG and SVG each.
    figs = sorted(os.listdir(d / "figs"))
    assert figs == sorted(
        f"{n}.{e}"
        for n in ["waf_per_scheme", "waf_over_volume", "erases_over_volume", "victim_valid_ratio", "erase_counts"]
        for e in ["png", "svg"]
    )
    assert open(d / "figs" / "waf_per_scheme.svg", encoding="utf-8").read().lstrip().startswith("<?xml")


def test_report_tables_match_results(results, page):
    _, html = page
    text = open(html, encoding="utf-8").read()
    df = flashgc.read_results(results)
    assert len(df) == 8 and "8 runs, 2 schemes, 2 cases" in text
    for w in df["waf"]:
        assert f"{w:.4g}" in text


def test_timing_and_midas_sections_render_when_present(tmp_path):
    # Real runs: a timed run with checkpoints (latency, IOPS) and a MiDAS run (history).
    kw = {"logical_gib": 0.25, "pages_per_block": 64, "write_volume": 3.0, "op": 0.15}
    timed = flashgc.run(
        "default", "zipf:1.0", placement="sup-gc", timing={"queue_depth": 8, "checkpoint_bytes": 2**26}, **kw
    )
    # MiDAS's first configuration comes after its UID warm-up (2 capacities, the fill
    # included) and one epoch (4): 6 capacities of writes after the fill give it one.
    midas = flashgc.run("default", "zipf:1.0", placement="midas", victim="fifo", **dict(kw, write_volume=6.0))
    assert timed.timing["series"] and midas.placement_report["history"]
    html = report([timed, midas], tmp_path / "r.html", figures_dir=tmp_path / "f")
    text = open(html, encoding="utf-8").read()
    assert len(_imgs(text)) == 5 + 3
    for fid in ("latency_tail", "timing_over_volume", "midas_groups"):
        assert f'id="{fid}"' in text and (tmp_path / "f" / f"{fid}.svg").exists()
    assert "No latency data" not in text and "1 of 2 runs are timed" in text


def test_report_cli(results, tmp_path, python_exe):
    import subprocess

    out = tmp_path / "cli.html"
    p = subprocess.run(
        [python_exe, "-m", "flashgc", "report", str(results), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert out.exists() and "wrote" in p.stdout
    p = subprocess.run(
        [python_exe, "-m", "flashgc", "report", str(tmp_path / "nothing.txt")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 2 and "error:" in p.stderr
    # A missing dataset is named as missing, whatever its suffix (a missing `.parquet`
    # said only its name).
    for missing in ("results.parquet", "results", "r.json"):
        p = subprocess.run(
            [python_exe, "-m", "flashgc", "report", str(tmp_path / missing)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert p.returncode == 2, p.stderr
        assert "no such file or directory" in p.stderr and "sweep dataset" in p.stderr, p.stderr


needs_chromium = pytest.mark.skipif(
    not browser.available(),
    reason=f"{browser.CHROMIUM} not found: install Debian's chromium (scripts/install-chromium.sh)",
)


@needs_chromium
def test_report_renders_in_headless_chromium(page, tmp_path):
    from PIL import Image

    _, html = page
    loaded = browser.load(html)
    assert loaded["returncode"] == 0
    assert loaded["console"] == [], loaded["console"]
    body = re.search(r"<body[^>]*>", loaded["dom"]).group(0)
    assert 'data-figures="5/5"' in body, body
    boxes = browser.figure_boxes(loaded["dom"])
    assert len(boxes) == 5 and all(r == "yes" for r, _ in boxes)
    height = int(re.search(r'data-height="(\d+)"', body).group(1))
    shot = tmp_path / "shot.png"
    s = browser.screenshot(html, str(shot), 1280, height)
    assert s["returncode"] == 0 and s["console"] == []
    img = Image.open(shot)
    assert img.size == (1280, height)
    for _, box in boxes:
        assert box[2] > 300 and box[3] > 200, box
        assert browser.region_is_drawn(img, box), f"figure at {box} is blank in the screenshot"


@needs_chromium
def test_browser_check_catches_broken_pages(tmp_path):
    # The check itself can fail: a console error, a missing image and a blank figure.
    from PIL import Image

    blank = io.BytesIO()
    Image.new("RGB", (400, 300), "white").save(blank, format="PNG")
    b64 = base64.b64encode(blank.getvalue()).decode()
    good = open(
        report([json.loads(flashgc.run("default", "uniform", **TINY).to_json())], tmp_path / "g.html"), encoding="utf-8"
    ).read()
    bad = good.replace(
        "<h2>",
        '<figure><img src="missing.png"></figure>'
        f'<figure><img src="data:image/png;base64,{b64}"></figure>'
        '<script>console.error("boom")</script><h2>',
        1,
    )
    p = tmp_path / "bad.html"
    p.write_text(bad, encoding="utf-8")
    loaded = browser.load(p)
    assert any("boom" in m for m in loaded["console"])
    boxes = browser.figure_boxes(loaded["dom"])
    assert boxes[0][0] == "no"  # the missing image
    height = int(re.search(r'data-height="(\d+)"', loaded["dom"]).group(1))
    s = browser.screenshot(p, str(tmp_path / "bad.png"), 1280, height)
    img = Image.open(tmp_path / "bad.png")
    assert not browser.region_is_drawn(img, boxes[1][1])  # the blank figure
    assert browser.region_is_drawn(img, boxes[2][1])  # a real one
    assert s["returncode"] == 0
