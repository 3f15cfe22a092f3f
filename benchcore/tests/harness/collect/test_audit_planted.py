"""The audit's findings on a run with planted contamination, against the findings the audit gave before it
indexed the run's case lines once (issue 40): one index per run instead of one per case, each with every other
case's lines, must find exactly what it found.

Four cases whose criteria are long and distinct, a skill whose text quotes one case's criterion, a case whose
prompt quotes another case's criterion; arms that read their own case, another case (plainly, folded, in
base64), the skill, the run folder, and lines they are allowed to see. Every trial's audit.json problems are
compared with tests/fixtures/audit/planted-findings.json, written by the audit before the change (run ids
replaced by <run>). Set BENCHCORE_UPDATE_AUDIT=1 to write it again, and read the diff before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from standin import repo as R
from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, GREET, Bench, greet_files, greet_repo, next_script

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "audit" / "planted-findings.json"
QUOTED = "It keeps the greeting under forty words and in one sentence."  # a criterion the skill's text quotes
SHARED = "It mentions the weather of the reader's town in passing."  # 04's criterion, in 03's prompt
CASE3, CASE4 = "03-weather", "04-brief"

PLANTED = {
    (CASE3, 1, "new"): ["cat tests/*/*/04-*/case.md"],  # another case, plainly
    (CASE3, 2, "baseline"): ["cat te*/*/*/03*/c*.md"],  # its own case
    (CASE4, 1, "baseline"): ["base64 -w 76 te*/*/*/03*/c*.md"],  # another case, encoded
    (CASE4, 2, "new"): ["fold -w 15 te*/*/*/04*/c*.md"],  # its own case, folded
    (CASE1, 1, "previous"): ["cat te*/.rep*/ru*/*/pl*.json"],  # the run folder
    (CASE2, 1, "baseline"): ["cat sk*/*/*/S*.md"],  # the skill
    (CASE3, 3, "baseline"): [f"echo '{SHARED}'"],  # in its own prompt: allowed
    (CASE4, 3, "new"): [f"echo '{QUOTED}'"],  # a case line the skill quotes
    (CASE1, 2, "baseline"): ["echo 'It is polite and names the reader of 03-weather.'", "ls"],  # a near miss
}


def _repo(tmp: Path) -> Path:
    repo = greet_repo(tmp)
    R.write(repo / "skills" / GREET / "SKILL.md",
            f"---\nname: greet\ndescription: Writes greetings in the house style.\n---\nGreet the reader by name, "
            f"warmly.\n\nAlways check this: {QUOTED}\n")
    for case, prompt, criteria in (
            (CASE3, f"Write a greeting into greeting.txt. Note: {SHARED}",
             ["It refers to the rain in Lisbon without complaining about it.", QUOTED]),
            (CASE4, "Write a brief greeting into greeting.txt.",
             [SHARED, "It ends with an invitation to reply by the end of the week."])):
        d = R.case(repo, GREET, case, prompt=prompt)
        text = (d / "case.md").read_text(encoding="utf-8")
        text = text.replace("- It is polite.\n- It names the reader.\n", "".join(f"- {c}\n" for c in criteria))
        (d / "case.md").write_text(text, encoding="utf-8")
    return repo


def _findings(run_dir: Path) -> dict:
    run_id = run_dir.name
    out = {}
    for audit in sorted(run_dir.glob("cases/*/t*/audit.json")):
        problems = json.loads(audit.read_text())["problems"]
        out[f"{audit.parent.parent.name}/{audit.parent.name}"] = [
            {"arm": p["arm"], "problem": p["problem"].replace(run_id, "<run>")} for p in problems]
    return out


@pytest.fixture(params=["automaton", "windows"])
def engine(request, monkeypatch):
    """How the audit finds a result's candidate lines: ahocorasick_rs's automaton (installed with benchcore), or
    the 8-byte windows a Python without it uses. Both must find the same."""
    import tomllib

    from packaging.requirements import Requirement  # pytest's own dependency

    import benchcore.harness.collect.contamination as contamination

    project = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text(encoding="utf-8"))
    asked = [r for r in map(Requirement, project["project"]["dependencies"])
             if r.name == "ahocorasick-rs" and (r.marker is None or r.marker.evaluate())]
    if request.param == "automaton" and not asked:  # no wheel for this Python or platform: benchcore does not ask
        pytest.skip("benchcore does not install ahocorasick-rs on this Python or platform")
    assert not asked or contamination._Automaton is not None, "ahocorasick_rs is a dependency of benchcore: install it"
    if request.param == "windows":
        monkeypatch.setattr(contamination, "_Automaton", None)
    contamination._matcher.cache_clear()  # indexes built with the other engine are not reused
    contamination._universe.cache_clear()
    yield request.param
    contamination._matcher.cache_clear()
    contamination._universe.cache_clear()


def test_the_audit_finds_what_it_found_before_on_planted_contamination(tmp_path, monkeypatch, engine):
    bench = Bench(tmp_path, monkeypatch)
    _repo(tmp_path)
    rc, out, err = bench.plan("greet", "--seed", "9")
    assert rc == 0, err
    [run_dir] = bench.runs()
    files = {**greet_files(), CASE3: {"greeting.txt": "Hello!\n"}, CASE4: {"greeting.txt": "Hi!\n"}}
    bench.arms(next_script(out), Script(files=files, commands=PLANTED))
    rc, out, err = bench.run("collect", str(run_dir))
    found = _findings(run_dir)
    assert len(found) == 20 and sum(1 for p in found.values() if p) >= 6, found
    if os.environ.get("BENCHCORE_UPDATE_AUDIT"):
        FIXTURE.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert found == json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_a_result_is_a_candidate_for_the_lines_it_may_show_not_for_every_case(engine):
    # Every case's "description: ..." line shares its start with the others': indexed by that start, a tool
    # result holding "description" was a candidate for every case's line, searched for each (the audit's cost
    # per result grew with the cases). Each line is indexed by its own part now; a result showing a line is
    # still a candidate for it, however it is reshaped.
    from benchcore.harness.collect.contamination import Shown, _Index

    lines = tuple(f"description: {n:03d}-case for tests" for n in range(200))
    index = _Index(lines)
    common = Shown("parser.add_argument('--description', help='the description: for tests')\n" * 40)
    assert len(index.candidates(common)) <= 2
    for shown in ("x\ndescription: 123-case for tests\ny", "descri\nption: 123-\ncase for tests"):
        assert 123 in index.candidates(Shown(shown))


def _brute(lines, text):
    """The lines ``text`` shows, searched one by one (as it came, folded, or base64 at any alignment)."""
    from benchcore.harness.collect.contamination import _bytes, _folded, _needles

    folded = _folded(_bytes(text))
    return {i for i, line in enumerate(lines) if line in text or any(n in folded for n in _needles(line))}


def test_the_index_finds_every_line_a_search_of_each_finds_short_lines_too(engine):
    # A line too short for a window once folded ("const BOUND = {": 12 bytes) is searched in the folded result
    # only (a result showing it as it came holds it folded too), not as it came and as each needle: the same
    # lines are found, as the plain search of every line finds them, however the result is reshaped.
    import base64
    import random

    from benchcore.harness.collect.contamination import Shown, _Index

    lines = ("const BOUND = {", '"cells_collected":', "a b c d e f g h i j k", "It names the reader by name.",
             "description: 007-case for tests", "tests/demo/greet/", "It keeps the greeting under forty words.",
             "the greeting under forty words. And in one sentence")  # overlaps the line before it
    index = _Index(lines)
    assert index.exact == (engine == "automaton")
    if engine == "windows":
        assert index.always and all(index.short[i] for i in index.always)
    rng = random.Random(40)
    words = ["const", "BOUND", "=", "{", "cells", "_collected", '"', ":", "names", "the", "reader", "a", "b", "c",
             "tests/", "demo/", "greet/", "description", "007-case", "for", "It", "\n", " ", "\t", "by", "name."]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 60))) for _ in range(3000)]
    for line in lines:  # each line plainly, folded by a terminal and in base64, inside other text
        texts += [f"x {line} y", "\n".join(line[k:k + 3] for k in range(0, len(line), 3)),
                  base64.b64encode(("zz" + line).encode()).decode(), base64.encodebytes(line.encode()).decode()]
    texts.append("It keeps the greeting under forty words. And in one sentence.")  # both, overlapping
    assert _brute(lines, texts[-1]) == {6, 7}
    found = 0
    for text in texts:
        shown = Shown(text)
        want = _brute(lines, text)
        found_here = set(index.candidates(shown))
        assert want <= found_here, text
        if engine == "automaton":  # exactly the lines shown, where the windows may give more
            assert found_here == want, text
        first = shown.first_of(index, sorted(want))
        assert (first is None) == (not want)
        found += bool(want)
    assert found >= 4 * len(lines)  # at least the planted ones


def test_a_line_with_an_empty_needle_is_a_candidate_everywhere_with_either_engine(engine):
    # No fingerprint line is empty (they are 20 characters or more, stripped), but an empty needle must not stop
    # collect (the automaton refuses one): both engines take it as found in every result.
    from benchcore.harness.collect.contamination import Shown, _Index

    index = _Index(("", "It names the reader by name, warmly."))
    assert index.candidates(Shown("anything at all")) == [0]
    assert index.candidates(Shown("so: It names the reader by name, warmly.")) == [0, 1]


@pytest.mark.parametrize("table", [True, False], ids=["table", "compact"])
def test_lines_that_begin_alike_are_told_apart_in_either_form_of_the_automaton(table, monkeypatch):
    # The automaton holds each needle's first KEY bytes, and each place a key matches is checked for the needles it
    # starts; when many lines begin alike, only for those that go on as the result does. A result showing one finds
    # that one only, whether the automaton is a full table (a DFA) or, past DFA_KEY_BYTES, the library's compact
    # form; a line no longer than a key is its own key.
    import base64

    from benchcore.harness.collect import contamination
    from benchcore.harness.collect.contamination import KEY, Shown, _Index

    if contamination._Automaton is None:
        pytest.skip("benchcore does not install ahocorasick-rs on this Python or platform")
    if not table:
        monkeypatch.setattr(contamination, "DFA_KEY_BYTES", 0)
    lines = ("It keeps the greeting under forty words.", "It keeps the greeting under fifty words.",
             "It keeps the greeting warm and short.", "x" * KEY, "It keeps the",
             *(f"description: {n:03d}-case for tests" for n in range(1, 41)))
    index = _Index(lines)
    starts = {n[:KEY] for needles in index.needles[:3] for n in needles}
    assert len(starts) < sum(map(len, index.needles[:3]))  # they begin alike
    # The 40 case lines share their keys; the bytes after a key tell them apart (at most one line each).
    assert any(more for _, more in index.keyed)
    assert all(len({i for _, i in held}) <= 1 for _, more in index.keyed if more for held in more.values())
    cases = {
        "so: It keeps the greeting under fifty words. Said the case.": {1, 4},
        "It keeps the greeting\nunder forty\nwords.": {0, 4},  # folded by a terminal
        base64.b64encode(b"It keeps the greeting warm and short.").decode(): {2, 4},  # its start is line 4
        "It keeps the greeting under forty": {4},  # the shared start, not any longer line
        "xxxxxxxxxxx": set(),  # one byte short of the line that is its own key
        "x" * (3 * KEY): {3},
        "description: for tests\n" * 100: set(),  # what every case's line holds, and none of them
        "name: a\ndescription: 017-case for tests\n": {5 + 16},
        base64.encodebytes(b"description: 033-case for tests").decode(): {5 + 32},
    }
    for text, want in cases.items():
        assert set(index.candidates(Shown(text))) == want, text
        assert _brute(lines, text) == want, text


@pytest.mark.parametrize("batch", [1 << 20, 200], ids=["one-pass", "many-passes"])
def test_results_searched_together_find_what_each_searched_alone_finds(engine, batch, monkeypatch):
    # The audit searches a transcript's results together (their folded forms joined, one pass of the automaton per
    # BATCH_BYTES): no match may span two results, each match is its own result's, and what each result shows is
    # what it shows searched alone, remembered or not; a line split across two results is in neither.
    import base64
    import random

    from benchcore.harness.collect import contamination as C

    monkeypatch.setattr(C, "BATCH_BYTES", batch)
    lines = ("const BOUND = {", '"cells_collected":', "a b c d e f g h i j k", "It names the reader by name.",
             "description: 007-case for tests", "tests/demo/greet/", "It keeps the greeting under forty words.",
             "the greeting under forty words. And in one sentence")
    matchers = (C._matcher((lines[:3], lines[3:6])), C._matcher((lines[6:], lines[:1])))
    rng = random.Random(41)
    words = ["const", "BOUND", "=", "{", "names", "the", "reader", "a", "b", "c", "tests/", "demo/", "greet/",
             "description", "007-case", "for", "It", "\n", " ", "by", "name.", "words."]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 60))) for _ in range(1500)]
    for line in lines:  # plainly, folded, in base64, and long enough to be remembered
        texts += [f"x {line} y", "\n".join(line[k:k + 3] for k in range(0, len(line), 3)),
                  base64.encodebytes(("z" + line).encode()).decode(), "p" * 1100 + line, "p" * 1100 + line]
    rng.shuffle(texts)
    texts[700:700] = ["x" * 1100 + " It names the reader", "by name. " + "y" * 1100]  # a line split across two
    alone = []
    for text in texts:
        C._MEMO.clear()
        alone.append(C._checked(text, matchers))
    assert sum(1 for a in alone if any(a)) >= 4 * len(lines)
    assert not any(alone[texts.index(t)] != (None,) * 4 for t in texts if t.endswith("It names the reader"))
    C._MEMO.clear()
    assert C._checked_all(texts, matchers) == alone
    assert C._checked_all(texts, matchers) == alone  # the long ones remembered now
    C._MEMO.clear()
