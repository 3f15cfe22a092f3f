"""Issue 12, items 1-10: nothing outside a run is touched, nothing crashes into a verdict. Each reproduction
is tried at the seam a user meets: the exit code, what is printed, the files on disk."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import until_none_runs

from benchcore.cli import main
from benchcore.harness.worlds.assertions import run_assertions
from benchcore.model import HardAssertion
from standin import repo as R
from test_attacks import FIXTURES, render, small_repo
from test_e2e_benchmark import Bench


def planned(tmp_path, monkeypatch) -> tuple[Bench, Path, dict]:
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    return b, run_dir, b.plan_json(run_dir)


# ----------------------------------------------------------------------------- 1: clean deletes only its own


def test_clean_refuses_a_temp_root_pointed_at_the_repository_with_a_forged_tag(tmp_path, monkeypatch):
    b, run_dir, plan = planned(tmp_path, monkeypatch)
    (b.repo / ".benchcore-temp-root").write_text(plan["run_id"] + "\n")  # what an arm can write
    plan["temp_root"] = str(b.repo)
    (run_dir / "plan.json").write_text(json.dumps(plan))
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 2 and "nothing was removed" in err and "fix:" in err
    assert (b.repo / ".git").is_dir() and (b.repo / "tests").is_dir() and run_dir.is_dir()


def test_clean_refuses_a_look_alike_folder_whose_tag_lacks_the_plans_secret(tmp_path, monkeypatch):
    b, run_dir, plan = planned(tmp_path, monkeypatch)
    fake = tmp_path / "elsewhere" / f"benchcore-{plan['run_id']}-x"
    fake.mkdir(parents=True)
    (fake / ".benchcore-temp-root").write_text(plan["run_id"] + "\nforged\n")
    (fake / "precious.txt").write_text("keep me")
    plan["temp_root"] = str(fake)
    (run_dir / "plan.json").write_text(json.dumps(plan))
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 2 and "is not the temp root of run" in err
    assert (fake / "precious.txt").read_text() == "keep me"


def test_clean_refuses_a_symlinked_temp_root_and_removes_no_link_target(tmp_path, monkeypatch):
    b, run_dir, plan = planned(tmp_path, monkeypatch)
    real = Path(plan["temp_root"])
    link = real.with_name(real.name + "-link")
    link.symlink_to(real)
    plan["temp_root"] = str(link)
    (run_dir / "plan.json").write_text(json.dumps(plan))
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 2 and "Traceback" not in err
    assert real.is_dir() and link.is_symlink()


def test_clean_removes_read_only_worlds_and_finishes_a_half_done_clean(tmp_path, monkeypatch):
    b, run_dir, plan = planned(tmp_path, monkeypatch)
    root = Path(plan["temp_root"])
    world = Path(plan["cells"][0]["world"])
    (world / "sub").mkdir()
    (world / "sub" / "f").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (world / "link").symlink_to(outside)
    os.chmod(world / "sub", 0o500)
    os.chmod(world, 0o500)
    shutil.rmtree(root / "skills")  # a clean cut off half-way
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 0, err
    assert not root.exists() and outside.read_text() == "keep" and run_dir.is_dir()
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 0 and "already gone" in out


# ----------------------------------------------------------------------------- 2 and 5: hard assertions


def _git_world(tmp_path: Path) -> tuple[Path, Path, Path]:
    world = tmp_path / "world"
    world.mkdir()
    subprocess.run(["git", "init", "-q", str(world)], check=True)
    marker = tmp_path / "PWNED"
    hook = tmp_path / "evil.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    hook.chmod(0o755)
    with open(world / ".git" / "config", "a") as fh:
        fh.write(f"[core]\n\tfsmonitor = {hook}\n\tpager = {hook}\n[alias]\n\tst = !{hook}\n"
                 f"[diff]\n\texternal = {hook}\n[filter \"x\"]\n\tclean = {hook}\n")
    (world / ".gitattributes").write_text("* filter=x\n")
    (world / "a.txt").write_text("a\n")
    output = tmp_path / "output.md"
    output.write_text("the arm's output\n")
    return world, output, marker


def test_a_world_git_config_runs_nothing_when_collect_checks(tmp_path):
    world, output, marker = _git_world(tmp_path)
    checks = [HardAssertion(command=c, line=1) for c in
              ("git status", "git add a.txt && git diff --cached --quiet; true", "git rev-list --all", "git diff",
               "git st; true", "git log -p | cat")]
    results = run_assertions(checks, output, world, timeout=20)
    assert not marker.exists(), marker.read_text()
    assert results[0].exit == 0


def test_a_check_gets_a_copy_of_the_output_and_no_standard_input(tmp_path):
    world = tmp_path / "w"
    world.mkdir()
    output = tmp_path / "output.md"
    output.write_text("verdict text\n")
    results = run_assertions([HardAssertion(command='rm -f "$OUTPUT"; echo changed > "$OUTPUT"', line=1),
                              HardAssertion(command='grep -q "verdict text" "$OUTPUT"', line=1),
                              HardAssertion(command="! read -t 1 line", line=1)], output, world, timeout=10)
    assert output.read_text() == "verdict text\n"
    assert [r.exit for r in results] == [0, 0, 0]


def test_a_check_exiting_0_with_a_background_child_passes_and_the_child_dies(tmp_path):
    world = tmp_path / "w"
    world.mkdir()
    marker = tmp_path / "late"
    start = time.monotonic()
    [r] = run_assertions([HardAssertion(command=f"(sleep 2; touch {marker}) & exit 0", line=1)], tmp_path / "none.md",
                         world, timeout=30)
    assert r.exit == 0 and not r.timed_out and time.monotonic() - start < 10
    until_none_runs(3, tag=str(marker))
    assert not marker.exists()


def test_a_check_at_its_limit_is_killed_with_its_children_and_its_output_is_bounded(tmp_path):
    world = tmp_path / "w"
    world.mkdir()
    marker = tmp_path / "late"
    start = time.monotonic()
    [r, r2] = run_assertions([HardAssertion(command=f"(sleep 3; touch {marker}) & sleep 60", line=1),
                              HardAssertion(command="yes >&2", line=1)], tmp_path / "none.md", world, timeout=1.5)
    assert r.timed_out and r2.timed_out and time.monotonic() - start < 15
    assert len(r2.stderr) <= 2000 and "timed out after 1.5s" in r2.stderr
    until_none_runs(4, tag=str(marker))
    assert not marker.exists()


# ----------------------------------------------------------------------------- 6: setup reads no input


def test_setup_commands_do_not_read_benchcores_standard_input(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    case = b.repo / "tests/text/greet/01-hello/case.md"
    text = case.read_text().replace("description:", "setup: cat > got.txt\ndescription:", 1)
    case.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "benchcore", "plan", "greet", "--seed", "1", "--temp-dir",
                           str(tmp_path / "t")], input="X\n", capture_output=True, text=True, cwd=b.repo, timeout=300)
    assert proc.returncode == 0, proc.stderr
    [run_dir] = b.runs()
    worlds = [Path(c["world"]) for c in b.plan_json(run_dir)["cells"]]
    assert [(w / "got.txt").read_text() for w in worlds] == [""] * len(worlds)


# ----------------------------------------------------------------------------- 3: names that become paths


@pytest.mark.parametrize("name", ["../../../PWNED", "/tmp/abs-PWNED", "", ".hidden"])
def test_render_refuses_a_skill_name_that_is_not_a_file_name(tmp_path, capsys, name):
    run = tmp_path / "runs" / "r"
    shutil.copytree(FIXTURES / "two-arm" / "run", run)
    info = json.loads((run / "run.json").read_text())
    info["skill"]["name"] = name
    (run / "run.json").write_text(json.dumps(info))
    before = set(tmp_path.rglob("*"))
    code, out, err = render(capsys, run, "--reports", tmp_path / "reports")
    assert code == 2 and "skill.name" in err and "fix:" in err and f"{run / 'run.json'}" in err
    assert not list(Path("/tmp").glob("abs-PWNED*"))
    assert {p for p in tmp_path.rglob("*")} - before <= {tmp_path / "reports"}


# ----------------------------------------------------------------------------- 7: exit codes


def test_an_internal_error_exits_3_with_one_line_and_the_hint(monkeypatch, capsys):
    import benchcore.commands.usage as usage_cmd

    def broken(args):
        raise ValueError("boom")

    monkeypatch.setattr(usage_cmd, "run", broken)
    code = main(["usage", "x"])
    err = capsys.readouterr().err
    assert code == 3
    assert "benchcore usage: internal error: ValueError: boom" in err and "report it" in err
    assert "Traceback" not in err


def test_render_into_a_closed_pipe_is_quiet(tmp_path):
    env = dict(os.environ)
    proc = subprocess.run(f"{sys.executable} -m benchcore render --example --reports {tmp_path / 'r'} | head -c 1",
                          shell=True, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path,
                          executable="/bin/bash")
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_deeply_nested_front_matter_is_bad_input_naming_the_file(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    case = b.repo / "tests/text/greet/01-hello/case.md"
    case.write_text("---\ndescription: " + "[" * 50000 + "]" * 50000 + "\n---\n" + case.read_text().split("---", 2)[2])
    rc, out, err = b.run("validate")
    assert rc == 2 and "01-hello/case.md" in out + err and "nested too deeply" in out + err


def test_a_description_that_yaml_reads_as_a_date_is_text(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    case = b.repo / "tests/text/greet/01-hello/case.md"
    lines = case.read_text().splitlines(keepends=True)
    case.write_text("".join("description: 2024-01-01\n" if l.startswith("description:") else l for l in lines))
    rc, out, err = b.run("validate")
    assert rc == 0, err
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    assert "description: 2024-01-01" in (run_dir / "cases/01-hello/case.md").read_text()


def test_plan_temp_dir_naming_a_file_is_bad_input(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    f = tmp_path / "a-file"
    f.write_text("x")
    rc, out, err = b.run("plan", "greet", "--temp-dir", str(f))
    assert rc == 2 and "is not a folder" in err and "Traceback" not in err
    assert not (b.repo / "tests/.reports/runs").exists() or not any((b.repo / "tests/.reports/runs").iterdir())


# ----------------------------------------------------------------------------- 8: render's renames


def test_a_stale_staged_file_is_removed_and_corrupt_history_lines_are_kept(tmp_path, capsys):
    run = tmp_path / "runs" / "r"
    shutil.copytree(FIXTURES / "two-arm" / "run", run)
    reports = tmp_path / "reports"
    reports.mkdir()
    stale = reports / ".adr-writer.html.abc123.tmp"
    stale.write_text("left by a killed render")
    (reports / "adr-writer.history.jsonl").write_text("{not json\n")
    code, out, err = render(capsys, run, "--reports", reports)
    assert code in (0, 1)
    assert not stale.exists()
    assert (reports / "adr-writer.history.corrupt.jsonl").read_text() == "{not json\n"
    assert not list(reports.glob(".*.tmp"))


# ----------------------------------------------------------------------------- 4 and 9: fixtures and case ids


def _fixture_repo(tmp_path, monkeypatch) -> tuple[Bench, Path]:
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    case_dir = b.repo / "tests/text/greet/01-hello"
    shutil.rmtree(case_dir / "fixture", ignore_errors=True)
    return b, case_dir


def test_a_default_fixture_linked_out_of_the_repository_is_refused(tmp_path, monkeypatch):
    b, case_dir = _fixture_repo(tmp_path, monkeypatch)
    outside = tmp_path / "secrets"
    outside.mkdir()
    (outside / "key").write_text("secret")
    (case_dir / "fixture").symlink_to(outside)
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 2 and "leaves tests/" in out + err and "fix:" in out + err
    assert not (b.repo / "tests/.reports/runs").exists() or not b.runs()


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_link_or_pipe_inside_a_fixture_is_refused_without_opening_it(tmp_path, monkeypatch, kind):
    b, case_dir = _fixture_repo(tmp_path, monkeypatch)
    (case_dir / "fixture").mkdir()
    (case_dir / "fixture" / "a.txt").write_text("a")
    bad = case_dir / "fixture" / "x"
    if kind == "link":
        bad.symlink_to(tmp_path / "outside.txt")
    else:
        os.mkfifo(bad)
    rc, out, err = b.run("validate")
    assert rc == 2 and "fixture/x" in out + err and "symlink or a special file" in out + err
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 2


@pytest.mark.parametrize("name", ["01 sp", "01-ünï cödé"])
def test_a_case_folder_name_outside_the_allowed_pattern_is_refused_by_validate(tmp_path, monkeypatch, name):
    b, case_dir = _fixture_repo(tmp_path, monkeypatch)
    case_dir.rename(case_dir.with_name(name))
    rc, out, err = b.run("validate")
    assert rc == 2 and name in out + err and "'.', '_', '-'" in out + err
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 2
