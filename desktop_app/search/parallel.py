"""Reading and tokenising goose's JSON is the slow half of building an index; on a first build
of a large history it is spread over worker processes (one per core), each opening its own
read-only connection, while this process writes the index in row-id order."""

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from desktop_app.domain.source import Source
from desktop_app.search.documents import IndexDocument, astuple_document, to_document

SourceFactory = Callable[[], Source]
CHUNK = 5_000


def _lower_priority() -> None:
    """Workers yield the CPU to the window (and to goose) whenever both want it."""
    if hasattr(os, "nice"):
        os.nice(10)


def _chunk(reopen: SourceFactory, after: int, until: int) -> list[tuple[Any, ...]]:
    """Plain tuples cross the process boundary (pickling dataclasses costs several times more)."""
    source = reopen()
    try:
        messages = source.messages_after(after, until - after)
        return [astuple_document(to_document(m)) for m in messages if m.row_id <= until]
    finally:
        source.close()


def documents_in_parallel(
    reopen: SourceFactory, after: int, until: int, workers: int
) -> Iterator[tuple[int, list[IndexDocument]]]:
    """Documents for rows (after, until], chunk by chunk, in order, each with the highest row
    id its chunk covers (so a build stopped half-way resumes where it was)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_lower_priority
    ) as pool:
        starts = iter(range(after, until, CHUNK))
        pending: deque[tuple[int, Future[list[tuple[Any, ...]]]]] = deque()

        def submit(start: int) -> None:
            end = min(start + CHUNK, until)
            pending.append((end, pool.submit(_chunk, reopen, start, end)))

        for start in starts:
            submit(start)
            if len(pending) >= workers * 2:
                break
        while pending:
            end, future = pending.popleft()
            documents = [IndexDocument(*fields) for fields in future.result()]
            following = next(starts, None)
            if following is not None:
                submit(following)
            yield end, documents
