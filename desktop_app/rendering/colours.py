"""The colour tokens of both themes, plain data shared by the widgets, the QML transcript, the
rendered HTML and the code colours (which are made to meet WCAG AA on these backgrounds)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    dark: bool
    text: str
    muted: str
    accent: str
    error: str
    warning: str
    card: str
    user_card: str
    tool_card: str
    border: str
    background: str
    selection: str
    """Selected rows; white text on it meets WCAG AA (4.5:1)."""

    def for_qml(self) -> dict[str, object]:
        return {
            "dark": self.dark,
            "text": self.text,
            "muted": self.muted,
            "accent": self.accent,
            "error": self.error,
            "warning": self.warning,
            "card": self.card,
            "userCard": self.user_card,
            "toolCard": self.tool_card,
            "border": self.border,
            "background": self.background,
            "selection": self.selection,
        }


LIGHT = Theme(
    dark=False,
    text="#1f2328",
    muted="#656d76",
    accent="#0969da",
    error="#cf222e",
    warning="#8a5c00",
    card="#ffffff",
    user_card="#eef5ff",
    tool_card="#f6f8fa",
    border="#d0d7de",
    background="#f6f8fa",
    selection="#0969da",
)
DARK = Theme(
    dark=True,
    text="#e6edf3",
    muted="#8d96a0",
    accent="#4493f8",
    error="#f85149",
    warning="#d29922",
    card="#161b22",
    user_card="#12263f",
    tool_card="#1c2128",
    border="#30363d",
    background="#0d1117",
    selection="#1f6feb",
)


AA_CONTRAST = 4.5


def _channel(value: int) -> float:
    level = value / 255
    return level / 12.92 if level <= 0.03928 else ((level + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG relative luminance of `#rrggbb` (or `#rgb`)."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    red, green, blue = (int(digits[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(red) + 0.7152 * _channel(green) + 0.0722 * _channel(blue)


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def readable(colour: str, backgrounds: tuple[str, ...], *, dark: bool) -> str:
    """`colour`, moved towards white (on dark backgrounds) or black (on light ones) just until it
    meets AA on every background: its hue is kept, so code still reads as highlighted."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    rgb = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    target = 255 if dark else 0
    for step in range(21):
        share = step / 20
        mixed = [round(c + (target - c) * share) for c in rgb]
        candidate = "#{:02x}{:02x}{:02x}".format(*mixed)
        if all(contrast(candidate, background) >= AA_CONTRAST for background in backgrounds):
            return candidate
    return "#ffffff" if dark else "#000000"


def code_backgrounds(theme: Theme) -> tuple[str, ...]:
    """Where code is shown: on every kind of card."""
    return (theme.card, theme.user_card, theme.tool_card)
