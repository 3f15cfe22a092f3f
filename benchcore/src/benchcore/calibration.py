"""A calibration run read as the judges' noise floor, and that floor read beside a later run's verdicts (pure).

A calibration run (``benchcore plan --calibrate``) compares two independent arms of the same new skill: every
judgment it holds is a reading of an equal-quality pair. :func:`summarize` counts them into a
:class:`~benchcore.model.Calibration`; :func:`floor` turns the one stored for the skill into results.json
``noise`` for a later run: the floor, and the exact chance (:mod:`benchcore.noise`) that the pass rules fail an
unchanged skill at it. docs/calibration.md says what this measures and what it does not.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from . import noise
from .model import ArmUsage, Calibration, Case, Judgment, NoiseCount, NoiseFloor, RunData

COMPARISON = "calibration"


def count(case: str, judgments: Iterable[Judgment]) -> NoiseCount:
    """One case's (or all cases') readings of equal pairs: decisive = A or B, first shown won = A."""
    js = list(judgments)
    decisive = sum(1 for j in js if j.verdict in ("A", "B"))
    first = sum(1 for j in js if j.verdict == "A")
    if not js:
        return NoiseCount(case=case, judgments=0, decisive=0, first_shown_won=0)
    low, high = noise.wilson(decisive, len(js))
    return NoiseCount(case=case, judgments=len(js), decisive=decisive, first_shown_won=first,
                      decisive_rate=round(decisive / len(js), 4), low=round(low, 4), high=round(high, 4))


def summarize(data: RunData) -> Calibration:
    """A calibration run's judgments (every judge, panels included; invalid trials left out) per case and pooled."""
    per_case: dict[str, list[Judgment]] = {c: [] for c in data.run.cases}
    for t in data.trials:
        if t.invalid or t.case not in per_case:
            continue
        record = t.comparisons.get(COMPARISON)
        if record is not None:
            per_case[t.case].extend(record.judgments)
    cases = tuple(count(c, js) for c, js in per_case.items())
    pooled = count("all", [j for js in per_case.values() for j in js])
    share = low = high = None
    if pooled.decisive:
        share = round(pooled.first_shown_won / pooled.decisive, 4)
        lo, hi = noise.wilson(pooled.first_shown_won, pooled.decisive)
        low, high = round(lo, 4), round(hi, 4)
    return Calibration(skill=data.run.skill.name, run_id=data.run.run_id, at=data.run.started_at,
                       judge_model=data.run.judge_model, cases_key=noise.cases_key(data.cases), cases=cases,
                       pooled=pooled, first_shown_share=share, first_shown_low=low, first_shown_high=high)


def void_reason(cal: Calibration, judge_model: Optional[str], cases: Sequence[Case]) -> Optional[str]:
    """Why a stored calibration does not hold for a run (another judge model, other cases), or None."""
    if cal.judge_model != judge_model:
        return (f"it measured the judge model {cal.judge_model or 'session default'}, and this run was judged by "
                f"{judge_model or 'the session default'}")
    if cal.cases_key != noise.cases_key(cases):
        return "the skill's cases changed since (a prompt, a criterion, or which cases there are)"
    if not cal.pooled.judgments:
        return "it holds no judgments"
    return None


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _p(x: float) -> str:
    return f"{x:.2f}" if x >= 0.005 else f"{x:.1g}"


def calibration_cost(arms: dict[str, ArmUsage], judges: Optional[ArmUsage], comparisons: int) -> tuple[
        Optional[float], Optional[float]]:
    """(dollars, cost-equivalent tokens) a calibration would take, from this run: its new arm twice and one
    comparison's share of its judges."""
    new = arms.get("new")
    if new is None:
        return None, None
    share = 1 / max(1, comparisons)
    tokens = 2 * new.cost_equivalent_tokens + (judges.cost_equivalent_tokens * share if judges else 0.0)
    usd = None
    if new.cost_usd is not None and (judges is None or judges.cost_usd is not None):
        usd = round(2 * new.cost_usd + (judges.cost_usd * share if judges else 0.0), 6)
    return usd, round(tokens, 6)


def _cost_phrase(usd: Optional[float], tokens: Optional[float]) -> str:
    if usd:
        return f"about ${usd:.2f} at this run's spend"
    if tokens:
        return f"about {tokens:,.0f} cost-equivalent tokens at this run's spend"
    return "two new-skill arms and one judge per trial"


def floor(cal: Optional[Calibration], data: RunData, arms: dict[str, ArmUsage], judges: Optional[ArmUsage],
          confirmed: bool = False, flipped: Optional[int] = None,
          confirmations: Optional[int] = None) -> NoiseFloor:
    """results.json ``noise`` of a run: the stored calibration read beside its verdicts, or why there is none."""
    usd, tokens = calibration_cost(arms, judges, len(data.run.comparisons))
    cost = _cost_phrase(usd, tokens)
    skill = data.run.skill.name
    how = f"'benchcore plan --calibrate {skill}' (/benchmark-skill --calibrate {skill})"
    extra = {"confirmed": confirmed, "flipped": flipped, "confirmations": confirmations}
    if cal is None:
        return NoiseFloor(status="none", cost_usd=usd, cost_equivalent_tokens=tokens, **extra,
                          sentence=f"No calibration of the judges exists for {skill}, so nothing says how often "
                                   f"they pick a winner between equal outputs; {how} measures it for {cost}.")
    why = void_reason(cal, data.run.judge_model, data.cases)
    if why is not None:
        return NoiseFloor(status="void", calibration_run=cal.run_id, cost_usd=usd, cost_equivalent_tokens=tokens,
                          **extra, sentence=f"The calibration {cal.run_id} does not hold for this run: {why}. "
                                            f"{how} measures it again for {cost}.")
    d, lo, hi = cal.pooled.decisive_rate, cal.pooled.low, cal.pooled.high
    b = cal.first_shown_share if cal.first_shown_share is not None else 0.5
    n = len(data.cases)
    alarm = noise.false_alarm([d] * n, b, confirmed)
    alarm_hi = noise.false_alarm([hi] * n, b, confirmed)
    fpass = noise.false_pass([d] * n, b, confirmed)
    reading = "with every decisive judgment confirmed by a swapped second reading, " if confirmed else ""
    sentence = (f"On equal outputs the judges picked a winner in {cal.pooled.decisive} of {cal.pooled.judgments} "
                f"judgments ({_pct(d)}; 95% Wilson interval {_pct(lo)} to {_pct(hi)}), calibration {cal.run_id}. "
                f"At that rate, {reading}an unchanged skill fails regression on these {n} "
                f"case{'s' if n != 1 else ''} with probability {_p(alarm)} ({_p(alarm_hi)} at the interval's "
                f"upper end), and a skill no better than none passes efficacy with probability {_p(fpass)}.")
    return NoiseFloor(status="calibrated", sentence=sentence, calibration_run=cal.run_id, decisive_rate=d, low=lo,
                      high=hi, first_shown_share=cal.first_shown_share, false_alarm_p=round(alarm, 6),
                      false_alarm_p_high=round(alarm_hi, 6), false_pass_p=round(fpass, 6), cases=cal.cases, **extra)


def noise_line(nf: NoiseFloor, skill: str) -> str:
    """The noise floor as render prints it for the session: with no calibration, one short clause and the
    command that measures it (results.json and the report keep the whole sentence); else the sentence."""
    if nf.status != "none":
        return nf.sentence
    cost = f" (about ${nf.cost_usd:.2f})" if nf.cost_usd else \
        f" (about {nf.cost_equivalent_tokens:,.0f} cost-equivalent tokens)" if nf.cost_equivalent_tokens else ""
    return f"judges not calibrated for {skill}; /benchmark-skill --calibrate {skill} measures them{cost}"


def red_sentence(nf: NoiseFloor) -> Optional[str]:
    """What a red regression verdict is worth at the floor: how likely noise alone makes one."""
    if nf.status != "calibrated" or nf.false_alarm_p is None:
        return None
    return (f"Noise alone turns an unchanged skill red with probability {_p(nf.false_alarm_p)} at the measured "
            f"floor: {'treat this red verdict as weak evidence' if nf.false_alarm_p >= 0.2 else 'noise rarely does this'}.")
