"""Issue 13 on the real Claude Code CLI (the version in realcli/CLI_VERSION), offline: the estimate of a second
run against what it really used, a budget that stops the launches, the judges' model and two arm models.

The rig (realcli/) runs ``claude -p "/benchmark-skill greet"`` against the scripted model; the server bills
every response with a known usage and logs the model each request asked for. Skipped when the CLI is not
installed; ``BENCH_REQUIRE_REALCLI=1`` turns the skip into a failure.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest


from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

YAML = "tests/text/greet/benchmark.yaml"


def bench(rig: Rig, scenario: Scenario | None = None, **kw):
    res = rig.run(scenario or Scenario(), "/benchmark-skill greet", **kw)
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    return res


def results(rig: Rig, name: str = "greet") -> dict:
    return json.loads((rig.repo / f"tests/.reports/{name}.results.json").read_text())


def used(r: dict) -> int:
    """Raw tokens the run really used: every arm and the judges, from their transcripts."""
    return sum(a["raw_tokens"] for a in r["arms"].values()) + r["judges"]["raw_tokens"]


def plan_output(res) -> str:
    for e in res.events:
        content = e.get("message", {}).get("content") if e.get("type") == "user" else None
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_result":
                text = b["content"] if isinstance(b["content"], str) else "".join(x.get("text", "") for x in b["content"])
                # plan's total line ("N arm cells and ...") is always there; the per-run "  estimate:" line
                # only when it says more than the total (an estimate from earlier runs).
                if " arm cells and " in text and "next: " in text:
                    return text
    raise AssertionError("no plan output in the session")


def test_the_estimate_of_a_second_unchanged_run_is_within_10_percent_of_what_it_used(tmp_path):
    rig = Rig(tmp_path, edited=True)
    first = bench(rig)
    assert "(a rough first-run prior per cell (docs/cost.md), on " in plan_output(first)  # the one rough total
    second = bench(rig)
    out = plan_output(second)
    assert "(from greet's 1 earlier run)" in out
    r = results(rig)
    est = r["estimate"]
    error = (used(r) - est["raw_tokens"]) / est["raw_tokens"]
    print(f"real CLI: second run estimated {est['raw_tokens']:,.0f} raw tokens, used {used(r):,} ({error:+.2%})")
    assert abs(error) <= 0.10
    # The server billed what the transcripts say: the judges' row is theirs.
    billed_judges = sum(sum(v for k, v in b.usage.items() if k.endswith("_tokens")) for b in second.server.oracle.billed
                        if b.who.startswith("judge:"))
    assert r["judges"]["raw_tokens"] == billed_judges
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert "Estimate against actual" in page


def test_a_ceiling_stops_the_launches_where_it_should_and_the_report_says_so(tmp_path):
    rig = Rig(tmp_path, edited=True)
    bench(rig)
    line = json.loads((rig.repo / "tests/.reports/greet.history.jsonl").read_text().splitlines()[-1])
    per_trial = sum(line["usage"][a]["median_cell"]["raw_tokens"] for a in ("new", "baseline", "previous"))
    ceiling = int(per_trial * 3.5)  # three whole trials of arm cells fit, the fourth would pass it
    (rig.repo / YAML).write_text(f"budget_tokens: {ceiling}\n")
    before = set(rig.runs())
    res = bench(rig)
    assert f"budget: ceiling {ceiling:,} raw tokens ({YAML}) reached: 7 of 10 trials (21 cells) will not be launched" \
        in plan_output(res)
    [run] = sorted(set(rig.runs()) - before)
    plan = json.loads((run / "plan.json").read_text())
    launched = [c["id"] for c in plan["cells"] if not c.get("skip")]
    assert launched == [f"01-hello-1/t{n}/{a}" for n in (1, 2, 3) for a in ("new", "baseline", "previous")]
    # The workflow script, run by Claude Code, launched exactly those cells and no other.
    arms_billed = {b.who.split("@", 1)[0] for b in res.server.oracle.billed if "@" in b.who}
    assert arms_billed == set(launched)
    info = json.loads((run / "run.json").read_text())
    assert info["not_run"]["02-hello-2/t1"] == "budget reached"
    r = results(rig)
    assert r["incomplete"] is True and r["not_run"] == info["not_run"]
    c2 = {c["id"]: c for c in r["cases"]}["02-hello-2"]
    assert c2["efficacy"]["outcomes"] == [None] * 5 and "not run: budget reached" in c2["efficacy"]["reason"]
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert f"Budget: a ceiling of {ceiling:,} raw tokens" in page and "never launched (budget reached)" in page
    spent = sum(sum(v for k, v in b.usage.items() if k.endswith("_tokens")) for b in res.server.oracle.billed
                if b.who != "orchestrator" and b.who != "aux")
    print(f"real CLI: ceiling {ceiling:,} raw tokens; subagents billed {spent:,}; "
          f"{len(launched)} of {len(plan['cells'])} arm cells launched; not run: {len(info['not_run'])}")


@pytest.mark.parametrize("workflow", [True, False], ids=["workflow", "agent-tool"])
def test_the_judge_model_and_two_arm_models_show_in_the_transcripts_and_the_report(tmp_path, workflow):
    rig = Rig(tmp_path, edited=True)
    (rig.repo / YAML).write_text("models: [claude-haiku-4-5, claude-sonnet-4-6]\njudge_model: claude-opus-4-6\n")
    extra = () if workflow else ("--disallowedTools", "Workflow")
    res = bench(rig, Scenario(use_workflow=workflow), extra_args=extra)
    # What each subagent asked the API for: the arms their run's model, every judge the judge model.
    runs = {json.loads((r / "run.json").read_text())["model"]: r for r in rig.runs()}
    assert "Benchmark finished" in res.result["result"], res.result["result"][-3000:]
    assert set(runs) == {"claude-haiku-4-5", "claude-sonnet-4-6"}
    worlds = {c["world"]: model for model, r in runs.items() for c in json.loads((r / "plan.json").read_text())["cells"]}
    # The Workflow's agent() takes the full id; the Agent tool only an alias (sonnet, opus, haiku, fable), so there
    # the family is asked for and Claude Code picks its version (measured: haiku -> claude-haiku-5-5).
    asked = (lambda want, got: got == want) if workflow else (lambda want, got: want.split("-")[1] in got)
    ran: dict[str, set] = {}
    for b in res.server.oracle.billed:
        if "@" in b.who:
            model = worlds[b.who.split("@", 1)[1]]
            assert asked(model, b.model), (b.who, b.model)
            ran.setdefault(model, set()).add(b.model)
        elif b.who.startswith("judge:"):
            assert asked("claude-opus-4-6", b.model), (b.who, b.model)
            ran.setdefault("judges", set()).add(b.model)
    for model in runs:
        r = results(rig, f"greet@{model}")
        # What the report shows is what the transcripts say each really ran on.
        assert {m for a in r["arms"].values() for m in a["models"]} == ran[model]
        assert set(r["judges"]["models"]) == ran["judges"] and r["judge_model"] == "claude-opus-4-6"
        eff = json.loads((runs[model] / "cases/01-hello-1/t1/efficacy.json").read_text())
        assert eff["judgments"][0]["model"] in ran["judges"]
    print(f"real CLI ({'workflow' if workflow else 'Agent tool'}): arms and judges ran on {sorted(map(sorted, ran.values()))}")
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert re.findall(r'<h2 class="model-title">Arms on ([^<]+)</h2>', page) == ["claude-haiku-4-5", "claude-sonnet-4-6"]
    assert page.count(f"asked for claude-opus-4-6; ran on {', '.join(sorted(ran['judges']))}") == 2
    index = (rig.repo / "tests/.reports/index.html").read_text()
    assert "greet on claude-haiku-4-5" in index and "greet on claude-sonnet-4-6" in index
