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
     "tests/solo/02-empty: is an empty case folder (in the tests of solo)"),
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
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("budget_tokens: -5\n"),
     "tests/solo/benchmark.yaml:1: budget_tokens -5 is not a positive whole number of raw tokens"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("budget_usd: lots\n"),
     "budget_usd 'lots' is not a positive number of dollars"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("judge_model: [a]\n"),
     "judge_model ['a'] is not a model name"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("temperature: 0\nmodels: [a, a]\n"),
     "tests/solo/benchmark.yaml:2: models lists a model twice"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("models: haiku\n"),
     "models 'haiku' is not a list of model names"),
    (lambda r: (r / "tests" / "solo").mkdir(parents=True) or (r / "tests" / "solo" / "benchmark.yaml").write_text("temperature: 0\nconfirm_judgments: yes please\n"),
     "tests/solo/benchmark.yaml:2: confirm_judgments 'yes please' is not true or false"),
], ids=["orphan-test-folder", "duplicate-name", "name-mismatch", "missing-fixture", "fixture-leaves-tests",
        "folder-without-case", "trials-option", "bad-temperature", "broken-case", "case-not-utf8",
        "skill-md-not-utf8", "options-not-utf8", "bad-budget-tokens", "bad-budget-usd", "bad-judge-model",
        "duplicate-model", "models-not-a-list", "bad-confirm-judgments"])
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


def _problems(root, capsys) -> list[dict]:
    code, out, _ = run_validate(root, capsys, "--json")
    assert code == 2
    return json.loads(out)["problems"]


def test_a_skill_md_without_frontmatter_is_named_as_such(repo, capsys):
    # Bug: "frontmatter name None differs from its folder name 'solo' ... or rename the folder to None".
    (repo / "skills/solo/SKILL.md").write_text("# Solo\n\nJust a body.\n")
    [p] = _problems(repo, capsys)
    assert p["path"] == "skills/solo/SKILL.md" and p["line"] == 1
    assert p["message"] == "has no frontmatter (a skill needs 'name' and 'description')"
    assert "'name: solo'" in p["fix"] and "None" not in p["fix"] + p["message"]


def test_a_skill_md_without_name_or_description_is_named(repo, capsys):
    (repo / "skills/solo/SKILL.md").write_text("---\ndescription: solo skill\n---\nBody.\n")
    [p] = _problems(repo, capsys)
    assert p["message"] == "has no 'name:' in its frontmatter" and p["fix"].startswith("add 'name: solo'")
    # Bug: a SKILL.md with no description passed validate (Claude Code needs it to pick the skill).
    (repo / "skills/solo/SKILL.md").write_text("---\nname: solo\n---\nBody.\n")
    [p] = _problems(repo, capsys)
    assert (p["path"], p["line"]) == ("skills/solo/SKILL.md", 2)
    assert p["message"] == "has no 'description:' in its frontmatter" and "description:" in p["fix"]
    (repo / "skills/solo/SKILL.md").write_text("---\nname: solo\ndescription: 2024-01-01\n---\nBody.\n")
    [p] = _problems(repo, capsys)
    assert (p["line"], p["message"]) == (3, "has a 'description:' that is not text (datetime.date(2024, 1, 1)) "
                                            "in its frontmatter")


def test_a_broken_skill_md_does_not_blame_its_good_tests(repo, capsys):
    # Bug: a broken SKILL.md also reported its tests as "maps to no skill ... or remove it".
    (repo / "skills/git/commit-message/SKILL.md").write_text("---\nname: [commit-message\n---\n")
    problems = _problems(repo, capsys)
    assert [p["path"] for p in problems] == ["skills/git/commit-message/SKILL.md"]
    assert "not valid YAML" in problems[0]["message"]
    # ...while its cases are still checked.
    (repo / "tests/git/commit-message/02-big/case.md").write_text("---\ndescription: x\n---\n## Prompt\nhi\n")
    assert [p["path"] for p in _problems(repo, capsys)] == ["skills/git/commit-message/SKILL.md",
                                                           "tests/git/commit-message/02-big/case.md"]


def test_a_frontmatter_mistake_is_reported_on_its_line_with_advice_that_fits_it(repo, capsys):
    # Bug: an unclosed quote was reported at the end of the frontmatter, with advice about ':' or '#'.
    case = repo / "tests/git/commit-message/02-big/case.md"
    body = "---\n{}\n---\n## Prompt\nhi\n## Criteria\n- says hi\n"
    seen = {}
    for name, front in {"quote": 'description: "unclosed\nfixture: x\nsetup: true',
                        "colon": "fixture: x\ndescription: a: b",
                        "bracket": "description: [a, b\nsetup: true",
                        "tab": "description: ok\n\tfixture: x"}.items():
        case.write_text(body.format(front))
        # The frontmatter's mistake first; the body's unknown heading (and so its missing criteria) after it.
        p, *rest = _problems(repo, capsys)
        n = front.count("\n") + 1
        assert [(q["line"], q["message"]) for q in rest] == [
            (n + 5, "unknown heading '## Criteria'"), (n + 6, "no '## Soft criteria' section")]
        seen[name] = (p["line"], p["message"].split(": ", 1)[1], p["fix"])
    assert seen["quote"][:2] == (2, "a quoted value is never closed")
    assert "close the quote" in seen["quote"][2] and "'#'" not in seen["quote"][2]
    assert seen["colon"][0] == 3 and "quote a value that contains ': '" in seen["colon"][2]
    assert seen["bracket"][:2] == (2, "a '[' is never closed")
    assert seen["tab"][0] == 3 and seen["tab"][2] == "indent with spaces, not tabs"


def test_an_empty_case_folder_is_one_problem_not_a_skill_folder(repo, capsys):
    # Bug: it was also reported as "maps to no skill (there is no skills/solo/02-empty/SKILL.md)".
    (repo / "tests/git/commit-message/03-empty").mkdir()
    [p] = _problems(repo, capsys)
    assert p["path"] == "tests/git/commit-message/03-empty"
    assert p["message"] == "is an empty case folder (in the tests of commit-message)"
    assert p["fix"].startswith("write tests/git/commit-message/03-empty/case.md")


def test_case_folders_need_no_number_prefix_and_keep_their_name_order(repo, capsys):
    # A case is case.md plus an optional fixture: folder names are free, and their sorted order is the case order.
    case(repo, "git/commit-message", "small-again")
    case(repo, "git/commit-message", "2-also-two")
    code, out, _ = run_validate(repo, capsys)
    assert code == 0, out
    from benchcore.harness.repo.tree import case_dirs, discover_skills
    skill = discover_skills(repo)["commit-message"]
    assert [d.name for d in case_dirs(repo, skill)] == ["01-small", "02-big", "2-also-two", "small-again"]


HARD = "## Hard assertions\n```sh\n# says something\ntest -s \"$OUTPUT\"\ngrep -q done \"$OUTPUT\"\n```\n"


def _sample(d: Path, name: str, output: str) -> None:
    (d / "samples" / name).mkdir(parents=True, exist_ok=True)
    (d / "samples" / name / "output.md").write_text(output)


def test_hard_assertions_without_samples_warn_and_pass(repo, capsys):
    d = repo / "tests/git/commit-message/02-big"
    (d / "case.md").write_text("---\ndescription: d\n---\n## Prompt\nDo it.\n" + HARD + "## Soft criteria\n- ok\n")
    code, out, _ = run_validate(repo, capsys, "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["problems"] == []
    [w] = data["warnings"]
    assert (w["path"], w["line"]) == ("tests/git/commit-message/02-big/case.md", 9)  # its first predicate
    assert "has hard assertions but no samples/" in w["message"] and "unproven" in w["message"]
    assert "samples/good/output.md" in w["fix"] and "samples/bad-<what>/output.md" in w["fix"]
    code, out, _ = run_validate(repo, capsys)
    assert code == 0 and "warning: tests/git/commit-message/02-big/case.md:9: has hard assertions" in out


def test_validate_runs_the_samples_and_names_each_failure(repo, capsys):
    d = repo / "tests/git/commit-message/02-big"
    (d / "case.md").write_text("---\ndescription: d\n---\n## Prompt\nDo it.\n" + HARD + "## Soft criteria\n- ok\n")
    _sample(d, "good", "done\n")
    _sample(d, "bad-empty", "")
    code, out, err = run_validate(repo, capsys, "--json")
    assert code == 0, out
    assert "checking samples 1/1: commit-message/02-big (2 samples x 2 predicates)" in err  # progress, on stderr
    md = "tests/git/commit-message/02-big/case.md"
    # A good sample that fails a predicate: the predicate's line, the sample and the exit.
    _sample(d, "good-terse", "ok\n")
    [p] = _problems(repo, capsys)
    assert (p["path"], p["line"]) == (md, 10)  # grep -q done
    assert p["message"] == ("the good sample tests/git/commit-message/02-big/samples/good-terse fails this predicate "
                            "(exited 1)")
    assert "fix the predicate, or tests/git/commit-message/02-big/samples/good-terse" in p["fix"]
    # A bad sample that passes everything, and a predicate no bad sample fails.
    (d / "samples/good-terse/output.md").write_text("done\n")
    _sample(d, "bad-looks-fine", "all done\n")
    [p] = _problems(repo, capsys)
    assert p["path"] == "tests/git/commit-message/02-big/samples/bad-looks-fine"
    assert p["message"] == "is a bad sample that passes every hard assertion"
    (d / "samples/bad-looks-fine/output.md").write_text("nothing\n")
    code, out, _ = run_validate(repo, capsys, "--json")
    assert code == 0, out  # bad-empty fails both, bad-looks-fine the second
    (d / "samples/bad-empty/output.md").write_text("x\n")
    [p] = _problems(repo, capsys)
    assert (p["path"], p["line"]) == (md, 9)
    assert p["message"] == 'no bad sample makes this predicate fail: test -s "$OUTPUT"'
    assert p["fix"].startswith("add samples/bad-<what>/ whose output fails it")


def test_samples_need_a_good_and_a_bad_one_and_known_names(repo, capsys):
    d = repo / "tests/git/commit-message/02-big"
    (d / "case.md").write_text("---\ndescription: d\n---\n## Prompt\nDo it.\n" + HARD + "## Soft criteria\n- ok\n")
    _sample(d, "good", "done\n")
    (d / "samples/maybe").mkdir()
    problems = _problems(repo, capsys)
    assert [(p["path"], p["message"]) for p in problems] == [
        ("tests/git/commit-message/02-big/samples/maybe", "is a sample named neither good, good-* nor bad-*"),
        ("tests/git/commit-message/02-big/case.md", "has samples but no bad one to show its hard assertions can fail"),
    ]
    assert problems[1]["line"] == 6


def test_plan_refuses_what_validate_refuses(repo, capsys):
    (repo / "tests/git/commit-message/02-big/case.md").write_text("---\ndescription: x\n---\n## Prompt\nhi\n")
    assert main(["plan", "commit-message", "--repo", str(repo)]) == 2
    err = capsys.readouterr().err
    assert "tests/git/commit-message/02-big/case.md:5: no '## Soft criteria' section" in err
