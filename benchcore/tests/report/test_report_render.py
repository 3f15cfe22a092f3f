"""The rendered pages: what a reader sees in <skill>.html and index.html.

Assertions are on the HTML itself, parsed with the standard library, so they
hold however the templates are laid out.

Golden files: ``tests/report_golden/report-sample.html`` and ``tests/report_golden/index-sample.html``
are the rendered sample pages with the inlined CSS and the version replaced by
placeholders. After an intended change to the templates or the view, refresh them with

    BENCHCORE_UPDATE_GOLDEN=1 python -m pytest -q tests/test_report_render.py

and review the diff before committing. On a mismatch the test writes the actual
page next to pytest's temporary directory and names it in the failure.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchcore.model import evolve
from benchcore.report import LeaderboardEntry, build_index_view, build_report_view
from benchcore.report.render import render_index, render_report

from report_sample import GENERATED_AT, HOSTILE, clean_two_arm, failing_three_arm
from places import TESTS

GOLDEN = TESTS / "report_golden"


class Page(HTMLParser):
    """Elements (tag, attrs, text inside) of a page, in document order."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(html)

    VOID = {"meta", "link", "br", "img", "input", "hr", "line", "circle"}

    def _separate(self):  # an element boundary separates words, as a browser shows them
        for el in self._open:
            el["text"] += " "

    def handle_starttag(self, tag, attrs):
        self._separate()
        el = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(el)
        if tag not in self.VOID:
            self._open.append(el)

    def handle_startendtag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": dict(attrs), "text": ""})

    def handle_endtag(self, tag):
        self._separate()
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i]["tag"] == tag:
                del self._open[i:]
                break

    def handle_data(self, data):
        for el in self._open:
            el["text"] += data

    def find(self, tag, cls=None, **attrs):
        out = []
        for el in self.elements:
            if el["tag"] != tag:
                continue
            if cls is not None and cls not in el["attrs"].get("class", "").split():
                continue
            if all(el["attrs"].get(k) == v for k, v in attrs.items()):
                out.append(el)
        return out


def text(el) -> str:
    return " ".join(el["text"].split())


def report_html(build=failing_three_arm, **changes) -> str:
    result, run, history = build()
    if changes:
        result = evolve(result, **changes)
    return render_report(build_report_view(result, run, history, generated_at=GENERATED_AT))


@pytest.fixture(scope="module")
def failing():
    return report_html()


@pytest.fixture(scope="module")
def clean():
    return report_html(clean_two_arm)


# --- header -----------------------------------------------------------------

def test_badges_say_pass_fail_in_words(failing, clean):
    assert [text(b) for b in Page(failing).find("span", "badge")] == [
        "Efficacy fail net +6", "Regression fail net -3"]
    badges = Page(clean).find("span", "badge")
    assert [text(b) for b in badges] == ["Efficacy pass net +8", "Regression n/a"]
    assert [b["attrs"]["class"] for b in badges] == ["badge pass", "badge na"]


def test_green_badge_chip_links_to_the_fragile_case(clean):
    [chip] = Page(clean).find("a", "chip")
    assert text(chip) == "narrowest: 01-alpha, 2 flips from failing"
    assert chip["attrs"]["href"] == "#case-01-alpha"
    assert Page(clean).find("details", id="case-01-alpha")


def test_jump_link_only_when_something_failed(failing, clean):
    # 01-small-diff has a regression loss but passes: the first failure is 02's.
    [jump] = Page(failing).find("p", "jump")
    assert text(jump) == "Jump to the first failure: 02-breaking-change"
    href = Page(failing).find("a", href="#case-02-breaking-change")
    assert href and Page(failing).find("details", id="case-02-breaking-change")
    assert Page(clean).find("p", "jump") == []


def test_temperature_difference_is_said_plainly(failing):
    assert ("requested 0, ran at the session default: Claude Code cannot set a "
            "subagent's temperature") in text(Page(failing).find("dl", "meta")[0])


# --- ribbons and verdict ----------------------------------------------------

def test_ribbons_are_inline_svg_with_one_ringed_dot_each(failing):
    page = Page(failing)
    svgs = page.find("svg", "spark")
    assert len(svgs) == 2
    assert len(page.find("circle", "ring")) == 2
    assert len(page.find("circle", "dot")) == 7 + 6  # the regression ribbon has a gap
    ribbons = [text(r) for r in page.find("div", "ribbon")]
    assert "net +6 -2 vs previous run 6 of 7 green" in ribbons[0]
    assert "informative only, never gating" in ribbons[0]
    assert "first-shown output won 9 of 14 decisive verdicts (64%)" in ribbons[0]
    assert "sign test: p = 0.031 over 11 wins vs 2 losses" in ribbons[0]


def test_headline_counts_and_notices(failing):
    page = Page(failing)
    assert text(page.find("p", "headline")[0]) == (
        "Not final: 03-hostile efficacy (no judgment yet for trial 5); already failing: efficacy on "
        "02-breaking-change (a hard assertion failed on trial 2); efficacy net +6, regression net -3 so far.")
    assert text(page.find("p", "counts")[0]) == (
        "Efficacy: 1 of 3 cases pass · Regression: 2 of 3 cases hold")
    notices = [text(n) for n in page.find("p", "notice")]
    assert any(n.startswith("This run is incomplete") for n in notices)
    assert ("02-breaking-change regression: judges split on trials 1, 3-5; ask two more judges "
            "per trial (collect names them)") in notices


# --- cost -------------------------------------------------------------------

def cost_rows(html):
    start = html.index('<section class="cost"')
    table = Page(html[start:html.index("</section>", start)])
    return [text(th) for th in table.find("th", scope="row")]


def test_environment_section_lists_each_fact_with_its_source_and_marks_the_shared(failing, clean):
    start = failing.index('<section class="environment"')
    section = failing[start:failing.index("</section>", start)]
    rows = Page(section).find("tr")[1:]
    assert len(rows) == 11
    shared = [text(th) for th in Page(section).find("th", scope="row") if "shared with the session" in text(th)]
    assert [s.replace(" shared with the session", "") for s in shared] == [
        "Hooks that ran", "Repository git status", "Other skills visible"]
    assert "3 facts shared with the session." in text(Page(section).find("p", "footnote")[0])
    assert "transcripts: 15 of 15 cells" in section and "includeGitInstructions true" in section
    assert "<script>alert(1)</script>" not in section and "&lt;script&gt;" in section
    assert '<section class="environment"' not in clean  # a run collected before the card shows none


def test_cost_rows_present_or_absent_with_the_shape(failing, clean):
    assert cost_rows(failing) == ["new skill", "previous version", "no skill"]
    # the clean sample also carries plan's estimate, whose table follows with its own rows
    assert cost_rows(clean) == ["new skill", "no skill", "new skill", "no skill", "in all"]


def test_cost_ratios_formatted_and_unknown_price_never_zero(failing, clean):
    ratios = [text(r) for r in Page(failing).find("span", "ratio")]
    assert ratios == ["new / no-skill 1.80x", "new / previous 0.95x"]
    assert [text(r) for r in Page(clean).find("span", "ratio")] == ["new / no-skill 1.33x"]
    [unpriced] = Page(failing).find("td", "unpriced")
    assert text(unpriced) == "no price for claude-mystery-9"
    assert "$0.00" not in failing
    assert "shared-context cache overhead" in text(Page(failing).find("p", "footnote")[0])


# --- cases ------------------------------------------------------------------

def test_panels_open_exactly_for_expanded_cases():
    result, _, _ = failing_three_arm()
    cases = tuple(evolve(c, expanded=c.id == "02-breaking-change") for c in result.cases)
    page = Page(report_html(cases=cases))
    details = page.find("details", "case")
    assert [(d["attrs"]["id"], "open" in d["attrs"]) for d in details] == [
        ("case-01-small-diff", False), ("case-02-breaking-change", True),
        ("case-03-hostile", False)]


def test_a_clean_run_rests_fully_collapsed(clean):
    details = Page(clean).find("details")
    assert len(details) == 2
    assert not any("open" in d["attrs"] for d in details)


def test_a_two_arm_run_has_no_empty_regression_half(clean):
    # Bug: each panel kept an empty "Regression n/a" half, and the cost note spoke of new / previous.
    page = Page(clean)
    assert page.find("p", "axis-na") == []
    assert [text(h) for h in page.find("h3")] == ["Estimate against actual", "Efficacy", "Efficacy"]
    assert [text(p) for p in page.find("span", "pill")] == ["Efficacy: pass"] * 4
    footnote = text(page.find("p", "footnote")[0])
    assert "new / no-skill" in footnote and "previous" not in footnote


def test_each_case_says_its_result_while_collapsed(failing, clean):
    # The design's one-line "so what" per case, in the summary line a collapsed panel still shows.
    page = Page(failing)
    assert [(s["attrs"]["class"], text(s)) for s in page.find("span", "so-what")] == [
        ("so-what so-what-pass", "Beats no skill (3 wins, 1 tie, 1 loss); holds against the previous version "
                                 "(1 loss)."),
        # Bug: "regressed: ..." for a trial never compared with the previous version.
        ("so-what so-what-fail", "Does not beat no skill: a hard assertion failed on trial 2; not compared with the "
                                 "previous version on trial 2: the new version failed a hard assertion."),
        ("so-what so-what-incomplete", "Efficacy not final: no judgment yet for trial 5; holds against the previous "
                                       "version (1 loss)."),
    ]
    assert [text(s) for s in Page(clean).find("span", "so-what")] == [
        "Beats no skill (4 wins, 1 tie, 0 losses)."] * 2


def test_trial_strip_and_summaries(failing):
    page = Page(failing)
    [case1] = page.find("details", id="case-01-small-diff")
    strips = [[text(li) for li in page.elements[page.elements.index(ol) + 1:]
               if li["tag"] == "li" and "cell" in li["attrs"].get("class", "")][:5]
              for ol in page.find("ol", "strip")[:2]]
    assert strips[0] == ["trial 1 WIN", "trial 2 WIN", "trial 3 TIE", "trial 4 WIN", "trial 5 LOSS"]
    summaries = [text(p) for p in page.find("p", "axis-summary")]
    assert summaries[:4] == [
        "Efficacy: pass 3 wins, 1 tie, 1 loss: passes (needs >= 3 wins and <= 1 loss)",
        "Regression: hold 0 wins, 4 ties, 1 loss: passes (holds with <= 1 loss)",
        "Efficacy: fail gated: a hard assertion failed on trial 2",
        "Regression: fail gated: the new version failed a hard assertion on trial 2",
    ]
    assert summaries[4] == "Efficacy: not final incomplete: no judgment for trial 5"


def test_losing_trial_outputs_and_judges_are_shown(failing):
    page = Page(failing)
    pres = [p["text"].strip() for p in page.find("pre")]
    assert "Fixed a bug in trial 5" in pres
    assert "fix: empty diff, previous version, trial 2" in pres
    judges = [text(li) for li in page.find("li") if page.find("span", "judge")
              and "Judge" in li["text"]]
    assert "Judge 1 preferred no skill (clear): baseline names the file Fixed a bug" in judges


def test_gated_trial_shows_commands_exit_and_stderr(failing):
    page = Page(failing)
    # The gate fails the case on both axes, so each half shows the failed commands.
    assert [s["text"].strip() for s in page.find("pre", "stderr")] == ["grep: no BREAKING CHANGE line"] * 2
    commands = [text(c) for c in page.find("div", "command")]
    assert commands[0].startswith("grep -q 'BREAKING CHANGE' \"$OUTPUT\" exit 1")
    assert commands[1] == "sleep 100 timed out"
    assert commands[2:] == commands[:2]


def test_invalid_trial_is_listed_with_its_reason(failing):
    invalid = [text(p) for p in Page(failing).find("p", "invalid")]
    assert len(invalid) == 1
    assert invalid[0].startswith("trial 3 is invalid and must be re-run: the arm read")


# --- safety -----------------------------------------------------------------

def test_hostile_text_is_escaped_everywhere(failing):
    assert "<script" not in failing.lower()
    # Every </details> in the source closes a panel that the template opened.
    assert failing.count("</details>") == failing.count("<details")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;/details&gt; {{ 7*7 }} {% if %}" in failing
    # Text is data, never template: {{ 7*7 }} is printed as written, never evaluated.
    assert "49" not in re.sub(r"<style>.*?</style>", "", failing, flags=re.S)
    # And it reads back, unescaped, as the exact hostile string wherever it was written.
    page = Page(failing)
    assert HOSTILE in text(page.find("span", "case-desc")[2])
    assert HOSTILE in [p["text"].strip() for p in page.find("pre")]
    assert any(HOSTILE in b["text"] for b in page.find("blockquote"))


def test_a_hostile_case_id_cannot_break_out_of_attributes():
    result, run, history = failing_three_arm()
    bad = '"><img src=x onerror=alert(1)>'
    cases = tuple(evolve(c, id=bad) if c.id == "02-breaking-change" else c for c in result.cases)
    html = report_html(cases=cases)
    page = Page(html)
    assert page.find("img") == []
    assert page.find("details", id="case-" + bad)
    assert page.find("a", href="#case-%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E")


def resource_urls(html: str) -> list[str]:
    page = Page(html)
    urls = []
    for el in page.elements:
        for attr in ("src", "href", "srcset", "data", "action", "poster", "xlink:href"):
            if attr in el["attrs"]:
                urls.append(el["attrs"][attr])
    return urls


def test_no_external_resource_and_no_script(failing, clean):
    index = render_index(build_index_view(
        [LeaderboardEntry("commit-message", failing_three_arm()[0], "commit-message.html")],
        GENERATED_AT))
    for html in (failing, clean, index):
        assert "http://" not in html and "https://" not in html
        assert "<script" not in html
        assert "@import" not in html and "url(" not in html
        for url in resource_urls(html):
            assert url.startswith("#") or re.fullmatch(r"[\w.%-]+\.html", url), url
        [csp] = Page(html).find("meta", **{"http-equiv": "Content-Security-Policy"})
        assert csp["attrs"]["content"].startswith("default-src 'none'")


def test_css_is_inlined_from_the_real_file(failing):
    from importlib import resources
    css = resources.files("benchcore.report").joinpath("report.css").read_text("utf-8")
    [style] = Page(failing).find("style")
    assert css.strip() in style["text"]
    assert '<link' not in failing


def test_footer_names_the_time_and_version(failing):
    from benchcore import __version__
    footer = text(Page(failing).find("footer")[0])
    assert footer == f"Generated {GENERATED_AT} by benchcore {__version__}."


def test_render_is_a_pure_function_of_the_view():
    assert report_html() == report_html()


# --- index ------------------------------------------------------------------

def test_index_lists_skills_worst_first_with_links():
    failing_result = failing_three_arm()[0]
    clean_result = clean_two_arm()[0]
    html = render_index(build_index_view([
        LeaderboardEntry("clean-skill", clean_result, "clean-skill.html"),
        LeaderboardEntry("commit-message", failing_result, "commit-message.html"),
    ], GENERATED_AT))
    page = Page(html)
    rows = page.find("th", scope="row")
    assert [text(r).split()[0] for r in rows] == ["commit-message", "clean-skill"]
    assert [a["attrs"]["href"] for a in page.find("a")] == [
        "commit-message.html", "clean-skill.html"]
    assert [text(b) for b in page.find("span", "badge")] == [
        "Efficacy fail net +6", "Regression fail net -3", "Efficacy pass net +8", "Regression n/a"]
    # The sample's regression fails only where its new version failed a hard assertion: not "regressed" (issue 39).
    assert text(page.find("p", "counts")[0]) == "2 skills: 1 failed a hard assertion, 1 clean"
    assert [text(s) for s in page.find("span", "standing")] == ["failed a hard assertion", "clean"]


# --- golden -----------------------------------------------------------------

def normalized(html: str) -> str:
    """The page without its inlined CSS and version, which change for unrelated reasons."""
    from benchcore import __version__
    html = re.sub(r"<style>.*?</style>", "<style>/* report.css */</style>", html, flags=re.S)
    return html.replace(f"benchcore {__version__}", "benchcore VERSION")


@pytest.mark.parametrize("name", ["report-sample.html", "index-sample.html"])
def test_golden(name, tmp_path):
    if name == "report-sample.html":
        actual = report_html()
    else:
        actual = render_index(build_index_view([
            LeaderboardEntry("commit-message", failing_three_arm()[0], "commit-message.html"),
            LeaderboardEntry("clean-skill", clean_two_arm()[0], "clean-skill.html"),
        ], GENERATED_AT))
    actual = normalized(actual)
    gold = GOLDEN / name
    if os.environ.get("BENCHCORE_UPDATE_GOLDEN") == "1":
        gold.parent.mkdir(exist_ok=True)
        gold.write_text(actual, encoding="utf-8")
    expected = gold.read_text(encoding="utf-8")
    if actual != expected:
        out = tmp_path / name
        out.write_text(actual, encoding="utf-8")
        pytest.fail(f"{name} differs from {gold}; actual output saved as {out}. If the change "
                    "is intended: BENCHCORE_UPDATE_GOLDEN=1 python -m pytest -q "
                    "tests/test_report_render.py, then review the diff.")
