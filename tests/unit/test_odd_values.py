"""One odd value breaks one part, never the history (#18 item 7). Each test plants one value in
one line of a genuine log of each format (tests/fixtures/agents, tests/fixtures/everruns) and
runs what a user runs over the whole folder — `list`, `show` in Markdown, HTML and JSON (hidden
messages too), `search`, twice, the second time from the catalog: every command succeeds, the
other sessions are shown exactly as without the value, and the value itself is absent (an
unknown time, no figure) rather than a traceback for everything."""

import json
import shutil
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.cli import main
from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import Role
from desktop_app.domain.parts import ReasoningPart, RedactedReasoningPart, UnsupportedPart
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.rendering.exporting import export_session
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.codex.format import FORMAT as CODEX
from desktop_app.sources.everruns.events import StoredEvent, message_of
from desktop_app.sources.everruns.local import EverrunsEvents
from desktop_app.sources.files.history import FileHistory
from desktop_app.sources.files.values import iso_time, json_lines, whole
from desktop_app.sources.gemini_cli.format import FORMAT as GEMINI_CLI
from desktop_app.sources.pi.format import FORMAT as PI
from desktop_app.sources.registry import open_history
from tests.fixtures.postgres import PostgresServer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = FIXTURES / "agents"
FOLDERS = {
    "claude_code": AGENTS / "claude_code" / "written" / "2.1.110",
    "codex": AGENTS / "codex" / "cli",
    "gemini_cli": AGENTS / "gemini_cli" / "library",
    "pi": AGENTS / "pi" / "library",
}
FORMATS = {
    "claude_code": CLAUDE_CODE,
    "codex": CODEX,
    "gemini_cli": GEMINI_CLI,
    "pi": PI,
}
"""Each folder's format, named: a line made odd may no longer look like its format's first."""
EVERRUNS_EXPORT = FIXTURES / "everruns" / "sdk_export.json"
EDGES = ("9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00")
"""Times `fromisoformat` reads but no zone can show: past the end, before the start in UTC."""
HUGE = "1" + "0" * 5_000
"""An integer Python refuses to convert (over 4,300 digits)."""
MARK = '"__odd_value__"'


def _lines_with(path: Path, key: str, *, top: bool = False) -> list[int]:
    """The rows of a JSON-lines file whose object has `key` (at any depth, or its own)."""
    found = []
    for line in json_lines(path.read_bytes()):
        if line.value is not None and _holder(line.value, key, top=top) is not None:
            found.append(line.row)
    return found


def _holder(value: Any, key: str, *, top: bool = False) -> dict[str, Any] | None:
    """The first object (depth first) that has `key`; only the line's own, when `top`."""
    if top:
        return value if isinstance(value, dict) and key in value else None
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if key in item:
                return item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _plant(path: Path, row: int, key: str, literal: str, *, top: bool = False) -> None:
    """Replace the first `key` of line `row` (or the line's own, when `top`) by the JSON text
    `literal`, the rest of the file byte for byte as it was."""
    lines = path.read_bytes().split(b"\n")
    value = json.loads(lines[row])
    holder = _holder(value, key, top=top)
    assert holder is not None
    holder[key] = "__odd_value__"
    lines[row] = json.dumps(value).replace(MARK, literal).encode()
    path.write_bytes(b"\n".join(lines))


def _largest(folder: Path) -> Path:
    return max((p for p in folder.rglob("*.json*") if p.is_file()), key=lambda p: p.stat().st_size)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _everything(folder: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What every command shows of the folder: its list, each session in each format, a
    search; each command must succeed."""
    db = ["--db", str(folder)]
    listed = json.loads(_run(capsys, *db, "list", "--json", "--all"))
    shown = {
        row["id"]: {
            form: _run(capsys, *db, "show", row["id"], "--format", form, "--hidden")
            for form in ("md", "html", "json")
        }
        for row in listed
    }
    for forms in shown.values():
        json.loads(forms["json"], parse_constant=_not_json)  # standard JSON: no NaN, Infinity
    found = _run(capsys, *db, "search", "the", "--json")
    return {"list": listed, "shown": shown, "search": json.loads(found)}


def _not_json(word: str) -> None:
    raise AssertionError(f"{word} is not JSON")


def _without_location(shown: str, folder: Path) -> str:
    return shown.replace(str(folder), "<folder>")


def _compare(
    planted: dict[str, Any],
    pristine: dict[str, Any],
    folders: tuple[Path, Path],
    odd: str,
    *,
    same_count: bool = True,
) -> None:
    """The planted folder lists the same sessions (their order may change: `odd` lost a time);
    every session but `odd` is shown exactly as in the pristine folder, `odd` with as many
    messages (unless the value took a message with it: `same_count`)."""
    assert sorted(row["id"] for row in planted["list"]) == sorted(
        row["id"] for row in pristine["list"]
    )
    assert all(row["updated_at"] is not None for row in planted["list"])
    for sid, forms in pristine["shown"].items():
        if sid == odd:
            continue
        for form, text in forms.items():
            mine = _without_location(planted["shown"][sid][form], folders[0])
            assert mine == _without_location(text, folders[1]), (sid, form)
    if same_count:
        counted = {
            key: len(json.loads(shown["shown"][odd]["json"])["messages"])
            for key, shown in (("planted", planted), ("pristine", pristine))
        }
        assert counted["planted"] == counted["pristine"]


def _session_of(path: Path) -> str:
    """The id of the file's session (as its folder lists it: these ids are unique)."""
    source = open_history(path)
    try:
        (session,) = iter_sessions(source, EVERY_SESSION)
    finally:
        source.close()
    return session.id


@pytest.fixture
def pristine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[[str], tuple[Path, dict[str, Any]]]:
    def make(name: str) -> tuple[Path, dict[str, Any]]:
        folder = tmp_path / f"pristine-{name}"
        shutil.copytree(FOLDERS[name], folder)
        return folder, _everything(folder, capsys)

    return make


# ---- the typed access layer ------------------------------------------------------------------


@pytest.mark.parametrize("text", EDGES)
def test_a_time_no_zone_can_show_is_an_unknown_time(text: str) -> None:
    assert iso_time(text) is None
    assert iso_time("2026-12-01T09:05:35.316Z") is not None


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**400, 1e308, float("nan"), True])
def test_a_figure_beyond_64_bits_is_absent(value: Any) -> None:
    assert whole(value) is None
    assert whole(2**63 - 1) == 2**63 - 1


def test_an_integer_python_cannot_convert_is_read_as_the_agents_read_it() -> None:
    """JavaScript's `JSON.parse` and serde_json read it as a float (here: infinite); the rest
    of the object is kept."""
    assert loads('{"tokens": ' + HUGE + ', "kept": 1}') == {"tokens": float("inf"), "kept": 1}
    with pytest.raises(json.JSONDecodeError):
        loads('{"tokens": ')


# ---- file readers: the folder ----------------------------------------------------------------


@pytest.mark.parametrize("edge", EDGES)
@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_an_edge_timestamp_is_an_unknown_time_for_that_message_only(
    name: str,
    edge: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pristine: Callable[[str], tuple[Path, dict[str, Any]]],
) -> None:
    clean, expected = pristine(name)
    folder = tmp_path / name
    shutil.copytree(FOLDERS[name], folder)
    log = _largest(folder)
    rows = _lines_with(log, "timestamp")
    for row in rows[1:4]:  # messages, not only the header
        _plant(log, row, "timestamp", json.dumps(edge))
    odd = _session_of(log)
    for _ in range(2):  # the second time from the catalog
        planted = _everything(folder, capsys)
        _compare(planted, expected, (folder, clean), odd)
        assert "unknown time" in planted["shown"][odd]["md"]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("claude_code", "output_tokens"),
        ("codex", "input_tokens"),
        ("gemini_cli", "input"),
        ("pi", "input"),
    ],
)
@pytest.mark.parametrize("literal", [HUGE, "1e308", "NaN", "-Infinity", str(2**63)])
def test_a_huge_or_infinite_token_count_is_absent_and_its_line_read(  # noqa: PLR0917
    name: str,
    key: str,
    literal: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pristine: Callable[[str], tuple[Path, dict[str, Any]]],
) -> None:
    clean, expected = pristine(name)
    folder = tmp_path / name
    shutil.copytree(FOLDERS[name], folder)
    log = _largest(folder)
    (row, *_) = _lines_with(log, key)
    _plant(log, row, key, literal)
    odd = _session_of(log)
    planted = _everything(folder, capsys)
    _compare(planted, expected, (folder, clean), odd)
    shown = planted["shown"][odd]
    assert "a line that is not JSON" not in shown["md"]
    assert HUGE[:400] not in json.dumps(planted["list"]) + shown["json"] + shown["md"]
    assert "1" + "0" * 308 not in shown["json"] + shown["md"]  # 1e308 is not 309 digits
    _figures_fit(planted, odd)


def _figures_fit(planted: dict[str, Any], odd: str) -> None:
    """Every token figure shown — each reply's, each session's sums — is absent or a 64-bit
    integer."""
    exported = json.loads(planted["shown"][odd]["json"])
    figures = [
        figure
        for message in exported["messages"]
        for figure in ((message["usage"] or {}).get("tokens") or {}).values()
    ]
    for row in [*planted["list"], exported["session"]]:
        figures += [*row["accumulated_usage"].values(), *row["usage"].values()]
        tree = row.get("tree_usage", {})  # the list's rows have it, the export's session not
        figures += [f for key, f in tree.items() if key.endswith("_tokens")]
    assert all(f is None or (type(f) is int and abs(f) < 2**63) for f in figures)


@pytest.mark.parametrize(
    ("name", "keys", "unset"),
    [
        ("claude_code", ("input_tokens", "output_tokens"), ()),
        ("codex", ("input_tokens", "output_tokens", "reasoning_output_tokens"), ("total_tokens",)),
        ("gemini_cli", ("input", "output", "total", "cached"), ()),
        ("pi", ("input", "output", "totalTokens"), ()),
    ],
)
def test_figures_that_add_up_past_64_bits_are_absent(
    name: str,
    keys: tuple[str, ...],
    unset: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each figure the largest 64 bits hold, in every line (and the total unset, so that it is
    added up): the sums — a reply's total, a session's totals — do not fit, and are absent
    rather than more than 64 bits, in what the reader gives and in what every command shows."""
    folder = tmp_path / name
    shutil.copytree(FOLDERS[name], folder)
    log = _largest(folder)
    for key, literal in [*((k, str(2**63 - 1)) for k in keys), *((k, "null") for k in unset)]:
        for row in _lines_with(log, key):
            _plant(log, row, key, literal)
    parsed = FORMATS[name].parse(log, log.read_bytes())
    tokens = [parsed.session.usage, parsed.session.accumulated_usage]
    tokens += [m.usage.tokens for m in parsed.messages if m.usage is not None]
    figures = [getattr(t, field.name) for t in tokens for field in fields(t)]
    assert all(f is None or abs(f) < 2**63 for f in figures)
    _figures_fit(_everything(folder, capsys), _session_of(log))


def test_a_codex_reasoning_summary_of_another_type_costs_only_that_reasoning(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pristine: Callable[[str], tuple[Path, dict[str, Any]]],
) -> None:
    clean, expected = pristine("codex")
    folder = tmp_path / "codex"
    shutil.copytree(FOLDERS["codex"], folder)
    planted_in = []
    for log in sorted(folder.rglob("*.jsonl")):
        for line in json_lines(log.read_bytes()):
            payload = (line.value or {}).get("payload")
            if isinstance(payload, dict) and payload.get("type") == "reasoning":
                _plant(log, line.row, "summary", "7")
                planted_in.append(log)
                break
        if planted_in:
            break
    assert planted_in
    odd = _session_of(planted_in[0])
    planted = _everything(folder, capsys)
    # encrypted-only reasoning was a line of the next item; of another type, it is its own
    _compare(planted, expected, (folder, clean), odd, same_count=False)
    assert "reasoning whose summary is not a list" in planted["shown"][odd]["md"]


@pytest.mark.parametrize("key", ["thoughts", "toolCalls"])
def test_gemini_thoughts_or_calls_of_another_type_are_shown_as_they_are(
    key: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pristine: Callable[[str], tuple[Path, dict[str, Any]]],
) -> None:
    clean, expected = pristine("gemini_cli")
    folder = tmp_path / "gemini"
    shutil.copytree(FOLDERS["gemini_cli"], folder)
    log = _largest(folder)
    *_, row = _lines_with(log, key, top=True)  # the last copy of a record is the one shown
    _plant(log, row, key, "5", top=True)
    odd = _session_of(log)
    planted = _everything(folder, capsys)
    # without calls there are no results: the message of the reply's results is not there
    _compare(planted, expected, (folder, clean), odd, same_count=key == "thoughts")
    assert f"{key} that are not a list" in planted["shown"][odd]["md"]


# ---- everruns ---------------------------------------------------------------------------------


def _export(tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    """The genuine SDK export, changed, written as an export file (JSON text, so that a planted
    literal goes in as written)."""
    events = json.loads(EVERRUNS_EXPORT.read_text(encoding="utf-8"))
    change(events)
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events).replace(MARK, HUGE), encoding="utf-8")
    return path


def test_an_everruns_event_with_a_5000_digit_integer_costs_only_that_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(events: list[dict[str, Any]]) -> None:
        usage = next(e["data"]["usage"] for e in events if "usage" in e["data"])
        usage["input_tokens"] = "__odd_value__"

    path = _export(tmp_path, change)
    source = open_history(str(path))
    (session,) = [s for s in iter_sessions(source, EVERY_SESSION) if s.parent_session_id is None]
    messages = list(iter_messages(source, session.id))
    source.close()
    assert len(messages) > 10
    replies = [m for m in messages if m.usage is not None]
    assert replies[0].usage is not None
    assert replies[0].usage.tokens.input_tokens is None
    assert replies[0].usage.tokens.output_tokens is not None
    for form in ("md", "html", "json"):
        _run(capsys, "--db", str(path), "show", session.id, "--format", form, "--hidden")
    _run(capsys, "--db", str(path), "search", "weather")


def test_an_everruns_reason_item_summary_and_a_sequence_past_64_bits(tmp_path: Path) -> None:
    def change(events: list[dict[str, Any]]) -> None:
        first = events[0]
        odd = {**first, "id": "event_odd", "type": "reason.item", "sequence": 2**63}
        odd["data"] = {"provider": "openai", "item_id": "rs_1", "summary": 5}
        events.insert(1, odd)

    path = _export(tmp_path, change)
    source = EverrunsEvents(path)
    (session, *_) = list(iter_sessions(source, EVERY_SESSION))
    messages = list(iter_messages(source, session.id))
    source.close()
    assert all(-(2**63) <= m.row_id < 2**63 for m in messages)
    (reasoning,) = [m for m in messages if m.message_id == "event_odd"]
    assert isinstance(reasoning.parts[0], UnsupportedPart)
    assert [m.role for m in messages].count(Role.USER) >= 2


def test_an_everruns_server_event_with_a_5000_digit_integer_costs_only_that_figure(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the server the number is JSONB (numeric: any length), parsed by the driver: before,
    the session and every search of the server failed; a 1e308 came back as 309 digits."""
    db = postgres.everruns_database("ev_odd_values")
    odd, other = db.add_session("Odd values"), db.add_session("Untouched")
    said = {"message": {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Why?"}]}}
    reply = {
        "message": {"id": "m2", "role": "agent", "content": [{"type": "text", "text": "Sunny."}]},
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }
    for session in (odd, other):
        db.add_events(session, [("input.message", said), ("output.message.completed", reply)])
    with postgres.connect(db.name) as conn:
        conn.execute(
            "UPDATE events SET data = jsonb_set(jsonb_set(data, '{usage,input_tokens}', "
            "%s::jsonb), '{usage,output_tokens}', '1e308'::jsonb) "
            "WHERE session_id = %s AND sequence = 2",
            (HUGE, odd),
        )
    where = ["--db", db.url]
    listed = {row["id"]: row for row in json.loads(_run(capsys, *where, "list", "--json"))}
    assert listed[other]["accumulated_usage"]["input_tokens"] == 10
    assert listed[odd]["accumulated_usage"]["input_tokens"] is None
    assert listed[odd]["accumulated_usage"]["output_tokens"] is None
    for form in ("md", "html", "json"):
        shown = _run(capsys, *where, "show", odd, "--format", form)
        assert "Sunny." in shown
        assert "1" + "0" * 308 not in shown
    found = json.loads(_run(capsys, *where, "search", "Sunny", "--json"))
    assert {hit["session_id"] for hit in found} == {odd, other}


@pytest.mark.parametrize("edge", EDGES)
def test_an_everruns_server_event_at_an_edge_time_is_an_unknown_time(
    edge: str, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """PostgreSQL holds times to 294276 AD, psycopg refuses one past 9999: before, such an
    event made the session and every search of the server one sentence of failure."""
    db = postgres.everruns_database("ev_odd_time")
    session = db.add_session("Odd time")
    said = {"message": {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Why?"}]}}
    db.add_events(session, [("input.message", said)], ts=edge)
    where = ["--db", db.url]
    for form in ("md", "html", "json"):
        assert "Why?" in _run(capsys, *where, "show", session, "--format", form)
    assert "unknown time" in _run(capsys, *where, "show", session)
    (hit,) = json.loads(_run(capsys, *where, "search", "Why", "--json"))
    assert hit["session_id"] == session


def test_an_everruns_replys_total_past_64_bits_is_absent() -> None:
    most = 2**63 - 1
    data: dict[str, Any] = {"message": {"role": "agent", "content": []}}
    data["usage"] = {"input_tokens": most, "output_tokens": most}
    message = message_of(
        StoredEvent(sequence=1, event_type="output.message.completed", data=data), "s"
    )
    assert message.usage is not None
    assert message.usage.tokens.input_tokens == most
    assert message.usage.tokens.total_tokens is None


@pytest.mark.parametrize("summary", [5, "text", {"a": 1}, None])
def test_a_reason_item_summary_of_any_type_is_one_part(summary: Any) -> None:
    event = StoredEvent(sequence=1, event_type="reason.item", data={"summary": summary})
    (part,) = message_of(event, "s").parts
    assert isinstance(part, RedactedReasoningPart | ReasoningPart | UnsupportedPart)


# ---- any odd value anywhere -------------------------------------------------------------------

ODD_LITERALS = st.sampled_from(
    [
        HUGE,
        "-" + HUGE,
        str(2**63),
        "1e308",
        "-1e308",
        "1e400",
        "NaN",
        "Infinity",
        "-Infinity",
        json.dumps(EDGES[0]),
        json.dumps(EDGES[1]),
        "7",
        "5.5",
        "true",
        "null",
        '""',
        "[]",
        "{}",
        "[7]",
        '{"text": 7}',
        '"not a time"',
    ]
)
AIMED = {
    "timestamp",
    "startTime",
    "lastUpdated",
    "summary",
    "content",
    "thoughts",
    "toolCalls",
    "usage",
    "tokens",
    "input_tokens",
    "output_tokens",
    "input",
    "output",
    "total_token_usage",
    "last_token_usage",
}
"""Fields every format reads as a time, a list or a figure: half the examples aim at one."""
GENUINE_LOGS = sorted(p for folder in FOLDERS.values() for p in folder.rglob("*.jsonl"))


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    log=st.sampled_from(GENUINE_LOGS),
    line_choice=st.integers(min_value=0),
    field_choice=st.integers(min_value=0),
    aim=st.booleans(),
    literal=ODD_LITERALS,
)
def test_any_odd_value_in_any_field_reads_and_renders(  # noqa: PLR0917
    tmp_path: Path, log: Path, line_choice: int, field_choice: int, aim: bool, literal: str
) -> None:
    """A random field of a random line of a genuine log, replaced by a random odd value: the
    folder reads, and every session of it renders in every format, without an exception."""
    folder = tmp_path / "odd"
    shutil.rmtree(folder, ignore_errors=True)
    target = folder / log.relative_to(_root(log))
    target.parent.mkdir(parents=True)
    lines = log.read_bytes().split(b"\n")
    rows = [n for n, raw in enumerate(lines) if raw.strip()]
    row = rows[line_choice % len(rows)]
    value = json.loads(lines[row])
    paths = _field_paths(value)
    aimed = [(holder, key) for holder, key in paths if key in AIMED]
    chosen = aimed if aim and aimed else paths
    holder, key = chosen[field_choice % len(chosen)]
    holder[key] = "__odd_value__"
    lines[row] = json.dumps(value).replace(MARK, literal).encode()
    target.write_bytes(b"\n".join(lines))
    source = FileHistory(folder, [FORMATS[_name(log)]], tmp_path / "cache")
    try:
        for session in iter_sessions(source, EVERY_SESSION):
            for form in ("md", "html", "json"):
                pieces: list[str] = []
                export_session(source, session, form, pieces.append, hidden=True, redact=True)
                assert pieces
    finally:
        source.close()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    event_choice=st.integers(min_value=0),
    field_choice=st.integers(min_value=0),
    aim=st.booleans(),
    literal=ODD_LITERALS,
)
def test_any_odd_value_in_any_field_of_an_everruns_event_reads_and_renders(
    tmp_path: Path, event_choice: int, field_choice: int, aim: bool, literal: str
) -> None:
    """The same for one event of the genuine SDK export: every session reads and renders."""
    events = json.loads(EVERRUNS_EXPORT.read_text(encoding="utf-8"))
    paths = _field_paths(events[event_choice % len(events)])
    aimed = [(holder, key) for holder, key in paths if key in AIMED | {"sequence", "ts"}]
    chosen = aimed if aim and aimed else paths
    holder, key = chosen[field_choice % len(chosen)]
    holder[key] = "__odd_value__"
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events).replace(MARK, literal), encoding="utf-8")
    source = EverrunsEvents(path)
    try:
        for session in iter_sessions(source, EVERY_SESSION):
            for form in ("md", "html", "json"):
                pieces: list[str] = []
                export_session(source, session, form, pieces.append, hidden=True, redact=True)
                assert pieces
    finally:
        source.close()


def _name(log: Path) -> str:
    return next(name for name, folder in FOLDERS.items() if log.is_relative_to(folder))


def _root(log: Path) -> Path:
    return FOLDERS[_name(log)]


def _field_paths(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of a parsed line, the line's own fields first."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            found.extend((item, key) for key in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.extend((item, index) for index in range(len(item)))
            stack.extend(item)
    return found
