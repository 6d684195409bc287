"""One long file session read whole (issue #18, item 8):

    python -m benchmarks.file_sessions [--sizes 25000,50000,100000,200000]

A Claude Code log of N short lines (prompts and replies, as Claude Code writes them, about
240 bytes each) in a folder of its own: reading it whole a page at a time (what an export,
find in a session and the index do), finding a word in it, and `gander show --format json`.
Each is run in this process on a history opened afresh, timed in wall and CPU seconds. The
figures go into docs/architecture.md.
"""

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.cli import main as gander
from desktop_app.domain.reading import find_in_session, iter_messages
from desktop_app.sources.registry import open_history

SESSION = "00000000-0000-4000-8000-000000000000"


def write_log(path: Path, lines: int) -> None:
    """`lines` Claude Code lines: a prompt, then a reply, in turn."""
    with path.open("w", encoding="utf-8") as handle:
        for row in range(lines):
            when = f"2026-01-01T{row // 3600 % 24:02d}:{row // 60 % 60:02d}:{row % 60:02d}.000Z"
            common = {"uuid": f"u{row}", "sessionId": SESSION, "cwd": "/w", "timestamp": when}
            if row % 2 == 0:
                line = {"type": "user", "message": {"role": "user", "content": f"step {row}"}}
            else:
                content = [{"type": "text", "text": f"done with step {row - 1}, next one"}]
                message = {"id": f"msg_{row}", "role": "assistant", "content": content}
                line = {"type": "assistant", "message": message}
            handle.write(json.dumps({**common, **line}) + "\n")


def _timed(label: str, work: Callable[[], object]) -> None:
    """Wall time and this process's CPU time (what a loaded machine changes less)."""
    started, cpu = time.perf_counter(), time.process_time()
    work()
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    print(f"  {label:<36} {wall:>7.2f} s   CPU {used:>7.2f} s")


def run(lines: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "projects" / f"{SESSION}.jsonl"
        log.parent.mkdir()
        write_log(log, lines)
        print(f"{lines:,} messages ({log.stat().st_size / 1e6:.1f} MB)")
        data = Path(folder) / "data"

        def read_whole() -> None:
            source = open_history(log.parent, cache_dir=data)
            assert sum(1 for _ in iter_messages(source, SESSION)) == lines

        def find() -> None:
            source = open_history(log.parent, cache_dir=data)
            find_in_session(source, SESSION, "next one")

        out = Path(folder) / "out.json"
        show = ["show", SESSION, "--db", str(log.parent), "--format", "json", "-o", str(out)]
        _timed("read whole, a page at a time", read_whole)
        _timed("find in session", find)
        _timed("show --format json", lambda: gander(show))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="25000,50000,100000,200000")
    args = parser.parse_args()
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp()  # the catalogs and indexes of this run
    for size in args.sizes.split(","):
        run(int(size))


if __name__ == "__main__":
    main()
