"""Edits as unified diffs: an old and a new text compared, a structured patch's hunks, a unified
diff or a Codex `apply_patch` patch read into files and lines — each bounded, whatever its size.

Two texts are compared by Myers' algorithm (the one `git diff` uses), whose work grows with the
lines times the edits; the work is counted, and two texts that need more than `DIFF_STEPS` steps
or `MAX_EDITS` edits (or hold more than `DIFF_CHARS`) are shown as their removed and added lines,
without a comparison. difflib was not used: its cost is not bounded by the lines' product
(2,000 lines of a few repeated values took 86 s). However long a text or patch, only the first
`MAX_LINES` lines (and `limit` characters) are kept to be shown; the rest are counted."""

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
DIFF_STEPS = 1_000_000
"""Steps (lines compared, diagonals tried) one comparison may take: well under a second."""
MAX_EDITS = 500
"""Removed and added lines past which two texts are not compared (the search keeps a trace of
its frontier for each edit, about `MAX_EDITS`² numbers)."""
MAX_LINES = 2_000
"""Lines of a diff shown at most: the window lays out each as a table row."""
MAX_FILES = 100
"""Files of a patch listed one by one; the rest are counted together."""
PATCH_CHARS = 200_000
"""Characters of a patch read line by line (in Python); of the rest only lines are counted."""

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
    files: int = 1
    """Files this entry stands for: more than one for the `more` entry of a patch's files past
    `MAX_FILES`, none for the part of a patch past `PATCH_CHARS` (`unread`, counted only)."""
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
    found = None
    if len(old) + len(new) <= DIFF_CHARS:
        a, b = old.splitlines(), new.splitlines()
        found = edit_script(a, b, DIFF_STEPS)
    if found is None:
        _uncompared(diff, old, new, limit)
        return diff
    ops, _ = found
    for line in _with_context(ops, a, b, first_line):
        diff.keep(line)
    return diff


def _uncompared(diff: FileDiff, old: str, new: str, limit: int) -> None:
    """Every old line removed and every new one added, the first `limit` characters of each
    kept, the rest counted (a 20 MB text is never split whole)."""
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


Op = tuple[Literal[" ", "-", "+"], int, int]
"""An edit script's step: kept, removed or added, with the old and new line it is at."""


def edit_script(a: Sequence[str], b: Sequence[str], budget: int) -> tuple[list[Op], int] | None:
    """The shortest edit script from `a` to `b` and the steps it took to find (Myers, "An
    O(ND) difference algorithm", after the lines both texts begin and end with), or None when
    it would take more than `budget` steps or `MAX_EDITS` edits. Each change's removed lines
    come before its added ones, as in a unified diff."""
    start, end_a, end_b = 0, len(a), len(b)
    while start < min(end_a, end_b) and a[start] == b[start]:
        start += 1
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    ids: dict[str, int] = {}
    xs = [ids.setdefault(line, len(ids)) for line in a[start:end_a]]
    ys = [ids.setdefault(line, len(ids)) for line in b[start:end_b]]
    steps = len(a) + len(b)
    middle = _middle_script(xs, ys, budget - steps)
    if middle is None:
        return None
    found, taken = middle
    ops: list[Op] = [(" ", i, i) for i in range(start)]
    ops += [(sign, i + start, j + start) for sign, i, j in found]
    ops += [(" ", end_a + n, end_b + n) for n in range(len(a) - end_a)]
    return ops, steps + taken


def _middle_script(xs: list[int], ys: list[int], budget: int) -> tuple[list[Op], int] | None:
    n, m = len(xs), len(ys)
    v = [0] * (2 * (n + m) + 3)  # v[k]: the furthest x on diagonal k (negative k from the end)
    trace: list[list[int]] = []
    steps, last = 0, -1
    for d in range(min(n + m, MAX_EDITS) + 1):
        trace.append([v[k] for k in range(-d - 1, d + 2)])
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y, first = x - k, x
            while x < n and y < m and xs[x] == ys[y]:
                x, y = x + 1, y + 1
            steps += 1 + x - first
            v[k] = x
            if x >= n and y >= m:
                last = d
                break
        if last >= 0:
            break
        if steps > budget:
            return None
    if last < 0:
        return None
    return _ordered(_backtrack(trace, last, n, m)), steps


def _backtrack(trace: list[list[int]], last: int, n: int, m: int) -> list[Op]:
    """The moves of the path found, from the end back, as ops in order."""
    ops: list[Op] = []
    x, y = n, m
    for d in range(last, -1, -1):
        frontier, base = trace[d], d + 1
        k = x - y
        down = k == -d or (k != d and frontier[k - 1 + base] < frontier[k + 1 + base])
        previous_k = k + 1 if down else k - 1
        previous_x = frontier[previous_k + base]
        previous_y = previous_x - previous_k
        while x > previous_x and y > previous_y:
            x, y = x - 1, y - 1
            ops.append((" ", x, y))
        if d > 0:
            ops.append(("+", x, y - 1) if down else ("-", x - 1, y))
        x, y = previous_x, previous_y
    ops.reverse()
    return ops


def _ordered(ops: list[Op]) -> list[Op]:
    """Each run of changes with its removed lines first, then its added ones."""
    out: list[Op] = []
    run: list[Op] = []
    for op in [*ops, (" ", -1, -1)]:
        if op[0] != " ":
            run.append(op)
            continue
        out += [o for o in run if o[0] == "-"] + [o for o in run if o[0] == "+"]
        run = []
        out.append(op)
    return out[:-1]


def _with_context(
    ops: list[Op], a: Sequence[str], b: Sequence[str], first_line: int | None
) -> Iterator[DiffLine]:
    """The script's changes with `CONTEXT` unchanged lines around each, longer runs of
    unchanged lines folded; nothing when nothing changed."""
    changes = [index for index, op in enumerate(ops) if op[0] != " "]
    if not changes:
        return
    shown = [False] * len(ops)
    for index in changes:
        for near in range(max(0, index - CONTEXT), min(len(ops), index + CONTEXT + 1)):
            shown[near] = True
    folded = 0
    for index, (sign, i, j) in enumerate(ops):
        if not shown[index]:
            folded += 1
            continue
        if folded:
            yield DiffLine("⋯", f"{folded} unchanged line{'s' if folded != 1 else ''}")
            folded = 0
        text = b[j] if sign == "+" else a[i]
        yield _numbered(
            sign, text, first_line, None if sign == "+" else i, None if sign == "-" else j
        )
    if folded:
        yield DiffLine("⋯", f"{folded} unchanged line{'s' if folded != 1 else ''}")


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
    cut = patch.rfind("\n", 0, PATCH_CHARS) + 1 if len(patch) > PATCH_CHARS else len(patch)
    for raw in _patch_lines(patch[:cut]):
        line = raw.rstrip("\r")
        if envelope:
            reader.envelope_line(line)
        else:
            reader.unified_line(line)
    if cut < len(patch):
        reader.files.append(_unread(patch, cut))
    return reader.files


def _unread(patch: str, cut: int) -> FileDiff:
    """The rest of a patch past `PATCH_CHARS`, its added and removed lines counted (by `str`'s
    own count, a file header aside) and never split into lines."""
    rest = patch[cut - 1 :]
    added = rest.count("\n+") - rest.count("\n+++ ")
    removed = rest.count("\n-") - rest.count("\n--- ")
    return FileDiff(
        path=None,
        operation="unread",
        added=added,
        removed=removed,
        hidden=rest.count("\n"),
        files=0,
    )


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
        """A new file's entry; past `MAX_FILES`, one entry counts the rest, none of it kept."""
        self.old_no = self.new_no = None
        if len(self.files) >= MAX_FILES:
            if self.files[-1].operation != "more":
                self.files.append(FileDiff(path=None, operation="more", files=0))
            self.current = self.files[-1]
            self.current.files += 1
            return self.current
        if self.current is not None:
            self.room = self.current._room
        self.current = FileDiff(path=path, operation=operation, _room=max(self.room, 0))
        self.files.append(self.current)
        return self.current

    def envelope_line(self, line: str) -> None:
        if line in ("*** Begin Patch", "*** End Patch", "*** End of File"):
            return
        header = next((op for prefix, op in _APPLY_HEADERS if line.startswith(prefix)), None)
        if header is not None:
            self.start(line.split(": ", 1)[1].strip(), header)
        elif line.startswith("*** Move to: "):
            current = self.current
            if current is not None and current is not self.rest():
                current.operation = "move"
                current.moved_to = line.split(": ", 1)[1].strip()
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

    def rest(self) -> FileDiff | None:
        """The entry counting the files past `MAX_FILES`, once there is one."""
        last = self.files[-1] if self.files else None
        return last if last is not None and last.operation == "more" else None

    def target(self, path: str | None) -> None:
        current = self.current
        assert current is not None
        if current is self.rest():
            return
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
