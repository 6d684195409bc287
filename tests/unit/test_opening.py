"""Which histories open: the named ones, goose's default, the demo; goose's legacy sessions
beside its default database are offered, never opened unasked."""

from pathlib import Path

import pytest

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.errors import SourceNotFound
from desktop_app.opening import legacy_offer, open_histories
from desktop_app.sources.goose import GooseSource
from tests.fixtures import histories
from tests.fixtures.goose_db import GooseDb


def _goose_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "goose-root"
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(root))
    folder = root / "data" / "sessions"
    folder.mkdir(parents=True)
    return folder


def test_legacy_sessions_beside_the_default_database_are_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _goose_home(tmp_path, monkeypatch)
    db = GooseDb(folder / "sessions.db")
    db.add_session("20250101_1", name="imported already")
    db.close()
    histories.goose_legacy(folder / "20250101_1.jsonl")
    opened = open_histories([], demo=False, data_dir=tmp_path / "data")
    assert isinstance(opened.source, GooseSource)
    assert legacy_offer(opened.readers) is None, "every legacy session is in the database"
    histories.goose_legacy(folder / "20240505_2.jsonl")
    histories.goose_legacy(folder / "20240505_3.jsonl")
    assert legacy_offer(opened.readers) == (f"goose-legacy={folder}", folder, 2)
    opened.source.close()


def test_legacy_folder_is_not_offered_for_another_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _goose_home(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    GooseDb(elsewhere / "sessions.db").close()
    histories.goose_legacy(elsewhere / "20240505_2.jsonl")
    opened = open_histories([elsewhere / "sessions.db"], demo=False, data_dir=tmp_path / "d")
    assert legacy_offer(opened.readers) is None
    opened.source.close()


def test_several_locations_open_together_and_a_bad_one_opens_none(tmp_path: Path) -> None:
    GooseDb(tmp_path / "a.db").close()
    folder = tmp_path / "tn"
    histories.write_json(folder / "x.json", histories.toolnexus_openai())
    opened = open_histories([tmp_path / "a.db", folder], demo=False, data_dir=tmp_path / "d")
    assert isinstance(opened.source, CombinedHistory)
    assert [r.info().kind for r in opened.readers] == ["goose", "toolnexus"]
    assert not opened.is_demo
    opened.source.close()
    with pytest.raises(SourceNotFound):
        open_histories([tmp_path / "a.db", tmp_path / "nope"], demo=False, data_dir=tmp_path / "d")


def test_no_goose_database_opens_the_demo_and_says_so(tmp_path: Path) -> None:
    opened = open_histories([], demo=False, data_dir=tmp_path / "d")
    assert opened.is_demo
    assert opened.note is not None
    assert "demo" in opened.note
    opened.source.close()


def test_kind_equals_path_names_the_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    GooseDb(tmp_path / "sessions.db").close()
    histories.goose_legacy(tmp_path / "20240505_2.jsonl")
    assert (
        open_histories([tmp_path], demo=False, data_dir=tmp_path / "d").readers[0].info().kind
        == "goose"
    )
    named = open_histories([f"goose-legacy={tmp_path}"], demo=False, data_dir=tmp_path / "d")
    assert named.source.info().kind == "goose-legacy"
    from desktop_app.cli import main

    assert main(["--db", f"goose-legacy={tmp_path}", "list"]) == 0
    assert capsys.readouterr().out.startswith("20240505_2\t")
