"""Filters for the session list: session type, project folder, archived, and — when several
histories are open — which history. The types and folders offered are those the open histories
hold (`reading.list_facets`), never a fixed list of one format's."""

from collections import Counter
from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QWidget

from desktop_app.domain.reading import Facets
from desktop_app.domain.session import DEFAULT_LIST_TYPES, Session
from desktop_app.domain.source import ArchivedFilter, SessionQuery, folder_matches

TYPE_LABELS = {
    "user": "User",
    "scheduled": "Scheduled",
    "acp": "ACP",
    "sub_agent": "Sub-agents",
    "hidden": "Hidden",
    "terminal": "Terminal",
    "gateway": "Gateway",
}
"""Names for goose's session types; any other type is offered under its own name."""
ALL_TYPES = "\x00all"
"""The "All types" choice (no session type is spelled so)."""
ARCHIVED_CHOICES = [
    ("Hide archived", ArchivedFilter.EXCLUDE),
    ("With archived", ArchivedFilter.INCLUDE),
    ("Only archived", ArchivedFilter.ONLY),
]


def _folder_label(folder: str) -> str:
    return folder.rstrip("/").rsplit("/", 1)[-1] or folder


def project_choices(folders: Sequence[str]) -> list[tuple[str, str]]:
    """Each folder once (`/a/api` and `/a/api/` are one), sorted by name; two of one name
    (`~/work/api`, `~/play/api`) say their parent folder too."""
    unique: dict[str, str] = {}
    for folder in folders:
        if folder:
            unique.setdefault(folder.rstrip("/") or folder, folder)
    names = {key: _folder_label(key) for key in unique}
    counted = Counter(names.values())
    choices = []
    for key, folder in unique.items():
        name = names[key]
        if counted[name] > 1:
            parts = key.rsplit("/", 2)
            name = f"{name} ({parts[-2]})" if len(parts) > 2 and parts[-2] else key
        choices.append((name, folder))
    return sorted(choices, key=lambda choice: (choice[0].casefold(), choice[1]))


class FilterBar(QWidget):
    query_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        self.history = QComboBox()
        self.history.setToolTip("Which open history")
        self.history.addItem("All histories", None)
        self.history.hide()
        self.types = QComboBox()
        self.types.setToolTip("Session types to list")
        self.types.addItem("Chats", None)
        self.types.addItem("All types", ALL_TYPES)
        self.project = QComboBox()
        self.project.setToolTip("Project folder (and the folders inside it)")
        self.project.setMinimumContentsLength(16)
        self.project.addItem("All projects", None)
        self.archived = QComboBox()
        self.archived.setToolTip("Archived sessions")
        for label, choice in ARCHIVED_CHOICES:
            self.archived.addItem(label, choice)
        for box in (self.history, self.types, self.project, self.archived):
            layout.addWidget(box)
            box.currentIndexChanged.connect(self._changed)
        self.empty = QCheckBox("Empty")
        self.empty.setToolTip("Also list sessions with no messages (goose Desktop leaves them out)")
        layout.addWidget(self.empty)
        self.empty.toggled.connect(self._changed)

    def set_histories(self, labels: Mapping[str, str]) -> None:
        """Offer a History filter when more than one history is open (tag → badge text)."""
        self._refill(self.history, "All histories", [(label, tag) for tag, label in labels.items()])
        self.history.setVisible(len(labels) > 1)

    def set_facets(self, facets: Facets) -> None:
        types = [(TYPE_LABELS.get(kind, kind), kind) for kind in facets.types]
        self._refill(self.types, "Chats", types, fixed=[("All types", ALL_TYPES)])
        self._refill(self.project, "All projects", project_choices(facets.folders), tips=True)

    @staticmethod
    def _refill(
        box: QComboBox,
        first: str,
        items: Sequence[tuple[str, object]],
        *,
        fixed: Sequence[tuple[str, object]] = (),
        tips: bool = False,
    ) -> None:
        """Replace the choices, keeping the current one when it is still offered."""
        current = box.currentData()
        box.blockSignals(True)
        box.clear()
        box.addItem(first, None)
        for label, data in [*fixed, *items]:
            box.addItem(label, data)
            if tips and isinstance(data, str):
                box.setItemData(box.count() - 1, data, Qt.ItemDataRole.ToolTipRole)
        box.setCurrentIndex(max(0, box.findData(current)))
        box.blockSignals(False)

    def session_types(self) -> tuple[str, ...] | None:
        chosen = self.types.currentData()
        if chosen is None:
            return DEFAULT_LIST_TYPES
        return None if chosen == ALL_TYPES else (str(chosen),)

    def query(self) -> SessionQuery:
        return SessionQuery(
            session_types=self.session_types(),
            archived=self.archived.currentData(),
            working_dir=self.project.currentData(),
            history=self.history.currentData(),
            with_empty=self.empty.isChecked(),
        )

    def widen_for(self, chain: Sequence[Session]) -> list[str]:
        """Change the fewest filters for the list to show these sessions (one session and the
        sessions it is a sub-agent of, outermost first); the filters changed, by name. Sub-agents
        are listed under their parent whatever their type, archived as the list is."""
        if not chain:
            return []
        top, query = chain[0], self.query()
        changes: list[tuple[str, QComboBox | QCheckBox, object]] = []
        if any(s.archived for s in chain) and query.archived is ArchivedFilter.EXCLUDE:
            changes.append(("archived", self.archived, ArchivedFilter.INCLUDE))
        if not all(s.archived for s in chain) and query.archived is ArchivedFilter.ONLY:
            changes.append(("archived", self.archived, ArchivedFilter.INCLUDE))
        if query.session_types is not None and top.session_type not in query.session_types:
            changes.append(("type", self.types, ALL_TYPES))
        if query.working_dir is not None and not folder_matches(query.working_dir, top.working_dir):
            changes.append(("project", self.project, None))
        if query.history is not None and top.history not in (None, query.history):
            changes.append(("history", self.history, None))
        if not query.with_empty and top.message_count == 0:
            changes.append(("empty", self.empty, True))
        for _, widget, value in changes:
            widget.blockSignals(True)
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            else:
                found = (i for i in range(widget.count()) if widget.itemData(i) == value)
                widget.setCurrentIndex(next(found, 0))
            widget.blockSignals(False)
        if changes:
            self._changed()
        return list(dict.fromkeys(name for name, _, _ in changes))

    def _changed(self) -> None:
        self.query_changed.emit(self.query())
