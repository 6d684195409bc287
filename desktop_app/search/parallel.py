"""Reading and tokenising messages is the slow half of building an index; on a first build of a
large history it is spread over worker processes (one per core), each opening the history again
through the same opener, while this process writes the index as their results come back.

The work is chunks of short sessions and pieces of long ones (`Piece`). Each worker is a pool
of one process, so every piece of a long session goes to the same process, in order: it reads
the session's positions once, and a file history parses the session's file once, not once per
worker; each piece comes back as it is read, never the whole session in one result.

`multiprocessing` and the process pool (10 ms to import) are imported when such a build starts:
a search over a current index (`gander search`) and most updates need neither."""

import atexit
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.source import BulkMessages, Source
from desktop_app.search.documents import DocumentRow, document_row

ONE_AT_A_TIME = 20_000
"""Sessions of more messages are all read by the first worker, one after another, and the rest
shared out around them: a file history parses a session's file whole, and two such files
parsed at once, one in each worker, took a first build of the 300 MB corpus of
`benchmarks.scale` from 563 MB to 860 MB."""

SourceFactory = Callable[[], Source]
"""Opens the same history again (in another process): a picklable callable."""


def messages_of(source: Source, session_ids: Sequence[str]) -> Iterator[Message]:
    """Every message of these sessions, session by session: in bulk when the reader can."""
    if isinstance(source, BulkMessages):
        yield from source.messages_of(session_ids)
        return
    for session_id in session_ids:
        yield from iter_messages(source, session_id)


@dataclass(frozen=True, slots=True)
class Piece:
    """Messages `start` to `stop` (to the end when None) of a long session, by position."""

    session_id: str
    start: int
    stop: int | None


Work = list[str] | Piece
"""A chunk of whole sessions, or a piece of one."""

_opened: list[Source] = []
"""In a worker process: the history, opened once when the worker starts."""
_positions: dict[str, Sequence[MessageCursor]] = {}
"""In a worker process: the positions of the long session it is reading, read with its first
piece and let go with its last."""


def _start_worker(reopen: SourceFactory) -> None:
    """Workers yield the CPU to the window (and to goose) whenever both want it, and open the
    history once for every chunk they are given."""
    if hasattr(os, "nice"):
        os.nice(10)
    _opened.append(reopen())
    atexit.register(_opened[0].close)


def _rows(work: Work) -> list[DocumentRow]:
    source = _opened[0]
    if isinstance(work, list):
        return [document_row(m) for m in messages_of(source, work)]
    if work.session_id not in _positions:
        _positions.clear()
        _positions[work.session_id] = source.positions(work.session_id)
    span = _positions[work.session_id][work.start : work.stop]
    if work.stop is None:
        _positions.clear()
    if not span:
        return []
    return [document_row(m) for m in source.messages_between(work.session_id, span[0], span[-1])]


def share(works: Sequence[tuple[Work, int]], workers: int) -> list[deque[Work]]:
    """Each worker's works, by the messages each holds: every piece of a session to the same
    worker, in order; sessions of more than `ONE_AT_A_TIME` messages to the first; each chunk
    and other session to the worker with the fewest so far."""
    totals: dict[str, int] = {}
    for work, messages in works:
        if isinstance(work, Piece):
            totals[work.session_id] = totals.get(work.session_id, 0) + messages

    def huge(work: Work) -> bool:
        return isinstance(work, Piece) and totals[work.session_id] > ONE_AT_A_TIME

    queues: list[deque[Work]] = [deque() for _ in range(workers)]
    loads = [0] * workers
    owners: dict[str, int] = {}
    for work, messages in sorted(works, key=lambda pair: not huge(pair[0])):  # stable
        if isinstance(work, Piece):
            chosen = owners.setdefault(
                work.session_id, 0 if huge(work) else loads.index(min(loads))
            )
        else:
            chosen = loads.index(min(loads))
        loads[chosen] += messages
        queues[chosen].append(work)
    return queues


def documents_in_parallel(
    reopen: SourceFactory, works: Sequence[tuple[Work, int]], workers: int
) -> Iterator[tuple[Work, list[DocumentRow]]]:
    """Each work with its documents (as rows), as they come back: the pieces of a session in
    order, the rest in any order. `works` pairs each with its messages (about), by which they
    are shared out (`share`)."""
    import multiprocessing  # noqa: PLC0415 - see the module's docstring
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    queues = share(works, workers)
    context = multiprocessing.get_context("spawn")
    pools = [
        ProcessPoolExecutor(
            max_workers=1, mp_context=context, initializer=_start_worker, initargs=(reopen,)
        )
        for _ in range(workers)
    ]
    running: list[deque[tuple[Work, Future[list[DocumentRow]]]]] = [deque() for _ in pools]
    try:
        while True:
            for pool, queue, flight in zip(pools, queues, running, strict=True):
                while queue and len(flight) < 2:
                    work = queue.popleft()
                    flight.append((work, pool.submit(_rows, work)))
            heads = [flight[0][1] for flight in running if flight]
            if not heads:
                return
            wait(heads, return_when=FIRST_COMPLETED)
            for flight in running:
                while flight and flight[0][1].done():
                    work, future = flight.popleft()
                    yield work, future.result()
    finally:
        for pool in pools:
            pool.shutdown(cancel_futures=True)
