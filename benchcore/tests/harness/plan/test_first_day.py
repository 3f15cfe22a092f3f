"""What a new user's first plan does to their repository and tells them (issue 26)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from standin import repo as R
from test_e2e_benchmark import bench  # noqa: F401 - bench is a fixture


def _status(repo) -> str:
    return subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout


def test_plan_keeps_the_reports_out_of_git_through_info_exclude_and_says_so_once(bench):
    gitignore_before = (bench.repo / ".gitignore").exists()
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    # Bug (issue 39, item 8): .claude/settings.local.json, which plan writes, showed as untracked.
    assert ("note: tests/.reports/ (transcripts, reports, history) and .claude/settings.local.json (the settings "
            "benchcore adds for this clone) are kept out of git in this clone: added to ") in out
    assert "info/exclude" in out and out.count("kept out of git") == 1
    assert (bench.repo / ".claude/settings.local.json").is_file()
    assert ".reports" not in _status(bench.repo)  # the run folder exists, and git status does not show it
    assert ".claude" not in _status(bench.repo)
    assert (bench.repo / "tests/.reports/runs").is_dir()
    assert (bench.repo / ".gitignore").exists() == gitignore_before  # no tracked file of the user's edited
    exclude = (bench.repo / ".git/info/exclude").read_text()
    assert exclude.count("/tests/.reports/") == 1 and exclude.count("/.claude/settings.local.json") == 1
    rc, out, err = bench.plan("greet", "--seed", "2")
    assert rc == 0, err
    assert "kept out of git" not in out  # said once
    assert (bench.repo / ".git/info/exclude").read_text() == exclude


def test_a_repository_that_already_ignores_the_reports_is_left_alone(bench):
    R.write(bench.repo / ".gitignore", "tests/.reports/\n.claude/settings.local.json\n")
    before = (bench.repo / ".git/info/exclude").read_text() if (bench.repo / ".git/info/exclude").exists() else None
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    assert "kept out of git" not in out
    after = (bench.repo / ".git/info/exclude").read_text() if (bench.repo / ".git/info/exclude").exists() else None
    assert after == before


def test_plan_names_the_remote_commit_when_the_local_default_branch_is_ahead(bench):
    pushed = R.git(bench.repo, "rev-parse", "trunk").strip()
    R.commit_all(bench.repo, "greet edited and committed, not pushed")
    R.skill(bench.repo, "git/greet", "Greet the reader by name, warmly and briefly.")
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    local = R.git(bench.repo, "rev-parse", "trunk").strip()
    assert f"the previous version is your local trunk at {local[:7]}; origin/trunk is at {pushed[:7]}" in out
    [run_dir] = bench.runs()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["default_branch"]["commit"] == local
    assert (info["default_branch"]["remote"], info["default_branch"]["remote_commit"]) == ("origin/trunk", pushed)


def test_invoked_as_accepts_only_a_benchmark_skill_command(bench):
    # A model that passed /clear made plan say "type /clear again" (issue 26.10).
    for bad in ("/clear", "clear", "/benchmark-skill greet", "/greet"):
        rc, out, err = bench.plan("greet", "--invoked-as", bad)
        assert rc == 2 and "is not a benchmark-skill command" in err and "--invoked-as /benchmark-skill" in err, bad
    assert not (bench.repo / "tests/.reports/runs").exists()  # nothing planned
    for good in ("/benchmark-skill", "benchmark-skill", "/benchkit:benchmark-skill"):
        rc, out, err = bench.plan("greet", "--invoked-as", good)
        assert rc == 0, err
        assert f"type /{good.lstrip('/')} greet again" in out


def _guard_hooks(repo) -> list[str]:
    f = repo / ".claude/settings.local.json"
    data = json.loads(f.read_text()) if f.is_file() else {}
    return [h["command"] for e in data.get("hooks", {}).get("PreToolUse", []) for h in e["hooks"]
            if "scripts/guard" in h["command"]]


def test_an_abandoned_run_is_found_and_removed_by_the_command_clean_suggests(bench):
    # Bug: after a refusal, 'clean' said the run could be resumed; 'clean --older-than 0 --dry-run' listed it and
    # suggested 'benchcore clean --stale', which found nothing; the guard hook stayed in settings.local.json.
    rc, out, err = bench.plan("greet", "--seed", "3")
    assert rc == 0, err
    [run_dir] = bench.runs()
    temp = Path(bench.plan_json(run_dir)["temp_root"])
    assert _guard_hooks(bench.repo)
    rc, out, _ = bench.run("clean")
    assert rc == 0 and temp.is_dir()
    assert f"unfinished: {run_dir.relative_to(bench.repo)} (greet; planned " in out
    assert "resumed by its command for 24 more hours" in out
    suggested = out.strip().splitlines()[-1].split("now: ", 1)[1].split(" (", 1)[0]
    assert suggested == "benchcore clean --stale --older-than 0"
    rc, out, _ = bench.run("clean", "--older-than", "0", "--dry-run")
    assert rc == 0 and f"would remove: {temp}" in out and temp.is_dir()
    again = out.strip().splitlines()[-1]
    assert again == "next: run: benchcore clean --stale --older-than 0 (to remove them)"
    rc, out, _ = bench.run(*again.removeprefix("next: run: benchcore ").split(" (")[0].split())
    assert rc == 0 and f"removed: {temp}" in out and not temp.exists()
    assert "the benchmark's guard hook was taken out of .claude/settings.local.json" in out
    assert _guard_hooks(bench.repo) == []
    assert out.strip().endswith("next: nothing")


def test_the_guard_hook_leaves_when_only_another_repositorys_run_is_active(bench, tmp_path):
    rc, out, err = bench.plan("greet", "--seed", "4")
    assert rc == 0, err
    [run_dir] = bench.runs()
    base = Path(bench.plan_json(run_dir)["temp_root"]).parent
    # Another repository's run, active in the same temp folder.
    other = base / "benchcore-other-run"
    other.mkdir()
    (other / "guard.json").write_text(json.dumps({"run_dir": str(tmp_path / "elsewhere/tests/.reports/runs/x")}))
    rc, out, _ = bench.run("clean", str(run_dir))
    assert rc == 0 and "guard hook was taken out" in out and _guard_hooks(bench.repo) == []


def test_the_scripts_plan_and_collect_write_name_the_skill_phase_and_count_in_their_dialog(bench):
    from test_e2e_benchmark import greet_files, next_script
    from standin.agent import Script
    rc, out, err = bench.plan("greet", "--seed", "5")
    assert rc == 0, err
    arms = next_script(out)
    # The launch dialog shows what the arms cost (issue 39, item 3): on a first run, the rough prior's figure.
    import re
    assert re.search(r"description: 'benchmark-skill greet: arms, 30 agents, about \$[0-9.,]+ estimated "
                     r"\(rough: a first run\)',", arms.read_text()), arms.read_text()[:600]
    bench.arms(arms, Script(files=greet_files()))
    [run_dir] = bench.runs()
    rc, out, _ = bench.run("collect", str(run_dir))
    judges = run_dir / "workflows/judges/bench-fanout.js"
    assert "description: 'benchmark-skill greet: judges, 20 agents'," in judges.read_text()


def _session_transcript(bench, status: str | None) -> Path:
    """The orchestrating session's transcript as Claude Code 2.1.328 starts it: a session_context attachment
    with the git status it gives every subagent (an empty context when includeGitInstructions is false)."""
    import os
    import re
    sid = os.environ["CLAUDE_CODE_SESSION_ID"]
    folder = bench.config / "projects" / re.sub(r"[^A-Za-z0-9-]", "-", str(bench.repo.resolve()))
    folder.mkdir(parents=True, exist_ok=True)
    context = {} if status is None else {"gitStatus": status}
    record = {"type": "attachment", "isSidechain": False, "sessionId": sid,
              "attachment": {"type": "session_context", "context": context}}
    f = folder / f"{sid}.jsonl"
    f.write_text(json.dumps(record) + "\n")
    return f


STATUS = ("This is the git status at the start of the conversation.\n\nCurrent branch: trunk\n\nStatus:\n"
          " M skills/git/greet/SKILL.md\n?? skills/git/greet/untracked.md\n\nRecent commits:\nabc1234 release greet")


def test_plan_warns_before_launch_when_the_sessions_git_status_names_the_skill_and_the_verdict_says_so(bench):
    from test_e2e_benchmark import greet_files, next_script
    from standin.agent import Script
    _session_transcript(bench, STATUS)
    rc, out, err = bench.plan("greet", "--seed", "6", "--invoked-as", "/benchmark-skill")
    assert rc == 0, err
    warning = ("warning: the baseline can see greet: this session's git status, which Claude Code gives every "
               "subagent, names skills/git/greet/SKILL.md, skills/git/greet/untracked.md")
    assert warning in out
    assert "run benchcore plan --hide-git-status" in out and "type /benchmark-skill greet again" in out
    assert out.index(warning) < out.index("next: launch")  # told before the launch
    [run_dir] = bench.runs()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["baseline_sees"] == [warning.split("greet: ", 1)[1]]
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    assert results["caveats"][0] == info["baseline_sees"][0]
    assert " Caveat: the baseline may have known of the skill: this session's git status" in results["headline"]
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "Caveat: the baseline may have known of the skill" in html


def test_hide_git_status_writes_the_setting_and_a_session_started_after_it_warns_of_nothing(bench):
    settings = bench.repo / ".claude/settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    rc, out, err = bench.run("plan", "--hide-git-status", "--invoked-as", "/benchmark-skill", "greet")
    assert rc == 0, err
    assert 'wrote "includeGitInstructions": false to .claude/settings.local.json' in out
    assert out.strip().endswith("and type /benchmark-skill greet again")
    data = json.loads(settings.read_text())
    assert data["includeGitInstructions"] is False and data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert not (bench.repo / "tests/.reports/runs").exists()  # nothing planned
    _session_transcript(bench, None)  # the restarted session: no git status in its context
    rc, out, err = bench.plan("greet", "--seed", "7")
    assert rc == 0, err
    assert "the baseline can see" not in out
    [run_dir] = bench.runs()
    assert "baseline_sees" not in json.loads((run_dir / "run.json").read_text())


def test_a_tracked_settings_file_is_not_excluded_and_keep_settings_writes_none(bench):
    R.write(bench.repo / ".claude/settings.local.json", "{}\n")
    R.git(bench.repo, "add", "-f", ".claude/settings.local.json")
    R.git(bench.repo, "commit", "-qm", "settings")
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    assert "note: tests/.reports/ (transcripts, reports, history) is kept out of git" in out
    assert "settings.local.json" not in (bench.repo / ".git/info/exclude").read_text()  # ignoring would not hide it


def test_hide_git_status_by_hand_names_the_command_to_type_with_the_skill(bench, monkeypatch):
    # Bug (issue 39, item 8): by hand it said "type /benchmark-skill:benchmark-skill again" though nothing was
    # typed yet, and without the skill's name.
    monkeypatch.chdir(bench.repo)
    rc, out, err = bench.run("plan", "--hide-git-status")
    assert rc == 0, err
    assert "note: .claude/settings.local.json (the settings benchcore adds for this clone) is kept out of git" in out
    assert out.strip().splitlines()[-1] == ("next: start Claude Code here (claude; a session already open reads the "
                                            "setting only after a restart) and type /benchmark-skill greet")
    assert ".claude" not in _status(bench.repo)
    rc, out, err = bench.run("plan", "--hide-git-status")  # again: the setting is there, nothing more is said
    assert rc == 0 and "kept out of git" not in out and "already has" in out
