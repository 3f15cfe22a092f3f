"""A session's drafted cases (``benchcore draft``): read the draft, check what can be checked without a disk. Pure.

The draft is one JSON document (docs/writing-cases.md, "Drafting cases with the benchmark"):

```json
{"cases": [
  {"id": "01-typo-in-readme",
   "stop": false,
   "case_md": "---\\ndescription: ...\\n---\\n\\n## Prompt\\n...",
   "fixture": {"README.md": "...", ".case-setup/build.sh": "..."},
   "samples": {"good": {"output.md": "...", "world/NOTES.md": "..."},
               "bad-no-header": {"output.md": "..."},
               "bad-committed": {"output.md": "...", "act.sh": "git commit -qm x"}}}
]}
```

``stop`` marks a case whose right answer is to stop, refuse or flag. Everything else (case.md's grammar, the
samples proving each predicate can pass and fail) is checked on disk by the harness, the way ``validate`` does.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from attrs import field, frozen

from .errors import BenchError

CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
SAMPLE_NAME = re.compile(r"(good|good-[A-Za-z0-9._-]+|bad-[A-Za-z0-9._-]+)")
SAMPLE_FILE = re.compile(r"(output\.md|act\.sh|world/.+)")
_PART = re.compile(r"[A-Za-z0-9._ +=@,-]+")


@frozen
class DraftCase:
    """One drafted case: its folder's files, relative to the case folder, and whether it is a stop case."""

    id: str
    case_md: str
    stop: bool = False
    files: dict[str, str] = field(factory=dict)  # "fixture/README.md", "samples/good/output.md", ...


@frozen
class Draft:
    cases: tuple[DraftCase, ...]


def _safe_rel(path: str) -> bool:
    """A relative path of plain parts: no '..', no absolute path, no backslash, no empty or hidden-dot part
    other than a name that starts with '.' (``.case-setup``, ``.commit-scopes`` are fine)."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        return False
    parts = path.split("/")
    return all(p not in ("", ".", "..") and _PART.fullmatch(p) for p in parts)


def parse_draft(text: str, source: str) -> Draft:
    """The draft's text -> Draft, or a BenchError naming the place in it and the fix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchError(source, f"is not valid JSON ({exc.msg})", line=exc.lineno,
                         fix="write the draft as one JSON object {\"cases\": [...]} (docs/writing-cases.md)") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list) or not data["cases"]:
        raise BenchError(source, "has no \"cases\" list (or it is empty)",
                         fix="write {\"cases\": [{\"id\": ..., \"case_md\": ..., \"samples\": {...}}]}")
    cases, seen = [], set()
    for i, raw in enumerate(data["cases"]):
        where = f"{source}: cases[{i}]"
        if not isinstance(raw, dict):
            raise BenchError(where, "is not an object", fix="give each case id, case_md, fixture and samples")
        unknown = sorted(set(raw) - {"id", "stop", "case_md", "fixture", "samples"})
        if unknown:
            raise BenchError(where, f"has unknown keys {', '.join(unknown)}",
                             fix="use only id, stop, case_md, fixture and samples")
        cid = raw.get("id")
        if not isinstance(cid, str) or not CASE_ID.fullmatch(cid):
            raise BenchError(where, f"id {cid!r} is not a case folder name",
                             fix="use a slug like 01-typo-in-readme (letters, digits, '.', '_', '-')")
        if cid in seen:
            raise BenchError(where, f"id {cid!r} is used twice", fix="give each case its own id")
        seen.add(cid)
        where = f"{source}: case {cid}"
        md = raw.get("case_md")
        if not isinstance(md, str) or not md.strip():
            raise BenchError(where, "has no case_md text", fix="put the whole case.md text in case_md")
        stop = raw.get("stop", False)
        if not isinstance(stop, bool):
            raise BenchError(where, "stop is not true or false", fix="write \"stop\": true for a stop-or-flag case")
        files: dict[str, str] = {}
        fixture = raw.get("fixture") or {}
        if not isinstance(fixture, dict):
            raise BenchError(where, "fixture is not an object of path -> text",
                             fix="write \"fixture\": {\"README.md\": \"...\"}")
        for rel, content in fixture.items():
            if not _safe_rel(rel) or not isinstance(content, str):
                raise BenchError(where, f"fixture path {rel!r} is not a plain relative path with text content",
                                 fix="use paths like src/app.py (no '..', no leading '/'), each with its text")
            files[f"fixture/{rel}"] = content
        samples = raw.get("samples") or {}
        if not isinstance(samples, dict):
            raise BenchError(where, "samples is not an object of sample name -> files",
                             fix="write \"samples\": {\"good\": {\"output.md\": \"...\"}, \"bad-<what>\": {...}}")
        for name, sfiles in samples.items():
            if not isinstance(name, str) or not SAMPLE_NAME.fullmatch(name):
                raise BenchError(where, f"sample name {name!r} is neither good, good-* nor bad-*",
                                 fix="name it good (passes every predicate) or bad-<what> (fails one)")
            if not isinstance(sfiles, dict) or "output.md" not in sfiles:
                raise BenchError(where, f"sample {name} has no output.md",
                                 fix=f"give {name} an \"output.md\": the arm's final message")
            for rel, content in sfiles.items():
                if not SAMPLE_FILE.fullmatch(rel) or not _safe_rel(rel) or not isinstance(content, str):
                    raise BenchError(where, f"sample {name} file {rel!r} is not output.md, act.sh or world/<path>",
                                     fix="a sample holds output.md, optionally act.sh and world/<files the arm wrote>")
                files[f"samples/{name}/{rel}"] = content
        cases.append(DraftCase(id=cid, case_md=md, stop=stop, files=files))
    return Draft(cases=tuple(cases))


def restates_skill(prompt: str, skill: str) -> Optional[str]:
    """What in a prompt gives the skill away to the no-skill arm, or None: its file (SKILL.md), a mention of a
    skill ("use the greet skill"), or its folder name when that is no plain word (``commit-message``). The
    name's words alone ("write a commit message") are what a user says, so they pass."""
    low = prompt.lower()
    if "skill.md" in low:
        return "names SKILL.md"
    if re.search(r"\b(the|your|a|this|my)\s+[\w-]+\s+skill\b|\bskill\s+(called|named)\b", low):
        return "tells the arm about a skill"
    name = skill.lower()
    if re.search(r"[-_.]", name) and re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", low):
        return f"names the skill ({skill})"
    return None


def draft_problems(draft: Draft, skill: str, prompts: dict[str, str], existing_cases: int) -> tuple[list, list]:
    """(problems, warnings) about the draft as a whole, as (case id or None, message, fix).

    ``prompts``: case id -> its parsed prompt (the harness parses case.md). A prompt that restates the skill is a
    problem; no stop case is one too when the skill has no cases yet (a warning otherwise); no fixture at all is a
    warning (the skill may work on a conversation alone)."""
    problems, warnings = [], []
    for c in draft.cases:
        why = restates_skill(prompts.get(c.id, ""), skill)
        if why:
            problems.append((c.id, f"the prompt {why}: the no-skill arm would be handed the skill too",
                             "write what a user would type about their task, never the skill's name or its rules"))
    if not any(c.stop for c in draft.cases):
        entry = (None, "no case is marked \"stop\": true (a case where the right answer is to stop, refuse or flag)",
                 "add one: otherwise a skill that always produces something looks perfect")
        (warnings if existing_cases else problems).append(entry)
    if not any(f.startswith("fixture/") for c in draft.cases for f in c.files):
        warnings.append((None, "no case has a fixture: every arm starts in an empty folder",
                         "if the skill works on files, give at least one case the files it works on"))
    return problems, warnings


__all__ = ["Draft", "DraftCase", "draft_problems", "parse_draft", "restates_skill"]
