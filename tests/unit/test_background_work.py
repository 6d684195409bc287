"""A file is parsed with the cyclic garbage collector off, and it is on again afterwards."""

import gc
import threading
from pathlib import Path

from desktop_app.domain.session import Session
from desktop_app.sources.files.background import collector_paused
from desktop_app.sources.files.history import FileFormat, ParsedSession, parse_file

seen: list[bool] = []


def _recording(path: Path, data: bytes) -> ParsedSession:
    del data
    seen.append(gc.isenabled())
    return ParsedSession(session=Session(id=path.stem, name="s"), messages=[])


def _any(head: bytes) -> bool:
    del head
    return True


RECORDING = FileFormat(kind="test", suffixes=(".txt",), sniff=_any, parse=_recording)


def test_a_parse_runs_without_the_collector_which_is_on_again_after(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("x")
    seen.clear()
    assert gc.isenabled()
    parse_file(path, [RECORDING])
    assert seen == [False]
    assert gc.isenabled()


def test_what_a_parse_made_is_frozen_so_no_collection_walks_it_after() -> None:
    """The first young collection after the pause walked everything made during it (a 60 MB
    log parsed and kept: 0.1–0.2 s holding the interpreter lock)."""
    gc.unfreeze()
    with collector_paused():
        made = [[number] for number in range(10_000)]
    assert gc.get_freeze_count() >= len(made)
    gc.unfreeze()


def test_the_collector_comes_back_when_the_last_of_two_parses_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            assert release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the other parse still runs
    release.set()
    thread.join()
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
