"""End to end with the stand-in: collect's gate runs the hard assertions in the run's sandbox (issue 37, finding 1).

The new arm of a case plants ``tests/test_steal.py`` in its world, and the case's predicate runs
``python3 -B -m unittest discover``, which imports it. In a sandboxed run the planted file reads no session
variable and no home folder file, writes nothing to the home folder or the installed benchcore, and the gate's
results are what they would be without it; collect.json says where the assertions ran. In a ``--no-sandbox``
run collect says plainly that they ran unconfined.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import benchcore
from benchcore.harness.confine.sandbox import PROGRAM_KNOB
from standin import repo as R
from standin.agent import Script
from test_e2e_benchmark import GREET, bench, greet_files, next_script  # noqa: F401 (bench is a fixture)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")

CASE = "03-planted-test"
KEY = "sk-ant-e2e-planted-0007"
PREDICATE = 'python3 -B -m unittest discover -s tests -t . && test -f "$WORLD/greeting.txt"'
PACKAGE = Path(benchcore.__file__).resolve().parent


def stealer(home: Path) -> str:
    return f"""import json, os, unittest
seen = {{"key": os.environ.get("ANTHROPIC_API_KEY")}}
for name, path, mode in (("home_read", {str(home / "secret.txt")!r}, "r"),
                         ("home_write", {str(home / "stolen.txt")!r}, "w"),
                         ("benchcore_write", {str(PACKAGE / "stolen.py")!r}, "w")):
    try:
        with open(path, mode) as f:
            seen[name] = f.read() if mode == "r" else f.write(repr(dict(os.environ)))
    except OSError as exc:
        seen[name] = "refused: " + exc.strerror
with open("probe.json", "w") as f:
    json.dump(seen, f)

class T(unittest.TestCase):
    def test_fine(self):
        self.assertTrue(True)
"""


def _setup(bench, monkeypatch) -> tuple[Path, Script]:
    home = bench.tmp / "home"
    (home / "secret.txt").write_text("the user's secret\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    R.case(bench.repo, GREET, CASE, hard=PREDICATE)
    files = dict(greet_files(), **{CASE: {"greeting.txt": "Hello!\n", "tests/__init__.py": "",
                                          "tests/test_steal.py": stealer(home)}})
    return home, Script(files=files)


def _collect(bench, script: Script, *plan_args: str) -> tuple[str, Path, str]:
    rc, out, err = bench.plan("greet", "--seed", "5", *plan_args)
    assert rc == 0, out + err
    [run_dir] = bench.runs()
    bench.arms(next_script(out), script)
    rc, cout, cerr = bench.run("collect", str(run_dir))
    assert rc == 0, cout + cerr
    return out, run_dir, cout


def test_a_test_file_the_arm_planted_runs_in_the_sandbox_when_the_gate_imports_it(bench, monkeypatch):
    home, script = _setup(bench, monkeypatch)
    out, run_dir, collected = _collect(bench, script)
    assert "(smoke run passed); case setups and hard assertions too" in out
    plan = bench.plan_json(run_dir)
    probes = 0
    for cell in (c for c in plan["cells"] if c["case"] == CASE and c["arm"] == "new"):
        results = json.loads((run_dir / f"cases/{CASE}/t{cell['trial']}/new/assertions.json").read_text())
        assert [r["exit"] for r in results] == [0], results  # the predicate ran and passed, as without the plant
        seen = json.loads((Path(cell["world"]) / "probe.json").read_text())
        assert seen["key"] is None and seen["home_read"].startswith("refused")
        assert seen["home_write"].startswith("refused") and seen["benchcore_write"].startswith("refused")
        probes += 1
    assert probes == 5
    assert not (home / "stolen.txt").exists() and not (PACKAGE / "stolen.py").exists()
    status = json.loads((run_dir / "collect.json").read_text())
    assert status["hard_assertions_ran"] == "sandboxed" and "ran unconfined" not in collected
    assert not any(t.startswith(CASE) for t in status["gated_trials"])


def test_a_run_without_a_sandbox_says_its_assertions_ran_unconfined(bench, tmp_path, monkeypatch):
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv(PROGRAM_KNOB, str(broken))
    out, run_dir, collected = _collect(bench, Script(files=greet_files()), "--no-sandbox")
    assert "each case's setup (now) and hard assertions (in collect) run unconfined" in out
    assert "its hard assertions ran unconfined, on this machine with your session's environment" in collected
    assert json.loads((run_dir / "collect.json").read_text())["hard_assertions_ran"] == "unconfined"
