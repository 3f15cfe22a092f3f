"""Numbers and lists as the report prints them. Pure; every function returns a string.

The templates never format anything: a view model holds only strings and
booleans, produced here.
"""

from __future__ import annotations

from typing import Iterable, Optional
from urllib.parse import quote

ARM_LABELS = {"new": "new skill", "baseline": "no skill", "previous": "previous version"}


def arm_label(arm: str) -> str:
    """The human name of an arm: new -> "new skill", baseline -> "no skill" ..."""
    return ARM_LABELS.get(arm, arm)


def plural(n: int, one: str, many: Optional[str] = None) -> str:
    """``plural(1, "win") == "1 win"``, ``plural(3, "loss", "losses") == "3 losses"``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def signed(n: int) -> str:
    """A net margin with its sign: +3, -2, 0."""
    return f"+{n}" if n > 0 else str(n)


def count(n: int) -> str:
    """An integer with thousands separators: 1,234,567."""
    return f"{n:,}"


def tokens(x: float) -> str:
    """A (possibly fractional) token figure rounded to a whole number, with separators."""
    return f"{round(x):,}"


def dollars(x: float) -> str:
    """Imputed dollars: $1.23, $1,234.50, or < $0.01 for a non-zero sliver."""
    if 0 < x < 0.005:
        return "< $0.01"
    return f"${x:,.2f}"


def ratio(x: Optional[float]) -> str:
    """A cost ratio as 1.80x; n/a when there is none."""
    return "n/a" if x is None else f"{x:.2f}x"


def percent(part: int, whole: int) -> str:
    """Rounded percentage, 64%."""
    return f"{round(100 * part / whole)}%"


def p_value(p: float) -> str:
    """A sign-test p-value as "p = 0.031"; "p < 0.001" and "p = 1" at the ends."""
    if p < 0.001:
        return "p < 0.001"
    if p >= 0.9995:
        return "p = 1"
    return f"p = {p:.3f}"


def temperature(t: float) -> str:
    """A temperature without a spurious ".0": 0, 1, 0.7."""
    return f"{t:g}"


def trial_list(trials: Iterable[int]) -> str:
    """Trial numbers with runs compressed: 1-5, 3, 4, 1-3, 5."""
    nums = sorted(set(trials))
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{nums[i]}-{nums[j]}")
        else:
            parts.extend(str(n) for n in nums[i:j + 1])
        i = j + 1
    return ", ".join(parts)


def trials_phrase(trials: Iterable[int]) -> str:
    """"trial 2" or "trials 3, 4"."""
    nums = sorted(set(trials))
    return f"{'trial' if len(nums) == 1 else 'trials'} {trial_list(nums)}"


def short_commit(sha: str) -> str:
    """The first 10 hex digits of a commit."""
    return sha[:10]


def case_anchor(case_id: str) -> str:
    """The ``id`` attribute of a case panel."""
    return f"case-{case_id}"


def case_href(case_id: str) -> str:
    """A link to a case panel on the same page, the id percent-encoded."""
    return "#" + quote(case_anchor(case_id), safe="")


def file_href(name: str) -> str:
    """A relative link to a sibling file; percent-encoded so it can never become a scheme."""
    return quote(name, safe="")


def model_slug(model: str) -> str:
    """A model name as a file-name and anchor part: letters, digits, dot, dash and underscore kept."""
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._-") else "-" for ch in model)


def model_anchor(model: str) -> str:
    """The id of a model's section on a multi-model report."""
    return "model-" + model_slug(model)
