"""Texts agents write in shapes of their own: a Markdown checklist, a patch, a file's lines
with a line-number gutter, a unified diff. Each reading is one pass over the text."""

import re

from desktop_app.domain.actions import PatchHunk, TodoItem

_CHECKBOX = re.compile(r"\s*(?:[-*+]|\d{1,9}[.)])\s+\[([ xX~-])\]\s?(.*)")
_PATCH_FILE = re.compile(r"\*\*\* (?:Add|Update|Delete) File: (.+)")
_DIFF_FILE = re.compile(r"\+\+\+ (?:b/)?(.+)")
_HUNK = re.compile(r"@@ -(\d{1,12})(?:,(\d{1,12}))? \+(\d{1,12})(?:,(\d{1,12}))? @@.*")
_GUTTER = re.compile(r" *(\d{1,12})(?:→|\t)(.*)", re.S)
"""Claude Code's line prefix in a Read result: `     12→` (1.x, 2.0) or `12\t` (2.1)."""
_REMINDER = "\n\n<system-reminder>"
"""Where Claude Code's note to the model begins after a file's lines in a Read result."""


def checklist(text: str) -> tuple[tuple[TodoItem, ...], str | None]:
    """A Markdown checklist's items (`- [ ] …` pending, `- [x] …` completed, `- [~] …` or
    `- [-] …` in progress) and the other lines, whole, as the note around them (goose's
    `todo__write` is free text)."""
    items: list[TodoItem] = []
    others: list[str] = []
    for line in text.splitlines():
        match = _CHECKBOX.fullmatch(line)
        if match is None:
            others.append(line)
            continue
        mark, said = match.groups()
        if mark in "xX":
            items.append(TodoItem(text=said, status="completed"))
        elif mark == " ":
            items.append(TodoItem(text=said, status="pending"))
        else:
            items.append(TodoItem(text=said, status="in_progress"))
    note = "\n".join(others).strip()
    return tuple(items), note or None


def patched_file(patch: str) -> str | None:
    """The one file a patch touches (Codex's `*** Update File: x`, or a unified diff's
    `+++ b/x`); None when it names none or several (each is named inside the patch)."""
    found: set[str] = set()
    for line in patch.splitlines():
        match = _PATCH_FILE.fullmatch(line) or _DIFF_FILE.fullmatch(line)
        if match is not None and match.group(1).strip() != "/dev/null":
            found.add(match.group(1).strip())
            if len(found) > 1:
                return None
    return found.pop() if found else None


def unified_hunks(diff: str) -> tuple[PatchHunk, ...]:
    """The hunks of a unified diff (`@@ -a,b +c,d @@` and the lines after it); file headers
    and anything before the first hunk are not hunk lines."""
    hunks: list[PatchHunk] = []
    header: tuple[int | None, ...] | None = None
    lines: list[str] = []

    def close() -> None:
        if header is not None:
            old_start, old_lines, new_start, new_lines = header
            hunks.append(
                PatchHunk(
                    old_start=old_start,
                    old_lines=old_lines,
                    new_start=new_start,
                    new_lines=new_lines,
                    lines=tuple(lines),
                )
            )

    for line in diff.splitlines():
        match = _HUNK.fullmatch(line)
        if match is not None:
            close()
            a, b, c, d = match.groups()
            header = (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
            lines = []
        elif header is not None and line[:1] in (" ", "-", "+", "\\", ""):
            if line.startswith(("--- ", "+++ ")) and not lines:
                continue
            lines.append(line if line else " ")
    close()
    return tuple(hunks)


def numbered(text: str) -> tuple[str, int] | None:
    """A file's lines as Claude Code's Read gives them to the model, each after its number
    (`     12→` or `12\t`): the lines without the numbers, and the first number. None when a
    line lacks one (it is no such listing). Claude Code's note to the model after the lines
    (`<system-reminder>`) is not the file's."""
    body = text.split(_REMINDER, 1)[0].removesuffix("\n")
    lines: list[str] = []
    first: int | None = None
    for line in body.split("\n"):
        match = _GUTTER.fullmatch(line)
        if match is None:
            return None
        if first is None:
            first = int(match.group(1))
        lines.append(match.group(2))
    return ("\n".join(lines), first) if first is not None else None
