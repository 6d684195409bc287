"""How long reading one huge message holds the interpreter lock, the old way and Gander's.

    python -m benchmarks.lock_holds [--data DIR]

A thread beside the work wakes every half millisecond; the longest it waited is how long the
window's thread — which needs the lock for every call into Python — would have waited. Each
step runs three times; the figures are the worst wait and the whole step's time, medians.
The history is `benchmarks.window`'s 20 MB prose session (built on first use; its text is
ASCII, which is decoded at once either way, so 20 MB of CJK text is decoded too); the dense
document is 200,000 small objects (17 MB of JSON), read with the cyclic collector off as the
readers' parses are.
"""

import argparse
import gc
import json
import sqlite3
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.window import build_huge
from desktop_app.domain.json_steps import decode_in_steps
from desktop_app.domain.jsontext import loads

RUNS = 3
TICK_S = 0.0005


def _held(work: Callable[[], Any]) -> tuple[float, float]:
    """(longest wait of a ticking thread, the work's time), in milliseconds."""
    done = threading.Event()
    worst = [0.0]

    def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(TICK_S)
            now = time.perf_counter()
            worst[0] = max(worst[0], now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.05)
    started = time.perf_counter()
    work()
    took = time.perf_counter() - started
    done.set()
    ticker.join()
    return worst[0] * 1000, took * 1000


def _report(label: str, work: Callable[[], Any]) -> None:
    runs = [_held(work) for _ in range(RUNS)]
    held = statistics.median(run[0] for run in runs)
    took = statistics.median(run[1] for run in runs)
    print(f"{label:<58} lock held up to {held:6.1f} ms   in all {took:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data")
    args = parser.parse_args()
    sys.setswitchinterval(TICK_S)  # as the worker's quick switches set it
    db = build_huge(args.data / "huge-prose.db", "prose")
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.text_factory = lambda data: data.decode("utf-8", "replace")
    (rowid,) = conn.execute(
        "SELECT id FROM messages ORDER BY length(CAST(content_json AS BLOB)) DESC LIMIT 1"
    ).fetchone()
    by_id = "SELECT {} FROM messages WHERE id = ?"

    def blob() -> bytes:
        with conn.blobopen("messages", "content_json", rowid, readonly=True) as found:
            return found.read()

    _report(
        "20 MB content fetched as text (the driver decodes)",
        lambda: conn.execute(by_id.format("content_json"), (rowid,)).fetchone(),
    )
    _report("20 MB content read apart (blob)", blob)
    data = blob()
    _report("its UTF-8 decoded at once", lambda: data.decode("utf-8", "replace"))
    _report("its UTF-8 decoded in steps", lambda: decode_in_steps(data, "replace"))
    cjk = ("漢字かな" * 1_700_000).encode()
    _report("20 MB of CJK text decoded at once", lambda: cjk.decode("utf-8", "replace"))
    _report("20 MB of CJK text decoded in steps", lambda: decode_in_steps(cjk, "replace"))
    text = data.decode()
    _report("its JSON parsed by json.loads", lambda: json.loads(text))
    _report("its JSON parsed in steps (jsontext.loads)", lambda: loads(text))
    dense = json.dumps(
        [{"a": n, "b": [1.5, "x" * (n % 30), None, True], "c": "é"} for n in range(200_000)]
    )
    gc.disable()
    _report("17 MB of small objects parsed by json.loads", lambda: json.loads(dense))
    _report("17 MB of small objects parsed in steps", lambda: loads(dense))
    gc.enable()


if __name__ == "__main__":
    main()
