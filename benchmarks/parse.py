"""One log parsed, as the catalog and the window parse it (issue #22):

    python -m benchmarks.parse [--size MB] [--runs N]

The largest Claude Code log and the largest Codex rollout of `benchmarks.scale`'s corpus of
genuine lines (built once, under benchmarks/data/scale/), each parsed by `parse_file` in a fresh
process, `--runs` times: the best time (MB/s), the process's peak RSS over the parse, and the
longest garbage collection in the allocations that follow it (what the window's threads meet
after a session is parsed and kept). The figures go into docs/architecture.md.
"""

import argparse
import gc
import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.scale import MB, build
from desktop_app.sources.files.history import parse_file


def peak_mb() -> float:
    """This process's peak RSS (`VmHWM`), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def collections_after() -> float:
    """The longest collection while 200,000 objects are made (and kept) after a parse, in ms."""
    longest = [0.0]
    started = [0.0]

    def timed(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            longest[0] = max(longest[0], (time.perf_counter() - started[0]) * 1000)

    gc.callbacks.append(timed)
    made = [[number] for number in range(200_000)]
    gc.callbacks.remove(timed)
    del made
    return longest[0]


def child(path: Path, module: str) -> None:
    """In a fresh process: one parse of `path` by `module`'s format; one JSON line of figures."""
    fmt = importlib.import_module(module).FORMAT
    before = peak_mb()
    started = time.perf_counter()
    parsed = parse_file(path, [fmt])
    seconds = time.perf_counter() - started
    figures = {"seconds": seconds, "messages": len(parsed.messages)}
    print(
        json.dumps({**figures, "peak_mb": peak_mb() - before, "collection_ms": collections_after()})
    )


def largest(home: Path, pattern: str) -> Path:
    return max(home.glob(pattern), key=lambda path: path.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=300, help="the corpus's size, in MB")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1])
        return
    home = build(args.size * MB) / "home"
    logs = {
        "claude-code": (largest(home, ".claude/projects/*/*.jsonl"), "claude_code"),
        "codex": (largest(home, ".codex/sessions/*/*/*/*.jsonl"), "codex"),
    }
    for kind, (path, package) in logs.items():
        runs = []
        for _ in range(args.runs):
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.parse", "--child", str(path),
                 f"desktop_app.sources.{package}.format"],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        best = min(runs, key=lambda run: run["seconds"])
        size = path.stat().st_size / 1e6
        print(
            f"{kind}: {size:.0f} MB, {best['messages']:,} messages: best {best['seconds']:.2f} s"
            f" = {size / best['seconds']:.1f} MB/s; peak RSS over the parse"
            f" {max(run['peak_mb'] for run in runs):.0f} MB; longest collection after it"
            f" {max(run['collection_ms'] for run in runs):.0f} ms"
        )


if __name__ == "__main__":
    main()
