"""Tool calls shown as what they did (#19 items 3, 4, 9 and 11's rendering tests): every action
and outcome renders in the window's blocks, the HTML export and the Markdown export; every
stored field is escaped; hostile inputs stay bounded — counted (lines compared, rows shown),
never timed."""

import re
from collections.abc import Iterator
from functools import cache
from html import unescape
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain.actions import (
    Action,
    EditOutcome,
    FileContent,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    OtherTool,
    Outcome,
    PatchHunk,
    QuestionAnswers,
    QuestionItem,
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    SubAgentTask,
    TextReplacement,
    TodoItem,
    TodoList,
    UserQuestion,
    WebAccess,
)
from desktop_app.domain.message import Message
from desktop_app.domain.parts import TextPart, ToolCallPart, ToolResultPart
from desktop_app.rendering import diffs
from desktop_app.rendering.colours import AA_CONTRAST, DARK, LIGHT, contrast
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.tool_cards import (
    MAX_ROWS,
    TERMINAL_DARK,
    TERMINAL_LIGHT,
    call_label,
)
from desktop_app.rendering.transcript_blocks import Block, MessageRenderer
from desktop_app.search.documents import to_document
from desktop_app.sources.claude_code import format as claude_format
from desktop_app.sources.codex import format as codex_format
from desktop_app.sources.gemini_cli import format as gemini_format
from desktop_app.sources.pi import format as pi_format
from tests.fixtures.html_oracle import live_markup
from tests.unit.test_hostile import message

PATCH = """*** Begin Patch
*** Add File: docs/hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch"""

ACTIONS: dict[str, tuple[Action, str, str]] = {
    # action, the words its card's title says, a text its body shows
    "edit": (
        FileEdit(
            path="src/toolbar.css",
            replacements=(
                TextReplacement(
                    old=".banner {\n  margin-top: 0;\n}", new=".banner {\n  margin-top: 4px;\n}"
                ),
            ),
        ),
        "Edit src/toolbar.css (+1 −1)",
        "margin-top: 4px;",
    ),
    "patch": (FileEdit(patch=PATCH), "Edit 3 files (+2 −1)", 'print("Hello, world!")'),
    "write": (
        FileWrite(path="src/app.py", content="def main():\n    return 42\n"),
        "Write src/app.py (2 lines)",
        "return",
    ),
    "read": (
        FileRead(path="docs/ref.png", first_line=10, line_count=41),
        "Read docs/ref.png · lines 10–50",
        "docs/ref.png",
    ),
    "shell": (
        ShellCommand(command="npm test -- toolbar", workdir="/work/site"),
        "Ran npm test -- toolbar",
        "$ npm test -- toolbar",
    ),
    "search": (FileSearch(pattern="TODO", scope="src"), "Searched TODO in src", "TODO"),
    "todo": (
        TodoList(
            items=(
                TodoItem(text="Write the test", status="completed"),
                TodoItem(text="Fix the toolbar", status="in_progress"),
                TodoItem(text="Ship it", status="pending"),
            )
        ),
        "Todo list · 1 of 3 done",
        "Fix the toolbar",
    ),
    "web": (
        WebAccess(url="https://example.com/docs", prompt="Find the API"),
        "Fetched https://example.com/docs",
        "Find the API",
    ),
    "web search": (
        WebAccess(query="qt rich text tables"),
        "Searched the web for qt rich text tables",
        "qt rich text tables",
    ),
    "sub-agent": (
        SubAgentTask(description="Explore the toolbar", prompt="Find **where** it is drawn"),
        "Sub-agent: Explore the toolbar",
        "where",
    ),
    "question": (
        UserQuestion(
            questions=(
                QuestionItem(question="Which colour?", header="Theme", options=("Red", "Blue")),
            )
        ),
        "Asked: Which colour?",
        "Blue",
    ),
    "other": (
        OtherTool(server="github", tool="create_issue", arguments={"title": "a\nb", "n": 3}),
        "github · create_issue",
        "title",
    ),
}

OUTCOMES: dict[str, tuple[Outcome, str, str]] = {
    # outcome, the words its result's title adds, a text its body shows
    "shell": (
        ShellOutcome(stdout="ok 1\nnot ok 2", stderr="boom", exit_code=1, duration_ms=1500),
        "✗ exit 1 · 1.5 s",
        "not ok 2",
    ),
    "file": (
        FileContent(path="src/app.py", text="alpha\nbeta\n", first_line=12, total_lines=90),
        "2 lines of 90",
        "beta",
    ),
    "edit": (
        EditOutcome(
            path="src/toolbar.css",
            hunks=(
                PatchHunk(
                    old_start=7,
                    old_lines=3,
                    new_start=7,
                    new_lines=3,
                    lines=(" .banner {", "-  margin-top: 0;", "+  margin-top: 4px;", " }"),
                ),
            ),
        ),
        "+1 −1",
        "margin-top: 4px;",
    ),
    "search": (
        SearchMatches(paths=tuple(f"src/f{i}.py" for i in range(14))),
        "14 files",
        "src/f13.py",
    ),
    "answers": (QuestionAnswers(answers=(("Which colour?", "Blue"),)), "1 answer", "Blue"),
}


def _visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def _call(action: Action, call_id: str = "c1") -> ToolCallPart:
    name = action.tool if isinstance(action, OtherTool) else type(action).__name__
    arguments = action.arguments if isinstance(action, OtherTool) else {"a": 1}
    return ToolCallPart(call_id=call_id, name=name, arguments=arguments, action=action)


def _rendered(*parts: Any, names: dict[str, str] | None = None) -> list[Block]:
    return list(MessageRenderer().render(message(*parts), names).blocks)


def _exports(*messages: Message) -> tuple[str, str]:
    html = "".join(HtmlWriter().messages(messages))
    markdown = "".join(MarkdownWriter().messages(messages))
    return html, markdown


@pytest.mark.parametrize("name", list(ACTIONS))
def test_every_action_renders_in_the_window_and_both_exports(name: str) -> None:
    action, title, shown = ACTIONS[name]
    (block,) = _rendered(_call(action))
    assert block.title == title
    assert shown in _visible(block.html)
    assert block.html.startswith('<p align="right"><a href="gander-copy:0">Copy JSON</a>')
    html, markdown = _exports(message(_call(action)))
    assert shown in _visible(html)
    assert "gander-copy" not in html  # the window's own links are not in the page
    words = shown.replace("**", "")
    assert words in markdown or shown in markdown


@pytest.mark.parametrize("name", list(OUTCOMES))
def test_every_outcome_renders_in_the_window_and_both_exports(name: str) -> None:
    outcome, words, shown = OUTCOMES[name]
    result = ToolResultPart(
        call_id="c1", content=(TextPart(text="as stored"),), status="success", outcome=outcome
    )
    block = _rendered(result, names={"c1": "Ran x"})[0]
    assert block.title.startswith("Result · Ran x · ")
    assert block.title.endswith(words)
    assert shown in _visible(block.html)
    call = _call(ShellCommand(command="x"))
    html, markdown = _exports(message(call), message(result))
    assert shown in _visible(html)
    assert shown in markdown


def test_an_edit_is_a_unified_diff_with_its_context_folded() -> None:
    old = "\n".join(f"line {n}" for n in range(1, 41))
    new = old.replace("line 20", "line twenty")
    action = FileEdit(path="a.txt", replacements=(TextReplacement(old=old, new=new),))
    (block,) = _rendered(_call(action))
    text = _visible(block.html)
    assert "16 unchanged lines" in text  # lines 1–16 folded, 17–19 kept as context
    assert "line 17" in text
    assert "line 16" not in text.replace("16 unchanged", "")
    assert "-line 20" in text.replace("\n", "") or ("line 20" in text and "twenty" in text)
    assert 'class="del" bgcolor="#ffebe9"' in block.html
    assert 'class="add" bgcolor="#dafbe1"' in block.html
    assert block.title == "Edit a.txt (+1 −1)"


def test_several_replacements_are_hunks_of_one_card() -> None:
    action = FileEdit(
        path="a.py",
        replacements=(
            TextReplacement(old="one", new="uno"),
            TextReplacement(old="two", new="dos", replace_all=True),
        ),
    )
    (block,) = _rendered(_call(action))
    assert block.title == "Edit a.py (+2 −2)"
    assert "replacement 1 of 2" in block.html
    assert "replacement 2 of 2" in block.html


def test_a_codex_patch_is_a_diff_per_file() -> None:
    (block,) = _rendered(_call(FileEdit(patch=PATCH)))
    text = _visible(block.html)
    for path in ("docs/hello.txt", "src/app.py", "obsolete.txt"):
        assert path in text
    assert "new file" in text
    assert "deleted" in text
    assert "moved · → src/main.py" in text
    markdown = MarkdownWriter().part(_call(FileEdit(patch=PATCH)))
    assert '```diff\n@@ def greet():\n-print("Hi")\n+print("Hello, world!")\n```' in markdown


def test_a_unified_diff_keeps_its_line_numbers_and_a_removed_sql_comment() -> None:
    patch = "--- a/q.sql\n+++ b/q.sql\n@@ -4,2 +4,2 @@\n--- old comment\n+-- new comment\n x\n"
    (diff,) = diffs.parse_patch(patch, limit=10_000)
    assert diff.path == "q.sql"
    assert [(line.sign, line.old, line.new) for line in diff.lines] == [
        ("@", None, None),
        ("-", 4, None),
        ("+", None, 4),
        (" ", 5, 5),
    ]


def test_a_structured_patch_has_the_files_line_numbers() -> None:
    outcome = OUTCOMES["edit"][0]
    result = ToolResultPart(call_id="c1", outcome=outcome)
    block = _rendered(result)[0]
    cells = re.findall(r'<td align="right" width="\d+">(\d*)</td>', block.html)
    assert cells[:8] == ["", "", "7", "7", "8", "", "", "8"]


def test_a_read_shows_the_files_line_numbers_as_a_gutter() -> None:
    stored = "    12→alpha\n    13→beta"
    result = ToolResultPart(
        call_id="c1", content=(TextPart(text=stored),), outcome=OUTCOMES["file"][0]
    )
    blocks = _rendered(result)
    assert len(blocks) == 1  # the stored text says nothing the gutter does not
    text = _visible(blocks[0].html)
    assert "12 │ alpha" in text
    assert "13 │ beta" in text
    assert "→" not in text


def test_a_failed_command_is_red_and_open_a_passing_one_collapsed() -> None:
    failed = ToolResultPart(call_id="c1", outcome=ShellOutcome(stdout="x", exit_code=2))
    passed = ToolResultPart(call_id="c1", outcome=ShellOutcome(stdout="x", exit_code=0))
    (red,) = _rendered(failed)
    (green,) = _rendered(passed)
    assert red.error
    assert not red.collapsed
    assert "✗ exit 2" in red.title
    assert not green.error
    assert green.collapsed
    assert "✓ exit 0" in green.title
    errored = ToolResultPart(call_id="c1", content=(TextPart(text="no"),), is_error=True)
    assert not _rendered(errored)[0].collapsed


def test_a_shell_card_title_is_the_agents_description() -> None:
    action = ShellCommand(command="npm test", description="Run the toolbar tests")
    (block,) = _rendered(_call(action))
    assert block.title == "Run the toolbar tests"
    assert "$ npm test" in _visible(block.html)
    assert call_label(_call(action)) == "Ran npm test"


def test_output_escapes_are_removed_never_shown() -> None:
    outcome = ShellOutcome(stdout="\x1b[31mred\x1b[0m \x1b]0;title\x07done\x00", exit_code=0)
    block = _rendered(ToolResultPart(call_id="c1", outcome=outcome))[0]
    text = _visible(block.html)
    assert "red done" in text
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", block.html)
    markdown = MarkdownWriter().part(ToolResultPart(call_id="c1", outcome=outcome))
    assert "\x1b" not in markdown


def test_the_result_names_its_call_in_words() -> None:
    call = _call(ShellCommand(command="npm test"), "c9")
    result = ToolResultPart(call_id="c9", outcome=ShellOutcome(stdout="", exit_code=1))
    html, markdown = _exports(message(call), message(result))
    assert "Result · Ran npm test · ✗ exit 1" in unescape(html)
    assert "#### Tool result: `Ran npm test`" in markdown
    search = ToolResultPart(call_id="c8", outcome=OUTCOMES["search"][0], status="success")
    names = {"c8": call_label(_call(FileSearch(pattern="TODO"), "c8"))}
    assert _rendered(search, names=names)[0].title == "Result · Searched TODO · ✓ ok · 14 files"


def test_an_unmapped_tool_is_named_server_then_tool() -> None:
    """goose's `<extension>__<tool>`: the extension first, as `server · tool` reads."""
    call = ToolCallPart(call_id="c1", name="developer__shell", arguments={"command": "ls"})
    assert call_label(call) == "developer · shell"
    (block,) = _rendered(call)
    assert block.title == "developer · shell"
    raw = ToolCallPart(call_id="c2", name="developer__shell", arguments="ls")  # not an object
    assert _rendered(raw)[0].title == "developer · shell"


CODEX_MCP = (
    Path(__file__).parents[1]
    / "fixtures/agents/codex/sessions/2026/01/02"
    / "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
)


def test_an_mcp_tool_is_named_by_its_server_not_by_mcp() -> None:
    """Claude Code's and Codex's `mcp__<server>__<tool>` (Codex's genuine `mcp__synthetic__
    lookup`): "synthetic · lookup" in the window's card and its result, the HTML export and the
    Markdown export, never "synthetic__lookup · mcp"."""
    messages = list(codex_format.parse(CODEX_MCP, CODEX_MCP.read_bytes()).messages)
    titles = [block.title for block in _window_blocks(messages)]
    assert "synthetic · lookup" in titles
    assert "Result · synthetic · lookup" in titles
    assert not [title for title in titles if "· mcp" in title or "synthetic__" in title]
    html, markdown = _exports(*messages)
    assert "synthetic · lookup" in unescape(html)
    assert "synthetic__lookup" not in html
    assert "#### Tool call: `synthetic` · `lookup`" in markdown
    assert "#### Tool result: `synthetic · lookup`" in markdown
    claude = ToolCallPart(call_id="c3", name="mcp__github__create_issue", arguments={"n": 1})
    assert _rendered(claude)[0].title == "github · create_issue"
    assert call_label(claude) == "github · create_issue"


def test_other_tools_show_arguments_as_a_key_value_table_of_text() -> None:
    action, _, _ = ACTIONS["other"]
    (block,) = _rendered(_call(action))
    assert '<td valign="top"><b>title</b></td>' in block.html
    assert "a\nb" in block.html  # a string as text, its line break kept, not `\n`
    assert "\\n" not in block.html
    assert "<code>3</code>" in block.html


def test_the_markdown_export_writes_diffs_commands_and_task_lists() -> None:
    writer = MarkdownWriter()
    edit = writer.part(_call(ACTIONS["edit"][0]))
    assert "```diff\n" in edit
    assert "\n-  margin-top: 0;\n+  margin-top: 4px;\n" in edit
    shell = writer.part(_call(ShellCommand(command="npm test")))
    assert "```console\n$ npm test\n```" in shell
    todo = writer.part(_call(ACTIONS["todo"][0]))
    assert "- [x] Write the test\n- [ ] Fix the toolbar *(in progress)*\n- [ ] Ship it" in todo
    write = writer.part(_call(ACTIONS["write"][0]))
    assert "```python\ndef main():" in write


HOSTILE = "<script>alert(1)</script>"


def _hostile_actions() -> Iterator[Action]:
    h = HOSTILE
    yield FileEdit(path=h, replacements=(TextReplacement(old=h, new=h + "x"),))
    yield FileEdit(patch=f"*** Begin Patch\n*** Update File: {h}\n-{h}\n+{h}\n*** End Patch")
    yield FileWrite(path=h, content=h)
    yield FileRead(path=h)
    yield ShellCommand(command=h, description=h, workdir=h)
    yield FileSearch(pattern=h, scope=h, glob=h)
    yield TodoList(items=(TodoItem(text=h, status="unknown", status_raw=h),), explanation=h)
    yield WebAccess(url=f"javascript:{h}", query=h, prompt=h)
    yield SubAgentTask(description=h, prompt=h, agent_type=h)
    yield UserQuestion(questions=(QuestionItem(question=h, header=h, options=(h,)),))
    yield OtherTool(server=h, tool=h, arguments={h: h})


def _hostile_outcomes() -> Iterator[Outcome]:
    h = HOSTILE
    yield ShellOutcome(stdout=h, stderr=h)
    yield FileContent(path=h, text=h)
    yield EditOutcome(path=h, hunks=(PatchHunk(lines=(f"-{h}", f"+{h}")),))
    yield SearchMatches(paths=(h,))
    yield QuestionAnswers(answers=((h, h),))


def test_every_field_is_escaped_and_only_allowed_links_are_links() -> None:
    parts: list[ToolCallPart | ToolResultPart] = [
        _call(action, f"c{n}") for n, action in enumerate(_hostile_actions())
    ]
    parts += [ToolResultPart(call_id="c0", outcome=o) for o in _hostile_outcomes()]
    rendered = _rendered(*parts)
    assert len(rendered) == len(parts)
    for block in rendered:
        assert "<script" not in block.html, block.title
        assert "javascript:" not in re.findall(r'href="([^"]*)"', block.html)
    html, _ = _exports(message(*parts))
    assert "<script" not in html
    assert not any(link.startswith("javascript") for link in re.findall(r'href="([^"]*)"', html))


class _Counted:
    """`diffs.edit_script` with its calls and steps counted."""

    def __init__(self) -> None:
        self.calls = 0
        self.steps = 0
        self._script = diffs.edit_script

    def __call__(self, a: Any, b: Any, budget: int) -> Any:
        self.calls += 1
        found = self._script(a, b, budget)
        self.steps += found[1] if found else budget
        return found


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> _Counted:
    counter = _Counted()
    monkeypatch.setattr(diffs, "edit_script", counter)
    return counter


def test_a_twenty_megabyte_old_string_is_never_compared(counted: _Counted) -> None:
    old = "x = 1\n" * 3_500_000  # 21 MB
    action = FileEdit(path="big.py", replacements=(TextReplacement(old=old, new="x = 2\n"),))
    (block,) = _rendered(_call(action))
    assert counted.calls == 0
    assert block.title == "Edit big.py (+1 −3500000)"
    assert "Too large to compare" in block.html
    assert block.html.count("<tr") <= diffs.MAX_LINES
    assert len(block.html) < 2_000_000
    markdown = MarkdownWriter().part(_call(action))
    assert counted.calls == 0
    assert len(markdown) < 2_000_000


REPEATED = {
    # texts of a few repeated lines: difflib took 86 s for the last
    "alternating": (["a", "b"] * 1_000, ["b", "a"] * 1_000),
    "braces": (["}"] * 1_000 + ["x"] * 900, ["x"] * 900 + ["}"] * 1_000),
    "interleaved": ([str(n % 7) for n in range(1_999)], [str(n % 5) for n in range(1_999)]),
    "four values": (["a", "b", "c", "d"] * 500, ["a", "c", "b", "d", "e"] * 400),
    "all different": ([f"a{n}" for n in range(3_000)], [f"b{n}" for n in range(3_000)]),
}


@pytest.mark.parametrize("name", list(REPEATED))
def test_a_comparison_takes_a_bounded_number_of_steps(name: str) -> None:
    old, new = REPEATED[name]
    found = diffs.edit_script(old, new, diffs.DIFF_STEPS)
    if found is not None:
        ops, steps = found
        assert steps <= diffs.DIFF_STEPS + diffs.MAX_EDITS + len(old) + len(new) + 1
        assert [old[i] for sign, i, _ in ops if sign != "+"] == old
        assert [new[j] for sign, _, j in ops if sign != "-"] == new
    diff = diffs.compare("\n".join(old), "\n".join(new), path="p", limit=64_000)
    assert len(diff.lines) <= diffs.MAX_LINES
    assert diff.compared == (found is not None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=25), st.lists(st.sampled_from("abcd"), max_size=25)
)
def test_an_edit_script_is_a_shortest_one(old: list[str], new: list[str]) -> None:
    found = diffs.edit_script(old, new, diffs.DIFF_STEPS)
    assert found is not None
    ops, _ = found
    assert [old[i] for sign, i, _ in ops if sign != "+"] == old
    assert [new[j] for sign, _, j in ops if sign != "-"] == new
    assert all(old[i] == new[j] for sign, i, j in ops if sign == " ")
    kept = sum(sign == " " for sign, _, _ in ops)
    assert kept == _longest_common(tuple(old), tuple(new))


@cache
def _longest_common(old: tuple[str, ...], new: tuple[str, ...]) -> int:
    if not old or not new:
        return 0
    if old[0] == new[0]:
        return 1 + _longest_common(old[1:], new[1:])
    return max(_longest_common(old[1:], new), _longest_common(old, new[1:]))


def test_a_small_edit_is_compared(counted: _Counted) -> None:
    old = "\n".join(f"line {n}" for n in range(3_000))
    new = old.replace("line 1500\n", "line fifteen hundred\n")
    (block,) = _rendered(
        _call(FileEdit(path="p", replacements=(TextReplacement(old=old, new=new),)))
    )
    assert counted.calls == 1  # the title's counts and the card share one comparison
    assert counted.steps < 20_000
    assert block.title == "Edit p (+1 −1)"


def test_a_binary_files_diff_shows_no_control_characters() -> None:
    binary = "".join(chr(n) for n in range(256)) * 4
    action = FileEdit(
        path="logo.png", replacements=(TextReplacement(old=binary, new=binary[::-1]),)
    )
    (block,) = _rendered(_call(action))
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", block.html.replace("\n", ""))
    assert "␀" in block.html
    html, _ = _exports(message(_call(action)))
    assert "\x00" not in html


def test_ten_thousand_todo_items_show_a_bounded_checklist() -> None:
    items = tuple(TodoItem(text=f"step {n}", status="pending") for n in range(10_000))
    (block,) = _rendered(_call(TodoList(items=items)))
    assert block.html.count("☐ step") == MAX_ROWS
    assert "8,000 more items not shown" in block.html
    assert block.title == "Todo list · 0 of 10000 done"
    markdown = MarkdownWriter().part(_call(TodoList(items=items)))
    assert markdown.count("- [ ] step") == 10_000  # an export writes every item


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_diff_rows_read_in_both_themes(theme: Any) -> None:
    rows = diffs.DARK_ROWS if theme.dark else diffs.LIGHT_ROWS
    for colour in filter(None, rows.values()):
        assert contrast(theme.text, colour) >= AA_CONTRAST, colour


def test_the_words_of_a_command_or_an_edit_are_found() -> None:
    action = FileEdit(
        path="src/toolbar.css",
        replacements=(TextReplacement(old="margin\nbanner", new="padding\nheader"),),
    )
    document = to_document(message(_call(action), _call(ShellCommand(command="make\ncheck"))))
    words = set(re.findall(r"\w+", document.tools))
    assert {"banner", "header", "check", "toolbar"} <= words


def test_a_huge_file_written_is_shown_in_part_with_show_more_and_copy_all() -> None:
    content = "word " * 400_000
    action = FileWrite(path="big.txt", content=content)
    (block,) = _rendered(_call(action))
    assert len(block.html) < 100_000
    assert '<a href="gander-more:0">Show more</a>' in block.html
    assert '<a href="gander-copy:1">Copy all</a>' in block.html
    assert block.code_blocks[1] is content
    assert block.collapsed  # one line, but 2 MB: collapsed by its size


def test_the_html_export_folds_results_in_details_and_opens_failures() -> None:
    call = _call(ShellCommand(command="make"), "c1")
    passed = ToolResultPart(call_id="c1", outcome=ShellOutcome(stdout="fine", exit_code=0))
    failed = ToolResultPart(call_id="c1", outcome=ShellOutcome(stdout="bad", exit_code=2))
    write = _call(FileWrite(path="big.txt", content="word " * 400_000), "c2")
    html, _ = _exports(message(call), message(passed), message(failed), message(write))
    assert '<details class="block tool_result"><summary>Result · Ran make · ✓ exit 0' in html
    assert '<details class="block tool_result error" open><summary>Result · Ran make · ✗' in html
    assert "<script" not in html
    assert "gander-" not in html
    assert "more not shown</i></p>" in html


CLAUDE_TOOLS = (
    Path(__file__).parents[1]
    / "fixtures/agents/claude_code/tools/2.1.110/-tmp-ccrun-tools21110-payments-api"
    / "536541d2-9ea2-466e-8880-fe934c05bb3a.jsonl"
)


def test_a_genuine_claude_code_session_reads_as_what_its_tools_did() -> None:
    """Claude Code 2.1.110's own log (Write, Read, Edit, Grep, Glob, Bash, AskUserQuestion):
    the window's blocks, named as the window names results, and both exports."""
    messages = list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages)
    blocks = _window_blocks(messages)
    by_title = {block.title: block for block in blocks}
    handlers = "/tmp/ccrun-tools21110/payments-api/app/handlers.py"
    edit = by_title[f"Edit {handlers} (+1 −1)"]
    assert 'class="del"' in edit.html
    assert 'class="add"' in edit.html
    applied = by_title[f"Result · Edit {handlers} · ✓ ok · +1 −1"]
    assert re.search(r'<td align="right" width="\d+">\d+</td>', applied.html)  # line numbers
    read = by_title[f"Result · Read {handlers} · ✓ ok · 2 lines of 7"]
    assert "4 │ \n5 │ def retry(event):" in _visible(read.html)
    assert "→" not in _visible(read.html)
    failed = next(b for b in blocks if b.title.startswith("Result · Ran python3 -c"))
    assert failed.title.endswith("✗ exit 3")
    assert failed.error
    assert not failed.collapsed
    assert "checking" in _visible(failed.html)
    assert "Run the checks" in by_title
    assert "Result · Asked: Should retry copy the event? · ✓ ok · 1 answer" in by_title
    html, markdown = _exports(*messages)
    assert "Result · Ran python3 -c" in unescape(html)
    assert "```diff\n" in markdown
    assert "$ python3 -c" in markdown


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_command_output_reads_on_its_own_shade(theme: Any) -> None:
    shade = TERMINAL_DARK if theme.dark else TERMINAL_LIGHT
    assert shade != theme.tool_card
    for colour in (theme.text, theme.muted, theme.error):
        assert contrast(colour, shade) >= AA_CONTRAST, colour


def test_a_file_written_whole_claims_no_line_counts_and_a_failure_says_its_code_once() -> None:
    written = ToolResultPart(call_id="c1", outcome=EditOutcome(path="a.py", created=True))
    (block,) = _rendered(written)
    assert block.title.endswith("· created")
    assert "+0" not in block.html
    failed = ToolResultPart(
        call_id="c1",
        content=(TextPart(text="Exit code 3\nchecking"),),
        outcome=ShellOutcome(stdout="checking", exit_code=3),
    )
    assert [b.title for b in _rendered(failed)] == ["Result · ✗ exit 3"]


def test_a_search_whose_stored_text_is_its_list_of_paths_is_shown_once() -> None:
    outcome = SearchMatches(paths=("app/a.py", "app/b.py"))
    listed = ToolResultPart(
        call_id="c1", content=(TextPart(text="Found 2 files\napp/a.py\napp/b.py"),), outcome=outcome
    )
    assert len(_rendered(listed)) == 1
    more = ToolResultPart(
        call_id="c1", content=(TextPart(text="app/a.py\nsee also app/c.py"),), outcome=outcome
    )
    assert [b.title for b in _rendered(more)][1] == "As returned to the model"


def test_a_patch_of_many_files_lists_a_hundred_and_counts_the_rest() -> None:
    sections = "".join(f"*** Add File: f{n}.txt\n+line {n}\n" for n in range(5_000))
    action = FileEdit(patch=f"*** Begin Patch\n{sections}*** End Patch")
    (block,) = _rendered(_call(action))
    assert block.title == "Edit 5,000 files (+5000 −0)"
    assert block.html.count("<code>f") == diffs.MAX_FILES
    assert "… 4,900 more files: +4900 −0" in block.html


def test_a_twenty_megabyte_patch_is_read_only_in_part(monkeypatch: pytest.MonkeyPatch) -> None:
    lines: list[int] = []
    read = diffs._patch_lines

    def counted(patch: str) -> Iterator[str]:
        for line in read(patch):
            lines.append(len(line))
            yield line

    monkeypatch.setattr(diffs, "_patch_lines", counted)
    body = "".join(f"-old {n}\n+new {n}\n" for n in range(1_000_000))
    patch = f"--- a/big.txt\n+++ b/big.txt\n@@ -1,1000000 +1,1000000 @@\n{body}"
    (found,) = [d for d in diffs.parse_patch(patch, limit=64_000) if d.operation != "unread"]
    assert sum(lines) + len(lines) <= diffs.PATCH_CHARS
    (block,) = _rendered(_call(FileEdit(patch=patch)))
    assert block.title == "Edit big.txt (+1000000 −1000000)"
    assert "the rest of the patch" in block.html
    assert found.path == "big.txt"


def test_ten_thousand_questions_of_ten_thousand_options_show_a_bounded_list() -> None:
    options = tuple(f"option {n}" for n in range(10_000))
    questions = tuple(QuestionItem(question=f"q{n}?", options=options) for n in range(10_000))
    (block,) = _rendered(_call(UserQuestion(questions=questions)))
    assert block.html.count("○ option") <= MAX_ROWS
    assert "more options not shown" in block.html


def test_the_markdown_of_an_edit_names_each_file_only_when_there_are_several() -> None:
    writer = MarkdownWriter()
    one = writer.part(_call(ACTIONS["edit"][0]))
    assert one.count("src/toolbar.css") == 1  # the headline's, not a second line
    several = writer.part(_call(FileEdit(patch=PATCH)))
    assert "`docs/hello.txt` (add, +1 −0)" in several
    assert "`src/app.py` → `src/main.py` (move, +1 −1)" in several
    created = ToolResultPart(call_id="c1", outcome=EditOutcome(path="a.py", created=True))
    assert writer.part(created).endswith("Created `a.py`")


CODEX = Path(__file__).parents[1] / "fixtures/agents/codex"
CODEX_TOOLS = (
    CODEX
    / "tools/2026/12/01/rollout-2026-12-01T11-42-11-01a23169-9218-7721-b525-38fc4c9e844b.jsonl"
)
CODEX_PATCH = (
    CODEX / "cli/2026/12/01/rollout-2026-12-01T09-05-37-01a230da-37ba-73b2-b6ea-3ce96d36fe7d.jsonl"
)


def _window_blocks(messages: list[Message]) -> list[Block]:
    names: dict[str, str] = {}
    blocks: list[Block] = []
    for item in messages:
        for part in item.parts:
            if isinstance(part, ToolCallPart) and part.call_id and part.tool:
                names[part.call_id] = call_label(part)
        blocks.extend(MessageRenderer().render(item, names).blocks)
    return blocks


def test_genuine_codex_sessions_read_as_what_their_tools_did() -> None:
    """Codex's own rollouts: update_plan a checklist, a failing shell command red and open
    with its exit code and time, web_search its query, apply_patch a diff of its file."""
    tools = list(codex_format.parse(CODEX_TOOLS, CODEX_TOOLS.read_bytes()).messages)
    by_title = {block.title: block for block in _window_blocks(tools)}
    plan = by_title["Todo list · 1 of 3 done"]
    assert "☑" in plan.html
    assert "◐" in plan.html
    failed = by_title["Result · Ran echo checking; exit 3 · ✗ exit 3 · 203 ms"]
    assert failed.error
    assert not failed.collapsed
    assert "Searched the web for make test exit code 3" in by_title
    patch = list(codex_format.parse(CODEX_PATCH, CODEX_PATCH.read_bytes()).messages)
    edit = next(b for b in _window_blocks(patch) if b.title == "Edit NOTES.md (+1 −0)")
    assert "new file" in _visible(edit.html)
    assert 'class="add"' in edit.html
    _, markdown = _exports(*tools)
    assert "- [x] " in markdown
    assert "```console\n$ echo checking; exit 3\n```" in markdown


def test_no_card_has_live_markup() -> None:
    """Every card is made of the tags and attributes Gander's HTML may hold (the oracle of
    tests/fixtures/html_oracle.py), in the window and in the export."""
    parts: list[ToolCallPart | ToolResultPart] = [
        _call(action, f"c{n}") for n, (action, _, _) in enumerate(ACTIONS.values())
    ]
    parts += [ToolResultPart(call_id="c0", outcome=o) for o, _, _ in OUTCOMES.values()]
    parts += [_call(action, f"h{n}") for n, action in enumerate(_hostile_actions())]
    parts += [ToolResultPart(call_id="h0", outcome=o) for o in _hostile_outcomes()]
    for dark in (False, True):
        for block in MessageRenderer(dark=dark).render(message(*parts)).blocks:
            assert live_markup(block.html) == [], block.title
    html, _ = _exports(message(*parts))
    assert live_markup(html, document=True) == []


def test_a_task_or_a_question_is_titled_in_the_agents_words_not_as_code() -> None:
    writer = MarkdownWriter()
    assert writer.part(_call(ACTIONS["sub-agent"][0])).startswith(
        "#### Tool call: `SubAgentTask`\n\n**Sub-agent:** Explore the toolbar"
    )
    assert "**Asked:** Which colour?" in writer.part(_call(ACTIONS["question"][0]))
    assert "**Searched** `TODO`" in writer.part(_call(FileSearch(pattern="TODO")))


def test_a_long_path_keeps_its_end_in_a_title() -> None:
    path = "/home/someone/" + "deeply/nested/" * 8 + "src/toolbar.css"
    (block,) = _rendered(_call(FileRead(path=path)))
    assert block.title.startswith("Read …")
    assert block.title.endswith("/src/toolbar.css")
    assert len(block.title) < 100


def test_an_ansi_bomb_in_a_commands_output_stays_bounded() -> None:
    bomb = "\x1b[1;31;4m\x1b[0m" * 500_000 + "\x1b[38;5;" + "9" * 100_000 + "mdone"
    outcome = ShellOutcome(stdout=bomb, exit_code=0)
    (block,) = _rendered(ToolResultPart(call_id="c1", outcome=outcome))
    assert len(block.html) < 20 * 64_000
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", block.html)
    assert "more not shown" in block.html


def test_a_collapsed_reads_preview_has_no_line_number_arrows() -> None:
    result = ToolResultPart(
        call_id="c1",
        content=(TextPart(text="     1→def ping():\n     2→    return 1"),),
        outcome=FileContent(text="def ping():\n    return 1", first_line=1),
    )
    (block,) = _rendered(result)
    assert block.preview == "def ping(): return 1"


def test_a_long_text_argument_is_shown_after_the_table_not_in_a_cell() -> None:
    """Qt lays out a table cell's text far more slowly than a paragraph's: a 19 MB argument of
    a tool no reader maps, shown in part in a cell after Show more twice, held the window 2.3 s
    (`benchmarks.window`)."""
    text = "word " * 100_000
    other = OtherTool(
        server="developer", tool="text_editor", arguments={"path": "/tmp/n.md", "file_text": text}
    )
    (block,) = _rendered(_call(other))
    table_end = block.html.index("</table>")
    assert "/tmp/n.md" in block.html[:table_end]  # a short argument stays in the table
    assert block.html.index("<b>file_text</b>") > table_end
    assert "word word" in block.html[table_end:]


def test_a_question_answered_marks_the_chosen_option_among_them() -> None:
    """Claude Code 2.1.110's own AskUserQuestion, answered "Copy it" in its screen: the result
    lists the question's options with the chosen one marked, in the window, HTML and Markdown."""
    messages = list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages)
    answered = next(
        b for b in _window_blocks(messages) if b.title.startswith("Result · Asked: Should retry")
    )
    shown = _visible(answered.html)
    assert "● Copy it chosen" in shown
    assert "○ Keep it" in shown
    assert "<b>Copy it</b>" in answered.html
    html, markdown = _exports(*messages)
    assert "● Copy it chosen" in _visible(html)
    assert "- [x] **Copy it** *(chosen)*\n- [ ] Keep it" in markdown


def test_several_answers_are_each_marked_and_a_typed_one_is_said_as_such() -> None:
    """Claude Code joins several choices and the text typed in "Other" with ", " (its own
    screen's code); a label may hold ", " itself."""
    asked = QuestionItem(
        question="Which checks?",
        options=("Lint", "Types, strict", "Tests"),
        multiple=True,
    )
    single = QuestionItem(question="Which colour?", options=("Red", "Blue"))
    outcome = QuestionAnswers(
        answers=(("Which checks?", "Types, strict, Tests, fuzzing"), ("Which colour?", "teal")),
        questions=(asked, single),
    )
    result = ToolResultPart(call_id="c1", outcome=outcome)
    shown = _visible(_rendered(result)[0].html)
    assert "☐ Lint☑ Types, strict chosen☑ Tests chosen☑ fuzzing typed, not one" in shown
    assert "○ Red○ Blue● teal typed, not one of the options" in shown
    _, markdown = _exports(message(result))
    assert "- [ ] Lint\n- [x] **Types, strict** *(chosen)*\n- [x] **Tests** *(chosen)*" in markdown
    assert "- [x] **teal** *(typed, not one of the options)*" in markdown
    unknown = QuestionAnswers(answers=(("Asked elsewhere?", "yes"),))
    assert "yes" in _visible(_rendered(ToolResultPart(call_id="c1", outcome=unknown))[0].html)


AGENTS = Path(__file__).parents[1] / "fixtures" / "agents"
RETURNED = "As returned to the model"


def test_gemini_ask_user_answers_are_marked_and_a_free_text_answer_is_the_answer() -> None:
    """On the recording gemini-cli-core 0.61.0's own `ask_user` wrote: the chosen options
    marked; a `text` question has no options, so its answer is not "not one of the options"."""
    path = next((AGENTS / "gemini_cli" / "ask_user").rglob("session-*.jsonl"))
    parsed = gemini_format.parse(path, path.read_bytes())
    results = [m for m in parsed.messages if any(isinstance(p, ToolResultPart) for p in m.parts)]
    shown = _visible("".join(b.html for b in MessageRenderer().render(results[0]).blocks))
    assert "● SQLite chosen○ PostgreSQL" in shown
    assert "☑ Tags chosen☑ Search chosen☐ Sync" in shown
    assert "● notes.sqlite3" in shown
    assert "not one of the options" not in shown
    _, markdown = _exports(results[0])
    assert "What should the database file be called?\n\n- [x] **notes.sqlite3**\n" in markdown
    assert "not one of the options" not in markdown


def _returned_after(messages: list[Message]) -> list[str]:
    """The results followed by their stored text under "As returned to the model"."""
    blocks = _window_blocks(messages)
    return [before.title for before, block in pairwise(blocks) if block.title == RETURNED]


def test_a_result_is_not_shown_twice_when_its_stored_text_says_what_the_card_does() -> None:
    """Genuine logs: Claude Code 2.1.110's "File created successfully at: …", "The file … has
    been updated successfully." and its answered question's sentence; pi's output ending
    "Command exited with code 4", its "(no output)"; Gemini CLI's "Command exited with code: 1"
    — each card shows it all, so its stored text is not repeated, in the window or Markdown.
    What says more stays: Claude Code 1.0.128's edit with a snippet of the file."""
    claude = list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages)
    assert _returned_after(claude) == []
    _, markdown = _exports(*claude)
    assert "File created successfully" not in markdown
    assert "User has answered your questions" not in markdown
    pi_runs = [
        *(AGENTS / "pi" / "tools").rglob("*.jsonl"),
        *(AGENTS / "pi" / "pi-mono").rglob("*.jsonl"),
    ]
    for path in pi_runs:
        parsed = list(pi_format.parse(path, path.read_bytes()).messages)
        assert not [t for t in _returned_after(parsed) if t.startswith("Result · Ran")], path
        assert "Command exited with code" not in _exports(*parsed)[1]
    gemini = next((AGENTS / "gemini_cli" / "library").rglob("session-2026-12-01T09-10-*.jsonl"))
    parsed = list(gemini_format.parse(gemini, gemini.read_bytes()).messages)
    assert _returned_after(parsed) == []
    older = next((AGENTS / "claude_code" / "tools" / "1.0.128").rglob("*.jsonl"))
    snippet = _returned_after(list(claude_format.parse(older, older.read_bytes()).messages))
    assert any(title.startswith("Result · Edit ") for title in snippet)


def test_a_checklist_s_own_marks_are_its_only_marks() -> None:
    """A todo list, a question's options and its answers carry their marks (☐ ◐ ☑, ○ ●): no
    `<li>`, to which Qt's rich text adds a bullet whatever its style ("• ☑ done" in the
    window before)."""
    plan = TodoList(items=(TodoItem(text="done", status="completed"), TodoItem(text="next")))
    asked = QuestionItem(question="Which colour?", options=("Red", "Blue"))
    answers = QuestionAnswers(answers=(("Which colour?", "Blue"),), questions=(asked,))
    for block in (
        *_rendered(_call(plan)),
        *_rendered(_call(UserQuestion(questions=(asked,)))),
        *_rendered(ToolResultPart(call_id="c1", outcome=answers)),
    ):
        assert "<li>" not in block.html
        assert "<br>" in block.html
