"""Filters for the session list: session type, project folder, archived."""

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from desktop_app.domain.session import DEFAULT_LIST_TYPES
from desktop_app.domain.source import ArchivedFilter, SessionQuery

TYPE_CHOICES: list[tuple[str, tuple[str, ...] | None]] = [
    ("Chats", DEFAULT_LIST_TYPES),
    ("All types", None),
    ("User", ("user",)),
    ("Scheduled", ("scheduled",)),
    ("ACP", ("acp",)),
    ("Sub-agents", ("sub_agent",)),
    ("Hidden", ("hidden",)),
    ("Terminal", ("terminal",)),
    ("Gateway", ("gateway",)),
]
ARCHIVED_CHOICES = [
    ("Hide archived", ArchivedFilter.EXCLUDE),
    ("With archived", ArchivedFilter.INCLUDE),
    ("Only archived", ArchivedFilter.ONLY),
]


class FilterBar(QWidget):
    query_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        self.types = QComboBox()
        self.types.setToolTip("Session types to list")
        for label, types in TYPE_CHOICES:
            self.types.addItem(label, types)
        self.project = QComboBox()
        self.project.setToolTip("Project folder")
        self.project.setMinimumContentsLength(16)
        self.project.addItem("All projects", None)
        self.archived = QComboBox()
        self.archived.setToolTip("Archived sessions")
        for label, choice in ARCHIVED_CHOICES:
            self.archived.addItem(label, choice)
        for box in (self.types, self.project, self.archived):
            layout.addWidget(box)
            box.currentIndexChanged.connect(self._changed)

    def set_projects(self, folders: Sequence[str]) -> None:
        current = self.project.currentData()
        self.project.blockSignals(True)
        self.project.clear()
        self.project.addItem("All projects", None)
        for folder in folders:
            self.project.addItem(folder.rstrip("/").rsplit("/", 1)[-1] or folder, folder)
            self.project.setItemData(self.project.count() - 1, folder, Qt.ItemDataRole.ToolTipRole)
        index = self.project.findData(current)
        self.project.setCurrentIndex(max(0, index))
        self.project.blockSignals(False)

    def query(self) -> SessionQuery:
        return SessionQuery(
            session_types=self.types.currentData(),
            archived=self.archived.currentData(),
            working_dir=self.project.currentData(),
        )

    def _changed(self) -> None:
        self.query_changed.emit(self.query())
