"""A prompt's line in View ▸ Prompts…: its first words on one line, bounded, never blank."""

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import ImagePart, Part, TextPart
from desktop_app.rendering.outline import OUTLINE_CHARS, outline_entries, prompt_line


def _message(role: Role, parts: tuple[Part, ...], *, visible: bool = True) -> Message:
    return Message(
        session_id="s",
        row_id=1,
        message_id=None,
        role=role,
        role_raw=role.value,
        created_at=None,
        created_raw=None,
        parts=parts,
        visibility=Visibility(user=visible),
    )


def _prompt(*parts: Part, visible: bool = True) -> Message:
    return _message(Role.USER, parts, visible=visible)


def test_first_words_on_one_line() -> None:
    assert prompt_line(_prompt(TextPart(text="\n\n  Fix the\tbanner\nmargin  "))) == (
        "Fix the banner margin"
    )


def test_huge_prompt_is_cut_and_control_characters_are_seen() -> None:
    line = prompt_line(_prompt(TextPart(text="a\x1b[31m" + "x " * 10**6)))
    assert len(line) == OUTLINE_CHARS
    assert line.endswith("…")
    assert "\x1b" not in line


def test_a_prompt_without_words_says_what_it_holds() -> None:
    assert prompt_line(_prompt(TextPart(text="  "), ImagePart(mime_type="image/png"))) == (
        "(an image)"
    )
    assert prompt_line(_prompt()) == "(no text)"


def test_only_prompts_the_user_saw_unless_hidden_ones_are_shown() -> None:
    seen, unseen = _prompt(TextPart(text="a")), _prompt(TextPart(text="b"), visible=False)
    reply = _message(Role.ASSISTANT, (TextPart(text="c"),))
    assert [e.text for e in outline_entries([seen, unseen, reply], hidden=False)] == ["a"]
    assert [e.text for e in outline_entries([seen, unseen, reply], hidden=True)] == ["a", "b"]
