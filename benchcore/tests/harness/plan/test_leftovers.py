"""What a closed session left is picked up: a rendered run whose background clean never ran has its temp worlds
removed by the next plan, said once (issue 39, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from test_e2e_benchmark import bench  # noqa: F401 - bench is a fixture
from test_e2e_cost_controls import full_run


def test_the_next_plan_removes_a_rendered_runs_worlds_that_clean_never_removed(bench):
    run_dir, _ = full_run(bench, "--seed", "1")  # rendered; the session closed before clean ran
    temp_root = Path(bench.plan_json(run_dir)["temp_root"])
    assert temp_root.is_dir()
    rc, out, err = bench.plan("greet", "--seed", "2")
    assert rc == 0, err
    run_id = run_dir.name
    [line] = [l for l in out.splitlines() if l.startswith("note: removed the temp worlds of run")]
    assert line.startswith(f"note: removed the temp worlds of run {run_id} (greet; rendered, but its clean never "
                           "ran, as when Claude Code is closed first): ")
    assert not temp_root.exists() and (run_dir / "plan.json").is_file()  # the run folder and the report stay
    assert (bench.repo / "tests/.reports/greet.html").is_file()
    rc, out, _ = bench.run("clean", "--json")
    assert rc == 0 and json.loads(out)["stale"] == []  # nothing left for clean
    rc, out, err = bench.plan("greet", "--seed", "3")
    assert rc == 0 and "removed the temp worlds" not in out  # said once
