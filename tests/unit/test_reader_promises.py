"""Promises of the file readers and of the combined history that no test noticed when they were
broken (issue #18, item 15: a mutation pass). Each test here was checked by breaking the line
it guards once; the table is docs/mutation-pass.md."""

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import NotificationPart, TextPart, UnsupportedPart
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import SessionQuery, SessionState, SourceInfo
from desktop_app.sources.registry import open_history

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CLAUDE_CODE = FIXTURES / "agents" / "claude_code" / "written"
V21_TITLES = CLAUDE_CODE / "2.1.110" / "-tmp-ccrun-v21110-payments-api"
COMPACTED = "6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e"
"""Claude Code 2.1.110 (tests/fixtures/agents/README.md): a prompt, its answer, `/compact`."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _notices(messages: Sequence[Message]) -> list[NotificationPart]:
    return [p for m in messages for p in m.parts if isinstance(p, NotificationPart)]


# ---- the combined history's change feed ------------------------------------------------------


class _Feed:
    """A history with a change feed that answers `answer` (`None`: it cannot tell)."""

    def __init__(self, kind: str, answer: frozenset[str] | None) -> None:
        self.kind = kind
        self.answer = answer

    def info(self) -> SourceInfo:
        return SourceInfo(kind=self.kind, location=f"/histories/{self.kind}")

    def change_token(self) -> str:
        return f"{self.kind}-token"

    def changed_since(self, token: str) -> frozenset[str] | None:
        assert token == f"{self.kind}-token"
        return self.answer

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        return {}


class _NoFeed:
    """A history that cannot say what changed at all (no `change_token`)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def info(self) -> SourceInfo:
        return SourceInfo(kind=self.kind, location=f"/histories/{self.kind}")


def _combined(*sources: object) -> CombinedHistory:
    return CombinedHistory(sources)  # type: ignore[arg-type]  # stubs of the protocols used


def test_one_historys_unknown_makes_the_combined_feed_say_anything_may_have_changed() -> None:
    """The window and the search index read `None` as "look at everything again"; a combined
    feed that dropped one history's `None` would report "nothing changed" there for good."""
    known = _Feed("goose", frozenset({"a"}))
    unknown = _Feed("toolnexus", None)
    for histories in ((known, unknown), (unknown, known)):
        combined = _combined(*histories)
        assert combined.changed_since(combined.change_token()) is None
    both = _combined(known, _Feed("pi", frozenset({"b"})))
    assert both.changed_since(both.change_token()) == frozenset({"goose:a", "pi:b"})
    nothing = _combined(known, _Feed("pi", frozenset()))
    assert nothing.changed_since(nothing.change_token()) == frozenset({"goose:a"})


def test_a_history_without_a_feed_or_a_token_of_other_histories_is_unknown() -> None:
    known = _Feed("goose", frozenset())
    without = _combined(known, _NoFeed("glean-json"))
    token = without.change_token()
    assert json.loads(token) == ["goose-token", None]
    assert without.changed_since(token) is None
    alone = _combined(known)
    assert alone.changed_since(alone.change_token()) == frozenset()
    assert alone.changed_since(json.dumps(["goose-token", "goose-token"])) is None  # one more
    assert alone.changed_since("not json") is None


# ---- Claude Code ---------------------------------------------------------------------------


def test_the_line_after_a_compaction_boundary_is_its_summary_flag_or_not(tmp_path: Path) -> None:
    """The 2.1.110 compaction with `isCompactSummary` taken off its summary line: the line after
    the boundary is the summary still (a notice), never a prompt that names the session."""
    lines = _lines(V21_TITLES / f"{COMPACTED}.jsonl")
    for line in lines:
        line.pop("isCompactSummary", None)
    folder = tmp_path / "project"
    folder.mkdir()
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / f"{COMPACTED}.jsonl").write_text(text, encoding="utf-8")
    messages = list(iter_messages(open_history(folder), COMPACTED))
    summaries = [n for n in _notices(messages) if n.notification_type == "compactionSummary"]
    assert len(summaries) == 1
    assert summaries[0].text.startswith("This session is being continued")
    prompts = [m for m in messages if m.is_prompt and m.visibility.user]
    assert len(prompts) == 1
    assert not any(
        isinstance(p, TextPart) and p.text.startswith("This session is being continued")
        for m in prompts
        for p in m.parts
    )


def test_each_claude_code_reply_names_its_own_model() -> None:
    """ "The model per reply": each reply's requested model is its lines' `message.model`, in
    every version the stub was recorded with."""
    for log in sorted(CLAUDE_CODE.glob("*/*/*.jsonl")):
        models = {
            line["message"]["id"]: line["message"]["model"]
            for line in _lines(log)
            if line.get("type") == "assistant" and line["message"].get("model") != "<synthetic>"
        }
        source = open_history(log.parent)
        replies = [
            m
            for m in iter_messages(source, log.stem)
            if m.role is Role.ASSISTANT and not m.synthetic
        ]
        assert replies, log
        for reply in replies:
            (line_id,) = {
                raw["message"]["id"]
                for raw in (reply.metadata_raw.get("lines") or [reply.metadata_raw])
            }
            assert reply.inference is not None
            assert reply.inference.requested_model == models[line_id]


# ---- Codex ---------------------------------------------------------------------------------

CODEX_DAY = FIXTURES / "agents" / "codex" / "cli" / "2026" / "12" / "01"
CODEX_FOUR_TURNS = "rollout-2026-12-01T09-05-37-01a230da-37ba-73b2-b6ea-3ce96d36fe7d.jsonl"
"""Codex CLI 0.77.0 (tests/fixtures/agents/README.md): four turns, each with its
`turn_context`."""


def test_a_codex_model_switch_names_the_session_and_its_later_replies(tmp_path: Path) -> None:
    """The genuine four-turn rollout with its last `turn_context` naming another model, as
    `/model` between turns leaves it: the session's model is the newest, each reply the one of
    its turn."""
    lines = _lines(CODEX_DAY / CODEX_FOUR_TURNS)
    contexts = [i for i, line in enumerate(lines) if line.get("type") == "turn_context"]
    lines[contexts[-1]]["payload"]["model"] = "gpt-5.1-codex-max"
    day = tmp_path / "2026" / "12" / "01"
    day.mkdir(parents=True)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (day / CODEX_FOUR_TURNS).write_text(text, encoding="utf-8")
    source = open_history(tmp_path)
    (session,) = iter_sessions(source, SessionQuery(session_types=None))
    assert session.model == "gpt-5.1-codex-max"
    models = [
        m.inference.requested_model
        for m in iter_messages(source, session.id)
        if m.role is Role.ASSISTANT and m.inference is not None
    ]
    assert models[0] == "gpt-5.1-codex"
    assert models[-1] == "gpt-5.1-codex-max"


# ---- Gemini CLI ----------------------------------------------------------------------------

GEMINI_LIBRARY = FIXTURES / "agents" / "gemini_cli" / "library"
GEMINI_CANCELLED = "c4d5e6f7-0000-4000-8000-00000000abcd"
"""Written by gemini-cli-core's own `ChatRecordingService` (tests/fixtures/agents/README.md):
tool calls `success`, `cancelled` and `error`, and an `info` record "Request cancelled."."""


def _gemini_copy(tmp_path: Path, record_type: str) -> Path:
    """The genuine recording with its `info` record's type set to `record_type`."""
    folder = tmp_path / "library"
    shutil.copytree(GEMINI_LIBRARY, folder)
    (log,) = folder.glob("*/chats/session-*-c4d5e6f7.jsonl")
    lines = _lines(log)
    for line in lines:
        if line.get("type") == "info":
            line["type"] = record_type
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


@pytest.mark.parametrize("record_type", ["info", "warning"])
def test_gemini_info_and_warning_records_are_the_users_never_the_models(
    tmp_path: Path, record_type: str
) -> None:
    """gemini-cli's `convertSessionToClientHistory` (packages/core/src/utils/sessionUtils.ts)
    skips `info`, `warning` and `error` records when it rebuilds what the model is sent on
    resuming: shown, but never the model's context."""
    folder = GEMINI_LIBRARY if record_type == "info" else _gemini_copy(tmp_path, record_type)
    messages = list(iter_messages(open_history(folder), GEMINI_CANCELLED))
    (said,) = [n for n in _notices(messages) if n.text == "Request cancelled."]
    (message,) = [m for m in messages if said in m.parts]
    assert message.visibility.user
    assert not message.visibility.agent


def test_gemini_error_records_are_never_the_models(tmp_path: Path) -> None:
    messages = list(iter_messages(open_history(_gemini_copy(tmp_path, "error")), GEMINI_CANCELLED))
    (message,) = [
        m
        for m in messages
        if any(getattr(p, "message", None) == "Request cancelled." for p in m.parts)
    ]
    assert message.visibility.user
    assert not message.visibility.agent


# ---- toolnexus and glean ---------------------------------------------------------------------

GENUINE = FIXTURES / "genuine"


def test_toolnexus_compaction_leaves_notices_never_prompts() -> None:
    """toolnexus' own compactor run on a conversation it wrote (tests/fixtures/genuine/README.md):
    its `[Summary of earlier conversation]` and "Before continuing:" system messages are
    notices the user sees; the leading system prompt stays the agent's only; the title is the
    prompt after them."""
    source = open_history(GENUINE / "toolnexus_compacted")
    (session,) = iter_sessions(source, SessionQuery(session_types=None))
    messages = list(iter_messages(source, session.id))
    prompt, summary, reminder, asked = messages
    assert not prompt.visibility.user
    assert prompt.visibility.agent
    notices = _notices(messages)
    assert [n.notification_type for n in notices] == ["compaction", "reminder"]
    assert notices[0].text.startswith("[Summary of earlier conversation]\n")
    assert notices[1].text.startswith("Before continuing:")
    for notice in (summary, reminder):
        assert notice.role is Role.SYSTEM
        assert notice.visibility.user
        assert not notice.is_prompt
    assert asked.is_prompt
    assert session.name == "Now compare the two charts."


def test_glean_parts_and_messages_of_other_types_are_shown_as_unsupported(
    tmp_path: Path,
) -> None:
    """`docs/formats/glean-json.md`: a part or message of a type the format does not define is
    shown as unsupported, its JSON whole, never dropped."""
    document = json.loads((GENUINE / "glean" / "atlantis.json").read_text(encoding="utf-8"))
    future_message = {"type": "critique_message", "content": "Be briefer."}
    future_part = {"type": "assistant_image", "media_type": "image/png", "data": "AAAA"}
    future_user_part = {"type": "user_audio", "media_type": "audio/wav"}
    document["messages"].append(future_message)
    document["messages"][2]["content"].append(future_part)
    document["messages"][1]["content"].append(future_user_part)
    folder = tmp_path / "glean"
    folder.mkdir()
    (folder / "atlantis.json").write_text(json.dumps(document), encoding="utf-8")
    messages = list(iter_messages(open_history(folder), "atlantis"))
    unsupported = [p for m in messages for p in m.parts if isinstance(p, UnsupportedPart)]
    assert [json.loads(p.raw_text) for p in unsupported] == [
        future_user_part,
        future_part,
        future_message,
    ]
    assert all(p.reason for p in unsupported)
    assert len(messages) == len(document["messages"])
