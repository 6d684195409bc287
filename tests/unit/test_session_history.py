"""Back and Forward's places, as a browser keeps them (#19 item 3's way back)."""

from desktop_app.domain.message import MessageCursor
from desktop_app.ui.session_history import Place, SessionHistory, Spot


def _walk(history: SessionHistory, *ids: str) -> None:
    for session_id in ids:
        history.visit(session_id, session_id.upper())


def _ids(history: SessionHistory) -> list[str]:
    return [place.session_id for place in history.places]


def test_back_and_forward_go_between_the_places_shown() -> None:
    history = SessionHistory()
    assert history.step(-1) is None
    assert history.places == ()
    _walk(history, "a", "b", "c")
    assert history.behind is not None
    assert history.behind.title == "B"
    back = history.step(-1)
    assert back is not None
    assert back.session_id == "b"
    history.visit("b", "B again")  # Back's own arrival renames, adds nothing
    assert _ids(history) == ["a", "b", "c"]
    assert history.current == Place("b", "B again")
    forward = history.step(1)
    assert forward is not None
    assert forward.session_id == "c"
    assert history.step(1) is None
    assert history.current is not None
    assert history.current.session_id == "c"


def test_going_somewhere_new_forgets_what_was_ahead() -> None:
    history = SessionHistory()
    _walk(history, "a", "b", "c")
    history.step(-1)
    history.step(-1)
    history.visit("d", "D")
    assert _ids(history) == ["a", "d"]
    assert history.ahead is None


def test_where_a_session_was_left_is_kept_with_its_place() -> None:
    history = SessionHistory()
    top, card = MessageCursor(1.5, 3), MessageCursor(2.5, 5)
    history.visit("parent", "Parent")
    history.leave("parent", Spot(top, 40, card))
    history.visit("agent-1", "Sub-agent", via_link=True)
    history.leave("parent", Spot(card))  # not the current place: ignored
    assert history.current is not None
    assert history.current.via_link
    back = history.step(-1)
    assert back is not None
    assert back.spot == Spot(top, 40, card)
    assert not back.via_link


def test_at_most_the_limit_is_kept_the_oldest_forgotten_first() -> None:
    history = SessionHistory(limit=3)
    history.visit("a", "A")
    history.visit("b", "B", via_link=True)
    _walk(history, "c", "d")
    assert _ids(history) == ["b", "c", "d"]
    assert not history.places[0].via_link  # what it was reached from is forgotten
    assert history.step(-1) is not None
    assert history.step(-1) is not None
    assert history.step(-1) is None


def test_a_vanished_place_is_skipped_the_way_the_journey_went() -> None:
    history = SessionHistory()
    _walk(history, "a", "b", "c", "d")
    history.step(-1)
    history.step(-1)  # at b, on the way back
    after = history.vanished()
    assert after is not None
    assert after.session_id == "a"
    assert _ids(history) == ["a", "c", "d"]
    history.step(1)  # c, on the way forward
    after = history.vanished()
    assert after is not None
    assert after.session_id == "d"
    assert _ids(history) == ["a", "d"]


def test_with_nothing_past_a_vanished_place_the_journey_returns_where_it_began() -> None:
    history = SessionHistory()
    _walk(history, "a", "b")
    history.step(-1)
    after = history.vanished()
    assert after is not None
    assert after.session_id == "b"
    assert _ids(history) == ["b"]
    assert history.behind is None
    assert history.vanished() is None
    assert history.current is None
    assert history.step(-1) is None


def test_a_vanished_place_leaves_no_session_twice_in_a_row() -> None:
    history = SessionHistory()
    history.visit("a", "A")
    history.visit("b", "B")
    history.visit("a", "A", via_link=True)
    history.step(-1)
    after = history.vanished()  # b is gone: a, a becomes a
    assert after is not None
    assert after.session_id == "a"
    assert _ids(history) == ["a"]
    assert not history.places[0].via_link
