"""Where Gander keeps its own files. Computed without Qt, so the CLI and the window agree on them
(the window opens its settings at `settings_file()` explicitly rather than letting Qt choose)."""

import os
import sys
from pathlib import Path

import platformdirs

APP = "gander"


def data_dir() -> Path:
    """Gander's own files (demo history, search index); never goose's directory."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def settings_file() -> Path:
    """The INI file of window state and preferences: where `QSettings(IniFormat, UserScope)` puts
    it, so settings written by earlier versions are still found."""
    if sys.platform.startswith("win"):
        root = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(root) / APP / f"{APP}.ini"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    root = xdg if xdg and Path(xdg).is_absolute() else str(Path.home() / ".config")
    return Path(root) / APP / f"{APP}.ini"
