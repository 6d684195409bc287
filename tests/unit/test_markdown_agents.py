"""Markdown as coding agents write it (issue #19, item 6): file names are no links, identifiers
and paths are never emphasis, links to local paths are code-styled paths, never links; and
Claude Code's own notices (item 7): its compaction summary is rendered Markdown, collapsed, its
slash commands and their output are compact notices with their terminal styles drawn."""

import re
from pathlib import Path

import pytest

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import NotificationPart, Part, TextPart
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.session import Session
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.markdown_html import (
    NO_WRAP_LABEL,
    WORD_LOOK,
    WRAP_LABEL,
    WRAP_SCHEME,
    code_frame,
    is_identifier_or_path,
    local_path,
    markdown_to_html,
    render_markdown,
    wrap_pre,
)
from desktop_app.rendering.transcript_blocks import Block, MessageRenderer
from desktop_app.sources.registry import open_history


def paragraph(text: str) -> str:
    html = markdown_to_html(text).strip()
    assert html.startswith("<p>"), html
    assert html.endswith("</p>"), html
    return html[3:-4]


@pytest.mark.parametrize(
    "text",
    ["hello.py", "README.md", "setup.py and main.rs", "docs/guide.md", "app.config.ts"],
)
def test_a_bare_file_name_is_no_link(text: str) -> None:
    assert "<a" not in markdown_to_html(f"I edited {text}.")


def test_schemes_and_www_stay_links() -> None:
    html = markdown_to_html("see https://x.org/a_b_c and www.example.com")
    assert '<a href="https://x.org/a_b_c">https://x.org/a_b_c</a>' in html
    assert '<a href="http://www.example.com">' in html


@pytest.mark.parametrize(
    "text",
    [
        "the __tests__ folder",
        "edit src/__init__.py now",
        "run __init__.py",
        "in /usr/lib/__pycache__/x.pyc",
        "call __main__ or (__name__)",
        "snake_case_words everywhere",
        "_private_var and my_var_",
        "os.__file__ and obj._cache_",
        r"C:\Users\me\my_project\a",
        "**__main__**",
    ],
)
def test_identifiers_and_paths_are_never_emphasis(text: str) -> None:
    html = paragraph(text)
    assert "<em>" not in html
    assert html.replace("<strong>", "").replace("</strong>", "") == text.replace("**", "")


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("_this_ matters", "<em>this</em> matters"),
        ("a _few words_ here.", "a <em>few words</em> here."),
        ("__bold words__, *star* and **strong**", None),
        ("see _this_.", "see <em>this</em>."),
    ],
)
def test_emphasis_in_prose_stays_emphasis(text: str, html: str | None) -> None:
    shown = paragraph(text)
    if html is not None:
        assert shown == html
    else:
        assert shown.count("<strong>") == 2
        assert shown.count("<em>") == 1


def test_a_long_word_is_never_emphasis() -> None:
    """A word longer than `WORD_LOOK` is a hash, an identifier or a path."""
    word = "_" + "x" * (WORD_LOOK + 10) + "_"
    assert paragraph(word) == word


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("[toolbar.css](src/toolbar.css)", "<code>src/toolbar.css</code>"),
        ("[a](/home/u/a.py)", "a (<code>/home/u/a.py</code>)"),
        ("[b.py](file:///home/u/b.py)", "<code>file:///home/u/b.py</code>"),
        ("<file:///home/u/my%20notes.md>", "<code>file:///home/u/my notes.md</code>"),
        ("[line 12](src/x.py:12)", "line 12 (<code>src/x.py:12</code>)"),
        ("[c](./rel/c.md)", "c (<code>./rel/c.md</code>)"),
        ("[a.py](src/ba.py)", "a.py (<code>src/ba.py</code>)"),
        ("[`x`](../x.py)", "<code>x</code> (<code>../x.py</code>)"),
        ("![shot](/tmp/shot.png)", "[image: shot] <code>/tmp/shot.png</code>"),
    ],
)
def test_local_path_links_are_code_styled_paths(text: str, html: str) -> None:
    shown = paragraph(text)
    assert shown == html
    assert "<a" not in shown


@pytest.mark.parametrize(
    "text",
    ["[j](javascript:alert(1))", "[d](data:text/html,x)", "[n](//host/share)", "[h](#top)"],
)
def test_other_addresses_stay_text_as_before(text: str) -> None:
    assert paragraph(text) == text.replace("&", "&amp;")


def test_the_rules_read_words_and_addresses_as_agents_write_them() -> None:
    assert is_identifier_or_path("(src/__init__.py),")
    assert not is_identifier_or_path("_word_.")
    assert local_path("README.md:12")
    assert not local_path("https://x.org")
    assert not local_path("vbscript:msgbox")


def test_a_code_block_has_a_header_with_its_language_and_links() -> None:
    rendered = render_markdown("```python\nprint(1)\n```\n\n```\nplain\n```")
    header = re.findall(r'<table class="code".*?</table>', rendered.html)
    assert len(header) == 2
    assert ">python</span>" in header[0]
    assert f'<a href="{WRAP_SCHEME}:0">{NO_WRAP_LABEL}</a> · <a href="gander-copy:0">' in header[0]
    assert '<a href="gander-copy:1">Copy</a>' in header[1]
    assert rendered.code_blocks == ("print(1)\n", "plain\n")


def test_wrapping_is_switched_on_every_preformatted_part() -> None:
    frame = code_frame("c", "", 0, dark=False)
    html = f'<pre style="background-color:#fff;white-space:pre">a</pre><pre>b</pre>{frame}'
    wrapped = wrap_pre(html, wrap=True)
    assert wrapped.count('<pre style="white-space:pre-wrap') == 3
    assert '<pre style="white-space:pre-wrap;background-color:#fff">' in wrapped
    unwrapped = wrap_pre(wrapped, wrap=False)
    assert unwrapped.count('<pre style="white-space:pre') == 3
    assert "pre-wrap" not in unwrapped
    assert f">{WRAP_LABEL}</a>" in unwrapped


CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude_code"
COMPACTED = (
    CLAUDE / "written" / "2.1.110" / "-tmp-ccrun-v21110-payments-api",
    "6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e",
)
"""Claude Code 2.1.110: a prompt, its answer, then `/compact` (written by Claude Code)."""
HOOKS = (
    CLAUDE / "written" / "1.0.128" / "-tmp-ccrun-v10128-payments-api",
    "8a6a6fac-acd0-4652-bce8-5020afab80f8",
)
"""Claude Code 1.0.128: its hook lines say `Running \\x1b[1mPostToolUse:Read\\x1b[22m...`."""


def _notices(folder: Path, session: str) -> list[tuple[NotificationPart, Block]]:
    source = open_history(folder)
    renderer = MessageRenderer()
    found = []
    for message in iter_messages(source, session):
        for part, block in zip(message.parts, renderer.render(message).blocks, strict=False):
            if isinstance(part, NotificationPart):
                found.append((part, block))
    return found


def test_a_compaction_summary_is_a_collapsed_notice_rendered_as_markdown() -> None:
    """Genuine: Claude Code folds its summary behind "ctrl+o to see full summary"."""
    (summary,) = [b for p, b in _notices(*COMPACTED) if p.notification_type == "compactionSummary"]
    assert summary.kind == "notice"
    assert summary.title == "Compaction summary"
    assert summary.collapsible
    assert summary.collapsed
    assert summary.preview.startswith("This session is being continued")
    assert summary.html.startswith("<p>This session is being continued")
    assert "<code>/tmp/ccrun-v21110/home/.claude/projects/" not in summary.html  # prose, no link


def test_a_summary_in_markdown_shows_no_marks() -> None:
    part = NotificationPart(
        notification_type="compactionSummary",
        text="**Primary Request and Intent**:\n\n- fix `retry()` in src/__init__.py\n- _keep_ it",
    )
    (block,) = MessageRenderer().render(_message(part)).blocks
    assert "**" not in block.html
    assert "<strong>Primary Request and Intent</strong>" in block.html
    assert "src/__init__.py" in block.html
    assert block.preview.startswith("Primary Request and Intent")
    assert "**" not in block.preview


def test_slash_commands_and_their_output_are_compact_notices() -> None:
    shown = {(p.notification_type, b.title, b.collapsible) for p, b in _notices(*COMPACTED)}
    assert ("slashCommand", "Slash command", False) in shown
    assert ("commandOutput", "Command output", False) in shown
    output = next(b for p, b in _notices(*COMPACTED) if p.notification_type == "commandOutput")
    assert "font-family:monospace" in output.html
    assert "Compacted (ctrl+o to see full summary)" in output.html


def test_a_notice_draws_its_terminal_styles() -> None:
    """Genuine: the hook lines' bold is drawn, never shown as `\\x1b[1m` or a box."""
    hooks = [b for p, b in _notices(*HOOKS) if p.notification_type == "system"]
    assert hooks
    for block in hooks:
        assert "\x1b" not in block.html
        assert '<span style="font-weight:bold">PostToolUse:' in block.html


def test_command_output_keeps_its_colours() -> None:
    part = NotificationPart(
        notification_type="commandOutput", text="\x1b[31mError:\x1b[0m context\x1b[2K\x1b[1G"
    )
    (block,) = MessageRenderer().render(_message(part)).blocks
    assert re.search(r'<span style="color:#[0-9a-f]{6}">Error:</span> context', block.html)
    assert "\x1b" not in block.html


def _message(*parts: Part) -> Message:
    return Message(
        session_id="s",
        row_id=1,
        message_id="m",
        role=Role.SYSTEM,
        role_raw="system",
        created_at=None,
        created_raw=1,
        parts=parts,
        visibility=Visibility(),
    )


def test_the_markdown_export_writes_notices_without_escapes() -> None:
    """Genuine hook lines lose their `\\x1b[1m`; a command's output lines stay lines."""
    source = open_history(HOOKS[0])
    writer = MarkdownWriter(include_hidden=True)
    written = "".join(writer.message(m) for m in iter_messages(source, HOOKS[1]))
    assert "*System:* Running PostToolUse:Read..." in written
    assert "\x1b" not in written
    output = NotificationPart(
        notification_type="commandOutput", text="Line 1\n\x1b[2mLine 2\x1b[22m"
    )
    assert "*Command output:*\n\n```\nLine 1\nLine 2\n```" in writer.message(_message(output))


def test_the_html_export_shows_a_code_block_without_the_windows_links() -> None:
    """Its header keeps the language; its dark colours come from the page's stylesheet, which
    overrides the light background the window draws."""
    writer = HtmlWriter(include_hidden=True)
    reply = _message(TextPart(text="```python\nprint(1)\n```"))
    page = writer.header(Session(id="s", name="code")) + writer.message(reply) + writer.footer()
    assert '<table class="code"' in page
    assert ">python</span>" in page
    assert WRAP_SCHEME not in page
    assert "gander-copy" not in page
    assert "table.code + pre { background: #1c2128 !important; }" in page
