"""tests/<skill path>/benchmark.yaml: a skill's benchmark options, each checked, with the line of a mistake (I/O)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Optional

import yaml

from ...casefile import safe_load
from ...errors import BenchError, raise_all
from .roots import read_repo_text as _read, rel_path as _rel

OPTION_KEYS = ("temperature", "budget_tokens", "budget_usd", "judge_model", "models", "network", "tools",
               "confirm_judgments", "requires")
# What a tool name in benchmark.yaml ``tools`` looks like (WebFetch, mcp__server__tool).
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,120}$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$")


def load_options(root: Path, skill) -> dict:
    """tests/<skill path>/benchmark.yaml (``skill``: a SkillInfo, or anything with its ``tests_path``) -> the
    options it sets, each checked, and {"temperature": 1.0} by default; every mistake raises together."""
    opts, problems = option_problems(root, skill)
    raise_all(problems)
    return opts


def option_problems(root: Path, skill) -> tuple[dict, list[BenchError]]:
    """(the options benchmark.yaml sets that are good, and every mistake in it in line order, each with its line
    and fix); a file YAML cannot read, or that is not a mapping, is one problem."""
    opts: dict = {"temperature": 1.0}
    path = root / skill.tests_path / "benchmark.yaml"
    if not path.is_file():
        return opts, []
    rel = _rel(root, path)
    try:
        data = safe_load(_read(root, path)) or {}
    except BenchError as err:
        return opts, [err]
    except RecursionError:
        return opts, [BenchError(rel, "is nested too deeply to read", line=1,
                                 fix="write flat 'temperature: 0' style lines")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return opts, [BenchError(rel, f"is not valid YAML: {getattr(exc, 'problem', exc)}",
                                 line=(mark.line + 1) if mark else None,
                                 fix="write 'temperature: 0' style key: value lines")]
    if not isinstance(data, dict):
        return opts, [BenchError(rel, "is not a mapping", line=1, fix="write 'temperature: <number>'")]
    problems: list[BenchError] = []

    def bad(key: str, message: str, fix: str) -> None:
        problems.append(BenchError(rel, message, line=_key_line(path, key), fix=fix))

    for key in data:
        if key == "trials":
            bad(key, "sets 'trials', but trials are always 5 (the pass rules are defined on 5)", "remove the 'trials' line")
        elif key not in OPTION_KEYS:
            bad(key, f"unknown option {key!r}", f"use only {', '.join(OPTION_KEYS)}")
    if "temperature" in data:
        t = data["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= 2:
            bad("temperature", f"temperature {t!r} is not a number from 0 to 2",
                "write e.g. 'temperature: 0' (mechanical task) or 'temperature: 1.0' (realistic)")
        else:
            opts["temperature"] = float(t)
    if "budget_tokens" in data:
        b = data["budget_tokens"]
        if isinstance(b, bool) or not isinstance(b, int) or b <= 0:
            bad("budget_tokens", f"budget_tokens {b!r} is not a positive whole number of raw tokens",
                "write e.g. 'budget_tokens: 2000000'")
        else:
            opts["budget_tokens"] = b
    if "budget_usd" in data:
        b = data["budget_usd"]
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
            bad("budget_usd", f"budget_usd {b!r} is not a positive number of dollars", "write e.g. 'budget_usd: 5'")
        else:
            opts["budget_usd"] = float(b)
    if "judge_model" in data:
        jm = data["judge_model"]
        if not isinstance(jm, str) or not _MODEL_ID.match(jm):
            bad("judge_model", f"judge_model {jm!r} is not a model name",
                "write e.g. 'judge_model: claude-haiku-4-5' (a name the Agent tool's model accepts)")
        else:
            opts["judge_model"] = jm
    if "models" in data:
        _check_models(data["models"], bad, opts)
    if "network" in data:
        if not isinstance(data["network"], bool):
            bad("network", f"network {data['network']!r} is not true or false",
                "write 'network: true' to let arms' commands reach the network in their sandbox")
        else:
            opts["network"] = data["network"]
    if "tools" in data:
        ts = data["tools"]
        if not isinstance(ts, list) or not all(isinstance(t, str) and _TOOL_NAME.match(t) for t in ts):
            bad("tools", f"tools {ts!r} is not a list of tool names",
                "write e.g. 'tools: [WebFetch, mcp__docs__search]' (tools arms may use beyond the file tools and Bash)")
        else:
            opts["tools"] = list(ts)
    if "confirm_judgments" in data:
        c = data["confirm_judgments"]
        if not isinstance(c, bool):
            bad("confirm_judgments", f"confirm_judgments {c!r} is not true or false",
                "write 'confirm_judgments: true' (every decisive judgment read again, swapped) or remove the line")
        else:
            opts["confirm_judgments"] = c
    if "requires" in data:
        rs = data["requires"]
        if isinstance(rs, str):
            rs = [rs]
        if not isinstance(rs, list) or not rs or not all(isinstance(r, str) and r.strip() for r in rs):
            bad("requires", f"requires {data['requires']!r} is not a list of shell commands",
                'write e.g. requires: ["python3 -m pytest --version"] (commands the arms need; plan runs each in '
                "their sandbox and refuses to launch when one fails)")
        else:
            opts["requires"] = [r.strip() for r in rs]
    problems.sort(key=lambda p: p.line or 0)  # as the reader meets them in the file
    return opts, problems


def _check_models(ms, bad, opts: dict) -> None:
    if not isinstance(ms, list) or not ms or not all(isinstance(x, str) and _MODEL_ID.match(x) for x in ms):
        bad("models", f"models {ms!r} is not a list of model names",
            "write e.g. 'models: [claude-haiku-4-5, claude-sonnet-4-6]'")
        return
    if len(set(ms)) != len(ms):
        bad("models", "models lists a model twice", "list each model once")
        return
    from ...report.fmt import model_slug  # results and reports are named <skill>@<slug>: two names, one file

    by_slug: dict[str, str] = {}
    for m in ms:
        if (other := by_slug.setdefault(model_slug(m), m)) != m:
            bad("models", f"models {other!r} and {m!r} share the file name {model_slug(m)!r}, so their results would "
                "overwrite each other", "benchmark one of them in a separate run, or name it by another spelling")
            return
    opts["models"] = list(ms)


def _key_line(path: Path, key: str) -> Optional[int]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.startswith(f"{key}:") or line.startswith(f"{key} :"):
            return i + 1
    return None
