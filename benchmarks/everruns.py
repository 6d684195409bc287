"""everruns benchmark: a local PostgreSQL server with 20,000 sessions and 1,000,000 events.

    python -m benchmarks.everruns

Starts a throwaway server (tests/fixtures/postgres.py), loads everruns' tables
(tests/fixtures/everruns/schema_v0_4.sql) and fills them server-side with `generate_series`:
one session of 5,000 messages (a prompt, a reply with a tool call, the tool's result, …) and
19,999 sessions sharing the rest, events shaped as everruns writes them. Then times what the
budgets name: the first page of sessions, a 5,000-message session's first paint in the window,
the first search-index build, an incremental update after 100 new events, and counts the
queries each action sends (`pg_stat_statements` is not needed: a SQLAlchemy event counts them).
"""

import os
import time
from argparse import Namespace
from pathlib import Path
from tempfile import mkdtemp

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from sqlalchemy import event

from benchmarks.window import first_paint, pump_until
from desktop_app.app import _application, build_window
from desktop_app.domain.source import SessionQuery
from desktop_app.search.index import open_index
from desktop_app.sources.everruns.server import EverrunsServer
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.postgres import PostgresServer

SESSIONS = 20_000
EVENTS = 1_000_000
LONG_MESSAGES = 5_000
WORDS = [
    "deploy",
    "retry",
    "cache",
    "latency",
    "webhook",
    "migration",
    "rollback",
    "index",
    "query",
    "timeout",
    "worker",
    "queue",
    "schema",
    "tokens",
    "budget",
    "agent",
    "session",
    "incident",
    "summary",
    "customer",
    "export",
    "invoice",
]

_FILL = """
INSERT INTO sessions (id, agent_id, title, model_id, status, created_at, updated_at)
SELECT md5('s' || n)::uuid, %(agent)s, 'Support ticket ' || n, %(model)s, 'idle',
       now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval
FROM generate_series(0, %(sessions)s - 1) AS n;

INSERT INTO events (session_id, sequence, event_type, data, context, ts)
SELECT md5('s' || s)::uuid, k + 1,
  CASE k %% 3 WHEN 0 THEN 'input.message' WHEN 1 THEN 'output.message.completed'
             ELSE 'tool.completed' END,
  CASE k %% 3
    WHEN 0 THEN jsonb_build_object('message', jsonb_build_object('id', 'message_' || s || '_' || k,
      'role', 'user', 'content', jsonb_build_array(jsonb_build_object('type', 'text',
      'text', 'Please look at the ' || (%(words)s::text[])[1 + (s * 7 + k) %% 22] || ' and the '
              || (%(words)s::text[])[1 + (s + k * 3) %% 22] || ' of ticket ' || s))))
    WHEN 1 THEN jsonb_build_object('message', jsonb_build_object('id', 'message_' || s || '_' || k,
      'role', 'agent', 'content', jsonb_build_array(
        jsonb_build_object('type', 'text', 'text', 'I checked the '
          || (%(words)s::text[])[1 + (s + k) %% 22] || '; the '
          || (%(words)s::text[])[1 + (k * 5) %% 22]
          || ' looks fine. Running the check now.'),
        jsonb_build_object('type', 'tool_call', 'id', 'call_' || k, 'name', 'run_check',
          'arguments', jsonb_build_object('ticket', s)))),
      'metadata', jsonb_build_object('model', 'claude-sonnet-4-5'),
      'usage', jsonb_build_object('input_tokens', 1000 + k, 'output_tokens', 50))
    ELSE jsonb_build_object('tool_call_id', 'call_' || (k - 1), 'tool_name', 'run_check',
      'success', true, 'status', 'success', 'duration_ms', 40,
      'result', jsonb_build_array(jsonb_build_object('type', 'text', 'text',
        'check passed for ' || (%(words)s::text[])[1 + k %% 22])))
  END,
  jsonb_build_object('turn_id', 'turn_' || s || '_' || (k / 3)),
  now() - ((%(sessions)s - s) || ' minutes')::interval + (k || ' milliseconds')::interval
FROM (SELECT n AS s, generate_series(0, CASE WHEN n = 0 THEN %(long)s - 1
        ELSE %(per)s - 1 END) AS k FROM generate_series(0, %(sessions)s - 1) AS n) AS rows;
ANALYZE;
"""


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def main() -> None:
    server = PostgresServer()
    try:
        started = time.perf_counter()
        db = server.everruns_database("bench")
        per = (EVENTS - LONG_MESSAGES) // (SESSIONS - 1)
        with server.connect("bench") as conn:
            params = {
                "agent": db.agent_id,
                "model": db.model_id,
                "sessions": SESSIONS,
                "long": LONG_MESSAGES,
                "per": per,
                "words": WORDS,
            }
            for statement in _FILL.split(";\n"):
                if statement.strip():
                    wanted = {k: v for k, v in params.items() if f"%({k})s" in statement}
                    conn.execute(statement, wanted)
            total = conn.execute("SELECT count(*) FROM events").fetchone()
        print(
            f"{SESSIONS:,} sessions, {total[0] if total else 0:,} events in "
            f"{time.perf_counter() - started:.1f} s"
        )
        long_id = EverrunsServer(db.url).list_sessions(SessionQuery(), limit=1).sessions[0].id
        source_figures(db.url, long_id)
        data = Path(mkdtemp(prefix="gander-bench-"))
        search_figures(db.url, server, data)
        window_figures(db.url, long_id, data)
    finally:
        server.close()


def _counted(source: EverrunsServer) -> list[int]:
    count = [0]
    engine = source._engine

    def one(*_: object) -> None:
        count[0] += 1

    event.listen(engine, "before_cursor_execute", one)
    return count


def source_figures(url: str, long_id: str) -> None:
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        source = EverrunsServer(url)
        counter = _counted(source)
        page = source.list_sessions(SessionQuery(with_empty=False), limit=200)
        runs.append(_ms(started))
        queries = counter[0]
        source.close()
    print(
        f"open + first page of {len(page.sessions)} sessions: {sorted(runs)[2]:.0f} ms "
        f"(median of 5; {queries} query for the page)   budget ≤ 300 ms"
    )
    source = EverrunsServer(url)
    counter = _counted(source)
    started = time.perf_counter()
    source.get_session(long_id)
    positions = source.positions(long_id)
    opened = _ms(started)
    print(
        f"open the {len(positions):,}-message session (session + positions): {opened:.0f} ms, "
        f"{counter[0]} queries"
    )
    counter[0] = 0
    started = time.perf_counter()
    source.messages_between(long_id, positions[-40], positions[-1])
    print(f"a page of 40 messages: {_ms(started):.0f} ms, {counter[0]} query")
    counter[0] = 0
    started = time.perf_counter()
    source.change_token()
    print(f"change poll: {_ms(started):.1f} ms, {counter[0]} query, once a second")
    source.close()


def search_figures(url: str, server: PostgresServer, data: Path) -> None:
    source = EverrunsServer(url)
    index = open_index(data, source)
    started = time.perf_counter()
    report = index.update()
    took = time.perf_counter() - started
    print(
        f"first index build: {report.added:,} messages in {took:.1f} s = "
        f"{report.added / took:,.0f} messages/s   budget ≥ 10,000/s"
    )
    session = source.list_sessions(SessionQuery(), limit=1).sessions[0].id
    with server.connect("bench") as conn:
        conn.execute(
            "INSERT INTO events (session_id, sequence, event_type, data) "
            "SELECT %s::uuid, m + n, 'input.message', jsonb_build_object('message', "
            "jsonb_build_object('role', 'user', 'content', jsonb_build_array("
            "jsonb_build_object('type', 'text', 'text', 'one more question ' || n)))) "
            "FROM (SELECT max(sequence) AS m FROM events WHERE session_id = %s::uuid) AS top, "
            "generate_series(1, 100) AS n",
            (session, session),
        )
    started = time.perf_counter()
    report = index.update()
    print(
        f"incremental update, 100 new events: {_ms(started):.0f} ms ({report.added} added)"
        "   budget ≤ 200 ms"
    )
    runs = [index.search("retry latency", limit=20).elapsed_ms for _ in range(7)]
    print(f"search 'retry latency': {sorted(runs)[3]:.1f} ms (median of 7)")
    index.close()
    source.close()


def window_figures(url: str, long_id: str, data: Path) -> None:
    """With the search index the build above left (as on every start after the first): the
    window brings it up to date, then the paints are timed."""
    app = _application()
    del app
    settings = Settings(QSettings(str(data / "s.ini"), QSettings.Format.IniFormat))
    tasks = TaskRunner()
    started = time.perf_counter()
    window = build_window(Namespace(db=[url], demo=False, session=None), data, settings, tasks)
    window.resize(1280, 800)
    window.show()
    pump_until(lambda: window.sessions.rowCount() > 0)
    print(f"window, session list first rows: {_ms(started):.0f} ms   budget ≤ 300 ms")
    pump_until(lambda: window.search.updating, timeout_s=10)
    pump_until(lambda: not window.search.updating, timeout_s=300)
    paints = sorted(first_paint(window, long_id) * 1000 for _ in range(3))
    print(
        f"first paint of the {LONG_MESSAGES:,}-message session: {paints[1]:.0f} ms "
        "(median of 3)   budget ≤ 250 ms"
    )
    window.close()
    tasks.shutdown()


if __name__ == "__main__":
    main()
