"""The HTML export is a page for a browser: none of the window's own links (`gander-copy:`,
`gander-more:`, `gander-save:`, `gander-session:`) are in it, and a tool result's copy sent to
the model only is in it only with `--hidden`, as in the Markdown export (issue #17, item 20)."""

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.rendering.transcript_blocks import BODY_CHARS_LIMIT
from tests.fixtures.goose_db import GooseDb

AGENTS = Path(__file__).parents[1] / "fixtures" / "agents"
CLAUDE_PROJECT = AGENTS / "claude_code" / "project"
MAIN_SESSION = "7f3c2a10-0000-4000-8000-000000000001"
WINDOW_LINK = re.compile(r'href="gander-[a-z]+:')

MODEL_COPY = "file1.py\nfile2.py\n(exit 0)"
USER_COPY = "file1.py  file2.py"


def _html(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main([*args, "--format", "html"]) == 0
    return capsys.readouterr().out


def test_a_genuine_claude_code_session_exports_without_window_links(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fixture's code blocks and its Task result (which opens a sub-agent in the window)."""
    page = _html(capsys, "--db", str(CLAUDE_PROJECT), "show", MAIN_SESSION)
    assert WINDOW_LINK.findall(page) == []
    assert "<pre>" in page
    assert "Sub-agent session <code>agent-ci0001</code>" in page


def _response(call_id: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": {"content": items, "isError": False}},
    }


def _goose(make_db: Callable[..., GooseDb]) -> GooseDb:
    """goose's developer shell before 2026: the output twice, one copy per audience; and an
    output longer than an export shows of a tool's output."""
    db = make_db()
    db.add_session("s1", name="Shell")
    call = {
        "type": "toolRequest",
        "id": "t1",
        "toolCall": {
            "status": "success",
            "value": {"name": "developer__shell", "arguments": {"command": "ls"}},
        },
    }
    db.add_message("s1", "assistant", [call], created=1767323001)
    items = [
        {"type": "text", "text": MODEL_COPY, "annotations": {"audience": ["assistant"]}},
        {"type": "text", "text": USER_COPY, "annotations": {"audience": ["user"], "priority": 0}},
    ]
    db.add_message("s1", "user", [_response("t1", items)], created=1767323002)
    long_output = [{"type": "text", "text": "y\n" * BODY_CHARS_LIMIT}]
    db.add_message("s1", "user", [_response("t2", long_output)], created=1767323003)
    db.add_message(
        "s1", "assistant", [{"type": "text", "text": "```sh\nls\n```"}], created=1767323004
    )
    return db


def test_long_output_and_code_blocks_export_without_window_links(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    db = _goose(make_db)
    page = _html(capsys, "--db", str(db.path), "show", "s1")
    assert WINDOW_LINK.findall(page) == []
    assert "<i>… 200.0 kB more not shown</i></p>" in page, "the note stays, without its links"
    assert re.search(r"ls\n?</code></pre>|ls</span>", page)


@pytest.mark.parametrize("hidden", [False, True])
def test_the_model_copy_is_exported_only_with_hidden(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str], hidden: bool
) -> None:
    db = _goose(make_db)
    flags = ["--hidden"] if hidden else []
    page = _html(capsys, "--db", str(db.path), "show", "s1", *flags)
    assert USER_COPY in page
    assert ("(exit 0)" in page) is hidden
    assert ("Sent to the model only" in page) is hidden
    assert main(["--db", str(db.path), "show", "s1", *flags]) == 0
    markdown = capsys.readouterr().out
    assert ("(exit 0)" in markdown) is hidden, "the Markdown export agrees"
