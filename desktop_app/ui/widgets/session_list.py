"""The session list view and its two-line row delegate (name; time · messages · dir · cost)."""

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QFont, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.widgets.placeholder import paint_placeholder

AnyIndex = QModelIndex | QPersistentModelIndex


class SessionDelegate(QStyledItemDelegate):
    """Paints by role, not by column: group headers in small caps, sessions on two lines."""

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        line = option.fontMetrics.height()
        if index.data(SessionRole.IS_GROUP):
            return QSize(200, line + 10)
        return QSize(200, 2 * line + 12)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        widget = option.widget
        style = widget.style() if widget else None
        rect: QRect = option.rect
        palette: QPalette = option.palette
        painter.save()
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        if option.state & QStyle.StateFlag.State_HasFocus:
            # The row that has the keyboard is outlined, as the transcript's block is: the
            # list's Tab stop showed nothing, its current row the same with the keyboard or not.
            outline = (
                QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
            )
            painter.setPen(QPen(palette.color(outline), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(2, 2, -2, -2), 3, 3)
        font = QFont(option.font)
        if index.data(SessionRole.IS_GROUP):
            font.setBold(True)
            font.setCapitalization(QFont.Capitalization.SmallCaps)
            painter.setFont(font)
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(
                rect.adjusted(4, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, str(index.data())
            )
            painter.restore()
            return
        line = option.fontMetrics.height()
        top = rect.adjusted(4, 5, -4, 0)
        top.setHeight(line)
        painter.setFont(font)
        painter.setPen(palette.color(role))
        metrics = painter.fontMetrics()
        bottom = top.translated(0, line + 2)
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        badge = index.data(SessionRole.BADGE)
        if isinstance(badge, str) and badge:
            top.setRight(top.right() - self._paint_badge(painter, small, top, badge, palette) - 6)
            painter.setFont(font)
            painter.setPen(palette.color(role))
        name = metrics.elidedText(str(index.data()), Qt.TextElideMode.ElideRight, top.width())
        painter.drawText(top, Qt.AlignmentFlag.AlignLeft, name)
        painter.setFont(small)
        painter.setPen(palette.color(role if selected else QPalette.ColorRole.PlaceholderText))
        subtitle = str(index.data(SessionRole.SUBTITLE) or "")
        painter.drawText(
            bottom,
            Qt.AlignmentFlag.AlignLeft,
            painter.fontMetrics().elidedText(subtitle, Qt.TextElideMode.ElideRight, bottom.width()),
        )
        painter.restore()

    @staticmethod
    def _paint_badge(
        painter: QPainter, font: QFont, line: QRect, text: str, palette: QPalette
    ) -> int:
        """The history's badge at the right end of the first line; returns its width."""
        painter.setFont(font)
        metrics = painter.fontMetrics()
        text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, max(40, line.width() // 3))
        width = metrics.horizontalAdvance(text) + 10
        box = QRect(line.right() - width, line.top(), width, line.height())
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.setBrush(palette.color(QPalette.ColorRole.AlternateBase))
        painter.drawRoundedRect(box.adjusted(0, 0, -1, -1), 4, 4)
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        return width


class SessionListView(QTreeView):
    """The list pages as it is read: the model fetches the next page once a row near the end
    has been painted, so the view asks it again after each paint — Qt asks only when the scroll
    position changes, before the rows it scrolled to are painted, which stopped End, Page Down,
    Down and the wheel at every page. End goes to the true end: it fetches the pages one after
    another and selects the last session once they have arrived (any other key or a click
    leaves the keyboard where it is)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(False)
        self.setItemDelegate(SessionDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setIndentation(14)
        self.setExpandsOnDoubleClick(False)
        self._to_end = False
        self._fetch = QTimer(self)
        self._fetch.setSingleShot(True)
        self._fetch.setInterval(0)
        self._fetch.timeout.connect(self._fetch_more)

    placeholder = ""
    """What the list says when it shows no session (set by the window)."""

    def setModel(self, model: QAbstractItemModel | None) -> None:
        old = self.model()
        if isinstance(old, SessionTreeModel):
            old.populated.disconnect(self._page_arrived)
        super().setModel(model)
        if isinstance(model, SessionTreeModel):
            model.populated.connect(self._page_arrived)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        paint_placeholder(self, self.placeholder)
        model = self.model()
        if model is not None and model.canFetchMore(QModelIndex()):
            self._fetch.start()  # after this paint: a fetch inserts rows, which repaints

    def _fetch_more(self) -> None:
        model = self.model()
        if model is not None and model.canFetchMore(QModelIndex()):
            model.fetchMore(QModelIndex())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self._to_end = event.key() == Qt.Key.Key_End and not event.modifiers()
        super().keyPressEvent(event)
        model = self.model()
        if self._to_end and isinstance(model, SessionTreeModel) and not model.complete:
            model.fetch_to_end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._to_end = False
        super().mousePressEvent(event)

    def _page_arrived(self, _count: int) -> None:
        """Once End has fetched every page, the last session is selected (opened) and shown:
        once, as a scroll lays out every row listed (a scroll a page made End through 20,000
        sessions take a minute)."""
        model = self.model()
        if not self._to_end or not isinstance(model, SessionTreeModel) or not model.complete:
            return
        self._to_end = False
        last = model.index(model.rowCount() - 1, 0)
        if last.isValid() and last.data(SessionRole.IS_GROUP):
            last = model.index(last.row() - 1, 0)
        if last.isValid():
            self.setCurrentIndex(last)
            self.scrollTo(last)
