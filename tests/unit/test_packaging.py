"""The wheel carries the resources, and the desktop metadata agrees with the app id."""

import configparser
import subprocess
import sys
import xml.dom.minidom
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.gander.Gander"


def test_desktop_entry_and_metainfo_match_the_app(tmp_path: Path) -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "packaging" / f"{APP_ID}.desktop")
    section = entry["Desktop Entry"]
    assert section["Exec"].startswith("gander")
    assert section["Icon"] == APP_ID
    metainfo = xml.dom.minidom.parse(str(ROOT / "packaging" / f"{APP_ID}.metainfo.xml"))
    assert metainfo.getElementsByTagName("id")[0].firstChild.data == APP_ID  # type: ignore[union-attr]
    assert f'setDesktopFileName("{APP_ID}")' in (ROOT / "desktop_app" / "app.py").read_text()


def test_wheel_ships_qml_and_icons(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("gander-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "desktop_app/resources/qml/Transcript.qml" in names
    assert "desktop_app/resources/icons/gander.svg" in names
    assert "desktop_app/cli.py" in names


def test_licence_file_matches_pyproject() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    licence = (ROOT / "LICENSE").read_text()
    assert project["license"] == "MIT"
    assert licence.startswith("MIT License")
    assert project["authors"][0]["name"] in licence
