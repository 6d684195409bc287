"""A session (conversation) as listed and summarised, without its messages."""

from dataclasses import dataclass, field
from datetime import datetime

from desktop_app.domain.parts import JsonValue
from desktop_app.domain.usage import TokenUsage

DEFAULT_LIST_TYPES: tuple[str, ...] = ("user", "scheduled", "acp")
"""Session types goose's desktop list shows (ACP_VISIBLE_SESSION_TYPES)."""

SUB_AGENT = "sub_agent"


@dataclass(frozen=True, kw_only=True, slots=True)
class Session:
    id: str
    name: str
    """The display title: goose's `name`, or `description` when `name` is empty."""
    stored_name: str | None = None
    description: str | None = None
    user_set_name: bool = False
    session_type: str = "user"
    working_dir: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_message_at: datetime | None = None
    archived_at: datetime | None = None
    message_count: int | None = None
    """Messages the user could see; `None` until counted (lists count only what they show)."""
    parent_session_id: str | None = None
    has_children: bool = False
    provider: str | None = None
    model: str | None = None
    agent: str | None = None
    """The agent that ran the session (everruns' `agents.name`)."""
    status: str | None = None
    """The runtime's own state of the session (everruns: started, active, idle)."""
    context_limit: int | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    """The current context: the last provider call's figures."""
    accumulated_usage: TokenUsage = field(default_factory=TokenUsage)
    cost: float | None = None
    goose_mode: str | None = None
    schedule_id: str | None = None
    project_id: str | None = None
    recipe_title: str | None = None
    extension_data: JsonValue = field(default=None, compare=False, repr=False)
    model_config: JsonValue = field(default=None, compare=False, repr=False)
    raw_timestamps: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    list_key: float | None = field(default=None, compare=False, repr=False)
    """The value the reader sorts its list by (seconds since the epoch), exactly as its keyset
    cursor holds it, so a merged list of several histories can resume each one."""
    history: str | None = None
    """Which open history the session is from, when several are open (its tag)."""

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    @property
    def sort_at(self) -> datetime | None:
        """goose orders by last message time, falling back to `updated_at`."""
        return self.last_message_at or self.updated_at
