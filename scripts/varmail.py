#!/usr/bin/env python3
"""Filebench's Varmail personality (workloads/varmail.f), reimplemented with the standard library.

Filebench is not a Debian package; this runs the same flowops, so that
scripts/record-varmail.sh can record Varmail on the simulated SSD for `flashgc reproduce
midas` (papers/midas.txt, Fig. 15(b): "Varmail, the most write-intensive workload in the
Filebench benchmark"). varmail.f's defaults are this script's:

    set $nfiles=1000
    set $meandirwidth=1000000          (one directory)
    set $filesize=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
    set $nthreads=16
    set $iosize=1m
    set $meanappendsize=16k
    define fileset name=bigfileset,...,prealloc=80

and each of the $nthreads threads loops: deletefile; createfile; appendfilerand; fsync;
closefile; openfile; readwholefile; appendfilerand; fsync; closefile; openfile;
readwholefile; closefile.

Where this differs from Filebench, or where Filebench's behaviour had to be chosen:
* a file is picked uniformly at random among the existing (or, to create, the missing)
  entries that no other thread is using, from a seeded generator per thread (Filebench
  also skips busy entries; its pick order is its own);
* an append writes a uniformly random number of bytes in [1, meanappendsize] (Filebench's
  appendfilerand), of fresh random content (Filebench writes its thread's buffer, whose
  repeated content a deduplicating FTL would collapse);
* a gamma-distributed size has shape `gamma` and mean `mean` (cvar-gamma's parameters).

`create` builds the fileset (prealloc % of the entries, each written to its size, then
synced); `run` runs the flowops on an existing fileset for --loops loops in all (or
--seconds), then prints a summary line as JSON. Exit codes: 0 done, 2 bad arguments, 1 an
I/O error (named with its file).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import threading
import time
from typing import Iterator

NAME = "bigfileset"


def entry_path(root: str, i: int) -> str:
    return os.path.join(root, NAME, f"{i:08d}")


def gamma_size(rng: random.Random, mean: float, shape: float) -> int:
    return max(1, int(rng.gammavariate(shape, mean / shape)))


def write_bytes(fd: int, n: int) -> None:
    while n > 0:
        k = min(n, 1 << 20)
        os.write(fd, os.urandom(k))
        n -= k


class Fileset:
    """Which entries exist and which are in use, shared by the threads under one lock."""

    def __init__(self, root: str, entries: int) -> None:
        self.root = root
        self.entries = entries
        self.lock = threading.Lock()
        self.exists: list[int] = []
        self.missing: list[int] = []
        self.pos: dict[int, int] = {}
        self.state: dict[int, bool] = {}
        self.busy: set[int] = set()
        for i in range(entries):
            self._put(i, os.path.exists(entry_path(root, i)))

    def _put(self, i: int, exists: bool) -> None:
        lst = self.exists if exists else self.missing
        self.state[i] = exists
        self.pos[i] = len(lst)
        lst.append(i)

    def _take(self, i: int, exists: bool) -> None:
        lst = self.exists if exists else self.missing
        p = self.pos.pop(i)
        last = lst.pop()
        if last != i:
            lst[p] = last
            self.pos[last] = p

    def pick(self, rng: random.Random, exists: bool) -> int | None:
        """A random entry (existing or missing) that no thread uses, marked busy; None if none."""
        with self.lock:
            lst = self.exists if exists else self.missing
            for _ in range(64):
                if not lst:
                    return None
                i = lst[rng.randrange(len(lst))]
                if i not in self.busy:
                    self.busy.add(i)
                    return i
            return None

    def release(self, i: int, exists: bool) -> None:
        """Ends a thread's use of entry i, which now exists or not."""
        with self.lock:
            self.busy.discard(i)
            was = self.state[i]
            if was != exists:
                self._take(i, was)
                self._put(i, exists)


class Worker(threading.Thread):
    """One of varmail.f's threads: its 13 flowops in a loop."""

    def __init__(self, fs: Fileset, args: argparse.Namespace, seed: int, budget: Budget) -> None:
        super().__init__(daemon=True)
        self.fs, self.args, self.budget = fs, args, budget
        self.rng = random.Random(seed)
        self.error: str | None = None
        self.counts = {"loops": 0, "appended_bytes": 0, "read_bytes": 0, "fsyncs": 0, "deletes": 0, "creates": 0}

    def append(self, fd: int) -> None:
        n = self.rng.randint(1, self.args.append_size)
        write_bytes(fd, n)
        self.counts["appended_bytes"] += n

    def append_fsync(self, fd: int) -> None:
        """appendfilerand, then fsync."""
        self.append(fd)
        os.fsync(fd)
        self.counts["fsyncs"] += 1

    @contextlib.contextmanager
    def held(self, i: int, fd: int) -> Iterator[int]:
        """Entry ``i``, open as ``fd``: closed and released (as existing) on leaving."""
        try:
            yield fd
        finally:
            os.close(fd)
            self.fs.release(i, True)

    def read_whole(self, fd: int) -> None:
        while True:
            b = os.read(fd, self.args.iosize)
            if not b:
                return
            self.counts["read_bytes"] += len(b)

    def open_existing(self) -> tuple[int, int] | None:
        i = self.fs.pick(self.rng, True)
        if i is None:
            return None
        try:
            return i, os.open(entry_path(self.fs.root, i), os.O_RDWR | os.O_APPEND)
        except OSError:
            self.fs.release(i, True)
            raise

    def one_loop(self) -> None:
        fs, c = self.fs, self.counts
        # deletefile
        i = fs.pick(self.rng, True)
        if i is not None:
            os.unlink(entry_path(fs.root, i))
            fs.release(i, False)
            c["deletes"] += 1
        # createfile, appendfilerand, fsync, closefile
        i = fs.pick(self.rng, False)
        if i is not None:
            fd = os.open(entry_path(fs.root, i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
            with self.held(i, fd):
                self.append_fsync(fd)
            c["creates"] += 1
        # openfile, readwholefile, appendfilerand, fsync, closefile
        got = self.open_existing()
        if got is not None:
            with self.held(*got) as fd:
                self.read_whole(fd)
                self.append_fsync(fd)
        # openfile, readwholefile, closefile
        got = self.open_existing()
        if got is not None:
            with self.held(*got) as fd:
                self.read_whole(fd)
        c["loops"] += 1

    def run(self) -> None:
        try:
            while self.budget.take():
                self.one_loop()
        except OSError as e:
            self.error = f"{e.filename or self.fs.root}: {e.strerror or e}"
            self.budget.stop()


class Budget:
    """The loops left in all (or a deadline), shared by the threads."""

    def __init__(self, loops: int | None, seconds: float | None) -> None:
        self.left = loops
        self.deadline = time.monotonic() + seconds if seconds else None
        self.lock = threading.Lock()
        self.stopped = False

    def take(self) -> bool:
        with self.lock:
            if self.stopped or (self.deadline is not None and time.monotonic() >= self.deadline):
                return False
            if self.left is not None:
                if self.left <= 0:
                    return False
                self.left -= 1
            return True

    def stop(self) -> None:
        with self.lock:
            self.stopped = True


def create(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    os.makedirs(os.path.join(args.dir, NAME), exist_ok=True)
    made = 0
    total = 0
    for i in range(args.files):
        size = gamma_size(rng, args.mean_size, args.gamma)
        if rng.random() * 100.0 < args.prealloc:
            fd = os.open(entry_path(args.dir, i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                write_bytes(fd, size)
            finally:
                os.close(fd)
            made += 1
            total += size
    os.sync()
    print(json.dumps({"phase": "create", "files": made, "entries": args.files, "bytes": total}))
    return 0


def run(args: argparse.Namespace) -> int:
    if not os.path.isdir(os.path.join(args.dir, NAME)):
        print(f"varmail: error: {os.path.join(args.dir, NAME)}: no fileset (run `create` first)", file=sys.stderr)
        return 2
    fs = Fileset(args.dir, args.files)
    budget = Budget(args.loops, args.seconds)
    workers = [Worker(fs, args, args.seed * 1000 + t + 1, budget) for t in range(args.threads)]
    t0 = time.monotonic()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    errors = [w.error for w in workers if w.error]
    if errors:
        print(f"varmail: error: {errors[0]}", file=sys.stderr)
        return 1
    summary: dict = {"phase": "run", "threads": args.threads, "seconds": round(time.monotonic() - t0, 3)}
    for k in workers[0].counts:
        summary[k] = sum(w.counts[k] for w in workers)
    summary["files_at_end"] = len(fs.exists)
    print(json.dumps(summary))
    return 0


def positive(kind: type, lo: float):
    def parse(s: str):
        try:
            v = kind(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {s!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo:g}, not {s}")
        return v

    return parse


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="varmail", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("phase", choices=("create", "run"), help="build the fileset, or run the flowops on it")
    p.add_argument("dir", help="the folder that holds (or will hold) the fileset")
    p.add_argument("--files", type=positive(int, 1), default=1000, help="$nfiles: entries of the fileset (1000)")
    p.add_argument("--mean-size", type=positive(int, 1), default=16384, help="mean file size, bytes (16384)")
    p.add_argument("--gamma", type=positive(float, 0.01), default=1.5, help="shape of the file-size gamma (1.5)")
    p.add_argument("--prealloc", type=positive(float, 0), default=80.0, help="%% of the entries created (80)")
    p.add_argument("--threads", type=positive(int, 1), default=16, help="$nthreads (16)")
    p.add_argument("--append-size", type=positive(int, 1), default=16384, help="$meanappendsize, bytes (16384)")
    p.add_argument("--iosize", type=positive(int, 1), default=1 << 20, help="$iosize of the reads, bytes (1 MiB)")
    p.add_argument("--loops", type=positive(int, 1), help="loops of the 13 flowops, all threads together")
    p.add_argument("--seconds", type=positive(float, 0.001), help="run for this long (if no --loops, 60)")
    p.add_argument("--seed", type=positive(int, 0), default=1, help="seed of the picks, sizes and appends (1)")
    args = p.parse_args(argv)
    if args.prealloc > 100:
        p.error(f"--prealloc must be at most 100, not {args.prealloc:g}")
    if args.phase == "run" and args.loops is None and args.seconds is None:
        args.seconds = 60.0
    try:
        return create(args) if args.phase == "create" else run(args)
    except OSError as e:
        print(f"varmail: error: {e.filename or args.dir}: {e.strerror or e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
