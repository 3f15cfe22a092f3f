"""benchcore validate [--json] [--repo DIR]: check the tests/ tree against the skills, and run each case's samples."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..harness.worlds.samples import cases_with_samples, samples_sandbox, tree_sample_problems
from ..harness.worlds.shell import where
from ..harness.repo.tree import find_repo_root, validate_tree


def add_arguments(p) -> None:
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from the current folder)")
    p.add_argument("--json", action="store_true", help="print a machine-readable report")


def run(args) -> int:
    root = find_repo_root(args.repo or Path.cwd())
    report = validate_tree(root)
    skills = [s for s, _ in report.skills]
    # The samples run where a run runs a case's shell: in the arms' sandbox, or unconfined where none runs here.
    box, ran, note = None, None, None
    if cases_with_samples(root, skills):
        found = samples_sandbox(root)
        box, ran = found.sandbox, "sandboxed" if found.sandbox is not None else "unconfined"
        note = (f"samples: their setup, act.sh and hard assertions ran {where(box)}" if box is not None else
                f"note: no OS sandbox runs here ({found.problem}), so the samples' setup, act.sh and hard "
                f"assertions ran {where(None)}; fix: {found.fix}")
    # The samples prove each case's hard assertions can pass and fail; progress goes to stderr (it can take a while).
    problems = list(report.problems) + tree_sample_problems(
        root, skills, progress=lambda line: print(line, file=sys.stderr, flush=True), sandbox=box)
    if args.json:
        print(json.dumps({
            "ok": not problems,
            "repo": str(root),
            "skills": [{"name": s.name, "path": s.path, "tests": s.tests_path, "cases": n} for s, n in report.skills],
            "untested": list(report.untested),
            "problems": [p.as_dict() for p in problems],
            "warnings": [w.as_dict() for w in report.warnings],
            "samples_ran": ran, "samples_note": note,
        }, indent=2))
        return 2 if problems else 0
    for skill, n in report.skills:
        print(f"  {skill.name:<28} {skill.path:<40} {n} case{'s' if n != 1 else ''}")
    if report.untested:
        print(f"skills with no tests (reported, not an error): {', '.join(report.untested)}")
    for w in report.warnings:
        print(f"warning: {w}")
    if note:
        print(note)
    if problems:
        print(f"\n{len(problems)} problem{'s' if len(problems) != 1 else ''}:")
        for p in problems:
            print(f"- {p}")
        print("\nnext: fix the problems above, then run 'benchcore validate' again")
        return 2
    total = sum(n for _, n in report.skills)
    print(f"ok: {len(report.skills)} skills, {total} cases")
    print("next: benchmark a skill with '/benchmark-skill <name>' in Claude Code (or 'benchcore plan <name>')")
    return 0
