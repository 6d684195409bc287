"""The source distribution holds what it should and nothing else (#21 item 5): no wheel (a
2.9 MB py-spy wheel once sat at the repository's root), no caches, no virtualenv."""

import tarfile
from pathlib import Path, PurePosixPath

from hatchling.builders.sdist import SdistBuilder

ROOT = Path(__file__).resolve().parents[2]
TOP_LEVEL = {
    "desktop_app",
    "resources",
    "tests",
    "docs",
    "benchmarks",
    "packaging",
    ".ci",
    "README.md",
    "LICENSE",
    "pyproject.toml",
    "PKG-INFO",
    ".gitignore",
}


def test_the_sdist_holds_the_program_tests_and_docs_only(tmp_path: Path) -> None:
    (built,) = SdistBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    with tarfile.open(built) as archive:
        names = [PurePosixPath(name) for name in archive.getnames()]
    inside = [PurePosixPath(*name.parts[1:]) for name in names if len(name.parts) > 1]
    assert {name.parts[0] for name in inside} <= TOP_LEVEL
    for wanted in ("desktop_app/cli.py", "resources/qml/Transcript.qml", "tests/conftest.py"):
        assert PurePosixPath(wanted) in inside
    assert not [name for name in inside if name.suffix in (".whl", ".pyc")]
    assert not [name for name in inside if "__pycache__" in name.parts]
