"""What goose stores beside the text, shown as a goose user expects (#10 item 4): structured tool
output that adds something, redacted reasoning named as such, a tool the client ran, notices in
words with their top-up link, a reply cut at the output token limit."""

from collections.abc import Callable
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.rendering.notices import notification_label
from desktop_app.rendering.transcript_blocks import Block, MessageRenderer
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages


def _result(call_id: str, text: str, structured: Any) -> dict[str, Any]:
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {
            "status": "success",
            "value": {"content": [{"type": "text", "text": text}], "structuredContent": structured},
        },
    }


def _db(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("s", name="Details")
    db.add_message(
        "s",
        "user",
        [
            _result("a", '{"rows": 3}', {"rows": 3}),
            _result("b", "3 rows", {"rows": 3, "columns": ["id", "name"]}),
        ],
        created=1,
    )
    db.add_message(
        "s",
        "assistant",
        [
            {"type": "redactedThinking", "data": "EmwKAhgBEgy3"},
            {
                "type": "frontendToolRequest",
                "id": "f1",
                "toolCall": {"status": "success", "value": {"name": "open_url", "arguments": {}}},
            },
            {"type": "text", "text": "Cut off mid-sen"},
        ],
        created=2,
        metadata={"userVisible": True, "agentVisible": True, "outputTokenLimitReached": True},
    )
    db.add_message(
        "s",
        "assistant",
        [
            {
                "type": "systemNotification",
                "notificationType": "creditsExhausted",
                "msg": "You are out of credits.",
                "data": {"top_up_url": "https://example.com/top-up"},
            },
            {"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Compacted"},
        ],
        created=3,
    )
    return db


def _blocks(make_db: Callable[..., GooseDb]) -> list[list[Block]]:
    source = GooseSource(_db(make_db).path)
    rendered = [list(MessageRenderer().render(m).blocks) for m in all_messages(source, "s")]
    source.close()
    return rendered


def test_the_window_shows_the_details(make_db: Callable[..., GooseDb]) -> None:
    results, reply, notices = _blocks(make_db)
    structured = [b for b in results if b.title == "Structured content"]
    assert len(structured) == 1, "only the result whose structure adds to its text"
    assert "columns" in structured[0].html
    assert reply[0].title.startswith("Redacted reasoning")
    assert "run by the client" in reply[1].title
    assert reply[-1].title == "Output token limit"
    assert [b.title for b in notices] == ["Credits exhausted", "Note"]
    assert 'href="https://example.com/top-up"' in notices[0].html


def test_the_markdown_export_shows_them_too(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db(make_db)
    assert main(["--db", str(db.path), "show", "s"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.count("*Structured content:*") == 1
    assert "*Redacted reasoning" in markdown
    assert "run by the client" in markdown
    assert "output token limit" in markdown
    assert "*Credits exhausted:* You are out of credits. <https://example.com/top-up>" in markdown
    assert "inlineMessage" not in markdown


@pytest.mark.parametrize(
    ("kind", "label"),
    [
        ("inlineMessage", "Note"),
        ("creditsExhausted", "Credits exhausted"),
        ("contextCompacted", "Context compacted"),
        ("some_new_kind", "Some new kind"),
        ("", "Notice"),
    ],
)
def test_notification_labels(kind: str, label: str) -> None:
    assert notification_label(kind) == label
