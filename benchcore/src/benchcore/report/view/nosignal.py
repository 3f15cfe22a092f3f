"""The report's "What carried no signal" section (results.json ``no_signal``). Pure: every sentence comes
from :mod:`benchcore.nosignal`, which states the numbers it rests on."""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from ...model import SkillResult

NOTE = ("Informative, never a verdict: the gate applies to the skill's output alone. A case that only ties costs "
        "its arms and judges in every run and says nothing; an assertion the baseline passes too looks like a check "
        "and is none.")


@frozen
class NoSignalView:
    summary: str
    note: str
    lines: tuple[str, ...]


def no_signal_view(result: SkillResult) -> Optional[NoSignalView]:
    """The section, or None when everything carried some signal."""
    ns = result.no_signal
    if ns is None:
        return None
    return NoSignalView(summary=ns.summary, note=NOTE,
                        lines=tuple(c.statement for c in ns.cases) + tuple(a.statement for a in ns.assertions))
