"""Issue 12, the last reproductions of item 10 and items 7 and 8 made sure of: a named pipe among the
transcripts, transcript copies that must be byte-exact, concurrent collects on one run, the next: line of a
collect over several runs, a forged results.json beside the leaderboard, a plan stopped by SIGTERM, and a
render killed between its renames. Each is tried where a user meets it: exit codes, what is printed, the
files on disk, results.json and the pages."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchcore.harness.store import files
from standin import repo as R
from standin.agent import Script
from test_attacks import small_repo
from processes import until_none_runs
from test_e2e_benchmark import Bench, next_script
from places import BENCHCORE, REPO

SRC = BENCHCORE / "src"
FIXTURES = REPO / "checks" / "fixtures" / "benchmark-core"


def benchcore(tmp_path: Path, *argv: str, cwd: Path, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    """benchcore in its own process, as a user runs it (a hang fails the test at ``timeout``, not the suite)."""
    env = dict(os.environ, **R.env_for(tmp_path), PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-m", "benchcore", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, **kw)


def ran(tmp_path, monkeypatch, script: Script | None = None) -> tuple[Bench, Path]:
    """The small two-arm run, planned and its arms run by ``script`` (ten cells, one case)."""
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    b.arms(next_script(out), script or Script())
    return b, run_dir


def agent_files(b: Bench) -> list[Path]:
    return sorted((b.config / "projects").rglob("agent-*.jsonl"))


# ----------------------------------------------------------------------------- a named pipe is no transcript


def test_usage_on_a_named_pipe_exits_2_naming_it_without_waiting(tmp_path):
    fifo = tmp_path / "agent-x.jsonl"
    os.mkfifo(fifo)
    proc = benchcore(tmp_path, "usage", str(fifo), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{fifo}: is a named pipe, not a regular file" in proc.stderr and "fix:" in proc.stderr
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    proc = benchcore(tmp_path, "usage", str(link), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and f"{link}: is a named pipe" in proc.stderr


def test_collect_skips_a_named_pipe_among_the_transcripts_and_names_it(tmp_path, monkeypatch):
    b, run_dir = ran(tmp_path, monkeypatch)
    subagents = agent_files(b)[0].parent
    fifo = subagents / "agent-x.jsonl"
    os.mkfifo(fifo)
    proc = benchcore(tmp_path, "collect", str(run_dir), cwd=b.repo, timeout=60)
    assert proc.returncode == 0, proc.stderr  # collect names the next step: never a hang or an error
    assert f"note: skipped {fifo}: it is a named pipe, not a regular file" in proc.stdout
    assert "10/10 cells collected" in proc.stdout
    # A pipe inside the run folder is left out of render's usage, named, and never opened.
    judges = run_dir / "cases/01-hello/t1/judges"
    judges.mkdir(parents=True, exist_ok=True)
    os.mkfifo(judges / "efficacy-1.jsonl")
    proc = benchcore(tmp_path, "render", str(run_dir), cwd=b.repo, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    assert f"{judges / 'efficacy-1.jsonl'}: left out of the usage: it is a named pipe" in proc.stderr


# ----------------------------------------------------------------------------- the run's copy is the bytes


def test_the_runs_copy_of_a_transcript_is_byte_exact(tmp_path, monkeypatch):
    b, run_dir = ran(tmp_path, monkeypatch)
    sources = {}
    for f in agent_files(b):
        data = f.read_bytes()
        # Bytes that are not UTF-8, a blank line and a CRLF line, as a tool result may hold them.
        first, rest = data.split(b"\n", 1)
        data = first + b"\n" + b'{"type":"progress","data":"caf\xe9 \xff\xfe"}\r\n\n' + rest
        f.write_bytes(data)
        sources[f.name] = data
    rc, out, err = b.run("collect", str(run_dir))
    assert "10/10 cells collected" in out, out + err
    copies = sorted(run_dir.glob("cases/*/t*/*/transcript.jsonl"))
    assert len(copies) == 10
    for copy in copies:
        agent = json.loads(copy.read_bytes().split(b"\n", 1)[0])["agentId"]
        assert copy.read_bytes() == sources[f"agent-{agent}.jsonl"]
        assert b"caf\xe9 \xff\xfe" in copy.read_bytes()


# ----------------------------------------------------------------------------- one collect per run at a time


def invalid_run(tmp_path, monkeypatch) -> tuple[Bench, Path]:
    """The small run with every trial invalid (each baseline read plan.json): --rerun re-plans all ten cells."""
    peek = {("01-hello", n, "baseline"): ["cat tests/.reports/runs/*/plan.json"] for n in range(1, 6)}
    return ran(tmp_path, monkeypatch, Script(commands=peek))


def test_three_concurrent_collect_reruns_re_plan_each_cell_once(tmp_path, monkeypatch):
    b, run_dir = invalid_run(tmp_path, monkeypatch)
    env = dict(os.environ, **R.env_for(tmp_path), PYTHONPATH=str(SRC))
    procs = [subprocess.Popen([sys.executable, "-m", "benchcore", "collect", str(run_dir), "--rerun"], cwd=b.repo,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [(p.wait(timeout=180), *p.communicate()) for p in procs]
    for rc, out, err in done:
        # Each one either did the re-plan, found nothing left to re-plan, or was told another collect runs.
        assert rc in (0, 2), (rc, out, err)
        if rc == 2:
            assert f"another benchcore collect is running on {run_dir}" in err and "fix:" in err, err
    assert sum("re-planned 10 cells with fresh worlds" in out for _, out, _ in done) == 1, done
    cells = b.plan_json(run_dir)["cells"]
    assert sorted(c["attempt"] for c in cells) == [2] * 10
    tdirs = sorted((run_dir / "cases/01-hello").glob("t*"))
    assert [sorted(p.name for p in t.glob(".invalid-*")) for t in tdirs] == [[".invalid-1"]] * 5
    worlds = Path(b.plan_json(run_dir)["world_root"])
    assert len([w for w in worlds.iterdir() if not w.name.startswith(".scratch-")]) == 20  # the first ten and one fresh set, not three (each with its scratch folder beside it)


def test_a_second_collect_waits_then_names_the_running_one_and_a_killed_ones_lock_is_taken_over(tmp_path,
                                                                                                 monkeypatch):
    b, run_dir = ran(tmp_path, monkeypatch)
    case = run_dir / "cases/01-hello/case.md"
    fast = case.read_text()
    case.write_text(fast.replace('test -f "$WORLD/greeting.txt"', "sleep 8"))  # five checks, 4 s each
    scratch = tmp_path / "first-tmp"  # the kill -9 below leaves its check's scratch folder: here, not in /tmp
    scratch.mkdir()
    env = dict(os.environ, **R.env_for(tmp_path), PYTHONPATH=str(SRC), TMPDIR=str(scratch))
    first = subprocess.Popen([sys.executable, "-m", "benchcore", "collect", str(run_dir), "--assert-timeout", "4"],
                             cwd=b.repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lock = run_dir / ".collect.lock"
        deadline = time.monotonic() + 60
        while not (lock.is_file() and lock.read_text().strip() == str(first.pid)):
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.1)
        # The second collect, through the same command line in this process, with the wait shortened (10 s,
        # which the test would spend idle): it waits the whole time for the first, then names it.
        monkeypatch.setattr(files, "RUN_LOCK_WAIT", 1.5)
        start = time.monotonic()
        rc, out, err = b.run("collect", str(run_dir))
        assert rc == 2 and out == ""
        assert f"another benchcore collect is running on {run_dir} (pid {first.pid}" in err
        assert "fix: wait for it to finish" in err
        assert time.monotonic() - start >= 1.45  # it waited for the first before giving up
        assert first.poll() is None
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    assert lock.read_text().strip() == str(first.pid)  # what a kill -9 leaves: a lock file naming a dead pid
    case.write_text(fast)
    third = benchcore(tmp_path, "collect", str(run_dir), cwd=b.repo, timeout=120)
    assert third.returncode == 0, third.stderr
    assert "10/10 cells collected" in third.stdout and "another benchcore collect" not in third.stderr
    assert not lock.exists()  # a collect that ends removes its pid file


# ----------------------------------------------------------------------------- next: lines that work


def follow(tmp_path: Path, line: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the benchcore command a next: line names, exactly as printed."""
    command = line[line.index("benchcore "):].split("   (")[0]
    argv = shlex.split(command)
    assert argv[0] == "benchcore"
    return benchcore(tmp_path, *argv[1:], cwd=cwd)


def test_the_next_line_of_a_collect_over_two_runs_is_a_command_that_works(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    for _ in range(2):
        rc, out, err = b.plan("greet", "--seed", "1")
        assert rc == 0, err
        b.arms(next_script(out), Script())
    first, second = b.runs()
    proc = benchcore(tmp_path, "collect", str(first), str(second), cwd=b.repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    nxt = proc.stdout.strip().splitlines()[-1]
    assert nxt.startswith("next: run: benchcore render ")
    rendered = follow(tmp_path, nxt, b.repo)
    assert rendered.returncode in (0, 1), rendered.stderr  # a verdict, not bad input
    assert "error" not in rendered.stderr
    results = json.loads((b.repo / "tests/.reports/greet.results.json").read_text())
    assert results["run_id"] in (first.name, second.name)
    nxt = rendered.stdout.strip().splitlines()[-1]
    assert nxt.startswith("next: benchcore clean ")
    cleaned = follow(tmp_path, nxt, b.repo)
    assert cleaned.returncode == 0, cleaned.stderr
    assert not any(Path(b.plan_json(r)["temp_root"]).exists() for r in (first, second))


# ----------------------------------------------------------------------------- the leaderboard checks what it reads


def _forge(reports: Path, name: str, edit) -> None:
    data = json.loads((reports / "adr-writer.results.json").read_text())
    data["skill"] = name
    edit(data)
    (reports / f"{name}.results.json").write_text(json.dumps(data))


def _row(index: str, skill: str) -> str:
    """The leaderboard row of ``skill``."""
    start = index.index(f">{skill}<")
    return index[index.rindex("<tr", 0, start): index.index("</tr>", start)]


def test_a_forged_results_file_beside_the_leaderboard_is_refused_never_green(tmp_path, capsys):
    from test_attacks import render
    reports = tmp_path / "reports"
    code, _, err = render(capsys, FIXTURES / "two-arm" / "run", "--reports", reports)
    assert code == 0, err

    def passing_with_losses(d, net):
        d["verdicts"]["efficacy"].update(status="pass", net=net)
        for c in d["cases"]:
            c["efficacy"]["outcomes"] = ["LOSS"] * 5
    _forge(reports, "forged-float", lambda d: passing_with_losses(d, -1e40))
    _forge(reports, "forged-int", lambda d: passing_with_losses(d, -10 ** 40))
    _forge(reports, "forged-net", lambda d: d["verdicts"]["efficacy"].update(net=-5))  # trials say +15
    _forge(reports, "forged-nan", lambda d: d["verdicts"]["efficacy"].update(sign_test_p=float("nan")))
    _forge(reports, "forged-field", lambda d: d["verdicts"]["efficacy"].update(trusted=True))
    (reports / "forged-json.results.json").write_text('{"skill": "forged-json", "verdicts": {"efficacy": {"sta')
    code, _, err = render(capsys, FIXTURES / "three-arm" / "run", "--reports", reports)
    assert code == 1  # commit-message's own verdict, unchanged by the files beside it
    index = (reports / "index.html").read_text()
    for name, why in [("forged-float", "expected an integer, got float -1e+40 @ $.verdicts.efficacy.net"),
                      ("forged-int", "case 01-choose-database efficacy counts 5 wins, 0 ties, 0 losses, but its "
                                     "outcomes hold 0, 0, 5"),
                      ("forged-net", "efficacy net is -5, but its trials make it +15"),
                      ("forged-nan", "$.verdicts.efficacy.sign_test_p is nan, not a finite number"),
                      ("forged-field", "$.verdicts.efficacy.trusted is not a field of AxisVerdict"),
                      ("forged-json", "it is not valid JSON")]:
        row = _row(index, name)
        assert 'class="row-refused"' in row and "results refused" in row and "pass" not in row.split("Not shown")[0]
        assert f"Not shown: {name}.results.json was refused (" in row and "render that skill" in row
        assert f"index.html shows {name} as refused: " in err and why in err, (name, err)
    assert "row-green" not in index.replace(_row(index, "adr-writer"), "")
    assert 'class="row-fragile"' in _row(index, "adr-writer")  # the real file beside them still reads as it is
    assert "6 results refused" in index


def test_every_committed_run_reads_back_as_consistent(tmp_path, capsys):
    # The check must refuse no file render writes: each fixture run, and the bundled example.
    from benchcore import serde
    from benchcore.model import SkillResult
    from benchcore.results import check_result
    from test_attacks import render
    for run in [FIXTURES / "two-arm" / "run", FIXTURES / "three-arm" / "run", "--example"]:
        reports = tmp_path / str(run).replace("/", "_")
        code, _, err = render(capsys, *([run] if run == "--example" else [run]), "--reports", reports)
        assert code in (0, 1), err
        [path] = reports.glob("*.results.json")
        data = json.loads(path.read_text())
        assert serde.wire_problems(SkillResult, data) == []
        assert check_result(serde.load(SkillResult, data)) == []


# ----------------------------------------------------------------------------- a plan stopped half-way


def _plan_stopped_by(tmp_path, monkeypatch, signum) -> tuple[Bench, Path, subprocess.CompletedProcess]:
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    case = b.repo / "tests/text/greet/01-hello/case.md"
    # Each world's setup takes two seconds in a subshell that, were it left running, would write into its
    # world after plan removed it, making a folder no tag names (what nothing could clean).
    case.write_text(case.read_text().replace(
        "description:", 'setup: touch setup-ran; (sleep 2; mkdir -p "$WORLD/late"); true\ndescription:', 1))
    temp = tmp_path / "t"
    env = dict(os.environ, **R.env_for(tmp_path), PYTHONPATH=str(SRC))
    proc = subprocess.Popen([sys.executable, "-m", "benchcore", "plan", "greet", "--seed", "1", "--temp-dir", str(temp)],
                            cwd=b.repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(temp.glob("benchcore-*/worlds/*/setup-ran")):  # mid-plan: a world is made, others are not
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    until_none_runs(3, under=temp)  # what a setup's subshell would write, it has written by now
    return b, temp, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_sigterm_during_plan_removes_everything_it_made(tmp_path, monkeypatch):
    b, temp, proc = _plan_stopped_by(tmp_path, monkeypatch, signal.SIGTERM)
    assert proc.returncode not in (0, 1, 2), proc  # stopped: not a plan, not a verdict, not bad input
    assert "Traceback" not in proc.stderr and "interrupted" in proc.stderr
    # No temp root, no world, nothing a setup's children wrote later: nothing clean would have to find.
    assert [str(p.relative_to(temp)) for p in temp.rglob("*")] == []
    runs = b.repo / "tests/.reports/runs"
    assert not runs.exists() or list(runs.iterdir()) == []


def test_sigint_during_plan_removes_everything_it_made(tmp_path, monkeypatch):
    b, temp, proc = _plan_stopped_by(tmp_path, monkeypatch, signal.SIGINT)
    assert proc.returncode == 130 and "interrupted" in proc.stderr
    assert list(temp.iterdir()) == []


# ----------------------------------------------------------------------------- clean and plan: bad paths


def _one_error(err: str, command: str, path: Path) -> None:
    """One error naming the path, then its fix; no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in err, err
    assert lines[0].startswith(f"benchcore {command}: error: {path}: ") and lines[1].startswith("  fix: "), err


def test_clean_with_a_linked_temp_root_is_one_error_naming_it_and_removes_nothing(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    rc, out, err = b.plan("greet", "--seed", "1")
    [run_dir] = b.runs()
    plan = b.plan_json(run_dir)
    real = Path(plan["temp_root"])
    a_file = tmp_path / "a-file"
    a_file.write_text("keep")
    for target in (real, a_file, tmp_path / "nowhere"):
        link = real.with_name(f"{real.name}-to-{target.name}")
        link.symlink_to(target)
        (run_dir / "plan.json").write_text(json.dumps(dict(plan, temp_root=str(link))))
        rc, out, err = b.run("clean", str(run_dir))
        assert rc == 2 and out == ""
        _one_error(err, "clean", link)
        assert "nothing was removed" in err and "plan.json's temp_root" in err
        assert link.is_symlink() and real.is_dir() and a_file.read_text() == "keep"
    assert len([w for w in (real / "worlds").iterdir() if not w.name.startswith(".scratch-")]) == 10


def test_plan_with_a_temp_dir_that_is_no_folder_is_one_error_naming_it(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    link = tmp_path / "link-to-file"
    link.symlink_to(a_file)
    for temp_dir, named in ((a_file, a_file), (a_file / "sub", a_file / "sub"), (link, a_file)):
        rc, out, err = b.run("plan", "greet", "--seed", "1", "--temp-dir", str(temp_dir))
        assert rc == 2 and out == ""
        _one_error(err, "plan", named)
        assert "--temp-dir" in err
    runs = b.repo / "tests/.reports/runs"
    assert not runs.exists() or list(runs.iterdir()) == []
    assert a_file.read_text() == "x"


# ----------------------------------------------------------------------------- render killed between renames

KILL_AFTER = """
import os, signal, sys
from benchcore.cli import main
real, done = os.replace, [0]
def replace(src, dst, *a, **k):
    if done[0] == int(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)  # kill -9 between two renames
    done[0] += 1
    return real(src, dst, *a, **k)
os.replace = replace
sys.exit(main(["render", *sys.argv[2:]]))
"""


def _runs_for_history(tmp_path: Path) -> tuple[Path, Path, Path]:
    import shutil
    older, newer = tmp_path / "runs" / "older", tmp_path / "runs" / "newer"
    shutil.copytree(FIXTURES / "two-arm" / "run", older)
    shutil.copytree(FIXTURES / "two-arm" / "run", newer)
    info = json.loads((newer / "run.json").read_text())
    info["run_id"], info["started_at"] = "20991231T235959Z-beef", "2099-12-31T23:59:59Z"
    (newer / "run.json").write_text(json.dumps(info))
    return older, newer, tmp_path / "reports"


@pytest.mark.parametrize("renames", [0, 1, 2, 3, 4])
def test_a_render_killed_between_its_renames_loses_no_history_line_and_the_next_cleans_up(tmp_path, capsys, renames):
    from test_attacks import render
    older, newer, reports = _runs_for_history(tmp_path)
    assert render(capsys, older, "--reports", reports)[0] == 0
    history = reports / "adr-writer.history.jsonl"
    good = history.read_text().splitlines()
    corrupt = '{"run_id": "half-written'
    history.write_text(history.read_text() + corrupt + "\n")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER, str(renames), str(newer), "--reports", str(reports)],
                          env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    kept = reports / "adr-writer.history.corrupt.jsonl"
    lines = history.read_text().splitlines() + (kept.read_text().splitlines() if kept.exists() else [])
    assert all(line in lines for line in good + [corrupt])  # the kill lost no line, good or corrupt
    assert list(reports.glob(".*.tmp"))  # what the killed render had staged and not renamed yet
    code, out, err = render(capsys, newer, "--reports", reports)
    assert code == 0, err
    assert not list(reports.glob(".*.tmp"))
    entries = [json.loads(l)["run_id"] for l in history.read_text().splitlines()]
    assert entries == [json.loads(good[0])["run_id"], "20991231T235959Z-beef"]
    assert kept.read_text() == corrupt + "\n"  # kept once, however many renders saw it
    assert json.loads((reports / "adr-writer.results.json").read_text())["run_id"] == "20991231T235959Z-beef"
