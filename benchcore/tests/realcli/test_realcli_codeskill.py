"""Issue 25 item 7 on the real Claude Code CLI: the fix-failing-test skill, whose arms run code, to a final verdict.

This repository's own ``skills/python/fix-failing-test`` and its three cases
(``Rig(layout="fix-failing-test")``, two arms: the skill is unchanged on
main) run headless with the guard's OS sandbox around every arm's Bash. Each
arm runs the package's tests (``python3 -m pytest -q``), fixes the bug (case
01 with the Edit tool, the others with ``sed -i``) and runs them again, all in
its world; a with-skill arm reads its copy's SKILL.md first and answers with
the case's committed good sample (cause, fix, proof), a baseline with a bare
"fixed". Judges decide from the outputs' content (the one that names the file
wins). Every trial must be valid, the hard assertions (the suite passes in the
world, the tests untouched, the file named) must hold for every new arm, and
the verdict must be final: efficacy passes.
"""

from __future__ import annotations

import importlib.util
import json
import time

import pytest

from brain import Scenario  # noqa: E402
from rig import REPO_ROOT, Rig, require_cli  # noqa: E402

require_cli()

if importlib.util.find_spec("benchcore.harness.confine.sandbox") is None:
    pytest.skip("needs the arms' OS sandbox (harness/confine/sandbox.py): without it the guard refuses python3 "
                "and sed for arms", allow_module_level=True)

TESTS = REPO_ROOT / "tests/python/fix-failing-test"
# case -> the fix an arm makes: ("Edit", file, old, new) or ("sed", file, sed script)
FIXES = {
    "01-partial-page": ("Edit", "paginate/pages.py", "    return total // size\n",
                        "    return (total + size - 1) // size\n"),
    "02-shared-tags": ("sed", "inventory/items.py",
                       "-e 's/tags=\\[\\]):/tags=None):/' -e 's/^    tags.append(label)$/    tags = [*(tags or []), label]/'"),
    "03-hours-as-minutes": ("sed", "timings/duration.py", "-e 's/\"h\": 60,/\"h\": 3600,/'"),
}


def steps(cid: str, world: str) -> list:
    case = cid.split("/")[0]
    fix = FIXES[case]
    test = f"cd {world} && python3 -m pytest -q -p no:cacheprovider"
    edit = (("Edit", {"file_path": f"{world}/{fix[1]}", "old_string": fix[2], "new_string": fix[3]})
            if fix[0] == "Edit" else f"cd {world} && sed -i {fix[2]} {fix[1]}")
    return [test, ("Read", {"file_path": f"{world}/{fix[1]}"}), edit, test]


def output(cid: str, world: str) -> str:
    case, _, arm = cid.split("/")
    if arm == "new":
        return (TESTS / case / "samples/good/output.md").read_text().strip()
    return "Fixed it; the tests pass now."


def names_the_file(a: str, b: str) -> str:
    ha, hb = ".py" in a, ".py" in b
    return "A" if ha and not hb else "B" if hb and not ha else "TIE"


def test_fix_failing_test_runs_code_in_every_arm_to_a_final_verdict_with_every_trial_valid(tmp_path):
    rig = Rig(tmp_path, edited=False, layout="fix-failing-test")
    scenario = Scenario(arm_steps=steps, output=output, style=False, prefer=names_the_file)
    started = time.monotonic()
    res = rig.run(scenario, "/benchmark-skill fix-failing-test")
    took = time.monotonic() - started
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-3000:]
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    assert plan["sandbox"], plan.get("sandbox")
    status = json.loads((run / "collect.json").read_text())
    assert status["invalid_trials"] == [] and status["invalid_answers"] == [] and status["given_up"] == [], status
    assert all(c["attempt"] == 1 for c in plan["cells"]), [c["id"] for c in plan["cells"] if c["attempt"] != 1]
    results = json.loads((rig.repo / "tests/.reports/fix-failing-test.results.json").read_text())
    assert results["verdicts"]["efficacy"]["status"] == "pass", results["verdicts"]
    assert [c["id"] for c in results["cases"]] == sorted(FIXES)
    for case in results["cases"]:
        assert case["efficacy"]["outcomes"] == ["WIN"] * 5 and not case["efficacy"]["gated"], case
    # Every new arm's world passed the hard assertions: its suite ran green, its tests as committed.
    for cell in (c for c in plan["cells"] if c["arm"] == "new"):
        case, trial, _ = cell["id"].split("/")
        checks = json.loads((run / "cases" / case / trial / "new" / "assertions.json").read_text())
        assert len(checks) == 3 and all(c["exit"] == 0 for c in checks), (cell["id"], checks)
    # Each arm ran pytest inside its sandbox: the suite failed before the fix and passed after it.
    for cell in plan["cells"]:
        case, trial, arm = cell["id"].split("/")
        text = (run / "cases" / case / trial / arm / "transcript.jsonl").read_text()
        assert " failed" in text and " passed" in text, cell["id"]
    print(f"fix-failing-test: {len(plan['cells'])} arm cells, {len(plan['packets'])} judge packets in {took:.0f} s")
