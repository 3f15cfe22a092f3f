"""History lines: append, trim to 50, replace a re-rendered run, survive corrupt lines."""

import json

from benchcore import history
from benchcore.model import AxisSummary, HistoryEntry


def entry(i: int, regression: bool = True) -> HistoryEntry:
    reg = AxisSummary(net=-1, passed=False, wins=0, ties=4, losses=1) if regression else None
    return HistoryEntry(run_id=f"run-{i:03d}", at=f"2026-12-01T00:{i % 60:02d}:00Z", shape="three-arm" if regression else "two-arm",
                        default_branch_commit="a" * 40, efficacy=AxisSummary(net=i, passed=True, wins=3, ties=1, losses=1),
                        regression=reg)


def test_append_keeps_the_newest_fifty():
    entries = [entry(i) for i in range(50)]
    out = history.append(entries, entry(50))
    assert len(out) == 50
    assert out[0].run_id == "run-001" and out[-1].run_id == "run-050"


def test_rerendering_a_run_replaces_its_line_where_it_ran():
    # Bug: a re-rendered older run became the newest line, so the ribbon's "current" was an old run.
    out = history.append([entry(1), entry(2)], entry(1))
    assert [e.run_id for e in out] == ["run-001", "run-002"]
    out = history.append([entry(1), entry(3)], entry(2))
    assert [e.run_id for e in out] == ["run-001", "run-002", "run-003"]


def test_round_trip_with_the_contract_keys():
    text = history.dumps([entry(1), entry(2, regression=False)])
    lines = [json.loads(x) for x in text.splitlines()]
    assert set(lines[0]) == {"run_id", "at", "shape", "default_branch_commit", "efficacy", "regression"}
    assert set(lines[0]["efficacy"]) == {"net", "pass", "wins", "ties", "losses"}
    assert lines[1]["regression"] is None
    parsed, warnings, corrupt = history.parse(text, "h.jsonl")
    assert parsed == [entry(1), entry(2, regression=False)] and warnings == [] and corrupt == []


def test_corrupt_lines_are_skipped_named_and_returned():
    good = history.dumps([entry(1), entry(2)]).splitlines()
    text = "\n".join([good[0], '{"run_id": "trunc', '{"run_id": 3}', good[1]]) + "\n"
    parsed, warnings, corrupt = history.parse(text, "x.history.jsonl")
    assert [e.run_id for e in parsed] == ["run-001", "run-002"]
    assert [w.split(":")[1] for w in warnings] == ["2", "3"]
    assert corrupt == ['{"run_id": "trunc', '{"run_id": 3}']
