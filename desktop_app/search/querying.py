"""Answering a query from the index, and reading the page of hits back from the history.

Results are ranked and paged by session, so one session with thousands of matches takes one
place on the page, not all of it. The newest `COUNT_CAP` matches are counted by session (no
ranking: a count is cheap; the result says when there were more); sessions are ordered by
their best hit, ranked by bm25 over the four weighted columns
with every hit whose words are only in tool output after every hit in prose. For a word in most
messages, ranking the whole match set costs hundreds of milliseconds, so only the newest
`RANK_CAP` matches are ranked (the result says so); sessions with none among them follow, the
most recently active first. Only the sessions a page shows are named (their name, folder and
archived flag read), and those with none ranked are put in order only when a page reaches
them. A page's sessions each show their best `HITS_PER_SESSION` hits
among the ranked (those with none ranked, their newest). Snippets are made from the few
messages on the page, read back through the reader by position: the index stores no text.
Session filters use the domain's own `folder_matches`, registered as an SQL function, so
`in:DIR` means what the list's project filter means.
"""

import sqlite3
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from desktop_app.domain.message import Message, MessageCursor, decode_position
from desktop_app.domain.search import SearchHit, SearchResults, SessionResult
from desktop_app.domain.source import BulkMessages, Source, folder_matches
from desktop_app.search.documents import TEXT_FIELDS, to_document
from desktop_app.search.query import ParsedQuery
from desktop_app.search.snippets import make_snippet

RANK_CAP = 1_000
COUNT_CAP = 5_000
"""Matches counted by session: the newest this many. Counting 20,000 made the median query of
`benchmarks.search` 60 ms (budget 50 ms), 5,000 made it 37 ms; every match of a word in most
of 500,000 messages would be half a second. Past it the summary says so."""
WEIGHTS = (10.0, 5.0, 3.0, 1.0)
"""bm25 weights of body, reasoning, tools, output."""
HITS_PER_SESSION = 3
"""A session's best hits on a page of several sessions; the rest of its matches are counted."""
_COLUMNS = "d.session_id, d.position, d.message_id, d.role, d.visible"
_UNRANKED = 1e300


class Candidate(NamedTuple):
    """A matching message, before it is read back (a tuple: thousands are made a query)."""

    doc: int
    session_id: str
    position: str
    message_id: str | None
    role: str
    visible: bool
    rank: float
    tool_output_only: bool


class RankedSession(NamedTuple):
    """A matching session in the results, before its hits are read: those of a page, or every
    matching session when several histories' rankings are merged (a tuple: thousands may be
    made)."""

    session_id: str
    order: tuple[int, int, int, float, float]
    """Title matches first, then sessions by their best ranked hit (prose before tool output),
    then those with none ranked, the most recently active first."""
    match_count: int
    name_matched: bool
    name: str
    working_dir: str | None
    archived: bool
    last_active: int | None
    ranked: tuple[Candidate, ...] = ()
    """Its matches among the ranked ones, best first."""


@dataclass(frozen=True, slots=True)
class Ranking:
    sessions: list[RankedSession]
    total_hits: int
    capped: bool
    all_counted: bool = True


def prepare(conn: sqlite3.Connection) -> None:
    """The SQL functions queries use."""
    conn.create_function("folder_matches", 2, folder_matches, deterministic=True)


def run_query(
    conn: sqlite3.Connection,
    source: Source,
    text: str,
    parsed: ParsedQuery,
    limit: int,
    *,
    offset: int = 0,
) -> SearchResults:
    """One page of sessions from `offset`, with at most `limit` hits among them. Only the
    sessions a page can hold are made (a page takes at most `limit` of them): the others are
    counted and ordered, never read."""
    started = time.perf_counter()
    order = _order(conn, parsed)
    window = _made(conn, *_first(conn, order, offset + max(1, limit)))
    chosen = page_of(window, offset, limit, count=order.count)
    return SearchResults(
        query=text,
        sessions=tuple(session_results(conn, source, parsed, chosen)),
        total_sessions=order.count,
        total_hits=order.total_hits,
        capped=order.capped,
        all_counted=order.all_counted,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        offset=offset,
    )


def page_of(
    ranked: Sequence[RankedSession], offset: int, limit: int, *, count: int | None = None
) -> list[tuple[RankedSession, int]]:
    """The sessions from `offset` whose hits fit in `limit`, each with how many it shows: its
    best few when several sessions match, as many as fit when only one does. `count` is how
    many sessions matched when `ranked` holds only the first of them."""
    several = (len(ranked) if count is None else count) > 1
    each = HITS_PER_SESSION if several else max(1, limit)
    chosen: list[tuple[RankedSession, int]] = []
    room = max(1, limit)
    for session in ranked[offset:]:
        if room <= 0:
            break
        shown = min(each, session.match_count, room)
        chosen.append((session, shown))
        room -= max(1, shown)
    return chosen


def rank_sessions(conn: sqlite3.Connection, parsed: ParsedQuery) -> Ranking:
    """Every matching session, counted and in order (see `RankedSession.order`)."""
    order = _order(conn, parsed)
    return Ranking(
        sessions=_made(conn, *_first(conn, order)),
        total_hits=order.total_hits,
        capped=order.capped,
        all_counted=order.all_counted,
    )


class _Place(NamedTuple):
    """A matching session's place in the order, before its name and folder are read (a tuple:
    thousands may be made, and a page reads a few)."""

    order: tuple[int, int, int, float, float]
    session_id: str
    match_count: int
    name_matched: bool
    last_active: int | None
    ranked: tuple[Candidate, ...]
    title: tuple[str, str | None, bool] | None
    """Name, folder and archived of a session found by its title alone."""


@dataclass(frozen=True, slots=True)
class _Order:
    head: list[_Place]
    """Sessions with a ranked match or a matching title: they come first, in order but for their
    last activity, which breaks ties (read only for the sessions a page reaches)."""
    tail: list[tuple[str, int]]
    """The other matching sessions with their counts, in no order: they follow the head, the
    most recently active first, and are put in order only when a page reaches them."""
    total_hits: int
    capped: bool
    all_counted: bool

    @property
    def count(self) -> int:
        return len(self.head) + len(self.tail)


def _order(conn: sqlite3.Connection, parsed: ParsedQuery) -> _Order:
    """Every matching session, counted, from two statements: the newest `RANK_CAP` matches
    ranked, and the older ones up to `COUNT_CAP` only
    counted (a second query over the rowids below the ranked ones: FTS5 seeks there, so the
    ranked ones are not walked again)."""
    if parsed.match is None and not parsed.narrows:
        return _Order(head=[], tail=[], total_hits=0, capped=False, all_counted=True)
    filters, params = _filters(parsed)
    join = " JOIN sessions s ON s.id = d.session_id" if _needs_sessions(parsed) else ""
    if parsed.match is not None:
        source_rows = f"fts f JOIN docs d ON d.rowid = f.rowid{join} WHERE fts MATCH ? AND"
        rowid = "f.rowid"
        scores = f"bm25(fts, {', '.join(map(str, WEIGHTS))}) AS rank, bm25(fts, 1, 1, 0, 0)"
        params = [parsed.match, *params]
    else:
        source_rows = f"docs d{join} WHERE"
        rowid = "d.rowid"
        scores = "0.0 AS rank, -1.0"
    if parsed.session_id is not None:
        # A session's documents lie within the span of its rowids: FTS5 seeks there instead of
        # walking every match of the words (`chrome session:s000123` walked all of them for 6).
        span = "(SELECT {}(rowid) FROM docs WHERE session_id = ?)"
        filters += f" AND {rowid} BETWEEN {span.format('min')} AND {span.format('max')}"
        params += [parsed.session_id, parsed.session_id]
    ranked_rows = conn.execute(
        f"SELECT {rowid} AS doc, {scores} AS prose, {_COLUMNS} FROM {source_rows} {filters}"
        f" ORDER BY {rowid} DESC LIMIT ?",
        [*params, RANK_CAP + 1],
    ).fetchall()
    capped = len(ranked_rows) > RANK_CAP
    ranked_rows = ranked_rows[:RANK_CAP]
    counts = Counter(row["session_id"] for row in ranked_rows)
    matched = len(ranked_rows)
    if capped:
        older = [
            row[0]
            for row in conn.execute(
                f"SELECT d.session_id FROM {source_rows} {filters} AND {rowid} < ?"
                f" ORDER BY {rowid} DESC LIMIT ?",
                [*params, ranked_rows[-1]["doc"], COUNT_CAP - RANK_CAP + 1],
            )
        ]
        matched += len(older)
        counts.update(older[: COUNT_CAP - RANK_CAP])
    by_session: dict[str, list[Candidate]] = defaultdict(list)
    for row in ranked_rows:
        by_session[row["session_id"]].append(_candidate(row, row["prose"] == 0.0))
    for found in by_session.values():
        found.sort(key=lambda c: (c.tool_output_only, c.rank, -c.doc))
    named = {row[0]: row for row in _name_matches(conn, parsed)}
    head = [
        _place(sid, counts[sid], sid in named, None, ranked=tuple(found))
        for sid, found in by_session.items()
    ]
    head += [
        _place(sid, counts[sid], True, None)
        if sid in counts
        else _place(sid, 0, True, None, title=(name, folder, archived))
        for sid, name, folder, archived in named.values()
        if sid not in by_session
    ]
    head.sort(key=_in_order)  # by all but the last activity, which only breaks ties
    return _Order(
        head=head,
        tail=[(sid, n) for sid, n in counts.items() if sid not in by_session and sid not in named],
        total_hits=min(matched, COUNT_CAP),
        capped=capped,
        all_counted=matched <= COUNT_CAP,
    )


def _in_order(place: _Place) -> tuple[tuple[int, int, int, float, float], str]:
    return place.order, place.session_id


def _first(
    conn: sqlite3.Connection, order: _Order, stop: int | None = None
) -> tuple[list[_Place], dict[str, sqlite3.Row]]:
    """The places of the first `stop` sessions (of all, without it); the tail is put in order
    only when they reach it, by its sessions' rows (returned, so they are not read again)."""
    head = order.head
    if stop is not None and len(head) > stop:
        # The sessions tied with the last one asked for may come before it by their activity.
        edge = head[stop - 1].order[:4]
        head = head[: next((n for n in range(stop, len(head)) if head[n].order[:4] != edge), None)]
    info = _session_info(conn, [p.session_id for p in head if p.title is None])
    places = sorted((_active(p, info.get(p.session_id)) for p in head), key=_in_order)[:stop]
    if stop is None or stop > len(places):
        info |= _session_info(conn, [sid for sid, _ in order.tail])
        tail = [
            _place(sid, n, False, info[sid]["last_active"] if sid in info else None)
            for sid, n in order.tail
        ]
        tail.sort(key=_in_order)
        places += tail[: None if stop is None else stop - len(places)]
    return places, info


def _active(place: _Place, row: sqlite3.Row | None) -> _Place:
    """The place of a session of the head, with its last activity (from its row)."""
    last_active = row["last_active"] if row is not None and place.title is None else None
    return _place(
        place.session_id,
        place.match_count,
        place.name_matched,
        last_active,
        ranked=place.ranked,
        title=place.title,
    )


def _place(
    session_id: str,
    count: int,
    name_matched: bool,
    last_active: object,
    *,
    ranked: tuple[Candidate, ...] = (),
    title: tuple[str, str | None, bool] | None = None,
) -> _Place:
    active = last_active if isinstance(last_active, int) else None
    if ranked:
        best = ranked[0]
        tool_only, rank = int(best.tool_output_only), best.rank
    else:
        tool_only, rank = 0, _UNRANKED
    order = (int(not name_matched), int(not ranked), tool_only, rank, -float(active or 0))
    return _Place(order, session_id, count, name_matched, active, ranked, title)


def _made(
    conn: sqlite3.Connection, places: Sequence[_Place], known: Mapping[str, sqlite3.Row]
) -> list[RankedSession]:
    """The sessions at these places, with their names, folders and archived flags read (those
    not `known` already)."""
    wanted = [p.session_id for p in places if p.title is None and p.session_id not in known]
    info = {**known, **_session_info(conn, wanted)}
    made: list[RankedSession] = []
    for place in places:
        row = info.get(place.session_id)
        if place.title is not None:
            name, folder, archived = place.title
        elif row is not None:
            name, folder, archived = row["name"], row["working_dir"], bool(row["archived"])
        else:
            name, folder, archived = place.session_id, None, False
        made.append(
            RankedSession(
                place.session_id,
                place.order,
                place.match_count,
                place.name_matched,
                name if isinstance(name, str) else place.session_id,
                folder if isinstance(folder, str) else None,
                archived,
                place.last_active,
                place.ranked,
            )
        )
    return made


def _session_info(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, sqlite3.Row]:
    """Name, folder, archived and last activity of each session, a few hundred at a time."""
    found: dict[str, sqlite3.Row] = {}
    for start in range(0, len(session_ids), 500):
        chunk = session_ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        for row in conn.execute(
            "SELECT id, name, working_dir, archived, last_active FROM sessions"
            f" WHERE id IN ({marks})",
            chunk,
        ):
            found[row["id"]] = row
    return found


def _candidate(row: sqlite3.Row, tool_output_only: bool) -> Candidate:
    return Candidate(
        row["doc"],
        row["session_id"],
        row["position"],
        row["message_id"],
        row["role"],
        bool(row["visible"]),
        float(row["rank"]),
        tool_output_only,
    )


def session_results(
    conn: sqlite3.Connection,
    source: Source,
    parsed: ParsedQuery,
    chosen: Sequence[tuple[RankedSession, int]],
) -> list[SessionResult]:
    """The page's sessions, in order, each with its best hits read back from the history."""
    unranked = [session.session_id for session, shown in chosen if shown and not session.ranked]
    newest = _newest(conn, parsed, unranked, max((n for _, n in chosen), default=0))
    top: list[Candidate] = []
    for session, shown in chosen:
        top += (session.ranked or newest.get(session.session_id, ()))[:shown]
    read_back = _read_back(source, parsed, top)
    hits: dict[str, list[SearchHit]] = defaultdict(list)
    for found in top:
        snippet, cursor, row_id = read_back.get(found.doc, ("", None, -1))
        hits[found.session_id].append(
            SearchHit(
                session_id=found.session_id,
                row_id=row_id,
                message_id=found.message_id,
                role=found.role,
                cursor=cursor,
                snippet=snippet,
                rank=found.rank,
                in_tool_output_only=found.tool_output_only,
                agent_only=not found.visible,
            )
        )
    return [
        SessionResult(
            session_id=session.session_id,
            name=session.name,
            working_dir=session.working_dir,
            archived=session.archived,
            hits=tuple(hits.get(session.session_id, ())),
            match_count=session.match_count,
            name_matched=session.name_matched,
            last_active=session.last_active,
        )
        for session, _ in chosen
    ]


def _newest(
    conn: sqlite3.Connection, parsed: ParsedQuery, session_ids: Sequence[str], count: int
) -> dict[str, list[Candidate]]:
    """The newest `count` matches of each session none of whose matches were ranked, newest
    first, unranked: bm25 costs a scan of a common word's every match per query (for its
    document frequency), and here is a query a session — over the range of its documents'
    rowids, which FTS5 seeks to. Whether a match is in prose is a second match over those
    columns, as cheap."""
    found: dict[str, list[Candidate]] = {}
    if not session_ids or count <= 0:
        return found
    filters, params = _filters(parsed, of_sessions=False)
    marks = ", ".join("?" for _ in session_ids)
    spans = conn.execute(
        "SELECT session_id, min(rowid), max(rowid) FROM docs"
        f" WHERE session_id IN ({marks}) GROUP BY session_id",
        list(session_ids),
    ).fetchall()
    prose = _prose_match(parsed)
    for session_id, first, last in spans:
        if parsed.match is None:
            rows = conn.execute(
                f"SELECT d.rowid AS doc, 0.0 AS rank, {_COLUMNS} FROM docs d"
                f" WHERE d.session_id = ? AND {filters} ORDER BY d.rowid DESC LIMIT ?",
                [session_id, *params, count],
            ).fetchall()
        else:
            rows = conn.execute(
                f"SELECT f.rowid AS doc, 0.0 AS rank, {_COLUMNS} FROM fts f"
                " JOIN docs d ON d.rowid = f.rowid WHERE fts MATCH ?"
                f" AND f.rowid BETWEEN ? AND ? AND d.session_id = ? AND {filters}"
                " ORDER BY f.rowid DESC LIMIT ?",
                [parsed.match, first, last, session_id, *params, count],
            ).fetchall()
        in_prose: set[int] = set()
        if rows and prose is not None:
            in_prose = {
                row[0]
                for row in conn.execute(
                    "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?",
                    [prose, rows[-1]["doc"], rows[0]["doc"]],
                )
            }
        found[session_id] = [
            _candidate(row, parsed.match is not None and row["doc"] not in in_prose) for row in rows
        ]
    return found


def _prose_match(parsed: ParsedQuery) -> str | None:
    """The query over what was said and reasoning only, of those it searches."""
    prose = [column for column in ("body", "reasoning") if column in parsed.columns]
    if parsed.name_match is None or not prose:
        return None
    return f"{{{' '.join(prose)}}} : ({parsed.name_match})"


def _read_back(
    source: Source, parsed: ParsedQuery, candidates: Sequence[Candidate]
) -> dict[int, tuple[str, MessageCursor, int]]:
    """Each hit's snippet, with the query's words marked, its exact position (to open the
    transcript there) and the reader's row id; hits whose message vanished are left out."""
    by_session: dict[str, dict[MessageCursor, int]] = defaultdict(dict)
    for candidate in candidates:
        by_session[candidate.session_id][decode_position(candidate.position)] = candidate.doc
    found: dict[int, tuple[str, MessageCursor, int]] = {}
    for message in _messages_at(source, by_session):
        document = to_document(message)
        columns = [getattr(document, name) for name in parsed.columns]  # the scoped ones
        found[by_session[message.session_id][message.cursor]] = (
            make_snippet(columns, parsed.terms),
            message.cursor,
            message.row_id,
        )
    return found


def _messages_at(
    source: Source, wanted: Mapping[str, Mapping[MessageCursor, int]]
) -> Iterator[Message]:
    if isinstance(source, BulkMessages):
        yield from source.messages_at_each({sid: sorted(p) for sid, p in wanted.items()})
        return
    for session_id, positions in wanted.items():
        yield from source.messages_at(session_id, sorted(positions))


def _name_matches(
    conn: sqlite3.Connection, parsed: ParsedQuery
) -> list[tuple[str, str, str | None, bool]]:
    """Sessions whose title matches: only when nothing in the query is about messages (a role,
    a tool, an image, an error, agent-only text, a scope), and dates apply to the session's last
    activity, so every filter applies to title matches too."""
    message_filters = (
        parsed.roles,
        parsed.tools,
        parsed.has_image,
        parsed.has_error,
        parsed.include_hidden,
    )
    if parsed.name_match is None or parsed.columns != TEXT_FIELDS or any(message_filters):
        return []
    filters, params = _session_filters(parsed)
    if parsed.session_id is not None:
        filters += " AND s.id = ?"
        params.append(parsed.session_id)
    if parsed.before is not None:
        filters += " AND s.last_active < ?"
        params.append(parsed.before)
    if parsed.after is not None:
        filters += " AND s.last_active >= ?"
        params.append(parsed.after)
    sql = (
        "SELECT s.id, s.name, s.working_dir, s.archived FROM names n JOIN sessions s"
        f" ON s.id = n.session_id WHERE names MATCH ? AND {filters} ORDER BY rank LIMIT 20"
    )
    try:
        rows = conn.execute(sql, ["{name} : (" + parsed.name_match + ")", *params]).fetchall()
    except sqlite3.OperationalError:
        return []
    return [(r["id"], r["name"], r["working_dir"], bool(r["archived"])) for r in rows]


def _session_filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses: list[str] = ["1"]
    params: list[object] = []
    if parsed.dirs:
        # An uncorrelated subquery, so the folders are matched once a query, not per message;
        # and once per distinct folder, not per session (a Python call each: 20,000 sessions
        # in 40 folders took 60 ms). An aggregate in HAVING keeps SQLite from moving the call
        # into WHERE, where it would run per session. No folder is no match.
        folder = "min(f.working_dir)"
        matching = " OR ".join(f"folder_matches(?, {folder})" for _ in parsed.dirs)
        clauses.append(
            f"s.working_dir IN (SELECT {folder} FROM sessions f GROUP BY f.working_dir"
            f" HAVING {matching})"
        )
        params.extend(parsed.dirs)
    if parsed.types:
        clauses.append(f"s.session_type IN ({', '.join('?' for _ in parsed.types)})")
        params.extend(sorted(parsed.types))
    if parsed.archived_only:
        clauses.append("s.archived = 1")
    return " AND ".join(clauses), params


def _needs_sessions(parsed: ParsedQuery) -> bool:
    return bool(parsed.dirs or parsed.types or parsed.archived_only)


def _filters(parsed: ParsedQuery, *, of_sessions: bool = True) -> tuple[str, list[object]]:
    """The query's filters; without those `of_sessions` for sessions already known to pass
    them (a folder filter is a scan of every session)."""
    clauses, params = _session_filters(parsed) if of_sessions else ("1", [])
    parts = [clauses]
    if parsed.session_id is not None:
        parts.append("d.session_id = ?")
        params.append(parsed.session_id)
    if not parsed.include_hidden:
        parts.append("d.visible = 1")
    if parsed.roles:
        parts.append(f"d.role IN ({', '.join('?' for _ in parsed.roles)})")
        params.extend(sorted(parsed.roles))
    for tool in parsed.tools:
        parts.append("instr(d.tool_names, ?) > 0")
        params.append(f" {tool} ")
    if parsed.before is not None:
        parts.append("d.created < ?")
        params.append(parsed.before)
    if parsed.after is not None:
        parts.append("d.created >= ?")
        params.append(parsed.after)
    if parsed.has_image:
        parts.append("d.has_image = 1")
    if parsed.has_error:
        parts.append("d.has_error = 1")
    return " AND ".join(parts), params
