"""The corpus of `benchmarks.scale` (issue #22): genuine lines with every id rewritten, read by
Gander to exactly the token totals the builder says it wrote. A figure that compares Gander's
totals with a wrong truth, or a corpus whose copies share ids (one session read as another,
replies counted once for many copies), would measure nothing."""

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import scale
from desktop_app.domain.reading import iter_sessions
from desktop_app.domain.source import SessionQuery
from desktop_app.opening import open_histories

SIZE = 1_000_000


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scale.build(SIZE, seed=5, folder=tmp_path_factory.mktemp("scale") / "corpus")


def _logs(corpus: Path) -> list[Path]:
    return sorted((corpus / "home").rglob("*.jsonl"))


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _ids(value: Any, into: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in scale.ID_KEYS and isinstance(item, str) and len(item) >= 4:
                into.append(item)
            _ids(item, into)
    elif isinstance(value, list):
        for item in value:
            _ids(item, into)


def _truth(corpus: Path) -> dict[str, Any]:
    truth: dict[str, Any] = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    return truth


def test_the_corpus_is_laid_out_as_the_agents_lay_out_their_logs(corpus: Path) -> None:
    truth = _truth(corpus)
    logs = _logs(corpus)
    assert len(logs) == truth["files"] >= 12
    assert 0.9 * SIZE <= sum(p.stat().st_size for p in logs) == truth["bytes"] <= 1.1 * SIZE
    kinds = Counter(s["kind"] for s in truth["sessions"].values())
    assert kinds["claude-code"]
    assert kinds["codex"]
    for session, written in truth["sessions"].items():
        path = Path(written["path"])
        if written["kind"] == "claude-code":
            assert path.parts[:2] == (".claude", "projects")
            assert path.name == f"{session}.jsonl"
            assert path.parts[2] == scale._project(written["project"])[1]
        else:
            assert path.parts[:2] == (".codex", "sessions")
            assert len(path.parts) == 6
            assert path.name.startswith("rollout-")
            assert path.stem.endswith(session)


def test_every_line_is_json_and_every_id_is_the_corpus_own(corpus: Path) -> None:
    """No id of a genuine log is left, no two files share one, and no two lines of a file
    share a message uuid (copies of one log within a file too)."""
    genuine: list[str] = []
    for path in [*scale.claude_templates(), *scale.codex_templates()]:
        for line in _lines(path):
            _ids(line, genuine)
    owner: dict[str, Path] = {}
    for path in _logs(corpus):
        lines = _lines(path)  # each line parses
        uuids = Counter(ln["uuid"] for ln in lines if isinstance(ln.get("uuid"), str))
        assert not [u for u, n in uuids.items() if n > 1]
        ids: list[str] = []
        for line in lines:
            _ids(line, ids)
        for found in set(ids):
            assert owner.setdefault(found, path) == path, f"{found} in two files"
    assert not {i for i in genuine if len(i) >= scale.LONG_ID} & set(owner)


def test_each_copy_follows_the_one_before(corpus: Path) -> None:
    """Claude Code's parentUuid chain goes on from copy to copy, times rise from copy to copy,
    and Codex's running totals go on growing."""
    chained = 0
    for path in _logs(corpus):
        lines = _lines(path)
        seen: set[str] = set()
        for line in lines:
            parent = line.get("parentUuid")
            assert parent is None or parent in seen or "logicalParentUuid" in line
            if isinstance(line.get("uuid"), str):
                seen.add(line["uuid"])
        chained += sum(1 for ln in lines if "parentUuid" in ln and ln["parentUuid"] is None) == 1
        if path.name.startswith("rollout-"):
            totals = [
                ln["payload"]["info"]["total_token_usage"]["total_tokens"]
                for ln in lines
                if ln.get("type") == "event_msg"
                and ln["payload"].get("type") == "token_count"
                and isinstance(ln["payload"].get("info"), dict)
            ]
            assert totals == sorted(totals)
    assert chained > 0


def test_gander_reads_the_corpus_to_the_truth_it_was_built_with(
    corpus: Path, tmp_path: Path
) -> None:
    home = corpus / "home"
    opened = open_histories(
        [f"claude-code={home / '.claude' / 'projects'}", f"codex={home / '.codex' / 'sessions'}"],
        demo=False,
        data_dir=tmp_path,
    )
    try:
        sessions = list(iter_sessions(opened.source, SessionQuery(session_types=None)))
    finally:
        opened.source.close()
    truth = _truth(corpus)
    own = {s.id.split(":", 1)[-1]: s for s in sessions}  # combined: `KIND:ID`
    assert sorted(own) == sorted(truth["sessions"])
    for session_id, session in own.items():
        written = truth["sessions"][session_id]
        usage = session.accumulated_usage
        got = {
            "input_tokens": usage.input_tokens or 0,
            "output_tokens": usage.output_tokens or 0,
            "cache_read_tokens": usage.cache_read_tokens or 0,
            "cache_write_tokens": usage.cache_write_tokens or 0,
        }
        assert got == scale.expected_usage(written["kind"], written["tokens"]), written["path"]
    for kind, tokens in truth["tokens"].items():
        assert sum(tokens.values()) > 0, kind


def test_the_same_seed_builds_the_same_bytes(corpus: Path, tmp_path: Path) -> None:
    again = scale.build(SIZE, seed=5, folder=tmp_path / "again")

    def digest(folder: Path) -> dict[str, str]:
        return {
            str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in _logs(folder)
        }

    assert digest(again) == digest(corpus)
    other = scale.build(SIZE, seed=6, folder=tmp_path / "other")
    assert not set(digest(other)) & set(digest(corpus))
