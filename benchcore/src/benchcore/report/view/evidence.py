"""The evidence inside a case panel: the outputs side by side, the failed hard assertions, the judges' notes."""

from __future__ import annotations

from typing import Optional, Sequence

from attrs import frozen

from ...model import AssertionResult, ComparisonRecord, TrialData
from .. import fmt


@frozen
class Segment:
    """A stretch of an output: prose (wrapped to the pane) or a fenced block, fences included, kept
    line for line (a 72-column commit message scrolls rather than re-wraps)."""

    text: str
    css: str  # "prose" | "code"


@frozen
class OutputPane:
    label: str
    text: str  # the output, or a sentence saying it is missing
    missing: bool
    segments: tuple[Segment, ...] = ()


@frozen
class JudgeNote:
    label: str  # "Judge 1", or "Judge 1 (claude-haiku-4-5)" with the model its transcript shows
    verdict: str  # "preferred no skill (clear)"
    rationale: str
    quote: Optional[str]


@frozen
class LossDetail:
    title: str
    outputs: tuple[OutputPane, ...]
    judges: tuple[JudgeNote, ...]
    note: Optional[str]  # e.g. no judgments on disk


@frozen
class GateCommand:
    comment: Optional[str]  # the comment above the predicate in case.md: what it checks
    command: str
    outcome: str  # "exit 1" | "timed out"
    stderr: str
    has_stderr: bool


@frozen
class GateDetail:
    title: str
    commands: tuple[GateCommand, ...]
    output: OutputPane


def gate_failures(trial: Optional[TrialData]) -> tuple[AssertionResult, ...]:
    """The hard assertions of a trial's new arm that failed the gate."""
    if trial is None or trial.assertions is None:
        return ()
    return tuple(a for a in trial.assertions if a.timed_out or a.exit != 0)


def segments(text: str) -> tuple[Segment, ...]:
    """Split an output into prose and fenced blocks (``` or ~~~, fence lines kept in the block)."""
    out: list[Segment] = []
    buf: list[str] = []
    fence: Optional[str] = None

    def flush(css: str) -> None:
        if buf:
            out.append(Segment(text="\n".join(buf), css=css))
            buf.clear()

    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            flush("prose")
            fence = stripped[:3]
            buf.append(line)
        elif fence is not None and stripped.startswith(fence) and not stripped.strip(fence[0]).strip():
            buf.append(line)
            flush("code")
            fence = None
        else:
            buf.append(line)
    flush("code" if fence is not None else "prose")
    return tuple(out)


def output_pane(trial: Optional[TrialData], arm: str) -> OutputPane:
    text = None if trial is None else trial.outputs.get(arm)
    if text is None:
        note = f"no output.md was collected for the {fmt.arm_label(arm)} arm"
        return OutputPane(label=fmt.arm_label(arm), missing=True, text=note,
                          segments=(Segment(text=note, css="prose"),))
    return OutputPane(label=fmt.arm_label(arm), text=text, missing=False,
                      segments=segments(text.rstrip("\n")))


def gate_detail(n: int, trial: TrialData, comments: dict) -> GateDetail:
    commands = tuple(
        GateCommand(comment=comments.get(a.command), command=a.command,
                    outcome="timed out" if a.timed_out else f"exit {a.exit}",
                    stderr=a.stderr, has_stderr=bool(a.stderr.strip()))
        for a in gate_failures(trial))
    return GateDetail(title=f"Trial {n}: failed the hard-assertion gate (a loss, not judged)",
                      commands=commands, output=output_pane(trial, "new"))


def loss_detail(n: int, key: str, pair: Sequence[str], trial: Optional[TrialData],
                 tie: bool = False) -> LossDetail:
    other = pair[1] if len(pair) > 1 else ("baseline" if key == "efficacy" else "previous")
    record = None if trial is None else trial.comparisons.get(key)
    judges = () if record is None else _judges(record)
    note = None if judges else "no judgments on disk for this trial"
    title = (f"Trial {n}: tied with {fmt.arm_label(other)} (a win was needed)" if tie
             else f"Trial {n}: lost to {fmt.arm_label(other)}")
    return LossDetail(title=title,
                      outputs=(output_pane(trial, "new"), output_pane(trial, other)),
                      judges=judges, note=note)


def _judges(record: ComparisonRecord) -> tuple[JudgeNote, ...]:
    notes = []
    for i, j in enumerate(record.judgments, start=1):
        if j.verdict == "TIE":
            verdict = "called it a tie"
        else:
            arm = record.order.get(j.verdict)
            verdict = "preferred " + (fmt.arm_label(arm) if arm else f"output {j.verdict}")
            if j.strength:
                verdict += f" ({j.strength})"
        notes.append(JudgeNote(label=f"Judge {i} ({j.model})" if j.model else f"Judge {i}",
                               verdict=verdict, rationale=j.rationale,
                               quote=j.quote or None))
    return tuple(notes)
