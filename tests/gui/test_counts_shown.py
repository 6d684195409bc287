"""Counts are shown with their thousands separated: a 2 GB log's header said "1604673
messages shown · 1854942 stored" and its row "1604673 msgs"."""

from datetime import UTC, datetime

from desktop_app.domain.session import Session
from desktop_app.domain.source import SourceInfo
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.reading_meter import reading_sentence
from desktop_app.ui.widgets.session_header import message_figures


def test_the_headers_counts_are_separated() -> None:
    assert message_figures(1_604_673, 1_854_942) == "1,604,673 messages shown · 1,854,942 stored"
    assert message_figures(None, 1_854_942) == "1,854,942 messages stored"
    assert message_figures(1, 1) == "1 message shown"


def test_the_rows_count_is_separated() -> None:
    now = datetime(2026, 12, 2, tzinfo=UTC)
    model = SessionTreeModel.__new__(SessionTreeModel)
    model._clock = lambda: now  # only what a subtitle asks for
    session = Session(id="big", name="big", message_count=1_604_673, updated_at=now)
    assert "1,604,673 msgs" in model._subtitle(session)


class _Reading:
    def __init__(self, total: int) -> None:
        self.total = total

    def cataloguing(self) -> tuple[int, int]:
        return 0, self.total

    def catalogue_in_background(self) -> None: ...

    def info(self) -> SourceInfo:
        return SourceInfo(kind="claude-code", location="/x", agent="Claude Code")


def test_the_reading_counts_one_file_as_one() -> None:
    assert reading_sentence([_Reading(1)]) == "Reading Claude Code logs · 0 of 1 file"  # type: ignore[list-item]
    assert reading_sentence([_Reading(3054)]) == "Reading Claude Code logs · 0 of 3,054 files"  # type: ignore[list-item]
