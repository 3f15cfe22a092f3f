"""What the noise figures beside a red verdict are worth (issue 38, docs/calibration.md), measured: planted judges,
the real escalation rules (scoring.is_split, scoring.trial_outcome) and the real calibration code.

    python benchcore/bench/noise_wording.py [runs]      (300 by default; about a minute on one core)

Prints (1) how often an UNCHANGED skill's red is called "unlikely to be noise" (should stay under 5%), (2) how
often a real regression is, and (3) how often each case's 95% interval holds its true decisive rate.
"""

from __future__ import annotations

import random
import sys

from benchcore import calibration as C
from benchcore import noise as N
from benchcore import scoring
from benchcore.model import ComparisonRecord, Judgment


def _judge(rng, order, d, b, win=None, lose=None):
    """Noise (decisive d, naming the first shown at b), or a real preference (the new arm at win, the previous
    version at lose, whatever the order)."""
    if win is None:
        if rng.random() >= d:
            return Judgment(verdict="TIE")
        return Judgment(verdict="A" if rng.random() < b else "B", strength="clear")
    r = rng.random()
    who = "new" if r < win else ("previous" if r < win + lose else None)
    return Judgment(verdict="TIE") if who is None else Judgment(verdict="A" if order["A"] == who else "B",
                                                                strength="clear")


def case_losses(rng, d=0.4, b=0.5, win=None, lose=None) -> int:
    """One case through the real rules: an order per trial, one judge each, a panel in the same order on a split."""
    recs = []
    for _ in range(N.TRIALS):
        order = {"A": "new", "B": "previous"} if rng.random() < 0.5 else {"A": "previous", "B": "new"}
        recs.append(ComparisonRecord(order=order, judgments=(_judge(rng, order, d, b, win, lose),)))
    if scoring.is_split(scoring.first_outcome(r) for r in recs):
        recs = [ComparisonRecord(order=r.order, judgments=r.judgments + (_judge(rng, r.order, d, b, win, lose),
                                                                         _judge(rng, r.order, d, b, win, lose)))
                for r in recs]
    return sum(1 for r in recs if scoring.trial_outcome(r) == "LOSS")


def calibration_counts(rng, rates, b, judgments=5):
    """(decisive, judgments, first shown won) per case of a calibration of ``judgments`` readings a case."""
    out = []
    for d in rates:
        k = f = 0
        for _ in range(judgments):
            if rng.random() < d:
                k += 1
                f += rng.random() < b
        out.append((k, judgments, f))
    return out


def advice_for(rng, rates, b, losses):
    cc = calibration_counts(rng, rates, b)
    posts = C.case_posteriors([(k, n) for k, n, _ in cc])
    bias = N.Beta.of(sum(f for *_, f in cc), sum(k for k, _, _ in cc))
    worst = max(losses)
    if worst < 2:
        return None

    def fn(x, y):
        return N.loss_tail(x, y, worst)
    p = N.run_fail_p(N.predictive(fn, post, bias) for post in posts)
    hi = N.run_fail_p(N.upper(fn, post, bias) for post in posts)
    return C.advice(p, hi)


def main(runs: int) -> None:
    print(f"(1) unchanged skills, 5 cases, each run against its own 25-judgment calibration, {runs} runs:")
    for label, rates, b in (("40% decisive, unbiased", [0.4] * 5, 0.5), ("40% decisive, biased 0.8", [0.4] * 5, 0.8),
                            ("10% to 80% across cases", [0.1, 0.2, 0.4, 0.6, 0.8], 0.5),
                            ("10% decisive", [0.1] * 5, 0.5)):
        rng = random.Random(1)
        said = [advice_for(rng, rates, b, [case_losses(rng, d, b) for d in rates]) for _ in range(runs)]
        red = sum(1 for s in said if s)
        unlikely = sum(1 for s in said if s and s.startswith("Unlikely"))
        probably = sum(1 for s in said if s and s.startswith("Probably"))
        print(f"    {label}: red {red}; 'unlikely to be noise' {unlikely} ({unlikely / runs:.3f}); "
              f"'probably not noise' {probably} ({probably / runs:.3f})")
    print(f"(2) one case of five really regressed (the new version named at 10%), the rest unchanged at 40%, {runs} runs:")
    for lose in (0.5, 0.7, 0.9):
        rng = random.Random(2)
        red = unlikely = 0
        for _ in range(runs):
            losses = [case_losses(rng, win=0.1, lose=lose)] + [case_losses(rng) for _ in range(4)]
            said = advice_for(rng, [0.4] * 5, 0.5, losses[:1])
            red += losses[0] >= 2
            unlikely += bool(said and said.startswith("Unlikely"))
        print(f"    previous version named at {lose:.0%}: that case red {red / runs:.2f}; "
              f"'unlikely to be noise' {unlikely / runs:.2f}")
    print("(3) each case's 95% interval holds its true decisive rate (200 calibrations of 5 cases):")
    for label, rates in (("all 0.4", [0.4] * 5), ("0.2 to 0.6", [0.2, 0.3, 0.4, 0.5, 0.6]),
                         ("0.1 to 0.8", [0.1, 0.2, 0.4, 0.6, 0.8])):
        for n in (5, 10):
            rng = random.Random(1)
            held = pooled = total = 0
            for _ in range(200):
                ks = [sum(rng.random() < d for _ in range(n)) for d in rates]
                lo_all, hi_all = N.wilson(sum(ks), n * len(rates))
                for d, post in zip(rates, C.case_posteriors([(k, n) for k in ks])):
                    lo, hi = post.interval()
                    held += lo <= d <= hi
                    pooled += lo_all <= d <= hi_all
                    total += 1
            print(f"    {label}, {n} judgments a case: partial pooling {held / total:.2f}, "
                  f"pooled Wilson {pooled / total:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
