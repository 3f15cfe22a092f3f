"""A misspelt skill name gets the closest names and a fix naming where this repository keeps its skills
(issue 39, item 7)."""

from pathlib import Path

import pytest

from benchcore.cli import main

CASE = "---\ndescription: case\n---\n## Prompt\nDo it.\n## Soft criteria\n- Does it well.\n"


def _skill(root: Path, folder: str, name: str) -> None:
    d = root / folder / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: test skill\n---\nBody.\n")
    (root / "tests" / name / "01-a").mkdir(parents=True)
    (root / "tests" / name / "01-a" / "case.md").write_text(CASE)


def _plan(root: Path, capsys, name: str) -> str:
    assert main(["plan", name, "--repo", str(root)]) == 2
    return capsys.readouterr().err


def test_a_misspelt_name_under_claude_skills_gets_did_you_mean_and_that_layout(tmp_path, capsys):
    # Bug: "known skills: ..." with "fix: name a skill by its folder name under skills/" in a repository whose
    # skills are under .claude/skills/, and no "did you mean".
    for name in ("fix-failing-test", "fix-lint", "write-docs"):
        _skill(tmp_path, ".claude/skills", name)
    err = _plan(tmp_path, capsys, "fix-failng-test")
    assert "no skill is named 'fix-failng-test'; did you mean 'fix-failing-test'" in err
    assert "(known skills: fix-failing-test, fix-lint, write-docs)" in err
    assert "fix: name the skill exactly, e.g. 'benchcore plan fix-failing-test'" in err
    assert "under .claude/skills/)" in err and "under skills/" not in err
    assert not (tmp_path / "tests/.reports").exists()


def test_a_name_near_nothing_lists_the_skills_and_every_root_this_repository_uses(tmp_path, capsys):
    _skill(tmp_path, "skills", "greet")
    _skill(tmp_path, ".claude/skills", "summarize")
    err = _plan(tmp_path, capsys, "zzz")
    assert "no skill is named 'zzz'; known skills: greet, summarize" in err and "did you mean" not in err
    assert "fix: name a skill by its folder name under skills/ or .claude/skills/" in err


@pytest.mark.parametrize("typed,meant", [("Greet", "greet"), ("gret", "greet"), ("skills/gret", "greet")])
def test_case_and_path_slips_are_suggested_never_resolved(tmp_path, capsys, typed, meant):
    _skill(tmp_path, "skills", "greet")
    _skill(tmp_path, "skills", "other")
    assert f"did you mean '{meant}'?" in _plan(tmp_path, capsys, typed)
