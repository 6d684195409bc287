"""The transcript's view in a test, and finding its QML items: a ListView's delegates are no
QObject children of it, so they are found down the visual tree."""

from PySide6.QtQuick import QQuickItem
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import Source
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import LIGHT
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.transcript_view import TranscriptView


def shown_transcript(
    source: Source, tasks: TaskRunner, qtbot: QtBot
) -> tuple[TranscriptModel, TranscriptView]:
    """The transcript's model and its view over `source`, shown 1000 by 615 pixels."""
    model = TranscriptModel(source, tasks, MessageRenderer())
    widget = TranscriptView(model, TranscriptNavigator(model, source, tasks), LIGHT)
    qtbot.addWidget(widget)
    widget.resize(1000, 615)
    widget.show()
    return model, widget


def items(widget: TranscriptView, name: str) -> list[QQuickItem]:
    """Every item named `name` (its `objectName`) in the transcript's view, shown or not."""
    root = widget.rootObject()
    assert root is not None
    found, stack = [], [root]
    while stack:
        item = stack.pop()
        if item.objectName() == name:
            found.append(item)
        stack.extend(item.childItems())
    return found


def visible_items(widget: TranscriptView, name: str) -> list[QQuickItem]:
    """The visible items named `name` in the transcript's view."""
    return [item for item in items(widget, name) if item.isVisible()]
