"""Writing an export to a file the user named, safely.

The file may be anything: the history Gander is reading, its `-wal` journal reached through a
symlink or a hard link, Gander's own index, a folder, a full disk. Every target is resolved and
compared — by path and by device and inode — with what must never be written before anything is
opened for writing, and the export goes to a temporary file beside the target that replaces it
only once it is complete, so a failed export leaves the old file (or none) and never half a file.
"""

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from desktop_app.domain.errors import OutputError

COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")
"""SQLite's files beside a database; overwriting one corrupts the database."""


@dataclass(frozen=True, slots=True)
class Protected:
    """What an export may never overwrite: files (each with its SQLite companions) and folders
    (nothing inside them)."""

    files: tuple[Path, ...] = ()
    folders: tuple[Path, ...] = ()

    def with_history(self, location: Path) -> "Protected":
        """A history is protected as a file and, when it is a folder, as a whole tree."""
        folders = (*self.folders, location) if location.is_dir() else self.folders
        return Protected(files=(*self.files, location), folders=folders)


def _variants(path: Path) -> Iterator[Path]:
    yield path
    for suffix in COMPANION_SUFFIXES:
        yield Path(f"{path}{suffix}")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def checked_target(target: Path, protected: Protected) -> Path:
    """The real path to write `target` to, or `OutputError` with the reason it is refused."""
    real = _real(target)
    if real.is_dir():
        raise OutputError(f"{target} is a folder; name a file to write the export to.")
    if not real.parent.is_dir():
        raise OutputError(f"The folder {real.parent} does not exist; {target} cannot be written.")
    refusal = (
        f"{target} is the history Gander is reading or one of Gander's own files; "
        "nothing was written. Choose another file for the export."
    )
    own_identity = _identity(real)
    for path in protected.files:
        for variant in _variants(path):
            real_variant = _real(variant)
            if str(real_variant).casefold() == str(real).casefold():
                raise OutputError(refusal)
            if own_identity is not None and _identity(real_variant) == own_identity:
                raise OutputError(refusal)
    for folder in protected.folders:
        if _inside(real, _real(folder)):
            raise OutputError(refusal)
    return real


def describe_os_error(path: Path, error: OSError) -> str:
    """One sentence for a file-system error while writing `path`."""
    code = error.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        return f"{path} could not be written: the disk is full. Nothing was written."
    if code in (errno.EACCES, errno.EPERM):
        return f"{path} cannot be written: permission denied."
    if code == errno.EROFS:
        return f"{path} cannot be written: it is on a read-only file system."
    if code == errno.EISDIR:
        return f"{path} is a folder; name a file to write the export to."
    if code == errno.ENOENT:
        return f"{path} cannot be written: its folder does not exist."
    return f"{path} could not be written ({error.strerror or error})."


def _new_file_mode() -> int:
    """The mode a plain `open(path, "w")` would give a new file under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes(target: Path, data: bytes, protected: Protected) -> None:
    """`data` into `target`, as `atomic_text_file` writes text."""
    with _atomic(target, protected, binary=True) as handle:
        handle.write(data)


def atomic_text_file(target: Path, protected: Protected) -> AbstractContextManager[TextIO]:
    """Open a temporary file beside `target` for writing; when the block ends without an error it
    replaces `target` (keeping `target`'s permissions), otherwise it is removed."""
    return _atomic(target, protected, binary=False)


@contextmanager
def _atomic(target: Path, protected: Protected, *, binary: bool) -> Iterator[Any]:
    real = checked_target(target, protected)
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=real.parent, prefix=f".{real.name}.", suffix=".part"
        )
    except OSError as error:
        raise OutputError(describe_os_error(target, error)) from error
    try:
        opened = (
            os.fdopen(descriptor, "wb")
            if binary
            else os.fdopen(descriptor, "w", encoding="utf-8", errors="replace")
        )
        with opened as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(real.stat().st_mode)
        except FileNotFoundError:
            mode = _new_file_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except OSError as error:
        with suppress(OSError):
            os.unlink(temporary)
        raise OutputError(describe_os_error(target, error)) from error
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
