"""benchcore draft <skill> [--from FILE | -] [--json]: write a session's drafted cases under the skill's tests
folder after they validate, and say what the user should review.

The draft (docs/writing-cases.md, "Drafting cases") is one JSON object read from ``--from FILE`` or standard
input: each case's id, its case.md text, its fixture files, its samples, and whether it is a stop-or-flag case.
Every case is staged outside the repository and checked the way ``validate`` checks it (case.md, the fixture,
each hard assertion passing its good sample and failing a bad one); a prompt that names the skill, or a draft
with no stop-or-flag case for a skill without cases, is refused. Only when everything holds is each case moved
into ``tests/<skill path>/<id>/``. An existing folder is never overwritten, and nothing is committed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import BenchError
from ..harness.draft.write import draft_cases
from ..harness.repo.tree import find_repo_root
from ..harness.store.files import read_text

REVIEW = (
    "each prompt: would a user of the skill type it? It must not name the skill or state its rules",
    "each hard assertion: something every good answer has (taste belongs in the soft criteria)",
    "each soft criterion: what a good answer to this situation does, never naming the skill",
    "the stop-or-flag case: is stopping really the right answer there?",
    "each fixture: realistic files, nothing that names the skill, the case or the answer",
)


def add_arguments(p) -> None:
    p.add_argument("skill", help="the skill's name (its folder's name)")
    p.add_argument("--from", dest="source", default="-", metavar="FILE",
                   help="the draft (JSON, docs/writing-cases.md); '-' or absent: standard input")
    p.add_argument("--repo", type=Path, default=None, help="the skills repository (default: found from here)")
    p.add_argument("--json", action="store_true", help="print a machine-readable report")


def run(args) -> int:
    root = find_repo_root(args.repo or Path.cwd())
    if args.source == "-":
        text, source = sys.stdin.read(), "<stdin>"
    else:
        path = Path(args.source)
        if not path.is_file():
            raise BenchError(args.source, "does not exist or is not a file",
                             fix="write the draft there first, or pipe it on standard input")
        text, source = read_text(path), args.source
    done = draft_cases(root, args.skill, text, source)
    if args.json:
        print(json.dumps({
            "ok": not done.problems, "skill": done.skill, "tests": done.tests_path, "written": list(done.written),
            "cases": [{"id": c.id, "description": c.description, "stop": stop, "prompt": c.prompt,
                       "hard_assertions": len(c.hard_assertions), "soft_criteria": len(c.soft_criteria),
                       "samples": list(samples)} for c, stop, samples in done.cases],
            "problems": [p.as_dict() for p in done.problems],
            "warnings": [w.as_dict() for w in done.warnings],
        }, indent=2))
        return 2 if done.problems else 0
    for w in done.warnings:
        print(f"warning: {w}")
    if done.problems:
        n = len(done.problems)
        print(f"{n} problem{'s' if n != 1 else ''} in the draft; nothing was written:")
        for p in done.problems:
            print(f"- {p}")
        print("\nnext: fix the draft and run 'benchcore draft' again")
        return 2
    print(f"wrote {len(done.written)} case{'s' if len(done.written) != 1 else ''} for {done.skill} "
          f"(not committed):")
    for (case, stop, samples), where in zip(done.cases, done.written):
        kind = "stop-or-flag" if stop else "task"
        first = case.prompt.strip().splitlines()[0] if case.prompt.strip() else ""
        print(f"  {where}/  [{kind}] {case.description}")
        print(f"    prompt: {first[:100]}{'...' if len(first) > 100 else ''}")
        print(f"    {len(case.hard_assertions)} hard assertion{'s' if len(case.hard_assertions) != 1 else ''}"
              f" (each passes {', '.join(s for s in samples if s.startswith('good'))} and fails a bad sample), "
              f"{len(case.soft_criteria)} soft criteri{'a' if len(case.soft_criteria) != 1 else 'on'}, "
              f"samples: {', '.join(samples) or 'none'}" if case.hard_assertions else
              f"    no hard assertions, {len(case.soft_criteria)} soft criteri"
              f"{'a' if len(case.soft_criteria) != 1 else 'on'}")
    print("review before you run anything:")
    for line in REVIEW:
        print(f"  - {line}")
    print(f"next: read the cases above, edit them as you see fit, then 'benchcore validate' and "
          f"'/benchmark-skill --pilot {done.skill}' (one trial per arm: do the outputs differ?)")
    return 0
