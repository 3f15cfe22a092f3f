"""The judges' noise floor (docs/calibration.md): how often blind judges pick a winner between two outputs of
equal quality, and how likely the pass rules are to fail an unchanged skill at that rate. Pure.

The model: on an equal pair a judgment is decisive with probability ``d`` and, when decisive, names the output
shown first with probability ``b`` (its position bias). Order is a fair coin per trial, so one judgment makes the
new arm lose with probability d/2 whatever ``b``; a confirmed judgment (the swapped second reading by a fresh
judge must agree) makes it lose with probability d^2 * b * (1 - b). Every probability here is exact (binomial
enumeration over the trials and cases, panel escalation included); ``tests/core/test_noise.py`` holds a table of
cases per function and a simulation that agrees with them.
"""

from __future__ import annotations

import hashlib
from itertools import product
from math import comb, sqrt
from typing import Iterable, Sequence

from .model import Case

TRIALS = 5          # the pass rules are defined on 5 trials
ALLOWED_LOSSES = 1  # regression holds at <= 1 loss per case
Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a proportion k/n; (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"k must be in 0..{n}, not {k}")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def loss_p(decisive: float, first_shown: float = 0.5, confirmed: bool = False) -> float:
    """One judge's chance of a LOSS on an equal pair: d/2, or d^2*b*(1-b) when a swapped reading must agree."""
    _unit(decisive, "decisive rate")
    _unit(first_shown, "first-shown share")
    if confirmed:
        return decisive * decisive * first_shown * (1 - first_shown)
    return decisive / 2


def _unit(x: float, what: str) -> None:
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{what} must be between 0 and 1, not {x}")


def _panel(first: int, p: float) -> tuple[float, float, float]:
    """(win, tie, loss) of a 3-judge panel whose original judge said ``first`` (+1, 0, -1): the strict majority."""
    out = [0.0, 0.0, 0.0]
    for a, b in product((1, 0, -1), repeat=2):
        pr = (p if a else 1 - 2 * p) * (p if b else 1 - 2 * p)
        votes = (first, a, b)
        for idx, o in enumerate((1, 0, -1)):
            if votes.count(o) >= 2:
                out[idx] += pr
                break
        else:
            out[1] += pr
    return out[0], out[1], out[2]


def case_outcomes(p: float, trials: int = TRIALS, escalate: bool = True) -> dict[tuple[int, int], float]:
    """P(wins, losses) of one case on an equal pair, each judgment WIN and LOSS at p; a split (first judgments
    wins >= 2 and losses >= 2) puts every trial to a 3-judge panel whose strict majority is its outcome."""
    _unit(2 * p, "twice the loss probability")
    dist: dict[tuple[int, int], float] = {}
    for firsts in product((1, 0, -1), repeat=trials):
        pr = 1.0
        for f in firsts:
            pr *= p if f else 1 - 2 * p
        if pr == 0.0:
            continue
        if escalate and firsts.count(1) >= 2 and firsts.count(-1) >= 2:
            inner = {(0, 0): 1.0}
            for f in firsts:
                w, _, l = _panel(f, p)
                nxt: dict[tuple[int, int], float] = {}
                for (a, b), q in inner.items():
                    for key, r in (((a + 1, b), w), ((a, b), 1 - w - l), ((a, b + 1), l)):
                        if r:
                            nxt[key] = nxt.get(key, 0.0) + q * r
                inner = nxt
            for key, q in inner.items():
                dist[key] = dist.get(key, 0.0) + pr * q
        else:
            key = (firsts.count(1), firsts.count(-1))
            dist[key] = dist.get(key, 0.0) + pr
    return dist


def case_fail_p(p: float, trials: int = TRIALS, allowed: int = ALLOWED_LOSSES, escalate: bool = True) -> float:
    """P(an unchanged case fails regression): more than ``allowed`` losses over its trials, panels included."""
    return sum(q for (_, l), q in case_outcomes(p, trials, escalate).items() if l > allowed)


def case_pass_efficacy_p(p: float, trials: int = TRIALS, escalate: bool = True) -> float:
    """P(a case whose skill changes nothing passes efficacy by chance): wins >= 3 and losses <= 1, panels included."""
    return sum(q for (w, l), q in case_outcomes(p, trials, escalate).items() if w >= 3 and l <= 1)


def run_fail_p(case_ps: Iterable[float]) -> float:
    """P(at least one case fails) over independent cases: 1 - prod(1 - p_case)."""
    hold = 1.0
    for p in case_ps:
        hold *= 1 - p
    return 1 - hold


def false_alarm(decisive: Sequence[float], first_shown: float = 0.5, confirmed: bool = False) -> float:
    """P(the pass rules fail an unchanged skill's regression): one decisive rate per case, panels included."""
    return run_fail_p(case_fail_p(loss_p(d, first_shown, confirmed)) for d in decisive)


def false_pass(decisive: Sequence[float], first_shown: float = 0.5, confirmed: bool = False) -> float:
    """P(the pass rules pass efficacy for a skill no better than none): every case passes by chance."""
    out = 1.0
    for d in decisive:
        out *= case_pass_efficacy_p(loss_p(d, first_shown, confirmed))
    return out


def cases_key(cases: Sequence[Case]) -> str:
    """The cases a calibration holds for: sha256 over each case's id, prompt and soft criteria, in order."""
    h = hashlib.sha256()
    for c in cases:
        for part in (c.id, c.prompt, *c.soft_criteria):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        h.update(b"\x01")
    return h.hexdigest()
