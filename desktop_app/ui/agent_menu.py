"""File ▸ Coding agents on this computer: each agent whose logs are here, on or off.

On: its logs are opened with goose's database whenever Gander starts without being told what
to open, and turning one on adds it to this window. Off: it is left out from the next start
(the window keeps what it shows until then)."""

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from desktop_app.sources.agents_locate import agent_folders
from desktop_app.sources.readers import AGENT_KINDS, agent_name
from desktop_app.sources.registry import KIND_SEPARATOR, split_kind
from desktop_app.ui.settings import Settings


class AgentMenu(QMenu):
    def __init__(
        self,
        settings: Settings,
        shown: Callable[[], list[str]],
        add_history: Callable[[str], None] | None,
        say: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Coding &agents on this computer", parent)
        self._settings = settings
        self._shown = shown
        self._add_history = add_history
        self._say = say
        self.agent_actions: dict[str, QAction] = {}
        folders = agent_folders()
        off = set(settings.disabled_agents)
        for kind in AGENT_KINDS:
            folder = folders[kind]
            action = QAction(f"{agent_name(kind)} — {folder}", self, checkable=True)
            present = folder.is_dir()
            action.setEnabled(present)
            action.setChecked(present and kind not in off)
            if not present:
                action.setToolTip(f"No {agent_name(kind)} logs at {folder}")
            action.toggled.connect(lambda on, k=kind, f=str(folder): self._toggle(k, f, on))
            self.addAction(action)
            self.agent_actions[kind] = action

    def _toggle(self, kind: str, folder: str, on: bool) -> None:
        off = set(self._settings.disabled_agents)
        name = agent_name(kind)
        if on:
            off.discard(kind)
            self._settings.disabled_agents = sorted(off)
            location = f"{kind}{KIND_SEPARATOR}{folder}"
            already = any(split_kind(p)[0] == kind for p in self._shown())
            if self._add_history is not None and not already:
                self._add_history(location)
            return
        off.add(kind)
        self._settings.disabled_agents = sorted(off)
        self._settings.open_histories = [
            p for p in self._settings.open_histories if split_kind(p)[0] != kind
        ]
        self._say(f"{name}'s logs will not be opened when Gander starts next.")
