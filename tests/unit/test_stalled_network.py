"""Nothing a network or a file does makes Gander wait forever (#18 item 6): an everruns server
whose connection stalls mid-read (a proxy on localhost that stops forwarding and holds the
sockets open, as a dead link does) fails its one history with a sentence after the read
deadline, the other histories keep listing, and closing cuts a read in flight at once; an
everruns log swapped for a named pipe is refused, never waited on."""

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.domain.combined import UNREADABLE, CombinedHistory
from desktop_app.domain.errors import SourceUnreadable
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.everruns import connection
from desktop_app.sources.everruns.local import EverrunsEvents
from desktop_app.sources.everruns.server import EverrunsServer
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import EverrunsDb, PostgresServer
from tests.fixtures.stalling_proxy import StallingProxy

SESSION = "0195a1b2-c3d4-7000-8000-00000000aaaa"
BOUND_S = 60
"""How long a call may take before the test calls it hung: far above every deadline used here
(a one-sided bound: a loaded machine only makes a passing call slower, never a failure)."""


DEADLINE_S = 2.0
LIST_QUERY = b"sort_us"
"""A word only the session list's query holds: the proxy stalls as that query goes out, so
the server runs it and its answer never comes back (a stall mid-read)."""


def _bounded(call: Callable[[], object]) -> object:
    """`call()` on a thread, its result or error; a hang past `BOUND_S` fails the test."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert not thread.is_alive(), f"still waiting after {BOUND_S} s"
    return outcome[0]


def test_an_everruns_log_swapped_for_a_named_pipe_is_refused_not_waited_on(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events.jsonl"
    envelope = {
        "id": "event_1",
        "type": "input.message",
        "ts": "2026-03-01T10:00:00.000Z",
        "session_id": SESSION,
        "data": {"message": {"role": "user", "content": [{"type": "text", "text": "Hi"}]}},
        "sequence": 1,
    }
    log.write_text(json.dumps(envelope) + "\n")
    source = EverrunsEvents(log)
    token = source.change_token()
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    os.replace(pipe, log)
    outcome = _bounded(lambda: source.changed_since(token))
    assert isinstance(outcome, SourceUnreadable)
    assert str(outcome) == f"{log} is not a file (a named pipe, a socket or a device)."


@pytest.fixture
def everruns(postgres: PostgresServer, request: pytest.FixtureRequest) -> EverrunsDb:
    name = "ev_" + "".join(c for c in request.node.name.lower() if c.isalnum())[:40]
    db = postgres.everruns_database(name)
    session = db.add_session("Weather in Kyiv")
    db.add_events(session, [("input.message", {"message": {"role": "user", "content": []}})])
    return db


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "READ_TIMEOUT_S", DEADLINE_S, raising=False)


@pytest.mark.usefixtures("short_deadline")
def test_a_read_that_stalls_mid_answer_is_cut_after_the_deadline(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    with StallingProxy(postgres.socket, stall_on=LIST_QUERY) as proxy:
        source = EverrunsServer(proxy.url(everruns.name))
        outcome = _bounded(lambda: source.list_sessions(SessionQuery()))
        source.close()
    assert isinstance(outcome, SourceUnreadable)
    assert str(outcome) == (
        f"The everruns database at {proxy.url(everruns.name)} stopped answering "
        f"(nothing for {DEADLINE_S:g} s); the read was given up."
    )


@pytest.mark.usefixtures("short_deadline")
def test_after_a_stall_reads_fail_at_once_for_a_while(
    everruns: EverrunsDb, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poll every second must not hold the worker a connect timeout each time: for
    `STALL_PAUSE_S` the server is not tried again (no new connection), its sentence said."""
    monkeypatch.setattr(connection, "STALL_PAUSE_S", 600.0, raising=False)
    with StallingProxy(postgres.socket, stall_on=LIST_QUERY) as proxy:
        source = EverrunsServer(proxy.url(everruns.name))
        first = _bounded(lambda: source.list_sessions(SessionQuery()))
        again = _bounded(source.change_token)
        tried = proxy.connections
        source.close()
    assert isinstance(first, SourceUnreadable)
    assert isinstance(again, SourceUnreadable)
    assert str(again) == str(first)
    assert tried == 1


@pytest.mark.usefixtures("short_deadline")
def test_gander_list_on_a_stalled_server_ends_with_one_sentence(
    everruns: EverrunsDb, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with StallingProxy(postgres.socket, stall_on=LIST_QUERY) as proxy:
        code = _bounded(lambda: main(["list", "--db", proxy.url(everruns.name)]))
    assert code == 1
    said = capsys.readouterr().err.strip()
    assert said.startswith("gander: The everruns database at ")
    assert said.endswith("stopped answering (nothing for 2 s); the read was given up.")
    assert len(said.splitlines()) == 1


@pytest.mark.usefixtures("short_deadline")
def test_beside_a_stalled_server_a_goose_history_still_lists(
    everruns: EverrunsDb,
    postgres: PostgresServer,
    make_db: Callable[..., GooseDb],
    capsys: pytest.CaptureFixture[str],
) -> None:
    goose = make_db()
    goose.add_session("g1", name="Goose chat about the weather")
    goose.add_message("g1", content="is it overcast in Kyiv?")
    with StallingProxy(postgres.socket, stall_on=LIST_QUERY) as proxy:
        both = ["--db", str(goose.path), "--db", proxy.url(everruns.name)]
        code = _bounded(lambda: main(["list", *both, "--json"]))
    assert code == 1
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert [(row["history"]["kind"], row["id"]) for row in rows] == [("goose", "g1")]
    (said,) = captured.err.splitlines()
    assert said.endswith("stopped answering (nothing for 2 s); the read was given up.")


@pytest.mark.usefixtures("short_deadline")
def test_beside_a_stalled_server_a_goose_history_is_still_watched(
    everruns: EverrunsDb, postgres: PostgresServer, make_db: Callable[..., GooseDb]
) -> None:
    """The window's live updates run on the combined change token: one history that cannot
    be read must not stop the others' (it raised, so no goose change was seen again)."""
    goose = make_db()
    goose.add_session("g1", name="Goose chat")
    with StallingProxy(postgres.socket, stall_on=b"FROM events") as proxy:
        both = CombinedHistory([GooseSource(goose.path), EverrunsServer(proxy.url(everruns.name))])
        before = _bounded(both.change_token)
        goose.add_message("g1", content="a new message")
        after = _bounded(both.change_token)
        assert isinstance(before, str)
        changed = _bounded(lambda: both.changed_since(before))
        both.close()
    assert isinstance(after, str)
    assert json.loads(before)[1] == UNREADABLE
    assert after != before
    assert changed is None  # unknown, as it is for the stalled history


@pytest.mark.usefixtures("short_deadline")
def test_a_streamed_read_is_cut_when_the_server_stalls_not_when_its_reader_is_slow(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    """The search index streams events and works on each row as it comes: that time is no
    wait on the server (the deadline pauses), while a stalled answer is still cut."""
    session = everruns.add_session("Streamed")
    everruns.add_events(session, [("input.message", {"message": {"role": "user"}})] * 3)
    source = EverrunsServer(everruns.url)

    wanted = {session: source.positions(session)}

    def slowly() -> int:
        read = 0
        for _ in source.messages_at_each(wanted):  # rows as they come, not gathered first
            time.sleep(DEADLINE_S * 1.5)  # longer than the deadline, with each row
            read += 1
        return read

    assert _bounded(slowly) == 3
    source.close()
    with StallingProxy(postgres.socket, stall_on=b"DECLARE") as proxy:
        stalled = EverrunsServer(proxy.url(everruns.name))
        outcome = _bounded(lambda: list(stalled.messages_at_each(wanted)))
        stalled.close()
    assert isinstance(outcome, SourceUnreadable)
    assert str(outcome).endswith("stopped answering (nothing for 2 s); the read was given up.")


def test_a_server_that_accepts_but_never_answers_fails_to_open_with_a_sentence(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    """Stalled from the first byte: libpq's `connect_timeout` (which psycopg applies to the
    whole handshake) bounds the opening."""
    with StallingProxy(postgres.socket) as proxy:
        proxy.stall()
        outcome = _bounded(lambda: EverrunsServer(proxy.url(everruns.name)))
    assert isinstance(outcome, SourceUnreadable)
    assert "cannot be reached (connection timeout expired)" in str(outcome)


def test_the_link_bounds_reach_libpq_and_a_url_keeps_its_own(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    with StallingProxy(postgres.socket) as proxy:
        for url, idle in (
            (proxy.url(everruns.name), "10"),
            (proxy.url(everruns.name) + "?keepalives_idle=42", "42"),
        ):
            source = EverrunsServer(url)
            with source._reading() as conn:
                info = conn.connection.dbapi_connection.info  # type: ignore[union-attr]
                options = {o.keyword: o.val for o in info.pgconn.info}
            source.close()
            assert options[b"keepalives_idle"] == idle.encode()
            assert options[b"keepalives"] == b"1"
            assert options[b"keepalives_interval"] == b"5"
            assert options[b"keepalives_count"] == b"3"
            assert options[b"tcp_user_timeout"] == b"30000"
            assert options[b"connect_timeout"] == b"5"
