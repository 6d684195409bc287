"""The open session's header above its transcript: its title (click to rename), id with a copy
button, folder, provider and model, when it began and was last active, how many messages and
tokens, the session it is a sub-agent of (its title, read off the GUI thread; click to open
it), badges, the command that resumes it in its agent (copied, never run) and, for a session
kept in a file of its own, a button that shows that file's folder in the file manager. Its
message count is the session list's (`message_figures`).

It is as tall in a narrow pane as in a wide one, so the transcript begins at the same place at
800×600 as at 1280×800: the buttons share the title's row (one "⋯" menu of the same actions
when the row is too narrow for them), and the facts take two lines at most, cut with an
ellipsis (whole in their tooltip)."""

from html import escape
from pathlib import Path

from PySide6.QtCore import QRect, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QDesktopServices,
    QGuiApplication,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextLayout,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QHBoxLayout,
    QLabel,
    QLayout,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.session import SUB_AGENT, Session
from desktop_app.domain.source import Resume, Source
from desktop_app.rendering import formatting
from desktop_app.ui.tasks import TaskRunner

TITLE_CHARS = 120
REVEAL = "Reveal in file manager"
ACTIONS = "Session actions"
TITLE_ROOM = 160
"""The narrowest the title may be beside the buttons; with less, they fold into "⋯"."""
FACT_LINES = 2


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
    return f"{_messages(shown)} shown" + (f" · {stored:,} stored" if stored != shown else "")


def _messages(count: int) -> str:
    return f"{count:,} message{'' if count == 1 else 's'}"


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


class _Facts(QLabel):
    """The session's facts in `FACT_LINES` lines at most, the last cut with an ellipsis: wrapped
    whole they took a third line in a narrow pane, so the transcript began lower at 800×600
    than at 1280×800. `text()` stays whole (for screen readers and the tooltip); only the
    painting is cut."""

    def __init__(self) -> None:
        super().__init__("")
        self._lines: list[str] = []
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def set_full_text(self, text: str) -> None:
        self.setText(text)
        self._cut()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.fontMetrics().lineSpacing() * FACT_LINES)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._cut()

    def _cut(self) -> None:
        """Breaks the text as a word-wrapped label would, keeps the first lines and cuts the
        rest into the last one; the tooltip says it all when anything was cut."""
        text, width = self.text(), max(1, self.width())
        layout = QTextLayout(text, self.font())
        layout.beginLayout()
        starts: list[int] = []
        while len(starts) < FACT_LINES:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            starts.append(line.textStart())
        layout.endLayout()
        ends = [*starts[1:], len(text)]
        lines = [text[start:end].strip() for start, end in zip(starts, ends, strict=True)]
        cut = False
        if lines:
            last = self.fontMetrics().elidedText(lines[-1], Qt.TextElideMode.ElideRight, width)
            cut, lines[-1] = last != lines[-1], last
        self._lines = lines
        self.setToolTip(f"{text}\n\n{MESSAGES_TIP}" if cut else MESSAGES_TIP)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QPainter(self)
        height = self.fontMetrics().lineSpacing()
        for number, line in enumerate(self._lines):
            box = QRect(0, number * height, self.width(), height)
            self.style().drawItemText(
                painter,
                box,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                self.palette(),
                self.isEnabled(),
                line,
                self.foregroundRole(),
            )


class _ParentLink(QLabel):
    """The line "Sub-agent of <parent's title>", the title a link that opens the parent, cut to
    the width it is given (whole in the tooltip, with the parent's id): a long title or a UUID
    ran past a narrow pane's edge. Until the title is read (or when the parent has none, or is
    not in the history) the id stands in its place, cut in the middle (its start and end tell
    ids apart)."""

    _LEAD = "Sub-agent of "

    def __init__(self) -> None:
        super().__init__("")
        self.parent_id = ""
        self.parent_title: str | None = None
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_parent(self, parent_id: str, title: str | None = None) -> None:
        self.parent_id = parent_id
        self.parent_title = title
        named = f"“{title}” ({parent_id})" if title else parent_id
        self.setToolTip(f"{self._LEAD}{named}: click to open it")
        self._cut()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._cut()

    def _cut(self) -> None:
        metrics = self.fontMetrics()
        room = max(0, self.width() - metrics.horizontalAdvance(self._LEAD))
        if self.parent_title:
            shown = metrics.elidedText(self.parent_title, Qt.TextElideMode.ElideRight, room)
        else:
            shown = metrics.elidedText(self.parent_id, Qt.TextElideMode.ElideMiddle, room)
        href = escape(self.parent_id, quote=True)
        self.setText(f'{escape(self._LEAD)}<a href="{href}">{escape(shown)}</a>')


def _title_of(session: Session) -> str | None:
    """A session's name as the header's title shows it (whitespace folded, `TITLE_CHARS` at
    most: a Claude Code summary is a paragraph), None without one."""
    name = " ".join((session.name or "").split())
    if not name:
        return None
    return name if len(name) <= TITLE_CHARS else name[: TITLE_CHARS - 1] + "…"


class SessionHeader(QWidget):
    rename_requested = Signal()
    open_requested = Signal(str)
    """The parent session's id, to open it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Hidden (no session yet), it keeps its place: shown for the first session, it shrank
        # the transcript's Qt Quick view, whose resize renders it again at once — 49 ms on a
        # 20 MB message, the window's longest stall while it opened one (#19).
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)
        self.session: Session | None = None
        self.native_id = ""
        self.resume: Resume | None = None
        self.file: str | None = None
        self._layout = layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        # The header's narrowest width is `minimumSizeHint`'s (the folded row's), not the
        # buttons' beside the title: they fold away rather than widen the transcript pane.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self._top = top = QHBoxLayout()
        self.title = _Title()
        self.title.setFlat(True)
        self.title.setToolTip("Click to rename")
        self.title.setStyleSheet("text-align: left; font-weight: bold; font-size: 13pt;")
        self.title.clicked.connect(self.rename_requested)
        top.addWidget(self.title, 1)
        self.badges = QLabel("")
        top.addWidget(self.badges)
        self.copy_id = QPushButton("Copy id")
        self.copy_id.clicked.connect(self._copy_id)
        self.copy_resume = QPushButton("Copy resume command")
        self.copy_resume.clicked.connect(self._copy_resume)
        # A folder icon, its name in the tooltip and for screen readers.
        self.reveal = QToolButton()
        self.reveal.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon))
        self.reveal.setAccessibleName(REVEAL)
        self.reveal.clicked.connect(self._reveal)
        self.copy_id_action = QAction("Copy id", self)
        self.copy_resume_action = QAction("Copy resume command", self)
        self.reveal_action = QAction(REVEAL, self)
        self.more = self._folded_buttons()
        for widget in (self.copy_id, self.copy_resume, self.reveal, self.more):
            top.addWidget(widget)
        layout.addLayout(top)
        below = QHBoxLayout()
        self.id_label = _Id()
        below.addWidget(self.id_label, 0, Qt.AlignmentFlag.AlignTop)
        self.facts = _Facts()
        below.addWidget(self.facts, 1)
        layout.addLayout(below)
        self.parent_link = _ParentLink()
        self.parent_link.linkActivated.connect(self.open_requested)
        layout.addWidget(self.parent_link)
        self._lookup: tuple[TaskRunner, Source] | None = None
        self._parent_read: tuple[str, str, str | None] | None = None
        """(session, parent, the parent's title) last read, so showing the session again (its
        figures arrived) neither reads it again nor flickers back to the id."""
        self.badges.hide()  # as for most sessions, so the place kept is theirs
        self.parent_link.hide()
        self.show_session(None)

    def look_up_parents(self, tasks: TaskRunner, source: Source) -> None:
        """Read a sub-agent's parent from `source` on `tasks`' worker (reading a session may
        touch the disk, never on the GUI thread), so "Sub-agent of" names it by its title."""
        self._lookup = (tasks, source)

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
        self.badges.setVisible(bool(self.badges.text()))
        self.id_label.set_full_text(self.native_id)
        self.copy_resume_action.setVisible(resume is not None)
        if resume is not None:
            # Without a command the button stays, disabled, its tooltip saying why.
            for control in (self.copy_resume, self.copy_resume_action):
                control.setEnabled(resume.command is not None)
                control.setToolTip(resume_tip(resume))
        self.reveal_action.setVisible(file is not None)
        if file is not None:
            for revealer in (self.reveal, self.reveal_action):
                revealer.setToolTip(f"{REVEAL}: the folder of {file}")
        self._fold()
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
        self.facts.set_full_text(" · ".join(facts))
        parent = session.parent_session_id
        self.parent_link.setVisible(parent is not None)
        if parent is not None:
            self._show_parent(session.id, parent)

    def _show_parent(self, session_id: str, parent: str) -> None:
        """The parent's title once read; its id until then, and when it has no title or
        cannot be read (no longer in the history)."""
        read = self._parent_read
        if read is not None and read[:2] == (session_id, parent):
            self.parent_link.set_parent(parent, read[2])
            return
        self.parent_link.set_parent(parent)
        if self._lookup is None:
            return
        tasks, source = self._lookup

        def still_shown() -> bool:
            now = self.session
            return now is not None and (now.id, now.parent_session_id) == (session_id, parent)

        def read_title() -> str | None:
            return _title_of(source.get_session(parent, with_message_count=False))

        def shown(title: str | None) -> None:
            self._parent_read = (session_id, parent, title)
            if still_shown():
                self.parent_link.set_parent(parent, title)

        tasks.run(read_title, shown, lambda _error: shown(None), wanted=still_shown)

    def _folded_buttons(self) -> QToolButton:
        """The "⋯" button: the same three as a menu, for a row too narrow for the buttons."""
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        pairs: list[tuple[QAction, QAbstractButton]] = [
            (self.copy_id_action, self.copy_id),
            (self.copy_resume_action, self.copy_resume),
            (self.reveal_action, self.reveal),
        ]
        for action, button in pairs:
            action.triggered.connect(button.click)
            menu.addAction(action)
        more = QToolButton()
        more.setText("⋯")
        more.setToolTip(f"{ACTIONS}: copy id, copy resume command, reveal in file manager")
        more.setAccessibleName(ACTIONS)
        more.setMenu(menu)
        more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        return more

    def _buttons(self) -> list[QWidget]:
        """The buttons that apply to the open session, in their row's order."""
        return [
            button
            for button, action in (
                (self.copy_id, self.copy_id_action),
                (self.copy_resume, self.copy_resume_action),
                (self.reveal, self.reveal_action),
            )
            if action.isVisible()
        ]

    def _fold(self) -> None:
        """The buttons beside the title when they leave it `TITLE_ROOM`, else the "⋯" menu.
        Decided by the width alone (which the buttons never set), so it cannot flip back and
        forth."""
        wanted = self._buttons()
        margins = self._layout.contentsMargins()
        widths = [b.sizeHint().width() for b in wanted]
        if self.badges.isVisibleTo(self):
            widths.append(self.badges.sizeHint().width())
        need = margins.left() + margins.right() + TITLE_ROOM + sum(widths)
        need += self._top.spacing() * len(widths)
        folded = self.width() < need
        for button in (self.copy_id, self.copy_resume, self.reveal):
            button.setVisible(not folded and button in wanted)
        self.more.setVisible(folded)

    def minimumSizeHint(self) -> QSize:
        """The folded rows' width: the badges and "⋯" beside a title that may be cut to
        nothing, the id cut to its least beside facts that may be."""
        margins = self._layout.contentsMargins()
        top = self.more.sizeHint().width()
        if self.badges.isVisibleTo(self):
            top += self.badges.sizeHint().width() + self._top.spacing()
        width = max(top, self.id_label.minimumSizeHint().width())
        return QSize(margins.left() + margins.right() + width, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fold()

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
