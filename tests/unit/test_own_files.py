"""The search index survives a `kill -9` in the middle of a build (issue #5, point 5)."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.search.index import SearchIndex
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

ROOT = Path(__file__).resolve().parents[2]

BUILD_FOREVER = """
import sys
from pathlib import Path
from desktop_app.sources.goose import GooseSource
from desktop_app.search.index import SearchIndex
source = GooseSource(Path(sys.argv[1]))
index = SearchIndex(Path(sys.argv[2]), source)
print("building", flush=True)
while True:
    index.update()
    index.close()
    Path(sys.argv[2]).unlink()
    index = SearchIndex(Path(sys.argv[2]), source)
"""


def test_index_killed_mid_build_recovers(make_db: Callable[..., GooseDb], tmp_path: Path) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.conn.execute("BEGIN")
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)",
        [
            ("s", "user", f'[{{"type":"text","text":"word{i % 7} common uniq{i}"}}]', i)
            for i in range(30_000)
        ],
    )
    db.conn.execute("COMMIT")
    index_file = tmp_path / "index.sqlite"
    for delay in (0.3, 0.8, 1.5):
        builder = subprocess.Popen(
            [sys.executable, "-c", BUILD_FOREVER, str(db.path), str(index_file)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert builder.stdout is not None
        assert builder.stdout.readline().strip() == "building"
        time.sleep(delay)
        os.kill(builder.pid, signal.SIGKILL)
        builder.wait()
        builder.stdout.close()
        source = GooseSource(db.path)
        index = SearchIndex(index_file, source)
        index.update()
        for unique in ("uniq0", "uniq12345", "uniq29999"):
            assert index.search(unique).total_hits == 1
        assert index.search("common").capped
        assert index.search("word3 uniq10").total_hits == 1
        index.close()
        source.close()
