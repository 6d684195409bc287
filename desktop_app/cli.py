"""The `gander` command: the window, or a headless subcommand over the same reader.

Expected failures (missing file, not goose's database, unknown session, refused write) print one
sentence to stderr and exit 1; usage errors exit 2. Subcommands never import Qt, and what only
one command uses (the search's words and marks, the closest match to a mistyped command) is
imported where it is used: a process's start-up is most of a `gander list` (#21's budgets,
tests/unit/test_cli_imports.py).
"""

import argparse
import contextlib
import functools
import gc
import itertools
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from desktop_app import __version__
from desktop_app.domain.combined import origin_of, session_reference
from desktop_app.domain.errors import GanderError, WriteRefused
from desktop_app.domain.jsontext import allow_deep_json
from desktop_app.domain.reading import iter_sessions, trees_totals
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    ArchivedFilter,
    SessionQuery,
    SessionTotals,
    Source,
    Writable,
)
from desktop_app.files.logs import UNCAUGHT, logging_to_file
from desktop_app.files.output import Protected, atomic_text_file
from desktop_app.files.places import data_dir, disabled_agents, settings_file
from desktop_app.opening import (
    DEFAULT_BUSY_TIMEOUT_S,
    default_locations,
    history_paths,
    open_histories,
    reopener,
)
from desktop_app.rendering import formatting
from desktop_app.rendering.formatting import terminal_safe
from desktop_app.rendering.json_export import session_json
from desktop_app.sources.common.pricing import session_cost
from desktop_app.sources.registry import KINDS, is_server, split_kind

if TYPE_CHECKING:
    from desktop_app.domain.search import SearchResults
    from desktop_app.search.histories import HistoriesIndex

_log = logging.getLogger(__name__)
EXIT_ERROR = 1
EXIT_USAGE = 2
PAGE = 500


Number = TypeVar("Number", int, float)


def _non_negative(kind: type[Number]) -> Callable[[str], Number]:
    def parse(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value >= 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{text} is not a number of zero or more")
        return value

    return parse


def _location(text: str) -> Path | str:
    """A path, or an everruns server's URL kept as it was typed (a `Path` would fold `//`)."""
    return text if is_server(text) else Path(text)


def _source_options(*, suppress: bool) -> argparse.ArgumentParser:
    """`--db`, `--demo` and `--wait`, accepted before or after the subcommand. The subcommands'
    copies default to SUPPRESS, so `gander --db X list` keeps the `--db` given before `list`;
    their `--db`s are kept apart (`db_after`) and added to those given before."""
    common = argparse.ArgumentParser(add_help=False)

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress else value

    common.add_argument(
        "--db",
        type=_location,
        action="append",
        dest="db_after" if suppress else "db",
        metavar="PATH",
        default=default(None),
        help="a history to open (a file, a folder or a postgresql:// URL of an everruns "
        "database; repeat to open several), KIND=PATH to name its kind: " + ", ".join(KINDS),
    )
    common.add_argument(
        "--demo",
        action="store_true",
        default=default(False),
        help="open the built-in demo history",
    )
    common.add_argument(
        "--wait",
        type=_non_negative(float),
        default=default(DEFAULT_BUSY_TIMEOUT_S),
        metavar="SECONDS",
        help="how long in all to wait for a lock another program holds (default 30)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _source_options(suppress=True)
    parser = argparse.ArgumentParser(
        prog="gander",
        description="Browse, search and export the chat history that AI agents keep.",
        parents=[_source_options(suppress=False)],
    )
    parser.add_argument("--version", action="version", version=f"gander {__version__}")
    parser.add_argument("--session", metavar="ID", help="open this session in the window")
    parser.add_argument(
        "--screenshot", type=Path, metavar="OUT.png", help="render the window to a PNG and exit"
    )
    parser.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default=None,
        help="colour scheme of the window (default: as View ▸ Theme was left; the system's)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    listing = sub.add_parser("list", parents=[common], help="sessions, newest first")
    listing.add_argument("--json", action="store_true", help="one JSON array of sessions")
    listing.add_argument(
        "--all", action="store_true", help="every session type (sub-agents, hidden, …)"
    )
    listing.add_argument("--archived", action="store_true", help="include archived sessions")
    listing.add_argument("--limit", type=_non_negative(int), metavar="N", help="at most N sessions")

    show = sub.add_parser("show", parents=[common], help="one transcript, exported")
    show.add_argument("session_id", metavar="SESSION_ID")
    show.add_argument("--format", choices=("md", "html", "json"), default="md")
    show.add_argument(
        "--hidden", action="store_true", help="include agent-only messages (marked as such)"
    )
    show.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")
    show.add_argument(
        "--redact",
        action="store_true",
        help="replace API keys, tokens, private keys and passwords with [REDACTED:kind]",
    )

    search = sub.add_parser(
        "search", parents=[common], help="search every message (see the query syntax)"
    )
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--json", action="store_true", help="hits as a JSON array")
    search.add_argument(
        "--limit", type=_non_negative(int), default=20, metavar="N", help="at most N hits (20)"
    )

    rename = sub.add_parser("rename", parents=[common], help="rename a session as goose does")
    rename.add_argument("session_id", metavar="SESSION_ID")
    rename.add_argument("name", metavar="NAME")
    for verb in ("archive", "unarchive"):
        action = sub.add_parser(verb, parents=[common], help=f"{verb} a session as goose does")
        action.add_argument("session_id", metavar="SESSION_ID")
    return parser


def history_locations(args: argparse.Namespace) -> list[Path]:
    """Every `--db`, those before the subcommand first."""
    return [*(args.db or []), *(getattr(args, "db_after", None) or [])]


@contextlib.contextmanager
def _opened(args: argparse.Namespace) -> Iterator[Source]:
    """The histories asked for, as one reader, closed however the command ends. With none
    named, those the window opens on a first run: goose's database and every coding agent's
    logs found here, less the agents turned off in the window, so an id `list` printed is one
    `show` and `rename` find (a write to any but goose's is refused in a sentence)."""
    locations: Sequence[Path | str] = history_locations(args)
    if not locations and not args.demo:
        locations = default_locations(disabled_agents())
    opened = open_histories(
        locations, demo=args.demo, data_dir=data_dir(), busy_timeout_s=args.wait
    )
    if opened.note and not args.demo:
        print(f"gander: {opened.note}", file=sys.stderr)
    try:
        yield opened.source
    finally:
        opened.source.close()


def _short_dir(path: str | None) -> str:
    home = str(Path.home())
    if path and path.startswith(home):
        return "~" + path[len(home) :]
    return path or ""


def cmd_list(args: argparse.Namespace, out: TextIO) -> int:
    query = SessionQuery(
        session_types=None if args.all else SessionQuery().session_types,
        archived=ArchivedFilter.INCLUDE if args.archived else ArchivedFilter.EXCLUDE,
    )
    unread: list[str] = []
    with _opened(args) as source:
        sessions = iter_sessions(source, query, args.limit, unread)
        if args.json:
            listed = list(sessions)
            trees = trees_totals(source, listed)
            out.write("[")
            for index, session in enumerate(listed):
                item = json.dumps(
                    {
                        **session_json(source, session),
                        "cost_estimated": _cost_estimated(session),
                        "tree_usage": _tree_usage(trees, session),
                    }
                )
                out.write(("," if index else "") + "\n  " + item)
            out.write("\n]\n")
            return _said_unread(unread)
        for session in sessions:
            when = session.sort_at.strftime("%Y-%m-%d %H:%M") if session.sort_at else "–"
            marks = " [archived]" if session.archived else ""
            if session.session_type != "user":
                marks += f" [{terminal_safe(session.session_type)}]"
            out.write(
                f"{terminal_safe(session.id)}\t{when}\t{session.message_count or 0:>5} msgs\t"
                f"{formatting.cost(session.cost):>8}\t{terminal_safe(session.name)}{marks}\t"
                f"{terminal_safe(_short_dir(session.working_dir))}\n"
            )
    return _said_unread(unread)


def _said_unread(unread: list[str]) -> int:
    """Each history the list went on without, in its sentence; the list is then incomplete."""
    for said in unread:
        print(f"gander: {said}", file=sys.stderr)
    return EXIT_ERROR if unread else 0


def _cost_estimated(session: Session) -> float | None:
    """`cost_estimated`, beside `cost` (what the agent recorded): genai-prices' estimate of the
    session's own calls when it records no cost and its model has a known price, else `null`."""
    cost = session_cost(session)
    return cost.amount if cost.estimated else None


def _tree_usage(trees: Mapping[str, SessionTotals], session: Session) -> object:
    """`tree_usage`: the session with its sub-agents at any depth (goose: as goose's own
    `get_session_usage_totals`; any other kind: each session's own figures added up), beside
    `usage` and `accumulated_usage`, which are the session's own. `null` for a session gone
    since it was listed."""
    totals = trees.get(session.id)
    if totals is None:
        return None
    return {**totals.tokens.as_dict(), "cost": totals.cost, "session_count": totals.session_count}


def _protected(source: Source) -> Protected:
    """Every open history and Gander's own files: never an export's target."""
    protected = Protected(files=(settings_file(),), folders=(data_dir(),))
    for location in history_paths(source):
        protected = protected.with_history(location)
    return protected


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    with _opened(args) as source:
        session = source.get_session(session_reference(source, args.session_id))
        if args.output is None:
            _export(args, source, session, out)
            return 0
        with atomic_text_file(args.output, _protected(source)) as target:
            _export(args, source, session, target)
    return 0


def _export(args: argparse.Namespace, source: Source, session: Session, target: TextIO) -> None:
    # Markdown, HTML and their highlighting: imported by `show` only (`list` starts faster).
    from desktop_app.rendering.exporting import export_session  # noqa: PLC0415

    export_session(
        source, session, args.format, target.write, hidden=args.hidden, redact=args.redact
    )


class _Progress:
    """Prints indexing progress on stderr, but only once the work has taken more than a second."""

    def __init__(self) -> None:
        self._started = time.monotonic()
        self._last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._started > 1.0 and now - self._last > 0.5:
            self._last = now
            self.shown = True
            print(f"gander: indexing {done:,} of {total:,} messages…", file=sys.stderr)


def _marked(snippet: str, tty: bool) -> str:
    """The snippet for a terminal: its own text made safe, the matches in bold on a tty."""
    from desktop_app.domain.search import MARK_END, MARK_START  # noqa: PLC0415 - search only

    start, end = ("\x1b[1m", "\x1b[0m") if tty else ("", "")
    marks = {MARK_START: start, MARK_END: end}
    pieces = re.split(f"([{MARK_START}{MARK_END}])", snippet)
    return "".join(marks.get(piece, terminal_safe(piece)) for piece in pieces)


def _update_and_search(index: "HistoriesIndex", query: str, limit: int) -> "SearchResults":
    progress = _Progress()
    index.update(progress)
    if progress.shown:
        print("gander: index up to date.", file=sys.stderr)
    return index.search(query, limit=limit)


def _search_once_healed(index: "HistoriesIndex", query: str, limit: int) -> "SearchResults":
    """Update and search; an index found damaged on the way is rebuilt (and said so) once."""
    from desktop_app.search.index import SearchIndexRebuilt  # noqa: PLC0415

    try:
        return _update_and_search(index, query, limit)
    except SearchIndexRebuilt as damaged:
        print(f"gander: {damaged}", file=sys.stderr)
        return _update_and_search(index, query, limit)


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    from desktop_app.search.histories import HistoriesIndex  # noqa: PLC0415 - search only

    with _opened(args) as source:
        index = HistoriesIndex(data_dir(), source, functools.partial(reopener, data_dir()))
        try:
            results = _search_once_healed(index, args.query, max(1, args.limit))
        finally:
            index.close()
        if args.json:
            out.write(json.dumps(_hits_json(source, results), ensure_ascii=False, indent=1))
            out.write("\n")
            return 0
    _print_results(results, out)
    return 0


def _hits_json(source: Source, results: "SearchResults") -> list[dict[str, object]]:
    from desktop_app.domain.search import MARK_END, MARK_START  # noqa: PLC0415 - search only

    hits: list[dict[str, object]] = []
    for hit in results.hits:
        info, native, tag = origin_of(source, hit.session_id)
        history = {"kind": info.kind, "location": info.location}
        if tag is not None:
            history["tag"] = tag
        hits.append(
            {
                "session_id": native,
                "message_id": hit.message_id,
                "row_id": hit.row_id,
                "role": hit.role,
                "snippet": hit.snippet.replace(MARK_START, "").replace(MARK_END, ""),
                "rank": hit.rank,
                "history": history,
            }
        )
    return hits


def _print_results(results: "SearchResults", out: TextIO) -> None:
    from desktop_app.domain.search import match_label, summary_line  # noqa: PLC0415 - search only

    tty = out.isatty()
    for session in results.sessions:
        flag = " [archived]" if session.archived else ""
        count = match_label(session)
        name = terminal_safe(session.name)
        out.write(f"{terminal_safe(session.session_id)}  {name}{flag}  ({count})\n")
        for hit in session.hits:
            out.write(f"    {terminal_safe(hit.role):<9} {_marked(hit.snippet, tty)}\n")
    print(f"gander: {summary_line(results)}, {results.elapsed_ms:.0f} ms.", file=sys.stderr)


def cmd_write(args: argparse.Namespace, out: TextIO) -> int:
    with _opened(args) as source:
        if not isinstance(source, Writable):
            raise WriteRefused(f"{source.info().kind} histories are read-only in Gander.")
        session_id = session_reference(source, args.session_id)
        shown = terminal_safe(args.session_id)
        if args.command == "rename":
            source.rename(session_id, args.name)
            out.write(f"Renamed {shown} to {terminal_safe(repr(args.name.strip()))}.\n")
        elif args.command == "archive":
            source.archive(session_id)
            out.write(f"Archived {shown}.\n")
        else:
            source.unarchive(session_id)
            out.write(f"Unarchived {shown}.\n")
    return 0


COMMANDS = {
    "list": cmd_list,
    "show": cmd_show,
    "search": cmd_search,
    "rename": cmd_write,
    "archive": cmd_write,
    "unarchive": cmd_write,
}


_VALUED_OPTIONS = ("--db", "--session", "--screenshot", "--theme", "--wait")


class UnknownWord(Exception):
    """A word before any subcommand that is neither a subcommand nor a history there is."""

    def __init__(self, word: str) -> None:
        import difflib  # noqa: PLC0415 - only for a mistyped word

        close = difflib.get_close_matches(word, list(COMMANDS), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        super().__init__(f"no such command or history: {word}{hint}")


def _is_history(word: str) -> bool:
    """A server's URL, a `KIND=PATH`, a word that reads as a path (a folder or a file name:
    their openers say, naming the whole path, when nothing is there), or a bare word naming
    something that is there. Only a bare word naming nothing (`lsit`) is none."""
    if is_server(word) or split_kind(word)[0] is not None:
        return True
    looks_like_path = any(mark in word for mark in (os.sep, "/", ".", "~"))
    return looks_like_path or os.path.lexists(word)


def paths_as_histories(argv: Sequence[str]) -> list[str]:
    """`gander PATH…` (how a desktop opens a double-clicked file: `Exec=gander %F`) means
    `gander --db PATH…`: each word before any subcommand that is neither an option, an option's
    value nor a subcommand is a history to open. A word that names nothing there (`gander lsit`)
    is `UnknownWord`: a window over nothing, waiting, would be no answer."""
    result: list[str] = []
    words = iter(argv)
    for word in words:
        if word in COMMANDS or word == "--":
            result.append(word)
            result.extend(words)
            break
        if word.startswith("-"):
            result.append(word)
            if word in _VALUED_OPTIONS:
                result.extend(itertools.islice(words, 1))
            continue
        if not _is_history(word):
            raise UnknownWord(word)
        result.extend(("--db", word))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    allow_deep_json()
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(paths_as_histories(words))
    except UnknownWord as error:
        print(f"gander: {terminal_safe(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    # Model output can hold lone surrogates; print a replacement character, never crash.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    with logging_to_file():
        _log.info("gander %s: %s", __version__, args.command or "window")
        try:
            code = _run(args)
        except Exception:
            command = args.command or "window"
            _log.exception("gander %s stopped on an unexpected error", command, extra=UNCAUGHT)
            raise
    if argv is None and args.command is not None:
        # The process ends next: its last collection need not walk every object again
        # (SQLAlchemy's, imported with goose's reader, were 0.05 s of a `gander list`).
        gc.freeze()
    return code


def _run(args: argparse.Namespace) -> int:
    """The command `args` name; an expected failure is one sentence on stderr (and the log)."""
    try:
        if args.command is None:
            from desktop_app.app import run_window  # noqa: PLC0415 - Qt only when a window is wanted

            return run_window(args, data_dir())
        return COMMANDS[args.command](args, sys.stdout)
    except GanderError as error:
        _log.info("refused: %s", error)
        print(f"gander: {terminal_safe(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        # A file-system error nothing above foresaw (a read-only mount, a vanished folder):
        # still one sentence, never a traceback.
        _log.warning("file-system error", exc_info=True)
        where = f"{error.filename}: " if error.filename else ""
        print(f"gander: {terminal_safe(where + (error.strerror or str(error)))}.", file=sys.stderr)
        return EXIT_ERROR
