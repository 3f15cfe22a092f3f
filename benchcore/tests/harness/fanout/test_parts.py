"""A run too large for one conversation on the Agent-tool path: plan says so before launch, and in parts.

Without the Workflow tool every arm's and judge's launch and answer stay in
the orchestrating conversation. A 20-case three-arm run (300 arm cells, 200
judges) brings far more back than the share of a 200,000-token context that
benchcore allows, so ``plan`` says, before anything is launched, in how many
parts that path runs; each file of Agent calls that plan and collect write
holds one part (its launches within the budget) and is named as one,
``agent-tasks-part.jsonl`` (SKILL.md: one part per conversation, then the
user types /clear and the command again). A small run fits: no note, and
the file is the ordinary ``agent-tasks.jsonl``.
"""

from __future__ import annotations

import json

from benchcore.harness.fanout import parts
from standin import repo as R
from test_e2e_benchmark import Bench

PROMPT = ("Our team greets new contributors in GREETING.md. Write the greeting for a contributor named "
          "{name} who joined to work on the parser, in the house style, and save it as greeting.txt.")


def planned(tmp_path, monkeypatch, n_cases: int) -> tuple[Bench, str]:
    b = Bench(tmp_path, monkeypatch)
    R.init(b.repo, "main")
    R.skill(b.repo, "git/greet", "Greet the reader by name.")
    for n in range(1, n_cases + 1):
        R.case(b.repo, "git/greet", f"{n:02d}-case-{n}", prompt=PROMPT.format(name=n), fixture=False)
    R.commit_all(b.repo)
    R.skill(b.repo, "git/greet", "Greet the reader by name, warmly.")
    rc, out, err = b.plan("greet", "--seed", "20")
    assert rc == 0, err
    return b, out


def part_bytes(tasks_file) -> int:
    lines = tasks_file.read_text().splitlines()
    return sum(parts.launch_bytes(line, {}) for line in lines)


def test_a_20_case_three_arm_run_on_the_agent_path_runs_in_parts(tmp_path, monkeypatch):
    b, out = planned(tmp_path, monkeypatch, 20)
    [run] = b.runs()
    decision = json.loads((run / "workflows/agent-path.json").read_text())
    k = decision["parts"]
    assert k > 1 and decision["estimated_bytes"] > parts.BUDGET_BYTES
    note = next(line for line in out.splitlines() if "without Workflow" in line)
    assert f"without Workflow: {k} parts (~" in note, note
    tasks = run / "workflows/arms/agent-tasks-part.jsonl"
    assert not (run / "workflows/arms/agent-tasks.jsonl").exists()
    lines = tasks.read_text().splitlines()
    assert 0 < len(lines) < 300 and part_bytes(tasks) <= parts.BUDGET_BYTES
    # The next step names the part file (SKILL.md: one part per conversation, then /clear and the command).
    nxt = out.strip().splitlines()[-1]
    assert "(no Workflow tool: agent-tasks-part.jsonl beside it)" in nxt, nxt
    # collect, with nothing launched yet, writes the same part again: within the budget, the same advice.
    rc, out, err = b.run("collect", str(run))
    assert rc in (0, 1), err
    assert tasks.read_text().splitlines() == lines and "agent-tasks-part.jsonl" in out.strip().splitlines()[-1]


def test_a_small_run_fits_one_conversation(tmp_path, monkeypatch):
    b, out = planned(tmp_path, monkeypatch, 1)
    [run] = b.runs()
    assert json.loads((run / "workflows/agent-path.json").read_text())["parts"] == 1
    assert "without Workflow" not in out and "agent-tasks-part" not in out, out
    assert len((run / "workflows/arms/agent-tasks.jsonl").read_text().splitlines()) == 15
