"""Codex CLI's command that resumes a session: `codex resume <SESSION_ID>`, the rollout's
session id (its `session_meta` id, also the end of its file name), run in the session's folder
(openai/codex `codex-rs/cli/src/main.rs`, `ResumeCommand`). Codex finds the rollout by id from
any folder, but when the folder it runs in is not the session's it first asks which of the two
to work in (`codex-rs/tui`, `resolve_cwd_for_resume_or_fork`): the `cd` answers that as the
session ran."""

from pathlib import Path

from desktop_app.domain.session import Session
from desktop_app.domain.source import Resume
from desktop_app.sources.common.shell import command_line

NO_FOLDER = "This rollout records no folder: Codex resumes it in the folder you run it in."


def resume(session: Session, path: Path) -> Resume:
    del path  # Codex looks the rollout up by its id
    folder = session.working_dir
    return Resume(
        command=command_line(["codex", "resume", session.id], folder),
        note="" if folder else NO_FOLDER,
    )
