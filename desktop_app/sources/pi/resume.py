"""pi's command that resumes a session: `pi --session <path>`, the session file itself (an
argument with a `/` is opened as a path; an id is looked up in the current folder's sessions
first), run in the session's folder: pi's tools work in the folder pi runs in
(badlogic/pi-mono `packages/coding-agent/README.md`, "Sessions"; `src/main.ts`,
`resolveSessionPath`)."""

from pathlib import Path

from desktop_app.domain.session import Session
from desktop_app.domain.source import Resume
from desktop_app.sources.common.shell import command_line

NO_FOLDER = "This session records no folder: pi works in the folder you run it in."


def resume(session: Session, path: Path) -> Resume:
    folder = session.working_dir
    return Resume(
        command=command_line(["pi", "--session", str(path)], folder),
        note="" if folder else NO_FOLDER,
    )
