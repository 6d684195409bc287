"""Claude Code's command that resumes a session: `claude --resume <session id>` (`-r`), run in
the session's folder. Claude Code keeps a project's sessions under
`~/.claude/projects/<folder>/<id>.jsonl` and looks an id up among the folder it runs in: from
elsewhere it answers "No conversation found" (anthropics/claude-code issue #14252; its
CHANGELOG: "`/resume` … telling you to `cd` into a deleted directory"). The id is the log's
file name, as Claude Code looks it up."""

from pathlib import Path

from desktop_app.domain.session import SUB_AGENT, Session
from desktop_app.domain.source import Resume
from desktop_app.sources.common.shell import command_line

NO_FOLDER = (
    "Run it in the session's project folder: Claude Code finds a session only there, and "
    "this log does not name the folder."
)
SUB_AGENT_NOTE = (
    "A sub-agent's log is not a session `claude --resume` opens: resume its parent session."
)


def resume(session: Session, path: Path) -> Resume:
    if session.session_type == SUB_AGENT:
        return Resume(command=None, note=SUB_AGENT_NOTE)
    folder = session.working_dir
    return Resume(
        command=command_line(["claude", "--resume", path.stem], folder),
        note="" if folder else NO_FOLDER,
    )
