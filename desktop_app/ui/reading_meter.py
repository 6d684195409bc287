"""What the status bar says while a first opening of many files is read behind the listing
(`Cataloguing`): "Reading Claude Code logs · 1,240 of 3,054 files", then nothing. The figures
are two counters a reader keeps in memory, so they are asked on the GUI thread, twice a
second, only while a reading runs."""

from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.domain.source import Cataloguing, Source

POLL_MS = 500


def reading_sentence(readers: Sequence[Source]) -> str:
    """What is being read, or "" when nothing is."""
    said = []
    for reader in readers:
        progress = reader.cataloguing() if isinstance(reader, Cataloguing) else None
        if progress is not None:
            agent = reader.info().agent or reader.info().kind
            done, total = progress
            files = "file" if total == 1 else "files"
            said.append(f"Reading {agent} logs · {done:,} of {total:,} {files}")
    return "; ".join(said)


class ReadingMeter(QObject):
    changed = Signal(str)
    """The sentence: what is being read, or "" once every reading has ended."""
    ended = Signal()
    """The readings have ended: what was figured from a part of the list is figured again."""

    def __init__(self, readers: Sequence[Source], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._readers = [r for r in readers if isinstance(r, Cataloguing)]
        self._said = ""
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    def start(self) -> None:
        """Once the list's first page has arrived: asking for it started any reading."""
        if self._readers and not self._timer.isActive():
            self._timer.start()
            self.poll()

    def sentence(self) -> str:
        """What is being read now ("" when nothing is)."""
        return reading_sentence(self._readers)

    def poll(self) -> None:
        sentence = self.sentence()
        if sentence != self._said:
            was, self._said = self._said, sentence
            self.changed.emit(sentence)
            if was and not sentence:
                self.ended.emit()
        if not sentence:
            self._timer.stop()
