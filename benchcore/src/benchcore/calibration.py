"""A calibration run read as the judges' noise floor, and that floor read beside a later run's verdicts (pure).

A calibration run (``benchcore plan --calibrate``) compares two independent arms of the same new skill: every
judgment it holds is a reading of an equal-quality pair. :func:`summarize` counts them into a
:class:`~benchcore.model.Calibration` (with ``confirm_judgments``, its swapped confirmations too); :func:`choose`
picks, among the skill's stored calibrations, the one that applies to a later run (same skill version, judge
and arm models as served, cases and confirmation), a complete one before a partial one; :func:`floor` reads it
beside that run's verdicts as results.json ``noise``: beside each red regression case the judges decided, how
likely noise alone gives at least its losses, carrying the calibration's uncertainty (:mod:`benchcore.noise`).
docs/calibration.md has the model, its formulas and what it does not cover.
"""

from __future__ import annotations

from math import inf
from typing import Iterable, Optional, Sequence, Union

from . import noise, scoring
from .model import (ArmUsage, Calibration, CalibrationStore, Case, CaseResult, ComparisonRecord, Escalation,
                    NoiseCount, NoiseFloor, NoiseRed, RunData)

COMPARISON = "calibration"
ALPHA = 0.05  # below this (and its upper end too) a red is called unlikely to be noise
WITHIN = " within the calibration's 95% intervals"


def count(case: str, records: Iterable[ComparisonRecord], confirmed: bool = False) -> NoiseCount:
    """One case's (or all cases') readings of equal pairs: decisive = A or B, first shown won = A; with
    ``confirmed``, the answered confirmations of decisive judgments, the flips and the agreeing first-shown ones."""
    recs = list(records)
    js = [j for r in recs for j in r.judgments]
    decisive = sum(1 for j in js if j.verdict in ("A", "B"))
    first = sum(1 for j in js if j.verdict == "A")
    conf = {}
    if confirmed:
        answered = flipped = agreeing_first = 0
        for r in recs:
            for j, c in zip(r.judgments, r.confirmations):
                if c is None or j.verdict == "TIE":
                    continue
                answered += 1
                if scoring.confirmed(j.verdict, c, r.order) == scoring.TIE:
                    flipped += 1
                elif j.verdict == "A":
                    agreeing_first += 1
        conf = {"confirmations": answered, "flipped": flipped, "confirmed_first_shown": agreeing_first}
    if not js:
        return NoiseCount(case=case, judgments=0, decisive=0, first_shown_won=0, **conf)
    low, high = noise.wilson(decisive, len(js))
    return NoiseCount(case=case, judgments=len(js), decisive=decisive, first_shown_won=first,
                      decisive_rate=round(decisive / len(js), 4), low=round(low, 4), high=round(high, 4), **conf)


def _trial_judged(record: Optional[ComparisonRecord], confirmed: bool) -> bool:
    if record is None or not record.judgments:
        return False
    return not confirmed or None not in scoring.readings(record, True)


def summarize(data: RunData, skill_version: Optional[str] = None) -> Calibration:
    """A calibration run's judgments (every judge, panels included; invalid trials left out) per case and pooled,
    with what it is of: the skill version, the judge and arm models (asked for and served), how many of its
    trials are judged (``partial`` when not all)."""
    confirmed = data.run.confirm_judgments
    per_case: dict[str, list[ComparisonRecord]] = {c: [] for c in data.run.cases}
    judged = 0
    judge_served: set[str] = set()
    arm_served: set[str] = set()
    for t in data.trials:
        if t.case not in per_case:
            continue
        for arm in ("new", "twin"):
            if arm in t.usage:
                arm_served.update(t.usage[arm].models)
        if t.invalid:
            continue
        for u in t.judge_usage:
            judge_served.update(u.models)
        record = t.comparisons.get(COMPARISON)
        if record is not None:
            per_case[t.case].append(record)
            judge_served.update(j.model for j in (*record.judgments, *record.confirmations) if j and j.model)
        judged += _trial_judged(record, confirmed)
    cases = tuple(count(c, rs, confirmed) for c, rs in per_case.items())
    pooled = count("all", [r for rs in per_case.values() for r in rs], confirmed)
    share = low = high = None
    if pooled.decisive:
        share = round(pooled.first_shown_won / pooled.decisive, 4)
        lo, hi = noise.wilson(pooled.first_shown_won, pooled.decisive)
        low, high = round(lo, 4), round(hi, 4)
    planned = len(data.run.cases) * data.run.trials
    return Calibration(skill=data.run.skill.name, run_id=data.run.run_id, at=data.run.started_at,
                       judge_model=data.run.judge_model, cases_key=noise.cases_key(data.cases), cases=cases,
                       pooled=pooled, first_shown_share=share, first_shown_low=low, first_shown_high=high,
                       skill_version=skill_version or data.run.skill_version, judge_served=tuple(sorted(judge_served)),
                       arm_model=data.run.model, arm_served=tuple(sorted(arm_served)), trials=planned, judged=judged,
                       partial=judged < planned, confirmed=confirmed)


# ----------------------------------------------------------------------------- which calibration applies


def is_partial(cal: Calibration) -> bool:
    """Partial: not every planned trial judged. A file written before ``partial`` was recorded is partial when it
    holds fewer judgments than its cases' five trials each."""
    if cal.partial is not None:
        return cal.partial
    return cal.pooled.judgments < len(cal.cases) * noise.TRIALS


def _models(ms: Sequence[str]) -> str:
    return ", ".join(ms) if ms else "nothing recorded"


def mismatches(cal: Calibration, data: RunData, judges_served: Sequence[str] = (),
               new_served: Sequence[str] = ()) -> list[str]:
    """Why a stored calibration does not hold for a run, in words (empty: it holds)."""
    out = []
    if cal.judge_model != data.run.judge_model:
        out.append(f"it measured the judge model {cal.judge_model or 'session default'}, and this run was judged by "
                   f"{data.run.judge_model or 'the session default'}")
    elif cal.judge_served and judges_served and not set(judges_served) <= set(cal.judge_served):
        out.append(f"its judges were served {_models(cal.judge_served)}, and this run's "
                   f"{_models(tuple(judges_served))}")
    if cal.trials is not None and cal.arm_model != data.run.model:
        out.append(f"its arms ran on {cal.arm_model or 'the session default'}, and this run's on "
                   f"{data.run.model or 'the session default'}")
    elif cal.arm_served and new_served and not set(new_served) <= set(cal.arm_served):
        out.append(f"its arms were served {_models(cal.arm_served)}, and this run's new arm "
                   f"{_models(tuple(new_served))}")
    if cal.skill_version and data.run.skill_version and cal.skill_version != data.run.skill_version:
        out.append("the skill changed since (its files differ from the version calibrated)")
    if cal.cases_key != noise.cases_key(data.cases):
        out.append("the skill's cases changed since (a prompt, a criterion, or which cases there are)")
    if data.run.confirm_judgments and not cal.confirmed:
        out.append("it ran without confirm_judgments, so it did not measure how often a swapped confirmation "
                   "agrees, and this run confirms every decisive judgment")
    if not cal.pooled.judgments:
        out.append("it holds no judgments")
    return out


def void_reason(cal: Calibration, judge_model: Optional[str], cases: Sequence[Case]) -> Optional[str]:
    """Why a stored calibration does not hold for another judge model or other cases, or None (the configured
    judge model and the case set only; :func:`mismatches` checks everything)."""
    if cal.judge_model != judge_model:
        return (f"it measured the judge model {cal.judge_model or 'session default'}, and this run was judged by "
                f"{judge_model or 'the session default'}")
    if cal.cases_key != noise.cases_key(cases):
        return "the skill's cases changed since (a prompt, a criterion, or which cases there are)"
    if not cal.pooled.judgments:
        return "it holds no judgments"
    return None


Stored = Union[None, Calibration, CalibrationStore, Sequence[Calibration]]


def stored(cals: Stored) -> tuple[Calibration, ...]:
    if cals is None:
        return ()
    if isinstance(cals, Calibration):
        return (cals,)
    if isinstance(cals, CalibrationStore):
        return cals.calibrations
    return tuple(cals)


def choose(cals: Stored, data: RunData, judges_served: Sequence[str] = (),
           new_served: Sequence[str] = ()) -> tuple[Optional[Calibration], list[str], list[Calibration]]:
    """(the calibration that applies, or None; why the nearest one does not when none does; the applicable ones
    not used). A complete one is used before a partial one, then the newest."""
    every = sorted(stored(cals), key=lambda c: c.at, reverse=True)
    if not every:
        return None, [], []
    why = {c.run_id: mismatches(c, data, judges_served, new_served) for c in every}
    fit = [c for c in every if not why[c.run_id]]
    if fit:
        best = min(fit, key=lambda c: (is_partial(c), fit.index(c)))
        return best, [], [c for c in fit if c is not best]
    nearest = min(every, key=lambda c: (len(why[c.run_id]), is_partial(c), every.index(c)))
    return None, why[nearest.run_id], [nearest]


def keep(existing: Stored, cal: Calibration, most: int = 20) -> CalibrationStore:
    """The store with ``cal`` added (newest first; the same run replaced): nothing else is dropped until there are
    more than ``most``, and then partial ones go before complete ones, the oldest first."""
    rest = [c for c in stored(existing) if c.run_id != cal.run_id]
    every = sorted([cal, *rest], key=lambda c: c.at, reverse=True)
    while len(every) > most:
        drop = next((c for c in reversed(every) if is_partial(c)), every[-1])
        every.remove(drop)
    return CalibrationStore(calibrations=tuple(every))


# ----------------------------------------------------------------------------- the calibration's posteriors


def reading_counts(c: NoiseCount, confirmed: bool) -> tuple[int, int, int]:
    """(decisive readings, readings, decisive ones that named the output shown first). A confirmed reading is a
    TIE judgment, or a decisive one whose confirmation answered: decisive when it agreed."""
    if not confirmed:
        return c.decisive, c.judgments, c.first_shown_won
    answered, flipped = c.confirmations or 0, c.flipped or 0
    return answered - flipped, c.judgments - c.decisive + answered, c.confirmed_first_shown or 0


def concentration(counts: Sequence[tuple[int, int]]) -> float:
    """How many pseudo-judgments the other cases lend one case (a beta-binomial's a + b, by the method of
    moments): infinite when the per-case rates vary no more than binomial noise does (pool them fully), small
    when they vary more (each case mostly its own)."""
    used = [(k, n) for k, n in counts if n > 0]
    K, N, C = sum(k for k, _ in used), sum(n for _, n in used), len(used)
    if C < 2 or N <= C or K in (0, N):
        return inf
    p = K / N
    spread = sum(n * (k / n - p) ** 2 for k, n in used) / (C - 1)
    rho = (spread / (p * (1 - p)) - 1) / (N / C - 1)
    if rho <= 0:
        return inf
    if rho >= 1:
        return 0.0
    return (1 - rho) / rho


def case_posteriors(counts: Sequence[tuple[int, int]]) -> list[noise.Beta]:
    """Each case's Beta posterior of its decisive rate, partially pooled: a uniform prior plus ``s`` pseudo-
    judgments at the other cases' rate, then the case's own counts. ``s`` is :func:`concentration`, at most the
    other cases' judgments and at most as many as the case's own (the mean case's when it has none): five
    judgments a case cannot tell cases that differ from cases that agree, and this cap keeps each case's 95%
    interval around its true rate 90-98% of the time either way (docs/calibration.md), where pooling fully
    falls to 80% when they differ."""
    s_hat = concentration(counts)
    K, N = sum(k for k, _ in counts), sum(n for _, n in counts)
    used = [n for _, n in counts if n > 0]
    mean_n = N / len(used) if used else 0.0
    out = []
    for k, n in counts:
        others, other_k = N - n, K - k
        s = min(s_hat, others, n if n else mean_n)
        m = other_k / others if others else 0.5
        out.append(noise.Beta(1 + s * m + k, 1 + s * (1 - m) + n - k))
    return out


def _fmt_p(x: float) -> str:
    """A probability for a five-second read: 0.24, 0.003, 0.0003; never 0 (under 0.0001 then)."""
    if x < 0.0001:
        return "under 0.0001"
    if x < 0.01:
        return f"{float(f'{x:.1g}'):.4f}".rstrip("0")
    return f"{x:.2f}"


def _upto(x: float, where: str = "") -> str:
    """'up to 0.40 within the calibration's 95% intervals', or 'under 0.0001 throughout' for a tiny one."""
    return "under 0.0001 throughout" + where if x < 0.0001 else f"up to {_fmt_p(x)}{where}"


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def advice(p: float, p_high: float) -> str:
    """What a red's noise figure means, for a five-second read."""
    if p_high < ALPHA:
        return "Unlikely to be noise: look at the evidence"
    if p < ALPHA:
        return ("Probably not noise, but the calibration is too small to rule it out: look at the evidence, and "
                "calibrate with more trials")
    return "Within what noise gives: run again or calibrate with more trials"


def _red_cases(cases: Sequence[CaseResult], escs: Sequence[Escalation]) -> tuple[list[CaseResult], list[str]]:
    """(red regression cases the judges decided, red ones a hard assertion made)."""
    waiting = {e.case for e in escs if e.comparison == "regression"}
    judged, gated = [], []
    for c in cases:
        a = c.regression
        if a is None or a.passed:
            continue
        if a.gated:
            gated.append(c.id)
        elif not a.incomplete and c.id not in waiting:
            judged.append(c)
    return judged, gated


# ----------------------------------------------------------------------------- cost, and the floor itself


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


def _what(cal: Calibration) -> str:
    """'calibration X (complete: 25 of 25 trials judged)'."""
    if cal.trials is not None and cal.judged is not None:
        state = (f"partial: {cal.judged} of {cal.trials} trials judged" if is_partial(cal)
                 else f"complete: {cal.judged} of {cal.trials} trials judged")
    else:
        state = "partial" if is_partial(cal) else "complete"
    return f"calibration {cal.run_id} ({state})"


def floor(cals: Stored, data: RunData, arms: dict[str, ArmUsage], judges: Optional[ArmUsage],
          confirmed: bool = False, flipped: Optional[int] = None, confirmations: Optional[int] = None,
          cases: Sequence[CaseResult] = (), escs: Sequence[Escalation] = (),
          regression_final: bool = True) -> NoiseFloor:
    """results.json ``noise`` of a run: the calibration that applies read beside its verdicts, or why there is
    none. ``cases``/``escs``: the run's case results and pending panels (reds get a noise figure when the judges
    decided them); ``regression_final``: the regression verdict is not waiting on judgments."""
    usd, tokens = calibration_cost(arms, judges, len(data.run.comparisons))
    cost = _cost_phrase(usd, tokens)
    skill = data.run.skill.name
    how = f"'benchcore plan --calibrate {skill}' (/benchmark-skill --calibrate {skill})"
    extra = {"confirmed": confirmed, "flipped": flipped, "confirmations": confirmations}
    if not stored(cals):
        return NoiseFloor(status="none", cost_usd=usd, cost_equivalent_tokens=tokens, **extra,
                          sentence=f"No calibration of the judges exists for {skill}, so nothing says how often "
                                   f"they pick a winner between equal outputs; {how} measures it for {cost}.")
    judges_served = tuple(judges.models) if judges is not None else ()
    new_served = tuple(arms["new"].models) if "new" in arms else ()
    cal, why, others = choose(cals, data, judges_served, new_served)
    if cal is None:
        near = others[0]
        would = (f"a calibration of this skill as it is now, judged by "
                 f"{_models(judges_served) if judges_served else data.run.judge_model or 'the session default'}"
                 f" with arms on {_models(new_served) if new_served else data.run.model or 'the session default'}"
                 + (" and confirm_judgments on" if data.run.confirm_judgments else "") + " would")
        n = len(stored(cals))
        lead = (f"The {_what(near)} does not apply to this run" if n == 1 else
                f"None of the {n} stored calibrations applies to this run; the nearest, {_what(near)}, does not")
        return NoiseFloor(status="void", calibration_run=near.run_id, cost_usd=usd, cost_equivalent_tokens=tokens,
                          partial=is_partial(near), **extra,
                          sentence=f"{lead}: {'; '.join(why)}. {would}: {how} measures it for {cost}.")
    return _calibrated(cal, others, data, confirmed, flipped, confirmations, cases, escs, regression_final, extra)


def _calibrated(cal: Calibration, others: list[Calibration], data: RunData, confirmed: bool,
                flipped: Optional[int], confirmations: Optional[int], cases: Sequence[CaseResult],
                escs: Sequence[Escalation], regression_final: bool, extra: dict) -> NoiseFloor:
    three = "regression" in data.run.comparisons
    by_id = {c.case: c for c in cal.cases}
    counts = [reading_counts(by_id[c.id], confirmed) if c.id in by_id else (0, 0, 0) for c in data.cases]
    posts = dict(zip((c.id for c in data.cases), case_posteriors([(k, n) for k, n, _ in counts])))
    pk, pn, pf = reading_counts(cal.pooled, confirmed)
    bias = noise.Beta.of(pf, pk)
    ids = [c.id for c in data.cases]

    def pred(fn, cid):
        return noise.predictive(fn, posts[cid], bias), noise.upper(fn, posts[cid], bias)

    def fail(x, y):
        return noise.case_fail_p(x, y)

    def passes(x, y):
        return noise.case_pass_efficacy_p(x, y)

    fp = [pred(passes, cid) for cid in ids]
    false_pass, false_pass_high = 1.0, 1.0
    for p, hi in fp:
        false_pass, false_pass_high = false_pass * p, false_pass_high * hi
    d, lo, hi = cal.pooled.decisive_rate, cal.pooled.low, cal.pooled.high
    n = len(ids)
    on = f"these {n} case{'s' if n != 1 else ''}"
    rate = (f"On equal outputs the judges picked a winner in {cal.pooled.decisive} of {cal.pooled.judgments} "
            f"judgments ({_pct(d)}; 95% Wilson interval {_pct(lo)} to {_pct(hi)}), {_what(cal)}.")
    if confirmed:
        rate += (f" Confirmed by a swapped reading, {pk} of {pn} readings stayed decisive (its confirmations "
                 f"flipped {cal.pooled.flipped or 0} of {cal.pooled.confirmations or 0}); the figures that follow "
                 f"use those.")
    if is_partial(cal):
        rate += " It is partial: its figures are wider than a complete calibration's would be."
    if cal.trials is None:
        rate += (" It was stored before calibrations recorded the skill version and the models served, so whether "
                 "those match this run is not known.")
    newer = [c for c in others if c.at > cal.at]
    if newer:
        rate += f" A newer partial calibration ({', '.join(c.run_id for c in newer)}) is kept but not used."
    alarm = alarm_high = None
    clauses = []
    if three:
        fa = [pred(fail, cid) for cid in ids]
        alarm = noise.run_fail_p(p for p, _ in fa)
        alarm_high = noise.run_fail_p(h for _, h in fa)
        clauses.append(f"an unchanged skill fails regression on {on} with probability {_fmt_p(alarm)} "
                       f"({_upto(alarm_high, WITHIN)})")
    clauses.append(f"a skill no better than none passes efficacy with probability {_fmt_p(false_pass)} "
                   f"({_upto(false_pass_high)})")
    sentence = rate + " From it, " + ", and ".join(clauses) + "."
    reds: list[NoiseRed] = []
    red_p = red_p_high = red_sentence = None
    judged_reds, gated = _red_cases(cases, escs) if three else ([], [])
    tails: dict[int, list[tuple[float, float]]] = {}
    for c in judged_reds:
        losses = c.regression.losses
        if losses not in tails:
            tails[losses] = [pred(lambda x, y, l=losses: noise.loss_tail(x, y, l), cid) for cid in ids]
        p, p_high = tails[losses][ids.index(c.id)]
        p_any = noise.run_fail_p(q for q, _ in tails[losses])
        p_any_high = noise.run_fail_p(h for _, h in tails[losses])
        reds.append(NoiseRed(case=c.id, losses=losses, p=round(p, 6), p_high=round(p_high, 6),
                             p_any=round(p_any, 6), p_any_high=round(p_any_high, 6), sentence=(
            f"{c.id}: {losses} losses. Noise alone gives {losses} or more in this case with probability "
            f"{_fmt_p(p)} ({_upto(p_high, WITHIN)})"
            + (f", and in some case of these {n} with probability {_fmt_p(p_any)} ({_upto(p_any_high)})"
               if n > 1 else "") + f". {advice(p_any, p_any_high)}.")))
    if gated:
        red_sentence = (f"This red verdict stands on a failed hard assertion ({', '.join(gated)}), which judge noise "
                        f"cannot produce: read the assertion's output.")
    elif reds and regression_final:
        worst = min(reds, key=lambda r: (r.p_any, -r.losses))
        red_p, red_p_high = worst.p_any, worst.p_any_high
        where = f"some case of these {n}" if n > 1 else "this case"
        red_sentence = (f"Is this red verdict noise? Noise alone gives {worst.losses} or more losses in {where} "
                        f"with probability {_fmt_p(red_p)} ({_upto(red_p_high, WITHIN)}). "
                        f"{advice(red_p, red_p_high)}.")
    return NoiseFloor(status="calibrated", sentence=sentence, calibration_run=cal.run_id, decisive_rate=d, low=lo,
                      high=hi, first_shown_share=cal.first_shown_share,
                      false_alarm_p=None if alarm is None else round(alarm, 6),
                      false_alarm_p_high=None if alarm_high is None else round(alarm_high, 6),
                      false_pass_p=round(false_pass, 6), false_pass_p_high=round(false_pass_high, 6),
                      cases=cal.cases, reds=tuple(reds), red_p=red_p, red_p_high=red_p_high,
                      red_sentence=red_sentence, partial=is_partial(cal),
                      calibration_flipped=cal.pooled.flipped if confirmed else None,
                      calibration_confirmations=cal.pooled.confirmations if confirmed else None, **extra)


def noise_line(nf: NoiseFloor, skill: str) -> str:
    """The noise floor as render prints it for the session: with no calibration, one short clause and the
    command that measures it (results.json and the report keep the whole sentence); else the sentence, and the
    red verdict's noise figure when it has one."""
    if nf.status != "none":
        return nf.sentence + (f" {nf.red_sentence}" if nf.red_sentence else "")
    cost = f" (about ${nf.cost_usd:.2f})" if nf.cost_usd else \
        f" (about {nf.cost_equivalent_tokens:,.0f} cost-equivalent tokens)" if nf.cost_equivalent_tokens else ""
    return f"judges not calibrated for {skill}; /benchmark-skill --calibrate {skill} measures them{cost}"


def red_sentence(nf: NoiseFloor) -> Optional[str]:
    """What the red regression verdict is worth: how likely noise alone gives its worst red case in some case of
    the run, or that a hard assertion made it; None when there is nothing to say."""
    return nf.red_sentence if nf.status == "calibrated" else None


def flip_sentence(nf: NoiseFloor) -> Optional[str]:
    """With confirmed judging: this run's flips beside the calibration's (on equal pairs, where every flip is
    noise; a run's real differences flip less)."""
    if not nf.confirmed:
        return None
    s = (f"Confirmed judging: every decisive judgment was read again with the order swapped by a fresh judge; "
         f"{nf.flipped or 0} of {nf.confirmations or 0} confirmation{'s' if (nf.confirmations or 0) != 1 else ''} "
         f"disagreed and made that trial a tie")
    if nf.calibration_confirmations:
        lo, hi = noise.wilson(nf.calibration_flipped or 0, nf.calibration_confirmations)
        s += (f" (on equal outputs, in the calibration, {nf.calibration_flipped or 0} of "
              f"{nf.calibration_confirmations} flipped: 95% Wilson interval {_pct(lo)} to {_pct(hi)}; a run's real "
              f"differences flip less)")
        if nf.confirmations and (nf.flipped or 0) / nf.confirmations > hi:
            s += (". That is more than the calibration's: the judges are noisier on this run than when calibrated, "
                  "so its figures may understate the noise; calibrate again")
    return s + "."
