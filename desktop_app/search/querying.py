"""Answering a query from the index, and reading the page of hits back from the history.

Ranking: bm25 over the four weighted columns, and every hit whose words are only in tool output
comes after every hit in prose. For a word in most messages, ranking the whole match set costs
hundreds of milliseconds, so only the newest `RANK_CAP` matches are ranked (the result says so).
Snippets are made from the few messages on the page, read back through the reader by position:
the index stores no text. Session filters use the domain's own `folder_matches`, registered as
an SQL function, so `in:DIR` means what the list's project filter means.
"""

import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from desktop_app.domain.message import Message, MessageCursor, decode_position
from desktop_app.domain.search import SearchHit, SearchResults, SessionResult
from desktop_app.domain.source import BulkMessages, Source, folder_matches
from desktop_app.search.documents import TEXT_FIELDS, to_document
from desktop_app.search.query import ParsedQuery
from desktop_app.search.snippets import make_snippet

RANK_CAP = 1_000
WEIGHTS = (10.0, 5.0, 3.0, 1.0)
"""bm25 weights of body, reasoning, tools, output."""


def prepare(conn: sqlite3.Connection) -> None:
    """The SQL functions queries use."""
    conn.create_function("folder_matches", 2, folder_matches, deterministic=True)


def run_query(
    conn: sqlite3.Connection, source: Source, text: str, parsed: ParsedQuery, limit: int
) -> SearchResults:
    started = time.perf_counter()
    if parsed.match is None and not parsed.narrows:
        return SearchResults(query=text, sessions=(), total_hits=0, capped=False, elapsed_ms=0.0)
    filters, params = _filters(parsed)
    join = " JOIN sessions s ON s.id = d.session_id" if _needs_sessions(parsed) else ""
    if parsed.match is not None:
        sql = (
            f"SELECT f.rowid AS doc, bm25(fts, {', '.join(map(str, WEIGHTS))}) AS rank,"
            " bm25(fts, 1, 1, 0, 0) AS prose, d.session_id, d.position, d.message_id, d.role,"
            " d.visible"
            f" FROM fts f JOIN docs d ON d.rowid = f.rowid{join}"
            f" WHERE fts MATCH ? AND {filters} ORDER BY f.rowid DESC LIMIT ?"
        )
        rows = conn.execute(sql, [parsed.match, *params, RANK_CAP + 1]).fetchall()
    else:
        sql = (
            "SELECT d.rowid AS doc, 0.0 AS rank, -1.0 AS prose, d.session_id, d.position,"
            f" d.message_id, d.role, d.visible FROM docs d{join}"
            f" WHERE {filters} ORDER BY d.rowid DESC LIMIT ?"
        )
        rows = conn.execute(sql, [*params, RANK_CAP + 1]).fetchall()
    capped = len(rows) > RANK_CAP
    rows = rows[:RANK_CAP]
    top = sorted(rows, key=lambda r: (r["prose"] == 0.0, r["rank"], -r["doc"]))[:limit]
    read_back = _read_back(source, parsed, top)
    per_session: dict[str, int] = defaultdict(int)
    for row in rows:
        per_session[row["session_id"]] += 1
    hits = []
    for row in top:
        snippet, cursor, row_id = read_back.get(row["doc"], ("", None, -1))
        hits.append(
            SearchHit(
                session_id=row["session_id"],
                row_id=row_id,
                message_id=row["message_id"],
                role=row["role"],
                cursor=cursor,
                snippet=snippet,
                rank=float(row["rank"]),
                in_tool_output_only=row["prose"] == 0.0,
                agent_only=not row["visible"],
            )
        )
    named = _name_matches(conn, parsed)
    sessions = _group(conn, hits, per_session, named)
    return SearchResults(
        query=text,
        sessions=tuple(sessions),
        total_sessions=len(set(per_session) | {sid for sid, *_ in named}),
        total_hits=len(rows),
        capped=capped,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _read_back(
    source: Source, parsed: ParsedQuery, rows: Sequence[sqlite3.Row]
) -> dict[int, tuple[str, MessageCursor, int]]:
    """Each hit's snippet, with the query's words marked, its exact position (to open the
    transcript there) and the reader's row id; hits whose message vanished are left out."""
    by_session: dict[str, dict[MessageCursor, int]] = defaultdict(dict)
    for row in rows:
        by_session[row["session_id"]][decode_position(row["position"])] = row["doc"]
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


def _group(
    conn: sqlite3.Connection,
    hits: list[SearchHit],
    counts: dict[str, int],
    named: list[tuple[str, str, str | None, bool]],
) -> list[SessionResult]:
    by_session: dict[str, list[SearchHit]] = defaultdict(list)
    for hit in hits:
        by_session[hit.session_id].append(hit)
    info: dict[str, Any] = {}
    if by_session:
        marks = ", ".join("?" for _ in by_session)
        info = {
            row["id"]: row
            for row in conn.execute(
                f"SELECT id, name, working_dir, archived FROM sessions WHERE id IN ({marks})",
                list(by_session),
            )
        }
    named_ids = {n[0] for n in named}
    results = [
        SessionResult(
            session_id=sid,
            name=name,
            working_dir=working_dir,
            archived=archived,
            hits=tuple(by_session.get(sid, ())),
            match_count=counts.get(sid, 0),
            name_matched=True,
        )
        for sid, name, working_dir, archived in named
    ]
    for sid, session_hits in by_session.items():
        if sid in named_ids:
            continue
        row = info.get(sid)
        results.append(
            SessionResult(
                session_id=sid,
                name=row["name"] if row else sid,
                working_dir=row["working_dir"] if row else None,
                archived=bool(row["archived"]) if row else False,
                hits=tuple(session_hits),
                match_count=counts.get(sid, 0),
            )
        )
    return results


def _session_filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses: list[str] = ["1"]
    params: list[object] = []
    if parsed.dirs:
        # An uncorrelated subquery: the folders are matched once per session, not per message.
        matching = " OR ".join("folder_matches(?, f.working_dir)" for _ in parsed.dirs)
        clauses.append(f"s.id IN (SELECT f.id FROM sessions f WHERE {matching})")
        params.extend(parsed.dirs)
    if parsed.types:
        clauses.append(f"s.session_type IN ({', '.join('?' for _ in parsed.types)})")
        params.extend(sorted(parsed.types))
    if parsed.archived_only:
        clauses.append("s.archived = 1")
    return " AND ".join(clauses), params


def _needs_sessions(parsed: ParsedQuery) -> bool:
    return bool(parsed.dirs or parsed.types or parsed.archived_only)


def _filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses, params = _session_filters(parsed)
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
