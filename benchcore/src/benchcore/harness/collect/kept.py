"""A collected cell's transcript held by where its copy is, not by its records: collect keeps one in memory.

Stage 1 of collect finds every cell's transcript, and the later stages (the
audit, the models in run.json) ask some of them questions. Holding every
parsed transcript until then made collect's memory grow with the whole set;
a :class:`KeptTranscript` keeps only what every collect asks (its models, its
final message, its refused calls, its environment evidence, and the audit's
findings when its trial is to be audited) and reads the copy in the run again,
one at a time, when a stage asks for more: each transcript is parsed once per
collect, not once per stage.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

from attrs import evolve

from ...environment import CellEvidence, cell_evidence
from ..claude import provenance
from ..claude.transcript import Transcript, load

_LAST: list = [None, None]  # [the copy's folder and version, its Transcript]: the one transcript kept parsed
_LET_GO = object()  # a final message whose text is no longer held (KeptTranscript.let_go_of_final)
# Equal values kept for many cells, one object each: every arm of a run names the same models, versions, modes,
# hooks and session, and each cell's own copies (strings parsed from its transcript) are let go. Bounded: when
# full it starts again (what it held stays with the cells holding it).
_SHARED: dict = {}
_SHARED_MAX = 4096
_EVIDENCE_FIELDS = ("versions", "models", "efforts", "permission_modes", "claude_md", "hooks", "mcp_tools",
                    "git_status", "skills", "session")


def _shared(value):
    """``value``, or the equal one already kept for another cell."""
    if value is None:
        return None
    if len(_SHARED) >= _SHARED_MAX:
        _SHARED.clear()
    return _SHARED.setdefault(value, value)


def load_copy(cdir: Path, main_id: str) -> Transcript:
    """A cell's transcript from its copy in the run (``transcript.jsonl`` and ``subagents/``)."""
    from ..claude.projects import Index, scan

    return load(cdir / "transcript.jsonl", main_id, Index.build(scan(cdir)))


class KeptTranscript:
    """A cell's transcript as collected into ``cdir``: its models and final message at hand, anything else
    (tool calls, records, skill loads) read from the copy when asked. The last one read stays parsed, so a
    stage asking one cell several questions reads it once, and at most one is in memory."""

    # Held for every cell until collect ends: one object each (no __dict__), its folder as text (a Path holds its
    # parts too) and its findings as a tuple (the empty one is shared). Scattered through the memory the parsing
    # used, each small object kept had raised collect's peak with the number of cells.
    __slots__ = ("_cdir", "main_id", "children", "_models", "_final", "_refused", "_evidence", "audited")

    def __init__(self, cdir: Path, main_id: str, models: set[str], final: Optional[str],
                 children: tuple[str, ...], refused: tuple[str, ...] = (),
                 evidence: Optional[CellEvidence] = None, audited: Optional[list[str]] = None):
        self._cdir = str(cdir)
        self.main_id = main_id
        self.children = children
        self._models = _shared(frozenset(models))
        self._final = final
        self._refused = _shared(refused)
        if evidence is not None:
            evidence = _shared(evolve(evidence, **{k: _shared(getattr(evidence, k)) for k in _EVIDENCE_FIELDS}))
        self._evidence = evidence
        # the audit's findings in this transcript (audit.cell_problems), if asked
        self.audited = tuple(audited) if audited is not None else None

    @property
    def cdir(self) -> Path:
        return Path(self._cdir)

    @classmethod
    def of(cls, t: Transcript, cdir: Path,
           audit: Optional[Callable[[Transcript], Optional[list[str]]]] = None) -> "KeptTranscript":
        """What to keep of ``t``, just copied into ``cdir``; ``audit`` gives the audit's findings in it (None
        when its trial is not audited in this collect)."""
        return cls(cdir, t.main_id, t.models(), t.final_message(), t.children, provenance.refused_whys(t),
                   cell_evidence("", "", None, t.main_file_records()), audit(t) if audit is not None else None)

    def evidence(self, cell: str, arm: str, agent_type: Optional[str]) -> Optional[CellEvidence]:
        """The cell's environment evidence (environment.cell_evidence of the main file's records), kept when
        the transcript was read; None when it was not."""
        if self._evidence is None:
            return None
        return evolve(self._evidence, cell=cell, arm=arm, agent_type=agent_type)

    def models(self) -> set[str]:
        return set(self._models)

    def final_message(self) -> Optional[str]:
        if self._final is _LET_GO:  # asked again after stage 1: the copy tells it, exactly
            return self.read().final_message()
        return self._final

    def let_go_of_final(self) -> None:
        """Hold only that the transcript has a final message, not its text, once stage 1 has written it (the
        cell's output.md, its summary): an arm's answer is kilobytes, and held for every cell until collect ends
        it made collect's memory grow with the number of cells. Asked again, it is read from the copy."""
        if self._final is not None:
            self._final = _LET_GO

    def refused_whys(self) -> tuple[str, ...]:
        """Why each call Claude Code refused counts (provenance.refused_whys): kept when the transcript was
        read, so the refusals stage reads no copy again."""
        return self._refused

    def read(self) -> Transcript:
        try:
            st = os.stat(self._cdir + "/transcript.jsonl")
            key = (self._cdir, st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = None
        if key is None or _LAST[0] != key:
            _LAST[:] = [None, None]  # the one before is let go before the next is read
            _LAST[:] = [key, load_copy(self.cdir, self.main_id)]
        return _LAST[1]

    def __getattr__(self, name: str):
        return getattr(self.read(), name)

