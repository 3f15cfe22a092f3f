"""Issue 41 on the real Claude Code CLI, offline: cases worth running.

- ``/benchmark-skill --draft welcome`` for a skill with no tests: the session follows references/drafting.md,
  writes its draft, and ``benchcore draft`` writes cases that validate; nothing is committed.
- ``/benchmark-skill --pilot greet``: one trial per arm per case, judged blind, reported per case with the full
  run's cost; no verdict, no history.
- ``/benchmark-skill greet`` with a hard assertion every arm passes (the baseline too) and a case the judges
  always tie: the report names both, with the numbers.
"""

from __future__ import annotations

import json
import subprocess

from brain import Scenario  # noqa: E402
from places import TESTS  # noqa: E402
from rig import Rig, git, require_cli  # noqa: E402

require_cli()

C1, C2 = "01-hello-1", "02-hello-2"
WELCOME = "skills/text/welcome"


def final_text(res) -> str:
    return res.result.get("result", "")


def test_draft_writes_validated_cases_for_a_skill_with_no_tests(tmp_path):
    rig = Rig(tmp_path, edited=False)
    (rig.repo / WELCOME).mkdir(parents=True)
    (rig.repo / WELCOME / "SKILL.md").write_text(
        "---\nname: welcome\ndescription: Writes a short welcome note for a new colleague.\n---\n"
        "Write greeting.txt welcoming the colleague by name; ask who it is when nobody is named.\n")
    head = git(rig.repo, "rev-parse", "HEAD")
    draft = json.loads((TESTS / "fixtures" / "drafts" / "greet.json").read_text())
    seen = []
    res = rig.run(Scenario(draft=lambda skill, text: (seen.append((skill, text)), draft)[1]),
                  "/benchmark-skill --draft welcome")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    # The session read the skill before drafting (its SKILL.md came through Claude Code's Read).
    assert seen and seen[0][0] == "welcome" and "ask who it is when nobody is named" in seen[0][1]
    tests = rig.repo / "tests/text/welcome"
    assert sorted(p.name for p in tests.iterdir()) == ["01-welcome-note", "02-nobody-named"]
    assert (tests / "01-welcome-note/samples/good/world/greeting.txt").is_file()
    said = final_text(res)
    assert "wrote 2 cases for welcome (not committed):" in said and "review before you run anything:" in said
    # The cases validate (every predicate passes its good sample and fails a bad one), and nothing is committed.
    v = subprocess.run(["benchcore", "validate"], cwd=rig.repo, env=dict(rig.env), capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "welcome" in v.stdout and "2 cases" in v.stdout
    assert git(rig.repo, "rev-parse", "HEAD") == head
    assert "tests/text/welcome/" in git(rig.repo, "status", "--porcelain", "--untracked-files=all", "tests")


def test_a_pilot_reports_per_case_and_the_full_cost_without_a_verdict(tmp_path):
    rig = Rig(tmp_path, edited=True)
    # Case 1: the same answer with and without the skill, and the judge ties; case 2: the skill's answer wins.
    res = rig.run(Scenario(verdict=lambda pid: "TIE" if pid.startswith(C1) else "WIN"),
                  "/benchmark-skill --pilot greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    [run] = rig.runs()
    info = json.loads((run / "run.json").read_text())
    assert info["pilot"] is True and info["trials"] == 1
    plan = json.loads((run / "plan.json").read_text())
    assert len(plan["cells"]) == 2 * 3 and len(plan["packets"]) == 2 * 2
    pilot = json.loads((run / "pilot.json").read_text())
    by = {c["case"]: c for c in pilot["cases"]}
    assert [(c["comparison"], c["outputs_differ"], c["outcome"]) for c in by[C1]["comparisons"]] == \
        [("efficacy", True, "TIE"), ("regression", True, "TIE")]
    assert [c["outcome"] for c in by[C2]["comparisons"]] == ["WIN", "WIN"]
    assert by[C1]["worth_a_look"] and not by[C2]["worth_a_look"]
    cost = pilot["cost"]
    assert cost["cells"] == 6 and cost["judges"] == 4 and cost["full_raw_tokens"] == 5 * cost["raw_tokens"] > 0
    # The arms' tokens are the oracle's: the pilot's spend is what the server billed its arms and judges.
    raw = lambda u: (u["input_tokens"] + u["output_tokens"] + u["cache_creation_input_tokens"]
                     + u["cache_read_input_tokens"])
    billed = sum(raw(b.usage) for b in res.server.oracle.billed if "@" in b.who or b.who.startswith("judge:"))
    assert cost["raw_tokens"] == billed
    reports = rig.repo / "tests/.reports"
    assert not (reports / "greet.history.jsonl").exists() and not (reports / "greet.results.json").exists()


def test_a_run_names_an_assertion_the_baseline_passes_and_a_case_that_only_ties(tmp_path):
    rig = Rig(tmp_path, edited=False)  # two-arm: the baseline is what no signal is measured against
    # Every arm, the baseline too, writes greeting.txt: each case's predicate (test -s "$WORLD/greeting.txt")
    # cannot tell the skill from no skill. The judges tie every efficacy trial of case 1.
    res = rig.run(Scenario(verdict=lambda pid: "TIE" if pid.startswith(C1) else "WIN"), "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    [run] = rig.runs()
    for n in range(1, 6):
        base = json.loads((run / "cases" / C1 / f"t{n}" / "baseline" / "assertions.json").read_text())
        assert [r["exit"] for r in base] == [0]
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    ns = results["no_signal"]
    assert [(a["case"], a["index"], a["baseline_passed"], a["baseline_checked"]) for a in ns["assertions"]] == \
        [(C1, 1, 5, 5), (C2, 1, 5, 5)]
    [case] = ns["cases"]
    assert (case["case"], case["ties"], case["earlier_runs"]) == (C1, 5, 0)
    # Information only: the gate held for the skill's own output, and case 2 passes efficacy.
    assert [c["efficacy"]["gated"] for c in results["cases"]] == [False, False]
    assert results["cases"][1]["efficacy"]["pass"] is True
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert "passed for the baseline (no skill) in 5 of 5 trials" in page
    assert f"{C1}: efficacy was a tie in 5 of 5 trials of this run" in page
    index = (rig.repo / "tests/.reports/index.html").read_text()
    assert "no signal: 1 case, 2 assertions" in index
