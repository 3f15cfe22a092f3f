"""`benchcore render --example`: the bundled example shows every section the report page can show (issue 26.10),
and stays the committed three-arm fixture run plus report-only files (its README says which).

Every section of report.html.j2 is looked for by its landmark (heading id, class or row label). What the example
cannot show without contradicting the fixture's hand-derived verdicts is listed in the example's README.
"""

import json
import re
from pathlib import Path

import pytest

from benchcore.cli import main
from places import BENCHCORE, REPO

EXAMPLE = BENCHCORE / "src" / "benchcore" / "example"
FIXTURE = REPO / "checks" / "fixtures" / "benchmark-core" / "three-arm"
# What the example adds to the fixture: files render reads that the fixture run has not, so the report has them.
REPORT_ONLY_FILES = ("environment.json",)
REPORT_ONLY_KEYS = ("budget", "caveats", "claude_code", "environment", "estimate", "judge_model", "judges", "sandboxed",
                    "no_signal")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    import os
    where = tmp_path_factory.mktemp("example")
    old = Path.cwd()
    os.chdir(where)
    try:
        code = main(["render", "--example"])
    finally:
        os.chdir(old)
    out = where / "benchcore-example"
    return code, (out / "commit-message.html").read_text(encoding="utf-8"), \
        json.loads((out / "commit-message.results.json").read_text(encoding="utf-8"))


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


# (what, a landmark in the HTML that only that section or element writes)
SECTIONS = [
    ("the badges", '<span class="badge fail"><span class="badge-axis">Efficacy</span>'),
    ("the jump to the first failure", '<p class="jump"><a href="#case-02-breaking-api-change">'),
    ("the trend ribbons", '<h2 id="trends-h">Trend</h2>'),
    ("the informative readouts", '<li class="informative-label">informative only, never gating</li>'),
    ("the verdict", '<h2 id="verdict-h">Verdict</h2>'),
    ("the pass counts", '<p class="counts">'),
    ("a verdict notice (the judges' split)", '<p class="notice">05-mixed-concerns efficacy: judges split'),
    ("the judges' noise line", '<div class="noise" id="noise">'),
    ("the cost table", '<h2 id="cost-h">Cost</h2>'),
    ("the judges' cost row", '<tr><th scope="row">judges</th>'),
    ("the ratios", '<span class="ratio-label">new / previous</span>'),
    ("the estimate table", '<h3 id="estimate-h">Estimate against actual</h3>'),
    ("the estimate's total row", '<tr><th scope="row">in all</th>'),
    ("where the estimate came from", "Estimated before launch from commit-message&#39;s last 3 runs"),
    ("the budget", '<p class="notice budget">Budget: a ceiling of $8.00'),
    ("what carried no signal", '<h2 id="nosignal-h">What carried no signal</h2>'),
    ("an assertion the baseline passes too", "02-breaking-api-change: hard assertion 2 ("),
    ("the environment card", '<h2 id="env-h">Environment</h2>'),
    ("a fact shared with the session", '<span class="env-mark">shared with the session</span>'),
    ("a sealed fact", '<span class="env-mark">sealed</span>'),
    ("the sandbox line", '<th scope="row">OS sandbox for arms&#39; commands'),
    ("the cases", '<h2 id="cases-h">Cases</h2>'),
    ("a trial strip", '<ol class="strip">'),
    ("a failed hard assertion", '<div class="trial-detail gate">'),
    ("the comment above a predicate", '<p class="predicate-comment">'),
    ("a lost trial, outputs side by side", '<div class="trial-detail loss">'),
    ("a judge's quote", "<blockquote>"),
]


@pytest.mark.parametrize("what,landmark", SECTIONS, ids=[s[0] for s in SECTIONS])
def test_the_example_shows_every_section(rendered, what, landmark):
    code, page, _ = rendered
    assert code == 1  # red verdicts on purpose
    assert landmark in page, f"the bundled example's page lacks {what}"


@pytest.mark.parametrize("label,value", [
    ("Model", "claude-sonnet-4-6 (every arm)"),
    ("Judges", "asked for claude-sonnet-4-6; ran on claude-sonnet-4-6"),
    ("Agent type", "benchmark-skill:bench-arm (every arm)"),
])
def test_the_example_header_names_models_judges_and_agent_type(rendered, label, value):
    _, page, _ = rendered
    assert f"<dt>{label}</dt><dd>{value}</dd>" in page


def test_the_example_verdict_carries_the_baseline_caveat(rendered):
    _, page, results = rendered
    headline = text(re.search(r'<p class="headline">(.*?)</p>', page, re.S).group(1))
    assert headline.endswith("Caveat: the baseline may have known of the skill: the baseline&#39;s git status "
                             "named skills/git/commit-message/SKILL.md.")
    assert results["caveats"] == ["the baseline's git status named skills/git/commit-message/SKILL.md"]


def test_every_template_section_is_looked_for():
    # A section added to report.html.j2 must be added to SECTIONS (or to the README's list of what the
    # example cannot show): every <section>/<h2>/<h3 id> the template writes has a landmark here.
    template = (BENCHCORE / "src" / "benchcore" / "report" / "report.html.j2").read_text(encoding="utf-8")
    ids = re.findall(r'<h[23] id="([^"]+)"', template)
    landmarks = " ".join(landmark for _, landmark in SECTIONS)
    assert ids and all(f'id="{i}"' in landmarks for i in ids), ids


def test_the_example_is_the_fixture_run_plus_report_only_files(rendered):
    fixture = {p.relative_to(FIXTURE / "run") for p in (FIXTURE / "run").rglob("*") if p.is_file()}
    example = {p.relative_to(EXAMPLE / "run") for p in (EXAMPLE / "run").rglob("*") if p.is_file()}
    extra = sorted(str(p) for p in example - fixture)
    assert fixture <= example
    assert all(p in REPORT_ONLY_FILES or Path(p).parent.name == "judges"
               or (Path(p).parent.name == "baseline" and Path(p).name == "assertions.json") for p in extra), extra
    for rel in sorted(fixture):
        a, b = (FIXTURE / "run" / rel).read_text(encoding="utf-8"), (EXAMPLE / "run" / rel).read_text(encoding="utf-8")
        if rel.name == "run.json":  # the example's adds only report-only extensions
            fa, fb = json.loads(a), json.loads(b)
            assert {k: v for k, v in fb.items() if k in fa} == fa
        elif rel.name == "case.md":  # the example's predicates carry the comments a reader sees on the page
            assert [line for line in b.splitlines() if not line.startswith("# ")] == a.splitlines()
        else:
            assert a == b, rel
    assert (FIXTURE / "history.jsonl").read_bytes() == (EXAMPLE / "history.jsonl").read_bytes()
    # so the verdicts are the fixture's hand-derived ones; only what those extra files add differs
    _, _, results = rendered
    expected = json.loads((FIXTURE / "expected.results.json").read_text(encoding="utf-8"))
    differ = REPORT_ONLY_KEYS + ("headline", "served", "noise")
    assert {k: v for k, v in results.items() if k not in differ} == {k: v for k, v in expected.items() if k not in differ}
    assert results["headline"].startswith(expected["headline"] + " Caveat:")
    # The judges' transcripts add the model they were served and their spend to what a calibration would cost.
    assert results["served"] == dict(expected["served"], judges=["claude-sonnet-4-6"])
    assert {k: results["noise"][k] for k in ("status", "confirmed")} == \
        {k: expected["noise"][k] for k in ("status", "confirmed")}
    assert results["noise"]["cost_usd"] > expected["noise"]["cost_usd"]
