"""Issue 27.5 on the real CLI: the arms' and the judges' fan-outs each launched twice from the user's session.

The orchestrator launches each bound Workflow script a second time once the first has ended (what a retyped
command or a double approval does): every cell then has two finished transcripts and every packet two judges,
all agents the session launched. Checked: no trial is invalid or re-run, the verdict is the one the judges'
answers imply (a single launch's), results.json and the report name every ignored duplicate, and their tokens
(what the server billed them) are in the report's cost section as a row of their own, apart from the arms and
the judges.
"""

from __future__ import annotations

import json

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402
from test_realcli import C1, C2, collect_outputs, only_run, verdicts  # noqa: E402

require_cli()

FIELDS = ("turns", "output", "cache_read")


def billed(res, who) -> dict:
    out = dict.fromkeys(FIELDS, 0)
    for b in res.server.oracle.billed:
        if who(b.who):
            out["turns"] += 1
            out["output"] += b.usage["output_tokens"]
            out["cache_read"] += b.usage["cache_read_input_tokens"]
    return out


def test_arms_and_judges_launched_twice_lose_no_trial_and_their_cost_is_shown(tmp_path):
    rig = Rig(tmp_path, edited=True)
    scenario = Scenario(verdict=verdicts({(C2, 5, "efficacy"): "TIE", (C2, 1, "regression"): "LOSS",
                                          **{(C1, t, "regression"): "TIE" for t in range(1, 6)}}),
                        launch_twice={"arms", "judges"})
    res = rig.run(scenario, "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    run = only_run(rig)
    calls = [u for e in res.events if e.get("type") == "assistant" for u in e["message"]["content"]
             if u.get("type") == "tool_use" and u.get("name") == "Workflow"]
    assert len(calls) == 4, calls  # arms twice, judges twice
    # No trial invalid, none re-run: the second launch's agents are the session's own, ignored.
    outs = collect_outputs(res)
    assert outs and not any("INVALID trial" in o for o in outs), outs
    plan = json.loads((run / "plan.json").read_text())
    assert all(c["attempt"] == 1 for c in plan["cells"])
    # The verdict the judges' answers imply, as a single launch gives it (test_realcli.py's run, less its
    # planted misbehaviour).
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["verdicts"]["efficacy"]["status"] == "pass" and results["verdicts"]["efficacy"]["net"] == 9
    assert results["verdicts"]["regression"]["status"] == "pass" and results["verdicts"]["regression"]["net"] == 3
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[C2]["efficacy"]["outcomes"] == ["WIN", "WIN", "WIN", "WIN", "TIE"]
    assert cases[C1]["regression"]["outcomes"] == ["TIE"] * 5
    # Every duplicate named: 30 cells and 20 packets, each in its trial's ignored.json.
    ignored = results["ignored"]
    assert len(ignored) == 50, ignored
    assert sum(": a second arm this session launched" in line for line in ignored) == 30
    assert sum(": a second judge this session launched" in line for line in ignored) == 20
    for case in (C1, C2):
        entries = json.loads((run / "cases" / case / "t1" / "ignored.json").read_text())
        assert sorted(e.get("cell") or e.get("packet") for e in entries) == sorted(
            [f"{case}/t1/{a}" for a in ("baseline", "new", "previous")] + [f"{case}/t1/efficacy", f"{case}/t1/regression"])
    # What they cost is what the server billed beyond the counted arms and judges, to the token.
    arms = billed(res, lambda who: "@" in who and not who.startswith("judge:"))
    judges = billed(res, lambda who: who.startswith("judge:"))
    counted = {k: sum(u[k] for u in results["arms"].values()) + results["judges"][k] for k in FIELDS}
    assert {k: results["ignored_usage"][k] for k in FIELDS} == {k: arms[k] + judges[k] - counted[k] for k in FIELDS}
    assert results["ignored_usage"]["turns"] > 0
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert '<th scope="row">ignored duplicates</th>' in page
    assert f"ignored by collect: {C1}/t1/new: a second arm this session launched" in page
