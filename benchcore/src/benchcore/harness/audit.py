"""Contamination and engagement audit of one trial, from its cells' transcripts.

A trial is invalid (re-run, not scored) when:

- the baseline invoked any skill (a Skill tool call, or the record carrying a
  skill's body; ``attributionSkill`` is not read: it names the parent's skill) or read any SKILL.md, anything under the repository's ``skills/``,
  ``tests/`` or ``.claude/skills/`` (or any ``.claude/skills/``), or a skill copy;
- a with-skill arm never read its own copy's SKILL.md, invoked an installed
  skill instead of its copy, or read the other arm's copy (then the skill
  under test is not what ran);
- any arm read its case's ``case.md``;
- any arm's first message does not hold its planned prompt (whitespace
  aside): the arms were not given the same task.

"Read" means any tool call whose input names the path: Read/Edit/Write paths,
Grep/Glob paths and patterns, Bash commands. This errs towards flagging: a
flagged trial costs one re-run, a missed one a wrong verdict.
"""

from __future__ import annotations

import json
import re
from typing import Iterable

from .transcripts import Transcript, ToolUse


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _blob(use: ToolUse) -> str:
    return "\n".join(_strings(use.input))


def _where(use: ToolUse, main_id: str) -> str:
    return "" if use.agent_id == main_id else f" (in its subagent {use.agent_id})"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prompt_problem(planned: str, actual: str) -> str | None:
    """A problem when the subagent did not receive the planned prompt (it may be wrapped, not changed)."""
    if " ".join(planned.split()) in " ".join(actual.split()):
        return None
    return "its first message is not the planned prompt (the prompt was changed before launch)"


def _names_relative(blob: str, rel: str) -> bool:
    """``blob`` names the repository-relative path ``rel`` (as a path of its own, or inside a longer one)."""
    return re.search(r"(?<![A-Za-z0-9_.-])" + re.escape(rel) + r"(?![A-Za-z0-9_.-])", blob) is not None


def audit_cell(arm: str, t: Transcript, *, repo: str, run_dir: str, skill_copies: dict[str, str],
               own_copy: str | None, case_files: Iterable[str], skill_rel: str = "", tests_rel: str = "",
               run_rel: str = "", world: str = "") -> list[str]:
    """The problems of one cell's transcript, in words (empty when clean).

    ``case_files`` are matched as substrings (give them absolute and repository-relative).
    ``skill_rel``, ``tests_rel`` and ``run_rel`` are the skill's folder, its tests folder and the run
    directory relative to the repository: a subagent starts in the repository, so it can read them
    without naming the repository. A tool call that names the cell's ``world`` is taken to work there,
    so its relative paths are the world's (a fixture may hold a ``tests/<name>`` of its own)."""
    problems: list[str] = []
    repo = repo.rstrip("/")
    watched_repo = [f"{repo}/skills/", f"{repo}/tests/", f"{repo}/.claude/skills/", f"{repo}/skills", f"{repo}/tests"]
    skill_rel, tests_rel, run_rel = (r.strip("/") for r in (skill_rel, tests_rel, run_rel))
    relative = [r for r in (skill_rel, tests_rel, run_rel) if r]
    leaf = skill_rel.rsplit("/", 1)[-1]

    def names(rel: str) -> bool:
        return bool(rel) and (f"{repo}/{rel}" in blob or (not in_world and _names_relative(blob, rel)))
    copies = [c for c in skill_copies.values() if c]
    case_files = [c for c in case_files if c]
    uses = t.tool_uses()
    read_own = False

    for use in uses:
        blob = _blob(use)
        in_world = bool(world) and world in blob
        where = _where(use, t.main_id)
        if use.name == "Skill":
            name = use.input.get("skill") or use.input.get("command") or "?"
            if arm == "baseline":
                problems.append(f"invoked the skill {name!r}{where}")
            else:
                problems.append(f"invoked the installed skill {name!r} instead of its copy{where}")
            continue
        if any(c in blob for c in case_files):
            problems.append(f"read its case's case.md: {use.name} {_short(blob)}{where}")
            continue
        if own_copy and f"{own_copy}/SKILL.md" in blob and use.agent_id == t.main_id:
            read_own = True
        if arm != "baseline":
            if any(c in blob for c in copies if c != own_copy):
                problems.append(f"read another arm's skill copy: {use.name} {_short(blob)}{where}")
            elif names(skill_rel) or (leaf and f".claude/skills/{leaf}" in blob):
                # For previous that is the edited version; for new, a skill outside the run.
                problems.append(f"read the repository's or an installed copy of the skill instead of its own: "
                                f"{use.name} {_short(blob)}{where}")
            elif names(tests_rel) or names(run_rel) or (run_dir and _names_relative(blob, run_dir.rstrip("/"))):
                problems.append(f"read the benchmark's tests or run files: {use.name} {_short(blob)}{where}")
        if arm == "baseline":
            if "SKILL.md" in blob:
                problems.append(f"read a SKILL.md: {use.name} {_short(blob)}{where}")
            elif any(c in blob for c in copies):
                problems.append(f"read a skill copy: {use.name} {_short(blob)}{where}")
            elif ".claude/skills" in blob or any(w in blob for w in watched_repo) or \
                    any(names(r) for r in relative):
                problems.append(f"read the repository's skills or tests: {use.name} {_short(blob)}{where}")

    if arm == "baseline":
        # attributionSkill is not evidence: Claude Code writes the skill of the *parent's* turn on every
        # record of a subagent launched in it ("benchmark-skill" for every cell launched by the protocol),
        # and none on a subagent that used a skill itself (CLAUDE-CODE.md section 0, measured). A skill the
        # arm loaded shows as its Skill tool_use (above) and the isMeta record carrying the skill's body.
        for r in t.records:
            if r.get("type") == "user" and r.get("isMeta") and r.get("sourceToolUseID") and \
                    "Base directory for this skill:" in json.dumps(r.get("message", {}).get("content", "")):
                problems.append("loaded a skill's body (an isMeta record after a Skill call)")
                break
        for r in t.records:
            att = r.get("attachment")
            if isinstance(att, dict) and att.get("type") in ("invoked_skills", "dynamic_skill"):
                problems.append(f"loaded a skill ({att.get('type')} attachment)")
                break
    elif own_copy and not read_own:
        problems.append(f"never read its skill copy's SKILL.md ({own_copy}/SKILL.md), so the skill under test did not run")
    return problems
