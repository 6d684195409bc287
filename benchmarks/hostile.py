"""Time and memory Gander spends on input made to be slow (issue #8, points 3, 7, 9).

    python -m benchmarks.hostile

Each line is one hostile input and what handling it cost, in this process: rendering for the
window, exporting, redacting, writing JSON. The figures go into docs/reliability.md.
"""

import json
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_app.domain.jsontext import dumps
from desktop_app.rendering.markdown_html import render_markdown
from desktop_app.rendering.redact import redact_text
from tests.fixtures.goose_db import GooseDb


def _timed(label: str, work: Callable[[], object]) -> None:
    started = time.perf_counter()
    work()
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<58} {elapsed * 1000:>8.0f} ms   peak RSS {peak:>6.0f} MB")


def _redacting(text: str) -> Callable[[], object]:
    return lambda: redact_text(text)


def _deep(levels: int) -> Any:
    root: dict[str, Any] = {}
    current = root
    for _ in range(levels):
        inner: dict[str, Any] = {}
        current["a"] = [inner]
        current = inner
    return root


def _export(fmt: str, redact: bool) -> None:
    from desktop_app.cli import main

    with tempfile.TemporaryDirectory() as folder:
        db = GooseDb(Path(folder) / "sessions.db")
        db.add_session("s", name="huge")
        db.add_message("s", "assistant", "word " * 10_000_000)
        db.close()
        args = ["show", "s", "--db", str(db.path), "--format", fmt, "-o", f"{folder}/out"]
        _timed(
            f"export a 50 MB message as {fmt}{' --redact' if redact else ''}",
            lambda: main(args + (["--redact"] if redact else [])),
        )


def main() -> None:
    row = "| " + " | ".join(f"c{i}" for i in range(8)) + " |\n"
    table = row + "|" + "---|" * 8 + "\n" + row * 60_000
    nested = "".join("    " * depth + f"- level {depth}\n" for depth in range(14))
    print(f"{'input':<58} {'time':>11}   memory")
    _timed(
        "render: html fence of '<!--' × 30,000 (120 kB)",
        lambda: render_markdown("```html\n" + "<!--" * 30_000 + "\n```"),
    )
    _timed(
        "render: php fence of '<?php /*' × 15,000",
        lambda: render_markdown("```php\n" + "<?php /*" * 15_000 + "\n```"),
    )
    _timed(
        "render: language-less fence of 20,000 newlines",
        lambda: render_markdown("```\n" + "\n" * 20_000 + "```"),
    )
    _timed(f"render: a {len(table) / 1e6:.1f} MB table", lambda: render_markdown(table))
    _timed("render: 50 MB of text", lambda: render_markdown("word " * 10_000_000))
    _timed("render: a 14-level nested list", lambda: render_markdown(nested))
    for label, flood in (
        ("'eyJ' × 400,000", "eyJ" * 400_000),
        ("'a.' × 600,000", "a." * 600_000),
        ("'password=' × 150,000", "password=" * 150_000),
        ("'sk-ant-' × 170,000", "sk-ant-" * 170_000),
        (
            "'-----BEGIN RSA PRIVATE KEY-----' × 40,000",
            "-----BEGIN RSA PRIVATE KEY-----\n" * 40_000,
        ),
        ("'a://' × 300,000", "a://" * 300_000),
    ):
        _timed(f"redact: {label}", _redacting(flood))
    dump = "PATH=/usr/bin\nHOME=/home/dev\nKEY=value\n" * 400_000 + "SECRET_KEY=abc123def\n"
    _timed(f"redact: a {len(dump) / 1e6:.0f} MB environment dump", lambda: redact_text(dump))
    deep = _deep(100_000)
    _timed("JSON: a value nested 200,000 levels, compact", lambda: dumps(deep))
    _timed("JSON: the same, indented", lambda: dumps(deep, indent=2))
    nearly = json.loads('{"a": [' * 490 + "{}" + "]}" * 490)
    _timed("JSON: 980 levels (the deepest goose's JSON parses)", lambda: dumps(nearly, indent=2))
    for fmt in ("md", "html", "json"):
        _export(fmt, redact=False)
    for fmt in ("md", "html", "json"):
        _export(fmt, redact=True)


if __name__ == "__main__":
    main()
