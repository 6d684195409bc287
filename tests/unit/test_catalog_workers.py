"""The processes that read a folder's files for the catalog give the CPU to the window."""

import os
import sys
from pathlib import Path

import pytest

from desktop_app.domain.session import Session
from desktop_app.sources.files.history import FileFormat, ParsedSession, summaries_in_parallel


def _priority_as_name(path: Path, data: bytes) -> ParsedSession:
    """A format whose one session is named after the niceness of the process that read it."""
    del data
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    return ParsedSession(session=Session(id=path.stem, name=f"nice {niceness}"), messages=[])


def _any(head: bytes) -> bool:
    del head
    return True


REPORTING = FileFormat(kind="test", suffixes=(".txt",), sniff=_any, parse=_priority_as_name)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX priorities")
def test_the_catalog_workers_run_below_the_window(tmp_path: Path) -> None:
    """Reading a new machine's histories beside the first window stalled it 210–250 ms; the
    workers now yield to it (niceness 10 above the window's)."""
    paths = []
    for number in range(4):
        path = tmp_path / f"s{number}.txt"
        path.write_text("x")
        paths.append(str(path))
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    names = {summary["name"] for summary in summaries_in_parallel(paths, [REPORTING])}
    assert names == {f"nice {min(ours + 10, 19)}"}
