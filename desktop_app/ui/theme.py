"""One set of design tokens for QSS, QML and pygments, light or dark after the system palette."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from desktop_app.rendering.colours import DARK, LIGHT, Theme

__all__ = ["DARK", "LIGHT", "Theme", "palette_for", "resolve_theme"]


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
    for group in (
        QPalette.ColorGroup.Active,
        QPalette.ColorGroup.Inactive,
        QPalette.ColorGroup.Disabled,
    ):
        palette.setColor(group, QPalette.ColorRole.Window, window)
        palette.setColor(group, QPalette.ColorRole.WindowText, text)
        palette.setColor(group, QPalette.ColorRole.Base, base)
        palette.setColor(group, QPalette.ColorRole.AlternateBase, QColor(theme.tool_card))
        palette.setColor(group, QPalette.ColorRole.Text, text)
        palette.setColor(group, QPalette.ColorRole.Button, window)
        palette.setColor(group, QPalette.ColorRole.ButtonText, text)
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor(theme.selection))
        palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        palette.setColor(group, QPalette.ColorRole.Link, QColor(theme.accent))
        palette.setColor(group, QPalette.ColorRole.LinkVisited, QColor(theme.accent))
        palette.setColor(group, QPalette.ColorRole.Light, QColor(theme.tool_card))
        palette.setColor(group, QPalette.ColorRole.Midlight, QColor(theme.border))
        palette.setColor(group, QPalette.ColorRole.Dark, QColor(theme.border))
        palette.setColor(group, QPalette.ColorRole.Shadow, QColor(theme.background))
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
