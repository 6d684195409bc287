"""Where goose keeps `sessions.db`. Never creates anything."""

import os
import sys
from collections.abc import Mapping
from pathlib import Path

_RELATIVE = Path("sessions") / "sessions.db"


def candidate_paths(
    env: Mapping[str, str] | None = None, home: Path | None = None, platform: str | None = None
) -> list[Path]:
    """Every place goose may have put its database, most likely first."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    platform = sys.platform if platform is None else platform
    root = env.get("GOOSE_PATH_ROOT", "")
    if root and Path(root).is_absolute():
        return [Path(root) / "data" / _RELATIVE]
    if platform.startswith("win"):
        appdata = env.get("APPDATA") or str(home / "AppData" / "Roaming")
        return [Path(appdata) / "Block" / "goose" / "data" / _RELATIVE]
    xdg = env.get("XDG_DATA_HOME", "")
    data_home = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return [
        data_home / "goose" / _RELATIVE,
        home / "Library" / "Application Support" / "Block" / "goose" / "data" / _RELATIVE,
    ]


def default_database_path(
    env: Mapping[str, str] | None = None, home: Path | None = None, platform: str | None = None
) -> Path | None:
    """The first candidate that exists, or `None` when goose has never run here."""
    return next((p for p in candidate_paths(env, home, platform) if p.is_file()), None)
