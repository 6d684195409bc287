"""Finding the transcript's QML items from a test: a ListView's delegates are no QObject
children of it, so they are found down the visual tree."""

from PySide6.QtQuick import QQuickItem

from desktop_app.ui.widgets.transcript_view import TranscriptView


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
