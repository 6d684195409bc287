"""The open session's header above its transcript: its title (click to rename), id with a copy
button, folder, provider and model, when it began and was last active, how many messages and
tokens, the session it is a sub-agent of (click to open it), badges, the command that resumes it
in its agent (copied, never run) and, for a session kept in a file of its own, a button that
shows that file's folder in the file manager. Its message count is the session list's
(`message_figures`)."""

from html import escape
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.session import SUB_AGENT, Session
from desktop_app.domain.source import Resume
from desktop_app.rendering import formatting

TITLE_CHARS = 120
REVEAL = "Reveal in file manager"


def resume_tip(resume: Resume) -> str:
    """What the resume button's tooltip says: the exact command it copies, then what to know
    before running it (or, when there is no command, why)."""
    lines = [resume.command] if resume.command else []
    if resume.note:
        lines.append(resume.note)
    return "\n".join(lines)


MESSAGES_TIP = (
    "Shown: the messages shown to the user (prompts, replies, tool calls and results), what "
    "the session list and `gander list --json` count. Stored: every message the history holds, "
    "agent-only ones too (View ▸ Show agent-only messages)."
)


def message_figures(shown: int | None, stored: int) -> str:
    """The session's message count as its list row and `list --json` give it, and how many
    messages are stored when that is more (agent-only ones): "14 messages shown · 15 stored".
    Before the count is known, the stored messages alone."""
    if shown is None:
        return f"{_messages(stored)} stored"
    return f"{_messages(shown)} shown" + (f" · {stored} stored" if stored != shown else "")


def _messages(count: int) -> str:
    return f"{count} message{'' if count == 1 else 's'}"


def _badges(session: Session) -> list[str]:
    badges = []
    if session.session_type == SUB_AGENT:
        badges.append("sub-agent")
    elif session.session_type not in ("user", "acp"):
        badges.append(session.session_type)
    if session.archived:
        badges.append("archived")
    return badges


class _Title(QPushButton):
    """The title, cut with an ellipsis to the width it is given: a button asks for its whole
    text's width, and a long name (a Claude Code summary is a paragraph) would widen the
    transcript pane past the window, squeezing the session list and pushing the usage panel
    off screen."""

    _PADDING = 12
    """What the flat button's frame and margins take of its width."""

    def __init__(self) -> None:
        super().__init__("")
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.ensurePolished()  # the style sheet's font is the one the text is drawn in
        room = max(0, self.width() - self._PADDING)
        self.setText(
            self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, room)
        )


class _Id(QLabel):
    """The session's id, cut in the middle to the width it is given (its start and end tell
    ids apart): a Claude Code or Codex UUID beside the header's buttons would otherwise set
    the transcript pane's narrowest width, squeezing the session list at 800×600. Selectable
    only when whole, so a selection never copies the "…"; Copy id copies it whole anyway."""

    _MIN_CHARS = 8

    def __init__(self) -> None:
        super().__init__("")
        self.full_text = ""
        # Preferred: its whole width when there is room, down to `minimumSizeHint` when not.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(text)
        self.updateGeometry()
        self._elide()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().averageCharWidth() * self._MIN_CHARS, hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + 4, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self.full_text, Qt.TextElideMode.ElideMiddle, max(0, self.width())
        )
        self.setText(shown)
        whole = shown == self.full_text
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            if whole
            else Qt.TextInteractionFlag.NoTextInteraction
        )


class SessionHeader(QWidget):
    rename_requested = Signal()
    open_requested = Signal(str)
    """The parent session's id, to open it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: Session | None = None
        self.native_id = ""
        self.resume: Resume | None = None
        self.file: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        top = QHBoxLayout()
        self.title = _Title()
        self.title.setFlat(True)
        self.title.setToolTip("Click to rename")
        self.title.setStyleSheet("text-align: left; font-weight: bold; font-size: 13pt;")
        self.title.clicked.connect(self.rename_requested)
        top.addWidget(self.title, 1)
        self.badges = QLabel("")
        top.addWidget(self.badges)
        layout.addLayout(top)
        ids = QHBoxLayout()
        self.id_label = _Id()
        ids.addWidget(self.id_label)
        self.copy_id = QPushButton("Copy id")
        self.copy_id.clicked.connect(self._copy_id)
        ids.addWidget(self.copy_id)
        self.copy_resume = QPushButton("Copy resume command")
        self.copy_resume.clicked.connect(self._copy_resume)
        ids.addWidget(self.copy_resume)
        # A folder icon, its name in the tooltip and for screen readers: the ids row must stay
        # narrow enough for the transcript pane at 800×600 (see `_Id`).
        self.reveal = QToolButton()
        self.reveal.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon))
        self.reveal.setAccessibleName(REVEAL)
        self.reveal.clicked.connect(self._reveal)
        ids.addWidget(self.reveal)
        ids.addStretch(1)
        layout.addLayout(ids)
        self.facts = QLabel("")
        self.facts.setToolTip(MESSAGES_TIP)
        self.facts.setTextFormat(Qt.TextFormat.PlainText)
        self.facts.setWordWrap(True)
        layout.addWidget(self.facts)
        self.parent_link = QLabel("")
        self.parent_link.setTextFormat(Qt.TextFormat.RichText)
        self.parent_link.linkActivated.connect(self.open_requested)
        layout.addWidget(self.parent_link)
        self.show_session(None)

    def show_session(
        self,
        session: Session | None,
        stored: int = 0,
        *,
        native_id: str = "",
        resume: Resume | None = None,
        file: str | None = None,
    ) -> None:
        """`stored` is how many messages the transcript holds; `native_id` the id within its
        history; `resume` how its agent resumes it (`None`: the agent has no such command, and
        the button is not shown); `file` the file it is kept in, when it has one of its own."""
        self.session = session
        self.native_id = native_id or (session.id if session else "")
        self.resume = resume
        self.file = file
        self.setVisible(session is not None)
        if session is None:
            return
        name = " ".join((session.name or session.id).split())
        short = name if len(name) <= TITLE_CHARS else name[: TITLE_CHARS - 1] + "…"
        self.title.set_full_text(short)
        self.title.setToolTip(f"{name}\nClick to rename")
        self.badges.setText(" · ".join(_badges(session)))
        self.id_label.set_full_text(self.native_id)
        self.copy_resume.setVisible(resume is not None)
        if resume is not None:
            # Without a command the button stays, disabled, its tooltip saying why.
            self.copy_resume.setEnabled(resume.command is not None)
            self.copy_resume.setToolTip(resume_tip(resume))
        self.reveal.setVisible(file is not None)
        if file is not None:
            self.reveal.setToolTip(f"{REVEAL}: the folder of {file}")
        facts = [session.working_dir or "no folder"]
        model = " · ".join(x for x in (session.provider, session.model) if x)
        if model:
            facts.append(model)
        if session.agent:
            facts.append(f"agent {session.agent}")
        if session.status:
            facts.append(session.status)
        facts.append(f"began {formatting.utc_time(session.created_at)}")
        facts.append(f"last active {formatting.utc_time(session.sort_at)}")
        # Kept on one line: "22 / stored" split over two lines reads as two figures.
        facts.append(message_figures(session.message_count, stored).replace(" ", "\u00a0"))
        tokens = session.accumulated_usage.total_tokens
        if tokens is not None:
            facts.append(f"{formatting.tokens(tokens)} tokens")
        if session.cost is not None:
            facts.append(formatting.cost(session.cost))
        self.facts.setText(" · ".join(facts))
        parent = session.parent_session_id
        self.parent_link.setVisible(parent is not None)
        if parent is not None:
            self.parent_link.setText(
                f'Sub-agent of <a href="{escape(parent, quote=True)}">{escape(parent)}</a>'
            )

    def _copy_id(self) -> None:
        QGuiApplication.clipboard().setText(self.native_id)

    def _copy_resume(self) -> None:
        if self.resume is not None and self.resume.command is not None:
            QGuiApplication.clipboard().setText(self.resume.command)

    def _reveal(self) -> None:
        """Opens the file's folder in the desktop's file manager, on a click only: Gander opens
        nothing by itself, and never the file (it could be run)."""
        if self.file is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self.file).parent)))
