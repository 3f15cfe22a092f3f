"""Collect's checks (the gate's hard assertions, and the same on the baseline's output): the trials side by side,
each in its own world, with the results each would give alone; a stop kills the commands still running, and none
of them leaves a result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchcore.harness.collect import gate
from benchcore.harness.worlds import assertions as hard
from benchcore.model import HardAssertion
from places import REPO
from test_e2e_benchmark import Bench, greet_files, greet_repo, next_script
from standin import repo as R
from standin.agent import Script

two_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: the checks run one at a time")
whole_runs = pytest.mark.skipif(not (REPO / "skills" / "benchmark-skill" / "SKILL.md").is_file(),
                                reason="needs the repository's skills/benchmark-skill (a whole run)")


def _planned(tmp_path, monkeypatch) -> tuple[Bench, Path]:
    bench = Bench(tmp_path, monkeypatch)
    repo = greet_repo(tmp_path)
    R.case(repo, "git/greet", "03-more")
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    return bench, run_dir


def _results(run_dir: Path) -> dict[str, str]:
    return {str(p.relative_to(run_dir)): p.read_text(encoding="utf-8")
            for p in sorted(run_dir.glob("cases/*/t*/*/assertions.json"))}


@two_cores
@whole_runs
def test_the_trials_checks_run_side_by_side_and_give_what_they_give_one_at_a_time(tmp_path, monkeypatch):
    bench, run_dir = _planned(tmp_path, monkeypatch)
    real, lock, running, most, pair = hard.run_assertions, threading.Lock(), [0], [0], threading.Event()

    def side_by_side(*args, **kwargs):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            if running[0] >= 2:
                pair.set()
        try:
            pair.wait(20)  # the first waits for a second trial's checks to start beside it (20 s at most)
            return real(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(hard, "run_assertions", side_by_side)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "45/45 cells collected" in out
    assert most[0] >= 2  # two trials' checks at once (one at a time, the first would have waited alone)
    together = _results(run_dir)
    assert len(together) >= 20 and {Path(name).parent.name for name in together} == {"new", "baseline"}

    # The same checks again, one at a time: the same results, byte for byte.
    monkeypatch.setattr(hard, "run_assertions", real)
    monkeypatch.setattr(gate, "CHECKERS", 1)
    for name in together:
        (run_dir / name).unlink()
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and _results(run_dir) == together


@two_cores
def test_a_stop_during_the_checks_kills_the_commands_still_running_and_keeps_no_result(tmp_path):
    # Ctrl-C while two trials' checks run: each command is killed with its group at once (not left to its
    # 30 seconds), and neither trial gets an assertions.json (a killed check is no result; kept, it would gate).
    jobs = []
    for n in (1, 2):
        world, cdir = tmp_path / f"world{n}", tmp_path / f"cell{n}"
        world.mkdir()
        cdir.mkdir()
        (cdir / "output.md").write_text("done\n", encoding="utf-8")
        case = SimpleNamespace(hard_assertions=(HardAssertion('echo $$ > "$WORLD/pid"; exec sleep 30', 1),))
        jobs.append((case, cdir, world, "0" * 64))
    run = SimpleNamespace(assert_timeout=60.0, plan=SimpleNamespace(sandbox=None))
    pids = [tmp_path / f"world{n}" / "pid" for n in (1, 2)]

    def interrupt() -> None:
        deadline = time.monotonic() + 20
        while not all(p.is_file() and p.read_text().strip() for p in pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C in the terminal: KeyboardInterrupt in the main thread

    start = time.monotonic()
    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        gate.check_all(run, jobs)
    assert time.monotonic() - start < 15
    for p in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(int(p.read_text()), 0)  # killed, and reaped
    assert not list(tmp_path.glob("cell*/assertions.json"))


@two_cores
@whole_runs
def test_sigterm_during_collects_checks_kills_them_and_keeps_no_result(tmp_path, monkeypatch):
    # Unconfined checks (plan --no-sandbox: no sandbox dies with collect) of a case whose hard assertion runs
    # 30 seconds. A SIGTERM (a terminal closed, a timeout's kill) stops collect as Ctrl-C does: it ends in
    # seconds, says so, every check it started is killed and reaped, and no trial of that case gets a result.
    bench = Bench(tmp_path, monkeypatch)
    repo = greet_repo(tmp_path)
    R.case(repo, "git/greet", "03-slow", hard='echo $$ > "$WORLD/check.pid"; exec sleep 30')
    _, out, _ = bench.plan("greet", "--seed", "9", "--no-sandbox")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=dict(greet_files(), **{"03-slow": {"greeting.txt": "Hi!\n"}})))
    worlds = [Path(c["world"]) for c in bench.plan_json(run_dir)["cells"]
              if c["case"] == "03-slow" and c["arm"] == "new"]
    env = dict(os.environ, PYTHONPATH=str(REPO / "benchcore" / "src"))
    proc = subprocess.Popen([sys.executable, "-m", "benchcore", "collect", str(run_dir)], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not [w for w in worlds if (w / "check.pid").is_file() and (w / "check.pid").read_text().strip()]:
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start < 15
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, (proc.returncode, err)
    pids = [int((w / "check.pid").read_text()) for w in worlds if (w / "check.pid").is_file()]
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # killed: left running, it would still be sleeping (its parent gone, init reaps it)
    assert not list(run_dir.glob("cases/03-slow/t*/new/assertions.json"))


def test_one_trial_to_check_runs_in_this_thread(tmp_path, monkeypatch):
    threads = []
    monkeypatch.setattr(gate, "check", lambda *args, **kwargs: threads.append(threading.current_thread()) or ())
    assert gate.check_all(SimpleNamespace(), [("case", tmp_path, tmp_path, "sha")]) == [()]
    assert gate.check_all(SimpleNamespace(), []) == []
    assert threads == [threading.main_thread()]
