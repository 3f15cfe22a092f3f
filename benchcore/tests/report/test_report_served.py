"""Issue 27 item 3: what served each run (Claude Code's version, the models the arms and judges ran on) in the
history, the trend ribbons and the headline. Older history lines, without those fields, still load."""

from __future__ import annotations

import json

from benchcore import history as hist
from benchcore.model import evolve
from benchcore.report.render import render_report
from benchcore.report.view.page import build_report_view
from benchcore.report.view.trend import build_ribbon

from report_sample import GENERATED_AT, failing_three_arm

OPUS, SONNET = "claude-opus-5-5", "claude-sonnet-5-5"


def served(entries, *, at_from: int, model: str, version: str):
    """The same history with what served each run: ``model`` and ``version`` from ``at_from`` on, OPUS on
    2.1.328 before."""
    out = []
    for i, e in enumerate(entries):
        m, v = (model, version) if i >= at_from else (OPUS, "2.1.328")
        out.append(evolve(e, claude_code=(v,), served={"new": (m,), "baseline": (m,), "judges": (OPUS,)}))
    return out


def test_a_red_run_after_the_model_changed_says_so_in_the_headline_and_marks_the_ribbon():
    result, run, history = failing_three_arm()  # the last run (3f2a) is red, the one before green
    history = served(history, at_from=len(history) - 1, model=SONNET, version="2.1.328")
    result = evolve(result, claude_code=("2.1.328",), served=dict(history[-1].served))
    note = hist.served_note(history, result.run_id)
    assert note.startswith("The model changed since the last green run (the baseline arm's model "
                           f"{OPUS} -> {SONNET}; the new arm's model {OPUS} -> {SONNET})")
    view = build_report_view(result, run, history, generated_at=GENERATED_AT)
    assert view.headline.endswith(note) and view.headline.startswith(result.headline)
    ribbon = build_ribbon("efficacy", result, history)
    assert [d.changed != "" for d in ribbon.dots] == [False] * (len(ribbon.dots) - 1) + [True]
    assert "a model changed at 1 run (marked)" in ribbon.description
    html = render_report(view)
    assert html.count('<line class="changed"') == 2  # both ribbons mark the run
    assert f"the new arm&#39;s model {OPUS} -&gt; {SONNET}</title></line>" in html  # escaped, as all model text


def test_claude_code_changing_is_named_too_and_nothing_when_nothing_changed():
    result, run, history = failing_three_arm()
    changed = served(history, at_from=len(history) - 1, model=OPUS, version="2.1.332")
    assert hist.served_note(changed, result.run_id).startswith(
        "Claude Code changed since the last green run (Claude Code 2.1.328 -> 2.1.332): the verdict may have "
        "changed with it, not with the skill.")
    same = served(history, at_from=0, model=OPUS, version="2.1.328")
    assert hist.served_note(same, result.run_id) == ""
    assert not any(d.changed for d in build_ribbon("efficacy", result, same).dots)
    # Lines written before issue 27 have no record of what served them: no change is claimed.
    assert hist.served_note(list(history[:-1]) + [changed[-1]], result.run_id) == ""


def test_history_lines_keep_what_served_and_old_lines_without_it_still_load():
    result, run, history = failing_three_arm()
    new = served(history, at_from=0, model=OPUS, version="2.1.332")
    text = hist.dumps(new)
    line = json.loads(text.splitlines()[-1])
    assert line["claude_code"] == ["2.1.332"] and line["served"]["judges"] == [OPUS]
    old = hist.dumps(history)
    assert "claude_code" not in old and "served" not in old  # empty: omitted, the contract's old shape
    entries, warnings, _ = hist.parse(old + text, "h.jsonl")
    assert not warnings and len(entries) == 2 * len(history) and entries[0].claude_code == () == tuple(entries[0].served)
