"""The estimate from history, and the budget rule the fan-outs apply (issue 13)."""

from __future__ import annotations

import shutil

import pytest

from benchcore import estimate as E
from benchcore import serde
from benchcore.harness.fanout import scripts as fanout
from benchcore.harness.runs.costs import ceiling, task_cost
from benchcore.harness.store.planfile import Cell
from benchcore.model import ArmUsage, AxisSummary, Budget, CellCost, HistoryEntry
from standin.agent import run_in_node
from standin.repo import SKILL_DIR

NODE = shutil.which("node")
AX = AxisSummary(net=0, passed=True, wins=0, ties=5, losses=0)


def usage(raw: int, usd=0.01, output=10) -> ArmUsage:
    return ArmUsage(input=raw - output, output=output, raw_tokens=raw, cost_equivalent_tokens=raw + 4 * output,
                    cost_usd=usd, models=("claude-sonnet-4-6",))


def entry(run: str, per_cell: dict, model=None) -> HistoryEntry:
    return HistoryEntry(run_id=run, at="2026-12-01T00:00:00Z", shape="two-arm", default_branch_commit=None,
                        efficacy=AX, model=model,
                        usage={k: E.summarize([usage(v)] * 10) for k, v in per_cell.items()})


def test_the_median_cell_takes_each_figure_s_median_and_dollars_only_when_all_are_known():
    cells = [usage(100), usage(300), usage(200, usd=None)]
    m = E.median_cell(cells)
    assert m.raw_tokens == 200 and m.cost_usd is None
    s = E.summarize(cells[:2])
    assert (s.cells, s.raw_tokens, s.cost_usd, s.median_cell.raw_tokens) == (2, 400, 0.02, 200)
    assert E.summarize([]) is None


def test_the_estimate_is_the_planned_cells_times_the_median_of_the_last_runs_median_cells():
    own = [entry(f"r{i}", {"new": 1000 + i, "baseline": 500, "judges": 50}) for i in range(7)]
    est = E.estimate("greet", own, {}, {"new": 10, "baseline": 10}, 10)
    # The newest 5 runs: 1002..1006, median 1004.
    assert est.arms["new"].per_cell.raw_tokens == 1004 and est.arms["new"].raw_tokens == 10040
    assert est.judges.raw_tokens == 500 and est.raw_tokens == 10040 + 5000 + 500
    assert est.basis == "this skill" and est.source == "greet's 5 earlier runs"
    assert est.cost_usd == pytest.approx(0.01 * 30)  # 10 + 10 cells and 10 packets at $0.01


def test_a_previous_arm_with_no_figure_of_its_own_takes_the_new_arm_s():
    own = [entry("r1", {"new": 1000, "baseline": 500, "judges": 50})]
    est = E.estimate("greet", own, {}, {"new": 5, "baseline": 5, "previous": 5}, 10)
    assert est.arms["previous"].per_cell.raw_tokens == 1000


def test_a_skill_with_no_runs_takes_the_median_of_the_other_skills_and_none_says_it_cannot():
    others = {"a": [entry("a1", {"new": 100, "baseline": 100, "judges": 10})],
              "b": [entry("b1", {"new": 300, "baseline": 100, "judges": 30})]}
    est = E.estimate("greet", [], others, {"new": 1, "baseline": 1}, 1)
    assert est.basis == "other skills" and est.arms["new"].per_cell.raw_tokens == 200
    assert "2 other skills (a, b)" in est.source
    none = E.estimate("greet", [], {}, {"new": 1}, 1)
    assert none.basis == "none" and none.raw_tokens is None and "cannot estimate" in none.source


def test_a_model_run_prefers_the_same_model_s_runs():
    own = [entry("r1", {"new": 100, "baseline": 100, "judges": 10}, model="m-small"),
           entry("r2", {"new": 900, "baseline": 900, "judges": 90}, model="m-large")]
    est = E.estimate("greet", own, {}, {"new": 1, "baseline": 1}, 1, model="m-small")
    assert est.arms["new"].per_cell.raw_tokens == 100 and "on m-small" in est.source


def test_history_lines_with_usage_round_trip_and_old_lines_still_load():
    e = entry("r1", {"new": 100, "judges": 10}, model="m")
    assert serde.load(HistoryEntry, serde.dump(e)) == e
    old = {"run_id": "x", "at": "t", "shape": "two-arm", "default_branch_commit": None,
           "efficacy": {"net": 0, "pass": True, "wins": 0, "ties": 5, "losses": 0}, "regression": None}
    assert serde.load(HistoryEntry, old).usage == {}
    assert serde.dump(serde.load(HistoryEntry, old)) == old  # no new keys on a line without them


def _tasks(n_groups: int, per_task: float, size: int = 2, pool: str = "greet") -> list[dict]:
    cell = CellCost(raw_tokens=per_task, cost_usd=per_task / 1000, output=per_task / 10)
    return [{"id": f"c/t{g}/{a}", "prompt": f"p {pool} {g} {a}", "cost": task_cost(pool, f"g{g}", cell)}
            for g in range(1, n_groups + 1) for a in range(size)]


def test_launches_stop_at_the_first_group_that_would_pass_the_ceiling():
    tasks = _tasks(5, 100)
    launched, state = fanout.launches(tasks, {"greet": ceiling(Budget(raw_tokens=650))})
    assert launched == [True] * 6 + [False] * 4  # 3 groups of 200 fit in 650, the 4th would pass it
    assert state["greet"]["stopped"] and state["greet"]["spent_raw"] == 600
    launched, _ = fanout.launches(tasks, {"greet": ceiling(Budget(usd=0.45))})
    assert launched == [True] * 4 + [False] * 6
    launched, _ = fanout.launches(tasks, {"greet": ceiling(Budget(raw_tokens=650), spent_raw=500)})
    assert launched == [False] * 10
    assert fanout.launches(tasks, None)[0] == [True] * 10


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("limit", [0, 199, 200, 650, 999, 5000])
def test_the_workflow_script_launches_exactly_what_benchcore_says_it_will(tmp_path, limit):
    tasks = _tasks(5, 100) + _tasks(2, 50, pool="other")
    ceilings = {"greet": ceiling(Budget(raw_tokens=limit)) if limit else ceiling(Budget(usd=0.3))}
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Arms", tasks, ceilings=ceilings)
    out = run_in_node(script)
    expected, _ = fanout.launches(tasks, ceilings)
    assert out["calls"] == [t["prompt"] for t, ok in zip(tasks, expected) if ok]
    assert out["result"]["launched"] == sum(expected)
    if not all(expected):
        assert out["result"]["stopped"] == "budget reached"
        assert out["result"]["not_launched"] == len(tasks) - sum(expected)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_workflow_script_stops_at_the_session_s_token_target(tmp_path):
    tasks = _tasks(3, 100)  # each group's estimated output: 2 x 10
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Arms", tasks)
    out = run_in_node(script, {"total": 1000, "spent": 990})
    assert out["calls"] == [] and out["result"]["stopped"] == "the session's token target was reached"
    out = run_in_node(script, {"total": None, "spent": 0})
    assert len(out["calls"]) == 6 and "stopped" not in out["result"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_arm_and_judge_models_reach_the_agent_call(tmp_path):
    cell = Cell(id="01-a/t1/new", case="01-a", trial=1, arm="new", world="/w", skill_dir=None, prompt="P",
                model="claude-haiku-4-5")
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Arms", fanout.arm_tasks([cell]))
    text = script.read_text()
    assert '"model": "claude-haiku-4-5"' in text and "opts.model = task.model" in text
