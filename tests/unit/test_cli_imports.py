"""A CLI call imports what it needs and no more (#13 item 1): `list` and `search` on goose's
file never load Qt, Markdown, pygments, yaml, the demo generator or the other formats' readers —
together half a second before any work. SQLAlchemy they do load since #21 item 1 (goose's reader
is on SQLAlchemy Core, about 0.14 s, accepted there), but only its SQLite dialect."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_python

HEAVY = (
    "PySide6",
    "markdown_it",
    "pygments",
    "sqlalchemy.dialects.postgresql",
    "yaml",
    "desktop_app.demo.generator",
    "desktop_app.ui",
    "desktop_app.sources.claude_code",
    "desktop_app.sources.everruns",
    "desktop_app.sources.files",
    "genai_prices",  # half a second: only when a session needs an estimated cost
    "pyqtgraph",
)


def _loaded_after(argv: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    code = (
        "import json, sys\n"
        "from desktop_app.cli import main\n"
        f"code = main({argv!r})\n"
        "sys.stdout.flush()\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({heavy!r}))))\n"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "command", [["list", "--json"], ["list", "--limit", "5"], ["search", "hello"]]
)
def test_list_and_search_import_nothing_heavy(
    command: list[str], make_db: Callable[..., GooseDb]
) -> None:
    db = make_db()
    db.add_session("s1", name="A chat")
    db.add_message("s1", content="hello there")
    assert _loaded_after([*command, "--db", str(db.path)]) == []


LAZY = {
    "list": (
        "desktop_app.domain.actions",  # every tool action's dataclass: 10 ms
        "desktop_app.sources.common.goose_json.content",  # goose's content mapper, with them
        "desktop_app.domain.search",
        "desktop_app.search",
        "difflib",
        "multiprocessing",
        "concurrent.futures.process",
        "configparser",  # the window's settings: read only when no history is named
    ),
    "search": ("difflib", "multiprocessing", "concurrent.futures.process"),
}
"""What a command does not need and is imported where it is used (#21's budgets): `list` maps
no message content and searches nothing; a search over a current index starts no process pool;
only a mistyped command looks for the closest one."""


@pytest.mark.parametrize(
    ("command", "lazy"),
    [(["list", "--limit", "5"], LAZY["list"]), (["search", "hello"], LAZY["search"])],
)
def test_a_command_imports_only_what_it_uses(
    command: list[str], lazy: tuple[str, ...], make_db: Callable[..., GooseDb]
) -> None:
    db = make_db()
    db.add_session("s1", name="A chat")
    db.add_message("s1", content="hello there")
    assert _loaded_after([*command, "--db", str(db.path)], lazy) == []


def test_what_uses_them_loads_them(make_db: Callable[..., GooseDb], tmp_path: Path) -> None:
    """The check above can fail: reading a message (`show`) loads goose's content mapper and
    the tool actions, and a mistyped command the closest-match finder."""
    db = make_db()
    db.add_session("s1", name="A chat")
    db.add_message("s1", content="hello there")
    shown = _loaded_after(
        ["show", "s1", "--db", str(db.path), "-o", str(tmp_path / "s.md")], LAZY["list"]
    )
    assert {"desktop_app.domain.actions", "desktop_app.sources.common.goose_json.content"} <= set(
        shown
    )
    assert _loaded_after(["lsit"], ("difflib",)) == ["difflib"]


def test_list_reads_goose_through_sqlalchemy(make_db: Callable[..., GooseDb]) -> None:
    """The check above would pass if goose's reader loaded nothing at all: it does load
    SQLAlchemy and its SQLite dialect."""
    db = make_db()
    db.add_session("s1", name="A chat")
    loaded = _loaded_after(["list", "--db", str(db.path)], ("sqlalchemy",))
    assert {"sqlalchemy", "sqlalchemy.dialects.sqlite.pysqlite"} <= set(loaded)


def test_show_loads_what_it_renders_with(make_db: Callable[..., GooseDb], tmp_path: Path) -> None:
    """The check above can fail: `show` does load Markdown and pygments."""
    db = make_db()
    db.add_session("s1", name="A chat")
    db.add_message("s1", content="hello there")
    loaded = _loaded_after(["show", "s1", "--db", str(db.path), "-o", str(tmp_path / "s.md")])
    assert "markdown_it" in loaded


def test_a_command_leaves_its_objects_out_of_the_last_collection(
    make_db: Callable[..., GooseDb],
) -> None:
    """Run as a process (`sys.argv`), a command freezes what it made before the interpreter's
    exit collects: SQLAlchemy's objects walked once more were 0.05 s of a `gander list`. Called
    with its arguments (tests, other code), it leaves the collector alone."""
    db = make_db()
    db.add_session("s1", name="A chat")
    code = (
        "import gc, io, sys, contextlib\n"
        "from desktop_app.cli import main\n"
        f"sys.argv = ['gander', 'list', '--db', {str(db.path)!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['list', '--db', {str(db.path)!r}])\n"
        "    called = gc.get_freeze_count()\n"
        "    main()\n"
        "print(called, gc.get_freeze_count() > 0)\n"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True"]
