"""Small, shared ways of writing numbers, sizes and times for people."""

import base64
import binascii
import math
from datetime import UTC, datetime
from pathlib import Path


def tokens(value: int | None) -> str:
    """1234 → "1.2k", 5_600_000 → "5.6M"; any integer, however large, in a few characters."""
    if value is None:
        return "–"
    magnitude = abs(value)
    for limit, divisor, suffix in (
        (10**15, 0, ""),
        (10**12, 10**12, "T"),
        (10**9, 10**9, "B"),
        (10**6, 10**6, "M"),
        (10**4, 10**3, "k"),
        (10**3, 10**3, "k"),
    ):
        if magnitude >= limit:
            if not divisor:
                return f"{value:.2e}"
            digits = 0 if limit == 10**4 else 1
            return f"{value / divisor:.{digits}f}{suffix}"
    return str(value)


def cost(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    if abs(value) >= 1e9:
        return f"${value:.3g}"
    return f"${value:.4f}" if abs(value) < 0.01 else f"${value:,.2f}"


def byte_size(count: int) -> str:
    size = float(count)
    for unit in ("B", "kB", "MB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def base64_size(data: str | None) -> int:
    """Decoded size of base64 text without decoding it."""
    if not data:
        return 0
    stripped = data.strip()
    return max(0, len(stripped) * 3 // 4 - stripped[-2:].count("="))


def decode_base64(data: str | None) -> bytes | None:
    if not data:
        return None
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def utc_time(value: datetime | None) -> str:
    if value is None:
        return "unknown time"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 0


_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
_C1 = {code: f"\\x{code:02x}" for code in range(0x80, 0xA0)}
_TERMINAL_SAFE = str.maketrans(_CONTROL_PICTURES | _C1)


def terminal_safe(text: str) -> str:
    """Text from a history as it may be printed to a terminal: every control character (ESC and
    the sequences it starts, BEL, NUL, newlines and tabs that would break a row, C1 controls) is
    replaced by a visible picture of it, so a session name can neither drive the terminal nor
    forge output lines."""
    return text.translate(_TERMINAL_SAFE)


def home_relative(location: str) -> str:
    """A path under the home folder as `~/…` (how a person reads it); anything else as it is."""
    home = str(Path.home())
    if home not in ("", "/") and (location == home or location.startswith(home + "/")):
        return "~" + location[len(home) :]
    return location
