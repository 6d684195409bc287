"""Locations that are not files (#18 item 9): a named pipe, a socket or a device named by
`--db`, or met in a history folder, is one sentence at once, never a wait without end; a
server URL Gander cannot take (a port that is no number) is one sentence, a libpq multi-host
URL reaches the driver whole.

Every case that blocked runs in a child process with a timeout, so a regression fails the test
instead of hanging it."""

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from desktop_app.cli import main
from desktop_app.domain.errors import SourceError
from desktop_app.sources.everruns.connection import engine_url
from tests.fixtures.postgres import PostgresServer

BOUND_S = 60
"""Far longer than any of these takes (well under a second): only a hang reaches it."""


def _gander(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "desktop_app", *args],
            capture_output=True,
            text=True,
            timeout=BOUND_S,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"gander {' '.join(args)} did not return within {BOUND_S} s")


@pytest.fixture
def odd(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """A named pipe and a socket, each with a history's suffix, and folders holding one where
    a history's file would be."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "sock.jsonl"))
    goose_dir = tmp_path / "goose"
    goose_dir.mkdir()
    os.mkfifo(goose_dir / "sessions.db")
    everruns_dir = tmp_path / "everruns"
    everruns_dir.mkdir()
    os.mkfifo(everruns_dir / "events.jsonl")
    try:
        yield {
            "fifo": fifo,
            "socket": tmp_path / "sock.jsonl",
            "goose": goose_dir,
            "everruns": everruns_dir,
        }
    finally:
        listener.close()


@pytest.mark.parametrize(
    ("location", "what"),
    [
        ("{fifo}", "is a named pipe"),
        ("claude-code={fifo}", "is a named pipe"),
        ("goose={fifo}", "is a named pipe"),
        ("everruns={fifo}", "is a named pipe"),
        ("{socket}", "is a socket"),
        ("codex={socket}", "is a socket"),
        ("goose={goose}", "sessions.db is a named pipe"),
        ("everruns={everruns}", "events.jsonl is a named pipe"),
        ("/dev/null", "is a character device"),
        ("/dev/zero", "is a character device"),
        ("pi=/dev/zero", "is a character device"),
        ("everruns=/dev/zero", "is a character device"),
    ],
)
def test_a_location_that_is_no_file_is_one_sentence_at_once(
    odd: dict[str, Path], location: str, what: str
) -> None:
    named = location.format(**odd)
    done = _gander("--db", named, "list", "--json")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert what in lines[0]
    assert lines[0].startswith("gander: ")
    assert "not a file or folder" in lines[0]


def test_a_pipe_in_a_file_s_place_is_a_session_that_says_so(tmp_path: Path) -> None:
    """A folder's file swapped for a named pipe after the folder was listed: that one session
    says why, it is never opened to wait for a writer."""
    fifo = tmp_path / "rollout-swapped.jsonl"
    os.mkfifo(fifo)
    script = (
        "import sys; from pathlib import Path\n"
        "from desktop_app.sources.files.history import parse_file\n"
        "from desktop_app.sources.codex.format import FORMAT\n"
        "parsed = parse_file(Path(sys.argv[1]), [FORMAT])\n"
        "print(parsed.messages[0].parts[0].reason)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(fifo)],
            capture_output=True,
            text=True,
            timeout=BOUND_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading a named pipe did not return within {BOUND_S} s")
    assert done.returncode == 0, done.stderr
    assert "not a file" in done.stdout


def test_a_port_that_is_no_number_is_one_sentence() -> None:
    for location in (
        "postgresql://me:pw@db.example:abc/everruns",
        "postgresql://me:pw@db.example:5432,other:x/everruns",
        "postgresql://me:p/w@db.example/everruns",
    ):
        with pytest.raises(
            SourceError, match=r"The port in postgresql://me@.* is not a number"
        ) as raised:
            engine_url(location)
        assert "pw" not in str(raised.value)


def test_a_multi_host_url_reaches_the_driver_whole() -> None:
    """libpq tries each host in turn (`postgresql://u@h1:5432,h2:5433/db`); SQLAlchemy's own
    parser takes `5432,h2:5433` for a port and raised ValueError."""
    from sqlalchemy.dialects.postgresql.psycopg import dialect

    url = engine_url("postgres://me:pw@h1:5432,h2:5433,[::1]/everruns?sslmode=require")
    _, arguments = dialect().create_connect_args(url)  # type: ignore[no-untyped-call]
    assert arguments["host"] == "h1,h2,::1"
    assert arguments["port"] == "5432,5433,"
    assert (arguments["user"], arguments["password"], arguments["dbname"]) == (
        "me",
        "pw",
        "everruns",
    )
    assert arguments["sslmode"] == "require"
    single = engine_url("postgresql://me@h1:5432/everruns")
    assert (single.host, single.port) == ("h1", 5432)


def test_a_multi_host_url_tries_each_host_in_turn(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first host (a socket folder with no server) fails, libpq tries the next one."""
    everruns = postgres.everruns_database("ev_multi_host")
    session = everruns.add_session("Two hosts")
    hosts = f"{quote('/nonexistent-gander', safe='')},{quote(postgres.socket, safe='')}"
    assert main(["--db", f"postgresql://gander@{hosts}/ev_multi_host", "list", "--json"]) == 0
    out, err = capsys.readouterr()
    assert (session in out, err) == (True, "")
