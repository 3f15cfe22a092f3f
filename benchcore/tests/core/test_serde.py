"""One round trip per top-level wire model: file -> model -> file gives the same data."""

import json
from pathlib import Path

import pytest

from benchcore import model as m
from benchcore import serde
from benchcore.errors import BenchError
from places import TESTS

RUN = TESTS / "fixtures" / "runs" / "incomplete-three-arm"


def round_trip(cls, data):
    obj = serde.load(cls, data, source="t")
    assert serde.dump(obj) == data
    return obj


def test_run_info():
    data = json.loads((RUN / "run" / "run.json").read_text())
    info = round_trip(m.RunInfo, {**data, "resolved_models": {"new": ["claude-sonnet-4-6"]},
                                  "agent_types": {"baseline": ["bench-baseline"], "new": ["workflow-subagent"]}})
    assert info.comparisons["efficacy"] == ("new", "baseline")


def test_comparison_record_with_a_panel_and_a_tie_without_strength():
    data = {"order": {"A": "baseline", "B": "new"}, "judgments": [
        {"verdict": "B", "rationale": "names the break", "strength": "clear", "quote": "BREAKING CHANGE: x"},
        {"verdict": "TIE", "rationale": "both fine"},
        {"verdict": "A", "rationale": "shorter", "strength": "slight"}]}
    round_trip(m.ComparisonRecord, data)


def test_assertions_file():
    data = [{"command": "test -s \"$OUTPUT\"", "exit": 1, "timed_out": False, "stderr": "no"},
            {"command": "sleep 99", "exit": None, "timed_out": True, "stderr": ""}]
    assert [serde.dump(a) for a in serde.load(list[m.AssertionResult], data)] == data


def test_audit():
    round_trip(m.Audit, {"invalid": True, "problems": [{"arm": "baseline", "problem": "read /x/SKILL.md"}]})


def test_history_entry_two_arm():
    round_trip(m.HistoryEntry, {"run_id": "r", "at": "2026-12-02T16:00:00Z", "shape": "two-arm",
                                "default_branch_commit": "a" * 40,
                                "efficacy": {"net": 3, "pass": True, "wins": 4, "ties": 0, "losses": 1},
                                "regression": None})


@pytest.mark.parametrize("path", [
    TESTS / "fixtures" / "runs" / "incomplete-three-arm" / "expected.results.json",
], ids=["incomplete-three-arm"])
def test_skill_result(path):
    data = json.loads(path.read_text())
    result = round_trip(m.SkillResult, data)
    assert result.cases[0].efficacy.passed is False  # the wire key "pass" maps to .passed


def test_a_wrong_field_is_named_with_its_path():
    with pytest.raises(BenchError) as info:
        serde.load(m.ComparisonRecord, {"order": {"A": "new", "B": "baseline"}, "judgments": [{"verdict": "C"}]},
                   source="t1/efficacy.json")
    assert "t1/efficacy.json" in str(info.value) and "$.judgments[0].verdict" in str(info.value)


def test_bad_json_names_the_line():
    with pytest.raises(BenchError) as info:
        serde.loads(m.Audit, '{\n  "invalid": tru\n}', source="audit.json")
    assert info.value.line == 2


# Bug: cattrs coerced scalars, so a malformed file read as something else instead of being refused:
# "false" became True (a passing assertion turned into a time-out that gates the trial), "5" became
# 5, 3.7 became 3, a string became a tuple of its characters and an object a tuple of its keys.
@pytest.mark.parametrize("cls,data,where,expect", [
    (list[m.AssertionResult], [{"command": "x", "exit": 0, "timed_out": "false"}], "$[0].timed_out", "true or false"),
    (list[m.AssertionResult], [{"command": "x", "exit": 1.5}], "$[0].exit", "an integer"),
    (list[m.AssertionResult], [{"command": "x", "exit": True}], "$[0].exit", "an integer"),
    (list[m.AssertionResult], {"command": "x", "exit": 1}, None, "is not a JSON list"),
    (m.ComparisonRecord, {"order": {"A": "new", "B": "baseline"}, "judgments": "B"}, "$.judgments", "a list"),
    (m.ComparisonRecord, {"order": {"A": "new", "B": 7}}, "$.order", "a string"),
    (m.HistoryEntry, {"run_id": "r", "at": "t", "shape": "two-arm", "default_branch_commit": None,
                      "efficacy": {"net": 1, "pass": "yes", "wins": 1, "ties": 0, "losses": 0}},
     "$.efficacy.pass", "true or false"),
    (m.RunInfo, [], None, "is not a JSON object"),
], ids=["bool-string", "float-exit", "bool-exit", "object-for-list", "string-for-list", "number-for-string",
        "history-pass-string", "list-for-object"])
def test_wrong_types_are_refused_not_coerced(cls, data, where, expect):
    with pytest.raises(BenchError) as exc:
        serde.load(cls, data, source="f.json")
    assert exc.value.path == "f.json" and expect in exc.value.message
    if where:
        assert f"@ {where}" in exc.value.message


def test_run_json_cases_as_a_string_is_refused():
    data = json.loads((RUN / "run" / "run.json").read_text())
    with pytest.raises(BenchError, match=r"expected a list, got str .* @ \$\.cases"):
        serde.load(m.RunInfo, {**data, "cases": "01-small-diff"}, source="run.json")


def test_dumps_writes_what_json_dumps_writes_piece_by_piece():
    # Issue 40: indented, json's encoder kept every piece of a large file's text in one list (30 MB for a plan of
    # 3,000 cells, the peak of a collect at that size). serde.dumps takes the top levels apart; the text is the same.
    import json
    import tracemalloc

    from benchcore import serde as S

    trees = [{}, [], {"a": {}}, {"a": []}, {"a": [1, {"b": [2, []]}], "c": "é\n\"x"}, [[{}]], "s", 1, None,
             {"k": None, "l": [None, True, 1.5]}, {"a": {"b": {"c": [1, 2]}}}, [{"x": [1, [2, [3]]]}],
             {1: 2}, {True: 1, None: 2}, {"a": {1.5: [1]}}]
    for tree in trees:
        for depth in range(4):
            assert "".join(S._indented(tree, 2, 0, depth)) == json.dumps(tree, indent=2, ensure_ascii=False)
    cells = {"run_id": "r", "cells": [{"id": f"c{i}", "prompt": "Write it.\n" * 40, "tags": ["a", "b"], "n": i}
                                      for i in range(3000)], "packets": []}
    want = json.dumps(cells, indent=2, ensure_ascii=False)
    tracemalloc.start()
    try:
        got = "".join(S._indented(cells, 2, 0, 2))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == want
    assert peak < 2.5 * len(want), (peak, len(want))  # the text and its parts, not a list of every piece


@pytest.mark.parametrize("cells", [0, 1, 3])
def test_fields_streamed_one_model_at_a_time_write_the_text_of_the_whole(cells):
    # Issue 40: collect writes environment.json's cells as it makes them (held all at once, they and the file's
    # text had added 5 MB to its peak at 3,000 cells); the file is the one serde.dumps writes of the whole.
    from benchcore.environment import CellEvidence, EnvironmentEvidence, SessionEvidence, SettingsFile

    evidence = [CellEvidence(cell=f"c/t1/{n}", arm="new", agent_type=None, versions=("2.1.328",),
                             models=("m",), hooks=(f"é \"{n}\"\n",), session="s") for n in range(cells)]
    sessions = [SessionEvidence(session="s", permission_modes=("default",))] * min(cells, 1)
    settings = (SettingsFile(path="~/.claude/settings.json"),)
    made = []

    def one_at_a_time(items):
        for item in items:
            made.append(item)
            yield item

    whole = serde.dumps(EnvironmentEvidence(cells=tuple(evidence), settings=settings, sessions=tuple(sessions)))
    parts = serde.dumps_parts(EnvironmentEvidence(settings=settings),
                              streamed={"cells": one_at_a_time(evidence), "sessions": iter(sessions)})
    assert next(parts) == "{" and made == []  # nothing made before it is asked for
    assert "{" + "".join(parts) == whole
    assert made == evidence


def test_indented_text_is_jsons_and_leaves_no_garbage_for_the_cycle_collector():
    # Issue 40: json's indented encoder leaves a reference cycle per call, which collect (running the cycle
    # collector rarely) piled up: 2 to 7 MB of its peak at 3,000 cells. jsontext writes json's text, freed at once.
    import gc
    import json

    from benchcore import jsontext

    values = [None, True, 0, -7, 10 ** 40, 1.5, -0.0, 1e300, float("nan"), float("inf"), -float("inf"), "é\n\"\\\x00",
              [], {}, [[]], {"a": {}}, {"a": [1, {"b": [2, [], {}]}], "c": "x"}, (1, (2,)),
              {1: "int", 1.5: "float", True: "bool", False: "no", None: "none", "s": "str"}]
    for value in values:
        for indent in (0, 1, 2, 4):
            assert jsontext.dumps(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)
            assert jsontext.dumps(value, indent, ascii=True) == json.dumps(value, indent=indent)
            nested = json.dumps(value, indent=indent, ensure_ascii=False).replace("\n", "\n" + " " * indent * 3)
            assert jsontext.dumps(value, indent, level=3) == nested
    for bad in ({(1, 2): 1}, {"a": object()}, b"x"):
        with pytest.raises(TypeError):
            jsontext.dumps(bad)

    doc = {"cell": "c/t1/new", "models": ["m"], "audited": [], "evidence": {"hooks": ["h"], "session": "s"}}
    gc.collect()
    gc.disable()
    try:
        for _ in range(50):
            json.dumps(doc, indent=1)
        left_by_json = gc.collect()
        for _ in range(50):
            jsontext.dumps(doc, 1)
        left_here = gc.collect()
    finally:
        gc.enable()
    assert left_by_json > 0 and left_here == 0, (left_by_json, left_here)


@pytest.mark.parametrize("packets", [0, 2])
def test_a_changed_plan_written_cell_by_cell_is_the_text_of_the_whole(tmp_path, packets):
    # Issue 40: collect writes the plan it changed part by part, each cell and packet made into JSON data in
    # its turn (the whole plan's data had added 4 MB to its peak at 3,000 cells); plan.json reads as before.
    from attrs import evolve

    from benchcore.harness.store.planfile import Cell, Packet, Plan, read_plan, write_plan

    cells = tuple(Cell(id=f"01-a/t{n}/new", case="01-a", trial=n, arm="new", world=f"/w/{n}", skill_dir=None,
                       prompt=f"Work in /w/{n}.\n\"é\"", model="opus" if n == 2 else None) for n in (1, 2, 3))
    made = tuple(Packet(id=f"01-a/t{n}/efficacy", case="01-a", trial=n, comparison="efficacy", path=f"/p/{n}",
                        prompt="Judge.", outputs_sha256={"new": "a" * 64}) for n in range(1, packets + 1))
    plan = Plan(run_dir=str(tmp_path), cells=cells, packets=made, run_id="r", skill_copies={"new": "/c"})
    write_plan(tmp_path, plan, on_disk=evolve(plan, run_id="before"))
    assert (tmp_path / "plan.json").read_text(encoding="utf-8") == serde.dumps(plan)
    assert read_plan(tmp_path) == plan
