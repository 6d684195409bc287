"""Where the transcript has been, as a browser keeps it: Back returns to the session shown
before, at the place it was left — the card whose "Open sub-agent" link was followed, not the
session's end — and Forward undoes Back.

Plain Python, so the rules are tested without a window: every session shown is a `Place`
(from the list, a search hit, a link); going somewhere new drops what was ahead, as a browser
does; at most `LIMIT` places are kept, the oldest forgotten first; a place whose session has
gone from the history is dropped when it is reached, and the journey goes on past it.
"""

from dataclasses import dataclass, replace

from desktop_app.domain.message import MessageCursor

LIMIT = 100
"""Places kept; enough for a morning's reading, and a bound on what is remembered."""


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a transcript was left: the message at the top of the view and how far down it
    the view began (pixels), and the message whose link was followed, if one was — kept in
    view on the way back, whatever the rows above it show by then."""

    top: MessageCursor
    offset: int = 0
    clicked: MessageCursor | None = None


@dataclass(frozen=True, slots=True)
class Place:
    session_id: str
    title: str
    """The session's name (else its id) when it was shown, for "Back to …"."""
    spot: Spot | None = None
    """Where it was left; None until it is left (or when it was empty): its end."""
    via_link: bool = False
    """Reached from the place before it by a link (a sub-agent's card, the header's parent
    link): the pane then offers "← Back to …" in words, not only as a shortcut."""


class SessionHistory:
    def __init__(self, limit: int = LIMIT) -> None:
        assert limit > 0
        self._limit = limit
        self._places: list[Place] = []
        self._index = -1
        self._direction = 0
        """The way the last `step` went (-1 back, +1 forward), where a dropped place's
        journey goes on."""

    @property
    def places(self) -> tuple[Place, ...]:
        return tuple(self._places)

    @property
    def current(self) -> Place | None:
        return self._places[self._index] if self._index >= 0 else None

    @property
    def behind(self) -> Place | None:
        """Where Back goes."""
        return self._places[self._index - 1] if self._index > 0 else None

    @property
    def ahead(self) -> Place | None:
        """Where Forward goes."""
        return self._places[self._index + 1] if self._index + 1 < len(self._places) else None

    def visit(self, session_id: str, title: str, *, via_link: bool = False) -> None:
        """`session_id` is shown. The current place again only renames it (a reload, Back's
        own arrival); anywhere else is a new place after the current one, and what was ahead
        is forgotten."""
        current = self.current
        if current is not None and current.session_id == session_id:
            self._places[self._index] = replace(current, title=title)
            return
        del self._places[self._index + 1 :]
        self._places.append(Place(session_id, title, via_link=via_link))
        overflow = len(self._places) - self._limit
        if overflow > 0:
            del self._places[:overflow]
            self._places[0] = replace(self._places[0], via_link=False)
        self._index = len(self._places) - 1

    def leave(self, session_id: str, spot: Spot | None) -> None:
        """The transcript leaves `session_id` at `spot`: noted on the current place if it is
        that session (Back and Forward move the current place before the transcript leaves)."""
        current = self.current
        if current is not None and current.session_id == session_id:
            self._places[self._index] = replace(current, spot=spot)

    def step(self, delta: int) -> Place | None:
        """Back (-1) or Forward (+1): the place to show now, or None when there is none."""
        target = self._index + delta
        if delta == 0 or not 0 <= target < len(self._places):
            return None
        self._index = target
        self._direction = 1 if delta > 0 else -1
        return self._places[target]

    def vanished(self) -> Place | None:
        """The current place's session could not be shown (it is gone): the place is dropped,
        and the journey goes on the way it went — else back to where it started. None when
        no place is left."""
        if self._index < 0:
            return None
        del self._places[self._index]
        if self._index < len(self._places):
            self._places[self._index] = replace(self._places[self._index], via_link=False)
        if self._direction > 0:
            self._index = min(self._index, len(self._places) - 1)
        else:
            self._index = self._index - 1 if self._index > 0 else min(0, len(self._places) - 1)
        self._merge()
        return self.current

    def _merge(self) -> None:
        """A dropped place can leave one session twice in a row: kept once."""
        row = 1
        while row < len(self._places):
            if self._places[row].session_id == self._places[row - 1].session_id:
                del self._places[row]
                if self._index >= row:
                    self._index -= 1
            else:
                row += 1
