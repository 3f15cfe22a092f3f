"""The pass rules of docs/run-format.md, the rules, as small pure functions.

Each function states its rule in one line; ``tests/test_scoring.py`` holds a
table of cases per function.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Iterable, Optional, Sequence

from .model import LOSS, TIE, WIN, AssertionResult, ComparisonRecord, Judgment, PositionBias

Outcome = Optional[str]  # WIN | TIE | LOSS | None (no judgment)


def collapse(verdict: str, order: dict[str, str], arm: str = "new") -> str:
    """One judgment -> the new arm's outcome: its letter WIN, the other letter LOSS, TIE TIE."""
    if verdict == "TIE":
        return TIE
    if verdict not in ("A", "B"):
        raise ValueError(f"verdict must be A, B or TIE, not {verdict!r}")
    return WIN if order.get(verdict) == arm else LOSS


def majority(outcomes: Sequence[str]) -> str:
    """A panel's outcome: the strict majority of collapsed outcomes, otherwise TIE."""
    for o in (WIN, LOSS, TIE):
        if sum(1 for x in outcomes if x == o) * 2 > len(outcomes):
            return o
    return TIE


def swapped(order: dict[str, str]) -> dict[str, str]:
    """The blind order with the letters swapped: what a confirming judge is shown."""
    return {"A": order["B"], "B": order["A"]}


def confirmed(reading: str, confirmation: Optional[Judgment], order: dict[str, str]) -> Outcome:
    """A reading confirmed by the swapped second one: TIE stays TIE; agreeing readings keep it; disagreeing
    ones make a TIE; an unanswered confirmation leaves it undecided (None)."""
    first = collapse(reading, order)
    if first == TIE:
        return TIE
    if confirmation is None:
        return None
    return first if collapse(confirmation.verdict, swapped(order)) == first else TIE


def readings(record: Optional[ComparisonRecord], confirm: bool = False) -> list[Outcome]:
    """Each judgment's collapsed outcome, confirmed by its swapped reading when ``confirm``."""
    if record is None:
        return []
    if not confirm:
        return [collapse(j.verdict, record.order) for j in record.judgments]
    conf = list(record.confirmations) + [None] * (len(record.judgments) - len(record.confirmations))
    return [confirmed(j.verdict, c, record.order) for j, c in zip(record.judgments, conf)]


def trial_outcome(record: Optional[ComparisonRecord], confirm: bool = False) -> Outcome:
    """A trial's outcome on one comparison: the panel majority, or None when nobody judged it (or, when
    ``confirm``, a decisive reading still awaits its swapped second reading)."""
    if record is None or not record.judgments:
        return None
    outs = readings(record, confirm)
    return None if None in outs else majority(outs)


def first_outcome(record: Optional[ComparisonRecord], confirm: bool = False) -> Outcome:
    """The first (original) judge's collapsed outcome (confirmed when ``confirm``), or None."""
    if record is None or not record.judgments:
        return None
    return readings(record, confirm)[0]


def flips(record: Optional[ComparisonRecord]) -> tuple[int, int]:
    """(confirmations answered, those that disagreed with the reading they confirm) in one record."""
    if record is None:
        return 0, 0
    answered = flipped = 0
    for j, c in zip(record.judgments, record.confirmations):
        if c is None or j.verdict == "TIE":
            continue
        answered += 1
        flipped += confirmed(j.verdict, c, record.order) == TIE
    return answered, flipped


def failed_assertions(results: Optional[Sequence[AssertionResult]]) -> tuple[AssertionResult, ...]:
    """The hard assertions that fail the gate: a non-zero exit or a time-out."""
    return tuple(r for r in (results or ()) if r.timed_out or r.exit != 0)


def counts(outcomes: Iterable[Outcome]) -> tuple[int, int, int]:
    """(wins, ties, losses) over outcomes; None is not counted."""
    outs = list(outcomes)
    return outs.count(WIN), outs.count(TIE), outs.count(LOSS)


def efficacy_pass(wins: int, losses: int, gated: bool, incomplete: bool) -> bool:
    """Efficacy passes when not gated, complete, wins >= 3 and losses <= 1 (over 5 trials)."""
    return not gated and not incomplete and wins >= 3 and losses <= 1


def regression_pass(losses: int, incomplete: bool, gated: bool = False) -> bool:
    """Regression passes when not gated, complete and losses <= 1; ties and wins both hold steady. A failed hard
    assertion fails the case outright on both axes, whatever the head-to-head."""
    return not gated and not incomplete and losses <= 1


def efficacy_undecided(wins: int, losses: int, missing: int, gated: bool) -> bool:
    """An incomplete efficacy case is undecided when it would pass if every missing trial were a win."""
    return missing > 0 and not gated and wins + missing >= 3 and losses <= 1


def regression_undecided(losses: int, missing: int, gated: bool = False) -> bool:
    """An incomplete regression case is undecided when it is not gated and its losses so far still allow it to
    hold."""
    return missing > 0 and not gated and losses <= 1


def flips_to_fail(wins: int, losses: int, passed: bool) -> Optional[int]:
    """How many trial flips turn a passing efficacy case into a failure: min(wins - 2, 2 - losses)."""
    return min(wins - 2, 2 - losses) if passed else None


def is_split(first_outcomes: Iterable[Outcome]) -> bool:
    """A comparison is split when its first judgments show wins >= 2 and losses >= 2 (None not counted)."""
    wins, _, losses = counts(first_outcomes)
    return wins >= 2 and losses >= 2


def net(outcomes: Iterable[Outcome]) -> int:
    """Net margin: wins - losses (gated trials are already LOSS)."""
    wins, _, losses = counts(outcomes)
    return wins - losses


def sign_test_p(wins: int, losses: int) -> Optional[float]:
    """Exact two-sided binomial p-value (p = 0.5) of wins vs losses; None when both are 0."""
    n = wins + losses
    if n == 0:
        return None
    k = min(wins, losses)
    tail = Fraction(sum(comb(n, i) for i in range(k + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


def position_bias(judgments: Iterable[Judgment]) -> PositionBias:
    """Over every judgment (panel members included): decisive = A or B; first shown won = A."""
    js = list(judgments)
    return PositionBias(first_shown_won=sum(1 for j in js if j.verdict == "A"),
                        decisive=sum(1 for j in js if j.verdict in ("A", "B")))


def efficacy_fragile(cases: Sequence[tuple[str, Optional[int]]]) -> tuple[Optional[str], Optional[int]]:
    """(case, flips) with the fewest flips_to_fail, first in case order on a tie; (None, None) if none."""
    best: tuple[Optional[str], Optional[int]] = (None, None)
    for case_id, flips in cases:
        if flips is not None and (best[1] is None or flips < best[1]):
            best = (case_id, flips)
    return best


def regression_fragile(cases: Sequence[tuple[str, int]]) -> Optional[str]:
    """The first case (in case order) at exactly one regression loss, or None."""
    return next((case_id for case_id, losses in cases if losses == 1), None)


def plural(n: int, word: str) -> str:
    """'1 case', '2 cases'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
