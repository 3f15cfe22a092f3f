"""Collect stage 2, the audit: check each trial whose cells are all in for leaks and a changed prompt (audit.json)."""

from __future__ import annotations

import os
from pathlib import Path

from ... import serde
from ...model import Audit, AuditProblem
from ..claude.transcript import Transcript
from .rewrites import unsandboxed_calls
from .contamination import Fingerprints, audit_cell, distinctive_lines, guard_problems, prompt_problem, shown_lines
from ..confine.guard import read_log
from .kept import KeptTranscript
from .state import RunState, write_if_changed
from ..store.planfile import Cell
from ..store.files import read_text
from ..repo.tree import fixture_path, tests_path_of


CASES_KEPT = 4  # cases whose fingerprints collect keeps at once (it meets the cells case by case, in plan order)


def case_fingerprints(run: RunState, case_id: str) -> Fingerprints:
    """What an arm of this case must not see in a tool result (see harness/collect/contamination.py), from the skill
    copies (the repository's skill when a copy is gone), the case, the skill's other cases and the run
    folder; lines the arm may see (its prompt, its case's fixture) are left out."""
    kept = run.fingerprint_cache
    if case_id in kept:
        kept[case_id] = kept.pop(case_id)  # the most recent last
        return kept[case_id]
    repo = Path(run.plan.repo) if run.plan.repo else None
    case = run.cases[case_id]
    tests_dir = repo / tests_path_of(run.info.skill) if repo else None
    allowed = [c.prompt for c in run.cells_of_case(case_id)]
    if tests_dir is not None and (tests_dir / case_id).is_dir():
        fixture = fixture_path(repo, tests_dir / case_id, case)
        allowed.extend(_texts(fixture) if fixture is not None and fixture.exists() else [])
    skill: dict[str, tuple[str, ...]] = {}
    skill_md: dict[str, tuple[str, ...]] = {}
    sources = dict(run.plan.skill_copies)
    for arm, copy in sources.items():
        folder = Path(copy)
        if not folder.is_dir() and arm == "new" and repo is not None:
            folder = repo / run.info.skill.path
        texts = _copy_texts(run, folder)
        md = folder / "SKILL.md"
        skill_md[arm] = distinctive_lines(read_text(md), allowed) if md.is_file() else ()
        skill[arm] = tuple(dict.fromkeys(l for t in texts for l in distinctive_lines(t, allowed))) + \
            (run.info.skill.path + "/",)
    skill_text = "\n".join(l for ls in skill.values() for l in ls)
    own = [*case.soft_criteria, *(a.command for a in case.hard_assertions), f"description: {case.description}"]
    case_lines = tuple(l for l in distinctive_lines("\n".join(own), allowed) if l not in skill_text)
    tests: list[str] = []
    others: list[tuple[str, tuple[str, ...]]] = []
    if tests_dir is not None and tests_dir.is_dir():
        rel = str(tests_dir.relative_to(repo))
        tests += [rel + "/", rel + ":"]
        seen = " \n ".join(allowed)  # as distinctive_lines joins them: a line holds no "\n", so it cannot span two
        others = _other_cases(run, tests_dir)
        # The case lines any skill copy's text holds (a line of skill_text is a stripped line of those texts, so
        # a line not in them is in no case's skill_text), found once per run; the few found are checked as before.
        raw = "\n".join([*(t for f in run.case_lines.get("copies", {}).values() for t in f), run.info.skill.path + "/"])
        quoted = _in_text(run, others, raw, "skill")
        shown = _in_text(run, others, seen, None)  # and those this case's prompt or fixture holds
        for other, lines in others:
            if other != case_id:
                tests += [l for l in lines if l not in shown and (l not in quoted or l not in skill_text)]
    run_lines = (f'"run_id": "{run.plan.run_id}"', '"cells_collected":', "const BOUND = {",
                 f"# Judge packet {run.plan.run_id}:", "cells: the world path in the prompt; packets:",
                 f".reports/runs/{run.plan.run_id}")
    fp = Fingerprints(skill=skill, skill_md=skill_md, case=case_lines, tests=tuple(dict.fromkeys(tests)), run=run_lines,
                      universe=_universe(run, run_lines, tests[:2], others))
    kept[case_id] = fp
    while len(kept) > CASES_KEPT:  # each case's tests hold every other case's lines: kept for all, they grew as cases^2
        del kept[next(iter(kept))]
    return fp


def _copy_texts(run: RunState, folder: Path) -> list[str]:
    """The texts of one skill copy, read once per collect (every case's fingerprints hold them)."""
    kept = run.case_lines.setdefault("copies", {})
    if folder not in kept:
        kept[folder] = _texts(folder)
    return kept[folder]


def _universe(run: RunState, run_lines: tuple, prefix: list, others: list) -> tuple[str, ...]:
    """Every line a case's fingerprints may hold: the run's strings, each case's criteria, assertions and
    description, each case file's lines and each line of the skill copies; one tuple per run (the audit
    indexes it once: an index per case, each with every other case's lines, made the audit quadratic)."""
    key = "universe"
    if key not in run.case_lines:
        own = [l for case in run.cases.values()
               for l in distinctive_lines("\n".join([*case.soft_criteria, *(a.command for a in case.hard_assertions),
                                                     f"description: {case.description}"]))]
        # And every line of the skill copies (each case's skill lines are some of them): the arm's matcher
        # shares the index, so each tool result is looked up in one index, once.
        skill = [l for texts in run.case_lines.get("copies", {}).values() for text in texts
                 for l in distinctive_lines(text)] + [run.info.skill.path + "/"]
        run.case_lines[key] = tuple(dict.fromkeys([*run_lines, *own, *prefix, *(l for _, ls in others for l in ls),
                                                   *skill]))
    return run.case_lines[key]


def _in_text(run: RunState, others: list, text: str, key) -> frozenset:
    """The lines of the skill's case files that ``text`` holds, found with one index of them all (``key``: the
    text is the same for every case, so the answer is kept for the run) instead of each line searched for in
    it, case after case."""
    if key is not None and ("in", key) in run.case_lines:
        return run.case_lines[("in", key)]
    lines = tuple(dict.fromkeys(l for _, ls in others for l in ls))
    found = shown_lines(lines, text)
    if key is not None:
        run.case_lines[("in", key)] = found
    return found


def _other_cases(run: RunState, tests_dir: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(case id, its distinctive lines) of every case of the skill, each case.md read once per collect
    (every case's fingerprints hold the others': reading them for each case made the audit quadratic)."""
    key = f"cases of {tests_dir}"
    if key not in run.case_lines:
        run.case_lines[key] = [(other.parent.name, distinctive_lines(read_text(other)))
                               for other in sorted(tests_dir.glob("*/case.md"))]
    return run.case_lines[key]


def needs_audit(run: RunState, cell: Cell, changed: bool) -> bool:
    """Whether this collect audits the cell's trial (unless another cell of it is still out): its copy
    changed, or the trial has no audit.json yet."""
    return changed or not (run.tdir(cell.case, cell.trial) / "audit.json").is_file()


def cell_problems(run: RunState, cell: Cell, t: Transcript) -> list[str]:
    """What the audit finds in one cell's transcript (leaks, refusals, unsandboxed calls): the part of a
    trial's audit that reads the transcript, so collect can ask it while the transcript is parsed."""
    repo = run.plan.repo
    tests_rel = tests_path_of(run.info.skill)
    # Absolute and repository-relative: a subagent starts in the repository, so "cat tests/..." reads it.
    run_rel = os.path.relpath(run.run_dir, repo) if repo else str(run.run_dir)
    case_files = [f"{repo}/{tests_rel}/{cell.case}/case.md", str(run.run_dir / "cases" / cell.case / "case.md"),
                  f"{tests_rel}/{cell.case}/case.md", f"{run_rel}/cases/{cell.case}/case.md"]
    problems = audit_cell(cell.arm, t, repo=repo, run_dir=str(run.run_dir), skill_copies=run.plan.skill_copies,
                          own_copy=cell.skill_dir, case_files=case_files, skill_rel=run.info.skill.path,
                          tests_rel=tests_rel, run_rel=run_rel, world=cell.world,
                          fingerprints=case_fingerprints(run, cell.case))
    return problems + unsandboxed_calls(t, cell, run.plan.sandbox)


def audit_trials(run: RunState, found: dict[str, Transcript], changed: set[str] = frozenset()
                 ) -> dict[tuple[str, int], list[dict]]:
    """(case, trial) -> problems, for every trial whose cells are all in; writes audit.json."""
    out: dict[tuple[str, int], list[dict]] = {}
    by_trial = run.cells_by_trial()
    guard_log = read_log(run.run_dir)
    for key, cells in by_trial.items():
        if not all(c.id in found for c in cells):
            continue
        apath = run.tdir(*key) / "audit.json"
        if apath.is_file() and not any(c.id in changed for c in cells):
            # Nothing in the trial changed since it was audited: the verdict stands (after clean the skill
            # copies it was checked against are gone).
            kept = serde.loads(Audit, read_text(apath), source=str(apath))
            out[key] = [{"arm": p.arm, "problem": p.problem} for p in kept.problems]
            continue
        problems = []
        for cell in cells:
            if cell.id in run.conflicts:
                problems.append({"arm": cell.arm, "problem": run.conflicts[cell.id]})
            changed_prompt = prompt_problem(cell.prompt, run.received.get(cell.id, ""))
            if changed_prompt:
                problems.append({"arm": cell.arm, "problem": changed_prompt})
            t = found[cell.id]
            audited = t.audited if isinstance(t, KeptTranscript) else None
            for p in audited if audited is not None else cell_problems(run, cell, t):
                problems.append({"arm": cell.arm, "problem": p})
        problems += guard_problems(guard_log, cells)
        out[key] = problems
        audit = Audit(invalid=bool(problems), problems=tuple(AuditProblem(**p) for p in problems))
        write_if_changed(run.tdir(*key) / "audit.json", serde.dumps(audit))
    return out


def _texts(root: Path, limit: int = 1 << 20) -> list[str]:
    """The text files under ``root`` (or ``root`` itself), each up to ``limit`` bytes; binary files skipped."""
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    out = []
    for p in files[:2000]:
        try:
            data = p.read_bytes()[:limit]
            out.append(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return out
