"""The usage panel's context-growth line draws at most `SPARK_POINTS` points: a long session
gave it 2,000 (everruns' server, one a reply: any number), and drawing them took 6–12 ms of the
window's thread at every live update (`benchmarks.window`'s live-updates stall)."""

from hypothesis import given
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from desktop_app.ui.widgets.charts import SPARK_POINTS, Sparkline, peaks

values = st.lists(st.floats(min_value=0, max_value=1e12), max_size=3000)


@given(values, st.integers(min_value=1, max_value=500))
def test_the_peaks_are_at_most_so_many_and_keep_every_peak(series: list[float], most: int) -> None:
    reduced = peaks(series, most)
    assert len(reduced) == min(len(series), most)
    assert max(reduced, default=None) == max(series, default=None)
    assert set(reduced) <= set(series)
    if len(series) <= most:
        assert reduced == series


def test_runs_are_consecutive_and_cover_every_value() -> None:
    assert peaks([1, 5, 2, 2, 9, 0, 3, 4], 4) == [5, 2, 9, 4]
    assert peaks([float(n) for n in range(10)], 3) == [2.0, 6.0, 9.0]


def test_a_long_session_draws_a_line_of_so_many_points(qtbot: QtBot) -> None:
    line = Sparkline()
    qtbot.addWidget(line)
    line.set_values([float(n % 700) for n in range(25_000)] + [float("nan"), 1e9])
    assert len(line._values) == SPARK_POINTS
    assert max(line._values) == 1e9
    assert line.toolTip() == "25001 calls; peak 1,000,000,000 tokens"
    line.resize(300, 48)
    line.show()
    qtbot.waitExposed(line)
    line.grab()  # it paints
