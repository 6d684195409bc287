"""`has_long_run` looks at a text a slice at a time (no call splits a megabyte at once), and
finds what splitting it whole finds, wherever a run meets a slice's edge."""

from typing import SupportsIndex

from hypothesis import example, given
from hypothesis import strategies as st

from desktop_app.rendering import markdown_html
from desktop_app.rendering.markdown_html import LONG_RUN, has_long_run

runs = st.lists(
    st.tuples(st.integers(0, 2 * LONG_RUN), st.sampled_from([" ", "\n", "\u2003", "\u00a0", ""])),
    max_size=8,
).map(lambda pieces: "".join("a" * length + gap for length, gap in pieces))


@given(runs, st.integers(1, 3 * LONG_RUN))
@example("a" * (LONG_RUN - 1) + " " + "a" * LONG_RUN, LONG_RUN)
@example(" " + "a" * LONG_RUN, 1)
def test_a_run_is_found_wherever_the_slices_fall(text: str, piece: int) -> None:
    usual = markdown_html._RUN_SLICE
    markdown_html._RUN_SLICE = piece
    try:
        assert has_long_run(text) == any(len(word) >= LONG_RUN for word in text.split())
    finally:
        markdown_html._RUN_SLICE = usual


def test_no_split_covers_more_than_a_slice() -> None:
    """A megabyte of prose, shown after Show more: split a slice and a run's length at a
    time."""
    lengths: list[int] = []

    class Recorded(str):
        def __getitem__(self, key: SupportsIndex | slice) -> str:
            piece = str.__getitem__(self, key)
            lengths.append(len(piece))
            return piece

    prose = Recorded("word " * 200_000)
    assert not has_long_run(prose)
    assert lengths
    assert max(lengths) <= markdown_html._RUN_SLICE + LONG_RUN
