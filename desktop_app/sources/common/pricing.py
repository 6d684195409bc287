"""What a session would have cost, estimated from genai-prices where the agent records no cost.

genai-prices is Pydantic's maintained price database (cache read/write prices, price history):
its bundled snapshot is what is read, never its `UpdatePrices` (which fetches from the network),
so an estimate is the same offline as online and changes only with the installed package.

A session keeps its calls' tokens added up, not each call, so the estimate prices the sums at
the model's base rates on the session's last active day: a price tier that starts above some
input size per request (200k tokens for some models) cannot be told apart in a sum and is not
applied.
"""

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage, amount

if TYPE_CHECKING:
    from decimal import Decimal

    from genai_prices import Usage

SAMPLE = 100_000
"""Tokens of one kind priced at once to read a rate: below any per-request tier's start."""

LONGEST_MODEL = 200
"""Characters of the longest model name looked up."""
SHOWN_MODEL_CHARS = 60
"""Characters of a model's name in a note, the rest elided."""

RECORDED = "recorded"
ESTIMATED = "estimated"


@dataclass(frozen=True, slots=True)
class Rates:
    """Dollars per token, for the model genai-prices matched."""

    model: str
    uncached_input: float
    cache_read: float
    cache_write: float
    output: float


@dataclass(frozen=True, kw_only=True, slots=True)
class Cost:
    """A session's cost: the agent's own figure (`recorded`), genai-prices' (`estimated`), or
    none, with the sentence saying why (`note`)."""

    amount: float | None
    basis: str | None
    note: str = ""

    @property
    def estimated(self) -> bool:
        return self.basis == ESTIMATED


def _price(usage: "Usage", model: str, provider: str | None, at: datetime | None) -> "Decimal":
    import genai_prices  # noqa: PLC0415

    return genai_prices.calc_price(
        usage, model, provider_id=provider, genai_request_timestamp=at
    ).total_price


@lru_cache(maxsize=512)
def _rates(model: str, provider: str | None, day: datetime | None) -> Rates | None:
    """The model's rates on `day` (`None`: today's); the agent's provider first, then any
    provider that has the model (a stub or a proxy's provider name is no genai-prices id).
    genai-prices (half a second to import, its price table as much again) loads only when a
    session needs an estimate: `list` of a goose history that records its costs never does."""
    import genai_prices  # noqa: PLC0415
    from genai_prices import Usage  # noqa: PLC0415

    for candidate in dict.fromkeys((provider, None)):
        try:
            found = genai_prices.calc_price(
                Usage(input_tokens=SAMPLE),
                model,
                provider_id=candidate,
                genai_request_timestamp=day,
            )
            read = _price(
                Usage(input_tokens=SAMPLE, cache_read_tokens=SAMPLE), model, candidate, day
            )
            write = _price(
                Usage(input_tokens=SAMPLE, cache_write_tokens=SAMPLE), model, candidate, day
            )
            output = _price(Usage(output_tokens=SAMPLE), model, candidate, day)
        except (LookupError, ValueError, ArithmeticError):
            continue
        return Rates(
            model=found.model.id,
            uncached_input=float(found.total_price) / SAMPLE,
            cache_read=float(read) / SAMPLE,
            cache_write=float(write) / SAMPLE,
            output=float(output) / SAMPLE,
        )
    return None


def estimate(
    model: str | None, provider: str | None, tokens: TokenUsage, at: datetime | None
) -> Cost:
    """genai-prices' price of `tokens` (input counting its cache reads and writes, as every
    reader's `input_tokens` does) for `model` on the day of `at`."""
    if not model:
        return Cost(amount=None, basis=None, note="no model recorded: no estimate")
    if tokens.input_tokens is None and tokens.output_tokens is None:
        return Cost(amount=None, basis=None, note="no tokens recorded")
    named = model if len(model) <= SHOWN_MODEL_CHARS else model[: SHOWN_MODEL_CHARS - 1] + "…"
    day = at.replace(hour=0, minute=0, second=0, microsecond=0) if at is not None else None
    # No model's name is that long: a damaged log's megabyte is not matched (1.6 s a search).
    rates = _rates(model, provider, day) if len(model) <= LONGEST_MODEL else None
    if rates is None:
        return Cost(amount=None, basis=None, note=f"no price known for {named}: no estimate")
    read = tokens.cache_read_tokens or 0
    write = tokens.cache_write_tokens or 0
    uncached = max(0, (tokens.input_tokens or 0) - read - write)
    total = amount(
        uncached * rates.uncached_input
        + read * rates.cache_read
        + write * rates.cache_write
        + (tokens.output_tokens or 0) * rates.output
    )
    if total is None:
        return Cost(amount=None, basis=None, note="tokens past any price: no estimate")
    return Cost(amount=total, basis=ESTIMATED, note=f"estimated from genai-prices ({rates.model})")


def session_cost(
    session: Session, tokens: TokenUsage | None = None, cost: float | None = None
) -> Cost:
    """The session's recorded cost, else its estimate: of its own calls, or of `tokens` (its
    sub-agents' with its own) when given, the recorded `cost` of those then."""
    recorded = session.cost if tokens is None else cost
    if recorded is not None:
        return Cost(amount=recorded, basis=RECORDED, note="recorded by the agent")
    return estimate(
        session.model,
        session.provider,
        session.accumulated_usage if tokens is None else tokens,
        session.updated_at or session.created_at,
    )
