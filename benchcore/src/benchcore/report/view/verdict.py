"""The report's verdict section: the results' headline, the pass counts per axis and the notices under them."""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from ...calibration import flip_sentence, red_sentence
from ...model import AxisResult, RunData, SkillResult
from .. import fmt

INFORMATIVE_NOTE = "informative only, never gating"


def counts_line(result: SkillResult, two_arm: bool) -> str:
    total = len(result.cases)
    eff = sum(1 for c in result.cases if c.efficacy.passed)
    eff_text = f"Efficacy: {eff} of {fmt.plural(total, 'case')} " + ("passes" if total == 1 else "pass")
    if two_arm:
        reg_text = "Regression: n/a (two-arm run)"
    else:
        reg = sum(1 for c in result.cases if c.regression is not None and c.regression.passed)
        reg_text = f"Regression: {reg} of {fmt.plural(total, 'case')} " + (
            "holds" if total == 1 else "hold")
    return f"{eff_text} · {reg_text}"


def missing_trials(axis: AxisResult) -> tuple[int, ...]:
    return tuple(i + 1 for i, o in enumerate(axis.outcomes) if o is None)


def run_notices(result: SkillResult, run: RunData) -> tuple[str, ...]:
    notes: list[str] = []
    gaps = []
    for case in result.cases:
        for name, axis in (("efficacy", case.efficacy), ("regression", case.regression)):
            if axis is not None and axis.incomplete:
                gaps.append(f"{case.id} {name} ({fmt.trials_phrase(missing_trials(axis))})")
    if result.incomplete or gaps:
        text = "This run is incomplete"
        if gaps:
            text += ": no judgment for " + "; ".join(gaps)
        notes.append(text + ". An incomplete axis does not pass; finish judging, then render again.")
    for esc in result.escalations:
        notes.append(f"{esc.case} {esc.comparison}: judges split on "
                     f"{fmt.trials_phrase(esc.trials)}; ask two more judges per trial "
                     "(collect names them)")
    invalid = [t for t in run.trials if t.invalid]
    if invalid:
        names = ", ".join(f"{t.case} trial {t.trial}" for t in
                          sorted(invalid, key=lambda t: (t.case, t.trial)))
        notes.append(f"{fmt.plural(len(invalid), 'trial')} must be re-run: {names}")
    return tuple(notes)


@frozen
class NoiseRow:
    case: str
    judged: str      # "4 of 10 decisive"
    rate: str        # "40%"
    interval: str    # "17% to 69%"


@frozen
class NoiseView:
    """The judges' noise floor under the verdict: what a red verdict is worth (``verdict``), each red case the
    judges decided (``reds``), then the calibration used and its figures (``lines``)."""
    lines: tuple[str, ...]
    rows: tuple[NoiseRow, ...]
    caption: str
    verdict: Optional[str] = None
    reds: tuple[str, ...] = ()


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x * 100:.0f}%"


def noise_view(result: SkillResult) -> Optional[NoiseView]:
    """The noise section: the calibration used (or why none applies), then, when regression is red, what the red
    verdict is worth and, beside each red case the judges decided, how likely noise alone gives its losses."""
    nf = result.noise
    if nf is None:
        return None
    lines = [nf.sentence]
    red, reds = None, ()
    if result.verdicts.regression.status == "fail":
        red = red_sentence(nf)
        reds = tuple(r.sentence for r in nf.reds)
    flips = flip_sentence(nf)
    if flips:
        lines.append(flips)
    rows = tuple(NoiseRow(case=c.case, judged=f"{c.decisive} of {c.judgments} decisive",
                          rate=_pct(c.decisive_rate), interval=f"{_pct(c.low)} to {_pct(c.high)}")
                 for c in nf.cases)
    return NoiseView(lines=tuple(lines), rows=rows, verdict=red, reds=reds,
                     caption=f"Calibration {nf.calibration_run}, per case (95% Wilson interval)" if rows else "")
