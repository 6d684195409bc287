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
