"""The one cattrs converter that knows every wire format (run.json, judgments,
assertions.json, results.json, history lines, usage JSON).

Models carry no ``to_dict``; everything goes through :func:`dump` and :func:`load`.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from . import model as m
from .errors import BenchError

T = TypeVar("T")

converter = cattrs.Converter(forbid_extra_keys=False)

# Tuples (of any declared shape: tuple[str, ...], tuple[str, str]) go out as lists.
converter.register_unstructure_hook_func(
    lambda t: t is tuple or getattr(t, "__origin__", None) is tuple,
    lambda t: [converter.unstructure(x) for x in t])


def _rename_pass(cls):
    converter.register_structure_hook(
        cls, make_dict_structure_fn(cls, converter, passed=override(rename="pass")))
    converter.register_unstructure_hook(
        cls, make_dict_unstructure_fn(cls, converter, passed=override(rename="pass")))


_rename_pass(m.AxisSummary)
_rename_pass(m.AxisResult)

_axis_result_out = converter.get_unstructure_hook(m.AxisResult)


def _unstructure_axis_result(a: m.AxisResult) -> dict:
    d = _axis_result_out(a)
    if a.gated is None:  # regression axis: the contract shows no gate and no flips
        d.pop("gated", None)
        d.pop("flips_to_fail", None)
    if a.reason is None:
        d.pop("reason", None)
    return d


converter.register_unstructure_hook(m.AxisResult, _unstructure_axis_result)

_judgment_out = make_dict_unstructure_fn(m.Judgment, converter)


def _unstructure_judgment(j: m.Judgment) -> dict:
    d = _judgment_out(j)
    for key in ("strength", "quote"):
        if d.get(key) is None:
            d.pop(key, None)
    return d


converter.register_unstructure_hook(m.Judgment, _unstructure_judgment)

_verdict_out = make_dict_unstructure_fn(m.AxisVerdict, converter)


def _unstructure_verdict(v: m.AxisVerdict) -> dict:
    d = _verdict_out(v)
    if v.status == "n/a":
        for key in ("position_bias", "sign_test_p", "fragile_flips"):
            d.pop(key, None)
    return d


converter.register_unstructure_hook(m.AxisVerdict, _unstructure_verdict)


def dump(obj: Any) -> Any:
    """Model -> plain JSON-able data."""
    return converter.unstructure(obj)


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """Model -> JSON text (stable key order as declared, trailing newline when indented)."""
    text = json.dumps(dump(obj), indent=indent, ensure_ascii=False)
    return text + "\n" if indent is not None else text


def load(cls: type[T], data: Any, *, source: str = "<data>") -> T:
    """Plain data -> model, or BenchError naming the source and the JSON path of each problem."""
    try:
        return converter.structure(data, cls)
    except Exception as exc:  # cattrs raises ClassValidationError / ValueError / TypeError
        problems = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
        raise BenchError(source, f"does not match the {cls.__name__} format: " + "; ".join(problems),
                         fix="compare it with docs/run-format.md and correct the named fields") from None


def loads(cls: type[T], text: str, *, source: str = "<data>") -> T:
    """JSON text -> model; bad JSON names the line and column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchError(source, f"is not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno,
                         fix="repair the JSON or re-create the file with the command that writes it") from None
    return load(cls, data, source=source)
