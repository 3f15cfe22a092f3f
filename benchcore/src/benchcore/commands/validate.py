"""benchcore validate [--json] [--repo DIR]: check the tests/ tree against the skills, and run each case's samples."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..harness.worlds.samples import tree_sample_problems
from ..harness.repo.tree import find_repo_root, validate_tree


def add_arguments(p) -> None:
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from the current folder)")
    p.add_argument("--json", action="store_true", help="print a machine-readable report")


def run(args) -> int:
    root = find_repo_root(args.repo or Path.cwd())
    report = validate_tree(root)
    # The samples prove each case's hard assertions can pass and fail; progress goes to stderr (it can take a while).
    problems = list(report.problems) + tree_sample_problems(
        root, [s for s, _ in report.skills], progress=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps({
            "ok": not problems,
            "repo": str(root),
            "skills": [{"name": s.name, "path": s.path, "tests": s.tests_path, "cases": n} for s, n in report.skills],
            "untested": list(report.untested),
            "problems": [p.as_dict() for p in problems],
            "warnings": [w.as_dict() for w in report.warnings],
        }, indent=2))
        return 2 if problems else 0
    for skill, n in report.skills:
        print(f"  {skill.name:<28} {skill.path:<40} {n} case{'s' if n != 1 else ''}")
    if report.untested:
        print(f"skills with no tests (reported, not an error): {', '.join(report.untested)}")
    for w in report.warnings:
        print(f"warning: {w}")
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
