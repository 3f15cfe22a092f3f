"""What orchestration costs the agent: bytes it reads from benchcore and writes into tool calls.

The protocol in skills/benchmark-skill/SKILL.md, run on a 20-case three-arm
benchmark (300 arm cells, 200 judge packets, one split comparison escalated
to 10 more judges), with the stand-in agent playing the subagents. Counted:

- read: everything each benchcore command prints (stdout and stderr), plus
  the result each bound workflow script returns (its shape is fixed by
  workflow/bench-fanout.js: a count, never the answers);
- written: every tool input the protocol asks for: each Bash command line
  (through the skill's wrapper, with its absolute path) and each Workflow
  call's JSON input.

The README reports the figure this test prints; the target is under 16 KB.
"""

from __future__ import annotations

import json

from standin import repo as R
from standin.agent import Script, read_bound, run_script
from test_e2e_benchmark import Bench, next_script

CASES = [f"{n:02d}-case-{n}" for n in range(1, 21)]
PROMPT = ("Our team greets new contributors in GREETING.md. Write the greeting for a contributor named "
          "{name} who joined to work on the parser, in the house style, and save it as greeting.txt.")
TARGET = 16 * 1024


def test_orchestration_cost_of_a_20_case_three_arm_run(tmp_path, monkeypatch, capsys):
    b = Bench(tmp_path, monkeypatch)
    repo = b.repo
    R.init(repo, "main")
    R.skill(repo, "git/greet", "Greet the reader by name.")
    for cid in CASES:
        R.case(repo, "git/greet", cid, prompt=PROMPT.format(name=cid), fixture=False)
    R.commit_all(repo)
    R.skill(repo, "git/greet", "Greet the reader by name, warmly.")

    wrapper = f'"{R.SKILL_DIR}/scripts/benchcore"'
    written: list[int] = []
    read_extra: list[int] = []

    def bash(*argv: str):
        written.append(len(" ".join([wrapper, *argv]).encode()))
        if argv[0] == "plan":
            return b.plan(*argv[1:])
        return b.run(*argv)

    def workflow(script_path, script: Script) -> None:
        call = json.dumps({"scriptPath": str(script_path)})
        written.append(len(call.encode()))
        bound = read_bound(script_path)
        run_script(script_path, b.config, script, repo)
        n = len(bound["tasks"])
        read_extra.append(len(json.dumps({"launched": n, "finished": n})))

    files = {cid: {"greeting.txt": "Welcome!\n"} for cid in CASES}

    def verdict(case, trial, comp, rnd):
        if case == CASES[3] and comp == "regression" and rnd == 1:
            return ("WIN", "WIN", "LOSS", "LOSS", "TIE")[trial - 1]
        return "WIN" if comp == "efficacy" else "TIE"

    script = Script(files=files, verdict=verdict, tiny=True, layout="workflow")

    rc, out, err = bash("plan", "greet", "--seed", "20")
    assert rc == 0, err
    [run_dir] = b.runs()
    assert len(b.plan_json(run_dir)["cells"]) == 300
    workflow(next_script(out), script)
    rc, out, _ = bash("collect", str(run_dir))
    assert "300/300 cells collected" in out
    workflow(next_script(out), script)
    rc, out, _ = bash("collect", str(run_dir))
    assert "split, escalated" in out
    workflow(next_script(out), script)
    rc, out, _ = bash("collect", str(run_dir))
    assert rc == 0 and "210/210 packets judged" in out
    rc, out, _ = bash("render", str(run_dir))
    rc, out, _ = bash("clean", str(run_dir))
    assert rc == 0

    printed = sum(n for _, n in b.printed)
    total = printed + sum(read_extra) + sum(written)
    with capsys.disabled():
        print(f"\norchestration cost, 20 cases x 5 trials x 3 arms: {total} bytes "
              f"(benchcore printed {printed}, workflow results {sum(read_extra)}, tool inputs {sum(written)}; "
              f"{len(b.printed)} commands, {len(read_extra)} workflow calls)")
    assert total < TARGET
    # No command lists every cell or packet: name lists are capped, the rest is in files.
    for cmd, n in b.printed:
        assert n < 4 * 1024, cmd
