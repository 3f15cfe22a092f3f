"""The guard's rules (harness/confine/rules.py), table-driven, and the hook's I/O (harness/confine/guard.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchcore.harness.confine import guard, registry
from benchcore.harness.confine.rules import ALLOW, ASK, DENY, Confinement, Rules
from places import REPO

REPO = REPO


@pytest.fixture()
def fs(tmp_path):
    world, copy, secret = tmp_path / "w", tmp_path / "copy", tmp_path / "secret"
    for d in (world, copy, secret):
        d.mkdir()
    (world / "README.md").write_text("hi\n")
    (copy / "SKILL.md").write_text("skill\n")
    (secret / "case.md").write_text("criteria\n")
    (world / "out").symlink_to(secret / "case.md")
    (world / ".git").mkdir()
    return {"W": str(world), "C": str(copy), "S": str(secret)}


def rules(fs, links=()):
    return Rules(Confinement(world=fs["W"], copy=fs["C"], outside_links=links))


BASH = [
    # legitimate work in the world
    ("cd {W} && printf %s 'Hello, reader!' > greeting.txt", ALLOW),
    ("git -C {W} diff --staged", ALLOW),
    ("git -C {W} add -A && git -C {W} commit -qm 'Fix greeting'", ALLOW),
    ("cd {W} && git commit -m 'Add a line' && git log --oneline -n 3", ALLOW),
    ("cat {W}/README.md", ALLOW),
    ("head -n 5 {C}/SKILL.md", ALLOW),
    ("cd {W} && grep -rn hello . | head -50", ALLOW),
    ("ls -la {W}", ALLOW),
    ("cd {W} && cat README.md 2>/dev/null", ALLOW),
    # escapes: refused before they run
    ("cat {S}/case.md", DENY),
    ("grep -rn criteria {S}", DENY),
    ("grep -rn reader . | head -50", DENY),
    ("find {S} -name '*.md' | xargs cat", DENY),
    ("find {W} -name '*.md' | xargs cat", DENY),
    ("fold -w 15 {S}/case.md", DENY),
    ("base64 -w 76 {S}/case.md", DENY),
    ("cat {S}/*.md", DENY),
    ("cat {W}/../secret/case.md", DENY),
    ("cd {W} && cat ../secret/case.md", DENY),
    ("cd .. && cat secret/case.md", DENY),
    ("cd {W} && cd .. && cat secret/case.md", DENY),
    ("cat {W}/out", DENY),
    ("cd {W} && cat out", DENY),
    ("cd {W} && cat o*", DENY),
    ("cat ~/.claude/projects/x.jsonl", DENY),
    ("cd {W} && printf x > ~/.claude/projects/p/forged.jsonl", DENY),
    ("printf x > {S}/forged.jsonl", DENY),
    ("cd {W} && printf x > .git/hooks/pre-commit", DENY),
    ("cat $HOME/.claude/x", DENY),
    ("cat `echo {S}/case.md`", DENY),
    ("cat $(echo {S}/case.md)", DENY),
    ("diff <(cat {S}/case.md) {W}/README.md", DENY),
    ("python3 -c 'print(open(\"{S}/case.md\").read())'", DENY),
    ("base64 -d {W}/x | sh", DENY),
    ("eval cat {S}/case.md", DENY),
    ("X=1 cat {W}/README.md", DENY),
    ("env cat {S}/case.md", DENY),
    ("cd {W}\ncat {S}/case.md", DENY),
    ("git diff", DENY),
    ("git -C {S} log", DENY),
    ("git -C {W} -c core.pager=cat log", DENY),
    ("git -C {W} diff --output={S}/x", DENY),
    ("git -C {W} diff --no-index {S}/case.md README.md", DENY),
    ("grep -R criteria {W}", None),  # depends on the world's links (below)
    # what the parse cannot show safe is left to the user
    ("cd {W} && make test", DENY),
    ("cd {W} && zip -r a.zip .", ASK),
    ("git -C {W} config user.name x", ASK),
    ("cd {W} && (cat README.md)", ASK),
]


@pytest.mark.parametrize("command,kind", [b for b in BASH if b[1]])
def test_bash_rules(fs, command, kind):
    d = rules(fs).bash(command.format(**fs))
    assert d.kind == kind, d.reason
    assert d.reason


def test_recursive_reads_that_follow_links_out_are_refused(fs):
    cmd = "grep -R criteria {W}".format(**fs)
    assert rules(fs).bash(cmd).kind == ALLOW
    assert rules(fs, links=(fs["W"] + "/out",)).bash(cmd).kind == DENY


FILES = [
    ("Read", {"file_path": "{W}/README.md"}, ALLOW),
    ("Read", {"file_path": "{C}/SKILL.md"}, ALLOW),
    ("Write", {"file_path": "{W}/greeting.txt", "content": "x"}, ALLOW),
    ("Edit", {"file_path": "{W}/README.md", "old_string": "hi", "new_string": "ho"}, ALLOW),
    ("Glob", {"pattern": "**/*.md", "path": "{W}"}, ALLOW),
    ("Grep", {"pattern": "hi", "path": "{W}"}, ALLOW),
    ("Read", {"file_path": "{S}/case.md"}, DENY),
    ("Read", {"file_path": "{W}/out"}, DENY),
    ("Read", {"file_path": "{W}/../secret/case.md"}, DENY),
    ("Read", {"file_path": "README.md"}, DENY),
    ("Write", {"file_path": "{C}/SKILL.md", "content": "x"}, DENY),
    ("Write", {"file_path": "{W}/.git/hooks/pre-commit", "content": "x"}, DENY),
    ("Write", {"file_path": "{S}/forged.jsonl", "content": "x"}, DENY),
    ("Grep", {"pattern": "criteria"}, DENY),
    ("Glob", {"pattern": "{S}/*"  , "path": "{W}"}, DENY),
    ("Glob", {"pattern": "../secret/*", "path": "{W}"}, DENY),
    ("LS", {"path": "{S}"}, DENY),
]


@pytest.mark.parametrize("tool,data,kind", FILES)
def test_file_tool_rules(fs, tool, data, kind):
    data = {k: v.format(**fs) for k, v in data.items()}
    d = rules(fs).file_tool(tool, data)
    assert d.kind == kind, d.reason


def test_agent_skill_and_workflow_are_refused_other_tools_get_no_decision(fs):
    for tool in ("Agent", "Skill", "Workflow"):
        assert guard.decide(tool, {}, fs["W"], fs["C"]).kind == DENY
    assert guard.decide("TodoWrite", {}, fs["W"], fs["C"]) is None


def test_git_that_would_run_the_worlds_own_programs_is_asked(fs):
    Path(fs["W"], ".git/config").write_text("[core]\n\tfsmonitor = ./evil\n")
    d = guard.decide("Bash", {"command": f"git -C {fs['W']} status"}, fs["W"], fs["C"])
    assert d.kind == ASK and "fsmonitor" in d.reason


def _session(tmp_path, agent_id, prompt, layout):
    sess = tmp_path / "projects" / "p" / "sess"
    folder = sess / "subagents" / ("workflows/wf_1" if layout == "workflow" else "")
    folder.mkdir(parents=True)
    lines = [{"type": "user", "message": {"role": "user", "content": prompt}},
             {"type": "assistant", "message": {"content": [{"type": "text", "text": "x"}]}}]
    (folder / f"agent-{agent_id}.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))
    return str(sess) + ".jsonl"


@pytest.fixture()
def active(tmp_path, fs):
    base, run = tmp_path / "base", tmp_path / "run"
    (base / "benchcore-r1-x").mkdir(parents=True)
    run.mkdir()
    cells = [{"id": "c/t1/new", "arm": "new", "world": fs["W"], "skill_dir": fs["C"],
              "prompt": f"Your working directory for this task is {fs['W']}.\nWrite a greeting."}]
    (run / "plan.json").write_text(json.dumps({"run_dir": str(run), "cells": cells, "packets": [],
                                               "temp_root": str(base / "benchcore-r1-x")}))
    registry.register_runs([run])
    return base, run, cells


@pytest.mark.parametrize("layout", ["agent", "workflow"])
def test_hook_confines_an_arm_and_records_refusals(tmp_path, fs, active, layout):
    base, run, cells = active
    prompt = cells[0]["prompt"] if layout == "agent" else "[Workflow harness]\n" + "\n".join(
        "  " + l for l in cells[0]["prompt"].splitlines())
    tp = _session(tmp_path, "a1", prompt, layout)
    call = lambda tool, data, **kw: guard.hook(json.dumps({"agent_id": "a1", "agent_type": "workflow-subagent",
                                                             "tool_name": tool, "tool_input": data,
                                                             "transcript_path": tp, **kw}), base, wait=0)
    ok = json.loads(call("Read", {"file_path": f"{fs['C']}/SKILL.md"}))["hookSpecificOutput"]
    assert ok["permissionDecision"] == ALLOW
    no = json.loads(call("Bash", {"command": f"cat {fs['S']}/case.md"}))["hookSpecificOutput"]
    assert no["permissionDecision"] == DENY and "outside" in no["permissionDecisionReason"]
    log = guard.read_log(run)
    assert [(r["cell"], r["tool"], r["decision"]) for r in log] == [("c/t1/new", "Bash", DENY)]
    assert log[0]["input"]["command"].endswith("case.md")


def test_hook_gives_no_decision_to_the_main_session_strangers_and_without_runs(tmp_path, fs, active):
    base, run, cells = active
    main = {"tool_name": "Bash", "tool_input": {"command": f"cat {fs['S']}/case.md"}}
    assert guard.hook(json.dumps(main), base, wait=0) == ""
    tp = _session(tmp_path, "b2", "Summarise the repository.", "agent")
    stranger = dict(main, agent_id="b2", agent_type="general-purpose", transcript_path=tp)
    assert guard.hook(json.dumps(stranger), base, wait=0) == ""
    arm_type = dict(stranger, agent_type="benchmark-skill:bench-arm")
    assert json.loads(guard.hook(json.dumps(arm_type), base, wait=0))["hookSpecificOutput"][
        "permissionDecision"] == DENY
    assert guard.hook(json.dumps(arm_type), tmp_path / "nothing", wait=0) == ""
    assert not (run / guard.LOG).exists() or len(guard.read_log(run)) == 1


@pytest.mark.skipif(not (REPO / "skills/benchmark-skill/scripts/guard").is_file(),
                    reason="needs the repository's skills/benchmark-skill")
def test_the_shell_prefilter_skips_python_for_calls_that_cannot_be_an_arms(tmp_path):
    script = REPO / "skills/benchmark-skill/scripts/guard"
    env = {"PATH": "/usr/bin:/bin"}  # no benchcore on PATH: reaching Python would fail loudly
    for payload in ('{"tool_name": "Bash"}', '{"agent_id": "a1", "tool_name": "Bash"}'):
        p = subprocess.run([str(script), str(tmp_path)], input=payload, capture_output=True, text=True, env=env)
        assert (p.returncode, p.stdout, p.stderr) == (0, "", "")


def test_the_audit_charges_a_refusal_to_the_attempt_that_made_it():
    from benchcore.harness.collect.contamination import guard_problems
    from benchcore.harness.store.planfile import Cell

    cell = lambda world: Cell(id="c/t1/new", case="c", trial=1, arm="new", world=world, skill_dir=None, prompt="p")
    records = [{"cell": "c/t1/new", "world": "/w1", "tool": "Bash", "input": {"command": "cat /etc/passwd"},
                "decision": "deny", "reason": "outside"}]
    first = guard_problems(records, [cell("/w1")])
    assert [p["arm"] for p in first] == ["new"] and "cat /etc/passwd" in first[0]["problem"]
    assert guard_problems(records, [cell("/w2")]) == []  # the re-run's fresh world


def _sandboxed(run, **extra):
    plan = json.loads((run / "plan.json").read_text())
    plan.update({"sandbox": {"kind": "bwrap", "program": "/usr/bin/bwrap", "args": ["--unshare-all"]}}, **extra)
    (run / "plan.json").write_text(json.dumps(plan))


def test_in_a_sandboxed_run_an_arms_bash_is_allowed_rewritten_and_unknown_tools_refused(tmp_path, fs, active):
    from benchcore.harness.confine.sandbox import wrap
    from benchcore.harness.store.planfile import Sandbox

    base, run, cells = active
    _sandboxed(run, arm_tools=["mcp__docs__search"])
    tp = _session(tmp_path, "a1", cells[0]["prompt"], "agent")
    call = lambda tool, data: json.loads(guard.hook(json.dumps({
        "agent_id": "a1", "agent_type": "bench-arm", "tool_name": tool, "tool_input": data,
        "transcript_path": tp}), base, wait=0) or "{}").get("hookSpecificOutput")
    out = call("Bash", {"command": "python3 -m pytest -q | tail -1", "description": "tests"})
    box = Sandbox(kind="bwrap", program="/usr/bin/bwrap", args=("--unshare-all",))
    assert out["permissionDecision"] == ALLOW
    assert out["updatedInput"] == {"command": wrap(box, "python3 -m pytest -q | tail -1", fs["W"], fs["C"]),
                                   "description": "tests"}
    assert out["updatedInput"]["command"].endswith("-- /bin/bash -c 'python3 -m pytest -q | tail -1'")
    for tool in ("WebFetch", "WebSearch", "mcp__evil__read", "SomeFutureTool"):
        assert call(tool, {"url": "https://example.com"})["permissionDecision"] == DENY, tool
    assert call("mcp__docs__search", {"q": "x"}) is None  # benchmark.yaml tools allows it
    assert call("TodoWrite", {"todos": []}) is None
    assert call("Read", {"file_path": f"{fs['S']}/case.md"})["permissionDecision"] == DENY  # path rules stay
    assert [r["tool"] for r in guard.read_log(run)] == ["WebFetch", "WebSearch", "mcp__evil__read",
                                                        "SomeFutureTool", "Read"]


@pytest.mark.parametrize("planted", ['["not", "a", "registry"]', "{not json", '{"run_dir": 7}'])
def test_a_broken_registry_refuses_arms_and_leaves_everyone_else_alone(tmp_path, fs, active, planted):
    base, run, cells = active
    (base / "benchcore-planted-x").mkdir()
    (base / "benchcore-planted-x" / registry.REGISTRY).write_text(planted)
    tp = _session(tmp_path, "a1", cells[0]["prompt"], "agent")
    payload = {"agent_id": "a1", "tool_name": "Bash", "tool_input": {"command": "ls"}, "transcript_path": tp}
    out = json.loads(guard.hook(json.dumps(dict(payload, agent_type="bench-baseline")), base, wait=0))
    assert out["hookSpecificOutput"]["permissionDecision"] == DENY
    assert "benchcore-planted-x" in out["hookSpecificOutput"]["permissionDecisionReason"]
    # Someone else's subagent, whose opening is no arm's prompt, is left alone; one whose opening cannot be
    # read cannot be told from an arm while the registry is broken, so it is refused (fail closed).
    other = _session(tmp_path / "o", "zz", "Summarise the repository.", "agent")
    assert guard.hook(json.dumps(dict(payload, agent_type="general-purpose", agent_id="zz", transcript_path=other)),
                      base, wait=0) == ""
    unread = json.loads(guard.hook(json.dumps(dict(payload, agent_type="general-purpose", agent_id="yy")), base,
                                   wait=0))
    assert unread["hookSpecificOutput"]["permissionDecision"] == DENY
    assert guard.hook(json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}), base, wait=0) == ""


def test_the_guard_command_imports_none_of_the_models(tmp_path):
    # Claude Code starts `benchcore guard` for every tool call of every arm: importing benchcore's models and
    # cattrs (to read plan.json's sandbox entry) took 138 ms of CPU a call to 79 ms on a 2-core machine.
    payload = json.dumps({"agent_id": "a1", "tool_name": "Bash", "tool_input": {"command": "ls"}})
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "benchcore", "guard", str(tmp_path)],
                       input=payload, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == ""
    loaded = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert "benchcore.harness.confine.guard" in loaded
    assert not {"benchcore.serde", "benchcore.model", "cattrs", "benchcore.harness.store.planfile"} & loaded


SANDBOX_ENTRIES = [
    {"kind": "bwrap", "program": "/usr/bin/bwrap"},
    {"kind": "bwrap", "program": "/usr/bin/bwrap", "args": ["--ro-bind", "/usr", "/usr"], "readonly": [],
     "env": {"PATH": "/usr/bin"}, "network": True, "shell": "/bin/sh", "tail": ["--remount-ro", "/"],
     "scratch": True, "masked": ["/opt/x/.npmrc"], "a later extension": 1},
    {"kind": "seatbelt", "program": "/usr/bin/sandbox-exec", "readonly": ["/opt/homebrew"]},
    {"kind": "bwrap"}, {"program": "b"}, {"kind": 3, "program": "b"}, {"kind": "bwrap", "program": "b", "args": "x"},
    {"kind": "bwrap", "program": "b", "args": ["a", 1]}, {"kind": "bwrap", "program": "b", "args": None},
    {"kind": "bwrap", "program": "b", "network": 1}, {"kind": "bwrap", "program": "b", "scratch": "yes"},
    {"kind": "bwrap", "program": "b", "env": {"A": 1}}, {"kind": "bwrap", "program": "b", "env": ["A"]},
    {"kind": "bwrap", "program": "b", "shell": None, "masked": [None]}, [], "bwrap", None,
]


@pytest.mark.parametrize("raw", SANDBOX_ENTRIES, ids=range(len(SANDBOX_ENTRIES)))
def test_the_guards_reader_of_the_sandbox_entry_is_serdes(raw):
    # The guard reads plan.json's sandbox entry without serde (above); it must read and refuse what serde does.
    from benchcore import serde
    from benchcore.errors import BenchError
    from benchcore.harness.store.planfile import Sandbox
    from benchcore.harness.store.sandboxentry import load_sandbox

    def read(load):
        try:
            return load(raw, source="plan.json sandbox")
        except BenchError as err:
            return str(err)

    expected = read(lambda r, source: serde.load(Sandbox, r, source=source))
    assert read(load_sandbox) == expected
    assert isinstance(expected, Sandbox) == (SANDBOX_ENTRIES.index(raw) < 3)


def test_a_malformed_sandbox_entry_or_any_error_refuses_the_arm(tmp_path, fs, active):
    base, run, cells = active
    plan = json.loads((run / "plan.json").read_text())
    (run / "plan.json").write_text(json.dumps(dict(plan, sandbox={"kind": 3})))
    tp = _session(tmp_path, "a1", cells[0]["prompt"], "agent")
    payload = {"agent_id": "a1", "agent_type": "bench-arm", "tool_name": "Bash", "tool_input": {"command": "ls"},
               "transcript_path": tp}
    out = json.loads(guard.hook(json.dumps(payload), base, wait=0))["hookSpecificOutput"]
    assert out["permissionDecision"] == DENY and "guard failed" in out["permissionDecisionReason"]


def test_honest_arms_are_not_refused_under_load_when_their_transcript_comes_late(tmp_path, fs, active):
    """Both cores busy, and each arm's transcript appearing 3.5 s after its first call (past the old fixed 3 s
    wait): every honest arm's call is allowed, none refused."""
    import sys
    import threading

    base, run, cells = active
    _sandboxed(run)
    busy = [subprocess.Popen(["nice", "-n", "10", sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    answers = {}

    def arm(n):
        tp = str(tmp_path / "projects" / "p" / "late") + ".jsonl"
        answers[n] = guard.hook(json.dumps({"agent_id": f"late{n}", "agent_type": "bench-arm", "tool_name": "Bash",
                                            "tool_input": {"command": "ls"}, "transcript_path": tp}), base)
    timers = [threading.Timer(3.5, _late, (tmp_path, f"late{n}", cells[0]["prompt"])) for n in range(3)]
    threads = [threading.Thread(target=arm, args=(n,)) for n in range(3)]
    try:
        for t in timers + threads:
            t.start()
        for t in threads:
            t.join(timeout=guard.WAIT_SECONDS + 5)
    finally:
        for t in timers:
            t.cancel()
        for p in busy:
            p.kill()
            p.wait()
    assert [json.loads(answers[n])["hookSpecificOutput"]["permissionDecision"] for n in range(3)] == [ALLOW] * 3
    assert guard.read_log(run) == []


def _late(tmp_path, agent_id, prompt):
    folder = tmp_path / "projects" / "p" / "late" / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"agent-{agent_id}.jsonl").write_text(json.dumps({"type": "user", "message": {"content": prompt}}) + "\n")


@pytest.mark.skipif(not (REPO / "skills/benchmark-skill/scripts/guard").is_file(),
                    reason="needs the repository's skills/benchmark-skill")
def test_the_hook_script_refuses_an_arm_when_benchcore_cannot_start(tmp_path):
    script = tmp_path / "scripts" / "guard"
    script.parent.mkdir()
    shutil_copy(REPO / "skills/benchmark-skill/scripts/guard", script)
    (script.parent / "benchcore").write_text("#!/bin/sh\necho 'benchcore: broken' >&2\nexit 127\n")
    base = tmp_path / "base"
    (base / "benchcore-r-x").mkdir(parents=True)
    (base / "benchcore-r-x" / "guard.json").write_text('{"run_dir": "/nowhere"}')
    env = {"PATH": "/usr/bin:/bin"}
    arm = '{"agent_id": "a1", "agent_type": "benchmark-skill:bench-arm", "tool_name": "Bash"}'
    p = subprocess.run(["sh", str(script), str(base)], input=arm, capture_output=True, text=True, env=env)
    assert p.returncode == 0 and json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] == DENY
    # plan --default-agent-type runs arms as the default type: whatever its type, a subagent's call during a
    # run is refused when benchcore cannot tell whether it is an arm; the main session is never touched.
    other = '{"agent_id": "a1", "agent_type": "general-purpose", "tool_name": "Bash"}'
    p = subprocess.run(["sh", str(script), str(base)], input=other, capture_output=True, text=True, env=env)
    said = json.loads(p.stdout)["hookSpecificOutput"]
    assert p.returncode == 0 and said["permissionDecision"] == DENY and "exit 127" in said["permissionDecisionReason"]
    main = '{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
    p = subprocess.run(["sh", str(script), str(base)], input=main, capture_output=True, text=True, env=env)
    assert (p.returncode, p.stdout) == (0, "")


def shutil_copy(src, dst):
    import shutil

    shutil.copy(src, dst)


def _call(tp, base, agent_type="bench-arm", agent_id="a1"):
    def call(tool, data):
        out = guard.hook(json.dumps({"agent_id": agent_id, "agent_type": agent_type, "tool_name": tool,
                                     "tool_input": data, "transcript_path": tp}), base, wait=0)
        return json.loads(out)["hookSpecificOutput"] if out else None
    return call


@pytest.mark.parametrize("sandboxed", [True, False])
def test_an_arms_bash_never_runs_in_the_background(tmp_path, fs, active, sandboxed):
    """run_in_background is rewritten to false (the call's updatedInput), sandboxed or not: the call, and in the
    sandbox every process it started, has ended before the arm's next tool call, so nothing of the arm runs
    beside its file tools."""
    base, run, cells = active
    if sandboxed:
        _sandboxed(run)
    call = _call(_session(tmp_path, "a1", cells[0]["prompt"], "agent"), base)
    out = call("Bash", {"command": f"ls {fs['W']}", "description": "look", "run_in_background": True})
    assert out["permissionDecision"] == ALLOW
    assert out["updatedInput"]["run_in_background"] is False and out["updatedInput"]["description"] == "look"
    assert out["updatedInput"]["command"].startswith("/usr/bin/bwrap ") == sandboxed
    plain = call("Bash", {"command": f"ls {fs['W']}"})
    assert "run_in_background" not in (plain.get("updatedInput") or {})
    assert guard.read_log(run) == []


def test_file_tools_get_the_path_the_check_resolved(tmp_path, fs, active):
    """Allowed file tools are answered with updatedInput holding the resolved path, so a link swapped after the
    check cannot redirect the call; a link in the world to the world is allowed as its target, one out refused."""
    base, run, cells = active
    _sandboxed(run)
    w = Path(fs["W"])
    (w / "real").mkdir()
    (w / "inside").symlink_to(w / "README.md")
    (w / "sub").symlink_to(w / "real")
    call = _call(_session(tmp_path, "a1", cells[0]["prompt"], "agent"), base)
    real = os.path.realpath
    read = call("Read", {"file_path": f"{w}/inside", "limit": 5})
    assert read["permissionDecision"] == ALLOW and read["updatedInput"] == {"file_path": real(w / "README.md"),
                                                                             "limit": 5}
    write = call("Write", {"file_path": f"{w}/sub/new.txt", "content": "x"})
    assert write["updatedInput"] == {"file_path": real(w / "real") + "/new.txt", "content": "x"}
    edit = call("Edit", {"file_path": f"{w}/./README.md", "old_string": "hi", "new_string": "ho"})
    assert edit["updatedInput"]["file_path"] == real(w / "README.md")
    skill = call("Read", {"file_path": f"{fs['C']}/SKILL.md"})
    assert skill["updatedInput"]["file_path"] == real(Path(fs["C"]) / "SKILL.md")
    out = call("Read", {"file_path": f"{w}/out"})  # the fixture's link to a file outside
    assert out["permissionDecision"] == DENY and "updatedInput" not in out
    # Glob and Grep would follow the world's link out: refused while it is there, allowed (resolved) after.
    assert call("Grep", {"pattern": "criteria", "path": str(w)})["permissionDecision"] == DENY
    assert call("Glob", {"pattern": "**/*", "path": str(w)})["permissionDecision"] == DENY
    (w / "out").unlink()
    found = call("Grep", {"pattern": "hi", "path": f"{w}/sub/..", "output_mode": "content"})
    assert found["permissionDecision"] == ALLOW and found["updatedInput"]["path"] == real(w)
    assert [r["tool"] for r in guard.read_log(run)] == ["Read", "Grep", "Glob"]


def test_tools_that_run_beside_the_arm_or_outside_its_sandbox_are_refused_even_when_listed(tmp_path, fs, active):
    base, run, cells = active
    _sandboxed(run, arm_tools=["Monitor", "PowerShell", "WebFetch"])
    call = _call(_session(tmp_path, "a1", cells[0]["prompt"], "agent"), base)
    for tool in ("Monitor", "PowerShell", "REPL", "CronCreate", "ScheduleWakeup", "Agent", "Workflow"):
        assert call(tool, {"command": "sleep 60"})["permissionDecision"] == DENY, tool
    assert call("WebFetch", {"url": "https://example.com"}) is None  # listed, and no background work
    # Waiting for a call Claude Code moved to the background reads its output only: no decision.
    assert call("GetTask", {"task_id": "b1"}) is None and call("TaskOutput", {"task_id": "b1"}) is None
    assert call("TaskStop", {"task_id": "b1"})["permissionDecision"] == DENY  # any task of the session


def test_an_arm_of_the_default_agent_type_is_confined_and_an_unreadable_one_refused(tmp_path, fs, active):
    """plan --default-agent-type: arms run as general-purpose (cells without an agent type). A subagent whose
    opening is a planned arm prompt is decided as an arm whatever its type; one whose opening cannot be read is
    refused (it cannot be told from an arm); a stranger whose opening is read gets no decision."""
    base, run, cells = active
    _sandboxed(run)
    arm = _call(_session(tmp_path, "g1", cells[0]["prompt"], "agent"), base, "general-purpose", "g1")
    assert arm("Read", {"file_path": f"{fs['S']}/case.md"})["permissionDecision"] == DENY
    assert arm("Bash", {"command": "cat /etc/hostname"})["updatedInput"]["command"].startswith("/usr/bin/bwrap ")
    unread = _call(str(tmp_path / "nowhere.jsonl"), base, "general-purpose", "g2")
    said = unread("Bash", {"command": "ls"})
    assert said["permissionDecision"] == DENY and "cannot tell it from an arm" in said["permissionDecisionReason"]
    stranger = _call(_session(tmp_path / "s", "g3", "Summarise the repository.", "agent"), base,
                     "general-purpose", "g3")
    assert stranger("Bash", {"command": "ls"}) is None
    # With sealed arm types (every cell names bench-arm), a late transcript of another type is not an arm's.
    plan = json.loads((run / "plan.json").read_text())
    plan["cells"] = [dict(c, agent_type="bench-arm") for c in plan["cells"]]
    (run / "plan.json").write_text(json.dumps(plan))
    assert unread("Bash", {"command": "ls"}) is None
    # Any error in the guard refuses every subagent's call: it cannot tell an arm from another agent.
    (run / "plan.json").write_text(json.dumps(dict(plan, sandbox={"kind": 3})))
    failed = arm("Bash", {"command": "ls"})
    assert failed["permissionDecision"] == DENY and "guard failed" in failed["permissionDecisionReason"]


def test_a_file_tool_waits_for_the_arms_own_commands_and_is_refused_while_one_runs(tmp_path, fs, active,
                                                                                   monkeypatch):
    """A process whose command line binds the arm's world (what sandbox.wrap gives every Bash call of the arm)
    is the arm's: a file tool waits for it to end, and is refused if it outlives the wait (Claude Code moves a
    Bash call to the background at its timeout). Another world's process does not count."""
    import sys
    import time

    base, run, cells = active
    _sandboxed(run)
    call = _call(_session(tmp_path, "a1", cells[0]["prompt"], "agent"), base)
    sleeper = lambda seconds, world: subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})",
                                                       "--bind", world, world])
    monkeypatch.setattr(guard, "BUSY_SECONDS", 0.5)
    other = sleeper(30, fs["S"])
    try:
        assert guard.running(fs["W"]) == []
        assert call("Read", {"file_path": f"{fs['W']}/README.md"})["permissionDecision"] == ALLOW
        short = sleeper(0.3, fs["W"])
        time.sleep(0.1)
        assert guard.running(fs["W"]) == [short.pid]
        start = time.monotonic()
        assert call("Read", {"file_path": f"{fs['W']}/README.md"})["permissionDecision"] == ALLOW
        assert time.monotonic() - start >= 0.1  # it waited for the command to end
        short.wait()
        long = sleeper(30, fs["W"])
        time.sleep(0.1)
        try:
            said = call("Write", {"file_path": f"{fs['W']}/x.txt", "content": "x"})
            assert said["permissionDecision"] == DENY and "still running" in said["permissionDecisionReason"]
            assert call("Bash", {"command": "ls"})["permissionDecision"] == ALLOW  # Bash runs in its own sandbox
        finally:
            long.kill()
            long.wait()
    finally:
        other.kill()
        other.wait()
    assert [r["tool"] for r in guard.read_log(run)] == ["Write"]


def test_the_arms_running_commands_are_found_by_the_command_line_wrap_gives_them(fs):
    import shlex

    from benchcore.harness.confine.sandbox import wrap
    from benchcore.harness.store.planfile import Sandbox

    box = Sandbox(kind="bwrap", program="/usr/bin/bwrap", args=("--unshare-all", "--die-with-parent"))
    argv = shlex.split(wrap(box, "sleep 30", fs["W"], fs["C"]))
    cmdline = "\0".join(argv).encode() + b"\0"  # as /proc/<pid>/cmdline holds it
    assert guard.binds(cmdline, fs["W"]) and not guard.binds(cmdline, fs["S"]) and not guard.binds(cmdline, fs["C"])
