"""Every custom item-data role, in one place (napari `ItemRole`, Qt's mimetype example)."""

from enum import IntEnum

from PySide6.QtCore import Qt

_BASE = int(Qt.ItemDataRole.UserRole)


class SessionRole(IntEnum):
    SESSION = _BASE + 1
    """The `Session` value object of a session row (None for group rows)."""
    IS_GROUP = _BASE + 2
    SUBTITLE = _BASE + 3
    BADGE = _BASE + 4
    """Which history the session is from (kind · short name), when several are open."""


class MessageRole(IntEnum):
    ROLE_LABEL = _BASE + 20
    TIME_LABEL = _BASE + 21
    MODEL_LABEL = _BASE + 22
    AGENT_ONLY = _BASE + 23
    BLOCKS = _BASE + 24
    LOADED = _BASE + 25
    ROW = _BASE + 26
    HIDDEN = _BASE + 27
    """True for an agent-only message while agent-only messages are not shown."""
    MUTED = _BASE + 29
    """Interim text (a commentary phase): its text is drawn muted."""
    EXPANDED = _BASE + 28
    """Per block: True or False where the user opened or closed it (or all blocks), else None
    (the block's own default)."""
    HELD = _BASE + 30
    """True for a row held back while the view moves to where it opens: a screen tall and
    empty, so the rows the view lays out before it moves are few and cost nothing."""


MESSAGE_ROLE_NAMES = {
    MessageRole.ROLE_LABEL: b"roleLabel",
    MessageRole.TIME_LABEL: b"timeLabel",
    MessageRole.MODEL_LABEL: b"modelLabel",
    MessageRole.AGENT_ONLY: b"agentOnly",
    MessageRole.BLOCKS: b"blocks",
    MessageRole.LOADED: b"loaded",
    MessageRole.ROW: b"messageRow",
    MessageRole.HIDDEN: b"hiddenRow",
    MessageRole.EXPANDED: b"expandedBlocks",
    MessageRole.MUTED: b"muted",
    MessageRole.HELD: b"heldRow",
}
