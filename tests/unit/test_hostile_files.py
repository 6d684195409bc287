"""Attacks on the file readers: empty, truncated, garbage, huge, deeply nested, wrong types in
every field, duplicate ids, odd timestamps, symlink loops, files that vanish, an export aimed at
the history itself, and secrets through `--redact`. Each ends in one sentence or an
"unsupported" session, in bounded time, with the user's files untouched."""

import copy
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.domain.parts import TextPart, UnsupportedPart
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.sources.files.history import MAX_FILE_BYTES, FileHistory
from desktop_app.sources.glean.format import FORMAT as GLEAN
from desktop_app.sources.goose_export.format import FORMAT as GOOSE_EXPORT
from desktop_app.sources.goose_legacy.format import FORMAT as GOOSE_LEGACY
from desktop_app.sources.registry import open_history
from desktop_app.sources.toolnexus.format import FORMAT as TOOLNEXUS
from tests.fixtures import histories

DOCUMENTS: dict[str, Callable[[], Any]] = {
    "toolnexus-openai": histories.toolnexus_openai,
    "toolnexus-anthropic": histories.toolnexus_anthropic,
    "glean": histories.glean_conversation,
    "goose-export": histories.goose_export,
}
FORMATS = {
    "toolnexus-openai": TOOLNEXUS,
    "toolnexus-anthropic": TOOLNEXUS,
    "glean": GLEAN,
    "goose-export": GOOSE_EXPORT,
}
ODD_VALUES: list[Any] = [None, 0, -1, 1.5, 10**30, True, "", "x" * 300, [], {}, [[[]]]]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(document)
    target = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return changed


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_wrong_type_in_any_field_never_breaks_reading(name: str, tmp_path: Path) -> None:
    """Every field of a real document, replaced in turn by values of every other type: the
    parser returns a session (perhaps with unsupported parts) or refuses the file in a way the
    reader turns into an unsupported session — never anything else."""
    document = DOCUMENTS[name]()
    chosen = FORMATS[name]
    path = tmp_path / "c.json"
    tried = 0
    for field_path in _paths(document):
        for value in ODD_VALUES:
            path.write_text(json.dumps(_replaced(document, field_path, value)), encoding="utf-8")
            source = FileHistory(path, [chosen], None)
            (session,) = iter_sessions(source, EVERY_SESSION)
            list(iter_messages(source, session.id))  # may be empty: an empty conversation
            tried += 1
    assert tried > 200


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "could not be read"),
        (b'[{"role": "user", "content": "cut', "could not be read"),
        (os.urandom(4096), "could not be read"),
        (b"[" * 10_000 + b"]" * 10_000, "could not be read"),
        (b'{"format": "glean-json/1", "messages": ' + b"[" * 10_000, "could not be read"),
    ],
)
def test_broken_files_are_unsupported_sessions(content: bytes, why: str, tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "good.json", histories.toolnexus_openai())
    histories.write_json(folder / "good2.json", histories.toolnexus_anthropic())
    (folder / "bad.json").write_bytes(content)
    before = (folder / "bad.json").read_bytes()
    source = open_history(folder, cache_dir=tmp_path / "cache")
    bad = list(iter_messages(source, "bad"))
    assert isinstance(bad[0].parts[0], UnsupportedPart)
    assert why in bad[0].parts[0].reason
    assert len(list(iter_messages(source, "good"))) == 6
    assert (folder / "bad.json").read_bytes() == before


def test_a_file_above_the_size_bound_is_not_parsed(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "good.json", histories.toolnexus_openai())
    with (folder / "huge.json").open("wb") as handle:
        handle.write(b"[")
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: large without writing it
    source = open_history(folder, cache_dir=tmp_path / "cache")
    huge = list(iter_messages(source, "huge"))
    assert "too large to read" in huge[0].parts[0].reason  # type: ignore[union-attr]


def test_one_long_line_of_50_mb_reads_in_bounded_time(tmp_path: Path) -> None:
    text = "word " * 10_000_000
    path = histories.write_json(tmp_path / "t" / "long.json", [{"role": "user", "content": text}])
    assert path.stat().st_size > 50_000_000
    source = open_history(path, cache_dir=tmp_path / "cache")
    (message,) = list(iter_messages(source, "long"))
    part = message.parts[0]
    assert isinstance(part, TextPart)
    assert len(part.text) == len(text)


def test_goose_legacy_lines_broken_in_every_way(tmp_path: Path) -> None:
    path = histories.goose_legacy(tmp_path / "20250101_1.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]
    lines.insert(3, "\x00\x01 binary")
    lines.insert(4, "[" * 5_000)
    lines.insert(5, '"a string, not a message"')
    path.write_text("\n".join(lines), encoding="utf-8")
    source = FileHistory(path, [GOOSE_LEGACY], None)
    messages = list(iter_messages(source, "20250101_1"))
    unsupported = [m for m in messages if isinstance(m.parts[0], UnsupportedPart)]
    assert len(unsupported) == 4
    assert len(messages) == 7
    path.write_text('"not metadata"\n', encoding="utf-8")
    assert list(iter_messages(FileHistory(path, [GOOSE_LEGACY], None), "20250101_1"))


def test_duplicate_ids_and_odd_timestamps_in_exports(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    for index, stamp in enumerate(
        ["2026-03-01T10:00:00Z", 1772359200, 1772359200123, "not a time", None, 1.5e9]
    ):
        document = histories.goose_export("same-id")
        document["updated_at"] = stamp
        document["conversation"][0]["created"] = stamp
        histories.write_json(folder / f"e{index}.json", document)
    source = open_history(folder, cache_dir=tmp_path / "cache")
    ids = [s.id for s in iter_sessions(source, EVERY_SESSION)]
    assert len(ids) == len(set(ids)) == 6
    assert "same-id" in ids
    for session_id in ids:
        assert list(iter_messages(source, session_id))


def test_symlink_loops_unreadable_and_vanishing_files(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    histories.write_json(folder / "good.json", histories.toolnexus_openai())
    os.symlink(folder / "loop.json", folder / "loop.json")
    os.symlink(tmp_path / "nowhere.json", folder / "dangling.json")
    os.symlink(folder, folder / "itself")
    doomed = histories.write_json(folder / "doomed.json", histories.toolnexus_openai())
    source = open_history(folder, cache_dir=tmp_path / "cache")
    ids = {s.id for s in iter_sessions(source, EVERY_SESSION)}
    assert ids == {"good", "doomed"}
    doomed.unlink()
    gone = list(iter_messages(source, "doomed"))  # listed a moment ago, gone when read
    assert gone == [] or isinstance(gone[0].parts[0], UnsupportedPart)


def test_ten_thousand_files(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    one = json.dumps([{"role": "user", "content": "hi"}])
    for index in range(10_000):
        (folder / f"c{index:05}.json").write_text(one, encoding="utf-8")
    source = open_history(folder, cache_dir=tmp_path / "cache")
    page = source.list_sessions(EVERY_SESSION, limit=50)
    assert len(page.sessions) == 50
    assert sum(1 for _ in iter_sessions(source, EVERY_SESSION)) == 10_000


def test_an_export_aimed_at_the_history_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "conversations"
    target = histories.write_json(folder / "t.json", histories.toolnexus_openai())
    before = target.read_bytes()
    for output in (target, folder / "new.md", folder / "." / "t.json"):
        code = main(["--db", str(folder), "show", "t", "-o", str(output)])
        assert code == 1
        assert "gander:" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["t.json"]


SECRET = "sk-ant-api03-" + "A1b2C3d4" * 12


def test_secrets_in_every_field_are_redacted_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conversation = histories.toolnexus_openai()
    conversation[0]["content"] = f"system key {SECRET}"
    conversation[1]["content"] = f"my key is {SECRET}"
    call = conversation[2]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps({"token": SECRET})
    conversation[3]["content"] = f"env: ANTHROPIC_API_KEY={SECRET}"
    folder = tmp_path / "tn"
    histories.write_json(folder / "leaky.json", conversation)
    glean = histories.glean_conversation()
    glean["messages"][2]["content"][0]["text"] = SECRET
    glean["messages"][3]["results"][1]["content"] = f"failed with {SECRET}"
    histories.write_json(tmp_path / "g" / "leaky.json", glean)
    for location in (folder, tmp_path / "g"):
        for fmt in ("md", "html", "json"):
            code = main(
                ["--db", str(location), "show", "leaky", "--hidden", "--redact", "--format", fmt]
            )
            out = capsys.readouterr().out
            assert code == 0
            assert SECRET not in out, (location, fmt)
            assert "[REDACTED" in out
