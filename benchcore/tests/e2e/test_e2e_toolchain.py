"""End to end with the stand-in: the repository's own toolchain through plan, run.json and the report (issue 37,
deliverable 5).

The newcomer's setup, a ``.venv`` inside the repository activated in the session with pytest installed in it,
reaches the arms: plan names the python3 and pytest they get, runs benchmark.yaml ``requires:`` in their
sandbox, and the report's environment card shows both. Without the venv, plan refuses a skill that requires
pytest (naming the command and the fix), and warns (but plans) for one whose cases name pytest without
``requires:``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from standin import repo as R
from standin.repo import newcomer_venv
from standin.agent import Script
from test_e2e_benchmark import GREET, greet_files, next_script  # noqa: F401 (bench is a fixture)
from test_e2e_benchmark import bench  # noqa: F401

pytestmark = pytest.mark.skipif(sys.platform != "linux" or not Path("/usr/bin/bwrap").exists(),
                                reason="bubblewrap is Linux's")
REQUIRES = 'requires: ["python3 -m pytest --version"]\n'




def test_a_repository_venv_reaches_the_arms_and_plan_and_the_report_name_it(bench, monkeypatch):
    venv = newcomer_venv(bench.repo)
    monkeypatch.setenv("PATH", f"{venv}/bin:/usr/bin:/bin")  # activated in the session
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", REQUIRES)
    rc, out, err = bench.plan("greet", "--seed", "3")
    assert rc == 0, out + err
    assert f"toolchain: arms get python3 = {venv}/bin/python3 (" in out
    assert re.search(r"pytest \d+\.\d+\S* \(python3 -m pytest\)", out) and "(found " not in out  # sandboxed: the line above says where
    assert "requires (greet): `python3 -m pytest --version` ran (pytest " in out
    [run_dir] = bench.runs()
    plan = bench.plan_json(run_dir)
    assert str(venv) in plan["sandbox"]["readonly"] and str(bench.repo) not in plan["sandbox"]["readonly"]
    toolchain = json.loads((run_dir / "run.json").read_text())["toolchain"]
    assert toolchain.startswith(f"python3 = {venv}/bin/python3") and "requires: `python3 -m pytest" in toolchain
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    rc, rout, rerr = bench.run("render", str(run_dir))
    assert rc == 0, rout + rerr
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    [line] = [l for l in results["environment"]["lines"] if l["key"] == "toolchain"]
    assert line["value"] == toolchain
    page = next((bench.repo / "tests/.reports").glob("greet*.html")).read_text()
    assert f"{venv}/bin/python3" in page and "Arms&#39; toolchain" in page


def test_plan_refuses_a_required_command_that_fails_in_the_sandbox_with_the_fix(bench, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no venv: the system python3 has no pytest here
    if subprocess.run(["/usr/bin/python3", "-m", "pytest", "--version"], capture_output=True).returncode == 0:
        pytest.skip("this machine's /usr/bin/python3 has pytest")
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "temperature: 1\n" + REQUIRES)
    rc, out, err = bench.plan("greet")
    assert rc == 2 and f"tests/{GREET}/benchmark.yaml:2: requires `python3 -m pytest --version`" in err
    assert "No module named pytest" in err and "source .venv/bin/activate" in err
    assert not (bench.repo / "tests/.reports/runs").exists()


def test_plan_warns_but_plans_when_a_case_names_pytest_and_the_arms_have_none(bench, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    if subprocess.run(["/usr/bin/python3", "-m", "pytest", "--version"], capture_output=True).returncode == 0:
        pytest.skip("this machine's /usr/bin/python3 has pytest")
    R.case(bench.repo, GREET, "03-tests", hard="python3 -m pytest -q")
    rc, out, err = bench.plan("greet")
    assert rc == 0, out + err
    [warning] = [l for l in out.splitlines() if l.startswith("warning: greet: pytest")]
    assert "03-tests" in warning and "01-hello" not in warning
    assert 'requires: ["python3 -m pytest --version"]' in warning
    assert bench.runs()


def test_plan_says_when_the_repositorys_venv_is_not_given_to_the_arms(bench, monkeypatch):
    venv = newcomer_venv(bench.repo)
    R.write(venv / "share/notes/SKILL.md", "a skill kept in the venv\n")  # a venv holding a skill is not bound
    monkeypatch.setenv("PATH", f"{venv}/bin:/usr/bin:/bin")
    rc, out, err = bench.plan("greet")
    assert rc == 0, out + err
    assert f"note: the repository's PATH entry {venv}/bin: it holds a skill (a SKILL.md) (the arms do not get it)" \
        in out
    assert f"python3 = {venv}" not in out
