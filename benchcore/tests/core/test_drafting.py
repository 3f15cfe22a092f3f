"""benchcore.drafting: reading a drafted-cases document and what gives a skill away in a prompt (issue 41)."""

from __future__ import annotations

import json

import pytest

from benchcore.drafting import DraftCase, Draft, draft_problems, parse_draft, restates_skill
from benchcore.errors import BenchError


@pytest.mark.parametrize("prompt,skill,why", [
    ("Can you write the commit message? I'll commit it myself.", "commit-message", None),
    ("Write a commit message for this.", "commit-message", None),   # the words are what a user says
    ("Run commit-message on the staged files.", "commit-message", "names the skill (commit-message)"),
    ("Follow SKILL.md and greet them.", "greet", "names SKILL.md"),
    ("Use the greeting skill here.", "welcome", "tells the arm about a skill"),
    ("Greet the new starter.", "greet", None),            # a one-word name is a word a user says
    ("I need new skills on my CV.", "resume-writer", None),
], ids=["clean", "name-words", "name", "skill-file", "use-a-skill", "substring", "the-word-skills"])
def test_what_gives_the_skill_away(prompt, skill, why):
    assert restates_skill(prompt, skill) == why


def test_a_draft_reads_into_case_folders_files():
    d = parse_draft(json.dumps({"cases": [{"id": "01-a", "stop": True, "case_md": "x",
                                           "fixture": {"src/a.py": "print()\n"},
                                           "samples": {"good": {"output.md": "ok", "world/b.txt": "b"},
                                                       "bad-x": {"output.md": "no", "act.sh": "rm b"}}}]}), "d.json")
    [c] = d.cases
    assert c.stop and sorted(c.files) == ["fixture/src/a.py", "samples/bad-x/act.sh", "samples/bad-x/output.md",
                                          "samples/good/output.md", "samples/good/world/b.txt"]


@pytest.mark.parametrize("doc,says", [
    ({"cases": []}, 'has no "cases" list'),
    ({"cases": [{"id": "../x", "case_md": "x"}]}, "is not a case folder name"),
    ({"cases": [{"id": "01-a", "case_md": "x"}, {"id": "01-a", "case_md": "y"}]}, "is used twice"),
    ({"cases": [{"id": "01-a", "case_md": "x", "fixture": {"/etc/passwd": "x"}}]}, "is not a plain relative path"),
    ({"cases": [{"id": "01-a", "case_md": "x", "samples": {"ok": {"output.md": "x"}}}]}, "neither good"),
    ({"cases": [{"id": "01-a", "case_md": "x", "samples": {"good": {"notes.txt": "x"}}}]}, "has no output.md"),
    ({"cases": [{"id": "01-a", "case_md": "x", "samples": {"good": {"output.md": "x", "../w": "x"}}}]},
     "is not output.md, act.sh or world/<path>"),
    ({"cases": [{"id": "01-a", "case_md": "x", "prompt": "y"}]}, "unknown keys prompt"),
], ids=["empty", "bad-id", "duplicate", "absolute", "sample-name", "no-output", "sample-file", "unknown-key"])
def test_a_bad_draft_is_named(doc, says):
    with pytest.raises(BenchError) as e:
        parse_draft(json.dumps(doc), "d.json")
    assert says in str(e.value) and str(e.value).startswith("d.json")


def test_a_stop_case_is_required_only_of_a_skill_with_no_cases():
    d = Draft(cases=(DraftCase(id="01-a", case_md="x", files={"fixture/a": "a"}),))
    problems, warnings = draft_problems(d, "greet", {"01-a": "Hello"}, existing_cases=0)
    assert [p[1] for p in problems] == ['no case is marked "stop": true (a case where the right answer is to stop, '
                                        'refuse or flag)']
    problems, warnings = draft_problems(d, "greet", {"01-a": "Hello"}, existing_cases=3)
    assert problems == [] and len(warnings) == 1
