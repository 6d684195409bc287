"""The session list: date headings and sessions at the top level, sub-agents as children.

Headings are rows of their own rather than parents of their sessions, so the view's own
`fetchMore` logic (fetch when the last top-level row is on screen) pages exactly as the user
scrolls: with headings as parents, a month's heading stays on screen and the view would keep
fetching thousands of sessions.

A thin adapter (napari) over pages of `Session` value objects that the task runner delivers:
`fetchMore` at the root asks for the next keyset page, `fetchMore` on a session asks for its
sub-agents. Nothing here touches the database on the GUI thread. Each node lives in a flat
registry and Qt indexes carry its number, so no Python object's lifetime depends on Qt.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from desktop_app.domain.errors import GanderError, sentence
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    SessionCursor,
    SessionPage,
    SessionQuery,
    SeveralHistories,
    Source,
)
from desktop_app.rendering import formatting
from desktop_app.ui.models.session_groups import group_label, relative_time
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.tasks import TaskRunner

PAGE_SIZE = 200
END_PAGE_SIZE = 2_000
"""Pages read on the way to End: the view lays out every row listed after each page arrives,
so ten times fewer pages cost ten times less (a page of 2,000 is read in tens of ms)."""
ROOT = -1
FETCH_MARGIN = 40
"""Ask for the next page once a row this close to the end has been displayed. Qt's views ask
`canFetchMore` on their own schedule (a QTreeView asks after every insert); only rows that were
actually painted mean the user is near the end."""

AnyIndex = QModelIndex | QPersistentModelIndex
HEADING_FLAGS = Qt.ItemFlag.ItemIsEnabled
SESSION_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
RENAMABLE_FLAGS = SESSION_FLAGS | Qt.ItemFlag.ItemIsEditable
"""Made once: the view asks every row's flags each time it lays the list out, and building
them anew (Python's enum `|`) was half the cost of listing 20,000 sessions."""


@dataclass
class _Node:
    parent: int
    row: int
    label: str = ""
    session: Session | None = None
    children: list[int] = field(default_factory=list)
    children_loaded: bool = False
    loading: bool = False
    removed: bool = False


class SessionTreeModel(QAbstractItemModel):
    populated = Signal(int)
    """Emitted with the number of sessions loaded after each page arrives."""
    failed = Signal(str)
    rename_requested = Signal(str, str)
    """session id, new name: an inline edit, applied by whoever writes to the source."""
    revealed = Signal(QModelIndex)
    """The row `reveal` was looking for (or its nearest listed ancestor), now listed."""

    def __init__(
        self,
        source: Source,
        tasks: TaskRunner,
        query: SessionQuery,
        *,
        clock: Callable[[], datetime] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._query = query
        self._clock = clock or (lambda: datetime.now().astimezone())
        self._nodes: list[_Node] = []
        self._top: list[int] = []
        self._last_label: str | None = None
        self._cursor: SessionCursor | None = None
        self._exhausted = False
        self._loading = False
        self._generation = 0
        self._last_shown_row = -1
        self.can_rename: Callable[[Session], bool] = lambda _session: False
        """Whether a session's history lets it be renamed (set by the window)."""
        self._badges = source.labels() if isinstance(source, SeveralHistories) else {}
        self._places = source.locations() if isinstance(source, SeveralHistories) else {}
        self.session_count = 0
        self._seeking: list[str] = []
        """`reveal`'s chain of ids, outermost first, until its last one is listed."""
        self._to_end = False

    # ---- loading -------------------------------------------------------------------------

    def reload(self, query: SessionQuery | None = None) -> None:
        self.beginResetModel()
        self._query = query or self._query
        self._nodes.clear()
        self._top.clear()
        self._last_label = None
        self._cursor = None
        self._exhausted = False
        self._loading = False
        self._generation += 1
        self._last_shown_row = -1
        self.session_count = 0
        self._seeking = []
        self._to_end = False
        self.endResetModel()
        self._request_page()

    def reveal(self, chain: list[str]) -> None:
        """List the session whose ids from its outermost parent to itself are `chain`: page on
        until the outermost is listed, then open each parent's sub-agents. Ends because every
        page advances or ends the list (checked in `_page_arrived`); `revealed` says where it
        got to. The caller makes sure the filter shows the session (`shows`)."""
        self._seeking = list(chain)
        self._seek()

    @property
    def tasks(self) -> TaskRunner:
        return self._tasks

    @property
    def complete(self) -> bool:
        """Every session the filter lists has been fetched."""
        return self._exhausted and not self._loading

    def _seek(self) -> None:
        if not self._seeking:
            return
        index = self._find_top(self._seeking[0])
        if not index.isValid():
            if self._exhausted:
                self._seeking = []
            else:
                self._request_page()
            return
        for child_id in self._seeking[1:]:
            node = self._nodes[index.internalId()]
            if not node.children_loaded:
                self.fetchMore(index)
                return
            child = next(
                (
                    self._index_of(c)
                    for c in node.children
                    if (s := self._nodes[c].session) is not None and s.id == child_id
                ),
                None,
            )
            if child is None:
                break
            index = child
        self._seeking = []
        self.revealed.emit(index)

    def _find_top(self, session_id: str) -> QModelIndex:
        for row, node_id in enumerate(self._top):
            node = self._nodes[node_id]
            if node.session is not None and node.session.id == session_id:
                return self.createIndex(row, 0, node_id)
        return QModelIndex()

    def _request_page(self) -> None:
        if self._loading or self._exhausted:
            return
        self._loading = True
        generation, query, cursor = self._generation, self._query, self._cursor
        limit = END_PAGE_SIZE if self._to_end else PAGE_SIZE
        self._tasks.run(
            lambda: self._source.list_sessions(query, after=cursor, limit=limit),
            lambda page: self._page_arrived(generation, page),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _failed(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self._loading = False
            self._exhausted = True
            self._seeking = []
            self.failed.emit(sentence(error))

    def _page_arrived(self, generation: int, page: SessionPage) -> None:
        if generation != self._generation:
            return
        self._loading = False
        if not page.advances_from(self._cursor):
            self._exhausted = True
            self._seeking = []
            self.failed.emit("The session list stopped advancing; please report this history.")
            return
        self._add_page(page, notify=True)
        self.populated.emit(self.session_count)
        for said in page.unread:  # a history listed without: said, the others still listed
            self.failed.emit(said)
        self._seek()
        if self._to_end:
            self._request_page()

    def fetch_to_end(self) -> None:
        """Every page, one after another (End: the view goes to the true end once it has
        arrived, not page by page, as each scroll lays out every row listed)."""
        self._to_end = True
        self._request_page()

    def _add_page(self, page: SessionPage, *, notify: bool) -> None:
        """A page's rows (its sessions and the headings between them) inserted at once: row
        by row, the view laid itself out again for each, and End through 20,000 sessions took
        a minute and a half."""
        self._cursor = page.next_cursor
        self._exhausted = page.next_cursor is None
        today = self._clock().date()
        rows: list[_Node] = []
        for session in page.sessions:
            label = group_label(session.sort_at, today)
            if label != self._last_label:
                self._last_label = label
                rows.append(_Node(parent=ROOT, row=0, label=label, children_loaded=True))
            rows.append(
                _Node(parent=ROOT, row=0, session=session, children_loaded=not session.has_children)
            )
        if rows and notify:
            first = len(self._top)
            self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        for node in rows:
            self._append(ROOT, node, notify=False)
        if rows and notify:
            self.endInsertRows()
        self.session_count += len(page.sessions)

    def _append(self, parent_id: int, node: _Node, *, notify: bool = True) -> None:
        siblings = self._top if parent_id == ROOT else self._nodes[parent_id].children
        node.row = len(siblings)
        if notify:
            parent_index = QModelIndex() if parent_id == ROOT else self._index_of(parent_id)
            self.beginInsertRows(parent_index, node.row, node.row)
        self._nodes.append(node)
        siblings.append(len(self._nodes) - 1)
        if notify:
            self.endInsertRows()

    def refresh_all(self) -> None:
        """Re-read every listed session after goose wrote: changed rows update in place; when
        the order changed (a session got a new message), the list is rebuilt from the new page."""
        if self._loading:
            return
        generation, query = self._generation, self._query
        count = max(PAGE_SIZE, self.session_count)
        self._tasks.run(
            lambda: self._source.list_sessions(query, limit=count),
            lambda page: self._refreshed(generation, page),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _refreshed(self, generation: int, page: SessionPage) -> None:
        if generation != self._generation:
            return
        listed = [
            (node_id, node) for node_id in self._top if (node := self._nodes[node_id]).session
        ]
        if [node.session.id for _, node in listed if node.session] == [s.id for s in page.sessions]:
            for (node_id, node), fresh in zip(listed, page.sessions, strict=True):
                if node.session != fresh:
                    node.session = fresh
                    index = self._index_of(node_id)
                    self.dataChanged.emit(index, index)
            return
        self.beginResetModel()
        self._nodes.clear()
        self._top.clear()
        self._last_label = None
        self._generation += 1
        self.session_count = 0
        self._add_page(page, notify=False)
        self.endResetModel()
        self.populated.emit(self.session_count)

    def _children_arrived(self, node_id: int, generation: int, page: SessionPage) -> None:
        if generation != self._generation:
            return
        node = self._nodes[node_id]
        node.loading = False
        node.children_loaded = True
        for child in page.sessions:
            self._append(
                node_id,
                _Node(parent=node_id, row=0, session=child, children_loaded=not child.has_children),
            )
        self._seek()

    # ---- Qt model interface ----------------------------------------------------------------

    def _index_of(self, node_id: int) -> QModelIndex:
        return self.createIndex(self._nodes[node_id].row, 0, node_id)

    def _node(self, index: AnyIndex) -> _Node | None:
        return self._nodes[index.internalId()] if index.isValid() else None

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column != 0 or row < 0:
            return QModelIndex()
        siblings = self._children_of(parent)
        if row >= len(siblings):
            return QModelIndex()
        return self.createIndex(row, 0, siblings[row])

    def _children_of(self, parent: AnyIndex) -> list[int]:
        node = self._node(parent)
        return self._top if node is None else node.children

    def parent(self, child: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self._node(child)
        if node is None or node.parent == ROOT:
            return QModelIndex()
        return self._index_of(node.parent)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._children_of(parent))

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        node = self._node(parent)
        if node is None:
            return bool(self._top) or not self._exhausted
        if node.session is not None:
            return bool(node.children) or (node.session.has_children and not node.children_loaded)
        return bool(node.children)

    def canFetchMore(self, parent: AnyIndex) -> bool:
        node = self._node(parent)
        if node is None:
            near_end = self._last_shown_row >= len(self._top) - FETCH_MARGIN
            return not self._exhausted and not self._loading and near_end
        return not node.children_loaded and not node.loading

    def fetchMore(self, parent: AnyIndex) -> None:
        node = self._node(parent)
        if node is None:
            self._request_page()
            return
        if node.session is None or node.children_loaded or node.loading:
            return
        node.loading = True
        node_id, generation = parent.internalId(), self._generation
        query = self._children_query(node.session.id)
        self._tasks.run(
            lambda: self._source.list_sessions(query, limit=10_000),
            lambda page: self._children_arrived(node_id, generation, page),
            lambda error: self._failed(generation, error),
        )

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        node = self._node(index)
        if node is None:
            return Qt.ItemFlag.NoItemFlags
        if node.session is None:
            return HEADING_FLAGS
        return RENAMABLE_FLAGS if self.can_rename(node.session) else SESSION_FLAGS

    def setData(self, index: AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An inline rename is a request: the row changes when the database has changed."""
        node = self._node(index)
        if role != Qt.ItemDataRole.EditRole or node is None or node.session is None:
            return False
        name = str(value).strip()
        if name and name != node.session.name:
            self.rename_requested.emit(node.session.id, name)
        return False

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index)
        if node is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole and node.parent == ROOT:
            self._last_shown_row = max(self._last_shown_row, index.row())
        session = node.session
        if role == SessionRole.IS_GROUP:
            return session is None
        if session is None:
            return node.label if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            return session.name or session.id
        if role == Qt.ItemDataRole.EditRole:
            return session.name
        if role == SessionRole.SESSION:
            return session
        if role == SessionRole.SUBTITLE:
            return self._subtitle(session)
        if role == SessionRole.BADGE:
            return self._badges.get(session.history or "")
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [session.name, f"{session.id} · {session.session_type}"]
            lines.append(formatting.home_relative(session.working_dir or ""))
            place = self._places.get(session.history or "")
            if place:  # which history, when several are open: its badge and where it is
                lines.append(
                    f"{self._badges.get(session.history or '')}: {formatting.home_relative(place)}"
                )
            return "\n".join(lines)
        return None

    def _subtitle(self, session: Session) -> str:
        bits = [relative_time(session.sort_at, self._clock())]
        bits.append(f"{session.message_count or 0:,} msgs")
        if session.working_dir:
            bits.append(session.working_dir.rstrip("/").rsplit("/", 1)[-1])
        tokens = session.accumulated_usage.total_tokens
        if tokens is not None:
            bits.append(f"{formatting.tokens(tokens)} tok")
        if session.cost is not None:
            bits.append(formatting.cost(session.cost))
        if session.archived:
            bits.append("archived")
        return " · ".join(bits)

    def query(self) -> SessionQuery:
        return self._query

    def refresh_sessions(self, session_ids: list[str]) -> None:
        """Re-read these sessions after a write: update their rows, drop the ones the current
        filter no longer shows, reload when one should appear that is not listed."""
        generation = self._generation

        self._tasks.run(
            lambda: [self._find_fresh(session_id) for session_id in session_ids],
            lambda fresh: self._apply_refresh(generation, session_ids, fresh),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _find_fresh(self, session_id: str) -> Session | None:
        try:
            return self._source.get_session(session_id)
        except GanderError:
            return None

    def _children_query(self, parent_id: str) -> SessionQuery:
        """A session's sub-sessions: every type, archived as the list is."""
        return SessionQuery(
            session_types=None, archived=self._query.archived, parent_session_id=parent_id
        )

    def _shows(self, session: Session) -> bool:
        """The list's own filter, in Python (the one `SessionQuery` the reader was given)."""
        parent = session.parent_session_id
        query = self._query if parent is None else self._children_query(parent)
        return query.matches(session, history=session.history)

    def _apply_refresh(
        self, generation: int, session_ids: list[str], fresh: list[Session | None]
    ) -> None:
        if generation != self._generation:
            return
        for session_id, session in zip(session_ids, fresh, strict=True):
            index = self.find_session(session_id)
            if not index.isValid():
                if (
                    session is not None
                    and self._shows(session)
                    and session.parent_session_id is None
                ):
                    self.reload()
                    return
                continue
            node = self._nodes[index.internalId()]
            if session is None or not self._shows(session):
                self._remove(index)
                continue
            node.session = session
            self.dataChanged.emit(index, index)

    def _remove(self, index: QModelIndex) -> None:
        node_id = index.internalId()
        node = self._nodes[node_id]
        siblings = self._top if node.parent == ROOT else self._nodes[node.parent].children
        parent_index = self.parent(index)
        self.beginRemoveRows(parent_index, node.row, node.row)
        del siblings[node.row]
        self._detach(node_id)
        for row, sibling in enumerate(siblings):
            self._nodes[sibling].row = row
        self.endRemoveRows()
        if node.parent == ROOT and node.session is not None:
            self.session_count -= 1
            self._drop_empty_heading(node.row - 1)

    def _detach(self, node_id: int) -> None:
        node = self._nodes[node_id]
        node.removed = True
        for child in node.children:
            self._detach(child)

    def _drop_empty_heading(self, row: int) -> None:
        """A heading whose last session went away goes too."""
        if not 0 <= row < len(self._top) or self._nodes[self._top[row]].session is not None:
            return
        following = self._top[row + 1] if row + 1 < len(self._top) else None
        if following is not None and self._nodes[following].session is not None:
            return
        if following is None and not self._exhausted:
            return
        self._remove(self.createIndex(row, 0, self._top[row]))

    def first_session(self) -> QModelIndex:
        for row, node_id in enumerate(self._top):
            if self._nodes[node_id].session is not None:
                return self.createIndex(row, 0, node_id)
        return QModelIndex()

    def find_session(self, session_id: str) -> QModelIndex:
        for node_id, node in enumerate(self._nodes):
            if not node.removed and node.session is not None and node.session.id == session_id:
                return self._index_of(node_id)
        return QModelIndex()
