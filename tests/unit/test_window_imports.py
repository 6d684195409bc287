"""The window's start-up imports what it shows, not what a later action needs (#21's budget of
1.2 s to a usable window): the exporters load when an export is asked for, the Markdown writer
and the redaction at the first copy, the process pool when a first index build is large enough
to use one; `configparser` never (the window reads its settings through Qt)."""

import json

from tests.fixtures.processes import run_python

LATER = (
    "desktop_app.rendering.exporting",
    "desktop_app.rendering.html_export",
    "desktop_app.rendering.markdown_export",
    "desktop_app.rendering.redact",
    "multiprocessing",
    "concurrent.futures.process",
    "configparser",
)


def _loaded_after(code: str) -> list[str]:
    done = run_python(
        f"import json, sys\nimport desktop_app.app\n{code}\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({LATER!r}))))\n"
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_window_s_modules_leave_exports_copies_and_the_process_pool_for_later() -> None:
    assert _loaded_after("") == []


def test_asking_for_an_export_loads_them() -> None:
    """The check above can fail: the export dialog's format loads the exporters."""
    code = (
        "from pathlib import Path\n"
        "from desktop_app.ui.exporter import format_of\n"
        "assert format_of(Path('a.html'), '') == 'html'\n"
    )
    assert _loaded_after(code) == [
        "desktop_app.rendering.exporting",
        "desktop_app.rendering.html_export",
        "desktop_app.rendering.markdown_export",
        "desktop_app.rendering.redact",
    ]
