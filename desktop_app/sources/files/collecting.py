"""Parsing a file (or importing pyqtgraph) without the cyclic garbage collector running through
it.

A parse makes millions of objects (a 60 MB Claude Code log: 53,600 messages, each with its parts
and raw JSON) and keeps them all, with no cycles among them: every collection on the way walked
the growing heap again for nothing — a fifth of the parse of that log, a quarter of a 40 MB
Codex rollout's. The collector is off while any thread parses and on again (if it was on) when
the last one ends; what a parse lets go of is freed by reference counting as before."""

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class _Pause:
    lock: threading.Lock = field(default_factory=threading.Lock)
    parsing: int = 0
    was_enabled: bool = False


_PAUSE = _Pause()


@contextmanager
def collector_paused() -> Iterator[None]:
    with _PAUSE.lock:
        if _PAUSE.parsing == 0:
            _PAUSE.was_enabled = gc.isenabled()
            gc.disable()
        _PAUSE.parsing += 1
    try:
        yield
    finally:
        with _PAUSE.lock:
            _PAUSE.parsing -= 1
            if _PAUSE.parsing == 0 and _PAUSE.was_enabled:
                gc.enable()
