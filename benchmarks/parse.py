"""One log parsed, as the catalog and the window parse it (issue #22):

    python -m benchmarks.parse [--size MB] [--runs N] [--gemini MB]

The largest Claude Code log and the largest Codex rollout of `benchmarks.scale`'s corpus of
genuine lines (built once, under benchmarks/data/scale/), and two Gemini CLI recordings of
`--gemini` MB (200 by default: over `MAX_FILE_BYTES`, so read a value at a time), one a JSON
document and one JSON lines, made of the genuine fixtures' records copied over and over with
their ids rewritten (built once, under benchmarks/data/gemini/), each parsed by `parse_file` in
a fresh process, `--runs` times: the best time (MB/s), the process's peak RSS over the parse,
and the longest garbage collection in the allocations that follow it (what the window's threads
meet after a session is parsed and kept). The figures go into docs/architecture.md.
"""

import argparse
import gc
import importlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


GEMINI_FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "agents" / "gemini_cli"


def _json(line: str) -> Any:
    """A line's value; None for a line that is not JSON (a fixture's own broken line)."""
    try:
        return json.loads(line)
    except ValueError:
        return None


def gemini_recordings(megabytes: int) -> dict[str, Path]:
    """A JSON document and a JSON-lines recording of about `megabytes` MB each: the genuine
    recordings' message records, copied with every id (the records' and their tool calls')
    made the copy's own, after one header."""
    folder = Path(__file__).parent / "data" / "gemini"
    paths = {"document": folder / "session-big.json", "lines": folder / "session-big.jsonl"}
    stamp = folder / "params"
    if stamp.exists() and stamp.read_text() == str(megabytes):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, Any]] = []
    for path in sorted(GEMINI_FIXTURES.rglob("session-*.json*")):
        if path.suffix == ".jsonl":
            found = [_json(line) for line in path.read_text().splitlines()]
        else:
            found = json.loads(path.read_text()).get("messages", [])
        records += [r for r in found if isinstance(r, dict) and "type" in r and "id" in r]
    header = {"sessionId": "big", "projectHash": "hash", "startTime": "2026-12-01T09:00:00Z"}
    with paths["lines"].open("w") as lines_out, paths["document"].open("w") as document:
        lines_out.write(json.dumps(header) + "\n")
        document.write(json.dumps(header)[:-1] + ', "messages": [\n')
        written, copy = 0, 0
        while written < megabytes * MB:
            for record in records:
                text = json.dumps(record).replace('"id": "', f'"id": "{copy}-')
                lines_out.write(text + "\n")
                document.write(("," if written else "") + text + "\n")
                written += len(text) + 1
            copy += 1
        document.write("]}\n")
    stamp.write_text(str(megabytes))
    return paths


def largest(home: Path, pattern: str) -> Path:
    return max(home.glob(pattern), key=lambda path: path.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=300, help="the corpus's size, in MB")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gemini", type=int, default=200, help="each recording's size, in MB")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1])
        return
    home = build(args.size * MB) / "home"
    logs = {
        "claude-code": (largest(home, ".claude/projects/*/*.jsonl"), "claude_code"),
        "codex": (largest(home, ".codex/sessions/*/*/*/*.jsonl"), "codex"),
        **{
            f"gemini-cli {shape}": (path, "gemini_cli")
            for shape, path in gemini_recordings(args.gemini).items()
        },
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
