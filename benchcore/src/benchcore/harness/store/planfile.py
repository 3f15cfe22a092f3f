"""``plan.json``: every arm cell and, later, every judge packet (docs/run-format.md).

The fixed fields are the contract's; the rest are extensions ``collect`` and
``clean`` need. The file is read and written through :mod:`benchcore.serde`; only
the guard hook reads its ``sandbox`` entry without it (``sandboxentry.load_sandbox``,
held to serde's reading by a test), to start in a fraction of the time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve, field, frozen

from ... import serde
from ...model import ARMS, COMPARISONS, Budget, CellCost
from ...errors import BenchError
from .files import read_text, write_atomic
from .sandboxentry import Sandbox  # noqa: F401 (a field of Plan; its own module, which the guard imports)

PLAN_FILE = "plan.json"


@frozen
class Cell:
    id: str  # "<case>/t<N>/<arm>"
    case: str
    trial: int
    arm: str
    world: str
    skill_dir: Optional[str]
    prompt: str
    # Extension: the Claude Code agent type to run the cell as (None: the default type).
    agent_type: Optional[str] = None
    # Extension: how many times this cell was planned afresh (collect --rerun).
    attempt: int = 1
    # Extensions (issue 13): the model to run the cell on (None: the session default); why the cell
    # is not to be launched (the budget), or None.
    model: Optional[str] = None
    skip: Optional[str] = None
    # The Agent tool's ``model`` for this cell: it takes only an alias (sonnet, opus, haiku, fable; measured
    # on Claude Code 2.1.328), so a full model id is asked for by its family there.
    agent_model: Optional[str] = None


@frozen
class Packet:
    id: str  # "<case>/t<N>/<comparison>", "#2"/"#3" appended for the escalation judges
    case: str
    trial: int
    comparison: str
    path: str
    # Extensions: the judge's exact prompt (the packet inside it) and the marker it carries.
    prompt: str = ""
    ref: str = ""
    round: int = 1
    # Extension (issue 13): the model the judge runs on (benchmark.yaml judge_model; None: session default),
    # and the alias the Agent tool takes for it.
    model: Optional[str] = None
    agent_model: Optional[str] = None
    # When the packet (this round's prompt) was written, UTC: a judge transcript that started earlier is not
    # its judge. And arm -> sha256 of the output.md bytes it shows.
    written_at: str = ""
    outputs_sha256: dict[str, str] = field(factory=dict)
    agent_type: Optional[str] = None  # the judge's agent type (None: the default type)
    # Extension (issue 18): the transcripts whose answer was invalid, so far; at MAX_JUDGE_ASKS it is given up.
    invalid_answers: tuple[str, ...] = ()


@frozen
class Plan:
    run_dir: str
    cells: tuple[Cell, ...]
    packets: tuple[Packet, ...] = ()
    schema: int = 1
    # Extensions.
    run_id: str = ""
    repo: str = ""
    skill: str = ""
    shape: str = ""
    seed: int = 0
    temp_root: str = ""  # everything clean removes lives under it
    temp_nonce: str = ""  # the secret in temp_root's tag file; clean removes nothing whose tag lacks it
    world_root: str = ""
    skill_copies: dict[str, str] = field(factory=dict)  # arm -> copy path
    baseline_agent_type: Optional[str] = None
    # "<case>/t<N>/<comparison>" -> {"A": arm, "B": arm}. Under order_rule "outputs" (every run planned since
    # issue 11) an order is drawn when its trial's packet is written, from the seed and the two outputs' bytes,
    # so no arm can read or work out its own letter while it runs; "plan" is the older rule (drawn at plan).
    orders: dict[str, dict[str, str]] = field(factory=dict)
    order_rule: str = "plan"
    judge_agent_type: Optional[str] = None
    planned_at: str = ""
    # Extensions (issue 13): the arms' model, the judges' model, the ceiling and each arm's (and the
    # judges', key "judges") estimated cost per cell, which the fan-outs reserve before each launch.
    model: Optional[str] = None
    judge_model: Optional[str] = None
    budget: Optional[Budget] = None
    cell_costs: dict[str, CellCost] = field(factory=dict)
    # Extensions (issue 18): every Claude Code session that ran plan or collect for the run (only agents they
    # launched count), and when benchcore clean removed the worlds (a transcript arriving later is late).
    sessions: tuple[str, ...] = ()
    cleaned_at: Optional[str] = None
    marker: str = "cells: the world path in the prompt; packets: 'Packet id: <run_id>:<packet id>'"
    # Extensions (issue 17): the run ids planned by the same command (resumed together), and the slash command
    # that resumes them ("/benchmark-skill greet"), which plan and collect print before every launch.
    group: tuple[str, ...] = ()
    resume_command: str = ""
    # Extensions (issue 25): the OS sandbox each arm's Bash call runs in (None with ``unsandboxed``, the user's
    # opt-out, and in runs planned before it: the guard then parses and refuses commands), and the tools
    # beyond the guard's table that benchmark.yaml ``tools`` lets arms use (every other one is refused).
    sandbox: Optional[Sandbox] = None
    unsandboxed: bool = False
    arm_tools: tuple[str, ...] = ()

    def cell_map(self) -> dict[str, Cell]:
        return {c.id: c for c in self.cells}


def plan_path(run_dir: Path) -> Path:
    return Path(run_dir) / PLAN_FILE


def read_plan(run_dir: Path) -> Plan:
    path = plan_path(run_dir)
    if not path.is_file():
        raise BenchError(str(run_dir), "has no plan.json, so it is not a planned run directory",
                         fix="pass the run directory 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
    plan = serde.loads(Plan, read_text(path), source=str(path))
    check_plan(plan, str(path))
    return plan


_REPLAN = ("plan.json is written by benchcore: restore it, or plan the run again with 'benchcore plan --fresh' "
           "(docs/run-format.md describes each field)")


def check_plan(plan: Plan, path: str, *, cases: Optional[tuple] = None, arms: Optional[tuple] = None,
               trials: Optional[int] = None) -> None:
    """What the types cannot say about plan.json, as bad input (exit 2) naming the field and the fix: trials
    and attempts from 1, known arms and comparisons, ids that name their case, trial and arm, no id twice;
    and, given run.json's ``cases``, ``arms`` and ``trials``, cells within them."""
    seen: set[tuple[str, str]] = set()
    for kind, items in (("cells", plan.cells), ("packets", plan.packets)):
        for n, item in enumerate(items):
            where = f"$.{kind}[{n}]"
            if item.trial < 1 or (trials is not None and item.trial > trials):
                top = f"1 to {trials}" if trials is not None else "from 1"
                raise BenchError(path, f"{where}.trial is {item.trial}, but trials are numbered {top}", fix=_REPLAN)
            if isinstance(item, Cell):
                if item.arm not in (arms or ARMS):
                    raise BenchError(path, f"{where}.arm is {item.arm!r}, not one of {', '.join(arms or ARMS)}",
                                     fix=_REPLAN)
                if item.attempt < 1:
                    raise BenchError(path, f"{where}.attempt is {item.attempt}, but attempts are counted from 1",
                                     fix=_REPLAN)
                expected = f"{item.case}/t{item.trial}/{item.arm}"
            else:
                if item.comparison not in COMPARISONS:
                    raise BenchError(path, f"{where}.comparison is {item.comparison!r}, not one of "
                                           f"{', '.join(COMPARISONS)}", fix=_REPLAN)
                if item.round < 1:
                    raise BenchError(path, f"{where}.round is {item.round}, but rounds are counted from 1",
                                     fix=_REPLAN)
                expected = f"{item.case}/t{item.trial}/{item.comparison}"
            if item.id.split("#")[0] != expected:
                raise BenchError(path, f"{where}.id is {item.id!r}, but its case, trial and "
                                       f"{'arm' if isinstance(item, Cell) else 'comparison'} make {expected!r}",
                                 fix=_REPLAN)
            if cases is not None and item.case not in cases:
                raise BenchError(path, f"{where}.case is {item.case!r}, not a case of the run (run.json: "
                                       f"{', '.join(cases)})", fix=_REPLAN)
            if (kind, item.id) in seen:
                raise BenchError(path, f"{where}.id {item.id!r} is planned twice", fix=_REPLAN)
            seen.add((kind, item.id))


def write_plan(run_dir: Path, plan: Plan, on_disk: Optional[Plan] = None) -> None:
    """Write plan.json (left untouched when nothing changed, so a re-run of collect rewrites nothing).
    ``on_disk``: the plan the caller read from (or last wrote to) plan.json; equal to ``plan``, nothing is
    read or written (collect reads plan.json once per run)."""
    if on_disk is not None and plan == on_disk:
        return
    path = plan_path(run_dir)
    if on_disk is not None:  # known to differ: written part by part (the text of 3,000 cells is never held whole,
        # nor their data: each cell and packet is made into JSON data when its turn comes)
        write_atomic(path, serde.dumps_parts(evolve(plan, cells=(), packets=()),
                                             streamed={"cells": plan.cells, "packets": plan.packets}))
        return
    text = serde.dumps(plan)
    if not (path.is_file() and read_text(path) == text):
        write_atomic(path, text)


serde._omit_when_empty(Cell, ("model", "skip", "agent_model"))
serde._omit_when_empty(Packet, ("model", "agent_model", "invalid_answers"))


AGENT_TOOL_MODELS = ("sonnet", "opus", "haiku", "fable")


def agent_tool_model(model: Optional[str]) -> Optional[str]:
    """The Agent tool's ``model`` for a model name: the alias itself, or the family a full id names
    (``claude-haiku-4-5`` -> ``haiku``); None when it names none (the Agent tool cannot ask for it)."""
    if not model:
        return None
    low = model.lower()
    if low in AGENT_TOOL_MODELS:
        return low
    found = [a for a in AGENT_TOOL_MODELS if a in low.replace("_", "-").split("-")]
    return found[0] if len(found) == 1 else None
serde._omit_when_empty(Plan, ("model", "judge_model", "budget", "cell_costs", "sessions", "cleaned_at", "group",
                                  "resume_command"))
