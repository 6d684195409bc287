"""Removing secrets from exports (`gander show --redact`).

Transcripts are full of pasted configuration and tool output; before one is shared, API keys,
tokens, private keys and passwords are replaced by `[REDACTED:<kind>]`. The patterns aim at the
shapes secrets really have (prefixes, lengths, `key = value` assignments), and a corpus of
harmless look-alikes in the tests keeps them from eating ordinary words. Replacements contain no
quotes or backslashes, so redacted JSON stays valid JSON.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    keep: int = 0
    """How many leading groups to keep (e.g. the `password=` before the value)."""


_NL = r"(?:\n|\\n|\r\n|\\r\\n)"
_B = r"(?:(?<=\\[nrt])|\b)"
"""A word boundary that also holds right after an escaped newline or tab inside JSON text."""
_QUOTE = r"(?:[\"']|&quot;|&#x27;|\\\")?"
"""A quote around a key or value as it may appear in text, HTML or JSON."""

RULES = (
    _Rule(
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.|"
            + _NL
            + r")*?-----END [A-Z0-9 ]*PRIVATE KEY-----"
        ),
    ),
    _Rule("anthropic-key", re.compile(_B + r"sk-ant-[A-Za-z0-9_-]{20,}")),
    _Rule("openai-key", re.compile(_B + r"sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    _Rule(
        "github-token",
        re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    _Rule("aws-access-key", re.compile(_B + r"(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    _Rule("slack-token", re.compile(_B + r"xox[abposr]-[A-Za-z0-9-]{10,}")),
    _Rule("google-api-key", re.compile(_B + r"AIza[0-9A-Za-z_-]{35}\b")),
    _Rule("jwt", re.compile(_B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    _Rule(
        "authorization",
        re.compile(
            r"(?i)(\bauthorization"
            + _QUOTE
            + r"\s*[:=]\s*"
            + _QUOTE
            + r"(?:bearer|basic|token)?\s*)"
            r"[^\s\"'\\,;]{8,}"
        ),
        keep=1,
    ),
    _Rule("bearer-token", re.compile(r"(" + _B + r"[Bb]earer\s+)[A-Za-z0-9._~+/-]{16,}=*"), keep=1),
    _Rule(
        "password",
        re.compile(
            r"(?i)(\b(?:[a-z0-9]+_)*(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key"
            r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key"
            r"|secret[_-]?access[_-]?key)\b" + _QUOTE + r"\s*[:=]\s*" + _QUOTE + ")"
            r"(?!\[REDACTED)(?![<$\{\[])([^\s\"'\\,;]{4,})"
        ),
        keep=1,
    ),
    _Rule(
        "url-credentials",
        re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@\"'\\]+:[^/\s@\"'\\]+@"),
        keep=1,
    ),
)


def _keeping(prefix_groups: int, replacement: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        kept = "".join(match.group(i) or "" for i in range(1, prefix_groups + 1))
        return kept + replacement + ("@" if match.group(0).endswith("@") else "")

    return replace


def redact(text: str) -> str:
    for rule in RULES:
        replacement = f"[REDACTED:{rule.kind}]"
        if rule.keep:
            text = rule.pattern.sub(_keeping(rule.keep, replacement), text)
        else:
            text = rule.pattern.sub(replacement, text)
    return text
