"""Search results: sessions with their match counts, each with its best matching messages'
snippets, a page at a time.

A `QStandardItemModel` (Qt's own model; nothing custom to verify) filled from `SearchResults`;
the delegate paints compact rows: a session's name and match count on one line and its date,
project folder and history on a second (three sessions of one name are told apart), each hit's
role and snippet on at most two, the matched words highlighted, and how many more matches the
session holds. Reaching the end of the list (wheel, scroll bar, End, Page Down, Down) asks for
the next page of sessions.
"""

from datetime import UTC, datetime
from html import escape

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
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
    SessionResult,
    match_label,
    summary_line,
)
from desktop_app.rendering.formatting import home_relative
from desktop_app.ui.widgets.placeholder import paint_placeholder

HIT_ROLE = int(Qt.ItemDataRole.UserRole) + 40
SESSION_ROLE = int(Qt.ItemDataRole.UserRole) + 41
HTML_ROLE = int(Qt.ItemDataRole.UserRole) + 42
LABEL_ROLE = int(Qt.ItemDataRole.UserRole) + 43
"""A session row's "3 matches · archived"."""
PLACE_ROLE = int(Qt.ItemDataRole.UserRole) + 44
"""A session row's second line: "2026-01-02 · ~/payments · goose"."""
MORE_ROLE = int(Qt.ItemDataRole.UserRole) + 45
"""A row saying how many more matches its session holds (it opens the session)."""
AnyIndex = QModelIndex | QPersistentModelIndex


MARK_STYLE = "background-color:#ffe066;color:#000"
"""Matched words: black on yellow reads at 15:1, on a selected row and in either theme."""
HIT_LINES = 2
"""A hit row shows at most two lines of its snippet: a result list is for scanning."""


NAME_CHARS = 300
"""A session name longer than this is cut (the row elides it further to its width)."""


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def strip_marks(snippet: str) -> str:
    """The snippet as plain text, for the accessible name and copying."""
    return snippet.replace(MARK_START, "").replace(MARK_END, "")


def place_line(session: SessionResult) -> str:
    """When, where and in which history: what tells sessions of one name apart."""
    when = (
        datetime.fromtimestamp(session.last_active, UTC).strftime("%Y-%m-%d")
        if session.last_active is not None
        else "unknown date"
    )
    parts = [when, home_relative(session.working_dir or "no folder")]
    return " · ".join([*parts, session.history] if session.history else parts)


def snippet_html(snippet: str) -> str:
    text = escape(snippet)
    return text.replace(MARK_START, f"<b style='{MARK_STYLE}'>").replace(MARK_END, "</b>")


class _ResultDelegate(QStyledItemDelegate):
    """Compact rows: a session is one line (its name elided, then its match count); a hit is its
    role and at most two lines of snippet. Text takes the highlighted-text colour on a selected
    row, so a selected result stays readable in both themes."""

    def _colours(self, option: QStyleOptionViewItem) -> tuple[QColor, QColor]:
        palette = option.palette
        if option.state & QStyle.StateFlag.State_Selected:
            selected = palette.color(QPalette.ColorRole.HighlightedText)
            return selected, selected
        return palette.color(QPalette.ColorRole.Text), palette.color(
            QPalette.ColorRole.PlaceholderText
        )

    def _document(self, option: QStyleOptionViewItem, index: AnyIndex, width: int) -> QTextDocument:
        text, muted = self._colours(option)
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setDefaultStyleSheet(f".muted {{ color: {muted.name()}; }}")
        document.setHtml(f"<span style='color:{text.name()}'>{index.data(HTML_ROLE) or ''}</span>")
        document.setDocumentMargin(0)
        document.setTextWidth(max(100, width))
        return document

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        line = option.fontMetrics.lineSpacing()
        if index.data(SESSION_ROLE) is not None:
            return QSize(100, 2 * line + 2 * _PAD)
        if index.data(HIT_ROLE) is None:
            return QSize(100, line + 2 * _PAD)
        width = option.rect.width() - 2 * _PAD if option.rect.width() > 0 else 300
        height = self._document(option, index, width).size().height()
        return QSize(100, int(min(height, HIT_LINES * line)) + 2 * _PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        widget = option.widget
        style = widget.style() if widget else None
        painter.save()
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        rect = option.rect.adjusted(_PAD, _PAD, -_PAD, -_PAD)
        if index.data(SESSION_ROLE) is not None:
            self._paint_session(painter, option, index, rect)
        elif index.data(HIT_ROLE) is None:
            painter.setPen(self._colours(option)[1])
            painter.drawText(
                rect,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                option.fontMetrics.elidedText(
                    str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
                    Qt.TextElideMode.ElideRight,
                    rect.width(),
                ),
            )
        else:
            painter.translate(rect.left(), rect.top())
            clip = QRectF(0, 0, rect.width(), rect.height())
            painter.setClipRect(clip)
            context = QAbstractTextDocumentLayout.PaintContext()
            context.clip = clip
            context.palette.setColor(QPalette.ColorRole.Text, self._colours(option)[0])
            document = self._document(option, index, rect.width())  # kept alive while drawn
            document.documentLayout().draw(painter, context)
        painter.restore()

    def _paint_session(
        self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex, rect: QRect
    ) -> None:
        text, muted = self._colours(option)
        line = option.fontMetrics.lineSpacing()
        place = rect.adjusted(0, line, 0, 0)
        rect = QRect(rect.left(), rect.top(), rect.width(), line)
        painter.setPen(muted)
        painter.drawText(
            place,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
            option.fontMetrics.elidedText(
                str(index.data(PLACE_ROLE) or ""), Qt.TextElideMode.ElideMiddle, place.width()
            ),
        )
        bold = QFont(option.font)
        bold.setBold(True)
        label = f"  {index.data(LABEL_ROLE) or ''}"
        label_width = min(option.fontMetrics.horizontalAdvance(label), rect.width() // 2)
        name_width = rect.width() - label_width
        name = QFontMetrics(bold).elidedText(
            str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
            Qt.TextElideMode.ElideRight,
            name_width,
        )
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.setFont(bold)
        painter.setPen(text)
        drawn = painter.drawText(rect, int(flags), name)
        painter.setFont(option.font)
        painter.setPen(muted)
        rest = QRect(drawn.right() + 1, rect.top(), rect.right() - drawn.right(), rect.height())
        painter.drawText(
            rest,
            int(flags),
            option.fontMetrics.elidedText(label, Qt.TextElideMode.ElideRight, rest.width()),
        )


_PAD = 3


class SearchResultsView(QTreeView):
    hit_activated = Signal(object)
    """A `SearchHit` (open its session at that message) or a session id string."""
    more_wanted = Signal(int)
    """The end of the list was reached: the next page, from this many sessions."""
    up_from_top = Signal()
    """Up on the first row: back to the search field."""
    escaped = Signal()
    """Esc: the search is to be cleared and the list shown again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results_model = QStandardItemModel(self)
        self.setModel(self.results_model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(False)
        self.setItemDelegate(_ResultDelegate(self))
        self.setEditTriggers(QTreeView.EditTrigger.NoEditTriggers)
        self.activated.connect(self._activate)
        self.clicked.connect(self._activate)
        self.summary = ""
        self.placeholder = ""
        self._more = False
        """More sessions match than are shown."""
        self._asked = -1
        """The offset of the page last asked for (asked once)."""
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.verticalScrollBar().rangeChanged.connect(lambda *_: self._scrolled())

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        paint_placeholder(self, self.placeholder)

    def show_results(self, results: SearchResults | None) -> None:
        """A first page replaces the list; a next page (its `offset` is the sessions shown)
        is added below them, the current row kept."""
        if results is not None and results.offset:
            if results.offset == self.results_model.rowCount():
                self._add(results)
            return
        self.results_model.clear()
        self.placeholder = ""
        self._more = False
        self._asked = -1
        if results is not None and not results.sessions:
            self.placeholder = (
                f"No messages match “{results.query}”. Try fewer words, a prefix such as "
                "deploy*, or fewer filters (Help ▸ Search syntax)."
            )
        if results is None:
            self.summary = ""
            return
        self._add(results)
        self.summary = summary_line(results)
        if self.results_model.rowCount():
            self.setCurrentIndex(self.results_model.index(0, 0))

    def _add(self, results: SearchResults) -> None:
        for session in results.sessions:
            count = match_label(session)
            flags = " · archived" if session.archived else ""
            name = shorten(session.name or session.session_id, NAME_CHARS)
            place = place_line(session)
            parent = QStandardItem(name)
            parent.setToolTip(f"{name}\n{count}{flags}\n{place}")
            parent.setData(f"{count}{flags}", LABEL_ROLE)
            parent.setData(place, PLACE_ROLE)
            parent.setData(session.session_id, SESSION_ROLE)
            for hit in session.hits:
                child = QStandardItem(strip_marks(hit.snippet))
                role = f"<span class='muted'>{escape(hit.role)}</span>"
                child.setData(f"{role} {snippet_html(hit.snippet)}", HTML_ROLE)
                child.setData(hit, HIT_ROLE)
                parent.appendRow(child)
            rest = session.match_count - len(session.hits)
            if session.hits and rest > 0:
                more = QStandardItem(f"{rest:,} more match{'' if rest == 1 else 'es'} here")
                more.setData(session.session_id, MORE_ROLE)
                parent.appendRow(more)
            self.results_model.appendRow(parent)
            self.expand(parent.index())
        self._more = results.more
        self._scrolled()

    def _scrolled(self) -> None:
        """At the end of the list (or with a list shorter than the view), the next page."""
        bar = self.verticalScrollBar()
        shown = self.results_model.rowCount()
        if self._more and bar.value() >= bar.maximum() and self._asked != shown:
            self._asked = shown
            self.more_wanted.emit(shown)

    def _activate(self, index: QModelIndex) -> None:
        hit = index.data(HIT_ROLE)
        if isinstance(hit, SearchHit):
            self.hit_activated.emit(hit)
            return
        more = index.data(MORE_ROLE)
        if isinstance(more, str):
            self.hit_activated.emit(more)
            return
        session_id = index.data(SESSION_ROLE)
        if isinstance(session_id, str):
            first = self.results_model.itemFromIndex(index).child(0)
            first_hit = first.data(HIT_ROLE) if first is not None else None
            self.hit_activated.emit(first_hit if isinstance(first_hit, SearchHit) else session_id)

    def enter_from_above(self) -> None:
        """The keyboard arrives from the search field, on the first result if none is current."""
        self.setFocus()
        if not self.currentIndex().isValid() and self.results_model.rowCount():
            self.setCurrentIndex(self.results_model.index(0, 0))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._activate(self.currentIndex())
        elif key == Qt.Key.Key_Escape:
            self.escaped.emit()
        elif key == Qt.Key.Key_Up and not self.indexAbove(self.currentIndex()).isValid():
            self.up_from_top.emit()
        elif key == Qt.Key.Key_Down and not self.indexBelow(self.currentIndex()).isValid():
            self._scrolled()
        else:
            super().keyPressEvent(event)
