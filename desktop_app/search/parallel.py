"""Reading and tokenising messages is the slow half of building an index; on a first build of a
large history it is spread over worker processes (one per core), each opening the history again
through the same opener, while this process writes the index chunk by chunk.

`multiprocessing` and the process pool (10 ms to import) are imported when such a build starts:
a search over a current index (`gander search`) and most updates need neither."""

import atexit
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future

from desktop_app.domain.message import Message
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.source import BulkMessages, Source
from desktop_app.search.documents import DocumentRow, as_row, to_document

SourceFactory = Callable[[], Source]
"""Opens the same history again (in another process): a picklable callable."""


def messages_of(source: Source, session_ids: Sequence[str]) -> Iterator[Message]:
    """Every message of these sessions, session by session: in bulk when the reader can."""
    if isinstance(source, BulkMessages):
        yield from source.messages_of(session_ids)
        return
    for session_id in session_ids:
        yield from iter_messages(source, session_id)


_opened: list[Source] = []
"""In a worker process: the history, opened once when the worker starts."""


def _start_worker(reopen: SourceFactory) -> None:
    """Workers yield the CPU to the window (and to goose) whenever both want it, and open the
    history once for every chunk they are given."""
    if hasattr(os, "nice"):
        os.nice(10)
    _opened.append(reopen())
    atexit.register(_opened[0].close)


def _chunk(session_ids: list[str]) -> list[DocumentRow]:
    return [as_row(to_document(m)) for m in messages_of(_opened[0], session_ids)]


def documents_in_parallel(
    reopen: SourceFactory, chunks: Sequence[list[str]], workers: int
) -> Iterator[tuple[list[str], list[DocumentRow]]]:
    """Each chunk of sessions with its documents (as rows), chunk by chunk, in order."""
    import multiprocessing  # noqa: PLC0415 - see the module's docstring
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(reopen,)
    ) as pool:
        waiting = iter(chunks)
        pending: deque[tuple[list[str], Future[list[DocumentRow]]]] = deque()
        for chunk in waiting:
            pending.append((chunk, pool.submit(_chunk, chunk)))
            if len(pending) >= workers * 2:
                break
        while pending:
            chunk, future = pending.popleft()
            documents = future.result()
            following = next(waiting, None)
            if following is not None:
                pending.append((following, pool.submit(_chunk, following)))
            yield chunk, documents
