"""Which of a rendered message's blocks a reader wants to see (View ▸ Conversation only, Hide
tool calls, Hide reasoning).

A coding session is mostly tool calls: a person rereading it for what was decided wants the
prompts and the answers, and another wants the commands but not the model's thinking. Shaping
only chooses among blocks already rendered, so changing it never reads or renders again and
is the same for every history: it looks at the message's role and the blocks' kinds, never at
the format."""

from dataclasses import dataclass

from desktop_app.domain.message import Message, Role
from desktop_app.rendering.transcript_blocks import Block, RenderedMessage

TOOL_KINDS = frozenset({"tool_call", "tool_result", "action"})
"""Blocks of a tool call, its result and its confirmation."""
CONVERSATION_KINDS = frozenset({"text", "image", "file", "link"})
"""What a person or a final answer says: its text, and what it attached."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Shaping:
    conversation_only: bool = False
    """Only prompts (whole) and final answers (their text and attachments): an assistant
    message that calls a tool, or is the agent's commentary between calls, is a step on the
    way, not an answer."""
    hide_tools: bool = False
    hide_reasoning: bool = False

    @property
    def everything(self) -> bool:
        return not (self.conversation_only or self.hide_tools or self.hide_reasoning)


EVERYTHING = Shaping()


def _is_answer(message: Message, rendered: RenderedMessage) -> bool:
    return (
        message.role is Role.ASSISTANT
        and not rendered.muted
        and not any(block.kind in TOOL_KINDS for block in rendered.blocks)
    )


def _kept(block: Block, shaping: Shaping, tool_message: bool) -> bool:
    if shaping.hide_reasoning and block.kind == "reasoning":
        return False
    return not (shaping.hide_tools and (tool_message or block.kind in TOOL_KINDS))


def shaped_blocks(
    message: Message, rendered: RenderedMessage, shaping: Shaping
) -> tuple[Block, ...]:
    """The blocks of `rendered` that `shaping` shows, in order; none when the whole message
    is shaped away (the window then folds its row)."""
    if shaping.everything:
        return rendered.blocks
    if shaping.conversation_only:
        if message.is_prompt:  # what a person wrote, an answer to the agent's question too
            return rendered.blocks
        if not _is_answer(message, rendered):
            return ()
        return tuple(block for block in rendered.blocks if block.kind in CONVERSATION_KINDS)
    tool_message = message.tool_results_only
    return tuple(block for block in rendered.blocks if _kept(block, shaping, tool_message))
