"""A trial given up because Claude Code refused its arms' tool calls says so, with the calls, in collect's output
and in the verdict, not "contaminated or skill not engaged" (issue 39, item 11)."""

from __future__ import annotations

import json

from standin.agent import Script
from test_e2e_benchmark import CASE1, bench, greet_files, next_script  # noqa: F401 - bench is a fixture


def test_a_trial_refused_every_round_is_given_up_and_blamed_on_the_refusals(bench):
    # Bug: with the user's permission mode refusing the arms' calls, every round was refused, the cells were given
    # up, and the verdict blamed "contaminated or skill not engaged".
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    refused = Script(files=greet_files(), refused={(CASE1, 2, "new")})
    bench.arms(next_script(out), refused)
    for _ in range(2):
        rc, out, _ = bench.run("collect", str(run_dir))
        assert "why: Claude Code refused" not in out  # not given up yet: re-run
        rc, out, _ = bench.run("collect", str(run_dir), "--rerun")
        bench.arms(next_script(out), refused)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "given up after 2 re-runs" in out
    [why] = [line for line in out.splitlines() if line.startswith("  why: ")]
    assert why.startswith("  why: Claude Code refused the arms' tool calls (new: Read ")
    assert why.endswith("your permission mode or settings stopped them, not the skill; allow those calls for the "
                        "arms (docs/permissions.md), then plan again")
    bench.judges(run_dir, Script())
    bench.run("collect", str(run_dir))
    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    reason = next(c for c in results["cases"] if c["id"] == CASE1)["efficacy"]["reason"]
    assert rc == 1 and "trial 2 invalid because Claude Code refused the arms' tool calls (new: Read " in reason
    assert "contaminated" not in reason and "allow those calls (docs/permissions.md)" in reason
