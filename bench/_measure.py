"""Run one command and record its wall-clock time and peak memory.

Usage::

    python bench/_measure.py RESULT_JSON -- COMMAND [ARG ...]

The command inherits this process's stdin/stdout/stderr, environment and working directory.
Two peak-memory figures are written to ``RESULT_JSON`` next to the return code:

* ``max_rss_mib``: ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` after the command ended, i.e. the
  kernel's high-water RSS of the largest single process in the command's tree (every
  descendant that was waited for). Exact, but not a sum over processes that ran concurrently.
  This wrapper starts nothing else, so nothing but the command's tree is in it.
* ``tree_rss_sampled_peak_mib``: the largest *sum* of RSS over the command's live process
  tree, sampled from ``/proc`` every ``SAMPLE_SECONDS``. Catches concurrent children, may
  miss short spikes. Empty where ``/proc`` is unavailable.

Also recorded: ``cpu_seconds``, the user + system CPU time of the command's tree (from the
same ``getrusage``), and ``load_average_1min`` at the start and end (``os.getloadavg``).
On a quiet machine wall time is what the command needs; when other work competes for
the cores, wall time grows while CPU time barely does, and the load averages show it.

The command's exit code is passed through as this wrapper's own.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

SAMPLE_SECONDS = 0.1
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024


def _process_table() -> dict[int, tuple[int, int]]:
    """Map every visible pid to (parent pid, RSS in bytes), read from /proc/<pid>/stat."""
    table: dict[int, tuple[int, int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path("/proc", entry.name, "stat").read_text()
        except OSError:
            continue  # the process ended while scanning
        # Fields after "(comm)": state, ppid, ..., rss (field 24 of the man page) at index 21.
        fields = stat.rsplit(")", 1)[1].split()
        table[int(entry.name)] = (int(fields[1]), int(fields[21]) * PAGE_BYTES)
    return table


def tree_rss_bytes(root: int) -> int:
    """Sum of RSS over ``root`` and all its live descendants."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        if pid in table:
            total += table[pid][1]
        stack.extend(children.get(pid, ()))
    return total


class TreeSampler(threading.Thread):
    """Background thread keeping the largest sampled RSS sum of a process tree."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_bytes = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(SAMPLE_SECONDS):
            self.peak_bytes = max(self.peak_bytes, tree_rss_bytes(self.root))


def main(argv: list[str]) -> int:
    """Run the command after ``--`` and write the measurement to the JSON path before it."""
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    result_path, command = Path(argv[0]), argv[2:]
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    process = subprocess.Popen(command)
    sampler = TreeSampler(process.pid) if Path("/proc/self/stat").exists() else None
    if sampler is not None:
        sampler.start()
    returncode = process.wait()
    wall_seconds = time.perf_counter() - start
    if sampler is not None:
        sampler.stopped.set()
        sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {
        "command": command,
        "returncode": returncode,
        "wall_seconds": wall_seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "load_average_1min": {"start": load_before, "end": os.getloadavg()[0]},
        # ru_maxrss is in KiB on Linux.
        "max_rss_mib": usage.ru_maxrss / 1024,
        "tree_rss_sampled_peak_mib": (sampler.peak_bytes / MIB if sampler is not None else None),
    }
    result_path.write_text(json.dumps(result, indent=2) + "\n")
    return returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
