"""One run directory as collect sees it: its plan, run.json, cases and paths, shared by every collect stage."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable, Optional

from ...casefile import parse_case
from ...errors import BenchError
from ...model import Case, RunInfo
from ..claude import projects
from .contamination import Fingerprints
from ..store import files
from ..store.files import holds, read_text, start_writeback, write_atomic
from ..claude.provenance import Launched
from .background import Background
from .firstread import FirstRead
from ..store.planfile import Cell, Packet, Plan, check_plan, read_plan, write_plan
from ..fanout.prompts import Templates, run_redactions
from ..runs.folder import read_run_info


class RunState:
    """What the stages of collect read and update for one run: ``plan`` and ``info`` are replaced (never
    edited) as stages re-plan cells, add packets or record models; the stage that changes them writes them."""

    def __init__(self, run_dir: Path, index: projects.Index, packet_files: dict, templates: Templates,
                 assert_timeout: float, launched: Optional[Launched] = None, plan: Optional[Plan] = None):
        self.run_dir = run_dir
        self.plan: Plan = read_plan(run_dir) if plan is None else plan  # collect_runs reads it once, for all
        self._plan_on_disk = self.plan  # what plan.json holds (save_plan)
        self.info: RunInfo = read_run_info(run_dir)
        check_plan(self.plan, str(run_dir / "plan.json"), cases=tuple(self.info.cases), arms=tuple(self.info.arms),
                   trials=self.info.trials)
        self.index = index
        self.packet_files = packet_files
        self.templates = templates
        self.assert_timeout = assert_timeout
        self.received: dict[str, str] = {}  # cell id -> the first message its subagent got
        self.unfinished: set[str] = set()  # cell ids whose transcript exists but has no final message
        self.fingerprint_cache: dict[str, Fingerprints] = {}
        # What the run's sessions launched (read once per collect), the transcripts refused as not theirs
        # (cell or packet id, path, why), cells with two finished transcripts (cell id -> both paths), and
        # transcripts that arrived after benchcore clean (cell id, path).
        self.launched = launched or Launched.read(projects.projects_dir(), self.plan.sessions)
        self.refused: list[tuple[str, str, str]] = []
        self.refused_calls: list[tuple[str, str]] = []  # (cell id, the arm's tool call Claude Code refused)
        self.conflicts: dict[str, str] = {}
        self.first_read = FirstRead(run_dir)  # the hash of each transcript collect took an answer from
        self.background = Background()  # stage 1's copies and hashes, beside its parsing (background.py)
        self.late: list[tuple[str, str]] = []
        self.invalid_answers: dict[str, list[str]] = {}  # packet id -> transcripts whose answer is invalid
        # Judges this run's sessions launched twice for one packet (a fan-out launched again, a retyped
        # command): (packet id, the transcript ignored, why); the first to start counts (answers.py).
        self.duplicates: list[tuple[str, str, str]] = []
        self.case_lines: dict[str, list] = {}  # what the audit reads once per collect (collect_audit)
        self._groups: Optional[tuple] = None  # (the plan's cells, by trial, by case): see cells_by_trial
        self.arm_agents: set[str] = set()  # agent ids of arm transcripts and of every subagent they launched
        # The same replacements for every output, so no placeholder tells the arms apart.
        self.redactions = run_redactions([c.world for c in self.plan.cells], self.plan.skill_copies.values(),
                                         self.plan.temp_root)
        self.cases: dict[str, Case] = {}
        for cid in self.info.cases:
            path = run_dir / "cases" / cid / "case.md"
            self.cases[cid] = parse_case(read_text(path), str(path), cid)

    def save_plan(self) -> None:
        """Write ``plan`` to plan.json when it differs from what plan.json holds (known: read once, not again)."""
        write_plan(self.run_dir, self.plan, self._plan_on_disk)
        self._plan_on_disk = self.plan

    def cells_by_trial(self) -> dict[tuple[str, int], list[Cell]]:
        """The plan's cells by (case, trial), in plan order: grouped once, and again only when a stage has
        replaced the plan (a scan of every cell for each trial or case made collect quadratic in cases)."""
        return self._grouped()[0]

    def cells_of_case(self, case: str) -> list[Cell]:
        """The plan's cells of one case, in plan order (see cells_by_trial)."""
        return self._grouped()[1].get(case, [])

    def _grouped(self) -> tuple[dict, dict]:
        if self._groups is None or self._groups[0] is not self.plan.cells:
            by_trial: dict[tuple[str, int], list[Cell]] = {}
            by_case: dict[str, list[Cell]] = {}
            for cell in self.plan.cells:
                by_trial.setdefault((cell.case, cell.trial), []).append(cell)
                by_case.setdefault(cell.case, []).append(cell)
            self._groups = (self.plan.cells, by_trial, by_case)
        return self._groups[1], self._groups[2]

    def tdir(self, case: str, trial: int) -> Path:
        return self.run_dir / "cases" / case / f"t{trial}"

    def judge_transcript(self, packet: Packet) -> Path:
        """Where a judge's transcript is kept: cases/<case>/t<N>/judges/<comparison>-<round>.jsonl."""
        confirms = "c" if packet.id.endswith("c") else ""  # a swapped second reading keeps its own copy
        return self.tdir(packet.case, packet.trial) / "judges" / f"{packet.comparison}-{packet.round}{confirms}.jsonl"

    def ref(self, packet_id: str) -> str:
        return f"{self.plan.run_id}:{packet_id}"


# What collect copies or derives (transcripts, outputs, packets, verdicts) is written without an fsync
# each: collect_run flushes them to disk once (files.flush_to_disk) before plan.json, which lists them.


def write_if_changed(path: Path, text: str) -> bool:
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    _write_run_file(path, text)
    return True


def write_parts_if_changed(path: Path, parts: Iterable[str]) -> bool:
    """:func:`write_if_changed` for a text made in parts (serde.dumps_parts), neither it nor the file held whole."""
    try:
        return files.write_parts_if_changed(path, parts, durable=False)
    except OSError as exc:
        raise BenchError(str(path), f"collect cannot write this file of the run folder: {exc.strerror or exc}",
                         fix="free space on that disk or make the run folder writable, then run collect again "
                             "(nothing collected is lost: collect makes its copies again)") from None


def write_bytes_if_changed(path: Path, data: bytes) -> bool:
    """Copy a transcript byte for byte: bytes that are not UTF-8 stay the bytes Claude Code wrote."""
    if not _same_bytes(path, data):
        _write_run_file(path, data)
        return True
    return False


def copy_bytes_if_changed(path: Path, data: bytes, background: Background) -> bool:
    """:func:`write_bytes_if_changed` in ``background``'s thread, beside the parsing (whether it changes the copy is
    known at once: the copy is compared here)."""
    if _same_bytes(path, data):
        return False
    background.submit(len(data), _write_copy, path, data, holds=data)
    return True


def _write_run_file(path: Path, data: str | bytes, uncached: bool = False) -> None:
    """A file collect copies or derives into the run folder (no fsync: collect flushes them once); a disk that is
    full, or a folder that cannot be written, is named with the fix (the next collect makes the file again).
    ``uncached``: past the page cache where the system allows it (files.write_atomic)."""
    try:
        write_atomic(path, data, durable=False, uncached=uncached)
    except OSError as exc:
        raise BenchError(str(path), f"collect cannot write this file of the run folder: {exc.strerror or exc}",
                         fix="free space on that disk or make the run folder writable, then run collect again "
                             "(nothing collected is lost: collect makes its copies again)") from None


def _write_copy(path: Path, data: bytes) -> None:
    """A transcript's copy, written from the bytes collect read and parsed, past the page cache where the system
    allows it (written once, seldom read), and the writeback of what went through the page cache started."""
    _write_run_file(path, data, uncached=True)
    start_writeback(path)  # on its way to disk while the parsing goes on


def _same_bytes(path: Path, data: bytes) -> bool:
    """Whether ``path`` holds exactly ``data`` (its size first, then files.holds)."""
    try:
        if path.stat().st_size != len(data):
            return False
        fd = os.open(path, os.O_RDONLY)
        try:
            return holds(fd, data)
        finally:
            os.close(fd)
    except OSError:
        return False


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
