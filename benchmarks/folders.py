"""Folders of conversation files for the benchmarks: toolnexus's two dialects, as its client
appends them (muthuishere/toolnexus python/src/toolnexus/client.py), with prose, tool calls and
long tool outputs, about 50 kB a file."""

import json
import os
import random
from pathlib import Path

from benchmarks.history import BASE_TIME, _sentence, compact


def _openai(rng: random.Random, turns: int) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a careful engineer. " + _sentence(rng, 30)}
    ]
    for turn in range(turns):
        messages.append({"role": "user", "content": _sentence(rng, 18)})
        call = f"call_{turn}"
        arguments = json.dumps({"command": "pytest -q", "cwd": f"/w/project{turn % 7}"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "shell", "arguments": arguments},
                    }
                ],
            }
        )
        output = "\n".join(_sentence(rng, 9) for _ in range(rng.randint(8, 30)))
        messages.append({"role": "tool", "tool_call_id": call, "content": output})
        messages.append({"role": "assistant", "content": _sentence(rng, 45)})
    return messages


def _anthropic(rng: random.Random, turns: int) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = []
    for turn in range(turns):
        messages.append({"role": "user", "content": _sentence(rng, 18)})
        use = f"toolu_{turn}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": _sentence(rng, 25), "signature": "c2ln"},
                    {"type": "text", "text": _sentence(rng, 20)},
                    {
                        "type": "tool_use",
                        "id": use,
                        "name": "read_file",
                        "input": {"path": f"src/m{turn}.py"},
                    },
                ],
            }
        )
        output = "\n".join(_sentence(rng, 9) for _ in range(rng.randint(8, 30)))
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": use,
                        "content": output,
                        "is_error": turn % 9 == 0,
                    }
                ],
            }
        )
        messages.append(
            {"role": "assistant", "content": [{"type": "text", "text": _sentence(rng, 45)}]}
        )
    return messages


def build_folder(folder: Path, files: int = 5_000, turns: int = 24) -> Path:
    """Write the folder unless one with the same parameters is there."""
    stamp = folder.with_suffix(".params")
    params = compact({"files": files, "turns": turns, "v": 1})
    if folder.is_dir() and stamp.exists() and stamp.read_text() == params:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    rng = random.Random(7)
    for index in range(files):
        make = _openai if index % 2 else _anthropic
        path = folder / f"thread-{index:05d}.json"
        path.write_text(json.dumps(make(rng, turns)), encoding="utf-8")
        when = BASE_TIME + index * 900
        os.utime(path, (when, when))
    stamp.write_text(params)
    return folder


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob("*.json"))


def _claude_line(session: str, cwd: str, row: int, when: str, rng: random.Random) -> str:
    if row % 3 == 0:
        line: dict[str, object] = {
            "type": "user",
            "uuid": f"u{row}",
            "sessionId": session,
            "cwd": cwd,
            "timestamp": when,
            "message": {"role": "user", "content": _sentence(rng, 40)},
        }
    elif row % 3 == 1:
        line = {
            "type": "assistant",
            "uuid": f"a{row}",
            "sessionId": session,
            "cwd": cwd,
            "timestamp": when,
            "message": {
                "id": f"msg_{row}",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [
                    {"type": "thinking", "thinking": _sentence(rng, 60), "signature": "E" * 200},
                    {"type": "text", "text": _sentence(rng, 120)},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{row}",
                        "name": "Bash",
                        "input": {"command": "pytest -q", "description": _sentence(rng, 8)},
                    },
                ],
                "usage": {
                    "input_tokens": 12,
                    "cache_read_input_tokens": 15000,
                    "output_tokens": 300,
                },
            },
        }
    else:
        line = {
            "type": "user",
            "uuid": f"r{row}",
            "sessionId": session,
            "cwd": cwd,
            "timestamp": when,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{row - 1}",
                        "content": _sentence(rng, 200),
                    }
                ],
            },
        }
    return json.dumps(line) + "\n"


def build_claude_projects(folder: Path, sessions: int = 2_000, lines: int = 400) -> Path:
    """Claude Code's `projects/` with `sessions` logs across 40 projects (about 1 GB at the
    defaults), written once per parameter set."""
    stamp = folder.with_suffix(".params")
    params = compact({"sessions": sessions, "lines": lines, "v": 1})
    if folder.is_dir() and stamp.exists() and stamp.read_text() == params:
        return folder
    rng = random.Random(11)
    for index in range(sessions):
        project = folder / f"-home-dana-src-project{index % 40:02d}"
        project.mkdir(parents=True, exist_ok=True)
        session = f"{index:08d}-0000-4000-8000-000000000000"
        cwd = f"/home/dana/src/project{index % 40:02d}"
        when = BASE_TIME + index * 600
        with (project / f"{session}.jsonl").open("w", encoding="utf-8") as handle:
            for row in range(lines):
                stamp_text = f"2026-01-01T00:{row // 60 % 60:02d}:{row % 60:02d}.000Z"
                handle.write(_claude_line(session, cwd, row, stamp_text, rng))
        os.utime(project / f"{session}.jsonl", (when, when))
    stamp.write_text(params)
    return folder


def tree_bytes(folder: Path, suffix: str) -> int:
    return sum(p.stat().st_size for p in folder.rglob(f"*{suffix}"))
