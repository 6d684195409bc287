"""Work in a background thread of the window's process made gentle on the window.

**The cyclic collector paused.** A parse makes millions of objects (a 60 MB Claude Code log:
53,600 messages, each with its parts and raw JSON) and keeps them all, with no cycles among
them: every collection on the way walked the growing heap again for nothing — a fifth of the
parse of that log, a quarter of a 40 MB Codex rollout's — and a full one holds the interpreter
lock throughout (what pyqtgraph's import makes: 46–98 ms, a stall of the window). The
collector is off while any such work runs and on again (if it was on) when the last ends, what
is alive then frozen (below); what the work lets go of is freed by reference counting as
before. The cost: a cycle of garbage made meanwhile by another thread is never collected.

**Quick switches.** A thread running Python keeps the interpreter lock for the switch interval
(5 ms) before another thread may have it, and the window's thread needs it for every call
into Python (each row it paints asks the model): reading the first files on the catalog's
thread stalled the first window 115–148 ms, 66–92 ms with the interval at half a millisecond.
The interval is short while any such work runs, and as it was when the last ends.

Both are counted, so that work in two threads at once never ends the other's early."""

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

QUICK_SWITCH_S = 0.0005


@dataclass
class _Shared:
    """A process-wide setting changed while any of its holders runs, restored after the last."""

    change: Callable[[], object]
    """Makes the change; returns what to restore."""
    restore: Callable[[object], None]
    lock: threading.Lock = field(default_factory=threading.Lock)
    holders: int = 0
    before: object = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self.lock:
            if self.holders == 0:
                self.before = self.change()
            self.holders += 1
        try:
            yield
        finally:
            with self.lock:
                self.holders -= 1
                if self.holders == 0:
                    self.restore(self.before)


def _pause_collector() -> object:
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def _restore_collector(enabled: object) -> None:
    # What the work made is frozen first: the collector's first young collection after the
    # pause walked every object made during it (a 60 MB log parsed and kept: 0.1–0.2 s,
    # holding the interpreter lock), and what is kept lives on, as start-up's objects do
    # (`app._freeze_start_up`). Freed objects still go by reference counting.
    gc.freeze()
    if enabled:
        gc.enable()


def _quicken() -> object:
    usual = sys.getswitchinterval()
    sys.setswitchinterval(QUICK_SWITCH_S)
    return usual


def _restore_interval(usual: object) -> None:
    assert isinstance(usual, float)
    sys.setswitchinterval(usual)


_COLLECTOR = _Shared(_pause_collector, _restore_collector)
_SWITCHES = _Shared(_quicken, _restore_interval)


def collector_paused() -> AbstractContextManager[None]:
    return _COLLECTOR.held()


def quick_switches() -> AbstractContextManager[None]:
    return _SWITCHES.held()
