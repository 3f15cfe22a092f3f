"""`benchcore validate` on small repositories built in tmp_path: exit codes, messages, --json."""

import json
from pathlib import Path

import pytest

from benchcore.cli import main

CASE = "---\ndescription: {desc}\n{extra}---\n## Prompt\nDo it.\n## Soft criteria\n- Does it well.\n"


def skill(root: Path, rel: str, name: str | None = None) -> None:
    d = root / "skills" / rel
    d.mkdir(parents=True)
    leaf = rel.split("/")[-1]
    (d / "SKILL.md").write_text(f"---\nname: {name or leaf}\ndescription: test skill\n---\nBody.\n")


def case(root: Path, rel: str, case_id: str, extra: str = "", fixture: bool = False) -> Path:
    d = root / "tests" / rel / case_id
    d.mkdir(parents=True)
    (d / "case.md").write_text(CASE.format(desc=f"case {case_id}", extra=extra))
    if fixture:
        (d / "fixture").mkdir()
        (d / "fixture" / "a.txt").write_text("a\n")
    return d


@pytest.fixture
def repo(tmp_path):
    skill(tmp_path, "git/commit-message")
    skill(tmp_path, "solo")
    case(tmp_path, "git/commit-message", "01-small", fixture=True)
    case(tmp_path, "git/commit-message", "02-big")
    return tmp_path


def run_validate(root, capsys, *extra):
    code = main(["validate", "--repo", str(root), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_valid_tree_passes_and_lists_untested_skills(repo, capsys):
    code, out, _ = run_validate(repo, capsys)
    assert code == 0
    assert "commit-message" in out and "2 cases" in out
    assert "skills with no tests (reported, not an error): solo" in out
    assert out.rstrip().splitlines()[-1].startswith("next: ")


def test_json_report(repo, capsys):
    code, out, _ = run_validate(repo, capsys, "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert data["untested"] == ["solo"]
    assert {s["name"]: s["cases"] for s in data["skills"]} == {"commit-message": 2, "solo": 0}


def test_validate_finds_the_repo_from_a_subfolder(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo / "tests" / "git")
    assert main(["validate"]) == 0


@pytest.mark.parametrize("breakage,expected", [
    (lambda r: (r / "tests" / "nothing" / "01-x").mkdir(parents=True),
     "tests/nothing: maps to no skill"),
    (lambda r: skill(r, "other/commit-message"),
     "two skills are named 'commit-message'"),
    (lambda r: skill(r, "mismatch", name="other-name"),
     "frontmatter name 'other-name' differs from its folder name 'mismatch'"),
    (lambda r: case(r, "solo", "01-missing", extra="fixture: ./nope\n"),
     "the fixture './nope' does not exist"),
    (lambda r: case(r, "solo", "01-escape", extra="fixture: ../../../skills\n"),
     "leaves tests/"),
    (lambda r: (r / "tests" / "solo" / "02-empty").mkdir(parents=True),
     "tests/solo/02-empty: is a folder in a skill's tests with no case.md"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("trials: 3\n"),
     "trials are always 5"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("temperature: hot\n"),
     "temperature 'hot' is not a number"),
    (lambda r: (r / "tests/git/commit-message/02-big/case.md").write_text("---\ndescription: x\n---\n## Prompt\nhi\n"),
     "tests/git/commit-message/02-big/case.md:5: no '## Soft criteria' section"),
    # Bug: a case.md, SKILL.md or benchmark.yaml that is not UTF-8 stopped validate with a traceback (exit 1).
    (lambda r: (r / "tests/git/commit-message/02-big/case.md").write_bytes(b"\xff\xfe---\n"),
     "tests/git/commit-message/02-big/case.md: is not UTF-8 text"),
    (lambda r: (r / "skills/solo/SKILL.md").write_bytes(b"---\nname: solo\xff\n---\n"),
     "skills/solo/SKILL.md: is not UTF-8 text"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_bytes(b"\xfe"),
     "tests/solo/benchmark.yaml: is not UTF-8 text"),
], ids=["orphan-test-folder", "duplicate-name", "name-mismatch", "missing-fixture", "fixture-leaves-tests",
        "folder-without-case", "trials-option", "bad-temperature", "broken-case", "case-not-utf8",
        "skill-md-not-utf8", "options-not-utf8"])
def test_problems_exit_2_and_are_named(repo, capsys, breakage, expected):
    breakage(repo)
    code, out, _ = run_validate(repo, capsys)
    assert code == 2
    assert expected in out
    assert "fix: " in out
    assert out.rstrip().splitlines()[-1].startswith("next: ")


def test_every_problem_is_reported_not_just_the_first(repo, capsys):
    (repo / "tests" / "nothing").mkdir()
    case(repo, "solo", "01-missing", extra="fixture: ./nope\n")
    code, out, _ = run_validate(repo, capsys, "--json")
    assert code == 2
    assert len(json.loads(out)["problems"]) == 2


def test_outside_a_repository_is_exit_2(tmp_path, capsys):
    assert main(["validate", "--repo", str(tmp_path)]) == 2
    assert "is not inside a skills repository" in capsys.readouterr().err
