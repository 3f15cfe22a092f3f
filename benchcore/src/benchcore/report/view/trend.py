"""The trend ribbons: a net-margin sparkline per axis over the last runs. Pure.

Geometry is computed here and handed to the template as strings, so the
template only places ``<line>`` and ``<circle>`` elements.
"""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import frozen

from ...history import served_change
from ...model import AxisSummary, AxisVerdict, HistoryEntry, SkillResult
from .. import fmt

SHOWN_RUNS = 7
STEP = 36.0  # horizontal distance between two runs
PAD_X = 10.0
PAD_Y = 9.0
HEIGHT = 56.0
WIDTH = PAD_X * 2 + STEP * (SHOWN_RUNS - 1)


@frozen
class SparkDot:
    cx: str
    cy: str
    css: str  # "pass" | "fail" | "incomplete"
    current: bool
    title: str
    changed: str = ""  # what served this run differently from the run before (Claude Code, a model), or ""
    mark: str = ""  # the marker's visible word at the top of its line: "CC" (Claude Code changed) or "model"


@frozen
class SparkLine:
    x1: str
    y1: str
    x2: str
    y2: str


@frozen
class Ribbon:
    axis: str  # "Efficacy" | "Regression"
    key: str  # "efficacy" | "regression"
    width: str
    height: str
    view_box: str
    dots: tuple[SparkDot, ...]
    lines: tuple[SparkLine, ...]
    zero_line: Optional[SparkLine]
    current_net: str
    change: str
    green: str
    readouts: tuple[str, ...]  # informative, never gating
    description: str  # the sparkline in words, for screen readers and the SVG <title>
    empty: Optional[str]  # drawn in the middle of a sparkline that has no dot
    empty_x: str
    empty_y: str
    # The markers in words, shown under the ribbon (an SVG tooltip shows on no phone and in no screenshot):
    # "CC: 20261202T160000Z-3f2a: Claude Code 2.1.178 -> 2.1.328".
    changes: tuple[str, ...] = ()


def _num(x: float) -> str:
    return f"{x:.1f}"


def _axis_of(entry: HistoryEntry, key: str) -> Optional[AxisSummary]:
    return entry.efficacy if key == "efficacy" else entry.regression


def build_ribbon(key: str, result: SkillResult, history: Sequence[HistoryEntry]) -> Ribbon:
    """One ribbon from the skill's history (newest last, the current run included)."""
    axis = "Efficacy" if key == "efficacy" else "Regression"
    verdict: AxisVerdict = getattr(result.verdicts, key)
    shown = list(history)[-SHOWN_RUNS:]
    values = [_axis_of(e, key) for e in shown]
    nets = [v.net for v in values if v is not None]

    lo, hi = (min(nets), max(nets)) if nets else (0, 0)
    inner = HEIGHT - 2 * PAD_Y

    def y(net: int) -> float:
        if hi == lo:
            return HEIGHT / 2
        return PAD_Y + (hi - net) / (hi - lo) * inner

    offset = SHOWN_RUNS - len(shown)  # right-aligned: this run always sits at the right end

    def x(i: int) -> float:
        return PAD_X + (offset + i) * STEP

    dots: list[SparkDot] = []
    lines: list[SparkLine] = []
    run_of: dict = {}  # dot -> its run id
    for i, (entry, value) in enumerate(zip(shown, values)):
        if value is None:
            continue  # a two-arm run: no dot, and the line breaks here
        current = entry.run_id == result.run_id and i == len(shown) - 1
        state = _state(value)
        at = len(history) - len(shown) + i  # this entry's place in the whole history
        before = history[at - 1] if at > 0 else None
        changed = served_change(before, entry) if before is not None else ""
        dots.append(SparkDot(
            cx=_num(x(i)), cy=_num(y(value.net)), css={"green": "pass", "red": "fail"}.get(state, "incomplete"),
            current=current,
            title=f"{entry.run_id}: net {fmt.signed(value.net)}, {state}"
                  + (" (this run)" if current else "") + (f"; changed: {changed}" if changed else ""),
            changed=changed, mark=_mark(changed)))
        run_of[dots[-1]] = entry.run_id + (" (this run)" if current else "")
        previous = values[i - 1] if i > 0 else None
        if previous is not None:
            lines.append(SparkLine(_num(x(i - 1)), _num(y(previous.net)), _num(x(i)),
                                   _num(y(value.net))))

    zero_line = None
    if nets and lo < 0 < hi:
        zero_line = SparkLine(_num(PAD_X / 2), _num(y(0)), _num(WIDTH - PAD_X / 2), _num(y(0)))

    current_net, change = _current_and_change(key, verdict, result, shown, values)
    green = _green(key, values)
    return Ribbon(
        axis=axis, key=key, width=_num(WIDTH), height=_num(HEIGHT),
        view_box=f"0 0 {_num(WIDTH)} {_num(HEIGHT)}",
        dots=tuple(dots), lines=tuple(lines), zero_line=zero_line,
        current_net=current_net, change=change, green=green,
        readouts=_readouts(key, verdict, result),
        description=_describe(axis, shown, values, dots),
        empty=None if dots else ("no three-arm run yet" if key == "regression" else "no runs yet"),
        empty_x=_num(WIDTH / 2), empty_y=_num(HEIGHT / 2),
        changes=tuple(f"{d.mark}: {run_of[d]}: {d.changed}" for d in dots if d.changed),
    )


def _mark(changed: str) -> str:
    """The marker's word: "CC" when Claude Code's version changed, "model" when only a served model did."""
    if not changed:
        return ""
    return "CC" if changed.startswith("Claude Code") else "model"


def _current_and_change(key, verdict, result, shown, values) -> tuple[str, str]:
    if verdict.status == "n/a" or verdict.net is None:
        return "n/a", "two-arm run: no previous version to compare with"
    current = f"net {fmt.signed(verdict.net)}"
    earlier = list(zip(shown, values))
    if earlier and earlier[-1][0].run_id == result.run_id:
        earlier = earlier[:-1]
    if not earlier:
        return current, "first run"
    for back, (_, value) in enumerate(reversed(earlier)):
        if value is not None:
            delta = verdict.net - value.net
            what = "no change" if delta == 0 else fmt.signed(delta)
            where = "previous run" if back == 0 else "previous three-arm run"
            return current, f"{what} vs {where}"
    return current, "first three-arm run"


def _state(value: AxisSummary) -> str:
    """green, red, or not final (a run that did not pass only for want of judgments)."""
    if value.passed:
        return "green"
    return "not final" if value.incomplete else "red"


def _green(key: str, values) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return ""
    green = sum(1 for v in present if v.passed)
    text = f"{green} of {len(present)} green"
    unfinished = sum(1 for v in present if _state(v) == "not final")
    if unfinished:
        text += f" ({unfinished} not final)"
    skipped = len(values) - len(present)
    if skipped:
        text += f"; {fmt.plural(skipped, 'two-arm run')} without one"
    return text


def _readouts(key: str, verdict: AxisVerdict, result: SkillResult) -> tuple[str, ...]:
    if verdict.status == "n/a":
        return ("position bias and sign test: n/a on a two-arm run",)
    bias = verdict.position_bias
    if bias is None:
        bias_text = "position bias: not recorded"
    elif bias.decisive == 0:
        bias_text = "position bias: no decisive verdicts"
    else:
        bias_text = (f"position bias: first-shown output won {bias.first_shown_won} of "
                     f"{plural_verdicts(bias.decisive)} "
                     f"({fmt.percent(bias.first_shown_won, bias.decisive)})")
    if verdict.sign_test_p is None:
        sign_text = "sign test: n/a: no decisive trials"
    else:
        axes = [getattr(c, key) for c in result.cases if getattr(c, key) is not None]
        wins = sum(a.wins for a in axes)
        losses = sum(a.losses for a in axes)
        sign_text = (f"sign test: {fmt.p_value(verdict.sign_test_p)} over "
                     f"{fmt.plural(wins, 'win')} vs {fmt.plural(losses, 'loss', 'losses')}")
    return bias_text, sign_text


def plural_verdicts(n: int) -> str:
    return f"{n} decisive verdict" + ("" if n == 1 else "s")


def _describe(axis: str, shown, values, dots=()) -> str:
    parts = []
    for entry, value in zip(shown, values):
        if value is None:
            parts.append("n/a")
        else:
            parts.append(f"{fmt.signed(value.net)} {_state(value)}")
    if not parts:
        return f"{axis} net margin: no runs yet"
    marked = [d for d in dots if d.changed]
    said = f"; Claude Code or a model changed at {fmt.plural(len(marked), 'run')} (marked)" if marked else ""
    return f"{axis} net margin over the last {fmt.plural(len(parts), 'run')}, oldest first: " \
        + ", ".join(parts) + said
