"""The built-in demo history: a realistic goose database generated with goose's real v17 schema
(written through the one goose writer, `sources/goose/writer.py`).

Shown when no goose database exists (or with `--demo`), so a new user sees every feature: dozens
of sessions over several weeks, every content type goose stores, real images, long tool output,
sub-agents, scheduled and ACP sessions, archived and renamed sessions, token and cost figures and
the usage ledger — plus a few deliberately broken rows, to show how Gander displays them.
"""

import base64
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from desktop_app.demo import images as demo_images
from desktop_app.sources.goose.writer import GooseWriter, build_database

DEMO_FORMAT = 5
"""Bump when the generated content changes, so existing demo files are rebuilt."""

Block = dict[str, Any]
VISIBLE = {"userVisible": True, "agentVisible": True}
AGENT_ONLY = {"userVisible": False, "agentVisible": True}
USER_ONLY = {"userVisible": True, "agentVisible": False}
INVISIBLE = {"userVisible": False, "agentVisible": False}

MODELS = [
    ("anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", 200_000, 3.0, 15.0),
    ("openai", "gpt-4o", "gpt-4o-2024-08-06", 128_000, 2.5, 10.0),
    ("databricks", "goose-claude-4-opus", "claude-opus-4", 200_000, 15.0, 75.0),
]
PROJECTS = [
    "/home/dana/src/payments-api",
    "/home/dana/src/web-dashboard",
    "/home/dana/notes",
    "/home/dana/src/infra/terraform",
    "/home/dana/src/goose-plugins",
]


def text(value: str, audience: list[str] | None = None) -> Block:
    block: Block = {"type": "text", "text": value}
    if audience:
        block["annotations"] = {"audience": audience, "priority": 0.0}
    return block


def image(data: bytes, mime: str = "image/png") -> Block:
    return {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": mime}


def tool_request(call_id: str, name: str, arguments: Any, title: str | None = None) -> Block:
    block: Block = {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }
    if title:
        block["_meta"] = {"goose.toolSummary.title": title}
    return block


def tool_response(call_id: str, items: list[Block], *, is_error: bool = False) -> Block:
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": {"content": items, "isError": is_error}},
    }


def shell_output(command: str, lines: list[str]) -> list[Block]:
    """What goose's developer extension returns: full output for the model, a line for the user."""
    return [
        text("\n".join(lines), ["assistant"]),
        text(f"ran `{command}` ({len(lines)} lines of output)", ["user"]),
    ]


@dataclass
class Turn:
    role: str
    blocks: list[Block]
    metadata: dict[str, Any] = field(default_factory=lambda: dict(VISIBLE))
    delay: int = 20
    raw_content: str | None = None
    raw_metadata: str | None = None


def _pytest_log(rng: random.Random, count: int) -> list[str]:
    names = ["checkout", "refund", "ledger", "webhook", "currency", "invoice", "retry"]
    lines = ["============================= test session starts =============================="]
    lines.append("platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0")
    for i in range(count):
        name = rng.choice(names)
        status = "PASSED" if i != count - 7 else "FAILED"
        lines.append(
            f"tests/test_{name}.py::test_{name}_{i:03d} {status}{' ' * 8}[{i * 100 // count:3d}%]"
        )
    lines.append("FAILED tests/test_webhook.py::test_webhook_retry - AssertionError: 2 != 3")
    lines.append(f"=================== 1 failed, {count - 1} passed in 41.27s ===================")
    return lines


def conversation_debug(rng: random.Random) -> list[Turn]:
    log = _pytest_log(rng, 412)
    return [
        Turn(
            "user",
            [
                text(
                    "The webhook retry test flakes on CI about one run in five. Can you find out why?"
                )
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "thinking",
                    "thinking": "Flaky retry tests are usually timing. Run the suite first and look at the failure.",
                    "signature": "EqQBCkgIARABGAIiQL8u2m",
                },
                text("Let me run the test suite to see the failure."),
                tool_request(
                    "toolu_01",
                    "developer__shell",
                    {"command": "pytest -x -q tests/"},
                    "running the test suite",
                ),
            ],
        ),
        Turn(
            "user", [tool_response("toolu_01", shell_output("pytest -x -q tests/", log))], delay=45
        ),
        Turn(
            "assistant",
            [
                text(
                    "One failure: `test_webhook_retry` expects 3 attempts but saw 2. Let me read the retry loop."
                ),
                tool_request(
                    "toolu_02",
                    "developer__text_editor",
                    {"command": "view", "path": "/home/dana/src/payments-api/app/webhooks.py"},
                ),
            ],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_02",
                    [
                        {
                            "type": "resource",
                            "resource": {
                                "uri": "file:///home/dana/src/payments-api/app/webhooks.py",
                                "mimeType": "text/x-python",
                                "text": "import time\n\n\ndef deliver(event, send, attempts=3, backoff=0.2):\n    deadline = time.monotonic() + 1.0\n    for attempt in range(attempts):\n        if time.monotonic() > deadline:\n            return False\n        if send(event):\n            return True\n        time.sleep(backoff * 2 ** attempt)\n    return False\n",
                            },
                        },
                    ],
                )
            ],
        ),
        Turn(
            "assistant",
            [
                text(
                    "Found it. The retry loop has a **1 second deadline**, but the backoff grows to "
                    "`0.2 + 0.4 + 0.8 = 1.4 s`, so on a slow CI runner the third attempt is skipped.\n\n"
                    "| attempt | sleep before | elapsed |\n|---:|---:|---:|\n| 1 | 0.0 s | 0.0 s |\n"
                    "| 2 | 0.2 s | 0.2 s |\n| 3 | 0.4 s | 0.6 s + send time |\n\n"
                    "The fix is to check the deadline *before sleeping* and to derive it from the backoff:\n\n"
                    "```python\ndef deliver(event, send, attempts=3, backoff=0.2):\n"
                    "    for attempt in range(attempts):\n        if send(event):\n            return True\n"
                    "        if attempt + 1 < attempts:\n            time.sleep(backoff * 2 ** attempt)\n"
                    "    return False\n```\n\n- [x] reproduce the failure\n- [x] find the cause\n- [ ] apply the fix"
                ),
            ],
        ),
        Turn("user", [text("Makes sense, apply it and rerun just that test.")], delay=90),
        Turn(
            "assistant",
            [
                tool_request(
                    "toolu_03",
                    "developer__text_editor",
                    {
                        "command": "str_replace",
                        "path": "app/webhooks.py",
                        "old_str": "deadline = time.monotonic() + 1.0",
                        "new_str": "",
                    },
                ),
            ],
        ),
        Turn(
            "user", [tool_response("toolu_03", [text("The file app/webhooks.py has been edited.")])]
        ),
        Turn(
            "assistant",
            [
                tool_request(
                    "toolu_04",
                    "developer__shell",
                    {"command": "pytest -q tests/test_webhook.py -k retry --count 50"},
                )
            ],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_04",
                    shell_output(
                        "pytest -q tests/test_webhook.py -k retry --count 50",
                        ["." * 50, "50 passed in 12.02s"],
                    ),
                )
            ],
        ),
        Turn(
            "assistant",
            [
                text(
                    "50 runs, 50 passes. The flake is gone. ~~Increase the timeout~~ was not needed."
                )
            ],
        ),
    ]


def conversation_images(rng: random.Random) -> list[Turn]:
    latencies = [rng.uniform(40, 120) for _ in range(12)] + [310.0, 280.0]
    return [
        Turn(
            "user",
            [
                text("Here is the p95 latency for the last two weeks. What happened at the end?"),
                image(demo_images.bar_chart(latencies)),
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "thinking",
                    "thinking": "The last two bars are about three times the rest; correlate with deploys.",
                    "signature": "Eq0BCkYICRAB",
                },
                text(
                    "The last two days jump from ~80 ms to **~300 ms** at p95. Let me check what was deployed."
                ),
                tool_request(
                    "toolu_11",
                    "developer__shell",
                    {"command": "git log --since='3 days ago' --oneline"},
                ),
            ],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_11",
                    shell_output(
                        "git log --since='3 days ago' --oneline",
                        [
                            "a41f9c2 Switch session store to Redis cluster",
                            "77b01de Bump sqlalchemy to 2.0.36",
                            "0c1e5aa Add request tracing",
                        ],
                    ),
                )
            ],
        ),
        Turn(
            "assistant",
            [
                text(
                    "`a41f9c2` moved sessions to the Redis cluster. Let me take a screenshot of the dashboard to compare."
                ),
                tool_request("toolu_12", "developer__screen_capture", {"display": 0}),
            ],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_12",
                    [
                        text("Screenshot of display 0", ["assistant"]),
                        image(demo_images.screenshot()),
                    ],
                )
            ],
        ),
        Turn(
            "assistant",
            [
                text(
                    "The dashboard shows connection pool saturation on the Redis panel. Raising `max_connections` from 10 to 50 should bring p95 back under 100 ms."
                )
            ],
        ),
        Turn(
            "user",
            [
                text("And this one is just a photo from the offsite, ignore it."),
                image(demo_images.gradient_photo()),
            ],
            delay=300,
        ),
        Turn("assistant", [text("Nice sunset! Nothing to do there.")]),
    ]


def conversation_edge_cases(rng: random.Random) -> list[Turn]:
    del rng
    pdf = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    return [
        Turn(
            "user",
            [
                text("Summarise the attached Q3 report, then clean the build folder."),
                {
                    "type": "document",
                    "data": base64.b64encode(pdf).decode(),
                    "mimeType": "application/pdf",
                    "name": "q3-report.pdf",
                },
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "reasoning",
                    "text": "Older goose stored reasoning like this; it reads as thinking.",
                },
                text("The report covers revenue (+12%), churn (-0.4 pt) and two incidents."),
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "toolConfirmationRequest",
                    "id": "toolu_21",
                    "toolName": "developer__shell",
                    "arguments": {"command": "rm -rf build/"},
                    "prompt": "Allow this command?",
                }
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "actionRequired",
                    "data": {
                        "actionType": "toolConfirmation",
                        "id": "toolu_21",
                        "toolName": "developer__shell",
                        "arguments": {"command": "rm -rf build/"},
                        "prompt": None,
                    },
                }
            ],
            metadata=dict(USER_ONLY),
        ),
        Turn(
            "assistant",
            [tool_request("toolu_21", "developer__shell", {"command": "rm -rf build/"})],
        ),
        Turn(
            "user",
            [
                {
                    "type": "toolResponse",
                    "id": "toolu_21",
                    "toolResult": {
                        "status": "error",
                        "error": "-32603: Permission denied: build/cache is owned by root",
                    },
                }
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "toolRequest",
                    "id": "toolu_22",
                    "toolCall": {
                        "status": "error",
                        "error": "-32602: Could not parse tool arguments: expected value at line 1 column 12",
                    },
                }
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "actionRequired",
                    "data": {
                        "actionType": "elicitation",
                        "id": "el_1",
                        "message": "Which branch should I compare against?",
                        "requested_schema": {
                            "type": "object",
                            "properties": {"branch": {"type": "string"}},
                        },
                    },
                }
            ],
        ),
        Turn(
            "user",
            [
                {
                    "type": "actionRequired",
                    "data": {
                        "actionType": "elicitationResponse",
                        "id": "el_1",
                        "user_data": {"branch": "main"},
                        "action": "accept",
                    },
                }
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "frontendToolRequest",
                    "id": "fe_1",
                    "toolCall": {
                        "status": "success",
                        "value": {"name": "browser__click", "arguments": {"selector": "#deploy"}},
                    },
                }
            ],
        ),
        Turn(
            "assistant",
            [
                {"type": "redactedThinking", "data": "EmwKAhgBEgy3va3pzZ2mbbVdmvcaDPh2Xj"},
                text("I compared against `main`: three files differ."),
            ],
        ),
        Turn(
            "assistant",
            [tool_request("toolu_23", "fetch__get", {"url": "https://example.com/status"})],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_23",
                    [
                        text("HTTP 503 Service Unavailable"),
                        {
                            "type": "resource_link",
                            "uri": "https://example.com/status",
                            "name": "status page",
                            "mimeType": "text/html",
                            "size": 5120,
                        },
                        {
                            "type": "audio",
                            "data": base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode(),
                            "mimeType": "audio/wav",
                        },
                    ],
                    is_error=True,
                )
            ],
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "systemNotification",
                    "notificationType": "inlineMessage",
                    "msg": "Context compacted to stay within the model's window",
                    "data": {"tokens_before": 183412, "tokens_after": 24310},
                }
            ],
            metadata=dict(USER_ONLY),
        ),
        Turn(
            "assistant",
            [
                text(
                    "Summary of the conversation so far: the user asked for a Q3 summary and a build clean-up; the clean-up failed on permissions."
                )
            ],
            metadata=dict(AGENT_ONLY),
        ),
        Turn(
            "user",
            [text("(superseded by compaction) please also check the logs")],
            metadata=dict(INVISIBLE),
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "error",
                    "kind": "contextLengthExceeded",
                    "message": "Input is too long for the model.\n\nThe conversation is too long for the model's context window.",
                }
            ],
            metadata=dict(USER_ONLY),
        ),
        Turn(
            "assistant",
            [
                {
                    "type": "systemNotification",
                    "notificationType": "creditsExhausted",
                    "msg": "Your provider credits are exhausted.",
                    "data": {"top_up_url": "https://example.com/billing"},
                }
            ],
            metadata=dict(USER_ONLY),
        ),
        Turn(
            "assistant",
            [
                text("A block from a goose build newer than Gander follows:"),
                {"type": "toolInputDelta", "id": "toolu_24", "delta": '{"comm'},
            ],
        ),
        Turn("assistant", [], raw_content='[{"type":"text","text":"this row was cut off mid-wri'),
        Turn(
            "user",
            [text("What does <script>alert('x')</script> do in a <b>template</b>?")],
            raw_metadata="{not json",
        ),
        Turn(
            "assistant",
            [
                text(
                    "It would run JavaScript if the template did not escape it. Gander shows it as text: `<script>` is never interpreted."
                )
            ],
        ),
    ]


def conversation_subagents(children: list[str]) -> list[Turn]:
    """goose's summon `delegate` calls, each result naming the sub-agent session it made
    (`_meta.subagent_session_id`, as `platform_extensions/summon.rs` records it)."""
    said = [
        "payments-api: 4 outdated (sqlalchemy, httpx, pydantic, uvicorn)",
        "web-dashboard: 11 outdated, 1 with a known CVE (vite < 5.4.12)",
    ]
    results = [tool_response(f"toolu_3{i + 1}", [text(t)]) for i, t in enumerate(said)]
    for result, child in zip(results, children, strict=True):
        result["toolResult"]["value"]["_meta"] = {"subagent_session_id": child}
    return [
        Turn("user", [text("Audit the three services for outdated dependencies, in parallel.")]),
        Turn(
            "assistant",
            [
                text("I'll delegate each service to a sub-agent."),
                tool_request(
                    "toolu_31", "delegate", {"instructions": "Audit payments-api dependencies"}
                ),
                tool_request(
                    "toolu_32", "delegate", {"instructions": "Audit web-dashboard dependencies"}
                ),
            ],
        ),
        Turn("user", results, delay=240),
        Turn(
            "assistant",
            [
                text(
                    "Results:\n\n1. **payments-api** — 4 outdated, none critical.\n2. **web-dashboard** — 11 outdated; upgrade `vite` first (CVE)."
                )
            ],
        ),
    ]


def conversation_subagent_child(service: str) -> list[Turn]:
    return [
        Turn("user", [text(f"Audit {service} dependencies")]),
        Turn(
            "assistant",
            [
                tool_request(
                    "toolu_s1", "developer__shell", {"command": "pip list --outdated --format json"}
                )
            ],
        ),
        Turn(
            "user",
            [
                tool_response(
                    "toolu_s1",
                    [
                        text(
                            '[{"name": "sqlalchemy", "version": "2.0.30", "latest_version": "2.0.36"}]'
                        )
                    ],
                )
            ],
        ),
        Turn("assistant", [text(f"{service}: outdated packages listed above.")]),
    ]


def _said(value: str) -> Block:
    """A result text as goose's in-process developer tools return it (`priority` 0.0)."""
    return {"type": "text", "text": value, "annotations": {"priority": 0.0}}


SETTINGS_PY = """from dataclasses import dataclass
import os


@dataclass(frozen=True)
class Settings:
    database_url: str
    retry_limit: int = 3


def load() -> Settings:
    return Settings(database_url=os.environ["DATABASE_URL"])
"""


def conversation_developer_tools() -> list[Turn]:
    """Later goose's in-process developer extension (`platform_extensions/developer/`): its
    tools unprefixed — `tree`, `read`, `edit`, `write`, `shell` — with the arguments they take
    and the result texts they return (`tree.rs`, `edit.rs`, `shell.rs`)."""
    tree = "app/  [61]\n  __init__.py  [0]\n  handlers.py  [48]\n  settings.py  [13]\n"
    tree += "tests/  [22]\n  test_settings.py  [22]\n"
    edit = {
        "path": "app/settings.py",
        "before": '    return Settings(database_url=os.environ["DATABASE_URL"])',
        "after": '    return Settings(\n        database_url=os.environ["DATABASE_URL"],\n'
        '        retry_limit=int(os.environ.get("RETRY_LIMIT", "3")),\n    )',
    }
    test = (
        "import pytest\n\nfrom app import settings\n\n\n"
        "def test_retry_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:\n"
        '    monkeypatch.setenv("DATABASE_URL", "sqlite://")\n'
        '    monkeypatch.setenv("RETRY_LIMIT", "5")\n'
        "    assert settings.load().retry_limit == 5\n"
    )
    failed = (
        "F\n=================================== FAILURES ===================================\n"
        "E   KeyError: 'DATABASE_URL'\n1 failed in 0.04s"
        "\n\nCommand exited with code 1"
    )
    return [
        Turn("user", [text("Let the retry limit come from RETRY_LIMIT, with a test.")]),
        Turn(
            "assistant",
            [
                text("First the layout of the app."),
                tool_request("call_d1", "tree", {"path": PROJECTS[0], "depth": 2}),
            ],
        ),
        Turn("user", [tool_response("call_d1", [_said(tree)])]),
        Turn("assistant", [tool_request("call_d2", "read", {"path": "app/settings.py"})]),
        Turn("user", [tool_response("call_d2", [_said(SETTINGS_PY)])]),
        Turn("assistant", [tool_request("call_d3", "edit", edit)]),
        Turn(
            "user",
            [tool_response("call_d3", [_said("Edited app/settings.py (1 lines -> 4 lines)")])],
        ),
        Turn(
            "assistant",
            [tool_request("call_d4", "write", {"path": "tests/test_retry.py", "content": test})],
        ),
        Turn("user", [tool_response("call_d4", [_said("Wrote tests/test_retry.py (9 lines)")])]),
        Turn(
            "assistant",
            [tool_request("call_d5", "shell", {"command": "pytest -q tests/test_settings.py"})],
        ),
        Turn("user", [tool_response("call_d5", [_said(failed)], is_error=True)]),
        Turn(
            "assistant",
            [
                text("The old test builds settings without DATABASE_URL; the new one passes:"),
                tool_request(
                    "call_d6",
                    "shell",
                    {"command": "pytest -q tests/test_retry.py", "timeout_secs": 120},
                ),
            ],
        ),
        Turn("user", [tool_response("call_d6", [_said(".\n1 passed in 0.03s")])]),
        Turn(
            "assistant",
            [
                text(
                    "`RETRY_LIMIT` is read in `app/settings.py` (default 3) and tested. "
                    "`tests/test_settings.py` fails on its own: it needs `DATABASE_URL` set."
                )
            ],
        ),
    ]


TOPICS = [
    ("Set up pre-commit hooks", "How do I add ruff and mypy as pre-commit hooks?"),
    ("Terraform plan drift", "terraform plan shows drift on the load balancer every day. Why?"),
    ("Write release notes", "Draft release notes for v2.3 from the merged PRs."),
    ("Explain async iterators", "Explain Python async iterators with an example."),
    ("Dockerfile size", "Our image is 1.4 GB. How can we shrink it?"),
    ("SQL index advice", "This query takes 4 s on 2M rows, which index helps?"),
    ("Meeting notes cleanup", "Turn these meeting notes into action items."),
    ("Rust borrow error", "Why does the borrow checker reject this loop?"),
    ("CSV import bug", "Rows with quoted newlines break our CSV importer."),
    ("Onboarding checklist", "Write an onboarding checklist for a new backend engineer."),
    ("GraphQL pagination", "Cursor or offset pagination for our GraphQL API?"),
    ("Flaky Cypress test", "A Cypress test fails only in headless Chrome."),
]


def conversation_generic(rng: random.Random, question: str, turns: int) -> list[Turn]:
    script = [Turn("user", [text(question)])]
    for i in range(turns):
        command = rng.choice(
            ["rg -n TODO src/", "ls -la", "git status --short", "cat pyproject.toml", "make test"]
        )
        call_id = f"toolu_g{i:03d}"
        output = [
            f"src/module_{j}.py:{rng.randint(1, 400)}: TODO {rng.choice(['refactor', 'test', 'docs'])}"
            for j in range(rng.randint(2, 30))
        ]
        script.append(
            Turn(
                "assistant",
                [
                    text(f"Step {i + 1}: checking with `{command}`."),
                    tool_request(call_id, "developer__shell", {"command": command}),
                ],
            )
        )
        script.append(Turn("user", [tool_response(call_id, shell_output(command, output))]))
        script.append(
            Turn(
                "assistant",
                [
                    text(
                        f"Found {len(output)} relevant lines. "
                        + rng.choice(
                            [
                                "Next I'll narrow it down.",
                                "This confirms the hypothesis.",
                                "Nothing surprising here.",
                            ]
                        )
                    )
                ],
            )
        )
        if rng.random() < 0.4:
            script.append(
                Turn(
                    "user",
                    [
                        text(
                            rng.choice(
                                [
                                    "ok, continue",
                                    "Can you explain that last part?",
                                    "Good, keep going.",
                                    "What about the tests?",
                                ]
                            )
                        )
                    ],
                    delay=60,
                )
            )
    script.append(
        Turn(
            "assistant", [text("Done. Summary:\n\n- investigated\n- fixed\n- verified with tests")]
        )
    )
    return script


@dataclass
class DemoWriter:
    goose: GooseWriter
    rng: random.Random
    ids_per_day: dict[str, int] = field(default_factory=dict)

    def new_id(self, when: datetime) -> str:
        day = when.strftime("%Y%m%d")
        self.ids_per_day[day] = self.ids_per_day.get(day, 0) + 1
        return f"{day}_{self.ids_per_day[day]}"

    def write(
        self,
        turns: list[Turn],
        *,
        start: datetime,
        name: str,
        working_dir: str,
        session_type: str = "user",
        user_set_name: bool = False,
        parent: str | None = None,
        archived: bool = False,
        model_index: int = 0,
        schedule_id: str | None = None,
        recipe_title: str | None = None,
        millisecond_times: bool = False,
        session_id: str | None = None,
    ) -> str:
        session_id = session_id or self.new_id(start)
        provider, model, resolved, limit, price_in, price_out = MODELS[model_index]
        when = start
        current: dict[str, int] = {}
        accumulated = {"input": 0, "output": 0, "total": 0, "cache_read": 0, "cache_write": 0}
        cost_total = 0.0
        rows: list[dict[str, Any]] = []
        ledger: list[dict[str, Any]] = []
        context = 2400
        for index, turn in enumerate(turns):
            when += timedelta(seconds=turn.delay + self.rng.randint(0, 15))
            metadata = dict(turn.metadata)
            if turn.role == "assistant" and metadata.get("userVisible", True) and turn.blocks:
                context += self.rng.randint(300, 2500)
                if context > limit * 0.8:
                    context = self.rng.randint(18_000, 26_000)
                output = self.rng.randint(40, 900)
                cache_read = int(context * 0.8)
                cost = (context * price_in + output * price_out) / 1_000_000
                usage = {
                    "inputTokens": context,
                    "outputTokens": output,
                    "totalTokens": context + output,
                    "cacheReadTokens": cache_read,
                    "cacheWriteTokens": 0,
                    "cost": round(cost, 6),
                    "costSource": "estimated",
                    "elapsedMs": self.rng.randint(800, 9000),
                    "timeToFirstTokenMs": self.rng.randint(200, 1500),
                }
                metadata["usage"] = usage
                metadata["inference"] = {
                    "provider": provider,
                    "requestedModel": model,
                    "resolvedModel": resolved,
                }
                current = {
                    "input": context,
                    "output": output,
                    "total": context + output,
                    "cache_read": cache_read,
                    "cache_write": 0,
                }
                for key in accumulated:
                    accumulated[key] += current[key]
                cost_total += cost
                ledger.append(
                    {
                        "session_id": session_id,
                        "created_timestamp": int(when.timestamp()),
                        "model": resolved,
                        "input_tokens": context,
                        "output_tokens": output,
                        "total_tokens": context + output,
                        "cache_read_tokens": cache_read,
                        "cache_write_tokens": 0,
                        "cost": round(cost, 6),
                        "cost_source": "estimated",
                        "is_compaction": 0,
                    }
                )
            created = int(when.timestamp() * (1000 if millisecond_times else 1))
            content = turn.raw_content if turn.raw_content is not None else json.dumps(turn.blocks)
            meta_json = turn.raw_metadata if turn.raw_metadata is not None else json.dumps(metadata)
            rows.append(
                {
                    "message_id": f"msg_{session_id}_{index:05d}",
                    "session_id": session_id,
                    "role": turn.role,
                    "content_json": content,
                    "created_timestamp": created,
                    "timestamp": when.strftime("%Y-%m-%d %H:%M:%S"),
                    "metadata_json": meta_json,
                }
            )
        updated = when.strftime("%Y-%m-%d %H:%M:%S")
        archived_at = (
            (when + timedelta(days=2)).strftime("%Y-%m-%d %H:%M:%S.%f") if archived else None
        )
        recipe = (
            json.dumps({"title": recipe_title, "description": "demo recipe", "instructions": "…"})
            if recipe_title
            else None
        )
        extension_data = {
            "enabled_extensions.v0": {"extensions": [{"type": "builtin", "name": "developer"}]},
            "todo.v0": {"content": "- [x] investigate\n- [ ] follow up"},
        }
        parent_delegation = (
            json.dumps(
                {
                    "execution_mode": "foreground",
                    "parent_delegate_message_id": "msg_parent",
                    "result_delivered_to_parent": True,
                }
            )
            if parent
            else None
        )
        model_config = {
            "model_name": model,
            "context_limit": limit,
            "temperature": None,
            "max_tokens": None,
            "toolshim": False,
            "toolshim_model": None,
        }
        self.goose.add_session(
            session_id,
            name=name,
            description="",
            user_set_name=int(user_set_name),
            session_type=session_type,
            working_dir=working_dir,
            created_at=start.strftime("%Y-%m-%d %H:%M:%S"),
            updated_at=updated,
            extension_data=extension_data,
            total_tokens=current.get("total"),
            input_tokens=current.get("input"),
            output_tokens=current.get("output"),
            cache_read_tokens=current.get("cache_read"),
            cache_write_tokens=current.get("cache_write"),
            accumulated_total_tokens=accumulated["total"] or None,
            accumulated_input_tokens=accumulated["input"] or None,
            accumulated_output_tokens=accumulated["output"] or None,
            accumulated_cache_read_tokens=accumulated["cache_read"] or None,
            accumulated_cache_write_tokens=accumulated["cache_write"] if ledger else None,
            accumulated_cost=round(cost_total, 6) if ledger else None,
            schedule_id=schedule_id,
            recipe_json=recipe,
            provider_name=provider,
            model_config_json=model_config,
            goose_mode="auto",
            archived_at=archived_at,
            parent_session_id=parent,
            parent_delegation=parent_delegation,
        )
        self.goose.insert_many("messages", rows)
        self.goose.insert_many("usage_ledger", ledger)
        return session_id


def _schedule(now: datetime, rng: random.Random, count: int) -> Iterator[datetime]:
    """Start times spread over six weeks, denser recently, all safely in the past."""
    for i in range(count):
        days_ago = int((i / count) ** 1.6 * 42)
        yield now - timedelta(days=days_ago, minutes=rng.randint(90, 600))


def generate(goose: GooseWriter, now: datetime) -> None:
    """Fill an empty, freshly created v17 database with the demo history."""
    rng = random.Random(20261130)
    writer = DemoWriter(goose, rng)
    starts = sorted(_schedule(now - timedelta(hours=1), rng, 44))
    featured: list[tuple[str, Callable[[random.Random], list[Turn]], str, dict[str, Any]]] = [
        ("Fix flaky webhook retry test", conversation_debug, PROJECTS[0], {"user_set_name": True}),
        (
            "Latency spike after Redis migration",
            conversation_images,
            PROJECTS[1],
            {"model_index": 1},
        ),
        (
            "Q3 report and build clean-up",
            conversation_edge_cases,
            PROJECTS[2],
            {"millisecond_times": True},
        ),
    ]
    for offset, (name, build, directory, options) in enumerate(featured):
        writer.write(
            build(rng), start=starts[-1 - offset * 2], name=name, working_dir=directory, **options
        )
    parent_start = starts[-2]
    child_start = parent_start + timedelta(minutes=1)
    children = [writer.new_id(child_start) for _ in range(2)]  # the parent's results name them
    parent = writer.write(
        conversation_subagents(children),
        start=parent_start,
        name="Dependency audit",
        working_dir=PROJECTS[4],
        model_index=2,
    )
    for service, child in zip(("payments-api", "web-dashboard"), children, strict=True):
        writer.write(
            conversation_subagent_child(service),
            session_id=child,
            start=child_start,
            name=f"Audit {service}",
            working_dir=PROJECTS[4],
            session_type="sub_agent",
            parent=parent,
            model_index=2,
        )
    writer.write(
        conversation_generic(rng, "Nightly: summarise new issues in the tracker.", 3),
        start=starts[-4],
        name="Nightly issue digest",
        working_dir=PROJECTS[2],
        session_type="scheduled",
        schedule_id="nightly-digest",
        recipe_title="Nightly issue digest",
    )
    writer.write(
        conversation_generic(rng, "Refactor the payments module into smaller services.", 160),
        start=starts[-6],
        name="Payments refactor (long session)",
        working_dir=PROJECTS[0],
        user_set_name=True,
    )
    writer.write(
        conversation_generic(rng, "Hi from the editor integration.", 2),
        start=starts[-5],
        name="ACP Session",
        working_dir=PROJECTS[4],
        session_type="acp",
    )
    for index, start in enumerate(starts[:-7]):
        title, question = TOPICS[index % len(TOPICS)]
        writer.write(
            conversation_generic(rng, question, rng.randint(1, 8)),
            start=start,
            name=title if index % 5 else f"{title} (renamed)",
            user_set_name=index % 5 == 0,
            working_dir=rng.choice(PROJECTS),
            archived=index % 7 == 3,
            model_index=index % len(MODELS),
        )
    writer.write(  # last, so the sessions above draw the same numbers as before it
        conversation_developer_tools(),
        start=starts[-7],
        name="Retry limit from the environment",
        working_dir=PROJECTS[0],
    )


def ensure_demo_database(directory: Path, now: datetime | None = None) -> Path:
    """The demo `sessions.db` in `directory`, generated on first use or when its format changed."""
    path = directory / "sessions.db"
    stamp = directory / "demo-format"
    if path.is_file() and stamp.is_file() and stamp.read_text().strip() == str(DEMO_FORMAT):
        return path
    directory.mkdir(parents=True, exist_ok=True)
    build_database(path, lambda goose: generate(goose, now or datetime.now(UTC)))
    stamp.write_text(str(DEMO_FORMAT))
    return path
