"""What carried no signal in a run: hard assertions the no-skill arm passes too, cases that only tie. Pure.

Two findings, each stated with the numbers it rests on (results.json ``no_signal``, the report's "What
carried no signal" section, the leaderboard's count):

- A hard assertion carries no signal when the baseline (no-skill) arm's output passed it in every trial it
  was checked on (``collect`` runs the assertions on the baseline's output for this, for information only:
  the gate applies to the new arm alone). It cannot tell the skill from no skill.
- A case carries no signal when every efficacy trial of this run was a tie, and so was every efficacy trial
  of the case in the skill's recent history (the last :data:`RECENT` earlier runs on the same model that
  recorded the case; older history lines, which record no cases, are passed over). A case with no earlier
  run on record is named on this run's ties alone, and the statement says so.

The empty case: no hard assertions, or no baseline result on disk, names no assertion; a case with any
missing, gated, won or lost trial is never named.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from attrs import field, frozen

RECENT = 3  # earlier runs of a case looked at


@frozen
class SilentAssertion:
    """A hard assertion the baseline's output passed in every trial it was checked on."""

    case: str
    index: int  # 1-based, in the case's order of predicates
    command: str
    baseline_passed: int
    baseline_checked: int
    new_passed: int
    new_checked: int
    statement: str


@frozen
class SilentCase:
    """A case whose efficacy comparisons all tied, in this run and in its recent history."""

    case: str
    ties: int  # this run's trials, all ties
    earlier_runs: int  # earlier runs on record looked at, all ties
    earlier_ties: int  # their trials, all ties
    statement: str


@frozen
class NoSignal:
    """``no_signal`` in results.json (left out when nothing is named)."""

    assertions: tuple[SilentAssertion, ...] = ()
    cases: tuple[SilentCase, ...] = ()
    summary: str = ""


def _passed(r) -> bool:
    return not r.timed_out and r.exit == 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def silent_assertions(cases, new_results: Mapping[tuple[str, int], Sequence],
                      baseline_results: Mapping[tuple[str, int], Sequence]) -> tuple[SilentAssertion, ...]:
    """Each hard assertion the baseline passed in every trial it was checked on (at least one), in case order
    then predicate order. ``*_results``: (case, trial) -> that arm's assertion results, in predicate order."""
    out = []
    for case in cases:
        n_assert = len(case.hard_assertions)
        if not n_assert:
            continue
        base = [rs for (c, _t), rs in sorted(baseline_results.items()) if c == case.id and len(rs) == n_assert]
        new = [rs for (c, _t), rs in sorted(new_results.items()) if c == case.id and rs is not None
               and len(rs) == n_assert]
        for i, predicate in enumerate(case.hard_assertions):
            checked = len(base)
            passed = sum(1 for rs in base if _passed(rs[i]))
            if not checked or passed != checked:
                continue
            new_passed = sum(1 for rs in new if _passed(rs[i]))
            skill = (f"; the skill's output passed it in {new_passed} of {len(new)}" if new else "")
            out.append(SilentAssertion(
                case=case.id, index=i + 1, command=predicate.command, baseline_passed=passed,
                baseline_checked=checked, new_passed=new_passed, new_checked=len(new),
                statement=(f"{case.id}: hard assertion {i + 1} (`{predicate.command}`) passed for the baseline "
                           f"(no skill) in {passed} of {checked} trial{'' if checked == 1 else 's'}{skill}: it "
                           "cannot tell the skill from no skill. Check something only the skill's answer has, or "
                           "drop it.")))
    return tuple(out)


def silent_cases(case_results, earlier: Sequence, model: Optional[str] = None) -> tuple[SilentCase, ...]:
    """Each case whose efficacy outcomes are all TIE in this run and in its last :data:`RECENT` earlier runs on
    record. ``earlier``: the skill's history entries before this run, oldest first (HistoryEntry)."""
    out = []
    for c in case_results:
        a = c.efficacy
        if not a.outcomes or any(o != "TIE" for o in a.outcomes):
            continue
        looked = []
        for e in reversed(list(earlier)):
            counts = (e.efficacy_cases or {}).get(c.id)
            if counts is None or e.model != model:
                continue
            looked.append(counts)
            if len(looked) == RECENT:
                break
        if any(k.wins or k.losses for k in looked):
            continue
        n = len(a.outcomes)
        runs, ties = len(looked), sum(k.ties for k in looked)
        before = (f", and all {_plural(ties, 'trial')} of its {_plural(runs, 'earlier run')} on record tied too"
                  if runs else "; no earlier run of it is on record")
        out.append(SilentCase(
            case=c.id, ties=n, earlier_runs=runs, earlier_ties=ties,
            statement=(f"{c.id}: efficacy was a tie in {n} of {n} trials of this run{before}: the case "
                       "cannot tell the skill from no skill. Make the prompt one where the skill's way of working "
                       "shows, or drop it.")))
    return tuple(out)


def find(cases, case_results, new_results, baseline_results, earlier: Sequence,
         model: Optional[str] = None) -> Optional[NoSignal]:
    """Both findings and a one-line summary, or None when nothing carried no signal."""
    asserts = silent_assertions(cases, new_results, baseline_results)
    silent = silent_cases(case_results, earlier, model)
    if not asserts and not silent:
        return None
    parts = []
    if silent:
        parts.append(f"{_plural(len(silent), 'case')} ({', '.join(s.case for s in silent)}) tied in every trial")
    if asserts:
        parts.append(f"{_plural(len(asserts), 'hard assertion')} passed for the baseline (no skill) in every "
                     "trial too")
    return NoSignal(assertions=asserts, cases=silent,
                    summary="Carried no signal: " + "; ".join(parts) + ". "
                            + ("It cannot" if len(asserts) + len(silent) == 1 else "None of them can")
                            + " tell the skill from no skill; the lines below give the numbers.")


@frozen
class CaseCounts:
    """One case's efficacy counts in one run, as the history line keeps them (``efficacy_cases``)."""

    wins: int
    ties: int
    losses: int


def case_counts(case_results) -> dict[str, CaseCounts]:
    """case id -> its efficacy counts, for the run's history line."""
    return {c.id: CaseCounts(wins=c.efficacy.wins, ties=c.efficacy.ties, losses=c.efficacy.losses)
            for c in case_results}


def leaderboard_count(no_signal: Optional[NoSignal]) -> str:
    """The leaderboard's cell: "2 cases, 1 assertion", or "" when nothing."""
    if no_signal is None:
        return ""
    parts = []
    if no_signal.cases:
        parts.append(_plural(len(no_signal.cases), "case"))
    if no_signal.assertions:
        parts.append(_plural(len(no_signal.assertions), "assertion"))
    return ", ".join(parts)


__all__ = ["CaseCounts", "NoSignal", "RECENT", "SilentAssertion", "SilentCase", "case_counts", "find",
           "leaderboard_count", "silent_assertions", "silent_cases"]
