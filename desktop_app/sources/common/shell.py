"""A command line a person pastes into a shell: each word quoted (`shlex.quote`), so a folder
or id with a space, `$` or `;` in it is one word and runs nothing else."""

import shlex
from collections.abc import Sequence


def command_line(words: Sequence[str], folder: str | None = None) -> str:
    """`words` as one shell line, run in `folder` first (`cd FOLDER && …`) when given: what an
    agent that finds its sessions, or runs its tools, in the current folder needs."""
    line = shlex.join(words)
    return f"cd {shlex.quote(folder)} && {line}" if folder else line
