"""The transcript of one session as a list model whose rows are only message positions.

Opening a session loads the positions (`positions`: two integers per message, read from goose's
covering index), so the model knows its length at once whatever the session's size, and renders
the page the view opens on in the same job. Every message is a row, agent-only ones included;
those fold to zero height unless shown. Any other row's content is fetched and rendered in the
worker, a page at a time around the rows the view asks for, and cached; until it arrives the row
is a placeholder. So the cost of opening a session barely grows with its length: the QML
ListView asks only for the rows on screen.
"""

import re
import time
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from html import escape, unescape
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QByteArray,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
    Slot,
)

from desktop_app.domain.errors import sentence
from desktop_app.domain.message import CursorList, Message, MessageCursor
from desktop_app.domain.parts import ImagePart, ToolCallPart
from desktop_app.domain.reading import CHANGES_NEAR_THE_END
from desktop_app.domain.session import Session
from desktop_app.domain.source import Source
from desktop_app.rendering.highlight import MARK_STYLE, Needle, highlight_html
from desktop_app.rendering.html_pieces import PIECE_CHARS, split_pieces
from desktop_app.rendering.markdown_html import has_long_run, wrap_pre
from desktop_app.rendering.shaping import EVERYTHING, Shaping, shaped_blocks
from desktop_app.rendering.tool_cards import call_label
from desktop_app.rendering.tool_groups import Group, GroupIndex, step_of
from desktop_app.rendering.transcript_blocks import (
    Block,
    JsonSource,
    MessageRenderer,
    RenderedMessage,
)
from desktop_app.ui.roles import MESSAGE_ROLE_NAMES, MessageRole
from desktop_app.ui.tasks import TaskRunner

PAGE = 40
CACHE_LIMIT = 2_000
JOB_BUDGET_S = 0.3
"""How long one rendering job may run before it hands the worker back."""
ANNOUNCED_PER_TURN = 4
"""Rows whose arrival the view is told of in one turn of the event loop: the view rebuilds each
row it shows (1–8 ms), and a page of 20 told at once stalled the window 110–150 ms."""

LANDING_ROWS = 24
"""Rows (not counting folded ones) a view can show at once where it lands: a one-line card is
about 54 px high, so a transcript 1,300 px tall."""

AnyIndex = QModelIndex | QPersistentModelIndex
_Rendered = tuple[list[tuple[int, "Message", "RenderedMessage"]], dict[str, str], list[int]]
"""Rows rendered (row, message, rendering), the tool names seen, rows not reached in time."""


TITLE_CHARS = 300
"""A block's title is cut here in the window (the exports keep it whole)."""
_TAGS = re.compile(r"<[^>]*>")
_FIRST_MARK = re.compile(f'<span style="{re.escape(MARK_STYLE)}">([^<]*)</span>')
"""The first highlighted match in a block's HTML: the view scrolls to where its text is."""


class TranscriptModel(QAbstractListModel):
    opened = Signal(object, int)
    """The `Session` and its number of messages, once the positions are known."""
    rows_rendered = Signal()
    settled = Signal(object)
    """The opened `Session`, once every row the view asked for is drawn: figures read around
    it (the usage panel's) start then, so no background job holds the worker while the rows
    the view still waits for are rendered (one did: 55 ms on a 50,000-message session)."""
    appended = Signal(int)
    """How many messages goose appended to the open session."""
    failed = Signal(str)

    def __init__(
        self,
        source: Source,
        tasks: TaskRunner,
        renderer: MessageRenderer,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._renderer = renderer
        self._session_id: str | None = None
        self._cursors: Sequence[MessageCursor] = []
        self._rendered: OrderedDict[int, RenderedMessage] = OrderedDict()
        self._messages: dict[int, Message] = {}
        self._requested: set[int] = set()
        self._tool_names: dict[str, str] = {}
        self._generation = 0
        self._needle: Needle = ""
        self._match_row: int | None = None
        """The row a search hit or a find is shown at: its blocks holding the needle open.
        Opening them in every row put tall tool outputs above the hit, which pushed it out of
        view; other rows' closed blocks stay closed and their titles count the matches."""
        self._expanded: dict[tuple[int, int], bool] = {}
        """Blocks the user opened or closed, by (row, block); kept while rows are re-rendered
        or scrolled away, forgotten with the session."""
        self._all_expanded: bool | None = None
        """View ▸ Expand all / Collapse all: every block's state until one is toggled."""
        self._unwrapped: set[tuple[int, int]] = set()
        """Blocks switched to no wrap (one line each, scrolled sideways), by (row, block)."""
        self._more: dict[int, int] = {}
        """How many times Show more was clicked in each row, forgotten with the session."""
        self.show_hidden = False
        self._shaping = EVERYTHING
        self._grouping = False
        self._groups = GroupIndex()
        self._group_open: dict[int, bool] = {}
        """Groups of tool calls opened or closed by hand, by their first row."""
        self._settling = False
        """True while an opened session's rows are inserted and the view moves to its place."""
        self._asked_while_settling: set[int] = set()
        """Rows the view asked for meanwhile: asked of it again once it has settled."""
        self._landing = range(0)
        """The rows the view shows where it lands (the end, or the row opened at): the only
        rows given whole while it settles. A ListView lays out its top rows before it is
        moved, and a session of 40 rows opened at its end built ten full rows for nothing."""
        self._opened: Session | None = None
        """The open session until `settled` has been said of it, then None."""
        self._rendering = 0
        """Render jobs of the open session still to come back."""
        self._unannounced: list[int] = []
        """Rows rendered or changed that the view is still to be told of, the rows it asked for
        first (`_announce`)."""
        self._waited: set[int] = set()
        """Rows the view asked for and was given a placeholder: it shows them, so it is told of
        them first."""

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def tasks(self) -> TaskRunner:
        return self._tasks

    def set_dark(self, dark: bool) -> None:
        """Another theme: every row is rendered again (code and JSON colours differ)."""
        if self._renderer.dark == dark:
            return
        self._renderer.dark = dark
        self._rendered.clear()
        self._requested.clear()
        if self._cursors:
            self.dataChanged.emit(self.index(0), self.index(len(self._cursors) - 1))

    def set_show_hidden(self, show: bool) -> None:
        """Agent-only rows stay in the model and fold to nothing when hidden, so toggling never
        reloads and row numbers never change."""
        self.show_hidden = show
        if self._cursors:
            self.dataChanged.emit(
                self.index(0), self.index(len(self._cursors) - 1), [MessageRole.HIDDEN]
            )

    @property
    def shaping(self) -> Shaping:
        return self._shaping

    def set_shaping(self, shaping: Shaping) -> None:
        """View ▸ Conversation only / Hide tool calls / Hide reasoning: rows show only the blocks
        `shaping` keeps, and fold away with none. Nothing is read or rendered again; blocks
        are numbered as shown, so the blocks opened by hand are forgotten (Expand all and
        Collapse all hold)."""
        if shaping == self._shaping:
            return
        self._shaping = shaping
        self._expanded.clear()
        self._unwrapped.clear()
        if self._cursors:
            self.dataChanged.emit(self.index(0), self.index(len(self._cursors) - 1))

    def set_grouping(self, grouping: bool) -> None:
        """View ▸ Group tool calls: a run of two or more tool calls between two texts is one
        line, "7 tool calls · 2 failed", opened in place (`rendering.tool_groups`)."""
        if grouping == self._grouping:
            return
        self._grouping = grouping
        self._expanded.clear()
        self._unwrapped.clear()
        if self._cursors:
            self.dataChanged.emit(self.index(0), self.index(len(self._cursors) - 1))

    def _group(self, row: int) -> Group | None:
        """The group of tool calls `row` is in, while groups are shown (tool calls hidden
        leave nothing to group)."""
        if not self._grouping or self._shaping.hide_tools or self._shaping.conversation_only:
            return None
        return self._groups.group_of(row)

    def _is_open(self, group: Group) -> bool:
        return self._group_open.get(group.first, self._all_expanded is True)

    def _blocks(self, row: int, rendered: RenderedMessage) -> tuple[Block, ...]:
        """The blocks `row` shows as the view is shaped; the first row of a group of tool
        calls begins with the group's line, and shows only that while it is closed."""
        message = self._messages.get(row)
        blocks = (
            rendered.blocks if message is None else shaped_blocks(message, rendered, self._shaping)
        )
        group = self._group(row)
        if group is None or row != group.first:
            return blocks
        header = Block(
            kind="group",
            title=group.title,
            preview=group.preview,
            collapsible=True,
            collapsed=True,
            error=group.failed > 0,
        )
        return (header, *blocks) if self._is_open(group) else (header,)

    def _folded(self, row: int, rendered: RenderedMessage) -> bool:
        """An agent-only row while those are hidden, a row shaped down to nothing, or a row
        inside a closed group of tool calls."""
        if rendered.agent_only and not self.show_hidden:
            return True
        group = self._group(row)
        if group is not None and row != group.first and not self._is_open(group):
            return True
        return not self._shaping.everything and not self._blocks(row, rendered)

    def reveal(self, row: int) -> None:
        """Open the closed group of tool calls `row` is in, so a search hit, a find or a jump
        to it lands on it, not on a folded row."""
        group = self._group(row)
        if group is not None and row != group.first and not self._is_open(group):
            self._group_open[group.first] = True
            self.dataChanged.emit(self.index(group.first), self.index(group.last))

    def open_session(self, session_id: str | None, around: MessageCursor | None = None) -> None:
        """Show `session_id`: its positions and the page of rows around `around` (else its
        end) are read and rendered in one job, so the rows arrive with their content and the
        view lays them out once — not as placeholders first, laid out while the worker renders
        beside it (the two contending for the interpreter lock stalled the window at
        start-up)."""
        self.beginResetModel()
        self._session_id = session_id
        self._cursors = []
        self._rendered.clear()
        self._messages.clear()
        self._requested.clear()
        self._tool_names.clear()
        self._expanded.clear()
        self._unwrapped.clear()
        self._all_expanded = None
        self._match_row = None
        self._groups.clear()
        self._group_open.clear()
        self._more.clear()
        self._asked_while_settling.clear()
        self._landing = range(0)
        self._opened = None
        self._rendering = 0
        self._unannounced.clear()
        self._waited.clear()
        self._generation += 1
        self.endResetModel()
        if session_id is None:
            return
        generation = self._generation

        def work() -> tuple[Session, Sequence[MessageCursor], _Rendered]:
            session = self._source.get_session(session_id, with_message_count=False)
            cursors = self._source.positions(session_id)
            if not cursors:
                return session, cursors, ([], {}, [])
            row = len(cursors) - 1 if around is None else bisect_left(cursors, around)
            rows = list(_page(min(row, len(cursors) - 1), len(cursors)))
            return session, cursors, self._render_rows(session_id, cursors, rows, {}, {})

        self._tasks.run(
            work,
            lambda result: self._cursors_arrived(generation, around, *result),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _failed(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self.failed.emit(sentence(error))  # a bug is a sentence of ours, never Python's

    def _cursors_arrived(
        self,
        generation: int,
        around: MessageCursor | None,
        session: Session,
        cursors: Sequence[MessageCursor],
        first: _Rendered,
    ) -> None:
        if generation != self._generation:
            return
        # The view lays out the rows it starts on (the top) before it is moved to the end or
        # to a search hit: rows it asks for meanwhile are not rendered until it has settled.
        self._settling = True
        try:
            if cursors:
                self.beginInsertRows(QModelIndex(), 0, len(cursors) - 1)
                self._cursors = cursors
                self._requested.update(row for row, _, _ in first[0])
                self._keep(first)
                self._learn(first)
                self._landing = self._landing_rows(
                    len(cursors) - 1 if around is None else bisect_left(cursors, around),
                    at_end=around is None,
                )
                self.endInsertRows()
            self.opened.emit(session, len(cursors))
        finally:
            self._settling = False
        self._opened = session
        if first[0]:
            self.rows_rendered.emit()
        if self._asked_while_settling:
            QTimer.singleShot(0, self, lambda: self._ask_again(generation))
        else:
            self._settle()

    def _landing_rows(self, row: int, *, at_end: bool) -> range:
        """The rows around `row` the view may show once it is there: `LANDING_ROWS` shown rows
        up to it at the end, else from it down (and a few above, in the view's cache)."""
        above, below = (LANDING_ROWS, 0) if at_end else (4, LANDING_ROWS)
        return range(self._reach(row, -1, above), self._reach(row, 1, below) + 1)

    def _reach(self, row: int, step: int, shown: int) -> int:
        """The row `shown` shown rows from `row` (folded rows take no place), going `step`;
        it stops at the first row not rendered, which is a placeholder whatever it is."""
        while shown > 0 and 0 <= row + step < len(self._cursors):
            rendered = self._rendered.get(row + step)
            if rendered is None:
                break
            row += step
            if not self._folded(row, rendered):
                shown -= 1
        return row

    def _ask_again(self, generation: int) -> None:
        """Rows asked for while the view settled are asked again of the view: those it still
        shows read their data afresh, and are rendered; those it left are not. Rendered rows
        outside the landing are told of as rendered rows arriving are, a few a turn."""
        asked, self._asked_while_settling = self._asked_while_settling, set()
        if generation != self._generation:
            return
        asked = {row for row in asked if row < len(self._cursors)}
        waiting = [row for row in asked if row not in self._rendered]
        if waiting:
            self.dataChanged.emit(self.index(min(waiting)), self.index(max(waiting)))
        held = asked.difference(waiting)
        if held:
            self._tell(generation, held)
        self._settle()

    def _settle(self) -> None:
        """`settled`, once per opening, when no row the view asked for is still to come
        (rendered and told, or failed and said)."""
        if self._opened is not None and not self._rendering and not self._unannounced:
            session, self._opened = self._opened, None
            self.settled.emit(session)

    def refresh(self) -> None:
        """Pick up what the agent wrote since: appended messages become new rows at the end,
        and a message near the end that changed in place (a reply whose later blocks were
        written after its tool's result, a command's output held until the next poll) is
        rendered again, keeping what it shows until then; any other change (a rewritten
        conversation) reopens the session."""
        session_id, generation = self._session_id, self._generation
        if session_id is None:
            return
        tail = len(self._cursors) - CHANGES_NEAR_THE_END
        kept = [(row, message) for row, message in self._messages.items() if row >= tail]
        names, more = dict(self._tool_names), dict(self._more)
        self._tasks.run(
            lambda: (
                self._source.positions(session_id),
                self._changed(session_id, kept, names, more),
            ),
            lambda result: self._refreshed(generation, session_id, *result),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _changed(
        self,
        session_id: str,
        kept: list[tuple[int, Message]],
        names: dict[str, str],
        more: dict[int, int],
    ) -> _Rendered:
        """In the worker: the rows of `kept` whose message reads differently now, rendered."""
        if not kept:
            return [], names, []
        fresh = {
            m.cursor: m for m in self._source.messages_at(session_id, [m.cursor for _, m in kept])
        }
        rendered = [
            (row, now, self._render(now, names, more.get(row, 0)))
            for row, before in kept
            if (now := fresh.get(before.cursor)) is not None and now != before
        ]
        return rendered, names, []

    def _refreshed(
        self,
        generation: int,
        session_id: str,
        cursors: Sequence[MessageCursor],
        changed: _Rendered,
    ) -> None:
        if generation != self._generation:
            return
        old = self._cursors
        if len(cursors) != len(old) or cursors != old:
            appended = (
                isinstance(cursors, CursorList)
                and isinstance(old, CursorList)
                and cursors.starts_with(old)
            )
            if not appended:
                self.open_session(session_id)
                return
            self.beginInsertRows(QModelIndex(), len(old), len(cursors) - 1)
            self._cursors = cursors
            self.endInsertRows()
            self.appended.emit(len(cursors) - len(old))
        self._rendered_arrived(generation, changed)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._cursors)

    def roleNames(self) -> dict[int, QByteArray]:
        return {int(role): QByteArray(name) for role, name in MESSAGE_ROLE_NAMES.items()}

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._cursors):
            return None
        row = index.row()
        if role == MessageRole.ROW:
            return row
        rendered = self._rendered.get(row)
        held = self._settling and row not in self._landing
        if rendered is None or held:
            self._waited.add(row)
            if self._settling:
                self._asked_while_settling.add(row)
            else:
                self._request(row)
            return held if role == MessageRole.HELD else self._placeholder(role)
        self._rendered.move_to_end(row)
        if role == MessageRole.LOADED:
            return True
        if role == MessageRole.ROLE_LABEL:
            return rendered.role_label
        if role == MessageRole.TIME_LABEL:
            return rendered.time_label
        if role == MessageRole.MODEL_LABEL:
            return rendered.model_label
        if role == MessageRole.AGENT_ONLY:
            return rendered.agent_only
        if role == MessageRole.MUTED:
            return rendered.muted
        if role == MessageRole.HIDDEN:
            return self._folded(row, rendered)
        if role == MessageRole.HELD:
            return False
        if role == MessageRole.BLOCKS:
            return [
                _pieced(
                    self._marked(
                        _wrapped(_shown(block), wrap=(row, number) not in self._unwrapped),
                        row,
                        number,
                    )
                )
                for number, block in enumerate(self._blocks(row, rendered))
            ]
        if role == MessageRole.EXPANDED:
            chosen = self._all_expanded
            count = len(self._blocks(row, rendered))
            expanded = [self._expanded.get((row, n), chosen) for n in range(count)]
            group = self._group(row)
            if group is not None and row == group.first:
                expanded[0] = self._is_open(group)
            return expanded
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{rendered.role_label} · {rendered.time_label}"
        return None

    def set_needle(self, needle: Needle) -> None:
        """Highlight `needle` (a find's text, or a search's words) in every message; collapsed
        blocks that contain it open in the row `open_matches_in` names."""
        self._needle = needle
        if self._cursors:
            self.dataChanged.emit(
                self.index(0), self.index(len(self._cursors) - 1), [MessageRole.BLOCKS]
            )

    def open_matches_in(self, row: int) -> None:
        """`row` is the one a search hit or a find shows: its collapsed blocks that contain the
        needle open (and those of the row shown before close again)."""
        before, self._match_row = self._match_row, row
        for changed in {before, row} - {None}:
            if changed is not None and 0 <= changed < len(self._cursors):
                index = self.index(changed)
                self.dataChanged.emit(index, index, [MessageRole.BLOCKS])

    def _marked(self, block: dict[str, Any], row: int, number: int) -> dict[str, Any]:
        """Adds `title_html` (titles come from tool names and prompts: escaped) and the find
        highlight: `matched` says the block holds the needle, the shown row's such blocks are
        open, and a closed one elsewhere says in its title how many matches it hides."""
        title = str(block["title"])
        if len(title) > TITLE_CHARS:  # a tool name or prompt of any length: the card stays a card
            title = title[: TITLE_CHARS - 1] + "…"
        block["title_html"] = escape(title)
        block["matched"] = False
        block["first_mark"] = ""
        if not self._needle:
            return block
        block["html"], in_body = highlight_html(block["html"], self._needle)
        block["title_html"], in_title = highlight_html(block["title_html"], self._needle)
        block["matched"] = bool(in_body or in_title)
        if not block["matched"]:
            return block
        first = _FIRST_MARK.search(block["html"])
        block["first_mark"] = unescape(first.group(1)) if first is not None else ""
        if row == self._match_row:
            block["collapsed"] = False
            return block
        chosen = self._expanded.get((row, number), self._all_expanded)
        closed = chosen is False or (chosen is None and bool(block["collapsed"]))
        if in_body and closed and block["collapsible"]:
            plural = "es" if in_body != 1 else ""
            block["title_html"] += f' <span style="{MARK_STYLE}">{in_body:,} match{plural}</span>'
        return block

    @Slot(int, int, bool)
    def toggleBlock(self, row: int, block: int, expanded: bool) -> None:
        """Open or close one block (`expanded` is its state as shown)."""
        if not 0 <= row < len(self._cursors):
            return
        group = self._group(row)
        if group is not None and row == group.first and block == 0:
            self._group_open[group.first] = not expanded
            self.dataChanged.emit(self.index(group.first), self.index(group.last))
            return
        self._expanded[(row, block)] = not expanded
        index = self.index(row)
        self.dataChanged.emit(index, index, [MessageRole.EXPANDED])

    @Slot(int, int)
    def toggleWrap(self, row: int, block: int) -> None:
        """Switch one block between long lines wrapped and one line each, scrolled sideways."""
        if not 0 <= row < len(self._cursors):
            return
        self._unwrapped ^= {(row, block)}
        index = self.index(row)
        self.dataChanged.emit(index, index, [MessageRole.BLOCKS])

    def set_all_expanded(self, expanded: bool) -> None:
        """View ▸ Expand all / Collapse all, for every message of the session (rendered now or
        later); a block toggled afterwards keeps its own state."""
        self._expanded.clear()
        self._group_open.clear()
        self._all_expanded = expanded
        if self._cursors:
            self.dataChanged.emit(self.index(0), self.index(len(self._cursors) - 1))

    def block_count(self, row: int) -> int | None:
        """How many blocks a row shows (0 when it is folded away); None until it is rendered,
        which this asks for."""
        rendered = self._rendered.get(row)
        if rendered is None:
            if 0 <= row < len(self._cursors):
                self._request(row)
            return None
        if self._folded(row, rendered):
            return 0
        return len(self._blocks(row, rendered))

    def collapsible(self, row: int, block: int) -> bool:
        rendered = self._rendered.get(row)
        if rendered is None:
            return False
        blocks = self._blocks(row, rendered)
        return 0 <= block < len(blocks) and blocks[block].collapsible

    @property
    def cursors(self) -> Sequence[MessageCursor]:
        return self._cursors

    def code_block(self, row: int, block: int, number: int) -> str | None:
        code = self.code_source(row, block, number)
        return code.text() if isinstance(code, JsonSource) else code

    def code_source(self, row: int, block: int, number: int) -> str | JsonSource | None:
        """What a block's Copy or Save all writes: a text, or the JSON value the block shows
        (so a redacted copy removes secrets from the value, as the export does, not only from
        its text)."""
        rendered = self._rendered.get(row)
        if rendered is None:
            return None
        blocks = self._blocks(row, rendered)
        if not 0 <= block < len(blocks):
            return None
        codes = blocks[block].code_blocks
        if not 0 <= number < len(codes):
            return None
        return codes[number]

    def message(self, row: int) -> Message | None:
        """The parsed message behind a rendered row (for copying it)."""
        return self._messages.get(row)

    def tool_names(self) -> dict[str, str]:
        return dict(self._tool_names)

    def row_of(self, cursor: MessageCursor) -> int:
        """The row showing the message at `cursor`, or -1."""
        row = bisect_left(self._cursors, cursor)
        return row if row < len(self._cursors) and self._cursors[row] == cursor else -1

    @staticmethod
    def _placeholder(role: int) -> Any:
        if role in (MessageRole.BLOCKS, MessageRole.EXPANDED):
            return []
        if role in (
            MessageRole.LOADED,
            MessageRole.AGENT_ONLY,
            MessageRole.HIDDEN,
            MessageRole.MUTED,
        ):
            return False
        if role in (MessageRole.ROLE_LABEL, MessageRole.TIME_LABEL, MessageRole.MODEL_LABEL):
            return ""
        return None

    def image(self, row: int, image_index: int) -> ImagePart | None:
        rendered = self._rendered.get(row)
        if rendered is None or not 0 <= image_index < len(rendered.images):
            return None
        return rendered.images[image_index]

    def _request(self, row: int) -> None:
        if row in self._requested or self._session_id is None:
            return
        rows = [r for r in _page(row, len(self._cursors)) if r not in self._rendered]
        if not rows:
            return
        self._requested.update(rows)
        session_id, generation = self._session_id, self._generation
        cursors = self._cursors
        names = dict(self._tool_names)
        more = dict(self._more)
        self._rendering += 1
        self._tasks.run(
            lambda: self._render_rows(session_id, cursors, rows, names, more),
            lambda result: self._asked_arrived(generation, result),
            lambda error: self._asked_failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _asked_arrived(self, generation: int, result: _Rendered) -> None:
        if generation == self._generation:
            self._rendering -= 1
            self._rendered_arrived(generation, result)
            self._settle()

    def _asked_failed(self, generation: int, error: BaseException) -> None:
        if generation == self._generation:
            self._rendering -= 1
            self._failed(generation, error)
            self._settle()

    def _render_rows(
        self,
        session_id: str,
        cursors: Sequence[MessageCursor],
        rows: list[int],
        names: dict[str, str],
        more: dict[int, int],
    ) -> _Rendered:
        """In the worker: `rows` (ascending) read in one range and rendered, until the job has
        used its time; the rows not reached are handed back."""
        wanted = {cursors[r]: r for r in rows}
        messages = self._source.messages_between(session_id, cursors[rows[0]], cursors[rows[-1]])
        started = time.monotonic()
        rendered: list[tuple[int, Message, RenderedMessage]] = []
        for position, message in enumerate(messages):
            if rendered and time.monotonic() - started > JOB_BUDGET_S:
                unreached = [wanted[m.cursor] for m in messages[position:] if m.cursor in wanted]
                return rendered, names, unreached
            row = wanted.get(message.cursor)
            if row is not None:
                rendered.append((row, message, self._render(message, names, more.get(row, 0))))
        return rendered, names, []

    def _render(self, message: Message, names: dict[str, str], more: int) -> RenderedMessage:
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.call_id and part.tool:
                names[part.call_id] = call_label(part)
        rendered = self._renderer.with_more(more).render(message, names)
        for block in rendered.blocks:  # looked at here, in the worker, not as QML reads the row
            if "<pre" in block.html:
                _text_shape(block.html)
        return rendered

    def show_more(self, row: int) -> None:
        """Show more of the long texts in `row` (`MessageRenderer.with_more`). The row keeps
        what it shows until the larger rendering arrives, so nothing jumps meanwhile."""
        message = self._messages.get(row)
        if message is None or not 0 <= row < len(self._cursors):
            return
        self._more[row] = level = self._more.get(row, 0) + 1
        names, generation = dict(self._tool_names), self._generation
        self._tasks.run(
            lambda: ([(row, message, self._render(message, names, level))], names, []),
            lambda result: self._rendered_arrived(generation, result),
            lambda error: self._failed(generation, error),
            wanted=lambda: generation == self._generation,
        )

    def _rendered_arrived(self, generation: int, result: _Rendered) -> None:
        if generation != self._generation or not result[0]:
            return
        rows = set(self._keep(result))
        changed = self._learn(result)
        if changed is not None:
            rows.update(changed)
        self._tell(generation, rows)

    def _tell(self, generation: int, rows: set[int]) -> None:
        """Tell the view of `rows`, rendered since it last read them (`_announce`)."""
        telling = bool(self._unannounced)  # `_announce` is on its way through earlier rows
        waiting = set(self._unannounced) | rows
        self._unannounced = sorted(waiting, key=lambda row: (row not in self._waited, row))
        if not telling:
            self._announce(generation)

    def _announce(self, generation: int) -> None:
        """Tell the view of the next `ANNOUNCED_PER_TURN` rows that arrived, the rest in later
        turns of the event loop; `rows_rendered` once all are told. Every row's data is
        already there: a row the view builds meanwhile reads it whole."""
        if generation != self._generation or not self._unannounced:
            return
        now = self._unannounced[:ANNOUNCED_PER_TURN]
        del self._unannounced[:ANNOUNCED_PER_TURN]
        self._waited.difference_update(now)
        for row in now:
            if row < len(self._cursors):
                self.dataChanged.emit(self.index(row), self.index(row))
        if self._unannounced:
            QTimer.singleShot(0, self, lambda: self._announce(generation))
        else:
            self.rows_rendered.emit()
            self._settle()

    def _learn(self, result: _Rendered) -> range | None:
        """Which rendered rows are steps of a run of tool calls; the rows whose group changed."""
        return self._groups.learn((row, step_of(message)) for row, message, _ in result[0])

    def _keep(self, result: _Rendered) -> list[int]:
        """Caches what a job rendered (the oldest rows go beyond `CACHE_LIMIT`) and asks again
        for the rows it did not reach; returns the rows it rendered."""
        rendered_rows, names, unreached = result
        if unreached:
            # The job used its time: the rest is asked for again, behind whatever else the
            # worker has been given meanwhile (another session, a list page).
            self._requested.difference_update(unreached)
            self._request(min(unreached))
        self._tool_names.update(names)
        for row, message, rendered in rendered_rows:
            self._rendered[row] = rendered
            self._messages[row] = message
        while len(self._rendered) > CACHE_LIMIT:
            evicted, _ = self._rendered.popitem(last=False)
            self._messages.pop(evicted, None)
            self._requested.discard(evicted)
        return [row for row, _, _ in rendered_rows]

    @property
    def pending(self) -> bool:
        return any(r not in self._rendered for r in self._requested)

    @property
    def rendered_count(self) -> int:
        return len(self._rendered)


def _page(row: int, count: int) -> range:
    """The `PAGE` rows around `row` (fewer at either end of the session)."""
    first = max(0, min(row - PAGE // 2, count - PAGE))
    return range(first, min(count, first + PAGE))


WIDE_LINE = 80
"""Characters of a line past which a block offers its Wrap / No wrap switch beside its title (a
card is about 80 to 120 characters of code wide)."""


ANYWHERE_PIECE_CHARS = PIECE_CHARS // 4
"""A text with a run that wraps anywhere takes Qt about five times as long a character to lay
out (16,000 characters of one line: 54 ms of the window's thread), so it comes in quarters:
the 4,000 characters shown at first (`LONG_RUN_SHARE`) in one, what Show more brings a quarter
a turn. (Each piece but the last ends a line where it was cut, as a prose piece does.)"""


@lru_cache(maxsize=256)
def _text_shape(html: str) -> tuple[bool, bool]:
    """Whether the text of `html` has a run with nowhere to wrap, and a line wider than
    `WIDE_LINE` (a block's text is one string, asked again whenever QML reads the row: it is
    looked at once)."""
    text = _TAGS.sub("", html)
    return has_long_run(text), any(len(line) > WIDE_LINE for line in text.splitlines())


def _wrapped(block: dict[str, Any], *, wrap: bool) -> dict[str, Any]:
    """A block whose HTML has preformatted parts (code, output, JSON) wraps their long lines at
    the card's edge, or, switched to no wrap, keeps each on one line for the view to scroll
    sideways (`markdown_html.wrap_pre`); wrapped, a run with nowhere to wrap may wrap anywhere,
    as Qt lays it out in quadratic time else."""
    html = str(block["html"])
    has_code = "<pre" in html
    long_run, wide = _text_shape(html) if has_code else (False, False)
    block["wide"] = wide
    block["wrap"] = wrap
    if has_code:
        block["html"] = wrap_pre(html, wrap=wrap)
        block["wrap_anywhere"] = block["wrap_anywhere"] or (wrap and long_run)
    return block


def _pieced(block: dict[str, Any]) -> dict[str, Any]:
    """The block's HTML as the pieces QML lays out one at a time (`html_pieces`), its find
    highlights and wrapping already in it. A text that may wrap anywhere is cut smaller
    (`ANYWHERE_PIECE_CHARS`)."""
    size = ANYWHERE_PIECE_CHARS if block.get("wrap_anywhere") else PIECE_CHARS
    html = str(block["html"])
    block["pieces"] = [html] if len(html) <= size + size // 2 else list(_pieces(html, size))
    return block


@lru_cache(maxsize=8)
def _pieces(html: str, size: int) -> tuple[str, ...]:
    """`split_pieces` of a long block, once for its HTML: QML reads a row's blocks again and
    again, and the megabyte Show more brings took 18 ms to cut (a few kept: one is up to a
    megabyte; a block that is not cut is its HTML alone, `split_pieces`' own rule)."""
    return tuple(split_pieces(html, size))


def _shown(block: Block) -> dict[str, Any]:
    """What QML reads of a block: not its code blocks, which may hold a 20 MB text (copying
    and saving ask the model for them), so nothing large crosses into QML."""
    return {
        "kind": block.kind,
        "title": block.title,
        "html": block.html,
        "preview": block.preview,
        "collapsible": block.collapsible,
        "collapsed": block.collapsed,
        "error": block.error,
        "size_label": block.size_label,
        "image_index": block.image_index,
        "wrap_anywhere": block.wrap_anywhere,
    }
