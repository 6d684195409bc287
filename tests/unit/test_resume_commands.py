"""Each agent's own command that resumes a session (#20 item 14), on logs the agents wrote
themselves (tests/fixtures/agents/README.md): Claude Code `claude --resume ID` and Codex
`codex resume ID` run in the session's folder, Gemini CLI `gemini --resume UUID` in the
project folder its registry recorded, pi `pi --session FILE`, goose `goose session --resume
--session-id ID`; quoted for a shell, routed through several open histories, and none for a
history whose program resumes nothing."""

import shlex
import shutil
from pathlib import Path

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.reading import iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import Resumable, SessionFiles, SessionQuery, Source
from desktop_app.sources.claude_code import resume as claude_code
from desktop_app.sources.gemini_cli import resume as gemini_cli
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = FIXTURES / "agents"
EVERY = SessionQuery(session_types=None)
CLAUDE_ID = "6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e"
"""A session Claude Code 2.1.110 wrote (tests/fixtures/agents/claude_code/written)."""
CODEX_ID = "01a230da-5127-72e0-a205-4a9bdb40d144"
"""The rollout Codex CLI 0.171.0 wrote (its `session_meta` id)."""
GEMINI_ID = "e1f2a3b4-0000-4000-8000-00000000beef"


def _sessions(source: Source) -> dict[str, Session]:
    return {s.id: s for s in iter_sessions(source, EVERY)}


def _resumed(location: Path, session_id: str) -> tuple[str | None, str]:
    history = open_history(location, cache_dir=None)
    assert isinstance(history, Resumable)
    resume = history.resume(_sessions(history)[session_id])
    assert resume is not None
    return resume.command, resume.note


def test_claude_code_resumes_by_id_in_the_sessions_folder() -> None:
    command, note = _resumed(AGENTS / "claude_code" / "written", CLAUDE_ID)
    assert command == f"cd /tmp/ccrun-v21110/payments-api && claude --resume {CLAUDE_ID}"
    assert note == ""


def test_a_claude_code_sub_agent_has_no_command_and_says_why() -> None:
    command, note = _resumed(AGENTS / "claude_code" / "written", "agent-6880a13f")
    assert command is None
    assert "parent session" in note


def test_codex_resumes_the_rollouts_session_id_in_its_folder() -> None:
    command, _ = _resumed(AGENTS / "codex" / "cli", CODEX_ID)
    assert command == f"cd /tmp/codex-demo/notes-app && codex resume {CODEX_ID}"


def test_pi_opens_the_session_file_itself_in_the_sessions_folder() -> None:
    folder = AGENTS / "pi" / "pi-mono"
    history = open_history(folder, cache_dir=None)
    (session,) = _sessions(history).values()
    assert isinstance(history, Resumable)
    assert isinstance(history, SessionFiles)
    file = history.session_file(session.id)
    assert file is not None
    assert Path(file).is_file()
    resume = history.resume(session)
    assert resume is not None
    assert resume.command == (
        f"cd /Users/badlogic/workspaces/pi-mono && pi --session {shlex.quote(file)}"
    )


def test_gemini_cli_resumes_by_uuid_and_says_where_when_the_folder_is_unknown() -> None:
    """The fixture's project folder is named by a hash of its path (the older layout)."""
    command, note = _resumed(AGENTS / "gemini_cli" / "library", GEMINI_ID)
    assert command == f"gemini --resume {GEMINI_ID}"
    assert note == gemini_cli.NO_FOLDER


def test_gemini_cli_runs_in_the_folder_its_project_registry_recorded(tmp_path: Path) -> None:
    """Gemini CLI's registry writes the project's path in `<tmp>/<project>/.project_root`."""
    genuine = next((AGENTS / "gemini_cli" / "library").iterdir())
    project = tmp_path / "tmp" / "payments-api"
    shutil.copytree(genuine / "chats", project / "chats")
    (project / ".project_root").write_text("/home/dana/src/pay ments\n")
    command, note = _resumed(tmp_path / "tmp", GEMINI_ID)
    assert command == f"cd '/home/dana/src/pay ments' && gemini --resume {GEMINI_ID}"
    assert note == ""


def test_goose_resumes_by_session_id(tmp_path: Path) -> None:
    db = GooseDb(tmp_path / "sessions.db")
    db.add_session("20260101_3", name="a goose session", working_dir="/home/me/project")
    db.close()
    source = GooseSource(db.path)
    resume = source.resume(source.get_session("20260101_3"))
    assert resume.command == "goose session --resume --session-id 20260101_3"


def test_a_folder_or_id_a_shell_would_split_is_quoted_whole() -> None:
    session = Session(id="x", name="x", working_dir="/home/me/a b;$(rm -rf ~)")
    resume = claude_code.resume(session, Path("/p/it's here.jsonl"))
    assert resume.command is not None
    words = shlex.split(resume.command)
    assert words == ["cd", "/home/me/a b;$(rm -rf ~)", "&&", "claude", "--resume", "it's here"]


def test_several_histories_route_each_session_to_its_own_agent() -> None:
    claude = open_history(AGENTS / "claude_code" / "written", cache_dir=None)
    codex = open_history(AGENTS / "codex" / "cli", cache_dir=None)
    both = CombinedHistory([claude, codex])
    sessions = _sessions(both)
    claude_session = sessions[f"claude-code:{CLAUDE_ID}"]
    codex_session = sessions[f"codex:{CODEX_ID}"]
    claude_resume = both.resume(claude_session)
    codex_resume = both.resume(codex_session)
    assert claude_resume is not None
    assert claude_resume.command is not None
    assert claude_resume.command.endswith(f"claude --resume {CLAUDE_ID}")
    assert codex_resume is not None
    assert codex_resume.command == f"cd /tmp/codex-demo/notes-app && codex resume {CODEX_ID}"
    file = both.session_file(codex_session.id)
    assert file is not None
    assert file.endswith(f"{CODEX_ID}.jsonl")


def test_a_history_whose_program_resumes_nothing_has_no_command() -> None:
    folder = FIXTURES / "genuine" / "toolnexus"
    history = open_history(folder, cache_dir=None)
    session = next(iter(_sessions(history).values()))
    assert isinstance(history, Resumable)
    assert history.resume(session) is None
    assert isinstance(history, SessionFiles)
    assert history.session_file(session.id) is not None  # it still has a file to reveal
