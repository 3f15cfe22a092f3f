"""JSON text as ``json.dumps(value, indent=N, ensure_ascii=False)`` writes it, made without json's encoder.

Indented, json's encoder is its Python one, and every call builds nested
functions that refer to each other: a reference cycle, which only the cycle
collector frees. Collect writes thousands of indented files (a summary per
cell, an audit per trial, the plan in parts) and runs that collector rarely
(harness/collect/run.py), so those cycles piled up: 2 to 7 MB of a collect's
peak at 3,000 cells. This writer is one recursive function (no cycle, and
no import of json, which ``benchcore usage`` avoids), and its text is json's.
"""

from __future__ import annotations

try:
    from _json import encode_basestring as _quote, encode_basestring_ascii as _quote_ascii
except ImportError:  # a Python without json's C speed-ups: json's own
    _quote = _quote_ascii = None

_INF = float("inf")


def dumps(value, indent: int = 2, level: int = 0, ascii: bool = False) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=ascii)``; ``level``: as it stands ``level`` deep in an
    indented document (each line after the first indented by ``level`` indents). Keys as json takes them (str,
    int, float, bool, None); anything else that json refuses is a TypeError here too."""
    unit = " " * indent
    if _quote is None:
        import json

        text = json.dumps(value, indent=indent, ensure_ascii=ascii)
        return text.replace("\n", "\n" + unit * level) if level else text
    out: list[str] = []
    _dump(value, "\n" + unit * level, unit, out, _quote_ascii if ascii else _quote)
    return "".join(out)


def _number(value) -> str | None:
    """A number's or constant's text as json writes it (None when ``value`` is none of them)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        return "Infinity" if value == _INF else "-Infinity" if value == -_INF else float.__repr__(value)
    return None


def _key(key, quote) -> str:
    if isinstance(key, str):
        return quote(key)
    # json's order: a float (not an int) first, then the constants, then an int (a bool is one)
    text = _number(key)
    if text is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
    return '"' + text + '"'


def _dump(value, newline: str, unit: str, out: list, quote) -> None:
    """One value (``newline``: a line break and the value's own indent; ``quote``: json's C string writer)."""
    if isinstance(value, str):
        out.append(quote(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + unit
        out.append("[")
        for i, item in enumerate(value):
            out.append(inner if i == 0 else "," + inner)
            _dump(item, inner, unit, out, quote)
        out.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + unit
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append((inner if i == 0 else "," + inner) + _key(key, quote) + ": ")
            _dump(item, inner, unit, out, quote)
        out.append(newline + "}")
    else:
        text = _number(value)
        if text is None:
            raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
        out.append(text)
