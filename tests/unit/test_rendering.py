"""Markdown → safe Qt rich text, transcript blocks, and highlighting."""

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import (
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.rendering.highlight import highlight_html
from desktop_app.rendering.markdown_html import markdown_to_html
from desktop_app.rendering.transcript_blocks import MessageRenderer


def test_raw_html_is_text_and_images_are_never_loaded() -> None:
    html = markdown_to_html(
        "<script>alert(1)</script> <img src=http://evil/x.png>\n\n![pic](https://evil/p.png)"
    )
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "<img" not in html
    assert '<a href="https://evil/p.png">[image: pic]</a>' in html


def test_gfm_features() -> None:
    html = markdown_to_html(
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~\n\n- [x] done\n- [ ] todo\n\n"
        "see www.example.com"
    )
    assert '<table border="1"' in html
    assert "<s>gone</s>" in html
    assert "☑ done" in html
    assert "☐ todo" in html
    assert '<a href="http://www.example.com">' in html


def test_a_file_name_is_not_a_link() -> None:
    """linkify-it links a bare `name.md` or `name.py` (country codes) to a site; GFM does not
    (a Codex reply: "Built it and wrote NOTES.md.")."""
    html = markdown_to_html(
        "Built it and wrote NOTES.md, ran setup.py and main.rs; see https://x.org/a, "
        "www.example.com and me@example.com"
    )
    assert "<a" not in html.split("; see ")[0]
    assert "NOTES.md, ran setup.py and main.rs;" in html
    assert '<a href="https://x.org/a">' in html
    assert '<a href="http://www.example.com">' in html
    assert '<a href="mailto:me@example.com">' in html


def test_code_is_highlighted_with_inline_styles() -> None:
    html = markdown_to_html("```python\ndef f():\n    return 1\n```")
    assert "><code>" in html.split("<pre", 1)[1]
    assert 'style="' in html
    assert "class=" not in html.split("<code", 1)[1].split(">", 1)[1]


def test_highlight_only_touches_text() -> None:
    html, count = highlight_html('<a href="retry">Retry</a> and RETRY &quot;x&quot;', "retry")
    assert count == 2
    assert '<a href="retry">' in html
    assert html.count("<span style=") == 2
    quoted, found = highlight_html("say &quot;hi&quot; now", '"hi"')
    assert found == 1
    assert '>"hi"</span>' in quoted
    assert highlight_html("abc", "") == ("abc", 0)


def test_blocks_for_every_kind_of_part() -> None:
    message = Message(
        session_id="s",
        row_id=1,
        message_id="m",
        role=Role.ASSISTANT,
        role_raw="assistant",
        created_at=None,
        created_raw=1,
        parts=(
            ReasoningPart(text="think " * 100),
            TextPart(text="hello **world**"),
            ToolCallPart(call_id="t1", name="developer__shell", arguments={"command": "ls"}),
            ToolResultPart(call_id="t1", content=(TextPart(text="a\nb\nc"),)),
            ImagePart(mime_type="image/png", data_b64="iVBORw0KGgo="),
            UnsupportedPart(
                source_type="x", raw_text='{"type":"x"}', reason="unknown content type 'x'"
            ),
        ),
        visibility=Visibility(user=False, agent=True),
    )
    rendered = MessageRenderer().render(message, {"t1": "shell"})
    kinds = [b.kind for b in rendered.blocks]
    assert kinds == ["reasoning", "text", "tool_call", "tool_result", "image", "unsupported"]
    reasoning, text, call, result, image, unsupported = rendered.blocks
    assert reasoning.collapsible
    assert reasoning.collapsed
    assert reasoning.preview.endswith("…")
    assert "<strong>world</strong>" in text.html
    assert call.title == "developer · shell"
    assert result.title == "Result · shell · ✓ ok"
    assert result.size_label == "3 lines"
    assert result.collapsed
    assert image.image_index == 0
    assert rendered.images[0].mime_type == "image/png"
    assert unsupported.error
    assert rendered.agent_only
