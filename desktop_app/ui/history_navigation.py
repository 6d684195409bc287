"""Back and Forward between the sessions the transcript has shown, as in a browser: Alt+Left
and Alt+Right (and a keyboard's own Back and Forward keys), the mouse's back and forward
buttons,
View ▸ Back / Forward, and the "← Back to …" line above a sub-agent opened from its card.

The window only wires this: `SessionHistory` keeps the places; this notes where the transcript
is left (the message at the top of the view, and the card whose link was followed), opens the
place Back or Forward names there rather than at the session's end, and skips a place whose
session has gone (one sentence in the status bar)."""

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QWidget

from desktop_app.domain.session import Session
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.session_history import Place, SessionHistory, Spot
from desktop_app.ui.widgets.back_bar import BACK_KEYS, BackBar
from desktop_app.ui.widgets.transcript_view import TranscriptView

FORWARD_KEYS = "Alt+Right"


class HistoryNavigation(QObject):
    def __init__(
        self,
        transcript: TranscriptModel,
        view: TranscriptView,
        bar: BackBar,
        say: Callable[[str], None],
        parent: QWidget,
    ) -> None:
        """`say` puts a sentence in the status bar."""
        super().__init__(parent)
        self.history = SessionHistory()
        self._transcript = transcript
        self._view = view
        self._bar = bar
        self._say = say
        self._arriving: Place | None = None
        """The place Back or Forward is opening, until its transcript has opened."""
        self._link: tuple[str, int | None] | None = None
        """The session a link is opening, and the row of the card it was in."""
        self._skipped: list[str] = []
        """Places of this journey whose sessions are gone."""
        self.back_action = QAction("&Back", parent)
        # Not the platform's whole list: on some it has Backspace, which goes back unasked.
        self.back_action.setShortcuts([QKeySequence(BACK_KEYS), QKeySequence(Qt.Key.Key_Back)])
        self.back_action.triggered.connect(self.back)
        self.forward_action = QAction("&Forward", parent)
        self.forward_action.setShortcuts(
            [QKeySequence(FORWARD_KEYS), QKeySequence(Qt.Key.Key_Forward)]
        )
        self.forward_action.triggered.connect(self.forward)
        bar.back_requested.connect(self.back)
        transcript.modelAboutToBeReset.connect(self._leaving)
        transcript.opened.connect(self._opened)
        transcript.failed.connect(self._failed)
        self._update()

    def watch(self, *widgets: QWidget) -> None:
        """The mouse's back and forward buttons over these widgets (and, for the window, over
        whatever inside it leaves them unhandled)."""
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.BackButton:
                self.back()
                return True
            if event.button() == Qt.MouseButton.ForwardButton:
                self.forward()
                return True
        return super().eventFilter(watched, event)

    def follow_link(self, session_id: str, row: int | None = None) -> None:
        """A link is about to open `session_id`; `row` is the card it was in, so Back returns
        to that card. The place it opens is reached "by a link"."""
        self._link = (session_id, row)

    def back(self) -> None:
        self._travel(-1)

    def forward(self) -> None:
        self._travel(1)

    def _travel(self, delta: int) -> None:
        """Back again before the place Back went to has opened: that place keeps the spot it
        was left at (its transcript has no rows yet to say another)."""
        leaving = self._transcript.session_id
        if leaving is not None and self._arriving is None:
            self.history.leave(leaving, self._spot())
        place = self.history.step(delta)
        if place is None:
            return
        self._skipped = []
        self._go(place)

    def _go(self, place: Place) -> None:
        self._arriving = place
        self._link = None
        spot = place.spot
        self._transcript.open_session(place.session_id, around=spot.top if spot else None)

    def _spot(self, card: int | None = None) -> Spot | None:
        """Where the transcript is now: None at its end (Back returns to its end, with what
        goose appended since), unless a card's link was followed."""
        root = self._view.rootObject()
        cursors = self._transcript.cursors
        if root is None or not cursors:
            return None
        clicked = cursors[card] if card is not None and 0 <= card < len(cursors) else None
        if clicked is None and root.property("stickToEnd"):
            return None
        top = min(max(self._view.top_row(), 0), len(cursors) - 1)
        offset = int(root.topOffset())  # type: ignore[attr-defined]
        return Spot(cursors[top], offset, clicked)

    def _leaving(self) -> None:
        """The transcript is about to show another session (or this one afresh): where it is
        left is noted on its place. Back and Forward moved the current place already."""
        leaving = self._transcript.session_id
        if leaving is None or self._arriving is not None:
            return
        card = self._link[1] if self._link is not None else None
        self.history.leave(leaving, self._spot(card))

    def _opened(self, session: Session, _count: int) -> None:
        title = session.name or session.id
        arriving, self._arriving = self._arriving, None
        if arriving is not None and arriving.session_id == session.id:
            self.history.visit(session.id, title)
            self._restore(arriving.spot)
            if self._skipped:
                self._say(_skipped_sentence(self._skipped))
        else:
            via_link = self._link is not None and self._link[0] == session.id
            self.history.visit(session.id, title, via_link=via_link)
        self._link = None
        self._update()

    def _restore(self, spot: Spot | None) -> None:
        """Show the place as it was left: the same message at the top, as far down it, and the
        card whose link was followed in view however the rows above have changed (blocks
        opened there by hand are closed again: a reopened session forgets them)."""
        if spot is None:
            return
        transcript, view, root = self._transcript, self._view, self._view.rootObject()
        top = transcript.row_of(spot.top)
        if root is None or top < 0:
            return
        clicked = transcript.row_of(spot.clicked) if spot.clicked is not None else -1
        if clicked >= 0:
            transcript.reveal(clicked)
        transcript.reveal(top)
        root.showRowAtOffset(top, spot.offset)  # type: ignore[attr-defined]
        if clicked >= 0 and not view.top_row() <= clicked <= view.bottom_row():
            root.showRowAtTop(clicked)  # type: ignore[attr-defined]

    def _failed(self, _message: str) -> None:
        """A place's session could not be opened (it is gone): dropped, and the journey goes
        on past it."""
        arriving, self._arriving = self._arriving, None
        self._link = None
        if arriving is None:
            return
        self._skipped.append(arriving.title)
        place = self.history.vanished()
        if place is None:
            self._say(_skipped_sentence(self._skipped))
        else:
            self._go(place)
        self._update()

    def _update(self) -> None:
        """The actions say where they go; the bar shows while the open session was reached by
        a link."""
        behind, ahead = self.history.behind, self.history.ahead
        for action, place, word in (
            (self.back_action, behind, "Back"),
            (self.forward_action, ahead, "Forward"),
        ):
            action.setEnabled(place is not None)
            action.setToolTip(f"{word} to “{place.title}”" if place is not None else word)
            action.setStatusTip(action.toolTip())
        current = self.history.current
        linked = current is not None and current.via_link and behind is not None
        self._bar.show_back(behind.title if linked and behind is not None else None)


def _skipped_sentence(titles: list[str]) -> str:
    names = ", ".join(f"“{' '.join(title.split())[:80]}”" for title in titles)
    plural = len(titles) > 1
    return f"Skipped {names}: {'they are' if plural else 'it is'} no longer in the history."
