"""Transcript lines -> token usage (pure: no I/O). docs/run-format.md, usage and cost.

One concept, four modules:

- :mod:`.core`   the attrs path: :func:`read_usage`, :class:`TranscriptUsage`, :func:`arm_usage`, :func:`sum_usage`;
  its docstring states the rules.
- :mod:`.lines`  the reducer both paths share (:class:`LineReducer`; no attrs).
- :mod:`.scan`   feeds that reducer from byte blocks, looking at each line in place (memory speed).
- :mod:`.plain`  ``benchcore usage``'s figures as plain data, the same numbers as :func:`arm_usage` without
  importing attrs (tests/core/test_usage_plain.py ties the two).

The public names of :mod:`.core` are read from here (``from benchcore.usage import read_usage``). They are
loaded on first use, so ``benchcore usage``, which imports only :mod:`.lines`, :mod:`.scan` and :mod:`.plain`,
never imports attrs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .core import (Components, Reducer, TranscriptUsage, add_usage, arm_usage, finish_state,  # noqa: F401
                       read_usage, sum_usage)
    from .lines import SYNTHETIC, UNKNOWN_MODEL, LineReducer  # noqa: F401

_CORE = frozenset({"Components", "Reducer", "TranscriptUsage", "add_usage", "arm_usage", "finish_state",
                   "read_usage", "sum_usage"})
_LINES = frozenset({"SYNTHETIC", "UNKNOWN_MODEL", "LineReducer"})

__all__ = sorted(_CORE | _LINES)


def __getattr__(name: str):
    if name in _CORE:
        from . import core

        return getattr(core, name)
    if name in _LINES:
        from . import lines

        return getattr(lines, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
