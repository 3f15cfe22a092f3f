"""Every skill's latest result -> IndexView, the leaderboard of ``index.html``. Pure.

Order: regression-red first, then gated (red only because the new version failed a hard assertion, so never
compared with the previous version: not "regressed"), then efficacy-red, then refused (a results file
that could not be read or whose verdicts disagree with its own numbers: shown
as unknown with why, never green), then incomplete (a run that fails only for
want of judgments: not a finding, so not red), then fragile, then clean green;
ties by skill name. Skills that have no result yet come last.
"""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import frozen

from .. import __version__
from ..model import SkillResult
from ..nosignal import leaderboard_count
from . import fmt
from .view.header import Badge, axis_badge, fragile_efficacy, fragile_regression

CATEGORIES = ("regression-red", "gated", "efficacy-red", "refused", "incomplete", "fragile", "green", "no-run")
CATEGORY_LABELS = {
    "regression-red": "regressed",
    # Red only because the new version failed a hard assertion: never compared with the previous version, so not
    # "regressed", as its headline says ("regressed none where compared").
    "gated": "failed a hard assertion",
    "efficacy-red": "not yet effective",
    "refused": "results refused",
    "incomplete": "not final",
    "fragile": "fragile",
    "green": "clean",
    "no-run": "not run",
}


@frozen
class LeaderboardEntry:
    """One skill as the index receives it: its latest result and the report's file name.

    ``result`` is None for a skill that has tests but no rendered run yet.
    """

    skill: str
    result: Optional[SkillResult]
    report_file: str  # "<skill>.html", relative to index.html
    # Extension (issue 13): the arms' model of a multi-model run; the row then links to its section.
    model: Optional[str] = None
    # Why its results file was refused (unreadable, or verdicts its own numbers contradict); ``result`` is
    # then None and the row says so, never green.
    refused: Optional[str] = None


@frozen
class IndexRow:
    skill: str
    href: Optional[str]
    category: str  # one of CATEGORIES, also the row's css class
    category_label: str
    badges: tuple[Badge, ...]
    efficacy_net: str
    regression_net: str
    fragile: Optional[str]  # "02-breaking-change, 1 flip from failing"
    headline: str
    run_id: str
    # Issue 41: what carried no signal in its latest run ("no signal: 1 case, 1 assertion"), or "".
    no_signal: str = ""


@frozen
class IndexView:
    title: str
    summary: str
    rows: tuple[IndexRow, ...]
    generated_at: str
    version: str


def category(result: Optional[SkillResult]) -> str:
    """Where a skill sorts on the leaderboard."""
    if result is None:
        return "no-run"
    eff, reg = result.verdicts.efficacy, result.verdicts.regression
    if reg.status == "fail" and not reg.incomplete:
        failing = [c.regression for c in result.cases if c.regression is not None and not c.regression.passed]
        return "gated" if failing and all(a.gated for a in failing) else "regression-red"
    if eff.status == "fail" and not eff.incomplete:
        return "efficacy-red"
    if eff.incomplete or reg.incomplete or result.incomplete or result.escalations:
        return "incomplete"
    if fragile_note(result) is not None:
        return "fragile"
    return "green"


def fragile_note(result: SkillResult) -> Optional[str]:
    """Why a skill is fragile (efficacy one flip from failing, or a regression case at one
    loss), or None."""
    notes = []
    if (case := fragile_efficacy(result)) is not None:  # the same rules label the skill's own page's badges
        notes.append(f"efficacy: {case}, 1 flip from failing")
    if (case := fragile_regression(result)) is not None:
        notes.append(f"regression: {case} at 1 loss")
    return "; ".join(notes) if notes else None


def build_index_view(entries: Sequence[LeaderboardEntry], generated_at: str) -> IndexView:
    """The leaderboard, sorted worst first."""
    rows = sorted((_row(e) for e in entries),
                  key=lambda r: (CATEGORIES.index(r.category), r.skill))
    skills = len({e.skill for e in entries})
    counts = {c: sum(1 for r in rows if r.category == c) for c in CATEGORIES}
    parts = [f"{counts[c]} {CATEGORY_LABELS[c]}" for c in CATEGORIES if counts[c]]
    summary = f"{fmt.plural(skills, 'skill')}" + (f" ({len(rows)} skill x model rows)" if len(rows) != skills else "") \
        + (": " + ", ".join(parts) if parts else "")
    return IndexView(title="Skill benchmarks", summary=summary, rows=tuple(rows),
                     generated_at=generated_at, version=__version__)


def _row(entry: LeaderboardEntry) -> IndexRow:
    result = entry.result
    if entry.refused is not None:
        return IndexRow(skill=entry.skill, href=None, category="refused", category_label=CATEGORY_LABELS["refused"],
                        badges=(), efficacy_net="?", regression_net="?", fragile=None,
                        headline=f"Not shown: {entry.refused}", run_id="")
    cat = category(result)
    if result is None:
        return IndexRow(skill=entry.skill, href=None, category=cat,
                        category_label=CATEGORY_LABELS[cat], badges=(), efficacy_net="—",
                        regression_net="—", fragile=None,
                        headline="No benchmark run rendered yet.", run_id="")
    eff, reg = result.verdicts.efficacy, result.verdicts.regression
    href = fmt.file_href(entry.report_file)
    if entry.model:
        href += "#" + fmt.model_anchor(entry.model)
    return IndexRow(
        skill=f"{entry.skill} on {entry.model}" if entry.model else entry.skill, href=href, category=cat,
        category_label=CATEGORY_LABELS[cat],
        badges=(axis_badge("Efficacy", eff, None), axis_badge("Regression", reg, None)),
        efficacy_net=_net(eff.net, eff.status), regression_net=_net(reg.net, reg.status),
        fragile=fragile_note(result), headline=result.headline, run_id=result.run_id,
        no_signal=f"no signal: {count}" if (count := leaderboard_count(result.no_signal)) else "")


def _net(net: Optional[int], status: str) -> str:
    return "n/a" if net is None or status == "n/a" else fmt.signed(net)
