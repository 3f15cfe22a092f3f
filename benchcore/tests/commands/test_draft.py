"""`benchcore draft <skill>`: drafted cases land under the skill's tests folder only when every one validates
(each predicate passes its good sample and fails a bad one); nothing is overwritten or half-written (issue 41)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore.cli import main
from places import TESTS
from standin import repo as R

DRAFT = TESTS / "fixtures" / "drafts" / "greet.json"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    R.init(repo, "main")
    R.skill(repo, "people/greet", "Welcome a new colleague in a short note.")
    R.commit_all(repo)
    monkeypatch.chdir(repo)
    return repo


def draft(capsys, *args):
    code = main(["draft", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def edited(tmp_path, change) -> Path:
    data = json.loads(DRAFT.read_text())
    change(data["cases"])
    p = tmp_path / "draft.json"
    p.write_text(json.dumps(data))
    return p


def test_a_skill_with_no_tests_gets_its_drafted_cases_and_they_validate(repo, capsys):
    code, out, err = draft(capsys, "greet", "--from", DRAFT)
    assert code == 0, out + err
    tests = repo / "tests" / "people" / "greet"
    assert sorted(p.name for p in tests.iterdir()) == ["01-welcome-note", "02-nobody-named"]
    assert (tests / "01-welcome-note" / "fixture" / "team.md").read_text().startswith("# Team")
    assert (tests / "01-welcome-note" / "samples" / "good" / "world" / "greeting.txt").is_file()
    assert (tests / "02-nobody-named" / "samples" / "bad-invented" / "act.sh").is_file()
    assert "wrote 2 cases for greet (not committed):" in out
    assert "[stop-or-flag] Asked to greet a new colleague nobody names" in out
    assert "review before you run anything:" in out
    assert out.rstrip().splitlines()[-1].startswith("next: ") and "/benchmark-skill --pilot greet" in out
    assert R.git(repo, "status", "--porcelain").strip() == "?? tests/"  # nothing committed or staged
    code, out, err = main(["validate"]), *capsys.readouterr()
    assert code == 0, out + err
    assert "greet" in out and "2 cases" in out


def test_stdin_and_json(repo, capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(DRAFT.read_text()))
    code, out, _ = draft(capsys, "greet", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["written"] == ["tests/people/greet/01-welcome-note", "tests/people/greet/02-nobody-named"]
    assert [c["stop"] for c in report["cases"]] == [False, True]
    assert report["cases"][0]["samples"] == ["bad-no-name", "bad-nothing-written", "good"]


def test_an_existing_case_is_never_overwritten_and_nothing_is_written(repo, capsys):
    mine = repo / "tests" / "people" / "greet" / "02-nobody-named"
    mine.mkdir(parents=True)
    (mine / "case.md").write_text("mine\n")
    code, out, _ = draft(capsys, "greet", "--from", DRAFT)
    assert code == 2
    assert "tests/people/greet/02-nobody-named: already exists; draft never overwrites a case" in out
    assert (mine / "case.md").read_text() == "mine\n"
    assert not (repo / "tests" / "people" / "greet" / "01-welcome-note").exists()
    assert "nothing was written" in out


@pytest.mark.parametrize("change,says", [
    # the bad sample writes the name too: it passes every predicate, so none of them is shown to catch it
    (lambda cs: cs[0]["samples"]["bad-no-name"].update({"world/greeting.txt": "Welcome, Ada!\n"}),
     "samples/bad-no-name: is a bad sample that passes every hard assertion"),
    # a predicate no bad sample fails: it is not shown to be able to fail
    (lambda cs: cs[0]["samples"].pop("bad-nothing-written"),
     "no bad sample makes this predicate fail: test -s \"$WORLD/greeting.txt\""),
    # the good sample does not pass its own case's predicate
    (lambda cs: cs[0]["samples"]["good"].pop("world/greeting.txt"), "the good sample"),
    # no samples at all for a case with hard assertions
    (lambda cs: cs[1].pop("samples"), "has hard assertions but no good sample"),
    # the prompt hands the skill to the no-skill arm
    (lambda cs: cs[0].update(case_md=cs[0]["case_md"].replace("Ada starts on Monday.", "Use the greet skill.")),
     "the prompt tells the arm about a skill"),
    # no stop-or-flag case for a skill that has none yet
    (lambda cs: cs[1].update(stop=False), "no case is marked \"stop\": true"),
    # a case.md that does not parse names the line
    (lambda cs: cs[1].update(case_md=cs[1]["case_md"].replace("## Soft criteria", "## Criteria")),
     "tests/people/greet/02-nobody-named/case.md:"),
    # a path that leaves the case folder
    (lambda cs: cs[0]["fixture"].update({"../../escape.txt": "x"}), "is not a plain relative path"),
], ids=["bad-sample-passes", "predicate-never-fails", "good-sample-fails", "no-samples", "restates-skill",
        "no-stop-case", "case-md-error", "path-escape"])
def test_a_draft_that_does_not_validate_writes_nothing_and_names_why(repo, capsys, tmp_path, change, says):
    code, out, err = draft(capsys, "greet", "--from", edited(tmp_path, change))
    assert code == 2
    assert says in out + err
    assert not (repo / "tests" / "people" / "greet").exists() or \
        not any((repo / "tests" / "people" / "greet").iterdir())
    assert not (repo.parent / "escape.txt").exists()


def test_an_unknown_skill_and_bad_json_are_named(repo, capsys, tmp_path):
    code, _, err = draft(capsys, "nope", "--from", DRAFT)
    assert code == 2 and "nope: is not a skill of this repository" in err and "greet" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"cases": [\n  {"id": "01-x",}\n]}')
    code, _, err = draft(capsys, "greet", "--from", bad)
    assert code == 2 and f"{bad}:2: is not valid JSON" in err
