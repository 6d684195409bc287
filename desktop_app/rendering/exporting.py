"""One session written whole as Markdown, HTML or JSON: what `gander show` and File ▸ Export
both do. Messages are read a page at a time and written as they come, so a session of any size
exports in bounded memory; with `redact`, the session and each message are redacted as domain
objects before any format sees them, so every format is redacted alike."""

import json
from collections.abc import Callable, Iterable
from typing import Literal

from desktop_app.domain.jsontext import dumps
from desktop_app.domain.message import Message
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.session import Session
from desktop_app.domain.source import Source
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.json_export import message_to_json, session_json
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.redact import redact as redacted

ExportFormat = Literal["md", "html", "json"]
SUFFIXES: dict[ExportFormat, str] = {"md": ".md", "html": ".html", "json": ".json"}


def export_session(
    source: Source,
    session: Session,
    fmt: ExportFormat,
    write: Callable[[str], object],
    *,
    hidden: bool = False,
    redact: bool = False,
) -> None:
    messages: Iterable[Message] = iter_messages(source, session.id)
    shown = session
    if redact:
        shown = redacted(session)
        messages = (redacted(message) for message in messages)
    if fmt == "json":
        _json(session_json(source, shown), messages, hidden, write)
    elif fmt == "html":
        html = HtmlWriter(include_hidden=hidden)
        write(html.header(shown))
        for chunk in html.messages(messages):
            write(chunk)
        write(html.footer())
    else:
        writer = MarkdownWriter(include_hidden=hidden)
        write(writer.header(shown, shown.message_count))
        for chunk in writer.messages(messages):
            write(chunk + "\n")


def _json(
    session: dict[str, object],
    messages: Iterable[Message],
    hidden: bool,
    write: Callable[[str], object],
) -> None:
    write('{"session": ' + json.dumps(session) + ',\n "messages": [')
    first = True
    for message in messages:
        if not hidden and not message.visibility.user:
            continue
        shown = dumps(message_to_json(message), ascii_only=True, standard=True)
        write(("" if first else ",") + "\n  " + shown)
        first = False
    write("\n]}\n")
