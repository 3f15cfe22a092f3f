"""validate and plan name every problem of every file in one run, each with file:line and fix, most important
first (issue 39, item 6)."""

import json
import os
from pathlib import Path

from benchcore.cli import main

CASE = "---\ndescription: case\n---\n## Prompt\nDo it.\n## Soft criteria\n- Does it well.\n"


def _repo(root: Path) -> Path:
    for name in ("solo", "other"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: test skill\n---\nBody.\n")
    for case in ("01-a", "02-b"):
        (root / "tests" / "solo" / case).mkdir(parents=True)
        (root / "tests" / "solo" / case / "case.md").write_text(CASE)
    return root


def _validate(root: Path, capsys) -> tuple[int, list[dict]]:
    code = main(["validate", "--repo", str(root), "--json"])
    return code, json.loads(capsys.readouterr().out)["problems"]


def test_a_fixture_with_two_links_names_both(tmp_path, capsys):
    # Bug: validate stopped at the first link, so fixing took a run per link.
    root = _repo(tmp_path)
    fixture = root / "tests/solo/01-a/fixture"
    (fixture / "sub").mkdir(parents=True)
    (fixture / "real.txt").write_text("x\n")
    os.symlink("real.txt", fixture / "a-link")
    os.symlink("../real.txt", fixture / "sub" / "z-link")
    code, problems = _validate(root, capsys)
    assert code == 2
    assert [(p["path"], p["fix"]) for p in problems] == [
        ("tests/solo/01-a/fixture/a-link", "replace it with a regular file or folder holding the content"),
        ("tests/solo/01-a/fixture/sub/z-link", "replace it with a regular file or folder holding the content")]


def test_benchmark_yaml_with_two_bad_values_names_both_on_their_lines(tmp_path, capsys):
    # Bug: the first bad value raised; the second was named only after it was fixed.
    root = _repo(tmp_path)
    (root / "tests/solo/benchmark.yaml").write_text("temperature: 7\njudge_model: haiku\nbudget_usd: lots\ntrials: 3\n")
    code, problems = _validate(root, capsys)
    assert code == 2
    assert [(p["line"], p["message"].split(" ", 1)[0]) for p in problems] == [
        (1, "temperature"), (3, "budget_usd"), (4, "sets")]
    assert all(p["path"] == "tests/solo/benchmark.yaml" and p["fix"] for p in problems)


def test_a_case_md_with_several_mistakes_names_each_in_reading_order(tmp_path, capsys):
    root = _repo(tmp_path)
    (root / "tests/solo/02-b/case.md").write_text(
        "---\ndescription: case\nfixtures: ./f\n---\n## Prompt\nDo it.\n## Notes\nx\n"
        "## Hard assertions\n```python\nprint(1)\n```\n## Soft criteria\nbe good\n- fine\n")
    code, problems = _validate(root, capsys)
    assert code == 2
    assert [(p["line"], p["message"]) for p in problems] == [
        (3, "unknown frontmatter key 'fixtures'"), (7, "unknown heading '## Notes'"),
        (10, "a code block tagged 'python' under '## Hard assertions'"),
        (14, "a soft criterion that is not a bullet")]
    assert all(p["path"] == "tests/solo/02-b/case.md" and p["fix"] for p in problems)


def test_most_important_first_across_files_and_plan_names_them_all(tmp_path, capsys):
    root = _repo(tmp_path)
    (root / "tests/solo/02-b/case.md").write_text("---\ndescription: case\n---\n## Prompt\nDo it.\n")
    (root / "tests/solo/benchmark.yaml").write_text("network: maybe\n")
    (root / "tests/solo/03-empty").mkdir()
    (root / "skills/other/SKILL.md").write_text("---\nname: another\ndescription: d\n---\n")
    code, problems = _validate(root, capsys)
    assert code == 2
    order = [p["path"] for p in problems]
    assert order == ["skills/other/SKILL.md", "tests/solo/benchmark.yaml", "tests/solo/03-empty",
                     "tests/solo/02-b/case.md"]
    # plan refuses with the same problems of its skill, every one, not "the first (and 2 more)".
    (root / "skills/other/SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")
    assert main(["plan", "solo", "--repo", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchcore plan: error: 3 problems, most important first:\n")
    for line in ("tests/solo/benchmark.yaml:1: network 'maybe' is not true or false",
                 "tests/solo/03-empty: is an empty case folder",
                 "tests/solo/02-b/case.md:5: no '## Soft criteria' section"):
        assert line in err
    assert err.count("  fix: ") == 3
    assert err.index("benchmark.yaml") < err.index("03-empty") < err.index("02-b/case.md")
