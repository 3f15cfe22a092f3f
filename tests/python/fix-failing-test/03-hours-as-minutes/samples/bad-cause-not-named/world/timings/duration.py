"""Durations written as in the scheduler's config: "1h30m", "45s", "2m10s"."""

import re

_PART = re.compile(r"(\d+)([hms])")
_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """The number of seconds in ``text``."""
    parts = _PART.findall(text)
    if not parts or "".join(a + u for a, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(amount) * _SECONDS[unit] for amount, unit in parts)


def format_duration(seconds):
    """``seconds`` written back, largest unit first ("1h30m")."""
    out = ""
    for unit in "hms":
        amount, seconds = divmod(seconds, _SECONDS[unit])
        if amount:
            out += f"{amount}{unit}"
    return out or "0s"
