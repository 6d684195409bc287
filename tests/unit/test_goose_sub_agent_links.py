"""A goose `delegate` card links to the sub-agent's session it started (#19 item 3).

goose's summon extension (block/goose `crates/goose/src/agents/platform_extensions/summon.rs`)
makes the child session (`session_type` `SubAgent`, `parent_session_id` the caller) and puts
its id in the `_meta.subagent_session_id` of the `delegate` result (and of a `load` that waits
on a background task); the rows below are that shape as goose stores a message
(`toolResponse.toolResult` `{status, value: CallToolResult}`, rmcp's `_meta`). goose itself is
not run here (its build needs crates.io, which this machine cannot reach)."""

from collections.abc import Callable
from typing import Any

from desktop_app.domain.parts import ToolResultPart
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME, MessageRenderer
from desktop_app.sources.common.goose_json.content import parse_block
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages

PARENT, CHILD, BACKGROUND = "20260301_1", "20260301_2", "20260301_3"


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def _response(call_id: str, text: str, meta: Any = None, *, error: bool = False) -> dict[str, Any]:
    value: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if meta is not None:
        value["_meta"] = meta
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": value},
    }


def _result(block: dict[str, Any]) -> ToolResultPart:
    part = parse_block(block)
    assert isinstance(part, ToolResultPart)
    return part


def test_a_delegate_result_names_the_session_it_started() -> None:
    done = _response("d1", "Audited: 4 outdated", {"subagent_session_id": CHILD})
    assert _result(done).opens_session == CHILD
    failed = _response("d2", "Delegation failed: boom", {"subagent_session_id": CHILD}, error=True)
    assert _result(failed).opens_session == CHILD, "a failed sub-agent's transcript says why"
    waited = {"subagent_session_id": BACKGROUND, "task_status": "completed", "turns_taken": 3}
    assert _result(_response("l1", "# Background Task Result", waited)).opens_session == BACKGROUND


def test_a_result_that_names_no_session_links_to_none() -> None:
    assert _result(_response("d1", "done")).opens_session is None
    for meta in ({}, {"subagent_session_id": ""}, {"subagent_session_id": 7}, ["x"], "x"):
        assert _result(_response("d1", "done", meta)).opens_session is None
    envelope = {"type": "toolResponse", "id": "d1", "toolResult": {"status": "error", "error": "x"}}
    assert _result(envelope).opens_session is None


def delegating_history(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session(PARENT, name="Audit the services")
    db.add_session(CHILD, name="Delegated task", session_type="sub_agent", parent_session_id=PARENT)
    db.add_session(
        BACKGROUND, name="Delegated task", session_type="sub_agent", parent_session_id=PARENT
    )
    db.add_message(PARENT, "user", "Audit payments-api and web-dashboard", created=1)
    db.add_message(
        PARENT,
        "assistant",
        [
            _call("d1", "delegate", {"instructions": "Audit payments-api dependencies"}),
            _call("d2", "delegate", {"instructions": "Audit web-dashboard", "async": True}),
        ],
        created=2,
    )
    db.add_message(
        PARENT,
        "user",
        [
            _response("d1", "payments-api: 4 outdated", {"subagent_session_id": CHILD}),
            _response("d2", f"Task {BACKGROUND} started", {"subagent_session_id": BACKGROUND}),
        ],
        created=3,
    )
    db.add_message(CHILD, "user", "Audit payments-api dependencies", created=2)
    db.add_message(BACKGROUND, "user", "Audit web-dashboard", created=2)
    return db


def test_each_delegate_card_in_the_window_opens_its_own_sub_agent(
    make_db: Callable[..., GooseDb],
) -> None:
    source = GooseSource(delegating_history(make_db).path)
    try:
        results = all_messages(source, PARENT)[2]
        child = source.get_session(CHILD)
    finally:
        source.close()
    html = "".join(b.html for b in MessageRenderer().render(results).blocks)
    assert html.count(f'href="{SESSION_SCHEME}:') == 2
    first, second = (
        html.index(f"{SESSION_SCHEME}:{CHILD}"),
        html.index(f"{SESSION_SCHEME}:{BACKGROUND}"),
    )
    assert first < html.index("payments-api: 4 outdated") < second, "each link above its result"
    assert child.parent_session_id == PARENT, "the id goose named is the child goose made"
