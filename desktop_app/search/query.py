"""The search query language → an FTS5 MATCH expression and SQL filters.

    words              every word must appear (AND), accents and case ignored
    "a phrase"         the words in this order
    prefix*            words starting with prefix
    a OR b             either
    -word, -"phrase"   must not appear
    role:user|assistant|tool      tool:NAME      in:DIR      type:user|scheduled|acp|sub_agent…
    before:YYYY-MM-DD  after:YYYY-MM-DD  is:archived  has:image  has:error  session:ID
    in:tools  in:reasoning  in:hidden   (search only tool calls/output, only reasoning, or also
                                         agent-only messages)

A malformed query raises `QueryError` with a sentence for the user.
"""

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from desktop_app.domain.errors import GanderError
from desktop_app.domain.search import fold, words
from desktop_app.search.tokens import segment_cjk

COLUMNS_DEFAULT = ("body", "reasoning", "tools", "output")
SCOPES = {"tools": ("tools", "output"), "reasoning": ("reasoning",)}
ROLES = {"user", "assistant", "tool"}
_WORD = re.compile(r"\w", re.UNICODE)


class QueryError(GanderError):
    pass


@dataclass
class ParsedQuery:
    text: str
    match: str | None = None
    """FTS5 expression over message columns; None when the query is filters only."""
    name_match: str | None = None
    """The same words over session names (positive words only)."""
    columns: tuple[str, ...] = COLUMNS_DEFAULT
    include_hidden: bool = False
    roles: set[str] = field(default_factory=set)
    tools: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    types: set[str] = field(default_factory=set)
    before: int | None = None
    after: int | None = None
    archived_only: bool = False
    has_image: bool = False
    has_error: bool = False
    session_id: str | None = None
    terms: list[tuple[str, bool]] = field(default_factory=list)
    """Folded positive words and whether each is a prefix, for marking snippets."""

    @property
    def narrows(self) -> bool:
        """Whether a filter was given (a query of filters alone lists what they select)."""
        return bool(
            self.roles
            or self.tools
            or self.dirs
            or self.types
            or self.session_id
            or self.before is not None
            or self.after is not None
            or self.archived_only
            or self.has_image
            or self.has_error
        )


def _fts_string(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _term(raw: str, *, quoted: bool) -> str | None:
    """One word or phrase as an FTS5 string; CJK runs become phrases of single characters."""
    prefix = not quoted and raw.endswith("*") and len(raw) > 1
    body = raw[:-1] if prefix else raw
    body = segment_cjk(body).strip()
    if not _WORD.search(body):
        return None
    text = _fts_string(body)
    return text + "*" if prefix else text


def _date(value: str, key: str) -> int:
    try:
        day = date.fromisoformat(value)
    except ValueError as error:
        raise QueryError(f"{key}: needs a date like 2026-03-01, not {value!r}.") from error
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


_TOKEN = re.compile(
    r'(?P<neg>-)?(?:(?P<key>[A-Za-z_]+):)?(?:"(?P<phrase>[^"]*)"|(?P<word>[^\s"]+))'
)


@dataclass(frozen=True)
class _Token:
    negate: bool
    key: str | None
    value: str
    quoted: bool


def _split(text: str) -> list[_Token]:
    if text.count('"') % 2:
        raise QueryError('A quotation mark is not closed; close the phrase with another ".')
    tokens = []
    for match in _TOKEN.finditer(text):
        quoted = match["phrase"] is not None
        value = match["phrase"] if quoted else match["word"]
        key = match["key"]
        if key is None and value.endswith(":") and value[:-1].lower() in FILTER_KEYS:
            raise QueryError(f"{value} needs a value, e.g. {value}something.")
        if key is not None and key.lower() not in FILTER_KEYS:
            value, key = f"{key}:{value}", None
        tokens.append(_Token(bool(match["neg"]), key.lower() if key else None, value, quoted))
    return tokens


def _filter(parsed: ParsedQuery, key: str, value: str) -> None:
    lowered = value.lower()
    if not value:
        raise QueryError(f"{key}: needs a value, e.g. {key}:something.")
    if key == "role":
        if lowered not in ROLES:
            raise QueryError(f"role: can be user, assistant or tool, not {value!r}.")
        parsed.roles.add(lowered)
    elif key == "tool":
        parsed.tools.append(lowered)
    elif key == "in":
        if lowered in SCOPES:
            parsed.columns = SCOPES[lowered]
        elif lowered == "hidden":
            parsed.include_hidden = True
        else:
            parsed.dirs.append(value)
    elif key == "type":
        parsed.types.add(lowered)
    elif key == "before":
        parsed.before = _date(value, key)
    elif key == "after":
        parsed.after = _date(value, key)
    elif key == "is":
        if lowered != "archived":
            raise QueryError(f"is: only knows is:archived, not is:{value}.")
        parsed.archived_only = True
    elif key == "has":
        if lowered not in ("image", "error"):
            raise QueryError(f"has: can be has:image or has:error, not has:{value}.")
        parsed.has_image |= lowered == "image"
        parsed.has_error |= lowered == "error"
    elif key == "session":
        parsed.session_id = value


FILTER_KEYS = {"role", "tool", "in", "type", "before", "after", "is", "has", "session"}


MAX_QUERY_CHARS = 4_000
MAX_WORDS = 256
MAX_FILTERS = 64


def _check_size(text: str, tokens: list[_Token]) -> None:
    """Refuse, with a sentence, a query bigger than anyone types: SQLite's own limits (FTS5's
    parser stack, the expression-tree depth) would otherwise fail it with a bare error."""
    words = sum(1 for token in tokens if token.key is None)
    if words > MAX_WORDS:
        raise QueryError(f"This search has {words} words; a search can have {MAX_WORDS} at most.")
    filters = len(tokens) - words
    if filters > MAX_FILTERS:
        raise QueryError(
            f"This search has {filters} filters; a search can have {MAX_FILTERS} at most."
        )
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(
            f"This search is {len(text):,} characters long; a search can have "
            f"{MAX_QUERY_CHARS:,} at most."
        )


def parse_query(text: str) -> ParsedQuery:
    parsed = ParsedQuery(text=text)
    tokens = _split(text)
    _check_size(text, tokens)
    negative: list[str] = []
    groups: list[list[str]] = []
    pending_or = False
    for token in tokens:
        if token.key is not None:
            if token.negate:
                raise QueryError(f"-{token.key}: is not supported; filters cannot be negated.")
            _filter(parsed, token.key, token.value)
            continue
        if not token.quoted and not token.negate and token.value == "OR":
            if not groups or pending_or:
                raise QueryError("OR needs a word on each side.")
            pending_or = True
            continue
        term = _term(token.value, quoted=token.quoted)
        if term is None:
            continue
        if not token.negate:
            prefix = not token.quoted and token.value.endswith("*")
            parsed.terms.extend((fold(word.group(0)), prefix) for word in words(token.value))
        if token.negate:
            negative.append(term)
        elif pending_or:
            groups[-1].append(term)
            pending_or = False
        else:
            groups.append([term])
    if pending_or:
        raise QueryError("OR needs a word on each side.")
    if negative and not groups:
        raise QueryError("A search needs at least one word to look for, not only -excluded ones.")
    if not groups:
        return parsed
    expression = " AND ".join(
        group[0] if len(group) == 1 else "(" + " OR ".join(group) + ")" for group in groups
    )
    if negative:
        # One flat NOT (a OR b …): a chain of nested NOTs overflows FTS5's parser near 100.
        expression = f"({expression}) NOT ({' OR '.join(negative)})"
    parsed.match = f"{{{' '.join(parsed.columns)}}} : ({expression})"
    parsed.name_match = expression
    return parsed
