"""One set of design tokens for QSS, QML and pygments, light or dark after the system palette."""

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication


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
        }


LIGHT = Theme(
    dark=False,
    text="#1f2328",
    muted="#656d76",
    accent="#0969da",
    error="#cf222e",
    warning="#9a6700",
    card="#ffffff",
    user_card="#eef5ff",
    tool_card="#f6f8fa",
    border="#d0d7de",
    background="#f6f8fa",
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
)


def system_theme() -> Theme:
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT
