"""goose's command that resumes a session of its database: `goose session --resume
--session-id <id>` (block/goose `documentation/docs/guides/goose-cli-commands.md`, "session
[options]"). goose finds the session by its id from any folder, so no `cd` is needed."""

from desktop_app.domain.session import Session
from desktop_app.domain.source import Resume
from desktop_app.sources.common.shell import command_line


def resume_session(session: Session) -> Resume:
    return Resume(
        command=command_line(["goose", "session", "--resume", "--session-id", session.id])
    )
