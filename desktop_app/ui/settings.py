"""Typed settings over `QSettings`, injected where needed — never a module global.

Preferences and volatile window state live in one INI file in the user's config directory;
defaults are not written (ReText's habit), so a changed default reaches every user.
"""

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from desktop_app.sources.registry import absolute

MAX_RECENT = 8


class Settings:
    def __init__(self, store: QSettings) -> None:
        self._store = store

    @property
    def path(self) -> Path:
        """The file behind these settings (never an export's target)."""
        return Path(self._store.fileName())

    def _bytes(self, key: str) -> QByteArray | None:
        value = self._store.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    @property
    def window_geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    @window_geometry.setter
    def window_geometry(self, value: QByteArray) -> None:
        self._store.setValue("window/geometry", value)

    @property
    def splitter_state(self) -> QByteArray | None:
        return self._bytes("window/splitter")

    @splitter_state.setter
    def splitter_state(self, value: QByteArray) -> None:
        self._store.setValue("window/splitter", value)

    @property
    def window_state(self) -> QByteArray | None:
        """Toolbars and docks (the usage panel open or closed)."""
        return self._bytes("window/state")

    @window_state.setter
    def window_state(self, value: QByteArray) -> None:
        self._store.setValue("window/state", value)

    @property
    def last_session_id(self) -> str | None:
        value = self._store.value("browse/last_session")
        return value if isinstance(value, str) and value else None

    @last_session_id.setter
    def last_session_id(self, value: str | None) -> None:
        if value:
            self._store.setValue("browse/last_session", value)
        else:
            self._store.remove("browse/last_session")

    def _flag(self, key: str) -> bool:
        return str(self._store.value(key, "false")).lower() == "true"

    def _set_flag(self, key: str, value: bool) -> None:
        """Off is the default, so it is not written."""
        if value:
            self._store.setValue(key, "true")
        else:
            self._store.remove(key)

    @property
    def show_hidden(self) -> bool:
        return self._flag("browse/show_hidden")

    @show_hidden.setter
    def show_hidden(self, value: bool) -> None:
        self._set_flag("browse/show_hidden", value)

    @property
    def conversation_only(self) -> bool:
        return self._flag("view/conversation_only")

    @conversation_only.setter
    def conversation_only(self, value: bool) -> None:
        self._set_flag("view/conversation_only", value)

    @property
    def hide_tools(self) -> bool:
        return self._flag("view/hide_tools")

    @hide_tools.setter
    def hide_tools(self, value: bool) -> None:
        self._set_flag("view/hide_tools", value)

    @property
    def group_tools(self) -> bool:
        """On unless turned off: stored as `view/ungrouped` (off is what is written)."""
        return not self._flag("view/ungrouped")

    @group_tools.setter
    def group_tools(self, value: bool) -> None:
        self._set_flag("view/ungrouped", not value)

    @property
    def hide_reasoning(self) -> bool:
        return self._flag("view/hide_reasoning")

    @hide_reasoning.setter
    def hide_reasoning(self, value: bool) -> None:
        self._set_flag("view/hide_reasoning", value)

    @property
    def redact_copies(self) -> bool:
        return self._flag("copy/redact")

    @redact_copies.setter
    def redact_copies(self, value: bool) -> None:
        self._set_flag("copy/redact", value)

    @property
    def theme(self) -> str:
        """`system`, `light` or `dark` (View ▸ Theme)."""
        value = self._store.value("view/theme", "system")
        return value if value in ("system", "light", "dark") else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        if value == "system":
            self._store.remove("view/theme")
        else:
            self._store.setValue("view/theme", value)

    def _locations(self, key: str) -> list[str]:
        """A list of locations, each as `absolute` gives it: a server's URL an earlier version
        stored with a secret parameter is read without it (and so written back without it)."""
        value = self._store.value(key, [])
        if isinstance(value, str):
            value = [value] if value else []
        found = [absolute(str(v)) for v in value] if isinstance(value, list) else []
        return list(dict.fromkeys(found))

    @property
    def recent_files(self) -> list[str]:
        return self._locations("sources/recent")

    def remember_file(self, path: str) -> None:
        """Recent files are absolute: a relative path means nothing from another folder."""
        path = absolute(path)
        recent = [path, *(p for p in self.recent_files if p != path)][:MAX_RECENT]
        self._store.setValue("sources/recent", recent)

    @property
    def open_histories(self) -> list[str]:
        """The histories the window last showed together (absolute paths)."""
        return self._locations("sources/open")

    @open_histories.setter
    def open_histories(self, paths: list[str]) -> None:
        self._store.setValue("sources/open", [absolute(p) for p in paths])

    @property
    def disabled_agents(self) -> list[str]:
        """Coding agents (by kind) whose logs found on this computer are not opened."""
        value = self._store.value("sources/disabled_agents", [])
        if isinstance(value, str):
            return [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else []

    @disabled_agents.setter
    def disabled_agents(self, kinds: list[str]) -> None:
        self._store.setValue("sources/disabled_agents", sorted(set(kinds)))

    def sync(self) -> None:
        self._store.sync()
