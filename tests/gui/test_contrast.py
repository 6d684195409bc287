"""Every text and control meets WCAG AA contrast (4.5:1) in both themes, computed from the
theme tokens and the widget palette built from them (#10 item 9: links and the "limit unknown"
meter were unreadable in the dark theme)."""

import pytest
from PySide6.QtGui import QColor, QPalette

from desktop_app.rendering.markdown_html import code_style
from desktop_app.ui.theme import DARK, LIGHT, Theme, palette_for

AA = 4.5


def _luminance(color: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.redF())
        + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF())
    )


def contrast(one: QColor | str, other: QColor | str) -> float:
    light, dark = sorted((_luminance(QColor(one)), _luminance(QColor(other))), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_theme_tokens(theme: Theme) -> None:
    failures = [
        (fg, bg, round(contrast(getattr(theme, fg), getattr(theme, bg)), 2))
        for fg in ("text", "muted", "accent", "error", "warning")
        for bg in ("card", "user_card", "tool_card", "background")
        if contrast(getattr(theme, fg), getattr(theme, bg)) < AA
    ]
    assert not failures
    assert contrast("#ffffff", theme.selection) >= AA


ROLE_PAIRS = [
    (QPalette.ColorRole.Text, QPalette.ColorRole.Base),
    (QPalette.ColorRole.WindowText, QPalette.ColorRole.Window),
    (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Button),
    (QPalette.ColorRole.HighlightedText, QPalette.ColorRole.Highlight),
    (QPalette.ColorRole.Link, QPalette.ColorRole.Base),
    (QPalette.ColorRole.Link, QPalette.ColorRole.Window),
    (QPalette.ColorRole.PlaceholderText, QPalette.ColorRole.Base),
    (QPalette.ColorRole.ToolTipText, QPalette.ColorRole.ToolTipBase),
    (QPalette.ColorRole.Text, QPalette.ColorRole.AlternateBase),
]


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_widget_palette(theme: Theme, qapp: object) -> None:
    del qapp
    palette = palette_for(theme)
    failures = []
    for group in (
        QPalette.ColorGroup.Active,
        QPalette.ColorGroup.Inactive,
        QPalette.ColorGroup.Disabled,
    ):
        for fg, bg in ROLE_PAIRS:
            ratio = contrast(palette.color(group, fg), palette.color(group, bg))
            if ratio < AA:
                failures.append((group.name, fg.name, bg.name, round(ratio, 2)))
    assert not failures


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_code_colours(theme: Theme) -> None:
    failures = []
    for token, rule in code_style(theme.dark).styles.items():
        colours = [part for part in rule.split() if part.startswith("#")]  # not bg:/border:
        for colour in colours[:1]:
            for background in (theme.card, theme.tool_card, theme.user_card):
                if contrast(colour, background) < AA:
                    failures.append((str(token), colour, background))
    assert not failures
