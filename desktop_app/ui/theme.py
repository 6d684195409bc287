"""One set of design tokens for QSS, QML and pygments, light or dark after the system palette."""

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette


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


def resolve_theme(choice: str = "system") -> Theme:
    """`light`, `dark`, or the system's colour scheme."""
    if choice == "light":
        return LIGHT
    if choice == "dark":
        return DARK
    hints = QGuiApplication.styleHints()
    return DARK if hints.colorScheme() == Qt.ColorScheme.Dark else LIGHT


def palette_for(theme: Theme) -> QPalette:
    """The widget palette from the same tokens the transcript and code colours use."""
    palette = QPalette()
    base = QColor(theme.card)
    window = QColor(theme.background)
    text = QColor(theme.text)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.Window, window)
        palette.setColor(group, QPalette.ColorRole.WindowText, text)
        palette.setColor(group, QPalette.ColorRole.Base, base)
        palette.setColor(group, QPalette.ColorRole.AlternateBase, QColor(theme.tool_card))
        palette.setColor(group, QPalette.ColorRole.Text, text)
        palette.setColor(group, QPalette.ColorRole.Button, window)
        palette.setColor(group, QPalette.ColorRole.ButtonText, text)
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor(theme.accent))
        palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        palette.setColor(group, QPalette.ColorRole.PlaceholderText, QColor(theme.muted))
        palette.setColor(group, QPalette.ColorRole.ToolTipBase, base)
        palette.setColor(group, QPalette.ColorRole.ToolTipText, text)
        palette.setColor(group, QPalette.ColorRole.Mid, QColor(theme.border))
    muted = QColor(theme.muted)
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, muted)
    return palette
