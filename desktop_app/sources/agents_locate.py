"""Where the histories are on this computer by default, from the reader table's `places`.
Never creates anything.

Linux and macOS keep them under the home folder, Windows under the user's profile (the home
folder Python reports there) or `%APPDATA%`. Each agent's own override is honoured (the places'
`env`: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `PI_CODING_AGENT_DIR`, goose's
`GOOSE_PATH_ROOT` and `XDG_DATA_HOME`); an override that is not an absolute path is ignored.
"""

import os
import sys
from collections.abc import Mapping
from pathlib import Path, PureWindowsPath

from desktop_app.sources.readers import AGENT_KINDS, BY_KIND, GOOSE, Place, Reader


def _root(place: Place, env: Mapping[str, str], home: Path) -> Path | None:
    value = env.get(place.env, "") if place.env else ""
    if value and (Path(value).is_absolute() or PureWindowsPath(value).is_absolute()):
        return Path(value)
    if not place.root:
        return None
    return home / place.root.removeprefix("~").lstrip("/")


def candidate_paths(
    reader: Reader,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    platform: str | None = None,
) -> list[Path]:
    """Every place `reader`'s history may be here, most likely first."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    platform = sys.platform if platform is None else platform
    places = reader.places
    if places.override is not None:
        root = _root(places.override, env, home)
        if root is not None:
            return [root / places.override.path]
    if platform.startswith("win"):
        chosen = places.windows
    elif platform == "darwin":
        chosen = places.macos
    else:
        chosen = places.linux
    return [root / place.path for place in chosen if (root := _root(place, env, home))]


def default_database_path(
    env: Mapping[str, str] | None = None, home: Path | None = None, platform: str | None = None
) -> Path | None:
    """goose's database: the first of its places that holds a file, or `None` when goose has
    never run here."""
    return next((p for p in candidate_paths(GOOSE, env, home, platform) if p.is_file()), None)


def agent_folders(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> dict[str, Path]:
    """Each coding agent's sessions folder (`AGENT_KINDS`), whether or not it exists: the first
    of its places that is a folder, else its first."""
    folders: dict[str, Path] = {}
    for kind in AGENT_KINDS:
        places = candidate_paths(BY_KIND[kind], env, home)
        folders[kind] = next((p for p in places if p.is_dir()), places[0])
    return folders


def found_agent_histories(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The agents' folders that exist here, in `AGENT_KINDS` order."""
    folders = agent_folders(env, home)
    return [(kind, folders[kind]) for kind in AGENT_KINDS if folders[kind].is_dir()]
