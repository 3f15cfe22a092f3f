"""``benchcore draft``: stage a session's drafted cases outside the repository, validate them as ``validate``
would (case.md's grammar, the fixture, every predicate passing its good sample and failing a bad one), then
move each into ``tests/<skill path>/<id>/``. Nothing is overwritten, nothing is written when anything is wrong,
and nothing is committed: the user reviews the new folders.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from pathlib import Path

from attrs import frozen

from ...drafting import Draft, draft_problems, parse_draft
from ...errors import BenchError
from ...model import Case
from ..repo.tree import case_dirs, discover_skills, load_case, sample_dirs
from ..worlds.samples import case_sample_problems


@frozen
class Drafted:
    """What ``draft`` did: the case folders written (relative to the repository), each case as parsed, the
    problems that stopped it (nothing is then written) and the warnings."""

    skill: str
    tests_path: str
    written: tuple[str, ...]
    cases: tuple[tuple[Case, bool, tuple[str, ...]], ...]  # (case, stop, sample names)
    problems: tuple[BenchError, ...]
    warnings: tuple[BenchError, ...]


def _stage(troot: Path, tests_path: str, draft: Draft) -> dict[str, Path]:
    dirs = {}
    for c in draft.cases:
        d = troot / tests_path / c.id
        d.mkdir(parents=True)
        (d / "case.md").write_text(c.case_md, encoding="utf-8")
        for rel, content in c.files.items():
            p = d / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content, encoding="utf-8")
        dirs[c.id] = d
    return dirs


def draft_cases(root: Path, skill_name: str, text: str, source: str) -> Drafted:
    skills = discover_skills(root)
    skill = skills.get(skill_name)
    if skill is None:
        raise BenchError(skill_name, "is not a skill of this repository",
                         fix=f"name one of: {', '.join(sorted(skills)) or '(none found)'}")
    draft = parse_draft(text, source)
    tests_dir = root / skill.tests_path
    problems: list[BenchError] = []
    for c in draft.cases:
        target = tests_dir / c.id
        if os.path.lexists(target):
            problems.append(BenchError(f"{skill.tests_path}/{c.id}", "already exists; draft never overwrites a case",
                                       fix="give the drafted case another id (or move the existing folder away)"))
    existing = len(case_dirs(root, skill))
    parsed: list[tuple[Case, bool, tuple[str, ...]]] = []
    warnings: list[BenchError] = []
    with tempfile.TemporaryDirectory(prefix="benchcore-draft-") as tmp:
        troot = Path(tmp)
        (troot / "tests").mkdir()
        staged = _stage(troot, skill.tests_path, draft)
        prompts = {}
        for c in draft.cases:
            d = staged[c.id]
            try:
                case = load_case(troot, d)
            except BenchError as err:
                problems.append(err)
                continue
            prompts[c.id] = case.prompt
            names = tuple(s.name for s in sample_dirs(d))
            parsed.append((case, c.stop, names))
            if case.hard_assertions:
                md = f"{skill.tests_path}/{c.id}/case.md"
                if not any(n == "good" or n.startswith("good-") for n in names):
                    problems.append(BenchError(md, "has hard assertions but no good sample",
                                               fix="add samples.good: an answer (output.md, world/ files) that "
                                                   "passes every predicate"))
                if not any(n.startswith("bad-") for n in names):
                    problems.append(BenchError(md, "has hard assertions but no bad sample",
                                               fix="add samples.bad-<what>: an answer that fails a predicate"))
                problems += case_sample_problems(troot, d, case)
        more, warn = draft_problems(draft, skill.name, prompts, existing)
        for cid, message, fix in more:
            problems.append(BenchError(f"{skill.tests_path}/{cid}/case.md" if cid else source, message, fix=fix))
        for cid, message, fix in warn:
            warnings.append(BenchError(f"{skill.tests_path}/{cid}/case.md" if cid else source, message, fix=fix))
        written: list[str] = []
        if not problems:
            tests_dir.mkdir(parents=True, exist_ok=True)
            for c in draft.cases:
                target = tests_dir / c.id
                temp = tests_dir / f".{c.id}.draft-{secrets.token_hex(4)}"
                shutil.copytree(staged[c.id], temp)
                if os.path.lexists(target):  # appeared meanwhile: keep it, drop ours
                    shutil.rmtree(temp, ignore_errors=True)
                    problems.append(BenchError(f"{skill.tests_path}/{c.id}", "appeared while drafting; left as it is",
                                               fix="give the drafted case another id"))
                    continue
                os.rename(temp, target)
                written.append(f"{skill.tests_path}/{c.id}")
    return Drafted(skill=skill.name, tests_path=skill.tests_path, written=tuple(written), cases=tuple(parsed),
                   problems=tuple(problems), warnings=tuple(warnings))
