"""Readers never import each other (#21 item 2).

Opening one Claude Code file used to load thirteen of goose's database modules (seven readers
took `dump` from goose's content parser, Claude Code its Anthropic mapper from toolnexus): what
readers share lives in `sources/common` now. import-linter's independence contract keeps it so;
these tests check what a person waits for — the modules really loaded when one reader is
imported — and that the contract names every reader, so a new one cannot slip past it.
"""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import desktop_app.sources

SOURCES = Path(desktop_app.sources.__file__).parent
SHARED = {"common", "files"}
"""Packages under `sources/` that every reader may import: they are no reader."""

READERS = sorted(
    path.parent.name for path in SOURCES.glob("*/__init__.py") if path.parent.name not in SHARED
)

_LOADED = """
import importlib, json, pkgutil, sys
package = importlib.import_module(sys.argv[1])
for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(module.name)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded_by(module: str) -> list[str]:
    """The modules a fresh interpreter holds after importing `module` and all of its own."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, module],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_opening_a_claude_code_file_loads_no_goose_module() -> None:
    loaded = _loaded_by("desktop_app.sources.claude_code")
    assert "desktop_app.sources.claude_code.format" in loaded
    goose = [name for name in loaded if name.split(".")[:3] == ["desktop_app", "sources", "goose"]]
    assert goose == []


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_loads_no_other_reader(reader: str) -> None:
    loaded = _loaded_by(f"desktop_app.sources.{reader}")
    others = {
        name
        for name in loaded
        if name.startswith("desktop_app.sources.")
        and name.split(".")[2] in READERS
        and name.split(".")[2] != reader
    }
    assert others == set()


def test_the_independence_contract_names_every_reader() -> None:
    pyproject = tomllib.loads((SOURCES.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = pyproject["tool"]["importlinter"]["contracts"]
    independent = [c for c in contracts if c["type"] == "independence"]
    assert len(independent) == 1
    assert sorted(independent[0]["modules"]) == [f"desktop_app.sources.{r}" for r in READERS]
    assert {"goose", "claude_code"} <= set(READERS)  # the glob found the packages
