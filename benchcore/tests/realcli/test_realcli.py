"""End to end on the real Claude Code CLI (the version in realcli/CLI_VERSION), offline.

The CLI runs ``/benchmark-skill greet`` headless in a throwaway HOME and
repository, against the scripted model of ``realcli/`` (a local Messages API
server): the orchestrator follows SKILL.md and the ``next:`` lines, arms do
the task in their worlds, judges answer. What is checked is what a user
meets: the verdicts in results.json, which trials were re-run and why, each
arm's tokens against what the server billed, the run's dollars against
Claude Code's own ``total_cost_usd``, and the tools each arm was offered.

Skipped when the CLI is not installed (``realcli/install-cli.sh`` installs
it); CI sets ``BENCH_REQUIRE_REALCLI=1``, which turns that skip into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest


from brain import Scenario  # noqa: E402
from measure import oracle_per_arm, orchestration_bytes  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

C1, C2 = "01-hello-1", "02-hello-2"
ARM_FIELDS = ("turns", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read")


def verdicts(table: dict) -> callable:
    """packet id -> the new arm's outcome, from {(case, trial, comparison): outcome}, default WIN."""
    return lambda pid: table.get(tuple(pid.split("#")[0].rsplit("/", 2)[i] if i != 1 else int(pid.split("#")[0].rsplit("/", 2)[1][1:]) for i in range(3)), "WIN")


def only_run(rig: Rig) -> Path:
    runs = rig.runs()
    assert len(runs) == 1, runs
    return runs[0]


def collect_outputs(res) -> list[str]:
    """Every benchcore collect output the orchestrator read, in order."""
    outs = []
    for e in res.events:
        if e.get("type") != "user":
            continue
        for b in e["message"]["content"] if isinstance(e["message"]["content"], list) else []:
            if b.get("type") == "tool_result":
                text = b["content"] if isinstance(b["content"], str) else "".join(x.get("text", "") for x in b["content"])
                if "cells collected" in text:
                    outs.append(text)
    return outs


def session_transcripts(rig: Rig, session: str) -> list[Path]:
    projects = rig.home / ".claude" / "projects"
    main = list(projects.glob(f"*/{session}.jsonl"))
    subs = sorted(projects.glob(f"*/{session}/subagents/**/agent-*.jsonl"))
    return main + subs


def benchcore_usage(rig: Rig, files: list[Path]) -> dict:
    out = subprocess.run([sys.executable, "-m", "benchcore", "usage", "--json", *map(str, files)],
                         capture_output=True, text=True, env=dict(os.environ, **{"HOME": str(rig.home)}))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["total"]


def check_tokens(rig: Rig, res, run: Path) -> None:
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    plan = json.loads((run / "plan.json").read_text())
    oracle = oracle_per_arm(res.server.oracle.billed, plan)
    for arm, figures in oracle.items():
        assert {k: results["arms"][arm][k] for k in ARM_FIELDS} == figures, arm


def check_dollars(rig: Rig, res) -> None:
    # Claude Code's own bill for the session (main thread and every subagent) equals benchcore's sum over
    # the session's transcripts at the catalog's prices.
    total = benchcore_usage(rig, session_transcripts(rig, res.result["session_id"]))
    assert total["cost_usd"] == pytest.approx(res.result["total_cost_usd"], abs=5e-7)


def check_offered_tools(res) -> None:
    billed = res.server.oracle.billed
    base = [b for b in billed if "/baseline@" in b.who]
    assert base and all("Skill" not in b.tools_offered for b in base)
    judges = [b for b in billed if b.who.startswith("judge:")]
    # The tool-less bench-judge: no tools at all, or only the schema's StructuredOutput in a workflow.
    assert judges and all(b.tools_offered in ([], ["StructuredOutput"]) for b in judges)


def test_workflow_path_three_arm_run_reaches_the_verdict_the_judges_imply(tmp_path):
    rig = Rig(tmp_path, edited=True)
    # A baseline's grep of "." would show it the skill from the repository: in the OS sandbox (issue 25) the
    # command runs in the baseline's own world with no repository mounted, so it finds the world's README and
    # nothing of the skill, and that trial stands (before the sandbox the guard refused the grep and the trial
    # was invalid). A Skill call the bench-arm type is not offered fails and loads nothing, so that trial stands.
    planted = {(C1, 4): "never read its skill copy"}
    scenario = Scenario(
        verdict=verdicts({(C2, 5, "efficacy"): "TIE", (C2, 1, "regression"): "LOSS",
                          **{(C1, t, "regression"): "TIE" for t in range(1, 6)}}),
        baseline_reads_skill={f"{C1}/t2/baseline"}, baseline_calls_skill={f"{C2}/t3/baseline"},
        arm_ignores_copy={f"{C1}/t4/new"})
    res = rig.run(scenario, "/benchmark-skill greet", log_requests=str(tmp_path / "requests.jsonl"))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    run = only_run(rig)
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["shape"] == "three-arm"
    assert results["verdicts"]["efficacy"]["status"] == "pass" and results["verdicts"]["efficacy"]["net"] == 9
    assert results["verdicts"]["regression"]["status"] == "pass" and results["verdicts"]["regression"]["net"] == 3
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[C2]["efficacy"]["outcomes"] == ["WIN", "WIN", "WIN", "WIN", "TIE"]
    assert cases[C2]["regression"]["outcomes"] == ["LOSS", "WIN", "WIN", "WIN", "WIN"]
    assert cases[C1]["regression"]["outcomes"] == ["TIE"] * 5
    # Exactly the planted trials were invalid, each for its planted reason, and re-run once.
    first = collect_outputs(res)[0]
    invalid = [line for line in first.splitlines() if "INVALID trial" in line]
    assert len(invalid) == len(planted), first
    for (case, trial), reason in planted.items():
        assert any(f"{case}/t{trial}" in line and reason in line for line in invalid), (case, trial, first)
    assert not any(f"{C2}/t3" in line for line in invalid), first
    plan = json.loads((run / "plan.json").read_text())
    rerun = {(c["case"], c["trial"]) for c in plan["cells"] if c["attempt"] > 1}
    assert rerun == set(planted)
    [grep] = [b for r in map(json.loads, (run / "cases" / C1 / "t2" / "baseline" / "transcript.jsonl").read_text()
                             .splitlines()) if r.get("type") == "user" and isinstance(r["message"]["content"], list)
              for b in r["message"]["content"] if b.get("type") == "tool_result" and "reader" in str(b["content"])]
    assert not grep.get("is_error") and str(grep["content"]).startswith("./README.md:1:Project 1:"), grep
    assert "SKILL.md" not in str(grep["content"]) and "house style" not in str(grep["content"]), grep
    # The verdict is told in the message that starts clean; the last one only says the benchmark finished.
    said = "\n".join(b["text"] for e in res.events if e.get("type") == "assistant"
                     for b in e["message"]["content"] if isinstance(b, dict) and b.get("type") == "text")
    assert "Benchmark finished" in res.result["result"] and "efficacy:   pass  net +9" in said
    check_tokens(rig, res, run)
    check_dollars(rig, res)
    check_offered_tools(res)
    info = json.loads((run / "run.json").read_text())
    assert info["agent_types"] == {"baseline": ["bench-arm"], "new": ["bench-arm"], "previous": ["bench-arm"]}
    page = (rig.repo / "tests/.reports/greet.html").read_text()
    assert "bench-arm" in page
    # The worlds are gone, the reports stay.
    assert not any(Path(c["world"]).exists() for c in plan["cells"])
    assert (rig.repo / "tests/.reports/greet.html").is_file()
    cost = orchestration_bytes(tmp_path / "requests.jsonl")
    print(f"orchestration (2 cases, three-arm, Workflow path): {cost}")


def test_agent_tool_path_two_arm_run(tmp_path):
    rig = Rig(tmp_path, edited=False)
    scenario = Scenario(use_workflow=False, arm_ignores_copy={f"{C2}/t1/new"},
                        verdict=verdicts({(C1, 1, "efficacy"): "LOSS", (C1, 2, "efficacy"): "LOSS"}))
    res = rig.run(scenario, "/benchmark-skill greet", extra_args=("--disallowedTools", "Workflow"),
                  log_requests=str(tmp_path / "requests.jsonl"))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    run = only_run(rig)
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["shape"] == "two-arm" and results["verdicts"]["regression"]["status"] == "n/a"
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[C1]["efficacy"]["outcomes"] == ["LOSS", "LOSS", "WIN", "WIN", "WIN"]
    assert results["verdicts"]["efficacy"]["status"] == "fail" and results["verdicts"]["efficacy"]["net"] == 6
    first = collect_outputs(res)[0]
    assert [line for line in first.splitlines() if "INVALID trial" in line][0].count(f"{C2}/t1") == 1
    plan = json.loads((run / "plan.json").read_text())
    assert {(c["case"], c["trial"]) for c in plan["cells"] if c["attempt"] > 1} == {(C2, 1)}
    check_tokens(rig, res, run)
    check_dollars(rig, res)
    check_offered_tools(res)
    info = json.loads((run / "run.json").read_text())
    assert info["agent_types"] == {"baseline": ["bench-arm"], "new": ["bench-arm"]}
    # No Workflow call: every cell and judge went through the Agent tool.
    assert not any(b.get("name") == "Workflow" for e in res.events if e.get("type") == "assistant"
                   for b in e["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
    cost = orchestration_bytes(tmp_path / "requests.jsonl")
    print(f"orchestration (2 cases, two-arm, Agent-tool path): {cost}")


def test_a_verdict_forged_by_an_arms_helper_subagent_is_not_counted(tmp_path):
    # (No "judge" in this name: the scripted orchestrator reads "judge" in a next: line, which holds tmp_path.)
    # Issue 11: an arm launched a helper whose whole prompt was its packet's "Packet id:" line, and the
    # helper's JSON was taken as that packet's judge. On the real CLI (Agent-tool path, arms of the default type,
    # which has the Agent tool: the sealed bench-arm has none, so it is not installed here): the helper is
    # ignored, the planned judges decide.
    rig = Rig(tmp_path, edited=False)
    # (--default-agent-type: plan stops when the benchmark's agent types are not installed, issue 26.3.)
    (rig.repo / ".claude/agents/bench-arm.md").unlink()
    forgers = {f"{C1}/t1/new", f"{C1}/t2/new"}
    scenario = Scenario(use_workflow=False, arm_forges=forgers,
                        verdict=verdicts({(C1, 1, "efficacy"): "LOSS", (C1, 2, "efficacy"): "LOSS"}))
    res = rig.run(scenario, "/benchmark-skill --default-agent-type greet", extra_args=("--disallowedTools", "Workflow"),
                  log_requests=str(tmp_path / "requests.jsonl"))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    run = only_run(rig)
    outs = "\n".join(collect_outputs(res))
    # The benchmark's guard refuses the arm's Agent call before any helper exists (an arm works alone): the
    # attempt makes the trial invalid and it is re-run; collect's own check of helpers (test_harden*) stays
    # for a run without the guard (plan --keep-settings).
    for n in (1, 2):
        assert (f"INVALID trial {C1}/t{n} (re-run, not scored): new: the benchmark's guard refused (deny) its "
                "Agent Packet id:") in outs, outs
    assert not list((run / "cases" / C1 / "t1" / "new" / "subagents").glob("agent-*.jsonl"))
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[C1]["efficacy"]["outcomes"] == ["LOSS", "LOSS", "WIN", "WIN", "WIN"]
    assert results["verdicts"]["efficacy"]["status"] == "fail"


def test_a_refused_read_of_the_skill_copy_is_no_engagement_and_is_named(tmp_path):
    # Issue 9: with a permission the arms lack, every with-skill arm's Read of its copy was refused, yet the
    # audit took the Read from its input and the run rendered a verdict. Here a deny rule refuses it.
    rig = Rig(tmp_path, edited=False)
    deny = f"Read(/{tmp_path}/tmp/benchcore-{os.getuid()}/*/skills/**)"
    res = rig.run(Scenario(use_workflow=False), "/benchmark-skill greet",
                  extra_args=("--disallowedTools", "Workflow", deny))
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    first = collect_outputs(res)[0]
    invalid = [line for line in first.splitlines() if "INVALID trial" in line]
    assert len(invalid) == 8 and all("new: Claude Code refused its tool call Read" in line for line in invalid), first
    run = only_run(rig)
    audit = json.loads((run / "cases" / C1 / "t1" / ".invalid-1" / "audit.json").read_text())
    problems = " ".join(p["problem"] for p in audit["problems"])
    assert "denied by your permission settings" in problems and "never read its skill copy's SKILL.md" in problems
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is True and all(c["efficacy"]["outcomes"] == [None] * 5 for c in results["cases"])
    assert "Claude Code refused its tool call Read" in (rig.repo / "tests/.reports/greet.html").read_text()


def test_without_the_tool_less_judge_type_a_judge_that_reads_the_run_folder_is_re_asked(tmp_path):
    # Issue 8: judges blind by construction. Installed, bench-judge offers a judge no tool at all (checked in the
    # path tests). Without it, judges run as the default type and can open plan.json, which holds the blind
    # order; collect must not count such an answer but ask a fresh judge, and say why.
    rig = Rig(tmp_path, edited=False)
    (rig.repo / ".claude/agents/bench-judge.md").unlink()
    # plan stops without a benchmark agent type (issue 26.3) unless told to run the default type anyway
    planted = f"{C1}/t1/efficacy"
    res = rig.run(Scenario(judge_reads_run={planted}), "/benchmark-skill --default-agent-type greet",
                  log_requests=str(tmp_path / "requests.jsonl"))
    assert res.code == 0 and "Benchmark finished" in res.result.get("result", ""), res.stderr[-2000:]
    judges = [b for b in res.server.oracle.billed if b.who == f"judge:{planted}"]
    assert judges and "Read" in judges[0].tools_offered  # the default type has tools: the plant could happen
    outs = "\n".join(collect_outputs(res))
    assert f"{planted}" in outs and "the judge used the tool Read" in outs, outs
    run = only_run(rig)
    eff = json.loads((run / "cases" / C1 / "t1" / "efficacy.json").read_text())
    assert len(eff["judgments"]) == 1  # the re-asked judge's answer, not the one that read plan.json
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["verdicts"]["efficacy"]["status"] == "pass"
    assert {c["id"]: c for c in results["cases"]}[C1]["efficacy"]["outcomes"] == ["WIN"] * 5


def test_a_20_case_three_arm_workflow_run_costs_the_orchestrator_under_16_kb(tmp_path):
    # Issue 8: everything the orchestrating session carries (SKILL.md's body, the tool inputs it writes, the
    # tool results and task notifications it reads) for 300 arm cells and 200 judges, on the real CLI.
    # Every path the orchestrator reads or writes (the skill's wrapper, run folders, scripts, Claude Code's task
    # files) is absolute and repeated many times, so the repository's path length counts: pytest's tmp_path
    # (about 60 characters) adds about 2 KB. The run is made in a folder of a typical length instead
    # (/tmp/rig-XXXXXXXX, 16 characters; a user's is e.g. /home/alice/src/skills).
    short = Path(tempfile.mkdtemp(prefix="rig-", dir="/tmp"))
    try:
        rig = Rig(short, edited=True, cases=20)
        res = rig.run(Scenario(), "/benchmark-skill greet", log_requests=str(tmp_path / "requests.jsonl"),
                      timeout=1500)
        results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    finally:
        shutil.rmtree(short, ignore_errors=True)
    assert res.code == 0 and "Benchmark finished" in res.result.get("result", ""), res.stderr[-2000:]
    assert results["incomplete"] is False and results["verdicts"]["efficacy"]["net"] == 100
    cost = orchestration_bytes(tmp_path / "requests.jsonl")
    print(f"\norchestration (20 cases, three-arm, Workflow path): {cost}")
    assert cost["total"] < 16_000, cost
