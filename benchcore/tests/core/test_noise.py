"""Table-driven tests of the noise-floor arithmetic (benchcore.noise), and simulations that must agree with it."""

import random

import pytest

from benchcore import noise
from benchcore.model import Case


@pytest.mark.parametrize("k,n,low,high", [
    (0, 0, 0.0, 1.0),
    (0, 10, 0.0, 0.2775),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
    (40, 100, 0.3094, 0.4980),
], ids=["nothing", "none-of-10", "half", "all", "forty-percent"])
def test_wilson(k, n, low, high):
    lo, hi = noise.wilson(k, n)
    assert (round(lo, 4), round(hi, 4)) == (low, high)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        noise.wilson(11, 10)


@pytest.mark.parametrize("d,b,confirmed,expected", [
    (0.4, 0.5, False, 0.2),
    (0.4, 0.9, False, 0.2),       # order is a coin per trial: bias does not move one reading's loss rate
    (0.4, 0.5, True, 0.04),       # both readings must name the other arm: (d/2)^2
    (0.4, 0.9, True, 0.0144),     # a biased judge contradicts itself on the swap: d^2 * b * (1 - b)
    (0.0, 0.5, True, 0.0),
    (1.0, 1.0, True, 0.0),        # always picks the first shown: never confirmed
], ids=["plain", "plain-biased", "confirmed", "confirmed-biased", "never-decisive", "pure-position"])
def test_loss_p(d, b, confirmed, expected):
    assert noise.loss_p(d, b, confirmed) == pytest.approx(expected)


def test_loss_p_rejects_a_rate_outside_0_1():
    with pytest.raises(ValueError):
        noise.loss_p(1.5)


@pytest.mark.parametrize("p,escalate,expected", [
    (0.2, False, 1 - (0.8 ** 5 + 5 * 0.2 * 0.8 ** 4)),  # the issue's 0.26
    (0.0, True, 0.0),
    (0.5, False, 1 - (0.5 ** 5 + 5 * 0.5 ** 5)),        # every judgment decisive, coin flips
    (0.2, True, 0.234486),                               # the split panel rescues some two-loss cases
], ids=["issue-per-case", "silent-judges", "coin-flips", "with-panels"])
def test_case_fail_p(p, escalate, expected):
    assert noise.case_fail_p(p, escalate=escalate) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("ps,expected", [
    ([], 0.0),
    ([0.5], 0.5),
    ([0.26272] * 5, 1 - 0.73728 ** 5),
], ids=["no-cases", "one", "issue-five-cases"])
def test_run_fail_p(ps, expected):
    assert noise.run_fail_p(ps) == pytest.approx(expected)


def test_issue_arithmetic_holds_without_panels_and_panels_lower_it():
    # The issue: 40% decisive, half each way, five cases -> about 0.78 a run. With the split panel: 0.74.
    plain = noise.run_fail_p([noise.case_fail_p(0.2, escalate=False)] * 5)
    assert round(plain, 2) == 0.78
    assert round(noise.false_alarm([0.4] * 5), 3) == 0.737
    assert noise.false_alarm([0.4] * 5, confirmed=True) == pytest.approx(0.0713, abs=1e-4)


def _judge(rng, d, b, new_first):
    """A planted judge on an equal pair: decisive with rate d, naming the first shown with rate b. -> +1/0/-1."""
    if rng.random() >= d:
        return 0
    first_wins = rng.random() < b
    return 1 if first_wins == new_first else -1


def _reading(rng, d, b, confirmed):
    new_first = rng.random() < 0.5
    o = _judge(rng, d, b, new_first)
    if confirmed and o:
        return o if _judge(rng, d, b, not new_first) == o else 0
    return o


def _simulate_case(rng, d, b, confirmed):
    firsts = [_reading(rng, d, b, confirmed) for _ in range(5)]
    if firsts.count(1) >= 2 and firsts.count(-1) >= 2:
        outs = []
        for f in firsts:
            votes = [f, _reading(rng, d, b, confirmed), _reading(rng, d, b, confirmed)]
            outs.append(next((o for o in (1, -1, 0) if votes.count(o) >= 2), 0))
        firsts = outs
    return firsts.count(-1) >= 2


@pytest.mark.parametrize("d,b,confirmed", [(0.4, 0.5, False), (0.4, 0.8, False), (1.0, 0.5, False),
                                           (0.6, 0.7, True)],
                         ids=["issue", "biased", "always-decisive", "confirmed-biased"])
def test_false_alarm_matches_a_simulation(d, b, confirmed):
    rng = random.Random(28)
    runs = 20000
    fails = sum(any(_simulate_case(rng, d, b, confirmed) for _ in range(5)) for _ in range(runs))
    exact = noise.false_alarm([d] * 5, b, confirmed)
    se = (exact * (1 - exact) / runs) ** 0.5
    assert abs(fails / runs - exact) < 4 * se + 1e-9


def test_cases_key_changes_with_a_case_and_not_with_its_description():
    a = Case(id="a", path="a/case.md", description="x", prompt="do it", soft_criteria=("good",))
    b = Case(id="a", path="a/case.md", description="y", prompt="do it", soft_criteria=("good",))
    c = Case(id="a", path="a/case.md", description="x", prompt="do it now", soft_criteria=("good",))
    assert noise.cases_key([a]) == noise.cases_key([b])
    assert noise.cases_key([a]) != noise.cases_key([c])
    assert noise.cases_key([a]) != noise.cases_key([a, a])
