"""CI runs hypothesis deterministically: the profile `.ci/run` selects exists and derandomises."""

from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[2]


def test_ci_selects_a_derandomised_profile_without_a_database() -> None:
    assert "--hypothesis-profile=ci" in (ROOT / ".ci" / "run").read_text()
    profile = settings.get_profile("ci")
    assert profile.derandomize
    assert profile.database is None
