"""End to end: plan -> stand-in arms -> collect -> stand-in judges -> collect -> render -> clean.

Each test builds a temp git repository with skills and cases, runs the real
``benchcore`` commands in process, and plays Claude Code with the scripted
stand-in agent (tests/standin), which writes transcripts in Claude Code's
on-disk format into a temp ``CLAUDE_CONFIG_DIR``.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest

from benchcore.cli import main
from standin import repo as R
from standin.agent import Script, read_bound, run_script, run_tasks

GREET = "git/greet"
CASE1, CASE2 = "01-hello", "02-seeded"


class Bench:
    """Runs benchcore commands in a repo the way the protocol does, recording what they print."""

    def __init__(self, tmp: Path, monkeypatch):
        self.repo, self.tmp = tmp / "repo", tmp
        self.config = tmp / "claude"
        for k, v in R.env_for(tmp).items():
            monkeypatch.setenv(k, v)
        self.repo.mkdir(parents=True)
        monkeypatch.chdir(self.repo)
        self.printed: list[tuple[str, int]] = []  # (command, bytes printed)
        self._seen: list[Path] = []

    def run(self, *argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(argv))
        self.printed.append((" ".join(argv), len(out.getvalue().encode()) + len(err.getvalue().encode())))
        return rc, out.getvalue(), err.getvalue()

    def plan(self, *args: str, resume: bool = False) -> tuple[int, str, str]:
        """Plan (always a new run unless ``resume``: planning again would otherwise continue the last one)."""
        runs = self.repo / "tests/.reports/runs"
        if runs.is_dir():
            self.runs()  # what exists is older than what this plan makes
        result = self.run("plan", *args, *(() if resume else ("--fresh",)), "--temp-dir", str(self.tmp / "t"))
        if runs.is_dir():
            self.runs()
        return result

    def plan_json(self, run_dir: Path) -> dict:
        return json.loads((run_dir / "plan.json").read_text())

    def runs(self) -> list[Path]:
        """The run directories, oldest first: in the order this bench first saw them (two runs planned in the
        same second have ids that sort by their random suffix, not by when they were planned)."""
        now = sorted(p for p in (self.repo / "tests/.reports/runs").iterdir() if (p / "plan.json").is_file())
        self._seen.extend(p for p in now if p not in self._seen)
        return [p for p in self._seen if p in now]

    def arms(self, script_path: Path, script: Script) -> None:
        run_script(script_path, self.config, script, self.repo)

    def judges(self, run_dir: Path, script: Script) -> None:
        run_script(run_dir / "workflows/judges/bench-fanout.js", self.config, script, self.repo)


def next_script(out: str) -> Path:
    """The bound workflow script the command's last line names."""
    last = out.strip().splitlines()[-1]
    start = last.index('{"scriptPath": ')
    return Path(json.JSONDecoder().raw_decode(last[start:])[0]["scriptPath"])


def next_scripts(out: str) -> list[Path]:
    """Every bound workflow script the command's last line names, in order."""
    last = out.strip().splitlines()[-1]
    found, i = [], last.find('{"scriptPath": ')
    while i >= 0:
        obj, end = json.JSONDecoder().raw_decode(last[i:])
        found.append(Path(obj["scriptPath"]))
        i = last.find('{"scriptPath": ', i + end)
    return found


SETUP = "git init -q . && echo built > built.txt"
_GREET_REPOS: dict[tuple, Path] = {}  # (branch, remote, setup) -> the folder holding repo/ and origin.git/


def greet_repo(tmp: Path, branch: str = "trunk", remote: bool = True, setup: bool = False) -> Path:
    """A repo whose default branch is not main: greet is released there, then edited in the working tree.

    ``setup``: CASE2 has a ``setup:`` (SETUP), run in each of its worlds. Off unless a test is about setups: each
    run starts a sandbox (a bwrap, a bash and a git) per world, 15 worlds a plan, over a hundred plans a loop.

    Built once per worker and shape with git (about 15 git processes), then copied for each test, its origin's
    path in .git/config changed to the copy's (the only absolute path the repository holds)."""
    key = (branch, remote, setup)
    if key not in _GREET_REPOS:
        top = Path(tempfile.mkdtemp(prefix="greet-repo-"))
        atexit.register(shutil.rmtree, top, True)
        # git's own isolated config and identity, whichever test (with whatever environment) builds it first
        with mock.patch.dict(os.environ, R.isolate_git(top / "home")):
            _build_greet_repo(top, branch, remote, setup)
        _GREET_REPOS[key] = top
    top = _GREET_REPOS[key]
    repo = tmp / "repo"
    shutil.copytree(top / "repo", repo, symlinks=True, dirs_exist_ok=True)  # Bench made it (the cwd)
    if remote:
        shutil.copytree(top / "origin.git", tmp / "origin.git", symlinks=True)
        config = repo / ".git" / "config"
        text = config.read_text()
        assert str(top / "origin.git") in text, text
        config.write_text(text.replace(str(top / "origin.git"), str(tmp / "origin.git")))
    return repo


def _build_greet_repo(tmp: Path, branch: str, remote: bool, setup: bool) -> Path:
    repo = tmp / "repo"
    R.init(repo, branch)
    R.skill(repo, GREET, "Greet the reader by name.")
    R.write(repo / "skills" / GREET / "notes.md", "released notes\n")
    R.case(repo, GREET, CASE1)
    R.case(repo, GREET, CASE2, fixture=False, hard=None, setup=SETUP if setup else None,
           seed="**User:** Hi, I am Ada.\n**Assistant:** Hello Ada, what can I do?")
    R.skill(repo, "docs/untested")
    R.commit_all(repo, "release greet")
    if remote:
        R.add_remote_head(repo, tmp / "origin.git", branch)
    # Uncommitted edit and untracked file: both must reach the new copy only.
    R.skill(repo, GREET, "Greet the reader by name, warmly.")
    R.write(repo / "skills" / GREET / "untracked.md", "new guidance\n")
    return repo


def greet_files() -> dict:
    return {CASE1: {"greeting.txt": "Hello, reader!\n"}, CASE2: {"greeting.txt": "Hello, Ada!\n"}}


@pytest.fixture
def bench(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    return b


@pytest.fixture
def bench_setup(tmp_path, monkeypatch):
    """``bench`` whose CASE2 worlds are built by a setup (greet_repo's ``setup``)."""
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path, setup=True)
    return b


# ----------------------------------------------------------------------------- plan: shapes and copies


def test_edited_released_skill_gives_three_arms_and_edits_reach_only_new(bench):
    rc, out, err = bench.plan("greet", "--seed", "42")
    assert rc == 0, err
    assert "greet: three-arm (new, baseline, previous) - edited released skill" in out
    assert "default branch trunk" in out
    [run_dir] = bench.runs()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["shape"] == "three-arm" and run["arms"] == ["new", "baseline", "previous"]
    assert run["comparisons"] == {"efficacy": ["new", "baseline"], "regression": ["new", "previous"]}
    assert run["default_branch"]["name"] == "trunk"
    assert run["default_branch"]["commit"] == R.git(bench.repo, "rev-parse", "origin/trunk").strip()
    assert run["temperature"] == {"requested": 1.0, "applied": "session default"}
    assert run["seed"] == 42 and run["cases"] == [CASE1, CASE2]
    plan = bench.plan_json(run_dir)
    assert len(plan["cells"]) == 2 * 5 * 3
    new, prev = Path(plan["skill_copies"]["new"]), Path(plan["skill_copies"]["previous"])
    assert "warmly" in (new / "SKILL.md").read_text()
    assert (new / "untracked.md").read_text() == "new guidance\n"
    assert "warmly" not in (prev / "SKILL.md").read_text()
    assert not (prev / "untracked.md").exists()
    assert (prev / "notes.md").read_text() == (new / "notes.md").read_text() == "released notes\n"
    assert (run_dir / "cases" / CASE1 / "case.md").read_text() == (bench.repo / "tests" / GREET / CASE1 / "case.md").read_text()


def test_prompts_are_identical_across_arms_behind_the_arm_preamble(bench):
    _, out, _ = bench.plan("greet", "--seed", "1")
    plan = bench.plan_json(bench.runs()[0])
    # The bound workflow script launches exactly plan.json's cells, with the baseline's agent type.
    bound = read_bound(next_script(out))
    assert bound["phase"] == "Arms"
    assert [(t["id"], t["prompt"]) for t in bound["tasks"]] == [(c["id"], c["prompt"]) for c in plan["cells"]]
    cells = {c["id"]: c for c in plan["cells"]}
    new, base, prev = (cells[f"{CASE2}/t1/{a}"] for a in ("new", "baseline", "previous"))
    for c in (new, base, prev):
        assert c["world"] in c["prompt"]
        # The seed comes as prior turns, then the case's prompt closes the text.
        assert c["prompt"].endswith("The user's next message:\n\nWrite a greeting into greeting.txt.\n")
        assert "**User:** Hi, I am Ada." in c["prompt"]
    assert f"Use the skill at {new['skill_dir']} for this task" in new["prompt"]
    assert f"Use the skill at {prev['skill_dir']} for this task" in prev["prompt"]
    assert new["prompt"].replace(new["world"], "W").replace(new["skill_dir"], "S") == \
        prev["prompt"].replace(prev["world"], "W").replace(prev["skill_dir"], "S")
    assert base["skill_dir"] is None and "skill" not in base["prompt"].lower()
    assert "SKILL.md" not in base["prompt"]


def test_new_and_unchanged_skills_give_two_arms_and_say_why(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    repo = b.repo
    R.init(repo, "main")
    R.skill(repo, "docs/stable")
    R.case(repo, "docs/stable", "01-a")
    R.commit_all(repo)
    R.skill(repo, "docs/fresh")  # never committed
    R.case(repo, "docs/fresh", "01-a")
    rc, out, err = b.plan("stable", "fresh", "--seed", "3")
    assert rc == 0, err
    assert "stable: two-arm (new, baseline) - unchanged: skills/docs/stable is the same as on the default branch main" in out
    assert "fresh: two-arm (new, baseline) - new skill: skills/docs/fresh is not on the default branch main" in out
    for run_dir in b.runs():
        run = json.loads((run_dir / "run.json").read_text())
        assert run["shape"] == "two-arm" and run["arms"] == ["new", "baseline"]
        assert list(run["comparisons"]) == ["efficacy"]
        plan = b.plan_json(run_dir)
        assert {c["arm"] for c in plan["cells"]} == {"new", "baseline"} and len(plan["cells"]) == 10
        assert "previous" not in plan["skill_copies"]


def test_worlds_are_fresh_per_cell_and_outside_the_repo(bench_setup):
    bench = bench_setup
    bench.plan("greet", "--seed", "5")
    plan = bench.plan_json(bench.runs()[0])
    worlds = [Path(c["world"]) for c in plan["cells"]]
    assert len(set(worlds)) == len(worlds) == 30
    for c in plan["cells"]:
        w = Path(c["world"])
        assert w.is_dir() and not w.is_relative_to(bench.repo)
        assert w.is_relative_to(Path(plan["temp_root"]))
        assert c["arm"] not in w.name  # the world's name does not tell the arm
        # Bug: worlds sat under <case-id>/t<N>-..., so every arm read the case's id (what it tests) in its prompt.
        assert c["case"] not in c["world"] and f"/t{c['trial']}" not in c["world"]
        if c["case"] == CASE1:
            assert (w / "README.md").read_text() == "fixture of 01-hello\n"
        else:  # the setup command ran once in each world
            assert (w / "built.txt").read_text() == "built\n" and (w / ".git").is_dir()
    for copy in plan["skill_copies"].values():
        assert not Path(copy).is_relative_to(bench.repo)


def test_judge_orders_come_from_the_seed_and_the_outputs_and_are_drawn_only_once_both_exist(bench, tmp_path):
    # Bug: orders were drawn at plan time into plan.json, where an arm could read its letter (issue 11).
    outputs = lambda case, trial, arm, world: f"Greeting written by the {arm} arm ({case} t{trial})."
    orders = {}
    for seed in ("11", "11", "12"):
        _, out, _ = bench.plan("greet", "--seed", seed)
        run_dir = bench.runs()[-1]
        assert bench.plan_json(run_dir)["orders"] == {} and bench.plan_json(run_dir)["order_rule"] == "outputs"
        bench.arms(next_script(out), Script(files=greet_files(), output=outputs))
        bench.run("collect", str(run_dir))
        orders.setdefault(seed, []).append(bench.plan_json(run_dir)["orders"])
    (a, b), (c,) = orders["11"], orders["12"]
    assert len(a) == 2 * 5 * 2
    assert a == b and a != c
    assert {o["A"] for o in a.values()} == {"new", "baseline", "previous"}


# ----------------------------------------------------------------------------- the whole protocol


def regression_script(case: str, trial: int, comp: str, rnd: int) -> str:
    if comp == "efficacy":
        return "LOSS" if (case, trial) == (CASE2, 5) else "WIN"
    return "LOSS" if (case, trial) == (CASE1, 1) else "TIE"


def test_plan_arms_collect_judges_collect_render_clean(bench):
    rc, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    script = Script(files=greet_files(), verdict=regression_script, nested={(CASE1, 1, "new")},
                    answer_style=lambda c, t, comp, r: ("json", "fenced", "structured", "journal")[t % 4])
    bench.arms(next_script(out), script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected; 0/20 packets judged" in out
    # None judged and too many to name: "0/20 packets judged" says it, with no line listing them.
    assert "packets with no answer" not in out and "next: launch one fresh judge per packet with Workflow" in out
    t1 = run_dir / "cases" / CASE1 / "t1"
    for arm in ("new", "baseline", "previous"):
        assert (t1 / arm / "output.md").read_text().startswith(f"Done [{arm}-arm] for {CASE1} t1.")
        assert (t1 / arm / "transcript.jsonl").is_file()
    # The subagent the new arm launched itself is copied with it (its tokens are the arm's cost).
    assert len(list((t1 / "new" / "subagents").glob("agent-*.jsonl"))) == 1
    assert json.loads((t1 / "new" / "assertions.json").read_text())[0]["exit"] == 0
    assert json.loads((t1 / "audit.json").read_text()) == {"invalid": False, "problems": []}
    packet = (t1 / "efficacy.packet.md").read_text()
    plan = bench.plan_json(run_dir)
    worlds = [c["world"] for c in plan["cells"]]
    assert not any(w in packet for w in worlds) and "$WORLD" in packet  # paths redacted: blind
    order = plan["orders"][f"{CASE1}/t1/efficacy"]
    assert packet.index(f"[{order['A']}-arm]") < packet.index("## Output B") < packet.index(f"[{order['B']}-arm]")
    assert "Discount length and formatting" in packet and "- It is polite." in packet
    run = json.loads((run_dir / "run.json").read_text())
    assert run["resolved_models"] == {"baseline": ["claude-opus-5-5"], "new": ["claude-opus-5-5"],
                                      "previous": ["claude-opus-5-5"]}
    # The agent types each arm really ran as, from Claude Code's .meta.json files (in both of the layouts the
    # stand-in alternates, Workflow and Agent tool): the bench-arm this repository installs, for every arm.
    assert run["agent_types"] == {arm: ["bench-arm"] for arm in ("baseline", "new", "previous")}

    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "20/20 packets judged" in out and "next: run: benchcore render" in out
    eff = json.loads((t1 / "efficacy.json").read_text())
    assert eff["order"] == order and len(eff["judgments"]) == 1
    assert eff["judgments"][0]["verdict"] == next(k for k, v in order.items() if v == "new")

    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    assert results["verdicts"]["efficacy"]["status"] == "pass"
    assert results["verdicts"]["regression"]["status"] == "pass"
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[CASE1]["efficacy"]["outcomes"] == ["WIN"] * 5
    assert cases[CASE2]["efficacy"]["outcomes"] == ["WIN"] * 4 + ["LOSS"]
    assert cases[CASE1]["regression"]["outcomes"] == ["LOSS"] + ["TIE"] * 4
    assert cases[CASE1]["regression"]["flagged"] is True
    assert results["verdicts"]["efficacy"]["net"] == 10 - 2
    assert rc == 0 and "benchcore clean" in out

    temp_root = Path(plan["temp_root"])
    assert temp_root.is_dir()
    rc, out, _ = bench.run("clean", str(run_dir))
    assert rc == 0 and not temp_root.exists()
    assert (run_dir / "plan.json").is_file() and (bench.repo / "tests/.reports/greet.html").is_file()
    assert (bench.tmp / "t").is_dir()  # only the run's own temp root went
    rc, out, _ = bench.run("clean", str(run_dir))
    assert rc == 0 and "already gone" in out


def test_collect_is_safe_to_run_again(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    snapshot = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    mtimes = {p: p.stat().st_mtime_ns for p in snapshot}
    rc, out2, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    after = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    assert after == snapshot
    assert all(p.stat().st_mtime_ns == mtimes[p] for p in snapshot)


@pytest.mark.parametrize("what", ["cell-folder", "transcript-copy"])
def test_a_file_collect_cannot_write_is_named_with_the_fix_and_the_next_collect_makes_it(bench, what):
    # A file in a cell's folder that cannot be written (a full disk; here something in the way) stops collect
    # with the path and the fix, exit 2, before plan.json lists anything; once the path is free, collect again
    # makes every copy. "transcript-copy": the copy of the arm's transcript, which collect writes in a second
    # thread (a non-empty folder where it goes), so the error comes from that thread.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    plan_before = (run_dir / "plan.json").read_bytes()
    cdir = run_dir / "cases" / CASE1 / "t2" / "new"
    if what == "cell-folder":
        cdir.parent.mkdir(parents=True, exist_ok=True)
        cdir.write_text("in the way\n")
        blocked = cdir
    else:
        blocked = cdir / "transcript.jsonl"
        (blocked / "in-the-way").mkdir(parents=True)
    rc, _, err = bench.run("collect", str(run_dir))
    assert rc == 2, err
    assert f"{blocked}" in err and "collect cannot write this file of the run folder" in err, err
    assert "fix: free space on that disk or make the run folder writable" in err
    assert (run_dir / "plan.json").read_bytes() == plan_before
    if what == "cell-folder":
        blocked.unlink()
    else:
        shutil.rmtree(blocked)
        assert not [p.name for p in cdir.iterdir() if p.name.endswith(".tmp")]  # no temp file left
    rc, _, err = bench.run("collect", str(run_dir))
    assert rc in (0, 1), err
    cells = bench.plan_json(run_dir)["cells"]
    assert all((run_dir / "cases" / c["case"] / f"t{c['trial']}" / c["arm"] / "transcript.jsonl").is_file()
               for c in cells)


def test_collect_after_claude_codes_transcripts_are_gone_keeps_the_run(bench):
    # Bug: once Claude Code had cleaned up its transcripts (or on another machine), collect counted every
    # collected cell as missing and every judged packet as pending, and its next step (--rerun) moved the
    # whole collected run aside.
    import shutil
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    script = Script(files=greet_files(), nested={(CASE1, 1, "new")}, verdict=regression_script)
    bench.arms(next_script(out), script)
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    snapshot = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    shutil.rmtree(bench.config / "projects")
    for argv in (("collect", str(run_dir)), ("collect", str(run_dir), "--rerun")):
        rc, out, _ = bench.run(*argv)
        assert rc == 0 and "30/30 cells collected; 20/20 packets judged" in out, out
        assert "next: run: benchcore render" in out
        after = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
        assert after == snapshot


def test_a_gated_trial_is_not_judged_and_fails_the_case_on_both_axes(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    files = greet_files()
    bench.arms(next_script(out), Script(files=files, missing={(CASE1, 2, a) for a in ("new", "baseline", "previous")}))
    # Trial 2's arms run without writing greeting.txt, so the new arm fails its hard assertion.
    plan = bench.plan_json(run_dir)
    tasks = [{"id": c["id"], "prompt": c["prompt"]} for c in plan["cells"] if c["case"] == CASE1 and c["trial"] == 2]
    run_tasks("Arms", tasks, bench.config, Script(), bench.repo)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"gated (a hard assertion failed; a loss on both axes, not judged): {CASE1}/t2" in out
    t2 = run_dir / "cases" / CASE1 / "t2"
    assert json.loads((t2 / "new" / "assertions.json").read_text())[0]["exit"] == 1
    # The gate fails the case outright, whatever the head-to-head: neither comparison of t2 goes to a judge.
    assert not (t2 / "efficacy.packet.md").exists() and not (t2 / "regression.packet.md").exists()
    ids = {p["id"] for p in bench.plan_json(run_dir)["packets"]}
    assert f"{CASE1}/t2/efficacy" not in ids and f"{CASE1}/t2/regression" not in ids and len(ids) == 18
    bench.judges(run_dir, Script())
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    c1 = results["cases"][0]["efficacy"]
    assert c1["gated"] is True and c1["pass"] is False and c1["outcomes"][1] == "LOSS"
    r1 = results["cases"][0]["regression"]
    assert r1["gated"] is True and r1["pass"] is False and r1["outcomes"][1] == "LOSS"
    assert r1["reason"].startswith("gated: the new version failed a hard assertion on trial 2: ")


def test_a_split_comparison_escalates_to_two_more_judges(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))

    def split(case, trial, comp, rnd):
        if (case, comp) != (CASE1, "efficacy"):
            return "WIN"
        if rnd == 1:
            return ("WIN", "WIN", "LOSS", "LOSS", "TIE")[trial - 1]
        return "WIN"  # the panel sides with the new arm

    bench.judges(run_dir, Script(verdict=split))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    assert f"split, escalated to two more judges per judged trial: {CASE1}/efficacy" in out
    ids = [p["id"] for p in bench.plan_json(run_dir)["packets"]]
    extra = [i for i in ids if "#" in i]
    assert extra == [f"{CASE1}/t{n}/efficacy#{k}" for n in range(1, 6) for k in (2, 3)]
    judges = json.loads(next_script(out).read_text().split("const BOUND = ", 1)[1].split("\n\nconst input")[0])
    assert [t["id"] for t in judges["tasks"]] == extra and judges["schema"]["required"][0] == "packet_id"
    bench.judges(run_dir, Script(verdict=split))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    for n in range(1, 6):
        record = json.loads((run_dir / "cases" / CASE1 / f"t{n}" / "efficacy.json").read_text())
        assert len(record["judgments"]) == 3
    bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    # First judges said W W L L T; every panel's other two say WIN, so the majority is WIN throughout.
    assert results["cases"][0]["efficacy"]["outcomes"] == ["WIN"] * 5


def test_escalation_judges_that_copy_the_packets_own_id_are_counted(bench):
    # Bug: the packet's answer format names the packet's own id, while an escalation judge's prompt says
    # "Packet id: ...#2"; a judge that copied the packet's id was rejected, so the split never resolved.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))

    def split(case, trial, comp, rnd):
        if (case, comp) == (CASE2, "regression") and rnd == 1:
            return ("LOSS", "LOSS", "WIN", "WIN", "TIE")[trial - 1]
        return "TIE" if comp == "regression" else "WIN"

    script = Script(verdict=split, id_from_packet=True, answer_style=lambda c, t, comp, r: ("json", "structured")[t % 2])
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"split, escalated to two more judges per judged trial: {CASE2}/regression" in out
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "is invalid" not in out and "30/30 packets judged" in out
    record = json.loads((run_dir / "cases" / CASE2 / "t1" / "regression.json").read_text())
    assert len(record["judgments"]) == 3


def test_collect_before_the_arms_ran_says_so_and_counts_no_attempt(bench):
    # Bug: collect run before the arms (or while a workflow still ran) advised --rerun, and every --rerun
    # counted an attempt: after two, all cells of the run were given up though none had ever run.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    for argv in (("collect", str(run_dir)), ("collect", str(run_dir), "--rerun"), ("collect", str(run_dir), "--rerun")):
        rc, out, _ = bench.run(*argv)
        assert rc == 0
        assert "not run yet (no transcript names their world; not a failure): 30 cells" in out
        last = out.strip().splitlines()[-1]
        assert "--rerun" not in last and "wait for them to finish" in last and "launch the arm cells" in last
        assert "re-planned" not in out and "given up" not in out
    status = json.loads((run_dir / "collect.json").read_text())
    assert status["to_rerun"] == [] and status["given_up"] == [] and status["rerun_cells"] == []
    assert len(status["not_started"]) == 30 and status["unfinished"] == []
    assert {c["attempt"] for c in bench.plan_json(run_dir)["cells"]} == {1}
    assert not any(run_dir.rglob(".invalid-*"))
    # The script it names launches every cell in its planned world.
    bench.arms(next_script(out), Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "30/30 cells collected" in out and "not run yet" not in out


def test_cells_not_launched_are_launched_and_a_cut_off_cell_is_rerun(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    skipped = {(CASE2, 4, arm) for arm in ("new", "baseline", "previous")}
    bench.arms(next_script(out), Script(files=greet_files(), missing=skipped))
    # One arm's transcript stops after its prompt: cut off (or still running).
    world = next(c["world"] for c in bench.plan_json(run_dir)["cells"] if c["id"] == f"{CASE1}/t2/new")
    cut = next(p for p in (bench.config / "projects").rglob("*.jsonl") if world in p.read_text().splitlines()[0])
    cut.write_text(cut.read_text().splitlines()[0] + "\n")
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    assert f"not run yet (no transcript names their world; not a failure): 3 cells: {CASE2}/t4/new" in out
    assert f"still running or cut off (a transcript without a final message): 1 cells: {CASE1}/t2/new" in out
    # The never-started cells are launched as planned (their worlds are untouched), nothing is re-planned.
    assert [t["id"] for t in read_bound(next_script(out))["tasks"]] == [f"{CASE2}/t4/{a}" for a in
                                                                        ("new", "baseline", "previous")]
    bench.arms(next_script(out), Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    last = out.strip().splitlines()[-1]
    assert "if the arms are still running, wait for them" in last and "--rerun" in last
    assert json.loads((run_dir / "collect.json").read_text())["to_rerun"] == [f"{CASE1}/t2/new"]
    rc, out, _ = bench.run("collect", str(run_dir), "--rerun")
    assert f"re-planned 1 cells with fresh worlds: {CASE1}/t2/new" in out
    attempts = {c["id"]: c["attempt"] for c in bench.plan_json(run_dir)["cells"]}
    assert attempts[f"{CASE1}/t2/new"] == 2 and attempts[f"{CASE2}/t4/new"] == 1
    bench.arms(next_script(out), Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "30/30 cells collected" in out


def test_a_contaminated_baseline_is_caught_and_rerun(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files(), peek={(CASE1, 3)}))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"INVALID trial {CASE1}/t3 (re-run, not scored): baseline: read a SKILL.md" in out
    assert "next: run: benchcore collect" in out and "--rerun" in out
    t3 = run_dir / "cases" / CASE1 / "t3"
    audit = json.loads((t3 / "audit.json").read_text())
    assert audit["invalid"] is True and audit["problems"][0]["arm"] == "baseline"
    assert not (t3 / "efficacy.packet.md").exists() and not (t3 / "regression.packet.md").exists()
    bench.judges(run_dir, Script())
    bench.run("collect", str(run_dir))
    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    assert results["cases"][0]["efficacy"]["incomplete"] is True
    assert "invalid" in results["cases"][0]["efficacy"]["reason"]

    old_worlds = {c["id"]: c["world"] for c in bench.plan_json(run_dir)["cells"]}
    rc, out, _ = bench.run("collect", str(run_dir), "--rerun")
    assert "re-planned 3 cells with fresh worlds" in out
    cells = {c["id"]: c for c in bench.plan_json(run_dir)["cells"]}
    for arm in ("new", "baseline", "previous"):
        cell = cells[f"{CASE1}/t3/{arm}"]
        assert cell["world"] != old_worlds[cell["id"]] and cell["attempt"] == 2
        assert (Path(cell["world"]) / "README.md").is_file()
    assert (t3 / ".invalid-1" / "audit.json").is_file() and not (t3 / "audit.json").exists()
    bench.arms(next_script(out), Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "INVALID" not in out and "packets with no answer: 2" in out
    bench.judges(run_dir, Script())
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0


def test_a_trial_still_invalid_after_two_reruns_is_given_up_and_the_protocol_goes_on(bench):
    # Bug: the protocol said "re-run at most twice, then go on", but collect kept naming --rerun as the
    # next step and printed no judges script, so an agent that went on had to guess the script's path.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    dirty = Script(files=greet_files(), peek={(CASE1, 3)})
    bench.arms(next_script(out), dirty)
    for _ in range(2):
        rc, out, _ = bench.run("collect", str(run_dir))
        assert "next: run: benchcore collect" in out and "--rerun" in out
        rc, out, _ = bench.run("collect", str(run_dir), "--rerun")
        assert "re-planned 3 cells" in out
        bench.arms(next_script(out), dirty)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and f"INVALID trial {CASE1}/t3" in out
    assert "given up after 2 re-runs (the report shows them as incomplete): 3 cells" in out
    assert "next: launch one fresh judge per packet with Workflow" in out
    assert json.loads((run_dir / "collect.json").read_text())["to_rerun"] == []
    rc, out, _ = bench.run("collect", str(run_dir), "--rerun")  # asked anyway: nothing is planned again
    assert "re-planned" not in out and {c["attempt"] for c in bench.plan_json(run_dir)["cells"]} == {1, 3}
    bench.judges(run_dir, Script())
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "next: run: benchcore render" in out
    assert sorted(p.name for p in (run_dir / "cases" / CASE1 / "t3").glob(".invalid-*")) == [".invalid-1", ".invalid-2"]


def test_a_failing_setup_during_rerun_changes_nothing(bench_setup):
    bench = bench_setup
    # Bug: --rerun moved a trial's files aside before building its new worlds, so a failing setup
    # left the run half re-planned (files moved, plan.json unchanged). Planned --no-sandbox: the setup below
    # counts its runs in a file outside its world, which a sandboxed setup cannot write.
    _, out, _ = bench.plan("greet", "--seed", "9", "--no-sandbox")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files(), peek={(CASE2, 1)}))
    bench.run("collect", str(run_dir))
    # The case as used (the run's copy) now builds its first world, then fails.
    count = bench.tmp / "setups"
    case_md = run_dir / "cases" / CASE2 / "case.md"
    case_md.write_text(case_md.read_text().replace(
        f"setup: {SETUP}",
        f"setup: n=$(cat {count} 2>/dev/null || echo 0); echo $((n + 1)) > {count}; [ $n -lt 1 ] || exit 4"))
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    worlds = set(Path(bench.plan_json(run_dir)["world_root"]).iterdir())
    rc, _, err = bench.run("collect", str(run_dir), "--rerun")
    assert count.read_text() == "2\n"
    assert rc == 2 and "the setup command failed (exit 4)" in err
    after = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    assert after == before and set(Path(bench.plan_json(run_dir)["world_root"]).iterdir()) == worlds


def test_rerun_after_clean_is_refused_and_creates_nothing(bench):
    # Bug: --rerun after clean rebuilt an untagged temp folder that clean then refused to remove.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files(), peek={(CASE1, 1)}))
    bench.run("collect", str(run_dir))
    bench.run("clean", str(run_dir))
    temp_root = Path(bench.plan_json(run_dir)["temp_root"])
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}
    rc, _, err = bench.run("collect", str(run_dir), "--rerun")
    assert rc == 2 and "the run's temp folder" in err and "is gone" in err and "plan a new run" in err
    assert not temp_root.exists()
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"} == before


def test_a_prompt_changed_before_launch_makes_the_trial_invalid(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    plan = bench.plan_json(run_dir)
    # A wrapper around the planned prompt is tolerated; a changed prompt is not.
    wrapped = [{"id": c["id"], "prompt": "Context: benchmark.\n\n" + c["prompt"].replace("\n\n", "\n \n")}
               for c in plan["cells"] if c["case"] == CASE1 and c["trial"] == 1]
    run_tasks("Arms", wrapped, bench.config, Script(files=greet_files()), bench.repo)
    rest = [{"id": c["id"], "prompt": c["prompt"]} for c in plan["cells"] if (c["case"], c["trial"]) != (CASE1, 1)]
    run_tasks("Arms", rest, bench.config, Script(files=greet_files(), reworded={(CASE1, 2, "baseline")},
                                                 nested={(CASE1, 2, "baseline")}), bench.repo)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"INVALID trial {CASE1}/t2" in out and "baseline: its first message is not the planned prompt" in out
    # The changed-prompt arm is still the one collected, not the subagent it launched.
    assert (run_dir / "cases" / CASE1 / "t2" / "baseline" / "output.md").read_text().startswith("Done [baseline-arm]")
    assert f"INVALID trial {CASE1}/t1" not in out and "30/30 cells collected" in out


def test_a_wrapped_prompt_is_matched_to_the_arm_not_to_a_subagent_it_launched(bench):
    # Bug: when the launcher wrapped the planned prompt, no file matched it exactly, and the newest file
    # naming the world won: the subagent the arm launched itself (its prompt names the world too).
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    plan = bench.plan_json(run_dir)
    wrapped = [{"id": c["id"], "prompt": "Context: benchmark.\n\n" + c["prompt"]} for c in plan["cells"]]
    run_tasks("Arms", wrapped, bench.config, Script(files=greet_files(), nested={(CASE1, 1, "new")}), bench.repo)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "30/30 cells collected" in out and "INVALID" not in out
    new = run_dir / "cases" / CASE1 / "t1" / "new"
    assert (new / "output.md").read_text().startswith(f"Done [new-arm] for {CASE1} t1.")
    assert len(list((new / "subagents").glob("agent-*.jsonl"))) == 1


def test_a_with_skill_arm_that_never_reads_its_copy_is_invalid(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files(), skip_skill_read={(CASE2, 4, "previous")}))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"INVALID trial {CASE2}/t4" in out and "previous: never read its skill copy's SKILL.md" in out


def test_a_fan_out_larger_than_a_workflow_allows_is_split_into_several_scripts(bench, monkeypatch):
    # Bug: a workflow runs at most 1,000 agents, but every cell (or packet) went into one bound script,
    # so a large --all run lost the cells past the limit.
    from benchcore.harness.fanout import scripts as fanout
    monkeypatch.setattr(fanout, "MAX_AGENTS", 7)
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    scripts = next_scripts(out)
    assert "5 Workflow calls, one after another (a workflow runs at most 7 agents, and Claude Code takes a script" in out
    tasks = [t for s in scripts for t in read_bound(s)["tasks"]]
    assert len(scripts) == 5 and all(len(read_bound(s)["tasks"]) <= 7 for s in scripts)
    assert [t["id"] for t in tasks] == [c["id"] for c in bench.plan_json(run_dir)["cells"]]
    assert all(s.name == "bench-fanout.js" for s in scripts)  # the file stem stays the workflow's name
    for s in scripts:
        bench.arms(s, Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "30/30 cells collected" in out
    judges = next_scripts(out)
    assert len(judges) == 3  # 20 packets
    for s in judges:
        run_script(s, bench.config, Script(), bench.repo)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "20/20 packets judged" in out
    # No stale chunk is left once fewer scripts are needed.
    monkeypatch.setattr(fanout, "MAX_AGENTS", 1000)
    fanout.write_bound_scripts(R.SKILL_DIR, run_dir / "workflows" / "judges", "Judges", [])
    assert sorted(p.name for p in (run_dir / "workflows").iterdir() if p.is_dir()) == ["arms", "arms-2", "arms-3", "arms-4",
                                                                          "arms-5", "judges"]


# ----------------------------------------------------------------------------- --all


def test_all_plans_every_tested_skill_and_renders_the_leaderboard(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    repo = greet_repo(tmp_path, remote=False)
    R.git(repo, "config", "init.defaultBranch", "trunk")
    R.skill(repo, "docs/fresh")
    R.case(repo, "docs/fresh", "01-a")
    rc, out, err = b.plan("--all", "--seed", "4")
    assert rc == 0, err
    assert "skills with no tests (not benchmarked): untested" in out
    runs = b.runs()
    assert len(runs) == 2
    script = next_script(out)
    assert script.parent.parent.name.startswith("batch-")  # one fan-out for both runs
    files = dict(greet_files(), **{"01-a": {"greeting.txt": "hi\n"}})
    b.arms(script, Script(files=files))
    rc, out, _ = b.run("collect", *map(str, runs))
    assert rc == 0
    judges = next_script(out)
    run_script(judges, b.config, Script(), repo)
    rc, out, _ = b.run("collect", *map(str, runs))
    assert rc == 0, out
    for r in runs:
        b.run("render", str(r))
    index = (repo / "tests/.reports/index.html").read_text()
    assert "greet" in index and "fresh" in index
    rc, out, _ = b.run("clean", *map(str, runs))
    assert rc == 0 and not any(Path(b.plan_json(r)["temp_root"]).exists() for r in runs)


# ----------------------------------------------------------------------------- bad input


def _nothing_created(b: Bench) -> None:
    assert not (b.repo / "tests/.reports").exists()
    assert not (b.tmp / "t").exists() or not any((b.tmp / "t").iterdir())


def test_an_unknown_skill_lists_the_known_names(bench):
    rc, out, err = bench.plan("gret")
    assert rc == 2 and "no skill is named 'gret'; did you mean 'greet'? (known skills: greet, untested)" in err
    _nothing_created(bench)


def test_a_skill_without_tests_is_an_error_when_named(bench):
    rc, _, err = bench.plan("untested")
    assert rc == 2 and "has no tests" in err
    _nothing_created(bench)


def test_a_broken_case_stops_planning(bench):
    path = bench.repo / "tests" / GREET / CASE1 / "case.md"
    path.write_text(path.read_text().replace("## Soft criteria\n- It is polite.\n- It names the reader.\n", ""))
    rc, _, err = bench.plan("greet")
    assert rc == 2 and f"tests/{GREET}/{CASE1}/case.md" in err and "Soft criteria" in err
    _nothing_created(bench)


def test_a_missing_fixture_stops_planning(bench):
    path = bench.repo / "tests" / GREET / CASE1 / "case.md"
    path.write_text(path.read_text().replace("description:", "fixture: ./nowhere\ndescription:"))
    rc, _, err = bench.plan("greet")
    assert rc == 2 and "'./nowhere' does not exist" in err
    _nothing_created(bench)


def test_a_failing_setup_removes_what_was_half_made(bench_setup):
    bench = bench_setup
    path = bench.repo / "tests" / GREET / CASE2 / "case.md"
    path.write_text(path.read_text().replace(f"setup: {SETUP}", "setup: exit 3"))
    rc, _, err = bench.plan("greet")
    assert rc == 2 and "the setup command failed (exit 3)" in err and f"{CASE2}/case.md" in err
    _nothing_created(bench)


def test_a_repo_with_no_default_branch_is_an_error(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    repo = b.repo
    R.init(repo, "feature")
    R.skill(repo, GREET)
    R.case(repo, GREET, CASE1)
    R.commit_all(repo)
    rc, _, err = b.plan("greet")
    assert rc == 2 and "cannot resolve the default branch" in err and "local branches: feature" in err
    assert "init.defaultBranch" in err
    _nothing_created(b)


def test_a_judge_answer_that_is_not_json_is_named_and_rejudged(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    bad = (CASE1, 2, "regression", 1)
    bench.judges(run_dir, Script(answer_style=lambda *k: "garbage" if k == bad else "json"))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0
    assert f"error: the judge answer for packet {CASE1}/t2/regression is invalid: the answer is not a JSON object" in out
    assert f"re-judge {CASE1}/t2/regression" in out
    assert not (run_dir / "cases" / CASE1 / "t2" / "regression.json").exists()
    tasks = json.loads(next_script(out).read_text().split("const BOUND = ", 1)[1].split("\n\nconst input")[0])["tasks"]
    assert [t["id"] for t in tasks] == [f"{CASE1}/t2/regression"]
    bench.judges(run_dir, Script())
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and (run_dir / "cases" / CASE1 / "t2" / "regression.json").is_file()


def test_collect_refuses_a_folder_that_is_not_a_run(bench):
    rc, _, err = bench.run("collect", str(bench.repo))
    assert rc == 2 and "is not a planned run directory" in err


def agent_calls(output: str) -> list[dict]:
    """The Agent calls a command's next: line names (the file with one call a line)."""
    nxt = [line for line in output.splitlines() if line.startswith("next: ")][-1]
    name = re.search(r"no Workflow tool: (\S+) beside", nxt).group(1)
    path = next_scripts(nxt)[0].parent / name  # beside the (first) script the line names in full
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_agent_tool_batches_and_a_temperature_that_cannot_be_applied(tmp_path, monkeypatch):
    """The fallback path (no Workflow tool): cells and packets read from plan.json and collect.json."""
    b = Bench(tmp_path, monkeypatch)
    repo = b.repo
    R.init(repo, "main")
    R.write(repo / "README.md", "skills\n")
    R.commit_all(repo)
    R.skill(repo, "docs/fresh")
    R.case(repo, "docs/fresh", "01-a")
    R.write(repo / "tests/docs/fresh/benchmark.yaml", "temperature: 0\n")
    rc, out, err = b.plan("fresh", "--seed", "2")
    assert rc == 0, err
    assert "temperature: 0 requested; subagents run at the session default" in out
    [run_dir] = b.runs()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["temperature"] == {"requested": 0.0, "applied": "session default"}
    plan = b.plan_json(run_dir)
    script = Script(layout="agent", files={"01-a": {"greeting.txt": "hi\n"}})
    # The next: line names a file with one Agent call a line: exactly the planned prompts and agent types.
    calls = agent_calls(out)
    by_prompt = {c["prompt"]: c for c in plan["cells"]}
    assert sorted(c["prompt"] for c in calls) == sorted(by_prompt)
    for call in calls:
        cell = by_prompt[call["prompt"]]
        assert call["subagent_type"] == (cell.get("agent_type") or "general-purpose")
        assert call["description"] == "benchmark cell" and "model" not in call
    run_tasks("Arms", [{"id": by_prompt[c["prompt"]]["id"], "prompt": c["prompt"]} for c in calls], b.config, script,
              repo)
    rc, out, _ = b.run("collect", str(run_dir))
    assert "10/10 cells collected" in out
    pending = json.loads((run_dir / "collect.json").read_text())["pending_packets"]
    packets = {p["id"]: p for p in b.plan_json(run_dir)["packets"]}
    assert sorted(pending) == sorted(packets) and len(pending) == 5
    judge_calls = agent_calls(out)
    by_prompt = {p["prompt"]: i for i, p in packets.items()}
    assert sorted(by_prompt[c["prompt"]] for c in judge_calls) == sorted(pending)
    run_tasks("Judges", [{"id": by_prompt[c["prompt"]], "prompt": c["prompt"]} for c in judge_calls], b.config,
              script, repo)
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0
    rc, out, _ = b.run("render", str(run_dir))
    assert rc == 0 and "regression: n/a" in out
    html = (repo / "tests/.reports/fresh.html").read_text()
    assert "ran at the session default" in html
    # Agent-tool layout: the transcripts sit flat under <session>/subagents/, next to their meta.json.
    assert list(b.config.glob("projects/*/*/subagents/agent-*.meta.json"))
    assert not list(b.config.glob("projects/*/*/subagents/workflows"))


def test_clean_removes_only_a_temp_root_tagged_with_its_run(bench, tmp_path):
    bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    plan_file = run_dir / "plan.json"
    plan = json.loads(plan_file.read_text())
    precious = tmp_path / "precious"
    (precious / "keep.txt").parent.mkdir()
    (precious / "keep.txt").write_text("mine\n")
    plan_file.write_text(json.dumps(dict(plan, temp_root=str(precious))))
    rc, _, err = bench.run("clean", str(run_dir))
    assert rc == 2 and "is not the temp root of run" in err and "nothing was removed" in err
    assert (precious / "keep.txt").read_text() == "mine\n"
    assert Path(plan["temp_root"]).is_dir()


def test_part_of_a_name_is_never_resolved_silently(bench):
    # Bug: 'plan gre' planned greet without a word; a part of a name may mean another skill.
    rc, _, err = bench.plan("gre")
    assert rc == 2 and "no skill is named 'gre'; did you mean 'greet'?" in err
    assert "fix: name the skill exactly, e.g. 'benchcore plan greet'" in err
    _nothing_created(bench)
    R.skill(bench.repo, "git/greeter")
    rc, _, err = bench.plan("gree")
    assert rc == 2 and "did you mean 'greet' or 'greeter'?" in err
    rc, out, _ = bench.plan("greet", "--seed", "1")  # an exact name is never ambiguous
    assert rc == 0 and out.startswith("greet: three-arm")


def test_plan_without_a_name_says_what_it_needs(bench):
    # Bug: 'benchcore plan' alone said "no skill named".
    rc, _, err = bench.run("plan")
    assert rc == 2
    assert "which skill? plan needs a skill name, or --all; skills with tests: greet" in err
    assert "fix: benchcore plan greet   (or: benchcore plan --all)" in err
    _nothing_created(bench)


def test_worlds_inside_the_repository_are_refused(bench):
    rc, _, err = bench.run("plan", "greet", "--temp-dir", str(bench.repo / "tmp"))
    assert rc == 2 and "is inside the repository; worlds must live outside it" in err
    assert not (bench.repo / "tests/.reports").exists()


def test_plan_makes_the_worlds_a_working_directory_and_allows_its_own_commands(tmp_path, monkeypatch):
    """Issue 9: in default permission mode a run asked once per arm cell; plan's settings end that."""
    b = Bench(tmp_path, monkeypatch)
    small = b.repo
    R.init(small, "main")
    R.write(small / "README.md", "skills\n")
    R.commit_all(small)
    R.skill(small, "docs/fresh")
    R.case(small, "docs/fresh", "01-a")
    wrapper = str(small / ".claude/skills/benchmark-skill/scripts/benchcore")
    monkeypatch.setenv("BENCHCORE_COMMAND", wrapper)
    rc, out, err = b.plan("fresh", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    temp_root = Path(b.plan_json(run_dir)["temp_root"])
    settings = json.loads((small / ".claude/settings.local.json").read_text())["permissions"]
    # Under --temp-dir (a folder of the user's), only the run's own temp root is granted (issue 18, item 7).
    assert settings["additionalDirectories"] == [str(temp_root.resolve())]
    assert f"Bash({wrapper} collect *)" in settings["allow"]
    assert "note: added " in out and ".claude/settings.local.json" in out
    # A second plan adds only its own run's folder, not the rules again; --keep-settings never touches the file.
    rc, out, _ = b.plan("fresh", "--seed", "1")
    assert rc == 0 and "allow rules" not in out and "additionalDirectories" in out
    (small / ".claude/settings.local.json").unlink()
    rc, out, _ = b.plan("fresh", "--seed", "1", "--keep-settings")
    assert rc == 0 and not (small / ".claude/settings.local.json").exists()
