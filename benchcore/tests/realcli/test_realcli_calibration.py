"""Issue 28 on the real Claude Code CLI, offline: ``/benchmark-skill --calibrate greet`` runs the ordinary protocol
with two new-skill arms and stores the judges' noise floor; ``confirm_judgments: true`` sends every decisive
judgment back, swapped, to a fresh judge, and a flip is a tie."""

from __future__ import annotations

import json

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

C1, C2 = "01-hello-1", "02-hello-2"


def test_calibrate_runs_two_new_skill_arms_and_stores_the_floor(tmp_path):
    rig = Rig(tmp_path, edited=True)
    # Equal pairs: the judge names the new arm on trials 1 and 2 of each case, the twin on trial 3, ties else.
    table = {1: "WIN", 2: "WIN", 3: "LOSS"}
    scenario = Scenario(verdict=lambda pid: table.get(int(pid.split("#")[0].split("/")[1][1:]), "TIE"))
    res = rig.run(scenario, "/benchmark-skill --calibrate greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    [run] = rig.runs()
    info = json.loads((run / "run.json").read_text())
    assert info["shape"] == "calibration" and info["arms"] == ["new", "twin"]
    cal = json.loads((rig.repo / "tests/.reports/greet.calibration.json").read_text())["calibrations"][0]
    assert cal["pooled"]["judgments"] == 10 and cal["pooled"]["decisive"] == 6
    assert [(c["case"], c["decisive"]) for c in cal["cases"]] == [(C1, 3), (C2, 3)]
    plan = json.loads((run / "plan.json").read_text())
    assert {c["arm"] for c in plan["cells"]} == {"new", "twin"}
    assert len({c["world"] for c in plan["cells"]}) == 20  # a fresh world per cell
    # Both arms really read their own copy of the skill (each was audited as engaged, none re-run).
    assert all(c["attempt"] == 1 for c in plan["cells"])
    assert not (rig.repo / "tests/.reports/greet.history.jsonl").exists()


def test_confirmed_judging_sends_decisive_judgments_back_swapped(tmp_path):
    rig = Rig(tmp_path, edited=True)
    yaml = next(rig.repo.glob("tests/**/greet/01-hello-1")).parent / "benchmark.yaml"
    yaml.write_text("confirm_judgments: true\n")

    def verdict(pid):
        # Efficacy: the new arm wins both readings. Regression: the first reading names the new arm, the
        # swapped second reading the previous version: every regression trial flips to a tie.
        if "/regression" in pid and pid.endswith("c"):
            return "LOSS"
        return "WIN"

    res = rig.run(Scenario(verdict=verdict), "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    for c in results["cases"]:
        assert c["efficacy"]["outcomes"] == ["WIN"] * 5
        assert c["regression"]["outcomes"] == ["TIE"] * 5
    assert results["noise"]["confirmed"] is True
    assert results["noise"]["confirmations"] == 20 and results["noise"]["flipped"] == 10
    [run] = rig.runs()
    judges = [b for b in res.server.oracle.billed if b.who.startswith("judge:")]
    assert len({b.who for b in judges if b.who.endswith("#c")}) == 20  # a fresh judge per second reading


def test_a_confirmed_calibration_runs_its_confirmations_on_the_real_cli(tmp_path):
    # Issue 38: with confirm_judgments on, the calibration asks every decisive judgment again, swapped, like a
    # run does, so the floor is measured after confirmation. This judge prefers the same output both ways round
    # (a consistent preference between equal outputs): no confirmation flips, and the stored floor says so.
    rig = Rig(tmp_path, edited=True)
    yaml = next(rig.repo.glob("tests/**/greet/01-hello-1")).parent / "benchmark.yaml"
    yaml.write_text("confirm_judgments: true\n")
    table = {1: "WIN", 2: "WIN", 3: "LOSS"}
    scenario = Scenario(verdict=lambda pid: table.get(int(pid.split("#")[0].split("/")[1][1:]), "TIE"))
    res = rig.run(scenario, "/benchmark-skill --calibrate greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    [run] = rig.runs()
    assert json.loads((run / "run.json").read_text())["confirm_judgments"] is True
    [cal] = json.loads((rig.repo / "tests/.reports/greet.calibration.json").read_text())["calibrations"]
    assert cal["confirmed"] is True and cal["judged"] == cal["trials"] == 10 and cal["partial"] is False
    assert cal["pooled"]["decisive"] == 6 and cal["pooled"]["confirmations"] == 6 and cal["pooled"]["flipped"] == 0
    judges = [b for b in res.server.oracle.billed if b.who.startswith("judge:")]
    assert len({b.who for b in judges if b.who.endswith("#c")}) == 6  # a fresh judge per second reading
