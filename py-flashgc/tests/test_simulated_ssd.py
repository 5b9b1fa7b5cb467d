"""scripts/run-on-simulated-ssd.sh: any command on a file system on the simulated SSD (or on its
raw block device), without the kernel's nbd module; what the device saw is recorded and its
replay gives the served run's counts."""

import json
import os
import subprocess

import pytest

from flashgc.reproduce.runner import find_binary

from .conftest import ROOT, why_no_simulated_block_device

SCRIPT = os.path.join(ROOT, "scripts", "run-on-simulated-ssd.sh")
SMALL = "--logical-gib 0.25"


@pytest.fixture(scope="module")
def binary():
    return find_binary()


def _run(binary, *args, timeout=300):
    return subprocess.run(["bash", SCRIPT, "--flashgc", binary, *args], capture_output=True, text=True, timeout=timeout)


def _sh(binary, script, *opts):
    """The script with ``opts``, the small device and ``sh -c SCRIPT`` as the command."""
    return _run(binary, *opts, "--serve", SMALL, "--", "sh", "-c", script)


def _need_block_device(*tools):
    why = why_no_simulated_block_device(*tools)
    if why:
        pytest.skip(f"cannot attach the simulated SSD on this machine: {why}")


def test_bad_arguments_are_refused_before_anything_starts(binary, tmp_path):
    for args, words in (
        (["--serve", "--socket /tmp/x", "--", "true"], "--serve `--socket`: this script sets serve's socket"),
        (["--serve", "--logical-gib 1 --data memory", "--", "true"], "--serve `--data`"),
        (["--fs", "zfs", "--", "true"], "--fs must be ext4, xfs, btrfs or none, not `zfs`"),
        ([], "no command: give it after --"),
        (["--record", str(tmp_path / "no" / "x.fgt"), "--", "true"], "does not exist"),
        (["--bogus", "--", "true"], "unknown argument `--bogus`"),
    ):
        p = _run(binary, *args)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)


def test_a_command_on_ext4_is_served_recorded_and_replays_to_the_same_counts(binary, tmp_path):
    _need_block_device("mkfs.ext4")
    rec, res = tmp_path / "app.fgt", tmp_path / "app.json"
    p = _sh(
        binary,
        'dd if=/dev/urandom of=data bs=1M count=16 conv=fsync status=none && test "$PWD" = "$FLASHGC_MNT" '
        '&& test -b "$FLASHGC_DEV"',
        *("--record", str(rec), "-o", str(res)),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "served over NBD" in p.stdout  # serve's own text result
    served = json.loads(res.read_text())["total"]
    # 16 MiB of file data is 4096 pages; ext4's metadata and journal add a few more.
    assert 4096 <= served["user_writes"] < 4096 + 1024, served
    stats = subprocess.run([binary, "trace", "stats", str(rec)], capture_output=True, text=True, check=True).stdout
    flushes = int(next(x for x in stats.splitlines() if x.startswith("flushes")).split()[1])
    assert flushes >= 1, stats  # conv=fsync, and the unmount's journal commit
    replay = subprocess.run(
        [binary, "run", *SMALL.split(), "--workload", f"trace:{rec}", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(replay.stdout)["total"] == served
    # Nothing is left behind.
    assert "flashgc-ssd" not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    with open("/proc/mounts", encoding="utf-8") as f:
        assert "flashgc-ssd" not in f.read()


def test_the_raw_device_sees_exactly_what_the_command_writes(binary, tmp_path):
    """4 MiB written with O_DIRECT to the block device: 1024 pages of 4 KiB, no file system."""
    _need_block_device()
    res = tmp_path / "raw.json"
    p = _sh(
        binary,
        'test -z "$FLASHGC_MNT" && dd if=/dev/zero of="$FLASHGC_DEV" bs=1M count=4 oflag=direct status=none',
        *("--fs", "none", "-o", str(res)),
    )
    assert p.returncode == 0, p.stderr[-3000:]
    total = json.loads(res.read_text())["total"]
    assert total["user_writes"] == 1024 and total["trims"] == 0, total


def test_the_commands_exit_code_is_the_scripts_and_the_result_is_still_written(binary, tmp_path):
    _need_block_device("mkfs.ext4")
    res = tmp_path / "failed.json"
    p = _sh(binary, "echo partial > f; exit 7", "-o", str(res))
    assert p.returncode == 7, p.stderr[-3000:]
    assert json.loads(res.read_text())["total"]["user_writes"] > 0


def test_sigterm_to_the_process_group_unmounts_first_and_keeps_the_data(binary, tmp_path):
    """A terminal's Ctrl-C or a SIGTERM reaches the script's whole process group: the device
    (serve, nbdfuse) runs in sessions of its own, so it stays up until the file system is
    unmounted and its dirty data written to it; then the result is written."""
    _need_block_device("mkfs.ext4")
    import signal
    import time

    res = tmp_path / "term.json"
    err = tmp_path / "stderr"
    with open(err, "w") as e:
        p = subprocess.Popen(
            [
                "bash",
                SCRIPT,
                "--flashgc",
                binary,
                "-o",
                str(res),
                "--serve",
                SMALL,
                "--",
                "sh",
                "-c",
                "dd if=/dev/urandom of=f bs=1M count=8 status=none && echo written >&2 && sleep 60",
            ],
            stdout=subprocess.DEVNULL,
            stderr=e,
            start_new_session=True,
        )
    try:
        deadline = time.time() + 120
        while "written" not in err.read_text() and time.time() < deadline and p.poll() is None:
            time.sleep(0.2)
        assert "written" in err.read_text(), err.read_text()
        os.killpg(p.pid, signal.SIGTERM)
        assert p.wait(timeout=120) == 143, err.read_text()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    # Whatever of the 8 MiB was still in the page cache reached the device at the unmount.
    total = json.loads(res.read_text())["total"]
    assert total["user_writes"] >= 2048, total
    assert "flashgc-ssd" not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    with open("/proc/mounts", encoding="utf-8") as f:
        assert "flashgc-ssd" not in f.read()
