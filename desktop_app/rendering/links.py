"""The one rule for links from a history: only absolute `http`, `https` and `mailto` URLs become
links, whichever part they come from (Markdown, autolinks, images, MCP resource links, file
references). Anything else — `javascript:`, `file:`, `data:`, relative paths, other schemes, URLs
with spaces or control characters — is shown as text, never as something to click."""

ALLOWED_SCHEMES = ("http", "https", "mailto")
MAX_LINK = 8192


def safe_link(url: str | None) -> str | None:
    """`url` when it may be offered as a link, else `None`."""
    if not url or len(url) > MAX_LINK:
        return None
    if any(ord(char) <= 0x20 or 0x7F <= ord(char) <= 0x9F for char in url):
        return None
    scheme, colon, rest = url.partition(":")
    scheme = scheme.lower()
    if not colon or scheme not in ALLOWED_SCHEMES:
        return None
    if scheme != "mailto" and not (rest.startswith("//") and len(rest) > 2):
        return None
    if scheme == "mailto" and "@" not in rest:
        return None
    return url
