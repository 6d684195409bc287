"""The goose export and legacy, toolnexus and glean-json readers on files their own programs
wrote (`tests/fixtures/genuine/`, each credited in its README): issue #17, items 4, 5, 9–12."""

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from desktop_app.cli import main
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    UNRECORDED,
    AudioPart,
    FilePart,
    ImagePart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.domain.source import Source
from desktop_app.domain.usage import TokenUsage
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose_export.format import load_yaml
from desktop_app.sources.registry import open_history
from desktop_app.sources.toolnexus.format import dialect

GENUINE = Path(__file__).resolve().parents[1] / "fixtures" / "genuine"
TOOLNEXUS = GENUINE / "toolnexus"


def _open(location: Path, tmp_path: Path) -> Source:
    return open_history(location, cache_dir=tmp_path / "cache")


def _messages(source: Source, session_id: str) -> list[Message]:
    return list(iter_messages(source, session_id))


def _parts(messages: list[Message], kind: type) -> list:  # type: ignore[type-arg]
    return [part for m in messages for part in m.parts if isinstance(part, kind)]


def _texts(parts: Sequence[Part]) -> list[str]:
    return [p.text for p in parts if isinstance(p, TextPart)]


def _results(messages: list[Message]) -> dict[str, ToolResultPart]:
    return {p.call_id: p for p in _parts(messages, ToolResultPart)}


def _titles(messages: list[Message]) -> list[str]:
    """The tool results' titles, their calls' names given as the window gives them."""
    names = {p.call_id: p.name for p in _parts(messages, ToolCallPart) if p.call_id and p.name}
    blocks = [b for m in messages for b in MessageRenderer().render(m, names).blocks]
    return [b.title for b in blocks if b.kind == "tool_result"]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


# ---- goose exports and legacy sessions --------------------------------------------------------


def test_a_goose_yaml_export_reads_as_serde_yaml_wrote_it(tmp_path: Path) -> None:
    """Item 4: serde_yaml writes `id: 20260611_4`, `text: yes` and times plain; they are the
    strings goose meant, not YAML 1.1's 202606114, True and datetimes."""
    source = _open(GENUINE / "goose_export", tmp_path)
    assert [s.id for s in iter_sessions(source, EVERY_SESSION)] == ["20260611_4"]
    session = source.get_session("20260611_4")
    assert session.created_at == datetime(2026, 6, 11, 9, 0, tzinfo=UTC)
    assert session.updated_at == datetime(2026, 6, 11, 9, 4, 12, 250000, tzinfo=UTC)
    messages = _messages(source, "20260611_4")
    assert not _parts(messages, UnsupportedPart)
    texts = [p.text for p in _parts(messages, TextPart)]
    assert "yes" in texts
    assert "2026-06-12" in texts
    assert _texts(_results(messages)["toolu_01"].content) == ["on"]


def test_a_catalog_an_older_gander_wrote_is_read_afresh(tmp_path: Path) -> None:
    """Upgrading must not keep what an older reader summarised: a catalog of the previous
    format (the YAML id misread, no current usage) is parsed again."""
    folder = GENUINE / "goose_export"
    list(iter_sessions(_open(folder, tmp_path), EVERY_SESSION))
    (catalog,) = (tmp_path / "cache" / "catalog").glob("*.json")
    written = json.loads(catalog.read_text(encoding="utf-8"))
    for item in written["files"].values():
        item["summary"]["id"] = "202606114"
        del item["summary"]["current_usage"]
    catalog.write_text(json.dumps({**written, "format": 1}), encoding="utf-8")
    sessions = list(iter_sessions(_open(folder, tmp_path), EVERY_SESSION))
    assert [s.id for s in sessions] == ["20260611_4"]
    assert sessions[0].usage.input_tokens == 1610


def test_goose_yaml_scalars_follow_serde_yaml() -> None:
    """serde_yaml's own scalar rules (src/de.rs `visit_untagged_scalar`), the YAML 1.2 core
    schema as Rust parses it."""
    document = load_yaml(
        b"a: 0755\nb: 0o17\nc: -0x1F\nd: 1_000\ne: 1e999\nf: .inf\ng: ~\nh: True\n"
        b"i: on\nj: 2026-06-11\nk: .5\nl: 0123.5\nm: <<\n"
    )
    assert document == {
        "a": "0755",
        "b": 15,
        "c": -31,
        "d": "1_000",
        "e": "1e999",
        "f": math.inf,
        "g": None,
        "h": True,
        "i": "on",
        "j": "2026-06-11",
        "k": 0.5,
        "l": 123.5,
        "m": "<<",
    }


def test_goose_yaml_stays_safe_and_refuses_aliases() -> None:
    with pytest.raises(yaml.YAMLError):
        load_yaml(b"working_dir: !!python/object/apply:os.getcwd []\n")
    with pytest.raises(ValueError, match="aliases"):
        load_yaml(b"working_dir: /x\nconversation: &c []\nother: *c\n")


def test_a_goose_legacy_session_keeps_its_current_usage(tmp_path: Path) -> None:
    """Item 5: the metadata line's `input_tokens`… (the provider's last usage) are the
    session's usage, beside the accumulated figures, in the listing and in the session."""
    source = _open(GENUINE / "goose_legacy", tmp_path)
    current = TokenUsage(input_tokens=2310, output_tokens=170, total_tokens=2480)
    accumulated = TokenUsage(input_tokens=6420, output_tokens=555, total_tokens=6975)
    for session in (
        next(iter(iter_sessions(source, EVERY_SESSION))),
        source.get_session("20250530_100000"),
    ):
        assert session.usage == current
        assert session.accumulated_usage == accumulated
    again = _open(GENUINE / "goose_legacy", tmp_path).get_session("20250530_100000")
    assert again.usage == current  # from the catalog the first opening wrote


# ---- toolnexus, as its client library wrote the files -----------------------------------------


def test_toolnexus_attachments_are_images_in_both_dialects(tmp_path: Path) -> None:
    """Item 9: toolnexus' own parts `{"type": "image"|"file"|"audio", "mimeType", "data",
    "name"}`, as its edge constructors made them (Anthropic has no audio block)."""
    source = _open(TOOLNEXUS, tmp_path)
    for session_id in ("openai-media", "anthropic-media", "anthropic-thinking"):
        assert not _parts(_messages(source, session_id), UnsupportedPart), session_id
    for session_id in ("openai-media", "anthropic-media"):
        prompt = next(m for m in _messages(source, session_id) if m.role is Role.USER)
        image = next(p for p in prompt.parts if isinstance(p, ImagePart))
        assert image.mime_type == "image/png"
        assert image.data_b64 is not None
        assert image.data_b64.startswith("iVBORw0KGgo")
        assert image.raw["name"] == "cat.png"
        document = next(p for p in prompt.parts if isinstance(p, FilePart))
        assert (document.mime_type, document.name) == ("application/pdf", "notes.pdf")
        assert document.data_b64 is not None
        assert document.data_b64.startswith("JVBERi0")
    prompt = next(m for m in _messages(source, "openai-media") if m.role is Role.USER)
    (memo,) = (p for p in prompt.parts if isinstance(p, AudioPart))
    assert memo.mime_type == "audio/wav"
    assert memo.data_b64 is not None
    assert memo.data_b64.startswith("UklGR")


def test_toolnexus_media_a_tool_returned_is_in_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 9: a tool's media rides in `parts` beside `content`, in both dialects; the result
    shows it after the text, and `has:image` finds the results."""
    source = _open(TOOLNEXUS, tmp_path)
    for session_id, call in (("openai-media", "call_shot"), ("anthropic-media", "toolu_shot")):
        messages = _messages(source, session_id)
        result = _results(messages)[call]
        text, image = result.content
        assert isinstance(text, TextPart)
        assert text.text == "screenshot of dashboard (2x2 png)"
        assert isinstance(image, ImagePart)
        assert image.mime_type == "image/png"
        shown = next(m for m in messages if result in m.parts)
        rendered = MessageRenderer().render(shown)
        assert any(b.kind == "image" for b in rendered.blocks)
    found = _cli(["--db", str(TOOLNEXUS), "search", "has:image role:tool"], capsys)
    assert "openai-media" in found
    assert "anthropic-media" in found


def test_toolnexus_openai_results_claim_no_outcome(tmp_path: Path) -> None:
    """Item 10: an OpenAI `tool` message records no outcome; the Anthropic dialect's
    `is_error` stays what it says."""
    source = _open(TOOLNEXUS, tmp_path)
    openai = _messages(source, "openai-media")
    failed = _results(openai)["call_atl"]
    assert not failed.is_error
    assert failed.status == UNRECORDED
    assert _titles(openai) == ["Result · screenshot", "Result · lookup", "Result · lookup"]
    anthropic = _messages(source, "anthropic-media")
    assert _results(anthropic)["toolu_atl"].is_error
    assert _titles(anthropic) == ["Result · screenshot · ✓ ok", "Result · lookup · ✗ error"]


def test_an_anthropic_reply_with_thinking_and_no_tools_is_anthropic(tmp_path: Path) -> None:
    """Item 11: pinned; the dialect has been told by its thinking block since the reader began."""
    entries = json.loads((TOOLNEXUS / "anthropic-thinking.json").read_text(encoding="utf-8"))
    assert dialect(entries) == "anthropic"
    messages = _messages(_open(TOOLNEXUS, tmp_path), "anthropic-thinking")
    assert [m.role for m in messages] == [Role.USER, Role.ASSISTANT]
    reasoning, answer = messages[1].parts
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text.startswith("17 × 23")
    assert isinstance(answer, TextPart)
    assert answer.text == "391"


def test_text_beside_tool_results_is_the_users_message(tmp_path: Path) -> None:
    """Item 11: pinned; a `before_llm` hook put the user's note in the turn carrying results."""
    messages = _messages(_open(TOOLNEXUS, tmp_path), "anthropic-media")
    roles = [m.role for m in messages]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER, Role.ASSISTANT]
    note = messages[3]
    assert [p.text for p in note.parts if isinstance(p, TextPart)] == ["Use Celsius, please."]
    assert note.visibility.user


def test_toolnexus_thinking_signatures_are_withheld(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11: as for Claude Code, a thinking signature is in no export."""
    for session_id, signature in (
        ("anthropic-thinking", "ErUBCkYIBRABGAIiQThinkingSignatureNotForDisplay9876543210"),
        ("anthropic-media", "EqQBCkgIBRABGAIiQGenuineLookingSignatureBytes0123456789"),
    ):
        assert signature in (TOOLNEXUS / f"{session_id}.json").read_text(encoding="utf-8")
        for form in ("json", "md", "html"):
            out = _cli(["--db", str(TOOLNEXUS), "show", session_id, "--format", form], capsys)
            assert signature not in out, (session_id, form)
        exported = json.loads(
            _cli(["--db", str(TOOLNEXUS), "show", session_id, "--format", "json"], capsys)
        )
        assert f"[withheld by Gander: {len(signature)} characters]" in json.dumps(exported)


# ---- glean ------------------------------------------------------------------------------------


def test_a_glean_tool_error_shows_its_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 12: `ToolResultError(tool_call_id, tool_name, error_message)` written with its
    labels as fields: the message is the result's error text, shown and exported."""
    source = _open(GENUINE / "glean", tmp_path)
    messages = _messages(source, "atlantis")
    results = _results(messages)
    assert _texts(results["toolu_01K"].content) == ['{"temp_c":4}']
    failed = results["toolu_01A"]
    assert failed.is_error
    assert failed.error_text == "no such city: Atlantis"
    shown = MessageRenderer().render(next(m for m in messages if failed in m.parts))
    assert any("no such city: Atlantis" in b.html for b in shown.blocks)
    folder = str(GENUINE / "glean")
    markdown = _cli(["--db", folder, "show", "atlantis", "--format", "md"], capsys)
    assert "**Error:** no such city: Atlantis" in markdown
    exported = json.loads(_cli(["--db", folder, "show", "atlantis", "--format", "json"], capsys))
    parts = [p for m in exported["messages"] for p in m["parts"] if p["kind"] == "tool_result"]
    assert parts[1]["error_text"] == "no such city: Atlantis"
