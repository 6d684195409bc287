"""The four file readers and the opener: each format read as its program writes it (fixtures in
`tests/fixtures/histories.py`, with their origins), recognised from what is there, one bad file
or line shown as unsupported while the rest opens, never written to."""

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from desktop_app.domain.errors import NotAHistory, SourceNotFound
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    ImagePart,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.domain.source import ChangeFeed, Source, Writable
from desktop_app.sources.files.history import FileHistory, ParsedSession
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import EXPECTED, open_history
from tests.fixtures import histories
from tests.fixtures.goose_db import GooseDb


def _messages(source: Source, session_id: str) -> list[Message]:
    return list(iter_messages(source, session_id))


def _parts(messages: list[Message], kind: type) -> list:  # type: ignore[type-arg]
    return [part for m in messages for part in m.parts if isinstance(part, kind)]


def _pairs_complete(messages: list[Message]) -> bool:
    calls = {p.call_id for p in _parts(messages, ToolCallPart)}
    results = {p.call_id for p in _parts(messages, ToolResultPart)}
    return bool(calls) and calls <= results


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_goose_export_json_and_yaml(tmp_path: Path) -> None:
    histories.write_json(tmp_path / "exports" / "kyiv.json", histories.goose_export())
    histories.goose_export_yaml(tmp_path / "exports" / "kyiv.yaml")
    single = open_history(tmp_path / "exports" / "kyiv.json", cache_dir=tmp_path / "cache")
    assert single.info().kind == "goose-export"
    folder = open_history(tmp_path / "exports", cache_dir=tmp_path / "cache")
    sessions = list(iter_sessions(folder, EVERY_SESSION))
    assert {s.id for s in sessions} == {"20260301_3", "20260301_4"}
    session = folder.get_session("20260301_3")
    assert session.name == "kyiv weather"
    assert session.working_dir == "/home/me/proj"
    assert session.accumulated_usage.total_tokens == 2331
    assert session.created_at is not None
    assert session.created_at.isoformat().startswith("2026-03-01")
    messages = _messages(folder, "20260301_3")
    assert [m.role for m in messages] == [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT]
    assert all(m.created_at is not None for m in messages)
    assert _pairs_complete(messages)
    assert _parts(messages, ReasoningPart)[0].signature == "EqQB"
    assert _parts(messages, ImagePart)[0].mime_type == "image/png"
    assert messages[0].parts[0].raw == histories.goose_conversation()[0]["content"][0]
    assert not isinstance(folder, Writable)


def test_goose_legacy_folder_with_a_bad_line(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    histories.goose_legacy(folder / "20250101_1.jsonl", bad_line=True)
    histories.goose_legacy(folder / "20250102_1.jsonl")
    source = open_history(folder, cache_dir=tmp_path / "cache")
    assert source.info().kind == "goose-legacy"
    session = source.get_session("20250101_1")
    assert session.name == "old weather chat"
    assert session.working_dir == "/home/me/old"
    assert session.accumulated_usage.total_tokens == 900
    messages = _messages(source, "20250101_1")
    unsupported = _parts(messages, UnsupportedPart)
    assert len(unsupported) == 1
    assert "line 4" in unsupported[0].reason
    assert "this is not json" in unsupported[0].raw_text
    assert len(messages) == 5
    assert _pairs_complete(messages)
    one = open_history(folder / "20250102_1.jsonl", cache_dir=tmp_path / "cache")
    assert [s.id for s in iter_sessions(one, EVERY_SESSION)] == ["20250102_1"]


def test_toolnexus_both_dialects_in_one_folder(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "thread-openai.json", histories.toolnexus_openai(), mtime=1_000)
    histories.write_json(
        folder / "thread-claude.json", histories.toolnexus_anthropic(), mtime=2_000
    )
    source = open_history(folder, cache_dir=tmp_path / "cache")
    assert source.info().kind == "toolnexus"
    listed = list(iter_sessions(source, EVERY_SESSION))
    assert [s.id for s in listed] == ["thread-claude", "thread-openai"], "by file time"

    openai = _messages(source, "thread-openai")
    assert [m.role for m in openai] == [
        Role.SYSTEM,
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.USER,
        Role.ASSISTANT,
    ]
    assert all(m.created_at is None for m in openai), "no invented times"
    assert not openai[0].visibility.user, "the system prompt is what only the agent saw"
    call = _parts(openai, ToolCallPart)[0]
    assert (call.name, call.arguments, call.call_id) == (
        "read_file",
        {"path": "notes.txt"},
        "call_1",
    )
    assert _pairs_complete(openai)
    image = _parts(openai, ImagePart)[0]
    assert image.mime_type == "image/png"
    assert image.data_b64 == histories.PNG_1PX

    claude = _messages(source, "thread-claude")
    assert [m.role for m in claude] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert _parts(claude, ReasoningPart)[0].text == "Use the tool."
    result = _parts(claude, ToolResultPart)[0]
    assert result.is_error
    assert result.call_id == "toolu_1"
    assert _pairs_complete(claude)


def test_glean_json_maps_every_type(tmp_path: Path) -> None:
    path = histories.write_json(tmp_path / "glean" / "kyiv.json", histories.glean_conversation())
    source = open_history(path.parent, cache_dir=tmp_path / "cache")
    assert source.info().kind == "glean-json"
    session = source.get_session("kyiv")
    assert session.accumulated_usage.input_tokens == 2101
    assert session.accumulated_usage.output_tokens == 230
    messages = _messages(source, "kyiv")
    assert [m.role for m in messages] == [
        Role.SYSTEM,
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
    ]
    assert _parts(messages, ReasoningPart)[0].signature == "EqQBCkgIARAB"
    assert _parts(messages, RedactedReasoningPart)[0].data == "EmwKAhgBEgy3"
    assert _parts(messages, ImagePart)[0].mime_type == "image/png"
    ok, failed = _parts(messages, ToolResultPart)
    assert not ok.is_error
    assert failed.is_error
    assert "map service down" in str(failed.raw)
    call = _parts(messages, ToolCallPart)[0]
    assert call.arguments == {"city": "Kyiv"}
    assert call.call_id == ok.call_id


def test_a_bad_file_is_one_unsupported_session(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "good.json", histories.toolnexus_openai())
    histories.write_json(folder / "good2.json", histories.toolnexus_anthropic())
    (folder / "broken.json").write_text('[{"role": "user", "content": "cut off', encoding="utf-8")
    source = open_history(folder, cache_dir=tmp_path / "cache")
    ids = {s.id for s in iter_sessions(source, EVERY_SESSION)}
    assert ids == {"good", "good2", "broken"}
    broken = _messages(source, "broken")
    assert len(broken) == 1
    part = broken[0].parts[0]
    assert isinstance(part, UnsupportedPart)
    assert "could not be read" in part.reason


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda d: histories.write_json(d / "a.json", histories.goose_export()), "goose-export"),
        (lambda d: histories.goose_export_yaml(d / "a.yaml"), "goose-export"),
        (lambda d: histories.goose_legacy(d / "a.jsonl"), "goose-legacy"),
        (lambda d: histories.write_json(d / "a.json", histories.toolnexus_openai()), "toolnexus"),
        (
            lambda d: histories.write_json(d / "a.json", histories.glean_conversation()),
            "glean-json",
        ),
        (lambda d: GooseDb(d / "s.db").path, "goose"),
    ],
)
def test_the_opener_recognises_each_kind(tmp_path: Path, make, expected: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    source = open_history(path, cache_dir=tmp_path / "cache")
    try:
        assert source.info().kind == expected
    finally:
        source.close()


def test_a_folder_holding_sessions_db_is_goose(tmp_path: Path) -> None:
    GooseDb(tmp_path / "sessions.db").close()
    source = open_history(tmp_path)
    assert isinstance(source, GooseSource)
    source.close()


@pytest.mark.parametrize(
    ("make", "sentence"),
    [
        (lambda d: d / "none.json", "There is no file or folder at {path}."),
        (lambda d: _write(d / "e.json", b""), "{path} is an empty file; expected {expected}."),
        (
            lambda d: _write(d / "notes.txt", b"hello"),
            "{path} is not a history Gander can read; expected {expected}.",
        ),
        (
            lambda d: _write(d / "other.json", b'{"hello": "world"}'),
            "{path} is not a history Gander can read; expected {expected}.",
        ),
        (
            lambda d: _folder(d / "empty"),
            "{path} holds no history Gander can read; expected {expected}.",
        ),
    ],
)
def test_unknown_inputs_get_one_sentence(tmp_path: Path, make, sentence: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    with pytest.raises((NotAHistory, SourceNotFound)) as raised:
        open_history(path, cache_dir=tmp_path / "cache")
    assert str(raised.value) == sentence.format(path=path, expected=EXPECTED)


def test_a_folder_of_two_kinds_in_equal_numbers_is_ambiguous(tmp_path: Path) -> None:
    histories.write_json(tmp_path / "a.json", histories.toolnexus_openai())
    histories.write_json(tmp_path / "b.json", histories.glean_conversation())
    with pytest.raises(NotAHistory, match=r"glean-json and toolnexus|toolnexus and glean-json"):
        open_history(tmp_path, cache_dir=tmp_path / "cache")


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    return path


def test_catalog_lives_in_gander_data_and_is_reused(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    for index in range(20):
        histories.write_json(folder / f"t{index:02}.json", histories.toolnexus_openai())
    before = _digest(folder)
    cache = tmp_path / "data"
    first = open_history(folder, cache_dir=cache)
    assert len(list(iter_sessions(first, EVERY_SESSION))) == 20
    assert list((cache / "catalog").glob("*.json")), "the catalog is in Gander's data folder"
    again = FileHistory(folder, [first.formats[0]], cache)  # type: ignore[attr-defined]
    parsed: list[str] = []
    original = again._parse

    def counting(name: str, *, keep: bool = False) -> ParsedSession:
        parsed.append(name)
        return original(name, keep=keep)

    again._parse = counting  # type: ignore[method-assign]
    assert len(list(iter_sessions(again, EVERY_SESSION))) == 20
    assert parsed == [], "an unchanged folder opens from the catalog"
    histories.write_json(folder / "t05.json", histories.toolnexus_anthropic())
    again.change_token()  # the window's poll: listings after it see the change
    assert again.get_session("t05").name == "Read missing.txt"
    assert parsed == ["t05.json"], "only the changed file is parsed again"
    for _ in iter_messages(again, "t00"):
        pass
    assert _digest(folder) == {**before, "t05.json": _digest(folder)["t05.json"]}
    assert sorted(os.listdir(folder)) == sorted(before)


def test_change_feed_sees_a_changed_file(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    path = histories.write_json(folder / "t.json", histories.toolnexus_openai(), mtime=1_000)
    source = open_history(folder, cache_dir=tmp_path / "cache")
    assert isinstance(source, ChangeFeed)
    token = source.change_token()
    revision = source.session_states(["t"])["t"].revision
    assert source.change_token() == token
    grown = [*histories.toolnexus_openai(), {"role": "user", "content": "one more"}]
    histories.write_json(path, grown, mtime=time.time())
    assert source.change_token() != token
    assert source.session_states(["t"])["t"].revision != revision
    assert _messages(source, "t")[-1].parts == (TextPart(text="one more"),)
    histories.write_json(folder / "u.json", histories.toolnexus_openai())
    assert "u" in source.session_states(None)


def test_huge_or_hostile_files_are_refused_in_a_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "ok.json", histories.toolnexus_openai())
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    source = open_history(folder, cache_dir=tmp_path / "cache")
    listed = {s.id for s in iter_sessions(source, EVERY_SESSION)}
    assert {"ok", "deep"} <= listed
    deep = _messages(source, "deep")
    assert len(deep) == 1
    assert isinstance(deep[0].parts[0], UnsupportedPart)
    export = tmp_path / "alias.yaml"
    export.write_text("working_dir: /x\nid: a\nconversation: &c []\nother: *c\n", encoding="utf-8")
    single = open_history(export, cache_dir=tmp_path / "cache")
    only = _messages(single, "alias")
    assert isinstance(only[0].parts[0], UnsupportedPart)
    assert "aliases" in only[0].parts[0].reason


def test_session_json_keeps_every_block_raw(tmp_path: Path) -> None:
    path = histories.write_json(tmp_path / "g" / "c.json", histories.glean_conversation())
    source = open_history(path, cache_dir=tmp_path / "cache")
    messages = _messages(source, "c")
    raw_blocks = [json.dumps(p.raw, sort_keys=True) for m in messages for p in m.parts]
    for message in histories.glean_conversation()["messages"]:
        blocks = message.get("content") if isinstance(message.get("content"), list) else None
        for block in blocks or message.get("results") or []:
            assert json.dumps(block, sort_keys=True) in raw_blocks


def test_a_first_opening_of_many_files_parses_in_worker_processes(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    for index in range(250):
        histories.write_json(
            folder / f"c{index:03}.json",
            [{"role": "user", "content": f"question {index}"}],
            mtime=1_700_000_000 + index,
        )
    (folder / "c999.json").write_text("[not json", encoding="utf-8")
    source = open_history(folder, cache_dir=tmp_path / "cache")
    listed = list(iter_sessions(source, EVERY_SESSION))
    assert len(listed) == 251
    assert listed[1].id == "c249"
    assert listed[1].name == "question 249"
    broken = _messages(source, "c999")
    assert isinstance(broken[0].parts[0], UnsupportedPart)
