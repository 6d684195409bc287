"""Reading on in a log that grows, only while it is the log that was read: what every reader
that follows a JSON-lines log (the coding agents' logs, everruns' `events.jsonl`) checks
before it reads on from where it stopped."""

from dataclasses import dataclass
from typing import BinaryIO

MARK_BYTES = 4_096
"""Of a followed log, this many of its first bytes and of the last ones read are kept."""


@dataclass
class ReadMark:
    """What a log held where it was read: which file (its inode), its first bytes and the last
    ones before the offset. A log appended to keeps all three; one rewritten in place (longer or
    as long), truncated and written again, or replaced by another file (even one given the
    freed inode again, as ext4 does at once) differs in one, and is read afresh — read on, it
    showed the old lines, a "not JSON" line where the offset fell mid-line, then the new tail.
    Bytes between the two blocks are not compared."""

    inode: int = -1
    head: bytes = b""
    tail: bytes = b""

    def holds(self, handle: BinaryIO, inode: int, offset: int) -> bool:
        """Whether the open file (of this inode) is, up to `offset`, the one that was read."""
        if inode != self.inode:
            return False
        handle.seek(0)
        if handle.read(len(self.head)) != self.head:
            return False
        handle.seek(offset - len(self.tail))
        return handle.read(len(self.tail)) == self.tail

    def advance(self, read: bytes) -> None:
        """Past these bytes, read just after the others (whole lines, or a line skipped)."""
        if len(self.head) < MARK_BYTES:  # the head is then every byte read so far
            self.head += read[: MARK_BYTES - len(self.head)]
        recent = read[-MARK_BYTES:]
        self.tail = (self.tail + recent)[-MARK_BYTES:] if len(recent) < MARK_BYTES else recent
