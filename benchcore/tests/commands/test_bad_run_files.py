"""Issue 27 item 8: bad input in a run's files (plan.json edited by hand, or damaged) is bad input: exit 2,
one message naming the file, the field and the fix, and nothing rewritten; exit 3 stays for bugs."""

from __future__ import annotations

import json

import pytest

from test_harden_rest import ran


def _case_renamed(plan: dict) -> None:
    cell = plan["cells"][0]
    cell["case"], cell["id"] = "nope", f"nope/t{cell['trial']}/{cell['arm']}"


MUTATIONS = {
    "a cell of trial 0": (lambda p: p["cells"][0].update(trial=0, id=p["cells"][0]["id"].replace("/t1/", "/t0/")),
                          "$.cells[0].trial is 0, but trials are numbered"),
    "an attempt of 0": (lambda p: p["cells"][0].update(attempt=0), "$.cells[0].attempt is 0"),
    "an unknown arm": (lambda p: p["cells"][0].update(arm="other", id=p["cells"][0]["id"].replace("/new", "/other")),
                       "$.cells[0].arm is 'other'"),
    "a case the run lacks": (_case_renamed, "$.cells[0].case is 'nope', not a case of the run"),
    "an id planned twice": (lambda p: p["cells"].append(dict(p["cells"][0])), "is planned twice"),
    "an id that names another cell": (lambda p: p["cells"][0].update(id="x/t1/new"), "$.cells[0].id is 'x/t1/new'"),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_damaged_plan_is_bad_input_naming_the_file_the_field_and_the_fix(tmp_path, monkeypatch, name):
    b, run_dir = ran(tmp_path, monkeypatch)
    plan = json.loads((run_dir / "plan.json").read_text())
    mutate, said = MUTATIONS[name]
    mutate(plan)
    text = json.dumps(plan)
    (run_dir / "plan.json").write_text(text)
    rc, out, err = b.run("collect", str(run_dir))
    assert rc == 2 and out == ""
    assert f"{run_dir / 'plan.json'}: " in err and said in err and "fix: " in err and "internal error" not in err
    assert (run_dir / "plan.json").read_text() == text  # nothing rewritten
