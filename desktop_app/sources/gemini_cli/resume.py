"""Gemini CLI's command that resumes a session: `gemini --resume <session UUID>` (`-r`; it
also takes `latest` or an index of `--list-sessions`), run in the session's project folder:
Gemini CLI looks the id up only among the sessions of the folder it runs in
(google-gemini/gemini-cli `docs/cli/session-management.md`; `packages/cli/src/utils/
sessionUtils.ts`, `findSession`). A recording does not name its folder; Gemini CLI's project
registry writes it beside the recordings, in `~/.gemini/tmp/<project>/.project_root`
(`packages/core/src/config/projectRegistry.ts`). Older folders are named by a hash of the
path, which cannot be turned back into it."""

import os
from pathlib import Path

from desktop_app.domain.session import Session
from desktop_app.domain.source import Resume
from desktop_app.sources.common.shell import command_line

PROJECT_ROOT = ".project_root"
MAX_ROOT_BYTES = 4096
NO_FOLDER = (
    "Run it in the session's project folder: Gemini CLI finds a session only among that "
    "folder's, and this recording does not name it."
)


def project_folder(path: Path) -> str | None:
    """The folder Gemini CLI's registry recorded for the recording's project, if it did."""
    if path.parent.name != "chats":
        return None
    marker = path.parent.parent / PROJECT_ROOT
    try:
        with marker.open("rb") as handle:
            text = handle.read(MAX_ROOT_BYTES).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if os.path.isabs(text) and "\n" not in text else None


def resume(session: Session, path: Path) -> Resume:
    folder = project_folder(path)
    return Resume(
        command=command_line(["gemini", "--resume", session.id], folder),
        note="" if folder else NO_FOLDER,
    )
