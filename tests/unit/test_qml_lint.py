"""The QML passes `pyside6-qmllint` with no warning (#21 item 5): names the view uses are its
required properties, checked, not context properties qmllint cannot see (54 warnings before)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_qml_has_no_lint_warning() -> None:
    files = sorted(str(p) for p in (ROOT / "resources" / "qml").glob("*.qml"))
    assert files
    tool = [sys.executable, "-c", "from PySide6.scripts.pyside_tool import qmllint; qmllint()"]
    result = subprocess.run(
        [*tool, "-W", "0", *files], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr
