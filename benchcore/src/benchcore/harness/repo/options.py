"""tests/<skill path>/benchmark.yaml: a skill's benchmark options, each checked, with the line of a mistake (I/O)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Optional

import yaml

from ...casefile import safe_load
from ...errors import BenchError
from .roots import read_repo_text as _read, rel_path as _rel

OPTION_KEYS = ("temperature", "budget_tokens", "budget_usd", "judge_model", "models", "network", "tools",
               "confirm_judgments", "requires")
# What a tool name in benchmark.yaml ``tools`` looks like (WebFetch, mcp__server__tool).
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,120}$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$")


def load_options(root: Path, skill) -> dict:
    """tests/<skill path>/benchmark.yaml (``skill``: a SkillInfo, or anything with its ``tests_path``) -> the
    options it sets, each checked, and {"temperature": 1.0} by default; the first mistake raises."""
    opts = {"temperature": 1.0}
    path = root / skill.tests_path / "benchmark.yaml"
    if not path.is_file():
        return opts
    rel = _rel(root, path)
    try:
        data = safe_load(_read(root, path)) or {}
    except RecursionError:
        raise BenchError(rel, "is nested too deeply to read", line=1, fix="write flat 'temperature: 0' style lines") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BenchError(rel, f"is not valid YAML: {getattr(exc, 'problem', exc)}",
                         line=(mark.line + 1) if mark else None, fix="write 'temperature: 0' style key: value lines") from None
    if not isinstance(data, dict):
        raise BenchError(rel, "is not a mapping", line=1, fix="write 'temperature: <number>'")
    for key in data:
        if key == "trials":
            raise BenchError(rel, "sets 'trials', but trials are always 5 (the pass rules are defined on 5)",
                             line=_key_line(path, key), fix="remove the 'trials' line")
        if key not in OPTION_KEYS:
            raise BenchError(rel, f"unknown option {key!r}", line=_key_line(path, key),
                             fix=f"use only {', '.join(OPTION_KEYS)}")
    if "temperature" in data:
        t = data["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= 2:
            raise BenchError(rel, f"temperature {t!r} is not a number from 0 to 2", line=_key_line(path, "temperature"),
                             fix="write e.g. 'temperature: 0' (mechanical task) or 'temperature: 1.0' (realistic)")
        opts["temperature"] = float(t)
    if "budget_tokens" in data:
        b = data["budget_tokens"]
        if isinstance(b, bool) or not isinstance(b, int) or b <= 0:
            raise BenchError(rel, f"budget_tokens {b!r} is not a positive whole number of raw tokens",
                             line=_key_line(path, "budget_tokens"), fix="write e.g. 'budget_tokens: 2000000'")
        opts["budget_tokens"] = b
    if "budget_usd" in data:
        b = data["budget_usd"]
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
            raise BenchError(rel, f"budget_usd {b!r} is not a positive number of dollars",
                             line=_key_line(path, "budget_usd"), fix="write e.g. 'budget_usd: 5'")
        opts["budget_usd"] = float(b)
    if "judge_model" in data:
        jm = data["judge_model"]
        if not isinstance(jm, str) or not _MODEL_ID.match(jm):
            raise BenchError(rel, f"judge_model {jm!r} is not a model name", line=_key_line(path, "judge_model"),
                             fix="write e.g. 'judge_model: claude-haiku-4-5' (a name the Agent tool's model accepts)")
        opts["judge_model"] = jm
    if "models" in data:
        ms = data["models"]
        if not isinstance(ms, list) or not ms or not all(isinstance(x, str) and _MODEL_ID.match(x) for x in ms):
            raise BenchError(rel, f"models {ms!r} is not a list of model names", line=_key_line(path, "models"),
                             fix="write e.g. 'models: [claude-haiku-4-5, claude-sonnet-4-6]'")
        if len(set(ms)) != len(ms):
            raise BenchError(rel, "models lists a model twice", line=_key_line(path, "models"),
                             fix="list each model once")
        from ...report.fmt import model_slug  # results and reports are named <skill>@<slug>: two names, one file

        by_slug: dict[str, str] = {}
        for m in ms:
            if (other := by_slug.setdefault(model_slug(m), m)) != m:
                raise BenchError(rel, f"models {other!r} and {m!r} share the file name {model_slug(m)!r}, so their "
                                      "results would overwrite each other", line=_key_line(path, "models"),
                                 fix="benchmark one of them in a separate run, or name it by another spelling")
        opts["models"] = list(ms)
    if "network" in data:
        if not isinstance(data["network"], bool):
            raise BenchError(rel, f"network {data['network']!r} is not true or false", line=_key_line(path, "network"),
                             fix="write 'network: true' to let arms' commands reach the network in their sandbox")
        opts["network"] = data["network"]
    if "tools" in data:
        ts = data["tools"]
        if not isinstance(ts, list) or not all(isinstance(t, str) and _TOOL_NAME.match(t) for t in ts):
            raise BenchError(rel, f"tools {ts!r} is not a list of tool names", line=_key_line(path, "tools"),
                             fix="write e.g. 'tools: [WebFetch, mcp__docs__search]' (tools arms may use beyond "
                                 "the file tools and Bash)")
        opts["tools"] = list(ts)
    if "confirm_judgments" in data:
        c = data["confirm_judgments"]
        if not isinstance(c, bool):
            raise BenchError(rel, f"confirm_judgments {c!r} is not true or false",
                             line=_key_line(path, "confirm_judgments"),
                             fix="write 'confirm_judgments: true' (every decisive judgment read again, swapped) or "
                                 "remove the line")
        opts["confirm_judgments"] = c
    if "requires" in data:
        rs = data["requires"]
        if isinstance(rs, str):
            rs = [rs]
        if not isinstance(rs, list) or not rs or not all(isinstance(r, str) and r.strip() for r in rs):
            raise BenchError(rel, f"requires {data['requires']!r} is not a list of shell commands",
                             line=_key_line(path, "requires"),
                             fix='write e.g. requires: ["python3 -m pytest --version"] (commands the arms need; '
                                 "plan runs each in their sandbox and refuses to launch when one fails)")
        opts["requires"] = [r.strip() for r in rs]
    return opts


def _key_line(path: Path, key: str) -> Optional[int]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.startswith(f"{key}:") or line.startswith(f"{key} :"):
            return i + 1
    return None
