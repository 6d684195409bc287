"""Anthropic Messages API content blocks → parts.

Claude Code keeps each line's `message` as the API returned or received it, and a toolnexus
transcript in the Anthropic dialect stores the same blocks; both readers map them here, then
apply what is their own (Claude Code's tool actions, toolnexus' attachment parts; each withholds
thinking signatures before mapping). Blocks: `text`, `image`, `document`, `tool_use` and
`server_tool_use`, `tool_result` and the server tools' `*_tool_result`, `thinking`,
`redacted_thinking`; anything else is kept as unsupported with its JSON.
"""

from collections.abc import Callable
from typing import Any

from desktop_app.domain.parts import (
    FilePart,
    ImagePart,
    Part,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop_app.sources.common.raw_json import dump, unsupported


def content_parts(content: Any, part: Callable[[Any], Part]) -> list[Part]:
    """A message's `content` as both the Anthropic and the OpenAI chat APIs allow it — a string
    (one text part, none when empty) or a list of blocks, each mapped by `part`."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextPart(text=content, raw=content)] if content else []
    if isinstance(content, list):
        return [part(block) for block in content]
    return [unsupported(content, "content is neither text nor a list of parts")]


def _source_part(block: dict[str, Any], file: bool) -> Part:
    source = block.get("source")
    if not isinstance(source, dict):
        return unsupported(block, "an attachment without a source")
    media = source.get("media_type") if isinstance(source.get("media_type"), str) else None
    data = source.get("data") if source.get("type") == "base64" else None
    url = source.get("url") if source.get("type") == "url" else None
    if file:
        return FilePart(mime_type=media, name=block.get("title"), data_b64=data, url=url, raw=block)
    return ImagePart(mime_type=media, data_b64=data, url=url, raw=block)


def anthropic_part(block: Any) -> Part:
    """One content block (a bare string is text); a tool result's content mapped block by
    block. A thinking block keeps its signature here: the caller withholds it."""
    if isinstance(block, str):
        return TextPart(text=block, raw=block)
    if not isinstance(block, dict):
        return unsupported(block, "not a content block")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(text=block["text"], raw=block)
    if kind in ("image", "document"):
        return _source_part(block, file=kind == "document")
    if kind in ("tool_use", "server_tool_use"):
        return ToolCallPart(
            call_id=block.get("id") if isinstance(block.get("id"), str) else None,
            name=block.get("name") if isinstance(block.get("name"), str) else None,
            arguments=block.get("input"),
            raw=block,
        )
    if kind == "tool_result" or (isinstance(kind, str) and kind.endswith("_tool_result")):
        content = block.get("content")
        items = content_parts(content, anthropic_part) if isinstance(content, str | list) else []
        if content is not None and not isinstance(content, str | list):
            items = [TextPart(text=dump(content), raw=content)]
        return ToolResultPart(
            call_id=block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None,
            is_error=block.get("is_error") is True,
            content=tuple(items),
            raw=block,
        )
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return ReasoningPart(
            text=block["thinking"],
            signature=block.get("signature") if isinstance(block.get("signature"), str) else None,
            raw=block,
        )
    if kind == "redacted_thinking":
        data = block.get("data")
        return RedactedReasoningPart(data=data if isinstance(data, str) else None, raw=block)
    return unsupported(block, f"unknown content block {kind!r}")
