"""Arbitrary and broken goose rows go through parsing, every renderer and the search document
without an exception escaping (issue #5, point 2). 2,000 examples a run; a longer soak is
`pytest -m slow tests/unit/test_fuzz_pipeline.py`."""

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.domain.parts import UnsupportedPart
from desktop_app.domain.session import Session
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.json_export import message_to_json
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.redact import redact_text
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.search.documents import to_document
from desktop_app.sources.goose.rows import message_from_row
from tests.fixtures.goose_json import BLOCK_TYPES

TYPES = [*BLOCK_TYPES, "toolInputDelta"]
KEYS = [
    "type",
    "text",
    "id",
    "toolCall",
    "toolResult",
    "value",
    "status",
    "error",
    "data",
    "content",
    "annotations",
    "audience",
    "arguments",
    "name",
    "msg",
    "thinking",
    "signature",
    "mimeType",
    "resource",
    "uri",
    "isError",
    "actionType",
    "notificationType",
    "kind",
    "message",
]
strings = st.text(max_size=40) | st.sampled_from(
    ["\ud800", "\u202e", "<script>x</script>", "x" * 5000]
)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | strings
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=25,
)
blocks = st.builds(
    lambda kind, body: {**body, "type": kind} if isinstance(body, dict) else body,
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6) | json_values,
)
content = (
    st.lists(blocks, max_size=6).map(json.dumps)
    | json_values.map(json.dumps)
    | st.text(max_size=60)
    | st.just("[" * 5000 + "]" * 5000)
)
metadata = (
    st.none()
    | st.text(max_size=30)
    | json_values.map(json.dumps)
    | st.sampled_from(
        ['{"userVisible":false}', '{"userVisible":true,"agentVisible":true}', "{not json"]
    )
)
rows = st.fixed_dictionaries(
    {
        "id": st.integers(1, 10**9),
        "session_id": st.just("s"),
        "role": st.sampled_from(["user", "assistant", "system", "", "tool"]),
        "content_json": content,
        "created_timestamp": st.integers(-(10**13), 10**14) | st.none(),
        "metadata_json": metadata,
        "message_id": st.none() | st.text(max_size=10),
    }
)

SESSION = Session(id="s", name="fuzz")


def _through_everything(row: dict[str, Any]) -> None:
    message = message_from_row(row)
    for part in message.parts:
        if isinstance(part, UnsupportedPart):
            assert part.reason
    MessageRenderer().render(message, {})
    MessageRenderer(dark=True).render(message, {})
    markdown = MarkdownWriter(include_hidden=True).message(message)
    redact_text(markdown)
    HtmlWriter(include_hidden=True).message(message)
    json.dumps(message_to_json(message))
    document = to_document(message)
    for column in (document.body, document.reasoning, document.tools, document.output):
        column.encode("utf-8")


@settings(max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows)
def test_any_row_renders_everywhere(row: dict[str, Any]) -> None:
    _through_everything(row)


@pytest.mark.slow
@settings(max_examples=50_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows)
def test_soak_any_row_renders_everywhere(row: dict[str, Any]) -> None:
    _through_everything(row)
