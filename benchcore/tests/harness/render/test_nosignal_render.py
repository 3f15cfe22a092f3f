"""`benchcore render` names what carried no signal (issue 41) in a committed fixture run: a case tied in every
trial, with what the skill's history says about it, in results.json, the page, the leaderboard and the new history
line."""

import json
import shutil
from pathlib import Path

import pytest

from benchcore.cli import main
from places import REPO

FIXTURES = REPO / "checks" / "fixtures" / "benchmark-core"


def render(capsys, *args):
    code = main(["render", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def run_copy(tmp_path):
    def make(shape: str) -> tuple[Path, Path]:
        run = tmp_path / "runs" / shape
        shutil.copytree(FIXTURES / shape / "run", run)
        reports = tmp_path / "reports"
        reports.mkdir(exist_ok=True)
        return run, reports
    return make


def _tie_case(run: Path, case: str) -> None:
    """Every efficacy judgment of ``case`` in a copied fixture run made a tie."""
    for f in sorted((run / "cases" / case).glob("t*/efficacy.json")):
        record = json.loads(f.read_text())
        record["judgments"] = [{"verdict": "TIE", "rationale": "Both meet the criteria equally."}
                               for _ in record["judgments"]]
        f.write_text(json.dumps(record, indent=2) + "\n")


@pytest.mark.parametrize("earlier,named", [
    (None, (0, 0)),                                       # older history lines record no cases: passed over
    ({"wins": 0, "ties": 5, "losses": 0}, (1, 5)),        # tied in the run before too
    ({"wins": 1, "ties": 4, "losses": 0}, None),          # won once in the run before: not named
], ids=["no-cases-on-record", "tied-before", "won-before"])
def test_a_case_that_only_ties_is_named_with_its_history(run_copy, capsys, earlier, named):
    run, reports = run_copy("two-arm")
    _tie_case(run, "03-reject-graphql")
    lines = (FIXTURES / "two-arm" / "history.jsonl").read_text().splitlines()
    if earlier is not None:
        last = json.loads(lines[-1])
        last["efficacy_cases"] = {"03-reject-graphql": earlier}
        lines[-1] = json.dumps(last)
    (reports / "adr-writer.history.jsonl").write_text("\n".join(lines) + "\n")
    render(capsys, run, "--reports", reports)
    results = json.loads((reports / "adr-writer.results.json").read_text())
    assert results["cases"][2]["efficacy"]["outcomes"] == ["TIE"] * 5
    cases = results.get("no_signal", {}).get("cases", [])
    if named is None:
        assert cases == []
        return
    [c] = cases
    assert (c["case"], c["ties"], (c["earlier_runs"], c["earlier_ties"])) == ("03-reject-graphql", 5, named)
    page = (reports / "adr-writer.html").read_text()
    assert "03-reject-graphql: efficacy was a tie in 5 of 5 trials of this run" in page
    assert "no signal: 1 case" in (reports / "index.html").read_text()
    # The history line this render added keeps the case's counts for the next run to read.
    assert json.loads((reports / "adr-writer.history.jsonl").read_text().splitlines()[-1])["efficacy_cases"][
        "03-reject-graphql"] == {"wins": 0, "ties": 5, "losses": 0}
