"""Search results: sessions with their match counts, each with its matching messages' snippets.

A `QStandardItemModel` (Qt's own model; nothing custom to verify) filled from `SearchResults`;
the delegate paints snippets as rich text with the matched words highlighted.
"""

from html import escape

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QStandardItem,
    QStandardItemModel,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeView, QWidget

from desktop_app.domain.search import (
    MARK_END,
    MARK_START,
    SearchHit,
    SearchResults,
    match_label,
    summary_line,
)
from desktop_app.ui.widgets.placeholder import paint_placeholder

HIT_ROLE = int(Qt.ItemDataRole.UserRole) + 40
SESSION_ROLE = int(Qt.ItemDataRole.UserRole) + 41
HTML_ROLE = int(Qt.ItemDataRole.UserRole) + 42
AnyIndex = QModelIndex | QPersistentModelIndex


def snippet_html(snippet: str) -> str:
    text = escape(snippet)
    return text.replace(MARK_START, "<b style='background-color:#ffe066;color:#000'>").replace(
        MARK_END, "</b>"
    )


class _RichDelegate(QStyledItemDelegate):
    def _document(self, option: QStyleOptionViewItem, index: AnyIndex) -> QTextDocument:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setHtml(str(index.data(HTML_ROLE) or ""))
        document.setTextWidth(max(100, option.rect.width() - 8))
        return document

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        document = self._document(option, index)
        return QSize(int(document.idealWidth()), int(min(document.size().height(), 90)) + 6)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        widget = option.widget
        style = widget.style() if widget else None
        painter.save()
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        rect = option.rect
        painter.translate(rect.left() + 4, rect.top() + 3)
        painter.setClipRect(QRectF(0, 0, rect.width() - 8, rect.height() - 6))
        self._document(option, index).drawContents(painter)
        painter.restore()


class SearchResultsView(QTreeView):
    hit_activated = Signal(object)
    """A `SearchHit` (open its session at that message) or a session id string."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results_model = QStandardItemModel(self)
        self.setModel(self.results_model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(False)
        self.setItemDelegate(_RichDelegate(self))
        self.setEditTriggers(QTreeView.EditTrigger.NoEditTriggers)
        self.activated.connect(self._activate)
        self.clicked.connect(self._activate)
        self.summary = ""
        self.placeholder = ""

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        paint_placeholder(self, self.placeholder)

    def show_results(self, results: SearchResults | None) -> None:
        self.results_model.clear()
        self.placeholder = ""
        if results is not None and not results.sessions:
            self.placeholder = (
                f"No messages match “{results.query}”. Try fewer words, a prefix such as "
                "deploy*, or fewer filters (Help ▸ Search syntax)."
            )
        if results is None:
            self.summary = ""
            return
        for session in results.sessions:
            count = match_label(session)
            flags = " · archived" if session.archived else ""
            parent = QStandardItem(session.name or session.session_id)
            parent.setData(
                f"<b>{escape(session.name or session.session_id)}</b> "
                f"<span style='color:gray'>— {count}{flags}</span>",
                HTML_ROLE,
            )
            parent.setData(session.session_id, SESSION_ROLE)
            for hit in session.hits:
                child = QStandardItem(hit.snippet)
                role = f"<span style='color:gray'>{escape(hit.role)}</span>"
                child.setData(f"{role} {snippet_html(hit.snippet)}", HTML_ROLE)
                child.setData(hit, HIT_ROLE)
                parent.appendRow(child)
            self.results_model.appendRow(parent)
        self.expandAll()
        self.summary = summary_line(results)
        if self.results_model.rowCount():
            self.setCurrentIndex(self.results_model.index(0, 0))

    def _activate(self, index: QModelIndex) -> None:
        hit = index.data(HIT_ROLE)
        if isinstance(hit, SearchHit):
            self.hit_activated.emit(hit)
            return
        session_id = index.data(SESSION_ROLE)
        if isinstance(session_id, str):
            first = self.results_model.itemFromIndex(index).child(0)
            first_hit = first.data(HIT_ROLE) if first is not None else None
            self.hit_activated.emit(first_hit if isinstance(first_hit, SearchHit) else session_id)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._activate(self.currentIndex())
            return
        super().keyPressEvent(event)
