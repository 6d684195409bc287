"""Web results as links (#19 item 3, Web): what Claude Code's `WebSearch`/`WebFetch` and Gemini
CLI's `google_web_search`/`web_fetch` brought back — the results' titles as links, only where
the link rule allows, each with its site beside it; a fetch's status and size — in the window's
blocks, the HTML export and the Markdown export. Read from sessions the agents' own code wrote
(tests/fixtures/agents/README.md); nothing is ever fetched."""

import re
from html import unescape
from pathlib import Path

from desktop_app.domain.actions import WebResults
from desktop_app.domain.message import Message
from desktop_app.domain.parts import Part, TextPart, ToolCallPart, ToolResultPart
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.tool_cards import MAX_ROWS, call_label
from desktop_app.rendering.transcript_blocks import Block, MessageRenderer
from desktop_app.sources.claude_code import format as claude_format
from desktop_app.sources.gemini_cli import format as gemini_format
from tests.unit.test_hostile import message

AGENTS = Path(__file__).parents[1] / "fixtures" / "agents"
CLAUDE_WEB = next((AGENTS / "claude_code" / "web" / "2.1.110").rglob("*.jsonl"))
GEMINI_WEB = next((AGENTS / "gemini_cli" / "web").rglob("session-*.jsonl"))
TRANSPORTS = "https://www.python-httpx.org/advanced/transports/"


def _parts(messages: list[Message]) -> list[Part]:
    return [part for m in messages for part in m.parts]


def _claude() -> list[Message]:
    return list(claude_format.parse(CLAUDE_WEB, CLAUDE_WEB.read_bytes()).messages)


def _gemini() -> list[Message]:
    return list(gemini_format.parse(GEMINI_WEB, GEMINI_WEB.read_bytes()).messages)


def _results(messages: list[Message]) -> list[tuple[ToolCallPart, ToolResultPart]]:
    """Each call with the last result that answers it."""
    calls = {p.call_id: p for p in _parts(messages) if isinstance(p, ToolCallPart)}
    answered = {
        p.call_id: p for p in _parts(messages) if isinstance(p, ToolResultPart) and p.call_id
    }
    return [(calls[i], answered[i]) for i in calls if i in answered]


def _blocks(result: ToolResultPart, call: ToolCallPart) -> list[Block]:
    names = {call.call_id or "": call_label(call)}
    return list(MessageRenderer().render(message(result), names).blocks)


def _visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def _links(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_a_web_search_shows_its_results_as_links_in_the_window_and_both_exports() -> None:
    (search, result), fetch, _ = _results(_claude())
    first, returned = _blocks(result, search)
    assert first.title.endswith("2 results · " + first.title.rsplit(" · ", 1)[1])  # then its time
    assert f'<a href="{TRANSPORTS}">Transports - HTTPX</a>' in first.html
    assert "www.python-httpx.org" in _visible(first.html).replace("Transports - HTTPX", "")
    assert "I'll search for how httpx retries." in _visible(first.html)
    # The text Claude Code gave the model (its "Links:" JSON, its reminder) is one click away.
    assert returned.title == "As returned to the model"
    assert "REMINDER" in str(returned.code_blocks[0])
    html = "".join(HtmlWriter().messages([message(search), message(result)]))
    assert f'href="{TRANSPORTS}"' in html
    markdown = "".join(MarkdownWriter().messages([message(search), message(result)]))
    assert f"- Transports - HTTPX <{TRANSPORTS}>" in markdown
    assert "> I'll search for how httpx retries." in markdown
    del fetch


def test_a_page_fetched_says_how_the_server_answered_and_what_the_page_said() -> None:
    _, (fetch, result), (_, failed) = _results(_claude())
    (block,) = _blocks(result, fetch)  # its answer is the text the model got: said once
    assert " · 200 OK · 168 B · " in block.title
    assert "retried three times" in _visible(block.html)
    markdown = MarkdownWriter().part(result)
    assert "*200 OK · 168 B · " in markdown
    assert "> The page says a webhook is retried three times" in markdown
    assert failed.outcome is None  # a failed fetch is its error, as before
    (error,) = _blocks(failed, fetch)
    assert error.error


def test_gemini_sources_are_links_too() -> None:
    (search, result), (fetch, fetched), _ = _results(_gemini())
    block = _blocks(result, search)[0]
    assert block.title.endswith("2 results")
    assert f'<a href="{TRANSPORTS}">Transports - HTTPX</a>' in block.html
    assert 'href="https://github.com/encode/httpx/discussions/2847"' in block.html
    assert f'<a href="{TRANSPORTS}">python-httpx.org</a>' in _blocks(fetched, fetch)[0].html


def test_only_allowed_urls_become_links_and_every_title_is_escaped() -> None:
    outcome = WebResults(
        links=(
            ("click me", "javascript:alert(1)"),
            ("<script>alert(1)</script>", "https://ok.example/a"),
            ("a local file", "file:///etc/passwd"),
            ("an unclosed host", "https://[::1/x"),
        ),
        summary="<b>bold?</b>",
        status_text="<i>OK</i>",
        status=200,
    )
    result = ToolResultPart(call_id="c1", outcome=outcome, content=(TextPart(text="x"),))
    call = ToolCallPart(call_id="c1", name="WebSearch", arguments={})
    html = "".join(b.html for b in _blocks(result, call))  # titles are plain text
    assert "<script" not in html
    assert "<b>bold" not in html
    assert [link for link in _links(html) if not link.startswith("gander-")] == [
        "https://ok.example/a",
        "https://[::1/x",  # allowed by the link rule; its host, unreadable, is not named
    ]
    assert "javascript:alert(1)" in _visible(html)  # shown, as text
    assert "file:///etc/passwd" in _visible(html)
    exported = "".join(HtmlWriter().messages([message(result)]))
    assert "<i>OK" not in exported
    assert "<script" not in exported
    assert not any(link.startswith(("javascript", "file")) for link in _links(exported))
    markdown = MarkdownWriter().part(result)
    assert "<https://ok.example/a>" in markdown
    assert "`javascript:alert(1)`" in markdown
    assert "<javascript:" not in markdown


def test_ten_thousand_results_are_listed_in_part_and_counted() -> None:
    links = tuple((f"hit {n}", f"https://example.com/{n}") for n in range(10_000))
    result = ToolResultPart(call_id="c1", outcome=WebResults(links=links))
    call = ToolCallPart(call_id="c1", name="WebSearch", arguments={})
    (block,) = _blocks(result, call)
    assert block.html.count("<li>") <= MAX_ROWS + 1
    assert "more results" in block.html
    assert block.title.endswith("10,000 results")
