"""View ▸ Conversation only, Hide tool calls, Hide reasoning, Group tool calls: checkable
actions that shape the transcript (`rendering.shaping`, `rendering.tool_groups`), remembered
in the settings."""

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from desktop_app.rendering.shaping import Shaping
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.settings import Settings


class ShapingActions(QObject):
    def __init__(self, model: TranscriptModel, settings: Settings, parent: QObject) -> None:
        super().__init__(parent)
        self._model = model
        self._settings = settings
        self.conversation_only = self._action(
            "&Conversation only", "Ctrl+Shift+O", settings.conversation_only
        )
        self.hide_tools = self._action("Hide &tool calls", "Ctrl+Shift+T", settings.hide_tools)
        self.hide_reasoning = self._action(
            "Hide &reasoning", "Ctrl+Shift+R", settings.hide_reasoning
        )
        self.group_tools = self._action("&Group tool calls", "Ctrl+Shift+G", settings.group_tools)
        self._apply()

    def _action(self, text: str, keys: str, checked: bool) -> QAction:
        action = QAction(text, self.parent(), checkable=True)
        action.setShortcut(QKeySequence(keys))
        action.setChecked(checked)
        action.toggled.connect(self._toggled)
        return action

    def actions(self) -> list[QAction]:
        return [self.conversation_only, self.hide_tools, self.hide_reasoning, self.group_tools]

    def _toggled(self) -> None:
        self._settings.conversation_only = self.conversation_only.isChecked()
        self._settings.hide_tools = self.hide_tools.isChecked()
        self._settings.hide_reasoning = self.hide_reasoning.isChecked()
        self._settings.group_tools = self.group_tools.isChecked()
        self._apply()

    def _apply(self) -> None:
        """Conversation only leaves no tool call or reasoning to hide or group: the others
        wait; hidden tool calls leave none to group."""
        only = self.conversation_only.isChecked()
        self.hide_tools.setEnabled(not only)
        self.hide_reasoning.setEnabled(not only)
        self.group_tools.setEnabled(not only and not self.hide_tools.isChecked())
        self._model.set_grouping(self.group_tools.isChecked())
        self._model.set_shaping(
            Shaping(
                conversation_only=only,
                hide_tools=self.hide_tools.isChecked(),
                hide_reasoning=self.hide_reasoning.isChecked(),
            )
        )
