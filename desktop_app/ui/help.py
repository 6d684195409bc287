"""The Help menu's texts: keyboard shortcuts, the search syntax with examples, and About (the
version, the licence, and where each open history is, with goose's schema version)."""

from html import escape

from desktop_app import __version__
from desktop_app.domain.source import SourceInfo

SHORTCUTS = [
    ("Ctrl+K", "search every session"),
    ("Ctrl+F, F3, Shift+F3", "find in the transcript, next, previous"),
    ("Ctrl+1 / Ctrl+2 / Ctrl+3", "focus the list, the transcript, the usage panel"),
    ("Tab, Shift+Tab", "in the transcript: the next, previous block"),
    ("Enter, Space", "open or close the block that has the keyboard"),
    ("W", "wrap or unwrap the long lines of the block that has the keyboard"),
    ("N / P", "in the transcript: the next / previous prompt"),
    ("Alt+Left / Alt+Right", "back / forward between the sessions read (also the mouse's buttons)"),
    ("Ctrl+Shift+P", "the session's prompts: filter, then Enter to go to one"),
    ("Ctrl+] / Ctrl+[", "expand / collapse every block"),
    ("F2", "rename the selected session"),
    ("Ctrl+E / Ctrl+Shift+E", "archive / unarchive the selected sessions"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo a rename or an archive"),
    ("Ctrl+Shift+H", "show agent-only messages"),
    ("Ctrl+Shift+O", "conversation only: prompts and final answers"),
    ("Ctrl+Shift+T / Ctrl+Shift+R", "hide tool calls / hide reasoning"),
    ("Ctrl+Shift+G", "group runs of tool calls into one line (on by default)"),
    ("Ctrl+Shift+U", "show or hide the token usage panel"),
    ("Ctrl+O", "open a history file"),
    ("Ctrl+Q", "quit"),
]

SEARCH_SYNTAX = [
    ("redis latency", "messages with both words (case and accents ignored)"),
    ('"retry loop"', "the exact phrase"),
    ("deploy*", "words starting with deploy"),
    ("docker OR podman", "either word"),
    ("cache -redis", "cache, but not redis"),
    ("role:user retry", "only what the user wrote (also assistant, tool)"),
    ("tool:shell flaky", "messages of calls to the shell tool"),
    ("in:~/work/api", "sessions in that project folder (and the folders inside it)"),
    ("in:tools timeout / in:reasoning / in:hidden", "only tool output, reasoning, agent-only"),
    ("type:scheduled, is:archived", "session type, archived sessions"),
    ("after:2026-01-01 before:2026-02-01", "messages in that range"),
    ("has:image, has:error", "messages with an image, with an error"),
    ("session:20260301_3", "one session"),
]


def _table(rows: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"<tr><td><code>{escape(keys)}</code></td><td>{escape(what)}</td></tr>"
        for keys, what in rows
    )
    return f"<table cellspacing='6'>{cells}</table>"


def shortcuts_html() -> str:
    return "<h3>Keyboard shortcuts</h3>" + _table(SHORTCUTS)


def search_html() -> str:
    return (
        "<h3>Search syntax</h3><p>Words must all appear; tool output is searched too, ranked "
        "after what was said.</p>" + _table(SEARCH_SYNTAX)
    )


def about_html(histories: list[SourceInfo]) -> str:
    rows = []
    for info in histories:
        schema = f", schema v{info.schema_version}" if info.schema_version is not None else ""
        rows.append(f"<li>{escape(info.kind)}{escape(schema)}: {escape(info.location)}</li>")
    return (
        f"<h3>Gander {escape(__version__)}</h3>"
        "<p>A browser for the chat history that AI agents keep. MIT licence.</p>"
        f"<p>Open histories:</p><ul>{''.join(rows)}</ul>"
    )
