"""The verdict headline: both verdicts read together in one sentence, and the phrases the report shares (pure)."""

from __future__ import annotations

from typing import Optional, Sequence

from . import scoring
from .model import AxisResult, CaseResult, Escalation

HEADLINE_CASES = 3  # cases named per axis in the headline; the rest are counted


def trials_phrase(trials: Sequence[int]) -> str:
    """'trial 3', 'trials 1, 2'."""
    return ("trial " if len(trials) == 1 else "trials ") + ", ".join(str(t) for t in trials)


def _n(n: int, one: str, many: Optional[str] = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def unjudged(axis: AxisResult) -> tuple[int, ...]:
    """The trials of an axis with no outcome (unjudged, or invalid and to be re-run)."""
    return tuple(n for n, o in enumerate(axis.outcomes, start=1) if o is None)


def undecided(key: str, axis: AxisResult) -> bool:
    """The axis of a case fails only because trials are missing: favourable outcomes could still pass it."""
    missing = len(unjudged(axis))
    if key == "efficacy":
        return scoring.efficacy_undecided(axis.wins, axis.losses, missing, bool(axis.gated))
    return scoring.regression_undecided(axis.losses, missing, bool(axis.gated))


def counts_phrase(axis: AxisResult) -> str:
    """'3 wins, 1 tie, 1 loss'."""
    return f"{_n(axis.wins, 'win')}, {_n(axis.ties, 'tie')}, {_n(axis.losses, 'loss', 'losses')}"


def gate_phrase(key: str, gated_trials: Sequence[int]) -> str:
    """Why a gated axis fails: on efficacy 'a hard assertion failed on trial 3'; on regression the new version
    failed it (the previous version did not win anything: the gate fails the case on both axes)."""
    on = f" on {trials_phrase(gated_trials)}" if gated_trials else ""
    if key == "efficacy":
        return f"a hard assertion failed{on}"
    return f"the new version failed a hard assertion{on}"


def why_fails(key: str, axis: AxisResult, gated_trials: Sequence[int] = ()) -> str:
    """How a case fails one axis, in a few words backed by its trial strip ('2 wins, 3 ties, 0 losses:
    needs 3 wins'); for an axis still missing trials, which ones."""
    if axis.gated or gated_trials:
        return gate_phrase(key, gated_trials)
    missing = unjudged(axis)
    unjudged_note = f" ({trials_phrase(missing)} not judged yet)" if missing else ""
    if undecided(key, axis):
        # The axis's own reason says why each trial is missing (unjudged, invalid, never launched).
        if axis.reason and axis.reason.startswith("incomplete: "):
            return axis.reason.removeprefix("incomplete: ")
        return f"no judgment yet for {trials_phrase(missing)}"
    if key == "efficacy":
        needs = []
        if axis.wins + len(missing) < 3:  # not even a win on every unjudged trial would do
            needs.append("needs at least 3 wins")
        if axis.losses > 1:
            needs.append("allows at most 1 loss")
        return f"{counts_phrase(axis)}{unjudged_note}: {' and '.join(needs) or 'fails'}"
    return f"{_n(axis.losses, 'loss', 'losses')} to the previous version{unjudged_note}: allows at most 1"


def _named(items: list[str], more: tuple[str, str] = ("more case", "more cases")) -> str:
    shown = items[:HEADLINE_CASES]
    if len(items) > len(shown):
        shown.append(_n(len(items) - len(shown), *more))
    return _list(shown)


def headline(shape: str, cases: Sequence[CaseResult], gated_trials: dict[str, tuple[int, ...]],
             escs: Sequence[Escalation] = ()) -> str:
    """Both verdicts read together as one sentence, one form per crossing (both green, efficacy red, regression
    red, both red; two-arm; not final yet). Every clause is backed by what the page shows beside it: the cases
    named with their trial counts or gated trials, the count of failing cases and each axis's net margin."""
    three = shape != "two-arm"
    awaiting = {(e.case, e.comparison): e for e in escs}
    failed: dict[str, list[str]] = {"efficacy": [], "regression": []}
    waiting: list[str] = []
    unjudged_by_gate: list[str] = []  # cases whose regression fails only by the gate: never "regressed"
    for c in cases:
        for key, axis in (("efficacy", c.efficacy), ("regression", c.regression)):
            if axis is None or (key == "regression" and not three):
                continue
            esc = awaiting.get((c.id, key))
            if not axis.passed and not axis.gated and undecided(key, axis):
                waiting.append(f"{c.id} {key} ({why_fails(key, axis)})")
            elif esc is not None and not axis.gated:
                # The judges split: the panel may turn any judged trial, so the case is not decided either way.
                waiting.append(f"{c.id} {key} (the judges split; {trials_phrase(esc.trials)} "
                               f"{'awaits' if len(esc.trials) == 1 else 'await'} two more judges)")
            elif not axis.passed and key == "regression" and axis.gated:
                # The new version failed a hard assertion: the trial is a loss on both axes without being compared
                # with the previous version, so the edit is not said to have regressed (efficacy names the gate).
                unjudged_by_gate.append(c.id)
            elif not axis.passed:
                failed[key].append(f"{c.id} ({why_fails(key, axis, gated_trials.get(c.id, ()))})")
    nets = f"efficacy net {_signed(scoring.net(o for c in cases for o in c.efficacy.outcomes))}"
    if three:
        reg_outcomes = (o for c in cases if c.regression for o in c.regression.outcomes)
        nets += f", regression net {_signed(scoring.net(reg_outcomes))}"
    n = len(cases)
    every = "its 1 case" if n == 1 else f"all {n} cases"
    eff, reg = failed["efficacy"], failed["regression"]
    where = (f" where compared ({_named(unjudged_by_gate)} {'was' if len(unjudged_by_gate) == 1 else 'were'} not: "
             f"the new version failed a hard assertion)" if unjudged_by_gate else "")
    if waiting:
        decided = "; ".join(f"{key} on {_named(failed[key])}" for key in ("efficacy", "regression") if failed[key])
        return (f"Not final: {_named(waiting, ('more', 'more'))}"
                + (f"; already failing: {decided}" if decided else "") + f"; {nets} so far.")
    if not three:
        if not eff:
            return f"Valuable: the skill beats no skill on {every}; {nets}."
        return f"Does not beat no skill on {len(eff)} of {_n(n, 'case')}: {_named(eff)}; {nets}."
    if not eff and not reg:
        return f"Safe and valuable: the skill beats no skill on {every} and this edit regressed none; {nets}."
    if not eff:
        return f"Still valuable, but this edit regressed {_n(len(reg), 'case')}: {_named(reg)}; {nets}."
    if not reg:
        return (f"Does not beat no skill on {len(eff)} of {_n(n, 'case')}, though this edit regressed none{where}: "
                f"{_named(eff)}; {nets}.")
    return (f"Does not beat no skill on {len(eff)} of {_n(n, 'case')}, and this edit regressed "
            f"{_n(len(reg), 'case')}{where}: efficacy on {_named(eff)}; regression on {_named(reg)}; {nets}.")
