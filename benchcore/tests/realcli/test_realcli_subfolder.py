"""Claude Code started in a subfolder of the repository (``tests/<skill>/``): plan reads the session's working
directory from its transcript and stops before building anything, saying to start Claude Code at the root; then,
started at the root, the same command runs (issue 39, item 1). The real CLI, headless, with the scripted model.

Bug: plan succeeded, then the Workflow tool refused the run's script ("scriptPath must be a script path this tool
returned, or a file you can already read ... the working directory or a directory you have added"); nothing said
where to start Claude Code, and the unfinished run needed ``clean --stale --older-than 0``.
"""

from __future__ import annotations

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()


def test_a_session_started_below_the_root_is_told_where_to_start_and_nothing_is_left(tmp_path):
    rig = Rig(tmp_path, edited=False)
    sub = rig.repo / rig.tests_path
    res = rig.run(Scenario(), "/benchmark-skill greet", cwd=sub)
    assert res.code == 0, res.stderr[-2000:]
    said = res.stdout.replace("\\n", "\n")
    assert f"Claude Code was started in {sub}, inside the repository {rig.repo} but not at its root" in said, \
        said[-3000:]
    assert "fix: exit Claude Code, start it at the repository root" in said
    assert "The benchmark stopped" in res.result.get("result", "")
    assert not rig.runs() and not list((rig.tmp / "tmp").glob("benchcore-*/benchcore-*"))  # nothing to clean
    # Started at the root, as told: the same command plans and launches the run.
    res = rig.run(Scenario(), "/benchmark-skill greet")
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    assert len(rig.runs()) == 1


def test_in_a_terminal_the_user_is_told_to_start_at_the_root_and_then_the_run_finishes(tmp_path):
    # The same, as a user sees it: the CLI in tmux, started in tests/<skill>/.
    require_cli("tmux")
    from interactive import InteractiveRig

    rig = Rig(tmp_path, edited=False, cases=1)
    sub = rig.repo / rig.tests_path
    term = InteractiveRig(rig, mode="bypassPermissions")
    term.start_in = sub
    session = term.run(Scenario(), "/benchmark-skill greet", timeout=300)
    screen = " ".join(session.screen.split())
    assert "start it at the repository root" in screen, session.screen[-3000:]
    assert not rig.runs() and not list((rig.tmp / "tmp").glob("benchcore-*/benchcore-*"))
    term.start_in = None  # started again at the root, as told
    session = term.run(Scenario(), "/benchmark-skill greet", timeout=600)
    assert len(rig.runs()) == 1 and (rig.repo / "tests/.reports/greet.results.json").is_file(), session.screen[-3000:]
