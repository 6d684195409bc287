"""The transcript pane: a QML ListView (only visible rows exist) inside a QQuickWidget.

Chosen over QTextBrowser because laying out a whole transcript costs seconds at 5,000 messages,
while the ListView's cost is the rows on screen (docs/architecture.md has the figures).

The Markdown writer and the redaction its copies may go through are imported at the first copy,
not with the window.
"""

from pathlib import Path
from typing import assert_never

from PySide6.QtCore import QObject, QSize, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QCursor, QFocusEvent, QGuiApplication, QImage, QKeySequence
from PySide6.QtQuick import QQuickImageProvider
from PySide6.QtQuickWidgets import QQuickWidget
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from desktop_app.domain.errors import OutputError, sentence
from desktop_app.domain.message import Message
from desktop_app.domain.parts import shown_parts
from desktop_app.domain.text import part_texts
from desktop_app.files.output import Protected, atomic_text_file
from desktop_app.rendering.formatting import decode_base64
from desktop_app.rendering.markdown_html import COPY_SCHEME, MORE_SCHEME, SAVE_SCHEME, WRAP_SCHEME
from desktop_app.rendering.transcript_blocks import JsonSource
from desktop_app.ui.images import decode_image, placeholder
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.resources import resource_path
from desktop_app.ui.theme import Theme
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.image_viewer import ImageViewer


class PartImageProvider(QQuickImageProvider):
    """`image://parts/<row>/<index>`: decodes an image part of a rendered message on request,
    always on QML's image thread (never the GUI thread), through `decode_image`."""

    def __init__(self, model: TranscriptModel) -> None:
        super().__init__(
            QQuickImageProvider.ImageType.Image,
            QQuickImageProvider.Flag.ForceAsynchronousImageLoading,
        )
        self._model = model

    def requestImage(self, image_id: str, size: QSize, requested: QSize) -> QImage:
        row_text, _, index_text = image_id.partition("/")
        try:
            part = self._model.image(int(row_text), int(index_text))
        except ValueError:
            part = None
        if part is None:
            image = placeholder("no longer loaded")
        else:
            decoded, reason = decode_image(part.mime_type, part.data_b64, requested.height())
            image = decoded if decoded is not None else placeholder(reason)
        size.setWidth(image.width())
        size.setHeight(image.height())
        return image


def _code_text(code: str | JsonSource | None, *, redacting: bool) -> str | None:
    """A code block as Copy and Save all write it; redacted as `gander show --redact` redacts
    the message: a JSON value by its structure (`{"name": "DB_PASSWORD", "value": …}`, numbers
    under secret names), then its strings, before it is written out."""
    from desktop_app.rendering.redact import redact_json, redact_text  # noqa: PLC0415

    match code:
        case None:
            return None
        case JsonSource(value=value):
            return JsonSource(redact_json(value)).text() if redacting else code.text()
        case str():
            return redact_text(code) if redacting else code
        case _:
            assert_never(code)


class TranscriptActions(QObject):
    """What QML delegates can ask for: a message's context menu, an image at full size, a link.

    Links open nothing by themselves: copy links copy, others go to the window, which asks."""

    link_clicked = Signal(int, str)
    """Any other link, and the row it is in (Back returns to that card)."""
    saved = Signal(str)
    """A text saved whole (Save all…): the file written."""
    save_failed = Signal(str)

    def __init__(self, model: TranscriptModel, parent: QWidget) -> None:
        super().__init__(parent)
        self._model = model
        self._parent = parent
        self.redact_copies = False
        """Edit ▸ Remove secrets from copies: every copy goes through the export's redaction."""
        self.protected = Protected()
        """Files a saved image may never overwrite (the history, Gander's own files)."""

    def _message(self, row: int) -> Message | None:
        from desktop_app.rendering.redact import redact  # noqa: PLC0415 - see the docstring

        message = self._model.message(row)
        return redact(message) if message is not None and self.redact_copies else message

    def markdown(self, row: int) -> str | None:
        message = self._message(row)
        if message is None:
            return None
        from desktop_app.rendering.markdown_export import MarkdownWriter  # noqa: PLC0415

        writer = MarkdownWriter(include_hidden=True, tool_names=self._model.tool_names())
        return writer.message(message)

    def plain_text(self, row: int) -> str | None:
        message = self._message(row)
        if message is None:
            return None
        parts = shown_parts(message.parts)
        return "\n\n".join(text for part in parts for text in part_texts(part))

    def code(self, row: int, block: int, number: int) -> str | None:
        return _code_text(self._model.code_source(row, block, number), redacting=self.redact_copies)

    @Slot(int)
    def contextMenu(self, row: int) -> None:
        menu = QMenu(self._parent)
        for label, produce in (
            ("Copy message as Markdown", self.markdown),
            ("Copy message text", self.plain_text),
        ):
            action = menu.addAction(label)
            action.triggered.connect(lambda _=False, p=produce: self._copy(p(row)))
        menu.exec(QCursor.pos())

    @staticmethod
    def _copy(text: str | None) -> None:
        if text is not None:
            QGuiApplication.clipboard().setText(text)

    @Slot(int, int, str)
    def linkActivated(self, row: int, block: int, link: str) -> None:
        """Copy links copy their code block, Save all saves it to a file, Show more shows more
        of the message, Wrap and No wrap switch the block's long lines; any other link goes to
        the window, which asks."""
        scheme, _, number = link.partition(":")
        if scheme == COPY_SCHEME and number.isdigit():
            self._copy(self.code(row, block, int(number)))
        elif scheme == SAVE_SCHEME and number.isdigit():
            self._save(row, block, int(number))
        elif scheme == MORE_SCHEME:
            self._model.show_more(row)
        elif scheme == WRAP_SCHEME:
            self._model.toggleWrap(row, block)
        else:
            self.link_clicked.emit(row, link)

    def _save(self, row: int, block: int, number: int) -> None:
        """Ask where, then write the text whole in the worker, through the guarded writer."""
        dialog = QFileDialog(self._parent, "Save all of this text", "text.txt")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(lambda target: self.save_text(row, block, number, target))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def save_text(self, row: int, block: int, number: int, target: str) -> None:
        model, protected, redacting = self._model, self.protected, self.redact_copies

        def work() -> str:
            text = _code_text(model.code_source(row, block, number), redacting=redacting)
            if text is None:
                raise OutputError("That text is no longer shown; scroll to it and save again.")
            with atomic_text_file(Path(target), protected) as output:
                output.write(text)
            return target

        model.tasks.run(work, self.saved.emit, lambda error: self.save_failed.emit(sentence(error)))

    @Slot(int, int)
    def openImage(self, row: int, index: int) -> None:
        """The full-size viewer opens at once; the image is decoded in the worker."""
        part = self._model.image(row, index)
        data = decode_base64(part.data_b64) if part is not None else None
        if part is None or data is None:
            return
        viewer = ImageViewer(data, part.mime_type, self.protected, self._parent)
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        viewer.open()
        mime, encoded = part.mime_type, part.data_b64
        self._model.tasks.run(lambda: decode_image(mime, encoded), viewer.show_decoded)


NO_SESSION_TEXT = "Choose a session on the left to read it, or search every session with Ctrl+K."
EMPTY_SESSION_TEXT = (
    "This session has no messages yet. Messages appear here as the agent writes them."
)


class TranscriptView(QQuickWidget):
    """Keyboard: Tab and Shift+Tab move between blocks (and out of the transcript past the
    first or last), Enter or Space open and close the block that has the keyboard, W wraps or
    unwraps its long lines, N and P go to
    the next and previous prompt; `keyboard_actions` puts those and Expand all / Collapse all in
    the View menu."""

    def __init__(
        self,
        model: TranscriptModel,
        navigator: TranscriptNavigator,
        theme: Theme,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.navigator = navigator
        self.actions_for_qml = TranscriptActions(model, self)
        self.setResizeMode(QQuickWidget.ResizeMode.SizeRootObjectToView)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._passing_on = False
        """Tab is passing the keyboard on past an empty transcript (`focusInEvent`)."""
        self.engine().addImageProvider("parts", PartImageProvider(model))
        # The QML's required properties (not context properties: qmllint checks those names).
        self.setInitialProperties(
            {
                "transcriptModel": model,
                "navigator": navigator,
                "theme": theme.for_qml(),
                "transcriptActions": self.actions_for_qml,
                "emptyText": NO_SESSION_TEXT,
            }
        )
        self.setClearColor(theme.background)
        self.setSource(QUrl.fromLocalFile(str(resource_path("qml", "Transcript.qml"))))
        if self.status() == QQuickWidget.Status.Error:
            raise RuntimeError("; ".join(error.toString() for error in self.errors()))
        model.opened.connect(self._scroll_to_end)
        model.opened.connect(self._say_when_empty)
        navigator.prompt_found.connect(self._show_prompt)

    def keyboard_actions(self) -> list[QAction]:
        """View ▸ Expand all, Collapse all, Next and Previous prompt. N and P act only while
        the transcript has the keyboard (typing them elsewhere types them)."""
        made: list[QAction] = []
        for text, keys, scoped, act in (
            ("&Expand all blocks", "Ctrl+]", False, lambda: self.model.set_all_expanded(True)),
            ("&Collapse all blocks", "Ctrl+[", False, lambda: self.model.set_all_expanded(False)),
            ("&Next prompt", "N", True, lambda: self.jump(forward=True)),
            ("&Previous prompt", "P", True, lambda: self.jump(forward=False)),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(keys))
            if scoped:
                action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(act)
            self.addAction(action)
            made.append(action)
        return made

    def jump(self, *, forward: bool) -> None:
        self.navigator.jump_to_prompt(forward, (self.top_row(), self.bottom_row()))

    def top_row(self) -> int:
        root = self.rootObject()
        return int(root.topRow()) if root is not None else 0  # type: ignore[attr-defined]

    def bottom_row(self) -> int:
        root = self.rootObject()
        return int(root.bottomRow()) if root is not None else 0  # type: ignore[attr-defined]

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab moves between blocks while the transcript has the keyboard; past the last (or
        before the first) block it moves on to the next widget as usual."""
        if self.hasFocus() and self.navigator.move(next, self.top_row()):
            self._reveal_focus()
            return True
        return QWidget.focusNextPrevChild(self, next)

    def focusInEvent(self, event: QFocusEvent) -> None:
        """Tab (or Shift+Tab) into the transcript outlines a block on screen at once — the
        first of the top row (or the last of the bottom one) unless the block chosen before
        is on screen: with none chosen, or one scrolled away, that Tab stop showed nothing but
        at most a few pixels of an outline under the header. With nothing to read, Tab goes
        on to the next stop."""
        super().focusInEvent(event)
        reason = event.reason()
        if reason not in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason):
            return
        forward = reason == Qt.FocusReason.TabFocusReason
        if self.model.rowCount() == 0:
            # Nothing to read (no session open, or an empty one): the keyboard goes on past,
            # once — back here again in a chain with no other stop, it stays.
            if not self._passing_on:
                self._passing_on = True
                QWidget.focusNextPrevChild(self, forward)
                self._passing_on = False
            return
        top, bottom = self.top_row(), self.bottom_row()
        chosen = self.navigator.focus
        if chosen is None or not top <= chosen[0] <= bottom:
            self.navigator.set_focus(-1, -1)
            self.navigator.move(forward, top if forward else bottom)
        self._reveal_focus()

    def _reveal_focus(self) -> None:
        root = self.rootObject()
        if root is not None:
            root.revealFocus()  # type: ignore[attr-defined]

    def _show_prompt(self, row: int) -> None:
        self.model.reveal(row)
        root = self.rootObject()
        if root is not None:
            root.showRowAtTop(row)  # type: ignore[attr-defined]

    @property
    def empty_text(self) -> str:
        root = self.rootObject()
        return str(root.property("emptyText")) if root is not None else ""

    def _say_when_empty(self, _session: object, count: int) -> None:
        root = self.rootObject()
        if root is not None:
            root.setProperty("emptyText", EMPTY_SESSION_TEXT if not count else "")

    def set_theme(self, theme: Theme) -> None:
        root = self.rootObject()
        if root is not None:
            root.setProperty("theme", theme.for_qml())
        self.setClearColor(theme.background)

    def show_row(self, row: int) -> None:
        """A search hit's or a find's row: at the top of the view once the rows around it have
        settled, its blocks holding the words open (only its own: see `open_matches_in`)."""
        self.model.reveal(row)
        self.model.open_matches_in(row)
        root = self.rootObject()
        if root is not None:
            root.showMatch(row)  # type: ignore[attr-defined]

    def _scroll_to_end(self) -> None:
        root = self.rootObject()
        if root is not None:
            root.openAtEnd()  # type: ignore[attr-defined]
