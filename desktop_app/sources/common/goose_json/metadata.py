"""goose `metadata_json` → visibility, per-reply usage and inference.

goose falls back to `{userVisible: true, agentVisible: true}` when metadata is missing or does not
parse; we do the same and record the problem so the transcript can say so.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from desktop_app.domain.message import Inference, Visibility
from desktop_app.domain.usage import MessageUsage, TokenUsage, amount, count


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedMetadata:
    visibility: Visibility = field(default_factory=Visibility)
    usage: MessageUsage | None = None
    inference: Inference | None = None
    output_token_limit_reached: bool = False
    steer: bool = False
    turn_context: bool = False
    raw: Any = None
    problem: str | None = None

    def message_fields(self) -> dict[str, Any]:
        """What a `Message` takes from its metadata (the same for a row and an export)."""
        return {
            "visibility": self.visibility,
            "usage": self.usage,
            "inference": self.inference,
            "output_token_limit_reached": self.output_token_limit_reached,
            "steer": self.steer,
            "turn_context": self.turn_context,
            "metadata_raw": self.raw,
            "metadata_problem": self.problem,
        }


def visible_flag(value: Any) -> bool:
    """Mirrors goose's SQL `COALESCE(json_extract(…,'$.userVisible'), 1) != 0`."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    return True


def _int(mapping: dict[str, Any], key: str) -> int | None:
    return count(mapping.get(key))


def _str(mapping: dict[str, Any], key: str) -> str | None:
    value = mapping.get(key)
    return value if isinstance(value, str) else None


def _usage(raw: Any) -> MessageUsage | None:
    if not isinstance(raw, dict):
        return None
    return MessageUsage(
        tokens=TokenUsage(
            input_tokens=_int(raw, "inputTokens"),
            output_tokens=_int(raw, "outputTokens"),
            total_tokens=_int(raw, "totalTokens"),
            cache_read_tokens=_int(raw, "cacheReadTokens"),
            cache_write_tokens=_int(raw, "cacheWriteTokens"),
            reasoning_tokens=_int(raw, "reasoningTokens"),
        ),
        cost=amount(raw.get("cost")),
        cost_source=_str(raw, "costSource"),
        elapsed_ms=_int(raw, "elapsedMs"),
        time_to_first_token_ms=_int(raw, "timeToFirstTokenMs"),
        is_compaction=raw.get("isCompaction") is True,
    )


def _inference(raw: Any) -> Inference | None:
    if not isinstance(raw, dict):
        return None
    return Inference(
        provider=_str(raw, "provider"),
        requested_model=_str(raw, "requestedModel"),
        resolved_model=_str(raw, "resolvedModel"),
        provider_session_id=_str(raw, "providerSessionId"),
    )


_PLAIN = '{"userVisible":true,"agentVisible":true}'
"""What goose writes for most messages; recognised without parsing JSON."""


def parse_metadata(metadata_json: str | None) -> ParsedMetadata:
    if metadata_json is None or metadata_json.strip() == "":
        return ParsedMetadata()
    if metadata_json == _PLAIN:
        return ParsedMetadata(raw={"userVisible": True, "agentVisible": True})
    try:
        raw = json.loads(metadata_json)
    except (ValueError, RecursionError) as error:
        return ParsedMetadata(raw=metadata_json, problem=f"metadata is not valid JSON ({error})")
    return metadata_from(raw)


def metadata_from(raw: Any) -> ParsedMetadata:
    """Already parsed metadata (a goose export or legacy file holds it as JSON, not text);
    missing means goose's defaults."""
    if raw is None:
        return ParsedMetadata()
    if not isinstance(raw, dict):
        return ParsedMetadata(raw=raw, problem="metadata is not a JSON object")
    return ParsedMetadata(
        visibility=Visibility(
            user=visible_flag(raw.get("userVisible")), agent=visible_flag(raw.get("agentVisible"))
        ),
        usage=_usage(raw.get("usage")),
        inference=_inference(raw.get("inference")),
        output_token_limit_reached=raw.get("outputTokenLimitReached") is True,
        steer=raw.get("steer") is True,
        turn_context=raw.get("turnContext") is True,
        raw=raw,
    )
