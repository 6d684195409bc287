"""Edits as unified diffs: an old and a new text compared, a structured patch's hunks, a unified
diff or a Codex `apply_patch` patch read into files and lines — each bounded, whatever its size.

difflib compares lines in time that grows with the product of both sides' lengths, so two texts
are compared only while both are small (`DIFF_CHARS`, `DIFF_CELLS`); larger ones are shown as
their removed and added lines, without a comparison. However long a text or patch, only the
first `MAX_LINES` lines (and `limit` characters) are kept to be shown; the rest are counted."""

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Literal

from desktop_app.domain.actions import PatchHunk
from desktop_app.rendering.markdown_html import show_controls

CONTEXT = 3
"""Unchanged lines kept around each change; longer runs of them are folded."""
DIFF_CHARS = 100_000
"""Characters of old and new text together below which they are compared line by line."""
DIFF_CELLS = 4_000_000
"""The most pairs of lines (old × new) difflib may have to look at."""
MAX_LINES = 2_000
"""Lines of a diff shown at most: the window lays out each as a table row."""

Sign = Literal[" ", "-", "+", "@", "⋯"]
"""Context, removed, added, a hunk header (`text` is its header) and folded context (`text`
says how many lines)."""


@dataclass(frozen=True, slots=True)
class DiffLine:
    sign: Sign
    text: str
    old: int | None = None
    new: int | None = None


@dataclass(slots=True)
class FileDiff:
    """One file's changes: its lines as shown, the counts of every removed and added line (also
    of those not kept), and what a reader should know of how it is shown."""

    path: str | None
    operation: str = "update"
    """`update`, `add`, `delete` (an `apply_patch` section), or `move` (with `moved_to`)."""
    moved_to: str | None = None
    lines: list[DiffLine] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    hidden: int = 0
    """Lines not kept (past `MAX_LINES` or the character limit)."""
    compared: bool = True
    """False when old and new were too large to compare: all old lines removed, all new added."""
    _room: int = 0

    def keep(self, line: DiffLine) -> None:
        """Count `line` and keep it while there is room."""
        if line.sign == "+":
            self.added += 1
        elif line.sign == "-":
            self.removed += 1
        if len(self.lines) < MAX_LINES and self._room > 0:
            self.lines.append(line)
            self._room -= len(line.text) + 1
        elif line.sign != "⋯":
            self.hidden += 1


def _lines(text: str, limit: int) -> Iterator[str]:
    """The lines of `text`'s first `limit` characters, without slicing a 20 MB text into lines."""
    head = text[:limit]
    yield from head.splitlines()


def line_total(text: str) -> int:
    """Lines of a text, a last line end ending the last line rather than starting another."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def compare(
    old: str, new: str, *, path: str | None, limit: int, first_line: int | None = None
) -> FileDiff:
    """`old` → `new` as a unified diff with `CONTEXT` lines around changes; line numbers from
    `first_line` when the position in the file is known."""
    diff = FileDiff(path=path, _room=limit)
    small = len(old) + len(new) <= DIFF_CHARS
    if small:
        a, b = old.splitlines(), new.splitlines()
        small = len(a) * len(b) <= DIFF_CELLS
    if not small:
        diff.compared = False
        for sign, text in (("-", old), ("+", new)):
            kept = 0
            for line in _lines(text, limit):
                diff.keep(DiffLine(sign, line))  # type: ignore[arg-type]
                kept += 1
            extra = line_total(text) - kept
            if extra > 0:
                diff.hidden += extra
                if sign == "-":
                    diff.removed += extra
                else:
                    diff.added += extra
        return diff
    base = first_line if first_line is not None else None
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    done_old = 0
    for group in matcher.get_grouped_opcodes(CONTEXT):
        skipped = group[0][1] - done_old
        if skipped > 0:
            diff.keep(DiffLine("⋯", f"{skipped} unchanged line{'s' if skipped != 1 else ''}"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for offset in range(i2 - i1):
                    diff.keep(_numbered(" ", a[i1 + offset], base, i1 + offset, j1 + offset))
                continue
            for index in range(i1, i2):
                diff.keep(_numbered("-", a[index], base, index, None))
            for index in range(j1, j2):
                diff.keep(_numbered("+", b[index], base, None, index))
        done_old = group[-1][2]
    if a and done_old < len(a) and (diff.added or diff.removed):
        rest = len(a) - done_old
        diff.keep(DiffLine("⋯", f"{rest} unchanged line{'s' if rest != 1 else ''}"))
    return diff


def _numbered(
    sign: Sign, text: str, base: int | None, old: int | None, new: int | None
) -> DiffLine:
    if base is None:
        return DiffLine(sign, text)
    return DiffLine(
        sign,
        text,
        old=None if old is None else base + old,
        new=None if new is None else base + new,
    )


def from_hunks(hunks: Sequence[PatchHunk], *, path: str | None, limit: int) -> FileDiff:
    """A structured patch (Claude Code's `structuredPatch`) with the file's line numbers."""
    diff = FileDiff(path=path, _room=limit)
    for hunk in hunks:
        _hunk_lines(diff, hunk)
    return diff


def _hunk_lines(diff: FileDiff, hunk: PatchHunk) -> None:
    old_no, new_no = hunk.old_start, hunk.new_start
    if old_no is not None and new_no is not None:
        head = f"@@ -{old_no},{hunk.old_lines or 0} +{new_no},{hunk.new_lines or 0} @@"
        diff.keep(DiffLine("@", head))
    for line in hunk.lines:
        sign, text = (line[:1], line[1:]) if line[:1] in ("-", "+", " ") else (" ", line)
        if sign == "-":
            diff.keep(DiffLine("-", text, old=old_no))
            old_no = _next(old_no)
        elif sign == "+":
            diff.keep(DiffLine("+", text, new=new_no))
            new_no = _next(new_no)
        else:
            diff.keep(DiffLine(" ", text, old=old_no, new=new_no))
            old_no, new_no = _next(old_no), _next(new_no)


_APPLY_HEADERS = (
    ("*** Add File: ", "add"),
    ("*** Delete File: ", "delete"),
    ("*** Update File: ", "update"),
)


def parse_patch(patch: str, *, limit: int) -> list[FileDiff]:
    """The files a patch touches, each with its lines: Codex's `*** Begin Patch` envelope (Add,
    Delete, Update with `*** Move to:` and `@@` hunks) or a unified diff (`--- a/x`, `+++ b/x`,
    `@@ -a,b +c,d @@`, whose counts say where a hunk ends, so a removed `-- comment` line is
    not a file header). Lines outside any file are kept under a file without a path. The patch
    is read line by line and only the first `limit` characters of it are kept."""
    reader = _PatchReader(limit)
    envelope = patch.lstrip()[:20].startswith("*** Begin Patch")
    for raw in _patch_lines(patch):
        line = raw.rstrip("\r")
        if envelope:
            reader.envelope_line(line)
        else:
            reader.unified_line(line)
    return reader.files


class _PatchReader:
    """The state of reading a patch: the file being read, the next line numbers, and (in a
    unified diff) how many old and new lines the current hunk still holds."""

    def __init__(self, limit: int) -> None:
        self.files: list[FileDiff] = []
        self.current: FileDiff | None = None
        self.old_no: int | None = None
        self.new_no: int | None = None
        self.old_left = 0
        self.new_left = 0
        self.room = limit

    def start(self, path: str | None, operation: str) -> FileDiff:
        if self.current is not None:
            self.room = self.current._room
        self.current = FileDiff(path=path, operation=operation, _room=max(self.room, 0))
        self.files.append(self.current)
        self.old_no = self.new_no = None
        return self.current

    def envelope_line(self, line: str) -> None:
        if line in ("*** Begin Patch", "*** End Patch", "*** End of File"):
            return
        header = next((op for prefix, op in _APPLY_HEADERS if line.startswith(prefix)), None)
        if header is not None:
            self.start(line.split(": ", 1)[1].strip(), header)
        elif line.startswith("*** Move to: ") and self.current is not None:
            self.current.operation = "move"
            self.current.moved_to = line.split(": ", 1)[1].strip()
        elif line.startswith("@@"):
            self.body().keep(DiffLine("@", line))
        else:
            self.body_line(line)

    def unified_line(self, line: str) -> None:
        in_hunk = self.old_left > 0 or self.new_left > 0
        if not in_hunk and line.startswith("--- "):
            self.start(_unified_path(line[4:]), "update")
        elif not in_hunk and line.startswith("+++ ") and self.current is not None:
            self.target(_unified_path(line[4:]))
        elif not in_hunk and line.startswith("@@"):
            self.old_no, self.new_no, self.old_left, self.new_left = _hunk_starts(line)
            self.body().keep(DiffLine("@", line))
        elif not in_hunk and line.startswith(("diff --git", "index ", "new file", "deleted file")):
            return
        else:
            sign = line[:1]
            if sign in ("-", " ", ""):
                self.old_left -= 1
            if sign in ("+", " ", ""):
                self.new_left -= 1
            self.body_line(line)

    def target(self, path: str | None) -> None:
        current = self.current
        assert current is not None
        if path is None:
            current.operation = "delete"
        else:
            if current.path is None:
                current.operation = "add"
            current.path = path

    def body(self) -> FileDiff:
        return self.current if self.current is not None else self.start(None, "update")

    def body_line(self, line: str) -> None:
        diff, sign = self.body(), line[:1]
        if sign == "\\":  # "\\ No newline at end of file"
            diff.keep(DiffLine("⋯", line[1:].strip()))
        elif sign == "-":
            diff.keep(DiffLine("-", line[1:], old=self.old_no))
            self.old_no = _next(self.old_no)
        elif sign == "+":
            diff.keep(DiffLine("+", line[1:], new=self.new_no))
            self.new_no = _next(self.new_no)
        else:
            diff.keep(DiffLine(" ", line[1:] if sign == " " else line, self.old_no, self.new_no))
            self.old_no, self.new_no = _next(self.old_no), _next(self.new_no)


def _next(number: int | None) -> int | None:
    return None if number is None else number + 1


def _patch_lines(patch: str) -> Iterator[str]:
    """The patch's lines, found one at a time (a 20 MB patch is never split whole)."""
    start = 0
    while start < len(patch):
        end = patch.find("\n", start)
        if end < 0:
            end = len(patch)
        yield patch[start:end]
        start = end + 1


def _unified_path(name: str) -> str | None:
    """`a/src/x.py` → `src/x.py`; `/dev/null` (a file added or deleted) → None."""
    name = name.split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _hunk_starts(header: str) -> tuple[int | None, int | None, int, int]:
    """The first old and new line of `@@ -12,3 +12,4 @@` and how many of each the hunk holds
    (a count left out is 1, as in diff's own format); None and 0 for a header that is not one."""
    parts = header.split()
    if len(parts) < 3 or not parts[1].startswith("-") or not parts[2].startswith("+"):
        return None, None, 0, 0
    try:
        old = [int(n) for n in parts[1][1:].split(",", 1)]
        new = [int(n) for n in parts[2][1:].split(",", 1)]
    except ValueError:
        return None, None, 0, 0
    old_count = old[1] if len(old) > 1 else 1
    new_count = new[1] if len(new) > 1 else 1
    return old[0], new[0], old_count, new_count


# --- shown ------------------------------------------------------------------------------------

LIGHT_ROWS = {"-": "#ffebe9", "+": "#dafbe1", "@": "#ddf4ff", "⋯": "#f6f8fa", " ": ""}
DARK_ROWS = {"-": "#4a1c21", "+": "#173a24", "@": "#1a2c44", "⋯": "#1c2128", " ": ""}
"""Row backgrounds of removed, added, header and folded lines; each theme's text colour reads
on them at WCAG AA (tests/unit/test_tool_cards.py checks it). The HTML export names rows by
class too, so its dark style can repaint them."""
DIGIT_WIDTH = 9
SIGN_WIDTH = 14
"""Pixels of a line number's digit and of the sign column: Qt shares a table's width among
its columns unless each says its own, and the text would start mid-card."""
ROW_CLASSES = {"-": "del", "+": "add", "@": "hunk", "⋯": "fold", " ": "ctx"}
_CONTROLS = str.maketrans(
    {code: chr(0x2400 + code) for code in range(0x20) if code != 9}
    | {0x7F: "\u2421"}
    | {code: f"\\x{code:02x}" for code in range(0x80, 0xA0)}
)


def visible(text: str) -> str:
    """A line as it may be shown: control characters (NUL, ESC, form feeds of a binary file)
    as their pictures, never as boxes or a terminal's commands."""
    return show_controls(text.translate(_CONTROLS))


def diff_counts(diff: FileDiff) -> str:
    return f"+{diff.added} −{diff.removed}"


def diff_html(diff: FileDiff, *, dark: bool) -> str:
    """A table of the diff's lines: old and new line numbers (where known), the sign, the text
    wrapped at the card's edge; removed and added rows coloured."""
    colours = DARK_ROWS if dark else LIGHT_ROWS
    numbered = any(line.old is not None or line.new is not None for line in diff.lines)
    largest = max(
        (n for line in diff.lines for n in (line.old, line.new) if n is not None), default=0
    )
    number_width = DIGIT_WIDTH * max(len(str(largest)), 2) + 8
    rows = []
    for line in diff.lines:
        colour = colours[line.sign]
        paint = f' bgcolor="{colour}"' if colour else ""
        numbers = (
            f'<td align="right" width="{number_width}">{"" if line.old is None else line.old}</td>'
            f'<td align="right" width="{number_width}">{"" if line.new is None else line.new}</td>'
            if numbered
            else ""
        )
        if line.sign in ("@", "⋯"):
            text = f"<i>{escape(visible(line.text))}</i>"
            sign = ""
        else:
            text, sign = escape(visible(line.text)), escape(line.sign)
        rows.append(
            f'<tr class="{ROW_CLASSES[line.sign]}"{paint}>{numbers}<td width="{SIGN_WIDTH}">'
            f'{sign}</td><td width="100%" style="white-space:pre-wrap;font-family:monospace">'
            f"{text}</td></tr>"
        )
    table = (
        '<table class="diff" width="100%" cellspacing="0" cellpadding="1" '
        f'style="font-family:monospace">{"".join(rows)}</table>'
    )
    notes = []
    if not diff.compared:
        notes.append("too large to compare: every old line is shown removed, every new one added")
    if diff.hidden:
        notes.append(f"{diff.hidden} more line{'s' if diff.hidden != 1 else ''} not shown")
    note = f"<p><i>{escape('; '.join(notes).capitalize())}.</i></p>" if notes else ""
    return table + note


def diff_text(diff: FileDiff) -> str:
    """The diff as unified-diff lines, for a ```diff fence (folded context as a `@@` line)."""
    out = []
    for line in diff.lines:
        if line.sign == "⋯":
            out.append(f"@@ ⋯ {line.text} @@")
        elif line.sign == "@":
            out.append(line.text)
        else:
            out.append(f"{line.sign}{line.text}")
    if not diff.compared:
        out.insert(0, "@@ too large to compare: old lines removed, new lines added @@")
    if diff.hidden:
        out.append(f"@@ … {diff.hidden} more lines not shown @@")
    return "\n".join(out)
