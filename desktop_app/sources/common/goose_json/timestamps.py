"""goose's timestamp forms → aware UTC datetimes.

Text columns may hold SQLite's `YYYY-MM-DD HH:MM:SS`, sqlx's `%F %T%.f` with up to nine fraction
digits, or RFC 3339 with `Z`/`±HH:MM`; sqlx also reads INTEGER as Unix seconds and REAL as a Julian
day. Message times are Unix seconds, or milliseconds above `MILLISECOND_THRESHOLD`.
"""

import re
from datetime import UTC, datetime, timedelta

MILLISECOND_THRESHOLD = 10_000_000_000
_UNIX_EPOCH_JULIAN_DAY = 2440587.5

_TEXT_FORM = re.compile(
    r"""^(?P<date>\d{4}-\d{2}-\d{2})[T ]
        (?P<h>\d{2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,9}))?)?
        \s*(?P<tz>Z|[+-]\d{2}:\d{2})?$""",
    re.VERBOSE,
)

_SQLITE_FORM = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}", re.ASCII)
"""SQLite's `datetime('now')`, `YYYY-MM-DD HH:MM:SS`, as goose stores nearly every time."""


def normalize_epoch(raw: int) -> int:
    """goose's `message_timestamp_to_datetime`: millisecond values are divided by 1000."""
    return raw // 1000 if raw > MILLISECOND_THRESHOLD else raw


def from_epoch(raw: float | None) -> datetime | None:
    """A stored Unix time (seconds, or milliseconds above the threshold; a REAL keeps its
    fraction) as a UTC datetime; `None` for values no calendar holds (NaN, ±inf, 10^30)."""
    if raw is None:
        return None
    try:
        if isinstance(raw, int):
            return datetime.fromtimestamp(normalize_epoch(raw), tz=UTC)
        return datetime.fromtimestamp(raw / 1000 if raw > MILLISECOND_THRESHOLD else raw, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_stored_time(value: object) -> datetime | None:
    """A `sessions.*_at` value as sqlx would decode it; `None` when it would not decode."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value if isinstance(value, int) else (value - _UNIX_EPOCH_JULIAN_DAY) * 86400.0
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    if _SQLITE_FORM.fullmatch(value):  # nearly every value: no groups, no string building
        try:
            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        except ValueError:  # no such day or hour; the full parser says the same
            return None
    return parse_text_form(value)


def parse_text_form(value: str) -> datetime | None:
    """Any of the text forms sqlx decodes (see the module's docstring)."""
    match = _TEXT_FORM.match(value.strip())
    if match is None:
        return None
    fraction = (match["f"] or "").ljust(6, "0")[:6]
    try:
        parsed = datetime.fromisoformat(
            f"{match['date']}T{match['h']}:{match['m']}:{match['s'] or '00'}.{fraction}"
        )
    except ValueError:
        return None
    zone = match["tz"]
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        parsed -= sign * offset
    return parsed.replace(tzinfo=UTC)


def iso_utc(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a `Z`, as the CLI's JSON promises."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
