"""`--redact` and redacted copies: every planted secret goes, in every part of a message and in
every format; ordinary look-alikes stay (issue #5, point 6; issue #8, point 3)."""

import html
import json
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.rendering import redact as redact_module
from desktop_app.rendering.redact import redact, redact_json, redact_text, secret_key
from desktop_app.sources.goose.rows import CONTENT_UTF8, message_from_row
from tests.fixtures import histories
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.secrets import LOOK_ALIKES, PLANTED

DbFactory = Callable[..., GooseDb]


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_each_planted_secret_is_removed_from_text(name: str) -> None:
    text, secret = PLANTED[name]
    redacted = redact_text(f"before {text} after")
    assert "[REDACTED:" in redacted
    assert secret not in redacted
    assert redacted.startswith("before ")
    assert redacted.endswith(" after")


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_kept(text: str) -> None:
    assert redact_text(text) == text


def test_secret_keys_in_json_values() -> None:
    value = {
        "password": "x1y2z3w4",
        "DB_PASSWORD": "hunter22",
        "clientSecret": "abcdefgh",
        "x-api-key": "k3y-v4lu3",
        "headers": [["Authorization", "Basic dXNlcjpwYXNz"]],
        "env": [{"name": "SMTP_PASSWORD", "value": "m41lp4ss"}],
        "secret": True,
        "token_count": 5,
        "max_tokens": "4096",
        "passwordless": "yes-it-is",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ7": 1,
    }
    cleaned = redact_json(value)
    flat = json.dumps(cleaned)
    for secret in ("x1y2z3w4", "hunter22", "abcdefgh", "k3y-v4lu3", "dXNlcjpwYXNz", "m41lp4ss"):
        assert secret not in flat
    assert "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ7" not in flat
    assert cleaned["secret"] is True
    assert cleaned["token_count"] == 5
    assert cleaned["max_tokens"] == "4096"
    assert cleaned["passwordless"] == "yes-it-is"
    assert not secret_key("passwordless")
    assert secret_key("AWS_SECRET_ACCESS_KEY")
    assert secret_key("dbPwd")
    assert not secret_key("PWD")


def test_numbers_and_pairs_under_secret_names_are_redacted() -> None:
    """Issue #18, item 1: a number under a secret-named key, in a name/value pair or a header
    pair, goes as a string would; counts, flags and short numbers stay."""
    value = {
        "db_password": 966471357,
        "PGPASSWORD": "Pg3nvS3cr3t",
        "pin": {"api_key": 1234},
        "env": [
            {"name": "DB_PASSWORD", "value": 31415926},
            {"Name": "AccountKey", "Value": "Az8kQ2vL0pX7"},
            ["SMTP_PASSWORD", 27182818],
            ["Cookie", "sid=C00k13S3ss10n"],
        ],
        "secret": False,
        "max_tokens": 4096000,
        "token_count": 123456789,
        "SMTP_PASS": "Smtp3nvP4ss",
        "first_pass": "completed",
    }
    cleaned = redact_json(value)
    flat = json.dumps(cleaned)
    for secret in ("966471357", "Pg3nvS3cr3t", "31415926", "Az8kQ2vL0pX7", "27182818", "C00k13"):
        assert secret not in flat
    assert "Smtp3nvP4ss" not in flat
    assert cleaned["first_pass"] == "completed"
    assert cleaned["pin"] == {"api_key": 1234}
    assert cleaned["secret"] is False
    assert cleaned["max_tokens"] == 4096000
    assert cleaned["token_count"] == 123456789


def test_no_length_escapes_redaction() -> None:
    """A long tool output (an environment dump, a log) is redacted to its last line."""
    planted = "\n".join(text for text, _ in PLANTED.values())
    dump = "PATH=/usr/bin\nHOME=/home/dev\n" * 200_000 + planted
    assert len(dump) > 5_000_000
    cleaned = redact_text(dump)
    assert not any(secret in cleaned for _, secret in PLANTED.values())
    assert cleaned.startswith("PATH=/usr/bin\nHOME=/home/dev\n")


@pytest.mark.parametrize(
    "attack",
    [
        "eyJ" * 400_000,
        "a." * 600_000,
        "password_" * 150_000,
        "password=" * 150_000,
        "sk-ant-" * 170_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 40_000,
        "a://" * 300_000,
        "x = password: " * 100_000,
        "aPassword=" * 100_000,
        "Authorization: " * 80_000,
        "postgres://u:" + "@" * 1_000_000,
        "https://u:" + "/" * 1_000_000,
        "machine x" + " login a" * 150_000,
        "Cookie: a=b" + ";c" * 500_000,
        '{"name": "PASSWORD",' * 60_000,
        "mysql -p" * 150_000,
        "curl\n" * 200_000,
        "curl -u a:b \\\n" * 100_000,
        "http -a " * 150_000,
        "http " + "'a;" * 300_000,
        "smbclient -U a%" * 80_000,
        "mysql " + '"' * 1_000_000,
        "mysql -p;\\n" * 200_000,
    ],
    ids=lambda text: f"{text[:12]!r}×{len(text)}",
)
def test_look_alike_floods_are_linear(attack: str) -> None:
    """Each pattern starts where its own characters cannot continue from the left, so a flood
    of near-matches is scanned once. Quadratic rules took minutes on these.

    Still timed, as the one exception to #18's rule: the work is inside `re`'s C engine, which
    counts no steps, and this machine class has no hardware instruction counter to read. So the
    bound is generous — each flood takes 0.03–0.9 s (docs/reliability.md) and a quadratic rule
    minutes, so sixty seconds fails only the latter, however loaded the machine."""
    started = time.perf_counter()
    redact_text(attack)
    assert time.perf_counter() - started < 60


def test_a_commands_line_end_is_found_once_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: JSON text holds many lines (`\\n`) on one real line, and the search
    for that real line's end ran from each command to the end of the text (5.9 s for 2.2 MB of
    `mysql -p;\\n`, quadratic)."""
    scanned: list[int] = []
    original = redact_module._newline_end

    def counting(text: str, position: int) -> int:
        end = original(text, position)
        scanned.append(end - position)
        return end

    monkeypatch.setattr(redact_module, "_newline_end", counting)
    text = "mysql -pMyS3cr3tPw;\\n" * 1_000 + "\ncurl -u a:CurlPw9x; " * 1_000
    cleaned = redact_text(text)
    assert "MyS3cr3tPw" not in cleaned
    assert "CurlPw9x" not in cleaned
    assert sum(scanned) <= len(text) * len(redact_module._COMMAND_OPTIONS)


def test_another_commands_options_are_not_the_first_ones() -> None:
    """A command ends at `&&`, `||`, `|` or `;` outside quotes: after `mysql`, a later command's
    `-pthread` is no password; a separator inside quotes ends nothing."""
    assert redact_text("mysql -p app && gcc -pthread x.c") == "mysql -p app && gcc -pthread x.c"
    assert (
        redact_text('{"cmd": "mysql -p app; cc -pthread"}')
        == '{"cmd": "mysql -p app; cc -pthread"}'
    )
    quoted = redact_text('mysql -e "select 1; select 2" -pQu0t3dPw db')
    assert "Qu0t3dPw" not in quoted
    assert "Qu0t3dPw" not in redact_text("mysql -e 'a || b' -pQu0t3dPw db")
    assert "Qu0t3dPw" not in redact_text('{\\"c\\": \\"mysql -e \\\\\\"x;\\\\\\" -pQu0t3dPw\\"}')


def _carriers(secret_text: str, env: dict[str, str] | None = None) -> list[list[dict[str, Any]]]:
    """One message per place a secret can sit in goose's content."""
    return [
        [{"type": "text", "text": f"my config:\n{secret_text}\nthanks"}],
        [{"type": "text", "text": f"Run this:\n\n```bash\n{secret_text}\n```\n"}],
        [{"type": "text", "text": f"```\n{secret_text}\n```"}],
        [{"type": "thinking", "thinking": f"The user pasted {secret_text}", "signature": "s"}],
        [
            {
                "type": "toolRequest",
                "id": "t1",
                "toolCall": {
                    "status": "success",
                    "value": {
                        "name": "developer__shell",
                        "arguments": {"command": secret_text, "env": env or {}},
                    },
                },
            }
        ],
        [
            {
                "type": "toolResponse",
                "id": "t1",
                "toolResult": {
                    "status": "success",
                    "value": {
                        "content": [
                            {"type": "text", "text": f"$ cat .env\n{secret_text}\n"},
                            {
                                "type": "resource",
                                "resource": {"uri": "file:///app/.env", "text": secret_text},
                            },
                        ],
                        "isError": False,
                    },
                },
            }
        ],
        [
            {
                "type": "toolResponse",
                "id": "t2",
                "toolResult": {"status": "error", "error": secret_text},
            }
        ],
        [{"type": "mysteryBlock", "payload": secret_text}],
        [{"type": "systemNotification", "notificationType": "inlineMessage", "msg": secret_text}],
    ]


@pytest.fixture
def secret_db(make_db: DbFactory) -> GooseDb:
    db = make_db()
    everything = "\n".join(text for text, _ in PLANTED.values())
    db.add_session("s", name="deploy with hunter2", working_dir="/srv/app")
    for content in _carriers(everything, {"API_KEY": "k3yv4lu3xyz"}):
        db.add_message("s", "assistant", content)
    for content in _carriers("\n".join(LOOK_ALIKES)):
        db.add_message("s", "assistant", content)
    return db


SECRETS = [secret for _, secret in PLANTED.values()] + ["k3yv4lu3xyz"]


def _visible_text(document: str, fmt: str) -> str:
    """What a reader of the export sees: HTML without its tags, JSON's strings decoded."""
    if fmt == "html":
        return html.unescape(re.sub(r"<[^>]+>", "", document))
    if fmt == "json":
        strings: list[str] = []
        stack: list[Any] = [json.loads(document)]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.keys())
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str):
                strings.append(value)
        return "\n".join(strings)
    return document


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_show_redact_holds_in_every_format_and_every_place(
    secret_db: GooseDb, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "s", "--db", str(secret_db.path), "--format", fmt, "--redact"]) == 0
    out = capsys.readouterr().out
    seen = _visible_text(out, fmt)
    leaked = [secret for secret in SECRETS if secret in out or secret in seen]
    assert leaked == []
    assert "[REDACTED:" in seen
    for text in LOOK_ALIKES:
        for line in text.splitlines():
            assert line in seen, line

    assert main(["show", "s", "--db", str(secret_db.path), "--format", fmt]) == 0
    unredacted = _visible_text(capsys.readouterr().out, fmt)
    assert all(secret in unredacted for secret in SECRETS)


def test_redaction_leaves_look_alike_messages_untouched() -> None:
    for content in _carriers("\n".join(LOOK_ALIKES)):
        message = message_from_row(
            {
                "id": 1,
                "session_id": "s",
                "role": "assistant",
                CONTENT_UTF8: json.dumps(content).encode(),
                "created_timestamp": 1,
                "metadata_json": "{}",
            }
        )
        assert redact(message) == message
        assert [part.raw for part in redact(message).parts] == [part.raw for part in message.parts]


AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
READERS = {
    "claude-code": AGENTS / "claude_code" / "written",
    "codex": AGENTS / "codex" / "cli",
    "gemini-cli": AGENTS / "gemini_cli" / "library",
    "pi": AGENTS / "pi" / "library",
}
"""Logs each agent's own code wrote (origins: tests/fixtures/agents/README.md)."""
PLANTED_TEXT = "\n".join(text for text, _ in PLANTED.values())
PLANTED_VALUE = {"db_password": 966471357, "env": [{"name": "DB_PASSWORD", "value": 31415926}]}
TEXT_KEYS = {"command", "cmd", "output", "text", "content", "stdout", "stderr", "input"}
"""Where the agents keep tool inputs and outputs: Claude Code's `input.command` and
`tool_result.content`, Codex's `arguments` (JSON in a string) and `output`, Gemini's `args` and
`functionResponse.response.output`, pi's `arguments.command` and result `content`."""
INPUT_KEYS = {"input", "args", "arguments"}


def _plant(value: Any, key: object = None) -> Any:
    """Every tool input and output of a log, with the planted secrets and look-alikes added to
    its strings and a number and a name/value pair under secret names added to its objects."""
    if isinstance(value, dict):
        planted = {name: _plant(item, name) for name, item in value.items()}
        if key in INPUT_KEYS:
            planted["planted"] = PLANTED_VALUE
        return planted
    if isinstance(value, list):
        return [_plant(item, key) for item in value]
    if isinstance(value, str) and key in TEXT_KEYS | INPUT_KEYS:
        if value.startswith("{"):
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if isinstance(inner, dict):
                return json.dumps(_plant(inner, key))
        return f"{value}\n{PLANTED_TEXT}\n\n" + "\n".join(LOOK_ALIKES)
    return value


def _planted_copy(folder: Path, target: Path) -> Path:
    shutil.copytree(folder, target)
    for path in target.rglob("*.json*"):
        if path.suffix == ".jsonl":
            lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            path.write_text("".join(json.dumps(_plant(line)) + "\n" for line in lines))
        else:
            path.write_text(json.dumps(_plant(json.loads(path.read_text()))))
    return target


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def _toolnexus(folder: Path) -> Path:
    """toolnexus's two conversation shapes (OpenAI's `tool_calls` with arguments as JSON text,
    Anthropic's `tool_use` and `tool_result` blocks), as the other toolnexus tests write them."""
    histories.write_json(folder / "openai.json", histories.toolnexus_openai())
    histories.write_json(folder / "anthropic.json", histories.toolnexus_anthropic())
    return folder


@pytest.mark.parametrize("reader", [*sorted(READERS), "toolnexus"])
def test_each_reader_redacts_tool_inputs_and_outputs(
    reader: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #18, item 1: the planted corpus in every tool input and output of each reader's
    logs (the agents' own, toolnexus's as its tests write them) goes in md, html and json; the
    look-alikes beside it stay."""
    source = _toolnexus(tmp_path / "src") if reader == "toolnexus" else READERS[reader]
    folder = str(_planted_copy(source, tmp_path / reader))
    ids = [row["id"] for row in json.loads(_cli(capsys, "--db", folder, "list", "--json"))]
    assert ids
    shown = ""
    look_alikes = [line for text in LOOK_ALIKES for line in text.splitlines()]
    for session in ids:
        shown += _cli(capsys, "--db", folder, "show", session, "--hidden", "--format", "json")
        for fmt in ("md", "html", "json"):
            out = _cli(
                capsys, "--db", folder, "show", session, "--hidden", "--redact", "--format", fmt
            )
            seen = _visible_text(out, fmt)
            assert [s for s in SECRETS[:-1] if s in out or s in seen] == [], (session, fmt)
            assert "31415926" not in out
            assert "966471357" not in out
            if fmt != "html":  # HTML shows Markdown: `- name: …` is a list item there
                assert [line for line in look_alikes if line not in seen] == [], (session, fmt)
    shown = _visible_text(shown, "md")
    assert [s for s in [*SECRETS[:-1], "31415926", "966471357"] if s not in shown] == []


def test_everruns_event_data_is_redacted(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #18, item 1: the planted corpus in an everruns tool call's arguments, its result,
    a failed call's error and an event type Gander does not know, on a real server."""
    everruns = postgres.everruns_database("ev_redact_event_data")
    session = everruns.add_session("Deploy")
    text = f"{PLANTED_TEXT}\n\n" + "\n".join(LOOK_ALIKES)
    call = {"type": "tool_call", "id": "toolu_01A", "name": "bash"}
    message = {"id": "message_m2", "role": "agent", "created_at": "2026-03-01T10:00:04.880Z"}
    everruns.add_events(
        session,
        [
            (
                "output.message.completed",
                {
                    "message": {
                        **message,
                        "content": [{**call, "arguments": {"command": text, **PLANTED_VALUE}}],
                    }
                },
            ),
            (
                "tool.completed",
                {
                    "tool_call_id": "toolu_01A",
                    "tool_name": "bash",
                    "success": True,
                    "status": "success",
                    "result": [{"type": "text", "text": text}],
                },
            ),
            (
                "tool.completed",
                {"tool_call_id": "toolu_01B", "success": False, "status": "error", "error": text},
            ),
            ("deploy.finished", {"log": text, "settings": PLANTED_VALUE}),
        ],
        turn="turn_t1",
    )
    shown = _cli(capsys, "--db", everruns.url, "show", session, "--hidden", "--format", "json")
    assert [s for s in [*SECRETS[:-1], "31415926", "966471357"] if s not in shown] == []
    for fmt in ("md", "html", "json"):
        out = _cli(
            capsys, "--db", everruns.url, "show", session, "--hidden", "--redact", "--format", fmt
        )
        seen = _visible_text(out, fmt)
        assert [s for s in [*SECRETS[:-1], "31415926", "966471357"] if s in out or s in seen] == []
