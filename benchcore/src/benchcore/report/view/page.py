"""SkillResult + RunData + history -> ReportView: everything ``<skill>.html`` shows. Pure.

In the manner of coverage.py's ``FileData``: the view holds only strings,
booleans and tuples of smaller views. Every number is already formatted and
every sentence already written, so ``report.html.j2`` only loops and looks up.
No clock, no filesystem: the time of generation is an argument.

Each section of the page is built in the module named for it, with its view classes:
``view_header`` (badges, the run's facts, the jump to the first failure),
``trend`` (the ribbons), ``view_verdict`` (headline, counts, notices),
``view_cost`` (cost, estimate, budget), ``view_environment`` (what the arms shared) and ``view_cases`` with
``view_evidence`` (the case panels and the trials behind them).
"""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import evolve, frozen

from ... import __version__
from ...model import HistoryEntry, RunData, SkillResult
from .. import fmt
from .trend import Ribbon, build_ribbon
from ...history import served_note
from .nosignal import NoSignalView, no_signal_view
from .cases import CasePanel, case_panel
from .cost import CostTable, cost_table
from .environment import EnvironmentView, environment_view
from .header import (FRAGILE, Badge, MetaItem, axis_badge, efficacy_chip, first_failure, fragile_efficacy,
                     fragile_regression, header_meta, regression_chip)
from .verdict import INFORMATIVE_NOTE, NoiseView, counts_line, noise_view, run_notices


def _version(v: str) -> Optional[tuple[int, ...]]:
    parts = v.split(".")
    return tuple(int(p) for p in parts) if len(parts) == 3 and all(p.isdigit() for p in parts) else None


def older_than_floor(versions: Sequence[str], floor: Optional[str]) -> tuple[str, ...]:
    """The notice for a run recorded on a Claude Code older than the supported floor (the bundled example, made
    on 2.1.178, is one): what the run relied on may have behaved otherwise, so its verdict is shown, not vouched
    for; none when every version is at or above the floor, or nothing is known."""
    low = _version(floor) if floor else None
    old = sorted(v for v in versions if low is not None and (key := _version(v)) is not None and key < low)
    if not old:
        return ()
    return (f"Recorded on Claude Code {', '.join(old)}, older than {floor}, the oldest version this benchmark "
            f"supports: this run predates it, and what the run relied on (hooks, transcripts, agent types) may "
            f"have behaved otherwise there. Run the benchmark again on Claude Code {floor} or newer before relying "
            f"on this verdict.",)


@frozen
class ReportView:
    title: str
    skill: str
    badges: tuple[Badge, ...]
    meta: tuple[MetaItem, ...]
    jump_href: Optional[str]
    jump_label: Optional[str]
    ribbons: tuple[Ribbon, ...]
    informative_note: str
    headline: str
    counts: str
    notices: tuple[str, ...]
    noise: Optional[NoiseView]
    cost: CostTable
    environment: Optional[EnvironmentView]
    cases: tuple[CasePanel, ...]
    generated_at: str
    version: str
    # Issue 41: what carried no signal (None: everything did).
    no_signal: Optional[NoSignalView] = None


def build_report_view(result: SkillResult, run: RunData, history: Sequence[HistoryEntry], *,
                      generated_at: str, floor: Optional[str] = None) -> ReportView:
    """The whole report of one run. ``history`` is newest last and includes this run; ``floor``: the oldest
    Claude Code version the benchmark supports (benchcore/data/claude_code.json), for the notice a run recorded
    on an older one carries."""
    trials = {(t.case, t.trial): t for t in run.trials}
    descriptions = {c.id: c.description for c in run.cases}
    two_arm = result.verdicts.regression.status == "n/a"
    jump = first_failure(result)
    return ReportView(
        title=f"{result.skill}: benchmark run {result.run_id}",
        skill=result.skill,
        badges=(evolve(axis_badge("Efficacy", result.verdicts.efficacy, efficacy_chip(result)),
                       label=FRAGILE if fragile_efficacy(result) is not None else None),
                evolve(axis_badge("Regression", result.verdicts.regression, regression_chip(result)),
                       label=FRAGILE if fragile_regression(result) is not None else None)),
        meta=header_meta(result, run),
        jump_href=fmt.case_href(jump) if jump else None,
        jump_label=f"Jump to the first failure: {jump}" if jump else None,
        ribbons=(build_ribbon("efficacy", result, history),
                 build_ribbon("regression", result, history)),
        informative_note=INFORMATIVE_NOTE,
        headline=" ".join(t for t in (result.headline, served_note(history, result.run_id)) if t),
        counts=counts_line(result, two_arm),
        notices=run_notices(result, run) + older_than_floor(result.claude_code, floor),
        noise=noise_view(result),
        cost=cost_table(result, two_arm, run),
        environment=environment_view(result),
        cases=tuple(case_panel(c, descriptions.get(c.id, c.description), trials, run, two_arm)
                    for c in result.cases),
        generated_at=generated_at,
        version=__version__,
        no_signal=no_signal_view(result),
    )

