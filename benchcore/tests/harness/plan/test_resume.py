"""Resume: typing the command again after a refused, cancelled or interrupted fan-out continues the same run;
`benchcore clean` without a run folder finds the runs left for good and removes only their temp worlds.

Played with the stand-in (tests/standin) through the e2e Bench helper: plan, launch part of the arms, plan again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from standin import repo as R
from standin.agent import Script, read_bound, run_tasks
from test_e2e_benchmark import CASE1, GREET, bench, greet_files, next_script  # noqa: F401 - bench is a fixture
from places import REPO

HINT = "If a launch is refused or interrupted, type /benchmark-skill greet again to continue this run."


def a_new_second() -> None:
    """Wait for the clock's next whole second: a run planned after this sorts after every run planned before it
    (run ids and ``planned`` are to the second)."""
    now = time.time()
    time.sleep(int(now) + 1 - now + 0.01)


def _worlds(script: Path) -> set[str]:
    return {t["id"] for t in read_bound(script)["tasks"]}


def test_plan_again_after_a_refused_then_an_interrupted_fanout_continues_the_same_run(bench):
    rc, out, _ = bench.plan("greet", "--seed", "9", resume=True)
    [run_dir] = bench.runs()
    assert rc == 0 and out.strip().splitlines()[-2] == HINT  # said before the first launch
    first = next_script(out)
    assert len(_worlds(first)) == 30

    # The Workflow dialog answered No: nothing ran. The user types the command again.
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == [run_dir], out
    plan = bench.plan_json(run_dir)
    assert f"resuming run {plan['run_id']} (planned {plan['planned_at']}): 0 of 30 cells collected, 0 of 0 packets judged" in out
    assert out.strip().splitlines()[-2] == HINT
    assert _worlds(next_script(out)) == _worlds(first)
    assert out.strip().splitlines()[-1].startswith("next: launch the arm cells that have not run with Workflow {")

    # Interrupted half-way: 15 of the 30 cells ran.
    script = Script(files=greet_files())
    tasks = read_bound(next_script(out))["tasks"]
    run_tasks("Arms", tasks[:15], bench.config, script, bench.repo)
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == [run_dir]
    assert "15 of 30 cells collected" in out and "still to launch: 15 cells" in out
    rest = next_script(out)
    assert _worlds(rest) == {t["id"] for t in tasks[15:]}  # only what is missing is launched
    bench.arms(rest, script)

    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected; 0/20 packets judged" in out  # work remains: still exit 0
    assert out.strip().splitlines()[-2] == HINT and "next: launch one fresh judge per packet" in out
    # The judges' launch is refused too: the command again resumes at the judges.
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and "30 of 30 cells collected, 0 of 20 packets judged" in out
    assert "next: launch one fresh judge per packet with Workflow {" in out and bench.runs() == [run_dir]
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and out.strip().splitlines()[-1] == f"next: run: benchcore render {run_dir.relative_to(bench.repo)}"
    assert HINT not in out  # nothing is launched any more
    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    assert rc == 0 and results["verdicts"]["efficacy"]["status"] == "pass"
    assert all(len(trial) == 1 for trial in _arm_transcripts(run_dir).values())  # no cell ran twice

    # Rendered: the command again plans a new run (a rendered run is never continued).
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 2 and "resuming" not in out


def _arm_transcripts(run_dir: Path) -> dict[str, list[Path]]:
    cells: dict[str, list[Path]] = {}
    for p in run_dir.glob("cases/*/t*/*/transcript.jsonl"):
        cells.setdefault(str(p.parent), []).append(p)
    return cells


def test_a_run_whose_skill_changed_is_not_resumed_and_clean_removes_it(bench):
    rc, out, _ = bench.plan("greet", "--seed", "9", resume=True)
    [old] = bench.runs()
    old_temp = Path(bench.plan_json(old)["temp_root"])
    a_new_second()
    R.write(bench.repo / "skills" / GREET / "SKILL.md", "---\nname: greet\ndescription: greets\n---\nEdited again.\n")
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 2, out
    old_id = bench.plan_json(old)["run_id"]
    assert (f"note: run {old_id} (planned " in out and f"was not resumed: the skill folder skills/{GREET} changed "
            "since it was planned; a new run is planned ('benchcore clean' removes the old run's worlds)" in out)
    new = bench.runs()[1]
    new_temp = Path(bench.plan_json(new)["temp_root"])

    # --fresh: a new run even though the newest one could be resumed (a second later: runs are ordered by the
    # second they were planned in).
    a_new_second()
    rc, out, _ = bench.plan("greet", "--fresh", resume=True)
    assert rc == 0 and len(bench.runs()) == 3 and "resuming" not in out and "not resumed" not in out
    newest = bench.runs()[2]

    rc, out, _ = bench.run("clean", "--dry-run")
    assert rc == 0 and f"stale: {old.relative_to(bench.repo)} (unfinished, and a newer run of greet was planned" in out
    assert f"would remove: {old_temp}" in out and f"stale: {new.relative_to(bench.repo)}" in out
    assert old_temp.is_dir() and new_temp.is_dir()  # only listed
    rc, out, _ = bench.run("clean")
    assert rc == 0 and f"removed: {old_temp}" in out
    assert f"unfinished: {newest.relative_to(bench.repo)} (greet; planned " in out
    assert out.strip().endswith("next: nothing; to give up that run now: benchcore clean --stale --older-than 0 "
                                "(or benchcore clean <run-dir>)")
    assert not old_temp.exists() and not new_temp.exists()
    assert Path(bench.plan_json(newest)["temp_root"]).is_dir()  # the newest run can still be resumed: kept
    assert (old / "plan.json").is_file() and (old / "run.json").is_file()  # results and plan stay
    rc, out, _ = bench.run("clean", "--stale")
    assert rc == 0 and "no stale runs" in out


def test_clean_stale_by_age_and_never_an_untagged_folder(bench):
    bench.plan("greet", "--seed", "9", resume=True)
    [run_dir] = bench.runs()
    temp = Path(bench.plan_json(run_dir)["temp_root"])
    rc, out, _ = bench.run("clean", "--stale")
    assert rc == 0 and "no stale runs" in out and temp.is_dir()  # just planned: it can be resumed
    # Its tag replaced (not benchcore's any more): never listed, never removed.
    tag = temp / ".benchcore-temp-root"
    saved = tag.read_text()
    tag.write_text("someone-else\n")
    rc, out, _ = bench.run("clean", "--older-than", "0")
    assert rc == 0 and "no stale runs" in out and temp.is_dir()
    tag.write_text(saved)
    rc, out, _ = bench.run("clean", "--older-than", "0", "--json")
    [entry] = json.loads(out)["stale"]
    assert rc == 0 and entry["removed"] is True and entry["why"].startswith("unfinished, planned ")
    assert not temp.exists() and (run_dir / "plan.json").is_file()
    rc, out, err = bench.run("clean", str(run_dir), "--stale")
    assert rc == 2 and "not both" in err
    rc, out, err = bench.run("clean", "--older-than", "nan")
    assert rc == 2 and "--older-than" in err
    # Its worlds gone: the command again plans afresh.
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 2 and "resuming" not in out


def test_the_resume_line_names_the_command_the_session_ran(bench, monkeypatch, tmp_path):
    rc, out, _ = bench.plan("greet", "--invoked-as", "/benchmark-skill:benchmark-skill", resume=True)
    hint = "type /benchmark-skill:benchmark-skill greet again to continue this run."
    assert rc == 0 and hint in out
    [run_dir] = bench.runs()
    assert bench.plan_json(run_dir)["resume_command"] == "/benchmark-skill:benchmark-skill greet"
    # collect names the command recorded by plan.
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and hint in out and "not run yet" in out
    # Without --invoked-as: the wrapper's skill folder in Claude Code's plugin cache gives /<plugin>:<skill>.
    plugin = tmp_path / "plugins" / "cache" / "market" / "benchkit" / "0.1.0"
    R.write(plugin / ".claude-plugin" / "plugin.json", json.dumps({"name": "benchkit"}))
    skill = REPO / "skills" / "benchmark-skill"
    (plugin / "skills").mkdir(parents=True)
    (plugin / "skills" / "benchmark-skill").symlink_to(skill)
    monkeypatch.setenv("BENCHMARK_SKILL_DIR", str(plugin / "skills" / "benchmark-skill"))
    rc, out, _ = bench.plan("greet", "--json", resume=True)
    data = json.loads(out)
    assert rc == 0 and data["resumed"] == [str(run_dir)]
    assert data["resume_hint"] == ("If a launch is refused or interrupted, type /benchkit:benchmark-skill greet "
                                   "again to continue this run.")


def test_a_moved_default_branch_or_an_edited_case_plans_afresh(bench):
    bench.plan("greet", "--seed", "9", resume=True)
    [first] = bench.runs()
    # An unrelated commit on the default branch: the previous version could differ, so the run is not continued.
    R.write(bench.repo / "docs.txt", "a note\n")
    R.git(bench.repo, "add", "docs.txt")
    R.git(bench.repo, "commit", "-q", "-m", "docs")
    R.git(bench.repo, "push", "-q", "origin", "trunk")
    R.git(bench.repo, "fetch", "-q", "origin")
    a_new_second()
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 2 and "was not resumed: the default branch trunk moved" in out, out
    second = bench.runs()[1]
    # The same command again: the new run is continued.
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 2 and f"resuming run {second.name}" in out
    # An edited case: planned afresh.
    R.case(bench.repo, GREET, CASE1, prompt="Write a warm greeting into greeting.txt.")
    a_new_second()
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 3 and "was not resumed: the cases of greet changed" in out, out
    # A different seed asked for: planned afresh, and the reason says so.
    a_new_second()
    rc, out, _ = bench.plan("greet", "--seed", "5", resume=True)
    assert rc == 0 and len(bench.runs()) == 4 and "--seed 5 asks for another" in out


def test_a_cut_off_arm_is_named_and_resume_gives_collects_own_next_step(bench):
    # Interrupted while an arm was mid-way: its transcript stops after the prompt. Resuming cannot tell a cut-off
    # arm from a running one, so it says what collect says (wait, or re-run it in a fresh world).
    _, out, _ = bench.plan("greet", "--seed", "9", resume=True)
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    world = next(c["world"] for c in bench.plan_json(run_dir)["cells"] if c["id"] == f"{CASE1}/t2/new")
    cut = next(p for p in (bench.config / "projects").rglob("*.jsonl") if world in p.read_text().splitlines()[0])
    cut.write_text(cut.read_text().splitlines()[0] + "\n")
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == [run_dir] and "29 of 30 cells collected" in out
    assert "still running or cut off: 1 cells" in out
    assert out.strip().splitlines()[-1].startswith("next: if the arms are still running, wait for them to finish")
    assert f"benchcore collect {run_dir.relative_to(bench.repo)} --rerun" in out


def test_the_runs_planned_together_are_resumed_together(bench):
    # One run per model, planned by one command: typed again, both continue; fewer models plan afresh.
    yaml = bench.repo / "tests" / GREET / "benchmark.yaml"
    R.write(yaml, "models: [claude-haiku-4-5, claude-opus-4-6]\n")
    rc, out, err = bench.plan("greet", "--seed", "11", resume=True)
    assert rc == 0, err
    runs = bench.runs()
    assert len(runs) == 2 and [set(bench.plan_json(r)["group"]) for r in runs] == [{r.name for r in runs}] * 2
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and bench.runs() == runs
    assert all(f"resuming run {r.name} (planned " in out for r in runs)
    assert all(str(r.relative_to(bench.repo)) in out.strip().splitlines()[-1] for r in runs)  # one collect of both
    assert len(read_bound(next_script(out))["tasks"]) == 60
    a_new_second()
    R.write(yaml, "models: [claude-haiku-4-5]\n")
    rc, out, _ = bench.plan("greet", resume=True)
    assert rc == 0 and len(bench.runs()) == 3
    assert ("was not resumed: it was planned for greet on claude-haiku-4-5, greet on claude-opus-4-6, and this "
            "command asks for greet on claude-haiku-4-5" in out)
