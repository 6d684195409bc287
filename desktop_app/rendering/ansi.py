"""Terminal output as it looked in the terminal: SGR colours and styles become HTML spans, every
other escape sequence and control character is removed.

Commands an agent runs (`npm test`, `pytest --color=yes`, Claude Code's `/compact` and `/cost`)
record their output with ANSI escapes. Shown raw they are boxes and `[31m` noise; dropped with the
text they wrap, output would be lost. So the text is kept, and only these are read:

- SGR (`ESC [ … m`): reset, bold, italic, underline, strikethrough, reverse, the 8 and 8 bright
  colours, 256 colours (`38;5;n`) and truecolor (`38;2;r;g;b`, also in the `38:2::r:g:b` colon
  form), foreground and background. Dim, blink and conceal are ignored (the text stays shown:
  hiding it would hide output).
- Everything else is removed, never shown: other CSI sequences (cursor moves, erasing, private
  modes), OSC (titles; OSC 8 hyperlinks keep their text, not their target), DCS/SOS/PM/APC
  strings, two-character escapes, a lone ESC, the 8-bit C1 forms, and every C0 control other than
  newline and tab (carriage returns and backspaces included: output is shown as its text, not
  replayed as a terminal would).

Colours are the program's own, moved just enough to be readable (WCAG AA) on the block's
background (`colours.readable`), so red stays red in both themes. The cost is linear in the text
(one regular-expression pass that never backtracks, each SGR parameter looked at once, numbers of
more than `MAX_DIGITS` digits ignored), and the HTML is at most `MAX_GROWTH` times the text's
length: a span is opened only before text, and only when the style differs from the last one.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from desktop_app.rendering.colours import DARK, LIGHT, code_backgrounds, luminance, readable
from desktop_app.rendering.markdown_html import show_controls

MAX_DIGITS = 9
"""A parameter longer than this is no colour or style (and `int()` of a 5,000-digit string
raises)."""
MAX_GROWTH = 64
"""The HTML is never longer than this many times the text (plus a closing tag)."""

_ESCAPES = re.compile(
    # CSI: ESC [ (or 8-bit CSI), parameters, intermediates, a final byte (absent when cut off).
    r"(?:\x1b\[|\x9b)([0-?]*)([ -/]*)([@-~]?)"
    # OSC, DCS, SOS, PM, APC: a string up to BEL or ST (or the line's end, when unterminated).
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    # Any other escape: ESC, intermediates, a final byte.
    r"|\x1b[ -/]*[0-~]?"
    # The remaining controls, C0 (but newline and tab), DEL and C1.
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)

_BASIC = (
    "#000000",
    "#cd3131",
    "#0dbc79",
    "#e5e510",
    "#2472c8",
    "#bc3fbc",
    "#11a8cd",
    "#e5e5e5",
    "#666666",
    "#f14c4c",
    "#23d18b",
    "#f5f543",
    "#3b8eea",
    "#d670d6",
    "#29b8db",
    "#ffffff",
)
"""The 16 colours as VS Code's terminal draws them (what most agent users look at)."""
_CUBE = (0, 95, 135, 175, 215, 255)


def _palette(index: int) -> str:
    """xterm's 256 colours: the 16, a 6×6×6 cube, 24 greys."""
    if index < 16:
        return _BASIC[index]
    if index < 232:
        index -= 16
        red, green, blue = _CUBE[index // 36], _CUBE[index // 6 % 6], _CUBE[index % 6]
        return f"#{red:02x}{green:02x}{blue:02x}"
    grey = 8 + 10 * (index - 232)
    return f"#{grey:02x}{grey:02x}{grey:02x}"


@dataclass(frozen=True, slots=True)
class _Style:
    foreground: str | None = None
    background: str | None = None
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strike: bool = False
    reverse: bool = False


_PLAIN = _Style()


def _number(field: str) -> int | None:
    """A parameter's value: empty is 0 (as terminals read it); too long or not digits, none."""
    if not field:
        return 0
    if len(field) > MAX_DIGITS or not field.isdigit() or not field.isascii():
        return None
    return int(field)


def _extended(fields: list[str], at: int) -> tuple[str | None, int]:
    """The colour of `38`/`48` at `fields[at]` and how many fields it took: `5;n` or `2;r;g;b`
    after it (`;` form), or its own `:`-separated parts (`38:5:n`, `38:2::r:g:b`, `38:2:r:g:b`)."""
    own = fields[at].split(":")
    if len(own) > 1:
        values, taken = own[1:], 1
    else:
        values, taken = fields[at + 1 : at + 5], None
    mode = _number(values[0]) if values else None
    if mode == 5 and len(values) >= 2:
        index = _number(values[1])
        colour = _palette(index) if index is not None and index < 256 else None
        return colour, taken or 3
    if mode == 2:
        channels = values[1:]
        if taken and len(channels) == 4:  # 38:2:colour-space:r:g:b
            channels = channels[1:]
        rgb = [_number(c) for c in channels[:3]]
        known = [c for c in rgb if c is not None and c < 256]
        if len(known) == 3:
            return "#{:02x}{:02x}{:02x}".format(*known), taken or 5
        return None, taken or min(5, len(fields) - at)
    return None, (taken or 2) if mode is not None else 1


_TURNS_ON = {1: "bold", 3: "italic", 4: "underline", 21: "underline", 7: "reverse", 9: "strike"}
_TURNS_OFF = {22: "bold", 23: "italic", 24: "underline", 27: "reverse", 29: "strike"}


def _colour_code(code: int) -> tuple[str, str] | None:
    """Which colour a basic SGR code sets (`foreground` or `background`), and to what."""
    for first, key, offset in ((30, "foreground", 0), (90, "foreground", 8)):
        if first <= code <= first + 7:
            return key, _BASIC[code - first + offset]
    for first, key, offset in ((40, "background", 0), (100, "background", 8)):
        if first <= code <= first + 7:
            return key, _BASIC[code - first + offset]
    return None


def _apply_sgr(style: _Style, parameters: str) -> _Style:
    """`style` after one SGR sequence; codes it does not know change nothing. The fields are
    read into locals and the style built once: a sequence may hold a million of them."""
    colours = {"foreground": style.foreground, "background": style.background}
    flags = {
        "bold": style.bold,
        "italic": style.italic,
        "underline": style.underline,
        "strike": style.strike,
        "reverse": style.reverse,
    }
    fields = parameters.split(";")
    at = 0
    while at < len(fields):
        code = _number(fields[at].split(":", 1)[0])
        if code in (38, 48):
            colour, taken = _extended(fields, at)
            if colour is not None:
                colours["foreground" if code == 38 else "background"] = colour
            at += taken
            continue
        at += 1
        if code == 0:
            colours = dict.fromkeys(colours)
            flags = dict.fromkeys(flags, False)
        elif code in _TURNS_ON:
            flags[_TURNS_ON[code]] = True
        elif code in _TURNS_OFF:
            flags[_TURNS_OFF[code]] = False
        elif code in (39, 49):
            colours["foreground" if code == 39 else "background"] = None
        elif code is not None and (basic := _colour_code(code)) is not None:
            colours[basic[0]] = basic[1]
    return _Style(
        colours["foreground"],
        colours["background"],
        bold=flags["bold"],
        italic=flags["italic"],
        underline=flags["underline"],
        strike=flags["strike"],
        reverse=flags["reverse"],
    )


@lru_cache(maxsize=1024)
def _span(style: _Style, dark: bool) -> str:
    """The opening tag of a style: colours made readable on what they are drawn on."""
    theme = DARK if dark else LIGHT
    foreground, background = style.foreground, style.background
    if style.reverse:
        foreground, background = (
            background or theme.card,
            foreground or theme.text,
        )
    rules = []
    if background is not None:
        on_dark = luminance(background) < 0.18
        rules.append(f"background-color:{background}")
        rules.append(f"color:{readable(foreground or theme.text, (background,), dark=on_dark)}")
    elif foreground is not None:
        rules.append(f"color:{readable(foreground, code_backgrounds(theme), dark=dark)}")
    if style.bold:
        rules.append("font-weight:bold")
    if style.italic:
        rules.append("font-style:italic")
    decorations = [
        name for name, on in (("underline", style.underline), ("line-through", style.strike)) if on
    ]
    if decorations:
        rules.append(f"text-decoration:{' '.join(decorations)}")
    return f'<span style="{";".join(rules)}">'


def ansi_to_html(text: str, *, dark: bool) -> str:
    """`text` as escaped HTML with its SGR styles as `<span style=…>`, bidirectional overrides
    made visible (`show_controls`); newlines and tabs are kept as they are (for a `<pre>` or a
    pre-wrapped block). `dark`: whether the block it is shown in has the dark theme's
    background."""
    out: list[str] = []
    style = _PLAIN
    shown = _PLAIN  # the style of the open span (none open when plain)
    position = 0

    def emit(chunk: str) -> None:
        nonlocal shown
        if style != shown:
            if shown != _PLAIN:
                out.append("</span>")
            if style != _PLAIN:
                out.append(_span(style, dark))
            shown = style
        out.append(escape(show_controls(chunk), quote=False))

    for match in _ESCAPES.finditer(text):
        if match.start() > position:
            emit(text[position : match.start()])
        position = match.end()
        parameters, intermediates, final = match.group(1, 2, 3)
        if final == "m" and not intermediates and not parameters.startswith(("<", "=", ">", "?")):
            style = _apply_sgr(style, parameters)
    if position < len(text):
        emit(text[position:])
    if shown != _PLAIN:
        out.append("</span>")
    return "".join(out)


def strip_ansi(text: str) -> str:
    """`text` without its escape sequences and control characters (newlines and tabs kept)."""
    return _ESCAPES.sub("", text)
