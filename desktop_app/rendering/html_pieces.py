"""A long block's HTML as pieces the window lays out one at a time.

Qt lays out rich text on the GUI thread at about 1.4 million characters a second on this
machine's kind: one TextEdit of the 256,000 characters Show more brings stalled the window
150 ms, where pieces of `PIECE_CHARS` cost 10 to 20 ms each, one per turn of the event loop.

The HTML is the renderers' own (stored text in it is escaped, so every `<` opens a tag and
every `&` an entity). A piece ends between two top-level elements where one is near; inside an
element (a 64 kB paragraph, a long `<pre>`) it ends at a line end or a space, closes the tags
still open, and the next piece opens them again with their own attributes: each piece is
balanced HTML, a block cut in two has no margin at the cut, and the pieces' texts joined are
the block's text (less the line ends they were cut at: each is the break between two)."""

import re

PIECE_CHARS = 16_000
"""The size a piece is cut at, in characters of HTML."""
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
_VOID = frozenset({"br", "hr", "img", "col", "meta", "input"})
_NEAR = 512
"""How far back from the size a piece may end at a line end or a space."""


def split_pieces(html: str, size: int = PIECE_CHARS) -> list[str]:
    """`html` whole when it is not much longer than `size`, else pieces of about `size`
    characters (a piece is longer only by the tags it closes and opens again)."""
    if len(html) <= size + size // 2:
        return [html]
    pieces: list[str] = []
    dropped: list[bool] = []  # whether each piece's cut dropped the line end it was made at
    opened: list[tuple[str, str]] = []  # (name, the opening tag as written), outermost first
    start = 0  # where the piece being gathered starts in `html`
    head = ""  # the tags it opens again
    position = 0  # the end of the last tag seen
    line_end: tuple[int, tuple[tuple[str, str], ...]] | None = None
    """Just after the last line end in the text, and the tags open there: highlighted code
    is short runs of text between tags, and a piece of it ends best at the end of a line."""
    for match in (*_TAG.finditer(html), None):
        end = match.start() if match is not None else len(html)
        if html.find("\n", position, end) >= 0:
            line_end = (html.rfind("\n", position, end) + 1, tuple(opened))
        # The text before this tag, cut wherever the piece has grown to its size.
        while end - start >= (size if match is not None else size + size // 2):
            if line_end is not None and start + size - size // 4 <= line_end[0] <= start + size:
                cut, still_open = line_end
                ends = cut - 1  # the line end itself is the break between the two pieces
            else:
                cut = _text_cut(html, max(start + 1, position), start + size, end)
                still_open = tuple(opened)
                ends = cut
            pieces.append(_ended(head + html[start:ends], still_open) + _closing(still_open))
            dropped.append(ends < cut)
            head, start = "".join(_continued(tag) for _, tag in still_open), cut
        if match is None:
            break
        closing, name = match.group(1) == "/", match.group(2).lower()
        if closing:
            for depth in range(len(opened) - 1, -1, -1):  # a stray closing tag closes nothing
                if opened[depth][0] == name:
                    del opened[depth:]
                    break
        elif name not in _VOID and not match.group(0).endswith("/>"):
            opened.append((name, match.group(0)))
        position = match.end()
        if not opened and position - start >= size - _NEAR:  # between two top-level elements
            pieces.append(head + html[start:position])
            dropped.append(False)
            head, start = "", position
    rest = head + html[start:]
    if pieces and not rest.strip():  # the line end after the last element: no piece of its own
        pieces[-1] += rest
    elif rest or not pieces:
        pieces.append(rest)
        dropped.append(False)
    return _without_blanks(pieces, dropped)


def _without_blanks(pieces: list[str], dropped: list[bool]) -> list[str]:
    """Each piece of white space alone (a run of spaces longer than a piece, cut where no tag
    is open) joined to the piece before it, else after it: no piece is drawn empty. The line
    end a cut between them dropped is put back."""
    kept: list[str] = []
    ends: list[bool] = []
    waiting = ""  # blank pieces before the first that is not
    for piece, cut_at_line_end in zip(pieces, dropped, strict=True):
        if piece.strip() and not waiting:
            kept.append(piece)
            ends.append(cut_at_line_end)
        elif piece.strip():
            kept.append(waiting + piece)
            ends.append(cut_at_line_end)
            waiting = ""
        elif kept:
            kept[-1] += ("\n" if ends[-1] else "") + piece
            ends[-1] = cut_at_line_end
        else:
            waiting += piece + ("\n" if cut_at_line_end else "")
    return kept or [waiting]


def _closing(opened: tuple[tuple[str, str], ...]) -> str:
    return "".join(f"</{name}>" for name, _ in reversed(opened))


_BLOCKS = frozenset({"p", "pre", "div", "blockquote", "ul", "ol", "li", "table"})


def _ended(piece: str, still_open: tuple[tuple[str, str], ...]) -> str:
    """A piece cut inside blocks: the last opening of each has no bottom margin, nor has its
    continuation (`margin-top:0`) a top one — one paragraph or code block, not two."""
    for name, tag in still_open:
        if name not in _BLOCKS:
            continue
        for written in (tag, _continued(tag)):  # as opened, or opened again
            at = piece.rfind(written)
            if at >= 0:
                styled = _with_style(written, "margin-bottom:0")
                piece = piece[:at] + styled + piece[at + len(written) :]
                break
    return piece


_BACKGROUND = re.compile(r"background-color:[^;\"]*;?")


def _continued(tag: str) -> str:
    """A block's opening tag as a piece after a cut opens it again: no top margin, and no
    background (Qt paints a block's background behind its first line only: each piece's first
    line would be a stripe)."""
    return _with_style(_BACKGROUND.sub("", tag) if tag.startswith("<pre") else tag, "margin-top:0")


def _with_style(tag: str, rule: str) -> str:
    """An opening tag with `rule` first in its style (a block's; others as they are)."""
    name = tag[1:].split(None, 1)[0].rstrip(">/").lower()
    if name not in _BLOCKS:
        return tag
    if ' style="' in tag:
        return tag.replace(' style="', f' style="{rule};', 1)
    return f'{tag[:-1].rstrip("/").rstrip()} style="{rule}">'


def _text_cut(html: str, lowest: int, wanted: int, end: int) -> int:
    """Where in the text `html[lowest:end]` (no tag in it) a piece ends: after the last line
    end or space before `wanted` (at most `_NEAR` back), else at `wanted` — never inside an
    entity, and never before `lowest`, so that each cut moves on."""
    wanted = min(max(wanted, lowest), end)
    for mark in ("\n", " "):
        found = html.rfind(mark, max(lowest, wanted - _NEAR), wanted)
        if found >= 0:
            return found + 1
    entity = html.rfind("&", max(lowest, wanted - 12), wanted)
    if entity >= 0 and html.find(";", entity, wanted) < 0:
        return entity if entity > lowest else html.find(";", entity, end) + 1 or end
    return wanted
