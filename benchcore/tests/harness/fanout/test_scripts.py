"""The bound workflow script launches exactly the planned tasks (run in Node with stand-in globals)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchcore.errors import BenchError
from benchcore.harness.fanout import scripts as fanout
from benchcore.harness.store.planfile import Cell, Packet
from benchcore.harness.fanout.prompts import Templates
from standin.repo import SKILL_DIR

NODE = shutil.which("node")
HARNESS = r"""
// The Workflow sandbox: no clock, no randomness (they throw), no require/process/import.
const RealDate = Date;
globalThis.Date = function (...a) { if (!a.length) throw new Error('new Date() in a workflow'); return new RealDate(...a); };
Date.now = () => { throw new Error('Date.now() in a workflow'); };
Math.random = () => { throw new Error('Math.random() in a workflow'); };
const calls = [];
const agent = async (prompt, opts) => { calls.push({prompt, opts}); return opts.label.endsWith('/t2/new') ? null : 'ok'; };
const parallel = async (thunks) => Promise.all(thunks.map((t) => t().catch(() => null)));
const phase = () => {};
const log = () => {};
const args = ARGS;
const run = async () => { BODY };
run().then((result) => console.log(JSON.stringify({calls, result})));
"""


def run_in_node(script: Path, args=None) -> dict:
    body = script.read_text().replace("export const meta", "const meta")
    program = HARNESS.replace("ARGS", json.dumps(args)).replace("BODY", body)
    proc = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def cells():
    return [Cell(id=f"01-a/t{n}/{arm}", case="01-a", trial=n, arm=arm, world=f"/w/{n}{arm}", skill_dir=None,
                 prompt=f"Prompt with `backticks`, ${{braces}}, \u2028 and 'quotes' {n}{arm}\n",
                 agent_type="bench-baseline" if arm == "baseline" else None)
            for n in (1, 2) for arm in ("new", "baseline")]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_bound_arms_script_launches_each_cell_with_its_exact_prompt(tmp_path):
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Arms", fanout.arm_tasks(cells()))
    out = run_in_node(script)
    assert [c["prompt"] for c in out["calls"]] == [c.prompt for c in cells()]
    assert [c["opts"].get("agentType") for c in out["calls"]] == [None, "bench-baseline", None, "bench-baseline"]
    assert all("schema" not in c["opts"] for c in out["calls"])
    assert out["result"] == {"launched": 4, "finished": 3, "failed": ["01-a/t2/new"]}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_judges_script_answers_through_the_schema(tmp_path):
    schema = Templates(SKILL_DIR).answer_schema
    (tmp_path / "p.md").write_text("# Judge packet R:01-a/t1/efficacy\n\nOutput A ...\n")
    inline = Templates(SKILL_DIR).judge_prompt_inline((tmp_path / "p.md").read_text(), "R:01-a/t1/efficacy")
    packets = [Packet(id="01-a/t1/efficacy", case="01-a", trial=1, comparison="efficacy", path=str(tmp_path / "p.md"),
                      prompt=inline, ref="R:01-a/t1/efficacy", agent_type="bench-judge")]
    tasks = fanout.judge_tasks(packets)
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Judges", tasks, schema)
    out = run_in_node(script)
    [call] = out["calls"]
    # The workflow judge gets the packet itself (it opens no file); the marker line comes first.
    assert call["prompt"].startswith("You are a blind judge.")
    assert "Packet id: R:01-a/t1/efficacy\n\n# Judge packet R:01-a/t1/efficacy\n\nOutput A ...\n" in call["prompt"]
    assert call["opts"]["schema"] == schema and call["opts"]["agentType"] == "bench-judge"
    assert "packet_id" in call["opts"]["schema"]["required"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_shipped_script_takes_the_same_object_as_args():
    tasks = fanout.arm_tasks(cells()[:1])
    out = run_in_node(SKILL_DIR / fanout.SCRIPT, {"phase": "Arms", "tasks": tasks})
    assert out["calls"][0]["prompt"] == tasks[0]["prompt"] and out["result"]["launched"] == 1


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_shipped_script_keeps_the_workflow_dialect():
    # The Workflow tool needs `export const meta = {...}` first and as a pure literal, and a body that
    # touches no file, clock, randomness or Node API (measured on the real CLI: docs/internals.md).
    text = (SKILL_DIR / fanout.SCRIPT).read_text()
    assert text.startswith("export const meta = {")
    meta = text[len("export const meta = "):text.index("\n}\n") + 2]
    check = ("const vm = require('vm'); const m = vm.runInNewContext('(' + process.argv[1] + ')', Object.create(null));"
             "console.log(JSON.stringify(m));")
    proc = subprocess.run([NODE, "-e", check, meta], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr  # a pure literal: evaluates with no globals at all
    assert json.loads(proc.stdout)["name"] == "bench-fanout"  # the file stem
    body = text[len("export const meta = ") + len(meta):]
    for banned in ("Date", "Math.random", "require(", "import", "process.", "fs.", "eval(", "Function("):
        assert banned not in body, banned


def test_a_script_without_the_bound_line_is_refused(tmp_path):
    (tmp_path / "workflow").mkdir()
    (tmp_path / "workflow/bench-fanout.js").write_text("export const meta = {name: 'x', description: 'y'}\n")
    with pytest.raises(BenchError, match="const BOUND = null"):
        fanout.write_bound_script(tmp_path, tmp_path / "out.js", "Arms", [])


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_each_bound_script_says_in_its_meta_what_the_dialog_approves(tmp_path):
    # The arms' and the judges' dialogs were identical: no skill, no phase, no count (issue 26.4).
    tasks = fanout.arm_tasks(cells())
    script = fanout.write_bound_script(SKILL_DIR, tmp_path / "bench-fanout.js", "Arms", tasks,
                                       about=("greet, it's", "re-runs"), part=(2, 3))
    text = script.read_text()
    meta = text[text.index("export const meta"):text.index("\n}\n") + 2]
    assert "description: 'benchmark-skill greet, it\\'s: re-runs, 4 agents, script 2 of 3'," in meta
    assert "phases: [{ title: 'Arms', detail: '4 agents for greet, it\\'s: a fresh subagent and world for each" in meta
    assert text.count("export const meta") == 1 and "agent(promptOf" not in text
    out = run_in_node(script)  # the meta is a literal and the script still launches every task
    meta_value = json.loads(subprocess.run([NODE, "-e", meta.replace("export const meta =", "console.log(JSON.stringify(")
                                            + "))"], capture_output=True, text=True, check=True).stdout)
    assert meta_value["phases"][0]["title"] == "Arms" and len(out["calls"]) == 4
    # Several scripts for one fan-out: each names its part; judges of a split are the panel.
    packets = [Packet(id=f"01-a/t{n}/efficacy#2", case="01-a", trial=n, comparison="efficacy", path="/x", prompt="p",
                      ref=f"r{n}", round=2) for n in (1, 2)]
    [judges] = fanout.write_bound_scripts(SKILL_DIR, tmp_path / "judges", "Judges", fanout.judge_tasks(packets),
                                          Templates(SKILL_DIR).answer_schema, about=("greet", "panel"))
    assert "description: 'benchmark-skill greet: panel, 2 agents'," in judges.read_text()
