"""plan's Claude Code settings: the worlds folder as a working directory, benchcore's commands allowed.

Measured on the real CLI (test_realcli_interactive.py): without them, default permission mode asked once
per arm cell at least; with them, no cell asks."""

import json
from pathlib import Path

from benchcore.harness.claude.settings import allow_benchmark, command_rules

WRAPPER = "/work/repo/.claude/skills/benchmark-skill/scripts/benchcore"


def setup(tmp_path):
    repo, config, worlds = tmp_path / "repo", tmp_path / "config", tmp_path / "tmp" / "benchcore"
    repo.mkdir()
    config.mkdir()
    worlds.mkdir(parents=True)
    return repo, config, worlds


def local(repo: Path) -> dict:
    return json.loads((repo / ".claude/settings.local.json").read_text())


def test_a_fresh_project_gets_the_worlds_folder_and_the_command_rules_once(tmp_path):
    repo, config, worlds = setup(tmp_path)
    note = allow_benchmark(repo, worlds, WRAPPER, config)
    assert note.startswith("note: added ") and str(worlds) in note and "allow rules for benchcore plan/collect/render/clean" in note
    assert "--keep-settings" in note
    assert local(repo) == {"permissions": {
        "additionalDirectories": [str(worlds)],
        "allow": [f"Bash({WRAPPER} plan *)", f"Bash({WRAPPER} collect *)", f"Bash({WRAPPER} render *)",
                  f"Bash({WRAPPER} clean *)"]}}
    before = (repo / ".claude/settings.local.json").read_text()
    assert allow_benchmark(repo, worlds, WRAPPER, config) == ""
    assert (repo / ".claude/settings.local.json").read_text() == before


def test_other_settings_are_kept_and_only_what_is_missing_is_added(tmp_path):
    repo, config, worlds = setup(tmp_path)
    (repo / ".claude").mkdir()
    mine = {"model": "opus", "permissions": {"allow": ["Bash(npm test)", f"Bash({WRAPPER} collect *)"],
                                             "deny": ["Read(./.env)"]}}
    (repo / ".claude/settings.local.json").write_text(json.dumps(mine))
    allow_benchmark(repo, worlds, WRAPPER, config)
    got = local(repo)
    assert got["model"] == "opus" and got["permissions"]["deny"] == ["Read(./.env)"]
    assert got["permissions"]["allow"] == ["Bash(npm test)", f"Bash({WRAPPER} collect *)", f"Bash({WRAPPER} plan *)",
                                           f"Bash({WRAPPER} render *)", f"Bash({WRAPPER} clean *)"]


def test_a_folder_another_settings_file_covers_is_not_added_again(tmp_path):
    repo, config, worlds = setup(tmp_path)
    (config / "settings.json").write_text(json.dumps({"permissions": {"additionalDirectories": [str(tmp_path / "tmp")]}}))
    note = allow_benchmark(repo, worlds, None, config)
    assert note == "" and not (repo / ".claude/settings.local.json").exists()


def test_outside_claude_code_only_the_folder_is_added(tmp_path):
    repo, config, worlds = setup(tmp_path)
    allow_benchmark(repo, worlds, None, config)
    assert local(repo) == {"permissions": {"additionalDirectories": [str(worlds)]}}


def test_a_settings_file_that_is_not_json_is_left_alone_and_the_note_says_what_to_add(tmp_path):
    repo, config, worlds = setup(tmp_path)
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.local.json").write_text("{not json")
    note = allow_benchmark(repo, worlds, WRAPPER, config)
    assert (repo / ".claude/settings.local.json").read_text() == "{not json"
    assert "is not valid JSON" in note and "left it alone" in note and str(worlds) in note
    assert f"Bash({WRAPPER} collect *)" in note


def test_a_command_path_that_cannot_be_a_rule_gets_none():
    assert command_rules("/a (b)/benchcore") == [] and command_rules("") == []


def test_git_status_reaches_subagents_unless_a_setting_or_the_variable_turns_it_off(tmp_path, monkeypatch):
    from benchcore.harness.claude.settings import git_status_reaches_subagents
    repo, config, _ = setup(tmp_path)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", raising=False)
    assert git_status_reaches_subagents(repo, config)
    (config / "settings.json").write_text(json.dumps({"includeGitInstructions": False}))
    assert not git_status_reaches_subagents(repo, config)
    # The project's local file comes first.
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.local.json").write_text(json.dumps({"includeGitInstructions": True}))
    assert git_status_reaches_subagents(repo, config)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "1")
    assert not git_status_reaches_subagents(repo, config)


def test_plan_under_a_temp_dir_of_the_users_grants_only_the_runs_own_folder_and_clean_takes_it_out(tmp_path,
                                                                                                     monkeypatch):
    # Bug (issue 18, item 7): plan --temp-dir DIR made DIR itself (say /tmp, or a home folder) a working
    # directory of the session, so every arm could read all of it without a dialog; clean left the grant behind.
    from test_e2e_benchmark import Bench, greet_repo

    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "private.txt").write_text("not the benchmark's\n")
    b.plan("greet", "--seed", "3")
    [run_dir] = b.runs()
    temp_root = json.loads((run_dir / "plan.json").read_text())["temp_root"]
    dirs = local(b.repo)["permissions"]["additionalDirectories"]
    assert dirs == [str(Path(temp_root).resolve())] and Path(temp_root).parent == (tmp_path / "t").resolve()
    rc, out, err = b.run("clean", str(run_dir))
    assert rc == 0, err
    assert local(b.repo)["permissions"]["additionalDirectories"] == []
    assert (tmp_path / "t" / "private.txt").is_file()


def test_plan_waits_for_claude_code_to_reread_the_settings_and_no_longer(tmp_path, monkeypatch):
    # Inside Claude Code the next tool call runs unguarded until the session re-reads the changed file (about
    # 1.2 s on 2.1.328); plan returns as soon as the re-read is seen, here a reader 0.3 s after the write: by the
    # access time where it moves, else (a noatime mount, as forced on the second pass) by inotify, with no
    # fixed wait (it was 3 s there).
    import threading
    import time as clock

    from benchcore.harness.claude import settings
    from benchcore.harness.claude.settings import OpenWatch, _atime_moves, await_reread

    monkeypatch.setenv("CLAUDECODE", "1")
    for noatime in (False, True):
        if noatime:
            monkeypatch.setattr(settings, "_atime_moves", lambda folder: False)
        elif not _atime_moves(tmp_path):
            continue  # this file system is noatime already: the second pass covers it
        target = tmp_path / f"settings-{noatime}.local.json"
        with OpenWatch(target) as opened:
            assert opened.ok or not noatime  # inotify is there on Linux
            target.write_text('{"hooks": {}}\n')
            opened.start()
            reader = threading.Timer(0.3, target.read_bytes)
            reader.start()
            started = clock.monotonic()
            waited = settings.await_reread(target, within=5.0, opened=opened)
            reader.join()
        # Upper bounds well below the 5 s it may wait, wide enough for a loaded machine's timer threads.
        assert waited is not None and 0.25 <= waited < 4.0, (noatime, waited)
        assert clock.monotonic() - started < 4.5
    # Nobody reads it: the bound, then on (no fixed wait beyond it).
    target = tmp_path / "unread.json"
    with OpenWatch(target) as opened:
        target.write_text("{}\n")
        opened.start()
        started = clock.monotonic()
        assert await_reread(target, within=0.5, opened=opened) is None
        assert 0.5 <= clock.monotonic() - started < 2.9  # the bound, not the 3 s once slept


def test_plan_outside_claude_code_waits_for_nothing(tmp_path, monkeypatch):
    import time as clock

    from benchcore.harness.claude.settings import await_reread

    target = tmp_path / "settings.local.json"
    target.write_text('{"hooks": {}}\n')
    monkeypatch.delenv("CLAUDECODE", raising=False)
    started = clock.monotonic()
    assert await_reread(target, within=5.0) is None
    assert clock.monotonic() - started < 1.0  # no wait (the bound is 5 s); wide for a loaded machine
