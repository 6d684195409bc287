"""goose 1.45 stored streamed reasoning one token per `thinking` block (goose #11317): the window,
both exports, find and search see one reasoning block; the JSON export keeps every stored block."""

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.domain.reading import find_in_session
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.search.documents import to_document
from desktop_app.search.index import open_index
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages

REASONING = "I will open src/orders.py and check the retry loop before answering."
TOKENS = re.findall(r"\S+\s*|\s+", REASONING)


def _streamed_db(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("s1", name="Streamed")
    db.add_message("s1", "user", "Why do orders retry?", created=1767323000)
    blocks = [{"type": "thinking", "thinking": token, "signature": ""} for token in TOKENS]
    blocks[-1]["signature"] = "EqQBsig"
    blocks.append({"type": "text", "text": "Because the loop has no backoff."})
    db.add_message("s1", "assistant", blocks, created=1767323001)
    return db


def test_the_window_shows_one_reasoning_block(make_db: Callable[..., GooseDb]) -> None:
    db = _streamed_db(make_db)
    source = GooseSource(db.path)
    message = all_messages(source, "s1")[1]
    assert len(message.parts) == len(TOKENS) + 1, "every stored block is kept"
    blocks = MessageRenderer().render(message).blocks
    reasoning = [b for b in blocks if b.kind == "reasoning"]
    assert len(reasoning) == 1
    assert "src/orders.py" in reasoning[0].html
    assert [b.kind for b in blocks] == ["reasoning", "text"]
    source.close()


def test_search_document_find_and_snippets_read_the_joined_text(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    db = _streamed_db(make_db)
    source = GooseSource(db.path)
    message = all_messages(source, "s1")[1]
    assert to_document(message).reasoning == REASONING
    assert find_in_session(source, "s1", "orders.py and check")
    index = open_index(tmp_path / "data", source)
    try:
        index.update()
        found = index.search('"retry loop" in:reasoning')
        assert [s.session_id for s in found.sessions] == ["s1"]
        assert "src/orders.py" in found.hits[0].snippet
    finally:
        index.close()
        source.close()


def test_exports(make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]) -> None:
    db = _streamed_db(make_db)
    assert main(["--db", str(db.path), "show", "s1"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.count("**Thinking:**") == 1
    assert "src/orders.py" in markdown
    assert main(["--db", str(db.path), "show", "s1", "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert html.count("Thinking") == 1
    assert main(["--db", str(db.path), "show", "s1", "--format", "json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    parts = exported["messages"][1]["parts"]
    assert len(parts) == len(TOKENS) + 1
    assert [p["raw"]["thinking"] for p in parts[:-1]] == TOKENS
