"""Every history Gander reads, one row each: what the rest of the program needs to know about a
reader without loading it.

The opener (`registry.py`), the kinds `KIND=PATH` may name, the "expected …" sentence of a
location Gander cannot read, the coding agents' folders (`agents_locate.py`), the Open dialog's
filters and the agent names on badges and in the usage panel are all derived from `READERS`, so
a new reader is its package and one row (docs/contributing.md has the checklist). The rows are
plain data: a reader's module is named, never imported here, so `gander list` on goose's file
loads no file format (tests/unit/test_cli_imports.py).
"""

from dataclasses import dataclass
from enum import Enum


class Store(Enum):
    """How a history is kept, which decides how the opener recognises it."""

    SQLITE = "an SQLite database, recognised by the tables it holds"
    EVENTS = "an event log, recognised by its `sniff` function (given the file's path)"
    FILES = "one file per session, recognised by its `FileFormat`'s suffixes and `sniff`"


class Capability(Enum):
    """What a reader does beyond listing and reading (tests/unit/test_reader_table.py checks
    each row's claims against the reader it opens)."""

    WRITES = "renames and archives sessions in the agent's own store (`Writable`)"
    RESUMES = "names the agent's command that resumes a session (`FileFormat.resume`)"
    SERVER = "also opens a database server's URL (`schemes`)"


@dataclass(frozen=True, slots=True)
class Place:
    """`path` below a root folder: the environment variable `env` when it names an absolute
    folder (the agent's own override), else `root` (`~` is the home folder, the user's profile
    on Windows). A place whose `root` is empty exists only when `env` is set."""

    path: str
    root: str = "~"
    env: str = ""


@dataclass(frozen=True, slots=True)
class Places:
    """Where a history is by default on each platform, most likely first (what the agent's own
    code uses; docs/formats/ cites it). An `override` whose variable is set is the only place."""

    linux: tuple[Place, ...] = ()
    macos: tuple[Place, ...] = ()
    windows: tuple[Place, ...] = ()
    override: Place | None = None


def everywhere(place: Place) -> Places:
    """The coding agents keep their logs below the home folder on all three platforms."""
    return Places(linux=(place,), macos=(place,), windows=(place,))


@dataclass(frozen=True, slots=True)
class Reader:
    kind: str
    """What `KIND=PATH` names and `SourceInfo.kind` says; the reader's own `KIND`."""
    agent: str
    """What people call the agent (`SourceInfo.agent`): the history's badge."""
    expected: str
    """How the "expected …" sentence names what this reader reads."""
    store: Store
    reader: str
    """`module:attribute`, imported only when a location needs it: the `FileFormat` of a
    FILES row, else the class opened on the path (an SQLITE one with `busy_timeout_s`)."""
    dialog: str
    """The Open dialog's name for these files."""
    doc: str
    """The page of docs/formats/ that says what is read and what is not."""
    suffixes: tuple[str, ...]
    """The file names this reader reads (a FILES row: its `FileFormat.suffixes`)."""
    tables: tuple[str, ...] = ()
    """SQLITE: the tables a database must hold to be this reader's."""
    sniff: str = ""
    """EVENTS: `module:function` telling from a file's path whether it is this history."""
    marker: str = ""
    """A folder holding a file of this name is this history (opened on that file)."""
    schemes: tuple[str, ...] = ()
    """URL schemes naming this history's server (`Capability.SERVER`)."""
    server: str = ""
    """`module:class` opened on such a URL."""
    places: Places = Places()
    """Where the agent keeps this history on this computer. A FILES row with places is a coding
    agent's logs folder: opened on a first run, listed in File ▸ Coding agents."""
    program: str = ""
    """The agent's full name in menus and the usage panel, when it differs from `agent`."""
    capabilities: frozenset[Capability] = frozenset()

    @property
    def name(self) -> str:
        return self.program or self.agent


_GOOSE_DB = "sessions/sessions.db"
_LIBRARY = Place(f"Block/goose/data/{_GOOSE_DB}", "~/Library/Application Support")
_XDG = Place(f"goose/{_GOOSE_DB}", "~/.local/share", "XDG_DATA_HOME")
GOOSE = Reader(
    kind="goose",
    agent="goose",
    expected="goose's sessions.db",
    store=Store.SQLITE,
    reader="desktop_app.sources.goose:GooseSource",
    dialog="goose database",
    doc="docs/formats/goose.md",
    suffixes=(".db", ".sqlite"),
    tables=("sessions", "messages"),
    marker="sessions.db",
    # GOOSE_PATH_ROOT/data when set, else goose's data folder for Block/goose (README's
    # Opening); the Library one is also tried on Linux, as before the table.
    places=Places(
        linux=(_XDG, _LIBRARY),
        macos=(_XDG, _LIBRARY),
        windows=(Place(f"Block/goose/data/{_GOOSE_DB}", "~/AppData/Roaming", "APPDATA"),),
        override=Place(f"data/{_GOOSE_DB}", "", "GOOSE_PATH_ROOT"),
    ),
    capabilities=frozenset({Capability.WRITES}),
)

READERS: tuple[Reader, ...] = (
    GOOSE,
    Reader(
        kind="everruns",
        agent="everruns",
        expected="an everruns event log (events.jsonl), events export or postgresql:// URL",
        store=Store.EVENTS,
        reader="desktop_app.sources.everruns.local:EverrunsEvents",
        dialog="everruns events",
        doc="docs/formats/everruns.md",
        suffixes=(".jsonl", ".json"),
        sniff="desktop_app.sources.everruns.sniff:looks_like_envelopes",
        marker="events.jsonl",
        schemes=("postgresql://", "postgres://", "postgresql+psycopg://"),
        server="desktop_app.sources.everruns.server:EverrunsServer",
        capabilities=frozenset({Capability.SERVER}),
    ),
    # The file formats, in the order they are tried: the most specific first.
    Reader(
        kind="glean-json",
        agent="glean",
        expected="glean-json files",
        store=Store.FILES,
        reader="desktop_app.sources.glean.format:FORMAT",
        dialog="glean-json",
        doc="docs/formats/glean-json.md",
        suffixes=(".json",),
    ),
    Reader(
        kind="goose-export",
        agent="goose",
        expected="a goose session export (.json or .yaml)",
        store=Store.FILES,
        reader="desktop_app.sources.goose_export.format:FORMAT",
        dialog="goose export",
        doc="docs/formats/goose-files.md",
        suffixes=(".json", ".yaml", ".yml"),
    ),
    Reader(
        kind="toolnexus",
        agent="toolnexus",
        expected="toolnexus conversations (.json)",
        store=Store.FILES,
        reader="desktop_app.sources.toolnexus.format:FORMAT",
        dialog="toolnexus conversation",
        doc="docs/formats/toolnexus.md",
        suffixes=(".json",),
    ),
    Reader(
        kind="gemini-cli",
        agent="Gemini CLI",
        expected="Gemini CLI sessions",
        store=Store.FILES,
        reader="desktop_app.sources.gemini_cli.format:FORMAT",
        dialog="Gemini CLI session",
        doc="docs/formats/coding-agents.md",
        suffixes=(".json", ".jsonl"),
        # GEMINI_CLI_HOME replaces the home folder (~/.gemini/tmp/<project>/chats/…).
        places=everywhere(Place(".gemini/tmp", "~", "GEMINI_CLI_HOME")),
        capabilities=frozenset({Capability.RESUMES}),
    ),
    Reader(
        kind="codex",
        agent="Codex",
        expected="Codex rollouts",
        store=Store.FILES,
        reader="desktop_app.sources.codex.format:FORMAT",
        dialog="Codex rollout",
        doc="docs/formats/coding-agents.md",
        suffixes=(".jsonl",),
        places=everywhere(Place("sessions", "~/.codex", "CODEX_HOME")),
        program="Codex CLI",
        capabilities=frozenset({Capability.RESUMES}),
    ),
    Reader(
        kind="pi",
        agent="pi",
        expected="pi session logs",
        store=Store.FILES,
        reader="desktop_app.sources.pi.format:FORMAT",
        dialog="pi session",
        doc="docs/formats/coding-agents.md",
        suffixes=(".jsonl",),
        places=everywhere(Place("sessions", "~/.pi/agent", "PI_CODING_AGENT_DIR")),
        capabilities=frozenset({Capability.RESUMES}),
    ),
    Reader(
        kind="claude-code",
        agent="Claude Code",
        expected="Claude Code session logs",
        store=Store.FILES,
        reader="desktop_app.sources.claude_code.format:FORMAT",
        dialog="Claude Code session",
        doc="docs/formats/coding-agents.md",
        suffixes=(".jsonl",),
        places=everywhere(Place("projects", "~/.claude", "CLAUDE_CONFIG_DIR")),
        capabilities=frozenset({Capability.RESUMES}),
    ),
    Reader(
        kind="goose-legacy",
        agent="goose",
        expected="goose legacy sessions (.jsonl)",
        store=Store.FILES,
        reader="desktop_app.sources.goose_legacy.format:FORMAT",
        dialog="goose legacy session",
        doc="docs/formats/goose-files.md",
        suffixes=(".jsonl",),
    ),
)

KINDS = tuple(row.kind for row in READERS)
"""Every kind `KIND=PATH` may name."""
BY_KIND = {row.kind: row for row in READERS}
EXPECTED = ", ".join(row.expected for row in READERS[:-1]) + f" or {READERS[-1].expected}"
"""What Gander reads, for the sentence saying a location holds none of it."""
SERVER_SCHEMES = tuple(scheme for row in READERS for scheme in row.schemes)
AGENT_KINDS = tuple(
    sorted(row.kind for row in READERS if row.store is Store.FILES and row.places.linux)
)
"""The coding agents whose logs folders are looked for on this computer, in their kinds' order
(File ▸ Coding agents lists them so; the table's order is the order formats are tried)."""


def agent_name(kind: str) -> str:
    """The agent's name for menus and the usage panel (a kind no row has: the kind itself)."""
    row = BY_KIND.get(kind)
    return row.name if row else kind


def dialog_filters() -> str:
    """The Open dialog's filters: every history file, then each reader's, then all files."""

    def patterns(suffixes: tuple[str, ...]) -> str:
        return " ".join(f"*{suffix}" for suffix in dict.fromkeys(suffixes))

    every = patterns(tuple(suffix for row in READERS for suffix in row.suffixes))
    each = [f"{row.dialog} ({patterns(row.suffixes)})" for row in READERS]
    return ";;".join((f"Histories ({every})", *each, "All files (*)"))
