"""A tool result with a model copy and a user copy (goose's developer tools before 2026): the
user's view shows the user's copy, the model's copy is labelled and apart; the Markdown export
is valid CommonMark with every tool output inside a code block."""

from collections.abc import Callable
from typing import Any

import pytest
from markdown_it import MarkdownIt

from desktop_app.cli import main
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages

MODEL_COPY = "file1.py\nfile2.py\n(exit 0)"
USER_COPY = "file1.py  file2.py"
TRICKY = "```\nnot the end\n````\n# not a heading\n"


def _response(call_id: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": {"content": items, "isError": False}},
    }


def _db(make_db: Callable[..., GooseDb]) -> GooseDb:
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
    only_model = [{"type": "text", "text": TRICKY, "annotations": {"audience": ["assistant"]}}]
    db.add_message("s1", "user", [_response("t2", only_model)], created=1767323003)
    return db


def test_the_user_copy_is_shown_and_the_model_copy_labelled_apart(
    make_db: Callable[..., GooseDb],
) -> None:
    source = GooseSource(_db(make_db).path)
    messages = all_messages(source, "s1")
    blocks = MessageRenderer().render(messages[1]).blocks
    assert blocks[0].code_blocks == (USER_COPY,)
    assert MODEL_COPY not in blocks[0].html
    labelled = [b for b in blocks if b.title == "Sent to the model only"]
    assert len(labelled) == 1
    assert labelled[0].collapsed
    assert "file2.py" in labelled[0].html
    only = MessageRenderer().render(messages[2]).blocks
    assert "not the end" in only[0].html, "a result with no user copy still shows what it holds"
    source.close()


def _code_contents(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block")]


@pytest.mark.parametrize("hidden", [False, True])
def test_markdown_export_is_commonmark_with_outputs_in_code_blocks(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str], hidden: bool
) -> None:
    db = _db(make_db)
    assert main(["--db", str(db.path), "show", "s1", *(["--hidden"] if hidden else [])]) == 0
    markdown = capsys.readouterr().out
    code = _code_contents(markdown)
    assert USER_COPY + "\n" in code
    assert TRICKY + "\n" in code, "a backtick fence inside the output cannot close the block"
    assert (MODEL_COPY + "\n" in code) is hidden
    headings = [t.content for t in MarkdownIt("commonmark").parse(markdown) if t.type == "inline"]
    assert "# not a heading" not in headings
    for line in markdown.splitlines():
        stripped = line.lstrip()
        if "```" in stripped:
            assert stripped.startswith("```"), f"a fence opens mid-line: {line!r}"
