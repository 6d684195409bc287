"""A goose session export: `goose session export --format json|yaml` writes the `Session` struct
— snake_case session fields, `conversation` of camelCase messages — with `serde_json` or
`serde_yaml` (crates/goose/src/session/session_manager.rs). Token figures are nested
`usage`/`accumulated_usage` objects (`cache_read_input_tokens`…) since goose folded them there
(import_formats/mod.rs `nest_legacy_token_fields`); older exports have them flat, and both are
read. YAML is read with serde_yaml's scalar rules (`_GooseLoader`). Kind `goose-export`; a
folder of exports is one history.
"""

import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import yaml

from desktop_app.domain.reading import visible_count
from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage, amount, count
from desktop_app.sources.common.goose_json.message import message_from_json
from desktop_app.sources.common.goose_json.timestamps import parse_stored_time
from desktop_app.sources.files.history import FileFormat, ParsedSession, file_time

KIND = "goose-export"
_NESTED = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "total_tokens": "total_tokens",
    "cache_read_tokens": "cache_read_input_tokens",
    "cache_write_tokens": "cache_write_input_tokens",
}


_CORE_SCALARS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("null", r"~|null|Null|NULL|", ("", "~", "n", "N")),
    ("bool", r"true|True|TRUE|false|False|FALSE", tuple("tTfF")),
    ("int", r"[-+]?(?:0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+|0|[1-9][0-9]*)", tuple("-+0123456789")),
    (
        "float",
        r"(?![-+]?0[0-9]+$)[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        tuple("-+.0123456789"),
    ),
)
"""serde_yaml's plain scalars that are not strings (src/de.rs `visit_untagged_scalar`): the
YAML 1.2 core schema, in the forms Rust parses — no `yes`/`on`, no `1_000`, no timestamps,
no leading-zero octal (`0755` is a string)."""


def _core_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    base = {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2], 10)
    return sign * int(digits[2:] if base != 10 else digits, base)


def _core_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float | str:
    """A float as Rust parses it; a finite-looking one that overflows stays the text, as in
    serde_yaml (`parse_f64` keeps only finite values)."""
    text = str(loader.construct_scalar(node))
    unsigned = text.lstrip("+-")
    if unsigned.lower() == ".inf":
        return -math.inf if text.startswith("-") else math.inf
    if unsigned.lower() == ".nan":
        return math.nan
    value = float(text)
    return value if math.isfinite(value) else text


class _GooseLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's parser when present) resolving plain scalars as
    serde_yaml does: goose writes its exports with `serde_yaml::to_string`, which leaves a
    string plain exactly when serde_yaml's reader would read it back as a string (src/ser.rs
    `serialize_str`). PyYAML's own resolver is YAML 1.1: it would read goose's
    `id: 20260611_4` as the integer 202606114, a user's `yes` as True and every time as a
    datetime. ruamel.yaml was tried and is no better here: its YAML 1.2 mode still reads
    `20260611_4` as an int and times as datetimes."""

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, re.Pattern[str]]]]] = {}


for _tag, _pattern, _first in _CORE_SCALARS:
    _GooseLoader.add_implicit_resolver(
        f"tag:yaml.org,2002:{_tag}", re.compile(f"^(?:{_pattern})$"), list(_first)
    )
_GooseLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
_GooseLoader.add_constructor("tag:yaml.org,2002:float", _core_float)


def load_yaml(data: bytes) -> Any:
    """YAML as goose's serde_yaml reads it (`_GooseLoader`), without anchors and aliases:
    goose never writes them, and expanding a crafted web of aliases takes memory beyond any
    bound."""
    for event in yaml.parse(data, Loader=_GooseLoader):
        if isinstance(event, yaml.AliasEvent):
            raise ValueError("YAML aliases are not read")
    return yaml.load(data, Loader=_GooseLoader)  # a safe loader: plain data only


def _time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return parse_stored_time(value)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _usage(doc: dict[str, Any], nested_key: str, flat_prefix: str) -> TokenUsage:
    nested = doc.get(nested_key)
    if isinstance(nested, dict):
        return TokenUsage(**{ours: count(nested.get(theirs)) for ours, theirs in _NESTED.items()})
    return TokenUsage(**{ours: count(doc.get(flat_prefix + ours)) for ours in _NESTED})


def session_from_export(doc: Any, fallback_id: str, modified: float) -> ParsedSession:
    if not isinstance(doc, dict):
        raise ValueError("the file is not a goose session")
    session_id = str(doc.get("id") or fallback_id)
    conversation = doc.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("messages")
    entries = conversation if isinstance(conversation, list) else []
    messages = [message_from_json(entry, session_id, i) for i, entry in enumerate(entries)]
    model_config: dict[str, Any] = _mapping(doc.get("model_config"))
    recipe: dict[str, Any] = _mapping(doc.get("recipe"))
    times = [m.created_at for m in messages if m.created_at is not None]
    name = _text(doc.get("name")) or _text(doc.get("description")) or session_id
    session = Session(
        id=session_id,
        name=name,
        stored_name=_text(doc.get("name")),
        description=_text(doc.get("description")),
        user_set_name=doc.get("user_set_name") is True,
        session_type=_text(doc.get("session_type")) or "user",
        working_dir=_text(doc.get("working_dir")) or _text(doc.get("workingDir")),
        created_at=_time(doc.get("created_at")),
        updated_at=_time(doc.get("updated_at")) or file_time(modified),
        last_message_at=max(times) if times else _time(doc.get("last_message_at")),
        archived_at=_time(doc.get("archived_at")),
        message_count=visible_count(messages),
        parent_session_id=_text(doc.get("parent_session_id")),
        provider=_text(doc.get("provider_name")),
        model=_text(model_config.get("model_name")),
        context_limit=count(model_config.get("context_limit")),
        usage=_usage(doc, "usage", ""),
        accumulated_usage=_usage(doc, "accumulated_usage", "accumulated_"),
        cost=amount(doc.get("accumulated_cost")),
        goose_mode=_text(doc.get("goose_mode")),
        schedule_id=_text(doc.get("schedule_id")),
        project_id=_text(doc.get("project_id")),
        recipe_title=_text(recipe.get("title")),
        extension_data=doc.get("extension_data"),
        model_config=model_config or None,
    )
    return ParsedSession(session=session, messages=messages)


def parse(path: Path, data: bytes) -> ParsedSession:
    text = data.lstrip()
    is_json = text.startswith(b"{")
    doc = json.loads(data) if is_json else load_yaml(data)
    return session_from_export(doc, path.stem, path.stat().st_mtime)


def sniff(head: bytes) -> bool:
    """A JSON object or YAML mapping with goose's `working_dir` key near the top."""
    text = head.lstrip()
    if text.startswith(b"{"):
        return b'"working_dir"' in head or b'"workingDir"' in head
    return any(line.startswith((b"working_dir:", b"id:")) for line in head.splitlines()[:80]) and (
        b"\nworking_dir:" in b"\n" + head
    )


FORMAT = FileFormat(kind=KIND, suffixes=(".json", ".yaml", ".yml"), sniff=sniff, parse=parse)
