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


def disabled_agents(path: Path | None = None) -> list[str]:
    """The coding agents turned off in the window (`sources/disabled_agents` of the settings),
    read without Qt so `gander list` opens what the window opens. QSettings writes the list as
    `a, b` (`@Invalid()` when empty); the kinds are plain words, so commas split it. A settings
    file that cannot be read turns nothing off. (`configparser` is imported here: only a CLI
    command opening the default histories reads it.)"""
    import configparser  # noqa: PLC0415

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path or settings_file(), encoding="utf-8")
    except (OSError, UnicodeError, configparser.Error):
        return []
    value = parser.get("sources", "disabled_agents", fallback="")
    if value.startswith("@"):
        return []
    return [kind for kind in (word.strip() for word in value.split(",")) if kind]
