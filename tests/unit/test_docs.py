"""The docs are true (#21 item 5): every module path of ours and every command-line option
the README and docs/ name (in code, or a path of ours in prose) exists. Paths of other
projects (goose's `crates/…`, Codex's `codex-rs/…`) and other programs' options (`claude
--resume`) are told apart by their first folder and by the command they follow."""

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
TOP = ("desktop_app", "tests", "benchmarks", "docs", "packaging", "resources", ".ci")
"""Folders of this repository a path in the docs may start with."""
PACKAGES = ("domain", "sources", "search", "rendering", "files", "ui", "demo")
"""`desktop_app`'s packages, which the docs name without `desktop_app/`."""
OTHER_PROGRAMS = ("claude", "codex", "gemini", "goose", "pi", "ruff", "pytest", "py-spy", "pip")
"""Commands whose options the docs quote (how to resume a session, how CI runs its tools)."""
QUOTED_OPTIONS = {
    "--password": "an argument redaction recognises (docs/reliability.md)",
    "--user": "curl's, whose password redaction removes (docs/reliability.md)",
    "--auth": "HTTPie's, a known limit of redaction (docs/reliability.md)",
    "--gil": "py-spy's view of who holds the interpreter lock (docs/architecture.md)",
    "--hypothesis-profile": "hypothesis' pytest option, which .ci/run passes",
}
"""Other programs' options the docs name on their own, with no command before them."""
OTHER_PATHS = {
    "ui/desktop": "goose's desktop app (docs/formats/goose-files.md)",
    "docs/cli/session-management.md": "Gemini CLI's documentation (docs/formats/coding-agents.md)",
    "benchmarks/data/": "what the benchmarks build on first run (ignored by git)",
}
"""Other projects' paths that begin like ours, and ours that a fresh checkout lacks."""
_SPAN = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_PROSE_PATH = re.compile(
    r"(?<![\w/.-])(?:(?:desktop_app|tests|benchmarks|docs|packaging|resources)/[\w./-]*\w"
    r"|(?:domain|sources|search|rendering|files|ui)/[\w/]+\.py\b)"
)


def _spans(text: str) -> Iterator[str]:
    """Inline code, and each line of fenced code blocks."""
    for block in _FENCE.findall(text):
        yield from block.splitlines()[1:-1]
    yield from _SPAN.findall(_FENCE.sub("", text))


def _named(kind: str) -> list[tuple[str, str]]:
    """(document, span) of every span of `kind` ("path" or "option") in the docs."""
    found = []
    for doc in DOCS:
        for span in _spans(doc.read_text(encoding="utf-8")):
            if kind == "option" and _OPTION.search(span):
                found.append((doc.relative_to(ROOT).as_posix(), span))
            if kind == "path":
                found.extend((doc.relative_to(ROOT).as_posix(), word) for word in span.split())
        if kind == "path":  # and paths of ours written as prose, outside code
            prose = _SPAN.sub(" ", _FENCE.sub(" ", doc.read_text(encoding="utf-8")))
            found.extend((doc.relative_to(ROOT).as_posix(), p) for p in _PROSE_PATH.findall(prose))
    return found


def _ours(word: str) -> str | None:
    """The word as a path of this repository to check, or None when it names no file of ours
    (another project's path, a URL, a pattern with placeholders)."""
    word = word.strip(",.;:()[]'\"")
    if (
        not word
        or word in OTHER_PATHS
        or word.rstrip("/") + "/" in OTHER_PATHS
        or any(mark in word for mark in "<>*$~@?=:{}")
    ):
        return None
    first = word.split("/")[0]
    if "/" in word and (first in TOP or first in PACKAGES):
        return word
    if re.fullmatch(r"[a-z_][a-z0-9_]*\.py", word):
        return word
    if re.fullmatch(r"(desktop_app|benchmarks)(\.[a-z_][a-z0-9_]*)+", word):
        return word
    return None


def _defines(source: Path, name: str) -> bool:
    """`source` is a module that defines `name` (a function, class or module-level name)."""
    if not source.is_file():
        return False
    definition = rf"^\s*(def|class) {re.escape(name)}\b|^\s*{re.escape(name)}\s*[:=]"
    return re.search(definition, source.read_text(encoding="utf-8"), re.MULTILINE) is not None


def _exists(word: str) -> bool:
    """A file or folder of ours, a module, or a name in a module (`domain/jsontext.dumps`,
    `benchmarks.window.main`); a file's name alone when one of ours has it."""
    if "/" not in word and word.endswith(".py"):
        return any(next((ROOT / top).rglob(word), None) for top in TOP if (ROOT / top).is_dir())
    if "/" not in word:  # desktop_app.ui.tasks, benchmarks.window
        word = word.replace(".", "/")
    for base in (ROOT, ROOT / "desktop_app"):
        target = base / word.rstrip("/")
        if target.exists() or (not target.suffix and target.with_suffix(".py").exists()):
            return True
        module, _, name = word.rpartition(".")  # `domain/jsontext.dumps`
        if name and _defines(base / f"{module}.py", name):
            return True
        folder, _, name = word.rpartition("/")  # `benchmarks/window/main`, once dotted
        if folder and _defines((base / folder).with_suffix(".py"), name):
            return True
    return False


def _gander_options() -> dict[str, set[str]]:
    """Each subcommand's options with the global ones ("" is `gander` alone)."""
    parser = build_parser()
    common = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    options = {"": common}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                own = {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
                options[name] = common | own
    return options


def _benchmark_options(name: str) -> set[str]:
    path = ROOT / "benchmarks" / f"{name}.py"
    if not path.is_file():
        return set()
    return set(re.findall(r"[\"'](--[a-z][a-z0-9-]*)[\"']", path.read_text(encoding="utf-8")))


def _wrong_options(span: str) -> list[str]:
    """The options in `span` that the command they follow does not have. An option belongs to
    the nearest command before it: `gander [SUBCOMMAND]`, `benchmarks.NAME`, or another
    program (whose options are its own business); one after no command must be Gander's, a
    benchmark's or one the docs quote on purpose."""
    gander = _gander_options()
    wrong = []
    owner: tuple[str, str] | None = None
    for word in span.replace("[", " ").replace("]", " ").split():
        if word == "gander":
            owner = ("gander", "")
        elif owner is not None and owner == ("gander", "") and word in gander:
            owner = ("gander", word)
        elif match := re.fullmatch(r"benchmarks\.([a-z_]+)", word):
            owner = ("benchmark", match[1])
        elif word in OTHER_PROGRAMS:
            owner = ("other", word)
        for option in _OPTION.findall(word if word.startswith("--") else ""):
            if owner is None:
                known = set().union(*gander.values()) | set(QUOTED_OPTIONS)
                known |= {
                    o
                    for p in (ROOT / "benchmarks").glob("*.py")
                    for o in _benchmark_options(p.stem)
                }
                ok = option in known
            elif owner[0] == "gander":
                ok = option in gander[owner[1]]
            elif owner[0] == "benchmark":
                ok = option in _benchmark_options(owner[1])
            else:
                ok = True
            if not ok:
                wrong.append(option)
    return wrong


def test_every_module_path_named_in_the_docs_exists() -> None:
    missing = [
        f"{doc}: {path}"
        for doc, word in _named("path")
        if (path := _ours(word)) and not _exists(path)
    ]
    assert not missing, "\n".join(missing)


def test_every_command_line_option_named_in_the_docs_exists() -> None:
    wrong = [
        f"{doc}: {opt} in `{span}`"
        for doc, span in _named("option")
        for opt in _wrong_options(span)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("span", "wrong"),
    [
        ("gander list --json --limit 5", []),
        ("gander list --no-such-option", ["--no-such-option"]),
        ("gander search --all", ["--all"]),  # `--all` is list's
        ("python -m benchmarks.window --huge-only", []),
        ("python -m benchmarks.window --rows", ["--rows"]),  # benchmarks.stress has it
        ("cd DIR && claude --resume ID", []),
        ("--never-was", ["--never-was"]),
    ],
)
def test_an_option_belongs_to_the_command_it_follows(span: str, wrong: list[str]) -> None:
    assert _wrong_options(span) == wrong


@pytest.mark.parametrize(
    ("word", "exists"),
    [
        ("desktop_app/cli.py", True),
        ("ui/tasks.py", True),
        ("domain/jsontext.dumps", True),
        ("benchmarks.window", True),
        ("tasks.py", True),
        ("ui/no_such_module.py", False),
        ("domain/jsontext.no_such_name", False),
        ("desktop_app.no_such_module", False),
    ],
)
def test_a_path_is_checked_where_it_would_be(word: str, exists: bool) -> None:
    path = _ours(word)
    assert path is not None
    assert _exists(path) is exists


def test_other_projects_paths_are_not_ours() -> None:
    for word in (
        "crates/goose/tests/",
        "codex-rs/tui",
        "<data_dir>/sessions/<id>.jsonl",
        "/dev/null",
    ):
        assert _ours(word) is None
