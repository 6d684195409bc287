"""Runs of tool calls grouped as "N tool calls · M failed": the same groups whatever order the
pages of a session are learnt in, and each update looks only at the run around it."""

import random
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from desktop_app.rendering.tool_groups import Group, GroupIndex, Step, step_of


def _message(role: Role, *parts: Part) -> Message:
    return Message(
        session_id="s",
        row_id=1,
        message_id=None,
        role=role,
        role_raw=role.value,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        created_raw=None,
        parts=parts,
    )


def test_what_is_a_step() -> None:
    call = ToolCallPart(call_id="1", name="Bash", arguments={"command": "ls"})
    assert step_of(_message(Role.ASSISTANT, ReasoningPart(text="hm"), call, call)) == Step(
        calls=2, tools=("Bash",)
    )
    failed = ToolResultPart(call_id="1", is_error=True)
    assert step_of(_message(Role.USER, failed, ToolResultPart(call_id="2"))) == Step(failed=1)
    # Anything said is no step: a reply with text, a prompt, an empty message.
    assert step_of(_message(Role.ASSISTANT, TextPart(text="done"), call)) is None
    assert step_of(_message(Role.USER, TextPart(text="go"))) is None
    assert step_of(_message(Role.ASSISTANT)) is None
    assert step_of(_message(Role.ASSISTANT, ReasoningPart(text="only thinking"))) is None
    broken = ToolCallPart(error="arguments did not parse")
    assert step_of(_message(Role.ASSISTANT, broken)) == Step(calls=1, failed=1, tools=("?",))


def _from_scratch(steps: dict[int, Step | None]) -> dict[int, Group]:
    index = GroupIndex()
    index.learn(sorted(steps.items()))
    return {row: g for row in steps if (g := index.group_of(row)) is not None}


STEPS = st.one_of(
    st.none(),
    st.builds(
        Step,
        calls=st.integers(0, 3),
        failed=st.integers(0, 2),
        tools=st.sampled_from([(), ("Bash",), ("Edit", "Read")]),
    ),
)


@given(
    st.lists(STEPS, min_size=1, max_size=60),
    st.randoms(use_true_random=False),
    st.integers(1, 12),
)
def test_pages_learnt_in_any_order_make_the_same_groups(
    steps: list[Step | None], order: random.Random, page: int
) -> None:
    rows = dict(enumerate(steps))
    pages = [
        list(range(start, min(start + page, len(steps)))) for start in range(0, len(steps), page)
    ]
    order.shuffle(pages)
    index = GroupIndex()
    for chunk in pages:
        changed = index.learn((row, rows[row]) for row in chunk)
        assert changed is not None
        assert changed.start <= chunk[0]
        assert changed.stop > chunk[-1]
    assert {r: g for r in rows if (g := index.group_of(r)) is not None} == _from_scratch(rows)


def test_a_run_is_one_group_with_its_totals() -> None:
    index = GroupIndex()
    bash, edit = Step(calls=1, tools=("Bash",)), Step(calls=2, tools=("Edit", "Bash"))
    index.learn([(0, None), (1, bash), (2, Step(failed=1)), (3, edit), (4, Step()), (5, None)])
    group = index.group_of(2)
    assert group == Group(first=1, last=4, calls=3, failed=1, tools=("Bash", "Edit"))
    assert group.title == "3 tool calls · 1 failed"
    assert group.preview == "Bash, Edit"
    assert index.group_of(0) is None
    assert index.group_of(5) is None
    # A single call is no group; an unknown row ends a run until it is learnt.
    lone = GroupIndex()
    lone.learn([(0, bash), (2, bash)])
    assert lone.group_of(0) is None
    assert lone.learn([(1, Step())]) == range(0, 3)
    assert lone.group_of(2) == Group(first=0, last=2, calls=2, failed=0, tools=("Bash",))


def test_learning_what_is_known_changes_nothing() -> None:
    index = GroupIndex()
    index.learn([(0, Step(calls=2))])
    assert index.learn([(0, Step(calls=2))]) is None


def test_many_tools_are_counted_not_listed() -> None:
    group = Group(first=0, last=1, calls=9, failed=0, tools=tuple("abcdefg"))
    assert group.preview == "a, b, c, d and 3 more"
