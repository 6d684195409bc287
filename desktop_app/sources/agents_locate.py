"""Where the coding agents keep their session logs on this computer. Never creates anything.

Linux and macOS keep them under the home folder; Windows under the user's profile, which is the
home folder Python reports there, so one rule serves all three. Each agent's own override is
honoured: `CLAUDE_CONFIG_DIR` (Claude Code), `CODEX_HOME` (Codex CLI), `GEMINI_CLI_HOME`
(Gemini CLI), `PI_CODING_AGENT_DIR` (pi).
"""

import os
from collections.abc import Mapping
from pathlib import Path

AGENT_KINDS = ("claude-code", "codex", "gemini-cli", "pi")
AGENT_NAMES = {
    "claude-code": "Claude Code",
    "codex": "Codex CLI",
    "gemini-cli": "Gemini CLI",
    "pi": "pi",
}


def _root(env: Mapping[str, str], name: str, default: Path) -> Path:
    value = env.get(name, "")
    return Path(value) if value and Path(value).is_absolute() else default


def agent_folders(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> dict[str, Path]:
    """Each agent's sessions folder, whether or not it exists."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    return {
        "claude-code": _root(env, "CLAUDE_CONFIG_DIR", home / ".claude") / "projects",
        "codex": _root(env, "CODEX_HOME", home / ".codex") / "sessions",
        "gemini-cli": _root(env, "GEMINI_CLI_HOME", home) / ".gemini" / "tmp",
        "pi": _root(env, "PI_CODING_AGENT_DIR", home / ".pi" / "agent") / "sessions",
    }


def found_agent_histories(
    env: Mapping[str, str] | None = None, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The agents' folders that exist here, in `AGENT_KINDS` order."""
    folders = agent_folders(env, home)
    return [(kind, folders[kind]) for kind in AGENT_KINDS if folders[kind].is_dir()]
