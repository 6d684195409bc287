"""`--redact` removes planted secrets and leaves harmless look-alikes alone (issue #5, point 6)."""

import json
from collections.abc import Callable

import pytest

from desktop_app.cli import main
from desktop_app.rendering.redact import redact
from tests.fixtures.goose_db import GooseDb

SECRETS = {
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "openai-legacy": "sk-Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7",
    "anthropic": "sk-ant-api03-Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0",
    "github": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghij",
    "aws-key-id": "AKIAIOSFODNN7EXAMPLE",
    "slack": "xoxb-123456789012-AbCdEfGhIjKl",
    "google": "AIzaSyD-1234567890abcdefghijklmnopqrstu",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36P",
    "bearer": "Bearer 7f2c9a1b3e5d7f9a1c3e5b7d9f1a3c5e",
    "password": "db_password = 'Tr0ub4dor&3xyz'",
    "aws-secret": "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "url": "postgres://admin:S3cr3tP4ss@db.internal:5432/app",
    "pem": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v3\nabcDEF==\n"
        "-----END RSA PRIVATE KEY-----"
    ),
    "header": '{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}',
}
SECRET_VALUES = [
    "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7",
    "Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0",
    "0123456789abcdefghijABCDEFGHIJ012345",
    "11ABCDEFG0123456789_abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
    "123456789012-AbCdEfGhIjKl",
    "SyD-1234567890abcdefghijklmnopqrstu",
    "SflKxwRJSMeKKF2QT4fwpMeJf36P",
    "7f2c9a1b3e5d7f9a1c3e5b7d9f1a3c5e",
    "Tr0ub4dor&3xyz",
    "wJalrXUtnFEMI/K7MDENG",
    "S3cr3tP4ss",
    "MIIEowIBAAKCAQEA7v3",
    "dXNlcjpwYXNzd29yZA==",
]
LOOK_ALIKES = [
    "pip install scikit-learn (sk-learn)",
    "task-1234, risk-assessment and desk-research",
    "passwordless login works; the password field is empty",
    "a bearer of bad news",
    "AKIA is the prefix of AWS key ids",
    "tokens: input_tokens=1200 output_tokens=80 total_tokens: 1280",
    "commit 3f1c2a9b8e7d6c5b4a392817f6e5d4c3b2a19087",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "https://example.com/path?x=1 and user@example.com",
    "secret santa, skeleton key, top-secret plan",
    "api_key: <your key here> and export GITHUB_TOKEN=$GH_TOKEN",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZI\n-----END PUBLIC KEY-----",
    "ghp_ and sk- are prefixes",
]


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_planted_secret_is_removed(name: str) -> None:
    redacted = redact(f"before {SECRETS[name]} after")
    assert "[REDACTED:" in redacted
    assert redacted.startswith("before ")
    assert redacted.endswith(" after")
    assert not any(value in redacted for value in SECRET_VALUES)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_kept(text: str) -> None:
    assert redact(text) == text


def test_escaped_pem_inside_json_is_removed_and_json_stays_valid() -> None:
    document = json.dumps({"output": SECRETS["pem"], "note": "key follows"})
    cleaned = redact(document)
    assert json.loads(cleaned)["output"] == "[REDACTED:private-key]"


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_show_redact_in_every_format(
    make_db: Callable[..., GooseDb], fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = make_db()
    db.add_session("s", name="Secrets everywhere")
    db.add_message("s", "user", "my key is " + SECRETS["openai"] + " and " + LOOK_ALIKES[0])
    db.add_message(
        "s",
        "assistant",
        [
            {
                "type": "toolRequest",
                "id": "t",
                "toolCall": {
                    "status": "success",
                    "value": {
                        "name": "developer__shell",
                        "arguments": {"command": "env | grep TOKEN"},
                    },
                },
            },
        ],
    )
    db.add_message(
        "s",
        "user",
        [
            {
                "type": "toolResponse",
                "id": "t",
                "toolResult": {
                    "status": "success",
                    "value": {"content": [{"type": "text", "text": "\n".join(SECRETS.values())}]},
                },
            }
        ],
    )
    assert main(["show", "s", "--db", str(db.path), "--format", fmt, "--redact"]) == 0
    out = capsys.readouterr().out
    assert not any(value in out for value in SECRET_VALUES)
    assert "[REDACTED:openai-key]" in out
    assert "sk-learn" in out
    if fmt == "json":
        json.loads(out)
    assert main(["show", "s", "--db", str(db.path), "--format", fmt]) == 0
    assert SECRETS["openai"] in capsys.readouterr().out
