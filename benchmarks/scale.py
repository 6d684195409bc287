"""Any size (issue #22): a corpus of genuine Claude Code and Codex lines; Gander's figures on it.

    python -m benchmarks.scale [--size MB] [--only ROW[,ROW]] [--big-log [MB]] [--seed N]
                               [--timeout S] [--gander CHECKOUT] [--build-only]

The corpus is made of the logs Claude Code and Codex CLI wrote themselves (the fixtures under
tests/fixtures/agents/claude_code/{written,tools,web} and codex/{cli,tools}; their credits are in
tests/fixtures/agents/README.md), copied again and again: the full size is 1.53 GB in 3,054 files
over 40 project folders, four of them 96-305 MB (the issue's 98-307 MB, in whole copies), the
others spread from one copy of a log (a few kB) to some MB. A file is one session made of one log's
lines copied `n` times, as a long-running agent's log would be; in every copy each id (session ids,
message uuids, the parentUuid chain, request, tool-use and call ids, turn ids) is rewritten, so no
two files share an id and no two copies share a message uuid, and every timestamp is shifted, so
each file has its own times and each copy follows the one before. Claude Code's chain goes on from
one copy to the next (the copy's first `parentUuid: null` names the last line of the copy before).
Codex writes one `session_meta` (or, before its envelope, one header line) at a file's start, so
later copies leave their first line out; its `token_count` events carry running totals, so a copy's
totals go on from where the copy before ended, and `ordinal` keeps counting. Everything else is the
genuine line, byte for byte. Laid out as the agents lay them out:
`home/.claude/projects/<slug>/<uuid>.jsonl` and
`home/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.

The builder keeps the replicated truth in `truth.json` beside `home/`: the token totals it wrote,
per kind and per session, in the agents' own fields (Claude Code's replies counted once per
`message.id` and `requestId`, its last line's `usage`, as ccusage counts them; its sub-agents'
lines in a session's file left out, as Gander lists them; Codex's last running total). Built once
per size and seed, under benchmarks/data/scale/ (gitignored); `truth.json` is written last, so a
corpus without it is built again.

The figures, each a row `name  value  budget  ok/over`, each run in a fresh process bounded by a
timeout (a row that times out says "timeout"):
- `catalog`: the first `gander list --json` over the corpus with an empty data directory (MB/s,
  seconds, the peak RSS of the process tree, sampled every 50 ms), then the list's first page
  again from the catalog, and the largest session's first page opened again;
- `tokens`: the totals `gander list --json --all` gives, per kind, against the truth;
- `index`: the first `gander search` (the index's first build), its time and peak RSS;
- `window`: the window on an empty data directory, offscreen: drawn and scrollable, the list
  complete, the index searchable, peak RSS;
- `big-log`: (with `--big-log` or `--only big-log`) one Claude Code log of 2 GB, every Claude Code
  log in turn copied on: catalogued, then opened at its last page.

`--gander` measures another checkout's Gander (a `git archive` of an earlier commit): the
processes run with it first on their path.
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from benchmarks.process_tree import TreePeak

ROOT = Path(__file__).resolve().parents[1]
GANDER = [ROOT]
"""The checkout whose Gander is measured (`--gander`): this one, or another commit's."""
AGENTS = ROOT / "tests" / "fixtures" / "agents"
DATA = Path(__file__).resolve().parent / "data" / "scale"
MB = 1_000_000
FULL_BYTES = 1_530 * MB
FULL_FILES = 3_054
PROJECTS = 40
BIG_FILES = (307 * MB, 205 * MB, 140 * MB, 98 * MB)
"""The four large files of the full corpus: three Claude Code logs and a Codex rollout."""
BIG_KINDS = ("claude-code", "codex", "claude-code", "claude-code")
ORDINARY_CAP = 60 * MB
FORMAT_VERSION = 3
"""Part of a corpus's folder name: a builder that writes other bytes writes another corpus."""

ID_KEYS = frozenset(
    {
        "sessionId", "uuid", "id", "parentUuid", "leafUuid", "logicalParentUuid", "requestId",
        "messageId", "promptId", "sourceToolAssistantUUID", "tool_use_id", "toolUseID",
        "parentToolUseID", "agentId", "session_id", "thread_id", "turn_id", "root_turn_id",
        "parent_turn_id", "call_id", "response_id", "message_id", "window_id",
    }
)  # fmt: skip
"""The keys whose string values are ids (found in the fixtures' lines); `limit_id`, `cell_id`,
`model_provider_id` and `process_id` name other things and stay."""
SESSION_KEYS = frozenset({"sessionId", "session_id", "thread_id"})
LONG_ID = 7
"""Ids this long are rewritten wherever they stand (in text too); shorter ones only as whole
JSON strings, where nothing else can be meant."""
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")
TOTALS = re.compile(r'"total_token_usage":\{[^{}]*\}')
NUMBER = re.compile(r'"(\w+)":(\d+)')
ORDINAL = re.compile(r'"ordinal":(\d+)')
CODEX_TOTALS = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
)
CLAUDE_TOTALS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
DAY_US = 86_400_000_000


def claude_templates() -> list[Path]:
    """The sessions' own logs Claude Code wrote (not its sub-agents' files)."""
    folders = [AGENTS / "claude_code" / name for name in ("written", "tools", "web")]
    found = (p for folder in folders for p in folder.rglob("*.jsonl"))
    return sorted(p for p in found if UUID.fullmatch(p.stem) and p.parent.name != "subagents")


def codex_templates() -> list[Path]:
    """The rollouts Codex CLI wrote itself."""
    folders = [AGENTS / "codex" / name for name in ("cli", "tools")]
    return sorted(p for folder in folders for p in folder.rglob("rollout-*.jsonl"))


def _micros(text: str) -> int:
    when = datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    fraction = text[20:-1] if len(text) > 20 else ""
    return int((when - EPOCH).total_seconds()) * 1_000_000 + int(fraction.ljust(6, "0") or 0)


_DATES: dict[int, str] = {}


def _timestamp(micros: int, digits: int) -> str:
    """`micros` after EPOCH as the agents write times (`2026-12-01T09:05:43.749Z`)."""
    days, rest = divmod(micros, DAY_US)
    day = _DATES.get(days)
    if day is None:
        day = _DATES[days] = date.fromordinal(EPOCH.toordinal() + days).isoformat()
    seconds, fraction = divmod(rest, 1_000_000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    tail = f".{fraction:06d}"[: digits + 1] if digits else ""
    return f"{day}T{hours:02d}:{minutes:02d}:{seconds:02d}{tail}Z"


def id_form(old: str) -> str:
    """How a copy writes `old` anew, in its shape: `{s}` is the copy's random hex, `{c}` what makes
    it unique (the copy's number and the id's), so a uuid stays a uuid and `toolu_…` a `toolu_`."""
    if UUID.fullmatch(old):
        return "{s:.8}" + old[8:24] + "{c}"
    if embedded := UUID.search(old):
        head, tail = old[: embedded.start()], old[embedded.end() :]
        return _literal(head) + id_form(embedded.group(0)) + _literal(tail)
    if len(old) >= 12 and re.fullmatch(r"[0-9a-f]+", old):
        return f"{{s:.{len(old) - 12}}}{{c}}"
    cut = max(old.rfind("_"), old.rfind("-"))
    return _literal(old[: cut + 1]) + "{s:.4}{c}"


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _ids(value: Any, found: dict[str, str]) -> None:
    """Every id in a line, with the key it was found under."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str) and len(item) >= 4:
                found.setdefault(item, key)
            _ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _ids(item, found)


def _claude_truth(lines: Sequence[Any]) -> dict[str, int]:
    """The tokens of a Claude Code log as Claude Code counts them: each reply (`message.id`
    and `requestId`) once, its last line's `usage` (earlier lines carry a partial
    `output_tokens`); a sub-agent's lines in its session's file are the sub-agent's."""
    side: bool | None = None
    replies: dict[Any, dict[str, Any]] = {}
    for row, line in enumerate(lines):
        if not isinstance(line, dict):
            continue
        if side is None and isinstance(line.get("isSidechain"), bool):
            side = line["isSidechain"]
        message = line.get("message")
        if line.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if line.get("isSidechain") is True and side is False:
            continue
        usage = message.get("usage")
        reply = message.get("id")
        key = (reply, line.get("requestId")) if isinstance(reply, str) and reply else row
        if isinstance(usage, dict):
            replies[key] = usage
    return {name: sum(int(u.get(name) or 0) for u in replies.values()) for name in CLAUDE_TOTALS}


def _codex_truth(lines: Sequence[Any]) -> dict[str, int]:
    """A rollout's tokens: its last `token_count`'s running total."""
    last: dict[str, Any] = {}
    for line in lines:
        payload = line.get("payload") if isinstance(line, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "token_count":
            info = payload.get("info")
            if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
                last = info["total_token_usage"]
    return {name: int(last.get(name) or 0) for name in CODEX_TOTALS}


@dataclass
class Template:
    """One genuine log made a format string: each id, time, folder and running total a field.

    Fields: `{0[i]}` the copy's i-th id, `{1[i]}` its i-th time, `{2}` the file's session id,
    `{3}` the project's folder, `{4}` its Claude Code slug, `{5[i]}` a running number, `{6}`
    the chain's link to the copy before (`null` in a file's first copy)."""

    kind: str
    path: Path
    form: str
    later: str
    """The form of a file's later copies (Codex: without the first line)."""
    ids: list[str]
    session: str
    times: list[tuple[int, int]]
    numbers: list[tuple[int, int]]
    """Each running number's value in the log and what it grows by from copy to copy."""
    last_uuid: int | None
    truth: dict[str, int]
    first_us: int
    span_us: int
    later_size: int
    """The bytes of a later copy (Codex's leave their first line out)."""
    size: int = field(init=False)
    id_forms: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.size = self.path.stat().st_size
        self.id_forms = [id_form(old) for old in self.ids]


class _Fields:
    """Turns a log's lines into a format string (see `Template`), noting each field's value."""

    def __init__(self, kind: str, session: str, ids: Sequence[str], cwd: str) -> None:
        self.session, self.cwd = session, cwd
        self.slug = re.sub(r"[^A-Za-z0-9]", "-", cwd)
        self.index = {old: n for n, old in enumerate(ids)}
        self.step: dict[str, int] = {}
        self.times: list[tuple[int, int]] = []
        self.numbers: list[tuple[int, int]] = []
        long = [re.escape(i) for i in [session, *ids] if len(i) >= LONG_ID]
        short = [re.escape(f'"{i}"') for i in [session, *ids] if len(i) < LONG_ID]
        bounded = f"(?<![A-Za-z0-9_-])(?:{'|'.join(long)})(?![A-Za-z0-9_-])" if long else ""
        codex = (TOTALS.pattern, ORDINAL.pattern) if kind == "codex" else ()
        patterns = (re.escape(cwd), re.escape(self.slug), TIMESTAMP.pattern, *codex, bounded)
        self.special = re.compile("|".join(p for p in (*patterns, *short) if p))

    def form(self, source: str) -> str:
        out: list[str] = []
        at = 0
        for match in self.special.finditer(source):
            out.append(_literal(source[at : match.start()]))
            out.append(self._field(match.group(0)))
            at = match.end()
        out.append(_literal(source[at:]))
        return "".join(out)

    def _field(self, piece: str) -> str:
        if piece == self.cwd:
            return "{3}"
        if piece == self.slug:
            return "{4}"
        if TIMESTAMP.fullmatch(piece):
            self.times.append((_micros(piece), len(piece) - 21 if len(piece) > 20 else 0))
            return f"{{1[{len(self.times) - 1}]}}"
        if piece.startswith('"total_token_usage"'):
            inner = piece[len('"total_token_usage":{') : -1]
            return '"total_token_usage":{{' + NUMBER.sub(self._total, inner) + "}}"
        if piece.startswith('"ordinal"'):
            self.numbers.append((int(piece[10:]), self.step["ordinal"]))
            return f'"ordinal":{{5[{len(self.numbers) - 1}]}}'
        quoted = piece.startswith('"')
        old = piece[1:-1] if quoted else piece
        slot = "{2}" if old == self.session else f"{{0[{self.index[old]}]}}"
        return f'"{slot}"' if quoted else slot

    def _total(self, number: re.Match[str]) -> str:
        """A running total: it grows by the log's last total from one copy to the next."""
        self.numbers.append((int(number.group(2)), self.step.get(number.group(1), 0)))
        return f'"{number.group(1)}":{{5[{len(self.numbers) - 1}]}}'


def load(kind: str, path: Path) -> Template:
    """One genuine log made a template: its ids, times, folder and running totals fields."""
    text = path.read_text(encoding="utf-8")
    raw_lines = text.splitlines(keepends=True)
    lines = [json.loads(line) for line in raw_lines]
    found: dict[str, str] = {}
    for line in lines:
        _ids(line, found)
    if kind == "claude-code":
        session = path.stem
        cwd = next(ln["cwd"] for ln in lines if isinstance(ln.get("cwd"), str))
        truth = _claude_truth(lines)
        # Claude Code's chain: the first line that starts one goes on from the copy before.
        start = next(n for n, ln in enumerate(lines) if "parentUuid" in ln)
        raw_lines[start] = raw_lines[start].replace('"parentUuid":null', "\x00CHAIN\x00", 1)
    else:
        session = lines[0].get("payload", lines[0])["id"]
        where = re.search(r'"cwd":"([^"]+)"', text) or re.search(r"<cwd>([^<]+)</cwd>", text)
        assert where is not None, f"{path}: no working directory"
        cwd = where.group(1)
        truth = _codex_truth(lines)
    others = sorted((i for i in found if i != session), key=len, reverse=True)
    fields = _Fields(kind, session, others, cwd)
    if kind == "codex":
        ordinals = [int(n) for n in ORDINAL.findall(text)]
        fields.step = {**truth, "ordinal": max(ordinals) + 1 if ordinals else 0}
    pieces = [fields.form(line) for line in raw_lines]
    form = "".join(pieces).replace("\x00CHAIN\x00", '"parentUuid":{6}')
    uuids = [ln.get("uuid") for ln in lines if isinstance(ln, dict)]
    last = next((u for u in reversed(uuids) if isinstance(u, str)), None)
    moments = [t for t, _ in fields.times]
    return Template(
        kind=kind,
        path=path,
        form=form,
        later=form if kind == "claude-code" else "".join(pieces[1:]),
        ids=others,
        session=session,
        times=fields.times,
        numbers=fields.numbers,
        last_uuid=fields.index.get(last) if last else None,
        truth=truth,
        first_us=min(moments) if moments else 0,
        span_us=(max(moments) - min(moments)) if moments else 0,
        later_size=len(text.encode())
        - (0 if kind == "claude-code" else len(raw_lines[0].encode())),
    )


@dataclass(frozen=True)
class Planned:
    """One file of the corpus: a session of `copies` copies of its logs (taken in turn)."""

    kind: str
    logs: tuple[Template, ...]
    copies: int
    project: int
    start_us: int


def _templates() -> dict[str, list[Template]]:
    return {
        "claude-code": [load("claude-code", p) for p in claude_templates()],
        "codex": [load("codex", p) for p in codex_templates()],
    }


def plan(size: int, seed: int, templates: dict[str, list[Template]]) -> list[Planned]:
    """The corpus's files, scaled from the full one: four large files and many small ones whose
    sizes spread as a log-normal does (most of a few kB to some hundred kB, some of MBs), two in
    three Claude Code's; each file in one of the 40 project folders, at its own time."""
    rng = random.Random(seed)
    ratio = size / FULL_BYTES
    ordinary = max(8, round((FULL_FILES - len(BIG_FILES)) * ratio))
    projects = min(PROJECTS, ordinary + len(BIG_FILES))
    weights = [rng.lognormvariate(0, 1.6) for _ in range(ordinary)]
    budget = size - sum(big * ratio for big in BIG_FILES)
    scale = budget / sum(weights)
    targets = [min(ORDINARY_CAP, w * scale) for w in weights]
    kinds = ["claude-code" if rng.random() < 2 / 3 else "codex" for _ in targets]
    wanted = [*zip(BIG_KINDS, (big * ratio for big in BIG_FILES), strict=True)]
    wanted += zip(kinds, targets, strict=True)
    logs = [rng.choice(templates[kind]) for kind, _ in wanted]
    starts = [rng.randrange(300 * DAY_US) + n * 1_000_000 + 300 * DAY_US for n in range(len(logs))]
    places = [rng.randrange(projects) for _ in logs]
    # Whole copies make the small files larger or smaller than wanted: the small files' sizes
    # are scaled again until the whole is within 2 % of `size`.
    stretch = 1.0
    for _ in range(8):
        copies = [
            _copies_for(target * (1.0 if n < len(BIG_FILES) else stretch), log)
            for n, ((_, target), log) in enumerate(zip(wanted, logs, strict=True))
        ]
        sizes = [log.size + (c - 1) * log.later_size for c, log in zip(copies, logs, strict=True)]
        small = sum(sizes[len(BIG_FILES) :])
        if abs(sum(sizes) - size) < size / 50:
            break
        stretch *= budget / max(small, 1)
    files = [
        Planned(kind, (log,), count, place, start)
        for (kind, _), log, count, place, start in zip(
            wanted, logs, copies, places, starts, strict=True
        )
    ]
    return files


def _copies_for(target: float, log: Template) -> int:
    return max(1, 1 + round((target - log.size) / log.later_size))


@dataclass
class Written:
    """What the builder wrote: per session its file and token totals."""

    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    bytes: int = 0
    copy_number: int = 0


def _project(number: int) -> tuple[str, str]:
    cwd = f"/home/dev/src/app-{number:02d}"
    return cwd, re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _copies(
    planned: Planned, session: str, rng: random.Random, written: Written
) -> Iterator[tuple[str, int]]:
    """The file's text, a copy at a time, with each copy's last time (µs after EPOCH)."""
    cwd, slug = _project(planned.project)
    start = planned.start_us
    chain = "null"
    for k in range(planned.copies):
        log = planned.logs[k % len(planned.logs)]
        written.copy_number += 1
        salt = f"{rng.getrandbits(160):040x}"
        mark = f"{written.copy_number:07x}"
        ids = [form.format(s=salt, c=f"{mark}{j:05x}") for j, form in enumerate(log.id_forms)]
        offset = start - log.first_us
        times = [_timestamp(us + offset, digits) for us, digits in log.times]
        numbers = [base + k * step for base, step in log.numbers]
        form = log.form if k == 0 else log.later
        yield form.format(ids, times, session, cwd, slug, numbers, chain), start + log.span_us
        if log.last_uuid is not None:
            chain = f'"{ids[log.last_uuid]}"'
        start += log.span_us + 60_000_000


def _truth_of(planned: Planned) -> dict[str, int]:
    totals: dict[str, int] = {}
    for k in range(planned.copies):
        for name, value in planned.logs[k % len(planned.logs)].truth.items():
            totals[name] = totals.get(name, 0) + value
    return totals


def write_file(home: Path, planned: Planned, rng: random.Random, written: Written) -> Path:
    """One planned file, where its agent would have written it, in large writes."""
    written.copy_number += 1
    first = planned.logs[0]
    session = id_form(first.session).format(
        s=f"{rng.getrandbits(160):040x}", c=f"{written.copy_number:07x}fffff"
    )
    when = EPOCH.timestamp() + planned.start_us / 1e6
    stamp = datetime.fromtimestamp(when, UTC)
    if planned.kind == "claude-code":
        path = home / ".claude" / "projects" / _project(planned.project)[1] / f"{session}.jsonl"
    else:
        name = f"rollout-{stamp:%Y-%m-%dT%H-%M-%S}-{session}.jsonl"
        path = home / ".codex" / "sessions" / f"{stamp:%Y/%m/%d}" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    last = planned.start_us
    with path.open("w", encoding="utf-8", newline="") as handle:
        batch: list[str] = []
        held = 0
        for text, end in _copies(planned, session, rng, written):
            last = end
            batch.append(text)
            held += len(text)
            if held > 8 * MB:
                handle.write("".join(batch))
                batch, held = [], 0
        handle.write("".join(batch))
    moment = EPOCH.timestamp() + last / 1e6
    os.utime(path, (moment, moment))
    size = path.stat().st_size
    written.bytes += size
    written.sessions[session] = {
        "kind": planned.kind,
        "path": str(path.relative_to(home)),
        "bytes": size,
        "copies": planned.copies,
        "project": planned.project,
        "tokens": _truth_of(planned),
    }
    return path


def corpus_dir(size: int, seed: int) -> Path:
    return DATA / f"corpus-{size // MB}MB-seed{seed}-v{FORMAT_VERSION}"


def build(size: int, seed: int = 22, folder: Path | None = None) -> Path:
    """The corpus of `size` bytes (about), built once: its folder holds `home/` and `truth.json`."""
    folder = folder or corpus_dir(size, seed)
    if (folder / "truth.json").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    templates = _templates()
    files = plan(size, seed, templates)
    rng = random.Random(seed + 1)
    written = Written()
    started = time.perf_counter()
    for planned in files:
        write_file(folder / "home", planned, rng, written)
    _write_truth(folder, written, time.perf_counter() - started, seed)
    return folder


def build_big_log(size: int, seed: int = 22) -> Path:
    """One Claude Code session of `size` bytes: every Claude Code log in turn, copied on."""
    folder = DATA / f"big-log-{size // MB}MB-seed{seed}-v{FORMAT_VERSION}"
    if (folder / "truth.json").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    logs = tuple(_templates()["claude-code"])
    copies = max(1, round(size / (sum(t.size for t in logs) / len(logs))))
    planned = Planned("claude-code", logs, copies, 0, 500 * DAY_US)
    written = Written()
    started = time.perf_counter()
    write_file(folder / "home", planned, random.Random(seed), written)
    _write_truth(folder, written, time.perf_counter() - started, seed)
    return folder


def _write_truth(folder: Path, written: Written, seconds: float, seed: int) -> None:
    kinds: dict[str, dict[str, int]] = {}
    for session in written.sessions.values():
        totals = kinds.setdefault(session["kind"], {})
        for name, value in session["tokens"].items():
            totals[name] = totals.get(name, 0) + value
    truth = {
        "seed": seed,
        "files": len(written.sessions),
        "bytes": written.bytes,
        "projects": len({s["project"] for s in written.sessions.values()}),
        "build_seconds": round(seconds, 1),
        "tokens": kinds,
        "sessions": written.sessions,
    }
    partial = folder / "truth.json.partial"
    partial.write_text(json.dumps(truth, indent=1), encoding="utf-8")
    partial.rename(folder / "truth.json")


def expected_usage(kind: str, tokens: dict[str, int]) -> dict[str, int]:
    """The truth in Gander's `accumulated_usage` fields: Claude Code's input is what it sent
    (new, read from the cache and written to it); Codex's `cached_input_tokens` are read."""
    if kind == "claude-code":
        sent = (
            tokens["input_tokens"]
            + tokens["cache_read_input_tokens"]
            + tokens["cache_creation_input_tokens"]
        )
        return {
            "input_tokens": sent,
            "output_tokens": tokens["output_tokens"],
            "cache_read_tokens": tokens["cache_read_input_tokens"],
            "cache_write_tokens": tokens["cache_creation_input_tokens"],
        }
    return {
        "input_tokens": tokens["input_tokens"],
        "output_tokens": tokens["output_tokens"],
        "cache_read_tokens": tokens["cached_input_tokens"],
        "cache_write_tokens": 0,
    }


# The figures ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    value: str
    budget: str
    ok: bool | None
    """`None`: no verdict (the step timed out or failed; `value` says which)."""

    def __str__(self) -> str:
        verdict = {True: "ok", False: "over", None: "-"}[self.ok]
        return f"{self.name:<52} {self.value:>22}   {self.budget:<14} {verdict}"


PEAK_EVERY_S = 0.05
"""How often a measured command's process tree has its RSS read."""


class StepFailed(Exception):
    """A measured step timed out or ended in an error: its rows say so instead of a figure."""


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float
    stdout: str
    cpu: float
    """CPU seconds of the process and the workers it waited for: what a loaded machine (other
    programs on the two cores) changes less than the wall time."""


def measured(command: Sequence[str], env: dict[str, str], timeout: float) -> Run:
    """`command` run to its end, timed from just before it starts, its tree's RSS sampled; a
    run past `timeout` is ended (its whole process group) and is a `StepFailed`."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=GANDER[0],
        start_new_session=True,
    )
    peak = TreePeak(process.pid, PEAK_EVERY_S)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        peak.stop()
        raise StepFailed(f"timeout {timeout:g} s") from None
    seconds = time.perf_counter() - started
    peak_mb = peak.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if process.returncode != 0:
        last = (err.strip().splitlines() or ["no output"])[-1]
        raise StepFailed(f"exit {process.returncode}: {last[:60]}")
    return Run(seconds, peak_mb, out, cpu)


SCRATCH: list[Path] = []
"""The data directories this run made (catalogs and indexes, hundreds of MB): removed at its end."""


def fresh_env(home: Path) -> dict[str, str]:
    """Gander on a new machine whose only histories are the corpus's: HOME is the corpus's
    `home/`, and Gander's data directory (its catalogs and indexes) and settings are empty."""
    scratch = Path(tempfile.mkdtemp(prefix="gander-scale-"))
    SCRATCH.append(scratch)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(scratch / "data"),
        "XDG_CONFIG_HOME": str(scratch / "config"),
        "XDG_CACHE_HOME": str(scratch / "cache"),
        "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "PYTHONPATH": str(GANDER[0]),
    }


def gander(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "desktop_app", *arguments]


def histories(home: Path) -> list[str]:
    """The `--db` arguments of the corpus's two histories, as the window finds them."""
    found = []
    if (home / ".claude" / "projects").is_dir():
        found += ["--db", f"claude-code={home / '.claude' / 'projects'}"]
    if (home / ".codex" / "sessions").is_dir():
        found += ["--db", f"codex={home / '.codex' / 'sessions'}"]
    return found


REOPEN = """
import json, sys, time
from pathlib import Path
from desktop_app.domain.combined import session_reference
from desktop_app.domain.source import SessionQuery
from desktop_app.files.places import data_dir
from desktop_app.opening import open_histories
locations, session, last = sys.argv[1].split("|"), sys.argv[2], sys.argv[3] == "last"
started = time.perf_counter()
opened = open_histories(locations, demo=False, data_dir=data_dir())
page = opened.source.list_sessions(SessionQuery(), limit=50)
listed = time.perf_counter()
session = session_reference(opened.source, session)
positions = opened.source.positions(session)
shown = positions[-50:] if last else positions[:50]
messages = opened.source.messages_between(session, shown[0], shown[-1]) if shown else []
done = time.perf_counter()
print(json.dumps({"list_s": listed - started, "open_s": done - listed, "listed": len(page.sessions),
                  "messages": len(positions), "shown": len(messages)}))
"""
"""In a fresh process on a catalogued data directory: the list's first page, then one session's
first (or last) page of 50 messages, each timed from the histories' opening."""


def reopen(env: dict[str, str], home: Path, session: str, *, last: bool, timeout: float) -> Any:
    locations = "|".join(histories(home)[1::2])
    where = "last" if last else "first"
    run = measured([sys.executable, "-c", REOPEN, locations, session, where], env, timeout)
    return json.loads(run.stdout.strip().splitlines()[-1])


@dataclass
class Corpus:
    folder: Path
    truth: dict[str, Any]
    env: dict[str, str] | None = None
    """The environment of the data directory the catalog run filled (for the rows after it)."""
    listing: list[dict[str, Any]] | None = None

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def mb(self) -> float:
        return float(self.truth["bytes"]) / MB

    def largest(self) -> str:
        sessions = self.truth["sessions"]
        return str(max(sessions, key=lambda s: sessions[s]["bytes"]))


def catalog_rows(corpus: Corpus, timeout: float) -> list[Row]:
    """The first `gander list` on an empty data directory, then the list and the largest
    session opened again from the catalog."""
    env = fresh_env(corpus.home)
    budget_s = corpus.mb / 200
    budget = f"≤ {budget_s:.1f} s" if budget_s >= 1 else f"≤ {budget_s * 1000:.0f} ms"
    try:
        run = measured(gander("list", "--json", "--all", *histories(corpus.home)), env, timeout)
    except StepFailed as failed:
        return [Row("first catalog (gander list)", str(failed), budget, None)]
    corpus.env, corpus.listing = env, json.loads(run.stdout)
    rows = [
        Row("first catalog (gander list): seconds", f"{run.seconds:.1f} s, CPU {run.cpu:.0f} s",
            budget, run.seconds <= budget_s),
        Row("first catalog: throughput", f"{corpus.mb / run.seconds:.0f} MB/s", "≥ 200 MB/s",
            corpus.mb / run.seconds >= 200),
        Row("first catalog: peak RSS (process tree)", f"{run.peak_mb:.0f} MB", "≤ 450 MB",
            run.peak_mb <= 450),
    ]  # fmt: skip
    try:
        again = reopen(env, corpus.home, corpus.largest(), last=False, timeout=timeout)
    except StepFailed as failed:
        return [*rows, Row("re-open: the list's first page", str(failed), "≤ 300 ms", None)]
    size = corpus.truth["sessions"][corpus.largest()]["bytes"] / MB
    largest = corpus.truth["sessions"][corpus.largest()]
    read = _read(again, largest["copies"])
    return [
        *rows,
        Row("re-open: the list's first page", f"{again['list_s'] * 1000:.0f} ms", "≤ 300 ms",
            again["list_s"] <= 0.3),
        Row(f"re-open: first page of the largest ({size:.0f} MB)",
            _opened(again) if read else _unread(again), "≤ 300 ms",
            read and again["open_s"] <= 0.3),
    ]  # fmt: skip


def _read(opened: Any, copies: int) -> bool:
    """Whether the session was read: each copy of a log holds messages (a file Gander did not
    read is one notice saying why)."""
    return bool(opened["shown"]) and int(opened["messages"]) >= copies


def _opened(opened: Any) -> str:
    return f"{opened['open_s'] * 1000:.0f} ms ({opened['messages']:,} msgs)"


def _unread(opened: Any) -> str:
    return f"unread ({opened['messages']} msg)"


def _listed_totals(listing: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    totals: dict[str, dict[str, int]] = {}
    for session in listing:
        kind = session["history"]["kind"]
        usage = session.get("accumulated_usage") or {}
        into = totals.setdefault(kind, {})
        for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            into[name] = into.get(name, 0) + int(usage.get(name) or 0)
    return totals


def token_rows(corpus: Corpus, timeout: float) -> list[Row]:
    """The token totals `gander list --json --all` gives, per kind, against the truth."""
    if corpus.listing is None:
        env = fresh_env(corpus.home)
        command = gander("list", "--json", "--all", *histories(corpus.home))
        try:
            corpus.env, corpus.listing = env, json.loads(measured(command, env, timeout).stdout)
        except StepFailed as failed:
            return [Row("token totals", str(failed), "= truth", None)]
    listed = _listed_totals(corpus.listing)
    rows = []
    for kind, tokens in sorted(corpus.truth["tokens"].items()):
        truth = expected_usage(kind, tokens)
        got = listed.get(kind, {})
        whole = sum(truth.values())
        share = sum(got.get(n, 0) for n in truth) / whole if whole else 1.0
        exact = all(got.get(n, 0) == v for n, v in truth.items())
        rows.append(
            Row(
                f"token totals, {kind} (all four counts)", f"{share:.1%} of truth", "= truth", exact
            )
        )
    sessions = len(corpus.listing)
    rows.append(
        Row("sessions listed", f"{sessions:,} of {corpus.truth['files']:,}", "all",
            sessions == corpus.truth["files"])
    )  # fmt: skip
    return rows


def index_rows(corpus: Corpus, timeout: float) -> list[Row]:
    """The first `gander search` on the catalogued data directory: the index's first build."""
    if corpus.env is None:
        token_rows(corpus, timeout)
    if corpus.env is None or corpus.listing is None:
        return [Row("index first build", "no catalog", "", None)]
    messages = sum(int(s.get("message_count") or 0) for s in corpus.listing)
    command = gander("search", "retry", "--json", *histories(corpus.home))
    try:
        run = measured(command, corpus.env, timeout)
    except StepFailed as failed:
        return [Row("index first build (gander search)", str(failed), "", None)]
    rate = messages / run.seconds
    return [
        Row("index first build (gander search): seconds",
            f"{run.seconds:.1f} s, CPU {run.cpu:.0f} s", "", None),
        Row(f"index first build: messages/s ({messages:,})", f"{rate:,.0f}/s", "≥ 20,000/s",
            rate >= 20_000),
        Row("index first build: peak RSS (process tree)", f"{run.peak_mb:.0f} MB", "≤ 450 MB",
            run.peak_mb <= 450),
    ]  # fmt: skip


WINDOW = """
import json, sys, time
from argparse import Namespace
from PySide6.QtCore import QSettings, QTimer
from desktop_app.app import _application, build_window
from desktop_app.files.places import data_dir, settings_file
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from benchmarks.window import StallMeter, pump_until
launched, limit, expected = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
_application()
settings = Settings(QSettings(str(settings_file()), QSettings.Format.IniFormat))
tasks = TaskRunner()
window = build_window(Namespace(db=None, demo=False, session=None), data_dir(), settings, tasks)
window.resize(1280, 800)
window.show()
meter = StallMeter()
meter.start()
ready = []
window.search.ready.connect(lambda: ready.append(time.time()))
figures = {"listed_s": None, "searchable_s": None}
sessions = window.sessions
try:
    pump_until(lambda: sessions.rowCount() > 0, timeout_s=limit)
    window.grab()
    figures["drawn_s"] = time.time() - launched
    # A list that grows as files are read is rebuilt from its first page: End again.
    ender = QTimer(interval=200)
    ender.timeout.connect(lambda: sessions.complete or sessions.fetch_to_end())
    ender.start()
    sessions.fetch_to_end()
    pump_until(lambda: sessions.complete and sessions.session_count >= expected, timeout_s=limit)
    figures["listed_s"] = time.time() - launched
    pump_until(lambda: bool(ready), timeout_s=limit)
    figures["searchable_s"] = ready[0] - launched
except TimeoutError:
    pass
figures["listed"] = sessions.session_count
figures["stall_ms"] = meter.stop()
print(json.dumps(figures))
window.close()
tasks.shutdown()
"""
"""The window on a new machine (empty data directory, no settings) whose histories are the
corpus's, as `gander` opens it: times from just before the process starts, on one clock."""


def window_rows(corpus: Corpus, timeout: float) -> list[Row]:
    """The first window: drawn and scrollable, the list complete, the index searchable."""
    env = fresh_env(corpus.home)
    launched = time.time()
    expected = str(corpus.truth["files"])
    command = [sys.executable, "-c", WINDOW, str(launched), str(timeout), expected]
    try:
        run = measured(command, env, timeout + 30)
    except StepFailed as failed:
        return [Row("first window (empty data directory)", str(failed), "≤ 2 s", None)]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    if "drawn_s" not in got:
        return [Row("first window: drawn and scrollable", "timeout", "≤ 2 s", None)]
    listed, searchable = got["listed_s"], got["searchable_s"]
    count = f"{got['listed']:,} of {corpus.truth['files']:,} sessions"
    return [
        Row("first window: drawn and scrollable", f"{got['drawn_s']:.1f} s", "≤ 2 s",
            got["drawn_s"] <= 2),
        Row("first window: list complete", f"{listed:.1f} s" if listed else f"timeout ({count})",
            "≤ 10 s", listed is not None and listed <= 10),
        Row("first window: index searchable", f"{searchable:.1f} s" if searchable else "timeout",
            "≤ 60 s", searchable is not None and searchable <= 60),
        Row("first window: longest GUI stall", f"{got['stall_ms']:.0f} ms", "≤ 50 ms",
            got["stall_ms"] <= 50),
        Row("first window: peak RSS (process tree)", f"{run.peak_mb:.0f} MB", "≤ 450 MB",
            run.peak_mb <= 450),
    ]  # fmt: skip


def big_log_rows(folder: Path, timeout: float) -> list[Row]:
    """One 2 GB Claude Code log: catalogued (`gander list`), then opened at its last page."""
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    corpus = Corpus(folder, truth)
    size = f"{corpus.mb / 1000:.1f} GB log"
    env = fresh_env(corpus.home)
    try:
        run = measured(gander("list", "--json", "--all", *histories(corpus.home)), env, timeout)
        opened = reopen(env, corpus.home, corpus.largest(), last=True, timeout=timeout)
    except StepFailed as failed:
        return [Row(f"{size}: catalogued, opened at its last page", str(failed), "≤ 2 s", None)]
    read = _read(opened, next(iter(truth["sessions"].values()))["copies"])
    return [
        Row(f"{size}: catalogued", f"{run.seconds:.1f} s", "", None),
        Row(f"{size}: catalog peak RSS (process tree)", f"{run.peak_mb:.0f} MB", "≤ 450 MB",
            run.peak_mb <= 450),
        Row(f"{size}: opened at its last page", _opened(opened) if read else _unread(opened),
            "≤ 2 s", read and opened["open_s"] <= 2),
    ]  # fmt: skip


FIGURES: dict[str, Callable[[Corpus, float], list[Row]]] = {
    "catalog": catalog_rows,
    "tokens": token_rows,
    "index": index_rows,
    "window": window_rows,
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=FULL_BYTES / MB, help="MB (full: 1530)")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument(
        "--only",
        default=",".join(FIGURES),
        help=f"rows, of {', '.join(FIGURES)} and big-log (the 2 GB log; as --big-log)",
    )
    parser.add_argument("--big-log", type=float, nargs="?", const=2000.0, metavar="MB",
                        help="also the single large log (2000 MB unless given)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a step may take")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument(
        "--gander", type=Path, default=ROOT, help="the checkout to measure (e.g. a git archive)"
    )
    args = parser.parse_args(argv)
    GANDER[0] = args.gander.resolve()
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in only if name not in (*FIGURES, "big-log")]
    if unknown:
        parser.error(f"no such row: {', '.join(unknown)} (rows: {', '.join(FIGURES)}, big-log)")
    rows = [name for name in only if name in FIGURES]
    big_size = args.big_log or (2000.0 if "big-log" in only else None)
    corpus = None
    if rows or args.build_only:
        started = time.perf_counter()
        folder = build(int(args.size * MB), args.seed)
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
        print(
            f"corpus {folder.name}: {truth['bytes'] / MB:,.0f} MB in {truth['files']:,} files "
            f"over {truth['projects']} projects (built in {truth['build_seconds']} s, ready in "
            f"{time.perf_counter() - started:.1f} s); load average {os.getloadavg()[0]:.1f}; "
            f"Gander of {GANDER[0]}"
        )
        corpus = Corpus(folder, truth)
    big = build_big_log(int(big_size * MB), args.seed) if big_size else None
    if args.build_only:
        return
    try:
        for name in rows:
            assert corpus is not None
            for row in FIGURES[name](corpus, args.timeout):
                print(row, flush=True)
        if big is not None:
            print(f"load average {os.getloadavg()[0]:.1f}; Gander of {GANDER[0]}")
            for row in big_log_rows(big, args.timeout):
                print(row, flush=True)
    finally:
        for scratch in SCRATCH:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
