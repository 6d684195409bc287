"""The line above the transcript that says where Back goes — "← Back to “Fix the flaky
test”" — shown while the open session was reached by a link from another (a sub-agent's
card, the header's parent link), so the way out of a sub-agent is in words, not only Alt+Left.

A separate widget under the session header, so the header's own layout is left alone."""

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QToolButton, QWidget

BACK_KEYS = "Alt+Left"


class BackBar(QWidget):
    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 10, 2)
        self.button = QToolButton(self)
        self.button.setAutoRaise(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        # A minimum of its own: a long session name is cut to the pane, never widening it.
        self.button.setMinimumWidth(1)
        self.button.clicked.connect(self.back_requested)
        layout.addWidget(self.button)
        layout.addStretch(1)
        self.full_text = ""
        self.hide()

    def show_back(self, title: str | None) -> None:
        """Offer the way back to `title`; None hides the bar."""
        self.setVisible(title is not None)
        if title is None:
            return
        name = " ".join(title.split())
        self.full_text = f"← Back to “{name}”"
        self.button.setToolTip(f"Back to “{name}” ({BACK_KEYS}, or the mouse's back button)")
        self.button.setAccessibleName(f"Back to {name}")
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(0, self.width() - 40)
        shown = self.button.fontMetrics().elidedText(
            self.full_text, Qt.TextElideMode.ElideRight, room
        )
        self.button.setText(shown.replace("&", "&&"))  # a name's "&" is text, not a mnemonic
