"""The `gander` subcommands: output, JSON keys, and one clear sentence for every bad input."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from desktop_app.cli import main, paths_as_histories
from desktop_app.sources.goose import writes
from desktop_app.sources.registry import EXPECTED
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_gander

DbFactory = Callable[..., GooseDb]

SESSION_KEYS = {
    "id",
    "name",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "last_message_at",
    "archived",
    "message_count",
    "parent_session_id",
    "provider",
    "model",
    "usage",
    "accumulated_usage",
    "cost",
}
USAGE_KEYS = {
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def db(make_db: DbFactory) -> GooseDb:
    db = make_db()
    db.add_session(
        "20260102_3",
        name="Fix flaky test",
        working_dir="/home/me/proj",
        provider_name="anthropic",
        model_config_json={"model_name": "claude-sonnet-4-5", "context_limit": 200000},
        input_tokens=8000,
        output_tokens=500,
        total_tokens=8500,
        cache_read_tokens=5000,
        cache_write_tokens=1000,
        accumulated_input_tokens=24000,
        accumulated_output_tokens=1500,
        accumulated_total_tokens=25500,
        accumulated_cache_read_tokens=15000,
        accumulated_cache_write_tokens=3000,
        accumulated_cost=0.42,
    )
    db.add_message("20260102_3", "user", "why does test_x flake?", created=1767323045)
    db.add_message(
        "20260102_3",
        "assistant",
        [
            {"type": "thinking", "thinking": "Probably timing.", "signature": "sig"},
            {"type": "text", "text": "Let me run it."},
            {
                "type": "toolRequest",
                "id": "t1",
                "toolCall": {
                    "status": "success",
                    "value": {"name": "developer__shell", "arguments": {"command": "pytest -x"}},
                },
            },
        ],
        created=1767323050,
    )
    db.add_message(
        "20260102_3",
        "user",
        [
            {
                "type": "toolResponse",
                "id": "t1",
                "toolResult": {
                    "status": "success",
                    "value": {
                        "content": [
                            {"type": "text", "text": "\n".join(f"line {i}" for i in range(412))}
                        ]
                    },
                },
            }
        ],
        created=1767323060,
    )
    db.add_message(
        "20260102_3",
        "assistant",
        "secret summary",
        created=1767323061,
        metadata={"userVisible": False, "agentVisible": True},
    )
    db.add_message(
        "20260102_3",
        "assistant",
        [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}],
        created=1767323062,
    )
    return db


def test_list_json_keys_and_values(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["list", "--db", str(db.path), "--json"], capsys)
    assert (code, err) == (0, "")
    (session,) = json.loads(out)
    assert session.keys() >= SESSION_KEYS
    assert session["usage"].keys() == session["accumulated_usage"].keys() == USAGE_KEYS
    assert session["id"] == "20260102_3"
    assert session["message_count"] == 4
    assert session["archived"] is False
    assert session["provider"] == "anthropic"
    assert session["model"] == "claude-sonnet-4-5"
    assert session["cost"] == 0.42
    assert session["usage"]["cache_write_tokens"] == 1000
    assert session["accumulated_usage"]["total_tokens"] == 25500
    assert session["created_at"] == "2026-01-02T03:04:05Z"
    assert session["last_message_at"] == "2026-01-02T03:04:22Z"


def test_list_text(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["list", "--db", str(db.path)], capsys)
    assert code == 0
    assert out.startswith("20260102_3\t2026-01-02 03:04\t    4 msgs\t   $0.42\tFix flaky test\t")


def test_show_markdown_reads_well(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "20260102_3", "--db", str(db.path), "--format", "md"], capsys)
    assert code == 0
    assert out.startswith("# Fix flaky test\n")
    assert "*Total messages: 4*" in out
    assert "### User · 2026-01-02 03:04 UTC" in out
    assert "**Thinking:**\n> Probably timing." in out
    assert "#### Tool call: `developer` · `shell`" in out
    assert "```console\n$ pytest -x\n```" in out  # goose's shell call, as the command it ran
    assert "#### Tool result: `Ran pytest -x`" in out
    assert "line 59\n" in out
    assert "line 60\n" not in out
    assert "Output truncated: showing 60 of 412 lines" in out
    assert "**Image:** image/png" in out
    assert "secret summary" not in out


def test_show_markdown_with_hidden(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "20260102_3", "--db", str(db.path), "--hidden"], capsys)
    assert code == 0
    assert "secret summary" in out
    assert "*(agent only: hidden from the user)*" in out


def test_show_json_is_complete(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "20260102_3", "--db", str(db.path), "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["session"]["id"] == "20260102_3"
    messages = data["messages"]
    assert len(messages) == 4
    kinds = [[p["kind"] for p in m["parts"]] for m in messages]
    assert kinds == [["text"], ["reasoning", "text", "tool_call"], ["tool_result"], ["image"]]
    result = messages[2]["parts"][0]
    assert result["content"][0]["text"].count("\n") == 411
    assert messages[1]["parts"][2]["raw"]["toolCall"]["value"]["name"] == "developer__shell"
    assert messages[0]["created_at"] == "2026-01-02T03:04:05Z"


def test_show_to_file(db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "t.md"
    code, out, _ = run(["show", "20260102_3", "--db", str(db.path), "-o", str(out_file)], capsys)
    assert (code, out) == (0, "")
    assert out_file.read_text().startswith("# Fix flaky test")


def test_rename_archive_unarchive(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(db.path)
    assert run(["rename", "20260102_3", "  Better  ", "--db", path], capsys)[:2] == (
        0,
        "Renamed 20260102_3 to 'Better'.\n",
    )
    assert run(["archive", "20260102_3", "--db", path], capsys)[0] == 0
    _, out, _ = run(["list", "--db", path, "--json"], capsys)
    assert json.loads(out) == []
    _, out, _ = run(["list", "--db", path, "--json", "--archived"], capsys)
    (session,) = json.loads(out)
    assert (session["name"], session["archived"]) == ("Better", True)
    assert session["archived_at"] is not None
    assert run(["unarchive", "20260102_3", "--db", path], capsys)[0] == 0
    _, out, _ = run(["list", "--db", path, "--json"], capsys)
    assert [s["id"] for s in json.loads(out)] == ["20260102_3"]


def _sqlite_other(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    ("make_path", "message"),
    [
        (lambda tmp: tmp / "missing.db", "There is no file or folder at {path}."),
        (
            lambda tmp: tmp,
            "{path} holds no history Gander can read; expected " + EXPECTED + ".",
        ),
        (
            lambda tmp: _write(tmp / "empty.db", b""),
            "{path} is an empty file; expected " + EXPECTED + ".",
        ),
        (
            lambda tmp: _write(tmp / "random.db", os.urandom(4096)),
            "{path} is not a history Gander can read; expected " + EXPECTED + ".",
        ),
        (
            lambda tmp: _sqlite_other(tmp / "other.db"),
            "{path} is an SQLite database but not goose's session store"
            " (it has no sessions and messages tables).",
        ),
    ],
)
@pytest.mark.parametrize(
    "command", [["list"], ["show", "x"], ["rename", "x", "n"], ["archive", "x"], ["unarchive", "x"]]
)
def test_bad_sources_get_one_sentence_and_exit_1(
    tmp_path: Path,
    make_path: Callable[[Path], Path],
    message: str,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = make_path(tmp_path)
    code, out, err = run([*command, "--db", str(path)], capsys)
    assert code == 1
    assert out == ""
    assert err == f"gander: {message.format(path=path)}\n"


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "command",
    [["show", "nope"], ["rename", "nope", "x"], ["archive", "nope"], ["unarchive", "nope"]],
)
def test_unknown_session_id(
    db: GooseDb, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*command, "--db", str(db.path)], capsys)
    assert (code, out) == (1, "")
    assert err == "gander: There is no session with id 'nope'.\n"


def test_empty_name_refused(db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["rename", "20260102_3", "   ", "--db", str(db.path)], capsys)
    assert code == 1
    assert err == "gander: A session name cannot be empty.\n"


def test_truncated_sqlite_file(
    db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = db.path.read_bytes()
    broken = _write(tmp_path / "truncated.db", data[: len(data) // 3])
    code, out, err = run(["list", "--db", str(broken)], capsys)
    assert code == 1
    assert out == ""
    assert err.startswith("gander: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_no_goose_database_falls_back_to_demo_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["list", "--json"], capsys)
    assert code == 0
    assert "demo history" in err
    assert len(json.loads(out)) >= 24


def test_real_process_exit_code_and_no_traceback(tmp_path: Path) -> None:
    result = run_gander("show", "x", "--db", str(tmp_path / "nope.db"))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == f"gander: There is no file or folder at {tmp_path / 'nope.db'}.\n"


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["show"])
    assert exit_info.value.code == 2


def test_show_html_is_self_contained_and_safe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, listing, _ = run(["list", "--demo", "--json"], capsys)
    assert code == 0
    ids = {s["name"]: s["id"] for s in json.loads(listing)}
    out = tmp_path / "t.html"
    for name in ("Latency spike after Redis migration", "Q3 report and build clean-up"):
        code, _, _ = run(["show", ids[name], "--demo", "--format", "html", "-o", str(out)], capsys)
        assert code == 0
        html = out.read_text()
        assert html.startswith("<!doctype html>")
        assert "Content-Security-Policy" in html
        assert "default-src 'none'" in html
        assert "<script" not in html.lower().replace("&lt;script", "")
        assert 'src="http' not in html
        assert "<details" in html
    latency = run(
        ["show", ids["Latency spike after Redis migration"], "--demo", "--format", "html"], capsys
    )[1]
    assert latency.count('alt="image" src="data:image/png;base64,') == 3
    edge = run(["show", ids["Q3 report and build clean-up"], "--demo", "--format", "html"], capsys)[
        1
    ]
    assert "&lt;script&gt;alert" in edge
    assert "Unsupported content" in edge
    assert "agent only" not in edge
    hidden = run(
        ["show", ids["Q3 report and build clean-up"], "--demo", "--format", "html", "--hidden"],
        capsys,
    )[1]
    assert "agent only, hidden from the user" in hidden


def test_db_is_one_option_wherever_it_is_written(
    db: GooseDb, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gander --db X list` used to drop the global `--db` and list the demo (issue #8, 13);
    every `--db`, before or after the subcommand, is opened (issue #9)."""
    for args in (["--db", str(db.path), "list"], ["list", "--db", str(db.path)]):
        code, out, err = run(args, capsys)
        assert (code, err) == (0, ""), args
        assert out.startswith("20260102_3\t"), args
    for args in (
        ["--db", "/nonexistent.db", "list"],
        ["list", "--db", "/nonexistent.db"],
        ["--db", "/nonexistent.db", "list", "--db", str(db.path)],
        ["--db", str(db.path), "list", "--db", "/nonexistent.db"],
    ):
        code, out, err = run(args, capsys)
        assert (code, out) == (1, ""), args
        assert err == "gander: There is no file or folder at /nonexistent.db.\n"


def test_demo_says_nothing_about_a_missing_goose_database(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for args in (["--demo", "list", "--limit", "1"], ["list", "--demo", "--limit", "1"]):
        code, out, err = run(args, capsys)
        assert (code, err) == (0, ""), args
        assert out.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--limit", "-1"],
        ["search", "x", "--limit", "-5"],
        ["--wait", "-1", "list"],
        ["list", "--wait", "nan"],
        ["list", "--wait", "inf"],
        ["list", "--limit", "ten"],
    ],
    ids=" ".join,
)
def test_negative_or_odd_numbers_are_usage_errors(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--demo", *args])
    assert exit_info.value.code == 2
    assert "argument --" in capsys.readouterr().err


HOSTILE_NAME = "evil\x1b]0;owned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\nfake\trow\x00\x9b31m"


def test_terminal_output_cannot_drive_the_terminal(
    db: GooseDb, capsys: pytest.CaptureFixture[str]
) -> None:
    """Names and snippets come from models; they must not reach a terminal as control
    sequences, nor split a row (issue #8, 5). JSON stays exact."""
    db.add_session("20260102_4", name=HOSTILE_NAME, working_dir="/w\x1b[31m")
    db.add_message("20260102_4", "user", f"needle {HOSTILE_NAME}", created=1767323100)
    code, out, err = run(["list", "--db", str(db.path)], capsys)
    assert (code, err) == (0, "")
    code, found, _ = run(["search", "needle", "--db", str(db.path)], capsys)
    assert code == 0
    for text in (out, found):
        assert not any((ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0 for c in text)
    rows = out.splitlines()
    assert len(rows) == 2
    assert rows[0].split("\t")[4] == "evil␛]0;owned␇␛[2J␛]52;c;cm0gLXJmIH4=␇␊fake␉row␀\\x9b31m"
    assert len(found.splitlines()) == 2
    code, listed, _ = run(["list", "--db", str(db.path), "--json"], capsys)
    assert json.loads(listed)[0]["name"] == HOSTILE_NAME
    code, hits, _ = run(["search", "needle", "--db", str(db.path), "--json"], capsys)
    assert HOSTILE_NAME.replace("\n", " ").split(" ")[0] in json.loads(hits)[0]["snippet"]


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_wait_is_the_whole_time_a_write_waits(db: GooseDb) -> None:
    """`--wait 1` against a real held lock: the sentence, the exit code, and it did wait. The
    bound is one-sided on purpose — `--wait N` promises at least N seconds of waiting, and a
    loaded machine only makes that longer; that the retries share N is checked on a counted
    clock below. It gives up while the lock is still held (the holder would hold it 30 s)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db.path), "30"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "holding"
    started = time.monotonic()
    result = run_gander(
        "rename", "20260102_3", "x", "--db", str(db.path), "--wait", "1", timeout=60
    )
    waited = time.monotonic() - started
    still_holding = holder.poll() is None
    holder.kill()
    holder.wait()
    holder.stdout.close()
    assert result.returncode == 1
    assert result.stderr == (
        "gander: goose kept the database locked; nothing was changed. Try again.\n"
    )
    assert still_holding
    assert waited >= 1.0


class _LockedClock:
    """SQLite under a goose that never lets go of the write lock, on a clock of the test's own:
    each attempt's connection waits `answer_after` of its busy timeout (at most all of it),
    then reports busy. What each attempt was granted is noted, so nothing is timed."""

    def __init__(self, answer_after: float) -> None:
        self.now = 0.0
        self.answer_after = answer_after
        self.granted: list[tuple[float, float]] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    @contextmanager
    def write_connection(self, uri: str, busy_timeout_s: float) -> Iterator["_LockedClock"]:
        self.granted.append((self.now, busy_timeout_s))
        self.wait = min(busy_timeout_s, self.answer_after)
        yield self

    def exec_driver_sql(self, statement: str) -> None:
        """`BEGIN IMMEDIATE` answered as SQLite answers it: SQLITE_BUSY, wrapped by SQLAlchemy."""
        self.now += self.wait
        busy = sqlite3.OperationalError("database is locked")
        busy.sqlite_errorcode = sqlite3.SQLITE_BUSY
        raise OperationalError(statement, None, busy)


@pytest.mark.parametrize("answer_after", [10.0, 0.4], ids=["whole timeout", "early busy"])
def test_wait_is_shared_by_every_attempt(
    db: GooseDb,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer_after: float,
) -> None:
    """`--wait 1` waited about four seconds: each of four attempts had the full timeout. Each
    attempt now gets only what is left of the one deadline, whatever SQLite's busy wait does."""
    clock = _LockedClock(answer_after)
    monkeypatch.setattr(writes, "time", clock)
    monkeypatch.setattr(writes, "write_connection", clock.write_connection)
    code, _, err = run(["rename", "20260102_3", "x", "--db", str(db.path), "--wait", "1"], capsys)
    assert code == 1
    assert err == "gander: goose kept the database locked; nothing was changed. Try again.\n"
    assert clock.granted
    assert all(start + granted <= 1.0 + 1e-9 for start, granted in clock.granted)
    assert clock.now <= 1.0 + 1e-9


def test_a_path_without_db_opens_that_history(
    db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The desktop file's `Exec=gander %F` passes double-clicked files as plain arguments."""
    assert paths_as_histories([str(db.path), "list"]) == ["--db", str(db.path), "list"]
    (tmp_path / "a.db").touch()
    (tmp_path / "b").mkdir()
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b")
    assert paths_as_histories(["--theme", "dark", a, b]) == [
        "--theme",
        "dark",
        "--db",
        a,
        "--db",
        b,
    ]
    assert paths_as_histories(["show", "x.db"]) == ["show", "x.db"], "subcommand arguments stay"
    code, out, err = run([str(db.path), "list"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("20260102_3\t")
    code, out, err = run([str(tmp_path / "nope.json"), "list"], capsys)
    assert code == 1
    assert err == f"gander: There is no file or folder at {tmp_path / 'nope.json'}.\n"


@pytest.mark.parametrize(
    ("words", "sentence"),
    [
        (["lsit"], "gander: no such command or history: lsit (did you mean list?)\n"),
        (["serch", "x"], "gander: no such command or history: serch (did you mean search?)\n"),
        (["--wait", "1", "zzz"], "gander: no such command or history: zzz\n"),
        (["\x1b[2Jx"], "gander: no such command or history: \u241b[2Jx\n"),
    ],
)
def test_a_word_that_names_nothing_is_one_sentence_and_exit_2(
    words: list[str], sentence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gander lsit` opened an empty window and waited; now one sentence, with the nearest
    subcommand when one is close, and the usage exit code — before anything is opened."""
    code, out, err = run(words, capsys)
    assert (code, out, err) == (2, "", sentence)


def test_kind_paths_and_urls_are_histories_even_when_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their openers say what is wrong with them (a server that is down, a folder not there);
    so does a bare word that names a file here."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sessions").mkdir()
    assert paths_as_histories(["sessions"]) == ["--db", "sessions"]
    missing = tmp_path / "gone"
    assert paths_as_histories([f"claude-code={missing}"]) == ["--db", f"claude-code={missing}"]
    url = "postgresql://u@127.0.0.1:1/db"
    assert paths_as_histories([url]) == ["--db", url]


def _home_with_agents(tmp_path: Path) -> Path:
    """A home folder (the test's `HOME`) holding Claude Code's and Codex's logs, no goose."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures/agents"
    home = tmp_path / "home"
    project = home / ".claude/projects/-tmp-ccrun-g147-payments-api"
    shutil.copytree(fixtures / "claude_code/written/2.1.47/-tmp-ccrun-g147-payments-api", project)
    rollouts = home / ".codex/sessions"
    rollouts.mkdir(parents=True)
    shutil.copy(
        fixtures / "codex/sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl", rollouts
    )
    return home


def test_without_db_the_commands_read_what_the_window_opens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No `--db`: goose's database and every agent's logs found here — not goose alone (with
    no goose, the demo) — less the agents turned off in the window, as the window does."""
    _home_with_agents(tmp_path)
    code, out, err = run(["list", "--json"], capsys)
    assert (code, err) == (0, "")
    kinds = {entry["history"]["kind"] for entry in json.loads(out)}
    assert kinds == {"claude-code", "codex"}
    claude = next(e for e in json.loads(out) if e["history"]["kind"] == "claude-code")
    code, out, _ = run(["show", claude["id"], "--format", "md"], capsys)
    assert code == 0
    assert "how many webhook handlers" in out

    settings = tmp_path / "xdg-config/gander/gander.ini"
    settings.parent.mkdir(parents=True)
    settings.write_text("[sources]\ndisabled_agents=codex\n", encoding="utf-8")
    code, out, _ = run(["list", "--json"], capsys)
    assert code == 0
    assert {entry["history"]["kind"] for entry in json.loads(out)} == {"claude-code"}
