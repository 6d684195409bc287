"""Terminal output as it looked (issue #19, items 3, 7 and 11): SGR colours and styles become
spans, every other escape and control character is removed, never shown as a box, and the cost
stays linear whatever the output (counted, never timed)."""

import re
import tracemalloc
import unicodedata
from html import unescape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.rendering import ansi
from desktop_app.rendering.ansi import MAX_GROWTH, ansi_to_html, strip_ansi
from desktop_app.rendering.colours import (
    AA_CONTRAST,
    DARK,
    LIGHT,
    code_backgrounds,
    contrast,
    readable,
)
from desktop_app.rendering.markdown_html import show_controls

_TAGS = re.compile(r"<[^>]*>")
ESC = "\x1b"


def visible(html: str) -> str:
    """The text a reader sees in the HTML."""
    return unescape(_TAGS.sub("", html))


def controls(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"]


def test_colours_and_styles_become_spans() -> None:
    html = ansi_to_html(f"{ESC}[1;31mFAIL{ESC}[0m tests/a.py {ESC}[3;4mnote{ESC}[m", dark=False)
    assert visible(html) == "FAIL tests/a.py note"
    assert re.search(r'<span style="color:#[0-9a-f]{6};font-weight:bold">FAIL</span>', html)
    assert '<span style="font-style:italic;text-decoration:underline">note</span>' in html


@pytest.mark.parametrize(
    ("sequence", "colour"),
    [
        ("38;5;196", "#ff0000"),  # 256 colours: the cube's red
        ("38;5;244", "#808080"),  # 256 colours: a grey
        ("38;2;10;200;30", "#0ac81e"),  # truecolor
        ("38:2::10:200:30", "#0ac81e"),  # truecolor, ITU colon form with its colour space
        ("38:5:196", "#ff0000"),
    ],
)
def test_256_and_truecolor_keep_their_hue(sequence: str, colour: str) -> None:
    """The program's colour, only moved towards white until it reads on the dark cards."""
    html = ansi_to_html(f"{ESC}[{sequence}mx", dark=True)
    assert f"color:{readable(colour, code_backgrounds(DARK), dark=True)}" in html


@pytest.mark.parametrize("dark", [False, True])
def test_every_basic_colour_is_readable_on_the_cards(dark: bool) -> None:
    theme = DARK if dark else LIGHT
    for code in [*range(30, 38), *range(90, 98)]:
        html = ansi_to_html(f"{ESC}[{code}mx", dark=dark)
        colour = re.search(r"color:(#[0-9a-f]{6})", html)
        assert colour is not None
        for background in code_backgrounds(theme):
            assert contrast(colour.group(1), background) >= AA_CONTRAST, (code, background)


def test_background_colours_keep_text_readable_on_them() -> None:
    html = ansi_to_html(f"{ESC}[30;42m PASS {ESC}[0m", dark=True)
    found = re.search(r"background-color:(#[0-9a-f]{6});color:(#[0-9a-f]{6})", html)
    assert found is not None
    assert contrast(found.group(1), found.group(2)) >= AA_CONTRAST


def test_other_escapes_are_removed_and_their_text_kept() -> None:
    text = (
        f"{ESC}]0;window title{ESC}\\"  # OSC title, ST-terminated
        f"{ESC}]8;;https://example.com{ESC}\\link{ESC}]8;;{ESC}\\ "  # OSC 8 hyperlink
        f"{ESC}[2K{ESC}[1G{ESC}[?25l{ESC}[?2004h"  # erase, cursor, private modes
        f"{ESC}(B{ESC}7{ESC}8{ESC}=done"  # charset, save/restore, keypad
        f"\x9b31m8-bit\x07\x08\x00\r\n"  # 8-bit CSI (SGR: coloured), BEL, BS, NUL, CR
        f"\ttab{ESC}"  # tab kept, a lone ESC at the end
    )
    assert strip_ansi(text) == "link done8-bit\n\ttab"
    assert visible(ansi_to_html(text, dark=False)) == "link done8-bit\n\ttab"


def test_an_unterminated_osc_ends_at_the_line_end() -> None:
    """A title never terminated would, in a terminal, swallow what follows; here the rest of
    the output after its line stays shown."""
    assert strip_ansi(f"{ESC}]0;title\nnext line") == "\nnext line"


def test_a_cut_off_sequence_is_removed() -> None:
    assert strip_ansi(f"ok{ESC}[38;5") == "ok"


def test_bidirectional_overrides_are_made_visible() -> None:
    assert visible(ansi_to_html(f"{ESC}[31mexe.\u202etxt", dark=False)) == "exe.⟦U+202E⟧txt"


def test_html_is_escaped() -> None:
    html = ansi_to_html(f"{ESC}[31m<script>&amp;{ESC}[0m", dark=False)
    assert "<script>" not in html
    assert visible(html) == "<script>&amp;"


def test_a_span_is_opened_only_before_text_and_only_when_the_style_changes() -> None:
    html = ansi_to_html(f"{ESC}[31m{ESC}[32m{ESC}[1m{ESC}[22mA{ESC}[32mB{ESC}[0m", dark=False)
    assert html.count("<span") == 1
    assert visible(html) == "AB"
    assert ansi_to_html(f"plain{ESC}[0m{ESC}[m", dark=False) == "plain"


def test_a_parameter_of_thousands_of_digits_is_ignored() -> None:
    """`int()` of a 5,000-digit string raises in Python 3.11; such a code changes nothing."""
    text = f"{ESC}[{'9' * 5000}mx{ESC}[38;5;{'1' * 5000}my"
    assert ansi_to_html(text, dark=False) == "xy"


_PIECES = st.sampled_from(
    [
        ESC,
        "[",
        "]",
        ";",
        ":",
        "m",
        "38",
        "48",
        "5",
        "2",
        "255",
        "\x07",
        "\\",
        "\x9b",
        "\x9c",
        "\x9d",
        "?",
        "<",
        "&",
        "\n",
        "\r",
        "\x00",
        "\x7f",
        "\x85",
        "x",
    ]
)
_TERMINAL_TEXT = st.one_of(
    st.text(), st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=60).map("".join)
)


@given(text=_TERMINAL_TEXT, dark=st.booleans())
def test_never_emits_a_control_character(text: str, dark: bool) -> None:
    html = ansi_to_html(text, dark=dark)
    assert controls(html) == []
    assert controls(visible(html)) == []
    assert controls(strip_ansi(text)) == []


@given(text=_TERMINAL_TEXT, dark=st.booleans())
def test_the_text_shown_is_the_text_without_its_escapes(text: str, dark: bool) -> None:
    html = ansi_to_html(text, dark=dark)
    assert visible(html) == show_controls(strip_ansi(text))
    assert len(html) <= MAX_GROWTH * len(text) + len("</span>")


BOMBS = {
    "200,000 parameters": f"{ESC}[" + "1;" * 200_000 + "m",
    "a style change before every character": f"{ESC}[31mX{ESC}[7mX{ESC}[27m" * 20_000,
    "colours cut off, again and again": f"{ESC}[38;2" * 200_000,
    "200,000 lone escapes": ESC * 200_000,
    "an unterminated title": f"{ESC}]" + "x" * 1_000_000,
    "a huge number": f"{ESC}[{'9' * 1_000_000}m",
}


@pytest.mark.parametrize("bomb", BOMBS.values(), ids=BOMBS.keys())
def test_an_ansi_bomb_stays_within_bounds(bomb: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Work is counted: each SGR field is read once (never more numbers than characters), the
    HTML stays within `MAX_GROWTH` of the text and the memory used within a fixed multiple."""
    read = 0
    number = ansi._number

    def counted(field: str) -> int | None:
        nonlocal read
        read += 1
        return number(field)

    monkeypatch.setattr(ansi, "_number", counted)
    tracemalloc.start()
    try:
        html = ansi_to_html(bomb, dark=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read <= len(bomb)
    assert len(html) <= MAX_GROWTH * len(bomb) + len("</span>")
    assert peak <= 64 * len(bomb) + 10_000_000
    assert controls(html) == []
