"""The report's environment section: one row per fact of the card, shared facts marked, each with its source."""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from ...environment import SEALED, SHARED, EnvironmentCard
from ...model import SkillResult

NOTE = ("What the arms shared with the session and what was sealed from it, each line read from the arm "
        "transcripts or, where they do not record it, from the settings files Claude Code loads.")
MARKS = {SHARED: "shared with the session", SEALED: "sealed", "info": ""}


@frozen
class EnvironmentRow:
    label: str
    value: str
    source: str
    mark: str  # "shared with the session", "sealed" or ""
    css: str  # "env-shared", "env-sealed" or "env-info"


@frozen
class EnvironmentView:
    note: str
    rows: tuple[EnvironmentRow, ...]
    shared_count: str  # "3 facts shared with the session" or ""


def environment_view(result: SkillResult) -> Optional[EnvironmentView]:
    """The section, or None when the run has no environment card (collected before it existed)."""
    card: Optional[EnvironmentCard] = result.environment
    if card is None or not card.lines:
        return None
    rows = tuple(EnvironmentRow(label=l.label, value=l.value, source=l.source, mark=MARKS.get(l.status, ""),
                                css=f"env-{l.status}") for l in card.lines)
    shared = sum(1 for l in card.lines if l.status == SHARED)
    count = f"{shared} fact{'s' if shared != 1 else ''} shared with the session" if shared else ""
    return EnvironmentView(note=NOTE, rows=rows, shared_count=count)
