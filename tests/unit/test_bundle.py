"""The PyInstaller bundle (#10 item 21): `packaging/gander.spec` builds a one-folder bundle
that starts — `--screenshot` renders the demo window — and whose worker processes work (a
folder of 250 files is catalogued by spawned workers, which re-run the bundle's executable).
Slow (about a minute): CI runs it as its own step after the suite."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pyinstaller")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level=WARN",
            "--distpath",
            str(work / "dist"),
            "--workpath",
            str(work / "build"),
            str(ROOT / "packaging" / "gander.spec"),
        ],
        cwd=ROOT,
        check=True,
        timeout=600,
    )
    executable = work / "dist" / "gander" / "gander"
    assert executable.is_file()
    (work / "dist" / "gander" / "modules.toc").write_text(
        "\n".join(p.read_text() for p in (work / "build").rglob("PYZ-*.toc"))
    )
    return executable


@pytest.mark.slow
def test_the_bundle_holds_what_gander_imports_by_name(bundle: Path) -> None:
    """Each reader of the table and the usage chart are imported from their names, which
    PyInstaller's analysis cannot follow: a bundle without them said "No module named
    'desktop_app.sources.glean'" and would have drawn no chart."""
    from desktop_app.sources.readers import READERS

    modules = (bundle.parent / "modules.toc").read_text()
    named = {n.split(":")[0] for r in READERS for n in (r.reader, r.sniff, r.server) if n}
    for module in sorted(named | {"desktop_app.ui.widgets.day_chart", "pyqtgraph"}):
        assert f"'{module}'" in modules, module


def _run(executable: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    return subprocess.run(
        [str(executable), *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


@pytest.mark.slow
def test_the_bundle_renders_the_demo_window(bundle: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = _run(bundle, tmp_path / "home", "--demo", "--screenshot", str(shot))
    assert done.returncode == 0, done.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 800)
    colours = {image.pixel(x, y) for x in range(0, 1280, 16) for y in range(0, 800, 16)}
    assert len(colours) > 20  # a drawn window, not a blank or one-colour frame


@pytest.mark.slow
def test_the_bundle_starts_worker_processes(bundle: Path, tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    folder.mkdir()
    for n in range(250):
        (folder / f"t{n}.json").write_text(json.dumps([{"role": "user", "content": f"hi {n}"}]))
    done = _run(bundle, tmp_path / "home", "list", "--db", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    assert "unrecognized arguments" not in done.stderr
    assert len(json.loads(done.stdout)) == 250
