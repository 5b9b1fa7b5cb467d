"""Loads a page in headless Chromium (Debian's /usr/bin/chromium): DOM, console, screenshot."""

import os
import re
import subprocess
import tempfile

CHROMIUM = os.environ.get("FLASHGC_CHROMIUM", "/usr/bin/chromium")

# Flags for a root sandbox without network (see the machine notes): no background
# connections, a fresh profile per start.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]


def available() -> bool:
    return os.access(CHROMIUM, os.X_OK)


def _chromium(args, timeout=90):
    with tempfile.TemporaryDirectory(prefix="flashgc-chromium-") as profile:
        p = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    return p


def console_messages(stderr: str) -> list:
    """Every message the page wrote to its console (logs, errors, uncaught exceptions)."""
    return re.findall(r":CONSOLE[^\]]*\] (.*)", stderr)


def load(path: str, width: int = 1280, height: int = 1000) -> dict:
    """Loads a local page: returns the DOM after scripts ran and the console messages."""
    url = "file://" + os.path.abspath(path)
    p = _chromium([f"--window-size={width},{height}", "--virtual-time-budget=10000", "--dump-dom", url])
    return {"dom": p.stdout, "console": console_messages(p.stderr), "returncode": p.returncode}


def screenshot(path: str, png: str, width: int, height: int) -> dict:
    url = "file://" + os.path.abspath(path)
    p = _chromium([f"--window-size={width},{height}", "--virtual-time-budget=10000", f"--screenshot={png}", url])
    return {"console": console_messages(p.stderr), "returncode": p.returncode}


def figure_boxes(dom: str) -> list:
    """(rendered, (x, y, w, h)) of every figure image, as the page's own script measured them."""
    out = []
    for m in re.finditer(r"<img\b[^>]*>", dom):
        tag = m.group(0)
        r = re.search(r'data-rendered="(\w+)"', tag)
        b = re.search(r'data-box="([\d,\-]+)"', tag)
        out.append((r.group(1) if r else None, tuple(int(v) for v in b.group(1).split(",")) if b else None))
    return out


def region_is_drawn(img, box) -> bool:
    """True when the screenshot region holds a drawing: enough non-background pixels."""
    import numpy as np

    x, y, w, h = box
    a = np.asarray(img.convert("L").crop((x, y, x + w, y + h)), dtype=float)
    if a.size == 0:
        return False
    background = np.median(a)
    ink = np.mean(np.abs(a - background) > 40)
    return bool(a.std() > 8 and ink > 0.01)
