"""The peak memory of a process and every process it started (a build's or a catalog's worker
processes), for the benchmarks that report a process tree's peak RSS."""

import threading
from pathlib import Path


class TreePeak:
    """The peak RSS of `pid` and its descendants, summed from /proc every `interval_s` on a
    thread of its own until `stop`. Only the descendants are read (each task's `children`), not
    all of /proc: a walk of every process took 4 ms, and every 50 ms it took the interpreter lock
    from the build it measured."""

    def __init__(self, pid: int, interval_s: float) -> None:
        self.pid = pid
        self.peak_kb = 0
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-peak", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in tree(self.pid)))

    def stop(self) -> float:
        """The peak, in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


def tree(root: int) -> list[int]:
    """`root` and its descendants, as /proc has them now."""
    found, todo = [], [root]
    while todo:  # ends: a process's children are younger than it, so the walk never loops
        pid = todo.pop()
        found.append(pid)
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue  # ended meanwhile
    return found


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass  # ended meanwhile
    return 0
