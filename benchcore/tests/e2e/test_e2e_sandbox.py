"""End to end with the stand-in: the OS sandbox through plan, collect and render (issue 25).

plan smoke-runs the sandbox before anything is built and records it (plan.json, run.json); the stand-in
writes the guard's hook_success record beside each arm's Bash call, as the real CLI does; collect makes a
trial whose Bash call has no such record invalid and names the call; where no sandbox runs, plan stops with
the fix unless --no-sandbox, and such a run says so in results.json, its headline and its environment card.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchcore.environment import NOT_SANDBOXED
from benchcore.harness.confine.sandbox import PROGRAM_KNOB
from standin.agent import Script
from test_e2e_benchmark import CASE1, bench, greet_files, next_script  # noqa: F401 (bench is a fixture)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")


def _runs_to_render(bench, script: Script, *plan_args: str):
    rc, out, err = bench.plan("greet", "--seed", "3", *plan_args)
    assert rc == 0, out + err
    [run_dir] = bench.runs()
    bench.arms(next_script(out), script)
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, script)
    rc, cout, _ = bench.run("collect", str(run_dir))
    return out, run_dir, cout


def test_a_sandboxed_run_records_its_sandbox_and_checks_every_bash_call(bench):
    script = Script(files=greet_files(), unguarded={(CASE1, 2, "baseline")})
    out, run_dir, collected = _runs_to_render(bench, script)
    assert "sandbox: each arm's commands run in bubblewrap" in out
    plan = bench.plan_json(run_dir)
    assert plan["sandbox"]["kind"] == "bwrap" and plan["unsandboxed"] is False
    # /etc is the run's own copy, in its temp root, bound once (not each entry of the machine's /etc)
    args = plan["sandbox"]["args"]
    view = f"{plan['temp_root']}/etc"
    assert args[args.index("/etc") - 2:args.index("/etc") + 1] == ["--ro-bind", view, "/etc"]
    assert "/etc/passwd" not in args and (Path(view) / "passwd").is_file()
    assert json.loads((run_dir / "run.json").read_text())["sandbox"].startswith("bubblewrap (")
    # Every arm's Bash call has the guard's rewrite beside it, but for the one arm the guard missed.
    audit = json.loads((run_dir / f"cases/{CASE1}/t2/audit.json").read_text())
    assert audit["invalid"] is True
    [problem] = [p for p in audit["problems"] if "sandbox" in p["problem"]]
    assert problem["arm"] == "baseline" and "printf %s" in problem["problem"]
    assert "no hook_success record" in problem["problem"]
    others = [json.loads(p.read_text()) for p in run_dir.glob("cases/*/t*/audit.json") if "/t2/" not in str(p)
              or CASE1 not in str(p)]
    assert others and not any(a["invalid"] for a in others)


def test_where_no_sandbox_runs_plan_stops_with_the_fix_unless_the_user_opts_out(bench, tmp_path, monkeypatch):
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv(PROGRAM_KNOB, str(broken))
    rc, out, err = bench.plan("greet")
    assert rc == 2 and "no OS sandbox can run on this machine" in err
    assert "No permissions to create new namespace" in err and "sudo apt-get install bubblewrap" in err
    assert "--no-sandbox" in err and not (bench.repo / "tests/.reports/runs").exists()

    out, run_dir, _ = _runs_to_render(bench, Script(files=greet_files()), "--no-sandbox")
    assert "--no-sandbox: the arms are not confined: their commands run on this machine as you and can reach " \
        "anything you can" in out
    plan = bench.plan_json(run_dir)
    assert plan["sandbox"] is None and plan["unsandboxed"] is True
    assert json.loads((run_dir / "run.json").read_text())["sandbox"] == NOT_SANDBOXED
    rc, rout, rerr = bench.run("render", str(run_dir))
    assert rc == 0, rout + rerr
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    assert results["sandboxed"] is False and "Not sandboxed: the arms were not confined" in results["headline"]
    assert "could reach anything you can" in results["headline"]
    [line] = [l for l in results["environment"]["lines"] if l["key"] == "sandbox"]
    assert line["value"].startswith("not sandboxed (plan --no-sandbox): the arms were not confined")
    assert "could reach anything you can" in line["value"] and line["status"] == "shared"
    page = next((bench.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert "not sandboxed (plan --no-sandbox)" in page
