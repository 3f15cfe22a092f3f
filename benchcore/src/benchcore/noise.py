"""The judges' noise floor (docs/calibration.md): how often blind judges pick a winner between two outputs of
equal quality, and how likely the pass rules are to give a result at least as bad as a run's on that alone. Pure.

The model of one *reading* on an equal pair (a judgment, or with ``confirm_judgments`` a judgment and its swapped
confirmation taken together): decisive with probability ``d`` and, when decisive, naming the output shown first
with probability ``b`` (its position bias). The blind order is a fair coin per trial, drawn once: the panel's two
extra judges of a split read the same packet in the same order as the first, so their readings and the first one
are independent *given that order*, not independent outright (with b != 1/2 they lean the same way).

Every figure at given (d, b) is computed by enumeration (no simulation): :func:`case_dist` is the distribution of
a case's (wins, losses) over its five trials, panel escalation included. What a user reads is never a figure at
a point estimate: :func:`predictive` averages it over the Beta posterior of d and b from the calibration's counts
(uniform prior), and :func:`upper` is the largest it gets inside their 95% credible intervals.
``tests/core/test_noise.py`` holds tables and a simulation against the real escalation code (scoring.py).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from itertools import product
from math import comb, cos, exp, lgamma, log, pi, sqrt
from typing import Callable, Iterable, Sequence

from attrs import frozen

from .model import Case

TRIALS = 5          # the pass rules are defined on 5 trials
ALLOWED_LOSSES = 1  # regression holds at <= 1 loss per case
Z95 = 1.959963984540054  # the two-sided 95% normal quantile
WIN, TIE, LOSS = 0, 1, 2  # indices of (win, tie, loss) triples, from the new arm's side


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


def _unit(x: float, what: str) -> None:
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{what} must be between 0 and 1, not {x}")


def loss_p(decisive: float, first_shown: float = 0.5, confirmed: bool = False) -> float:
    """One reading's chance of a LOSS on an equal pair, the order a coin: d/2; or, for a judgment confirmed by an
    independent swapped reading, d^2*b*(1-b) (the independence is an assumption: :func:`confirmed_reading`)."""
    _unit(decisive, "decisive rate")
    _unit(first_shown, "first-shown share")
    if confirmed:
        return decisive * decisive * first_shown * (1 - first_shown)
    return decisive / 2


def confirmed_reading(decisive: float, first_shown: float) -> tuple[float, float]:
    """(d, b) of a confirmed reading if the confirming judge's error were independent of the first's: decisive
    2*d^2*b*(1-b), with no position bias left. Used only in docs and tests: a calibration measures it instead."""
    return 2 * decisive * decisive * first_shown * (1 - first_shown), 0.5


def judge_probs(d: float, b: float, new_first: bool) -> tuple[float, float, float]:
    """(win, tie, loss) of one reading for the new arm on an equal pair, given which one is shown first."""
    first, second = d * b, d * (1 - b)
    return (first, 1 - d, second) if new_first else (second, 1 - d, first)


def _majority(votes: Sequence[int]) -> int:
    for o in (WIN, LOSS, TIE):
        if sum(1 for v in votes if v == o) * 2 > len(votes):
            return o
    return TIE


def trial_joint(d: float, b: float) -> tuple[tuple[float, float, float], ...]:
    """J[f][g]: P(the first reading is f and a 3-judge panel's strict majority is g) for one trial; the order is
    drawn once and the panel's two extra judges read it too."""
    _unit(d, "decisive rate")
    _unit(b, "first-shown share")
    return _joint([(0.5, judge_probs(d, b, True)), (0.5, judge_probs(d, b, False))])


def _joint(orders: Sequence[tuple[float, Sequence[float]]]) -> tuple[tuple[float, float, float], ...]:
    """J[f][g] from (weight, (win, tie, loss) of one reading) per order: readings independent given the order."""
    j = [[0.0] * 3 for _ in range(3)]
    for weight, p in orders:
        for f, x, y in product(range(3), repeat=3):
            j[f][_majority((f, x, y))] += weight * p[f] * p[x] * p[y]
    return tuple(tuple(row) for row in j)


def _dist_of(j, trials: int, escalate: bool) -> dict[tuple[int, int], float]:
    pf = [sum(row) for row in j]
    cond = [[g / pf[f] if pf[f] else 0.0 for g in j[f]] for f in range(3)]
    dist: dict[tuple[int, int], float] = {}
    for nw in range(trials + 1):
        for nl in range(trials + 1 - nw):
            nt = trials - nw - nl
            pr = comb(trials, nw) * comb(trials - nw, nl) * pf[WIN] ** nw * pf[TIE] ** nt * pf[LOSS] ** nl
            if pr == 0.0:
                continue
            if escalate and nw >= 2 and nl >= 2:
                inner = {(0, 0): 1.0}
                for f, n in ((WIN, nw), (TIE, nt), (LOSS, nl)):
                    for _ in range(n):
                        inner = _add(inner, cond[f])
                for key, q in inner.items():
                    dist[key] = dist.get(key, 0.0) + pr * q
            else:
                dist[(nw, nl)] = dist.get((nw, nl), 0.0) + pr
    return dist


def efficacy_power(win: float, loss: float, cases: int = TRIALS, confirmed: bool = False) -> float:
    """P(a skill that really is better gets a green efficacy verdict on ``cases`` cases): each reading names the
    new arm at ``win`` and the other at ``loss`` whatever the order; confirmed, both independent readings must
    agree (win^2, loss^2). What confirmation costs in power (docs/calibration.md)."""
    w, l = (win * win, loss * loss) if confirmed else (win, loss)
    dist = _dist_of(_joint([(1.0, (w, 1 - w - l, l))]), TRIALS, True)
    return sum(q for (a, c), q in dist.items() if a >= 3 and c <= 1) ** cases


def _add(dist: dict, step: Sequence[float]) -> dict:
    out: dict[tuple[int, int], float] = {}
    for (w, l), q in dist.items():
        for o, r in enumerate(step):
            if r:
                key = (w + (o == WIN), l + (o == LOSS))
                out[key] = out.get(key, 0.0) + q * r
    return out


def case_dist(d: float, b: float = 0.5, trials: int = TRIALS, escalate: bool = True) -> dict[tuple[int, int], float]:
    """P(wins, losses) of one case on an equal pair. Trials are independent; a split (first readings: wins >= 2
    and losses >= 2) puts every trial to a 3-judge panel, in that trial's order, whose strict majority counts."""
    return dict(_case_dist(float(d), float(b), trials, escalate))


@lru_cache(maxsize=8192)
def _case_dist(d: float, b: float, trials: int, escalate: bool) -> tuple[tuple[tuple[int, int], float], ...]:
    return tuple(sorted(_dist_of(trial_joint(d, b), trials, escalate).items()))


def loss_tail(d: float, b: float, losses: int, trials: int = TRIALS) -> float:
    """P(a case on an equal pair ends with at least ``losses`` losses), panels included."""
    return min(1.0, sum(q for (_, l), q in _case_dist(float(d), float(b), trials, True) if l >= losses))


def case_fail_p(d: float, b: float = 0.5, trials: int = TRIALS, allowed: int = ALLOWED_LOSSES) -> float:
    """P(an unchanged case fails regression): more than ``allowed`` losses over its trials, panels included."""
    return loss_tail(d, b, allowed + 1, trials)


def case_pass_efficacy_p(d: float, b: float = 0.5, trials: int = TRIALS) -> float:
    """P(a case whose skill changes nothing passes efficacy by chance): wins >= 3 and losses <= 1."""
    return sum(q for (w, l), q in _case_dist(float(d), float(b), trials, True) if w >= 3 and l <= 1)


def run_fail_p(case_ps: Iterable[float]) -> float:
    """P(at least one case fails) over independent cases: 1 - prod(1 - p_case)."""
    hold = 1.0
    for p in case_ps:
        hold *= 1 - p
    return 1 - hold


def false_alarm(decisive: Sequence[float], first_shown: float = 0.5, confirmed: bool = False) -> float:
    """P(the pass rules fail an unchanged skill's regression) at given rates (one per case); ``confirmed``
    assumes independent confirming judges (:func:`confirmed_reading`)."""
    if confirmed:
        return run_fail_p(case_fail_p(*confirmed_reading(d, first_shown)) for d in decisive)
    return run_fail_p(case_fail_p(d, first_shown) for d in decisive)


def false_pass(decisive: Sequence[float], first_shown: float = 0.5, confirmed: bool = False) -> float:
    """P(the pass rules pass efficacy for a skill no better than none) at given rates: every case passes."""
    out = 1.0
    for d in decisive:
        out *= case_pass_efficacy_p(*(confirmed_reading(d, first_shown) if confirmed else (d, first_shown)))
    return out


# ----------------------------------------------------------------------------- the calibration's uncertainty


@frozen
class Beta:
    """A Beta(a, b) posterior of a rate: from k of n with a uniform prior, Beta(k + 1, n - k + 1)."""

    a: float
    b: float

    @classmethod
    def of(cls, k: int, n: int) -> "Beta":
        if not 0 <= k <= n:
            raise ValueError(f"k must be in 0..{n}, not {k}")
        return cls(k + 1.0, n - k + 1.0)

    @property
    def mean(self) -> float:
        return self.a / (self.a + self.b)

    def logpdf(self, x: float) -> float:
        return ((self.a - 1) * log(x) + (self.b - 1) * log(1 - x)
                + lgamma(self.a + self.b) - lgamma(self.a) - lgamma(self.b))

    def support(self) -> tuple[float, float]:
        """Where (nearly) all of its mass lies: the mean +- 12 standard deviations, inside [0, 1]."""
        s = self.a + self.b
        sd = sqrt(self.a * self.b / (s * s * (s + 1)))
        return max(0.0, self.mean - 12 * sd), min(1.0, self.mean + 12 * sd)

    def nodes(self, n: int = 32) -> tuple[tuple[float, float], ...]:
        """Gauss-Legendre nodes over its support, weighted by its density and normalised: sum(w * f(x)) ~ E f."""
        return _nodes(self, n)

    def quantile(self, q: float) -> float:
        """The q-quantile (to about 1e-4 of its spread)."""
        return self.quantiles((q,))[0]

    def quantiles(self, qs: Sequence[float], grid: int = 1000) -> tuple[float, ...]:
        """Quantiles by the midpoint rule on its support, interpolated linearly inside a grid cell."""
        lo, hi = self.support()
        step = (hi - lo) / grid
        xs = [lo + step * (i + 0.5) for i in range(grid)]
        top = self.logpdf(min(max(self.mean, xs[0]), xs[-1]))
        ps = [exp(self.logpdf(x) - top) for x in xs]
        total = sum(ps)
        out = []
        for q in qs:
            target, acc, x = q * total, 0.0, hi
            for i, p in enumerate(ps):
                if acc + p >= target:
                    x = lo + step * (i + (target - acc) / p if p else i)
                    break
                acc += p
            out.append(min(hi, max(lo, x)))
        return tuple(out)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """The equal-tailed credible interval."""
        return _interval(self, level)


@lru_cache(maxsize=1024)
def _interval(post: Beta, level: float) -> tuple[float, float]:
    lo, hi = post.quantiles(((1 - level) / 2, (1 + level) / 2))
    return lo, hi


@lru_cache(maxsize=1024)
def _nodes(post: Beta, n: int) -> tuple[tuple[float, float], ...]:
    lo, hi = post.support()
    xs, ws = _legendre(n)
    pts = [(lo + (hi - lo) * (x + 1) / 2, w) for x, w in zip(xs, ws)]
    raw = [(x, w * exp(post.logpdf(x))) for x, w in pts if 0.0 < x < 1.0]
    total = sum(w for _, w in raw)
    return tuple((x, w / total) for x, w in raw)


@lru_cache(maxsize=8)
def _legendre(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss-Legendre nodes and weights on [-1, 1] (Newton's method on P_n)."""
    xs, ws = [], []
    for i in range(1, n + 1):
        x = cos(pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            step = p1 / dp
            x -= step
            if abs(step) < 1e-15:
                break
        xs.append(x)
        ws.append(2 / ((1 - x * x) * dp * dp))
    return tuple(xs), tuple(ws)


def predictive(fn: Callable[[float, float], float], d: Beta, b: Beta, nd: int = 32, nb: int = 8) -> float:
    """E[fn(d, b)] over the two (independent) posteriors: the posterior predictive probability when ``fn`` is a
    probability at given rates."""
    bn = b.nodes(nb)
    return sum(wd * wb * fn(x, y) for x, wd in d.nodes(nd) for y, wb in bn)


def upper(fn: Callable[[float, float], float], d: Beta, b: Beta, level: float = 0.95, points: int = 9) -> float:
    """The largest fn(d, b) over the posteriors' credible intervals (a grid of d by b's ends and middle)."""
    dlo, dhi = d.interval(level)
    blo, bhi = b.interval(level)
    ds = [dlo + (dhi - dlo) * i / (points - 1) for i in range(points)]
    bs = {blo, b.mean, bhi} | ({0.5} if blo <= 0.5 <= bhi else set())
    return max(fn(x, y) for x in ds for y in sorted(bs))


def cases_key(cases: Sequence[Case]) -> str:
    """The cases a calibration holds for: sha256 over each case's id, prompt and soft criteria, in order."""
    h = hashlib.sha256()
    for c in cases:
        for part in (c.id, c.prompt, *c.soft_criteria):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        h.update(b"\x01")
    return h.hexdigest()
