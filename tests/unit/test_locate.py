"""Finding goose's database, from its row of the reader table."""

from collections.abc import Mapping
from pathlib import Path

from desktop_app.sources.agents_locate import candidate_paths as places_of
from desktop_app.sources.agents_locate import default_database_path
from desktop_app.sources.readers import GOOSE

HOME = Path("/home/u")


def candidate_paths(env: Mapping[str, str], home: Path, platform: str) -> list[Path]:
    return places_of(GOOSE, env, home, platform)


def test_goose_path_root_must_be_absolute() -> None:
    assert candidate_paths({"GOOSE_PATH_ROOT": "/opt/g"}, HOME, "linux") == [
        Path("/opt/g/data/sessions/sessions.db")
    ]
    relative = candidate_paths({"GOOSE_PATH_ROOT": "rel/dir"}, HOME, "linux")
    assert relative[0] == HOME / ".local/share/goose/sessions/sessions.db"


def test_xdg_on_linux_and_macos_with_library_fallback() -> None:
    for platform in ("linux", "darwin"):
        assert candidate_paths({}, HOME, platform) == [
            HOME / ".local/share/goose/sessions/sessions.db",
            HOME / "Library/Application Support/Block/goose/data/sessions/sessions.db",
        ]
    assert candidate_paths({"XDG_DATA_HOME": "/x"}, HOME, "linux")[0] == Path(
        "/x/goose/sessions/sessions.db"
    )
    assert candidate_paths({"XDG_DATA_HOME": "not/absolute"}, HOME, "linux")[0] == (
        HOME / ".local/share/goose/sessions/sessions.db"
    )


def test_windows_appdata() -> None:
    assert candidate_paths({"APPDATA": "C:/Users/u/AppData/Roaming"}, HOME, "win32") == [
        Path("C:/Users/u/AppData/Roaming/Block/goose/data/sessions/sessions.db")
    ]


def test_default_path_is_the_first_existing_and_never_created(tmp_path: Path) -> None:
    assert default_database_path({}, tmp_path, "linux") is None
    assert not (tmp_path / ".local").exists()
    fallback = tmp_path / "Library/Application Support/Block/goose/data/sessions/sessions.db"
    fallback.parent.mkdir(parents=True)
    fallback.write_bytes(b"")
    assert default_database_path({}, tmp_path, "darwin") == fallback
