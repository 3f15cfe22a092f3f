"""The one cattrs converter that knows every wire format (run.json, judgments,
assertions.json, results.json, history lines, usage JSON).

Models carry no ``to_dict``; everything goes through :func:`dump` and :func:`load`.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Optional, TypeVar

import attrs
import cattrs
from cattrs import cols
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from . import jsontext, model as m
from .errors import BenchError

T = TypeVar("T")

converter = cattrs.Converter(forbid_extra_keys=False)


# Strict scalars: cattrs would otherwise coerce ("false" -> True for a bool, "5" -> 5, 3.7 -> 3,
# a string -> a tuple of its characters), turning a malformed file into wrong results.
def _strict(kind: str, ok):
    def hook(value, _type):
        if not ok(value):
            raise TypeError(f"expected {kind}, got {type(value).__name__} {value!r}"[:120])
        return value
    return hook


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


converter.register_structure_hook(str, _strict("a string", lambda v: isinstance(v, str)))
converter.register_structure_hook(bool, _strict("true or false", lambda v: isinstance(v, bool)))
converter.register_structure_hook(int, _strict("an integer", _is_int))
converter.register_structure_hook(
    float, lambda v, _t: float(v) if _is_int(v) or isinstance(v, float) else _strict("a number", lambda _: False)(v, _t))


def _is_tuple_type(t) -> bool:
    return t is tuple or getattr(t, "__origin__", None) is tuple


def _is_list_type(t) -> bool:
    return t is list or getattr(t, "__origin__", None) is list


def _sequence_factory(make):
    """Wrap cattrs' own list/tuple hook so that only a JSON list is accepted (not a string or an object)."""
    def factory(t, conv):
        inner = make(t, conv)

        def hook(value, _type):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"expected a list, got {type(value).__name__} {value!r}"[:120])
            return inner(value, _type)
        return hook
    return factory


def _tuple_hook(t, conv):
    args = getattr(t, "__args__", ())
    if len(args) == 2 and args[1] is Ellipsis:
        return cols.homogenous_tuple_structure_factory(t, conv)
    return conv._structure_tuple  # a fixed-length tuple (tuple[str, str]): cattrs' own, checked by length


converter.register_structure_hook_factory(_is_tuple_type, _sequence_factory(_tuple_hook))
# Tuples (of any declared shape: tuple[str, ...], tuple[str, str]) go out as lists.
converter.register_unstructure_hook_func(_is_tuple_type, lambda t: [converter.unstructure(x) for x in t])
converter.register_structure_hook_factory(_is_list_type, _sequence_factory(cols.list_structure_factory))


def _rename_pass(cls):
    converter.register_structure_hook(
        cls, make_dict_structure_fn(cls, converter, passed=override(rename="pass")))
    converter.register_unstructure_hook(
        cls, make_dict_unstructure_fn(cls, converter, passed=override(rename="pass")))


# Fields whose name on the wire differs from the model's: (class, field) -> wire name.
_WIRE_NAMES = {(m.AxisResult, "passed"): "pass", (m.AxisSummary, "passed"): "pass"}
for _cls, _ in _WIRE_NAMES:
    _rename_pass(_cls)

_axis_summary_out = converter.get_unstructure_hook(m.AxisSummary)


def _unstructure_axis_summary(a: m.AxisSummary) -> dict:
    d = _axis_summary_out(a)
    if not a.incomplete:  # an extension: history lines of complete runs stay as they were
        d.pop("incomplete", None)
    return d


converter.register_unstructure_hook(m.AxisSummary, _unstructure_axis_summary)

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

_case_result_out = converter.get_unstructure_hook(m.CaseResult)


def _unstructure_case_result(c: m.CaseResult) -> dict:
    d = _case_result_out(c)
    if isinstance(d.get("regression"), dict):  # a gated regression axis says "gated": true, never flips
        d["regression"].pop("flips_to_fail", None)
    if c.predicates_proven is None:
        d.pop("predicates_proven", None)
    return d


converter.register_unstructure_hook(m.CaseResult, _unstructure_case_result)

_judgment_out = make_dict_unstructure_fn(m.Judgment, converter)


def _unstructure_judgment(j: m.Judgment) -> dict:
    d = _judgment_out(j)
    for key in ("strength", "quote", "model"):
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
    if not v.incomplete:
        d.pop("incomplete", None)
    return d


converter.register_unstructure_hook(m.AxisVerdict, _unstructure_verdict)


def _omit_when_empty(cls, keys: tuple[str, ...], flags: tuple[str, ...] = ()) -> None:
    """Optional extensions go out only when set (a flag named in ``flags`` only when true), so files written
    before them stay byte-identical. A False that means something (results.json ``sandboxed``) is written."""
    out = converter.get_unstructure_hook(cls)

    def hook(obj) -> dict:
        d = out(obj)
        for key in keys + flags:
            if d.get(key) in (None, {}, [], ()) or (key in flags and d.get(key) is False):
                d.pop(key, None)
        return d
    converter.register_unstructure_hook(cls, hook)


_omit_when_empty(m.SkillRef, ("tests",))
_omit_when_empty(m.BranchRef, ("remote", "remote_commit"))
_omit_when_empty(m.RunInfo, ("model", "judge_model", "estimate", "budget", "not_run", "unproven", "sandbox",
                             "baseline_sees", "toolchain", "skill_version"), flags=("confirm_judgments",))
_omit_when_empty(m.NoiseFloor, ("calibration_run", "decisive_rate", "low", "high", "first_shown_share",
                                 "false_alarm_p", "false_alarm_p_high", "false_pass_p", "cases", "flipped",
                                 "confirmations", "cost_usd", "cost_equivalent_tokens", "false_pass_p_high", "reds",
                                 "red_p", "red_p_high", "red_sentence", "partial", "calibration_flipped",
                                 "calibration_confirmations"))
_omit_when_empty(m.NoiseCount, ("decisive_rate", "low", "high", "confirmations", "flipped", "confirmed_first_shown"))
_omit_when_empty(m.Calibration, ("skill_version", "judge_served", "arm_model", "arm_served", "trials", "judged",
                                 "partial"), flags=("confirmed",))
_omit_when_empty(m.SkillResult, ("model", "judges", "judge_model", "estimate", "budget", "not_run", "environment",
                                   "sandboxed", "caveats", "claude_code", "served", "noise", "ignored",
                                   "ignored_usage"))
_omit_when_empty(m.HistoryEntry, ("model", "usage", "estimate", "claude_code", "served"))
_omit_when_empty(m.Estimate, ("judges", "raw_tokens", "cost_equivalent_tokens", "cost_usd"))
_omit_when_empty(m.Budget, ("raw_tokens", "usd"))
_omit_when_empty(m.ComparisonRecord, ("outputs_sha256", "confirmations"))
_omit_when_empty(m.AssertionResult, ("output_sha256",))
# Issue 41 (a hook wraps the one registered above, so these compose with the lists there).
_omit_when_empty(m.RunInfo, (), flags=("pilot",))
_omit_when_empty(m.SkillResult, ("no_signal",))
_omit_when_empty(m.HistoryEntry, ("efficacy_cases",))


def dump(obj: Any) -> Any:
    """Model -> plain JSON-able data."""
    return converter.unstructure(obj)


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """Model -> JSON text (stable key order as declared, trailing newline when indented)."""
    if indent is None:
        return json.dumps(dump(obj), ensure_ascii=False)
    return "".join(dumps_parts(obj, indent=indent))


def dumps_parts(obj: Any, *, indent: int = 2, streamed: Optional[dict[str, Iterable]] = None) -> Iterator[str]:
    """:func:`dumps`'s text in parts, made as they are asked for (a large file written part by part is never
    held whole: files.write_atomic takes them). ``streamed``: top-level fields whose value is a list of models
    given here instead, one at a time (``obj`` holds none of them): each is made into data, written and let go
    when its turn comes, so the list is never held either; the text is that of ``obj`` holding them all."""
    value = dump(obj)
    if streamed:
        missing = set(streamed) - set(value)
        if missing:  # a field left out when empty: where its items would go is not known
            raise ValueError(f"no field {', '.join(sorted(missing))} in {type(obj).__name__}'s data to stream into")
        value = {k: _Streamed(streamed[k]) if k in streamed else v for k, v in value.items()}
    yield from _indented(value, indent, 0, 2)
    yield "\n"


class _Streamed:
    """A list of models handed to :func:`_indented` one at a time (see :func:`dumps_parts`)."""

    def __init__(self, items: Iterable):
        self.items = items


def _indented(value: Any, indent: int, level: int, depth: int) -> Any:
    """The parts of ``json.dumps(value, indent=indent, ensure_ascii=False)`` nested ``level`` deep, the same
    text: the top ``depth`` levels of objects and lists taken apart here, each value below them written alone
    by :mod:`benchcore.jsontext`. Indented, json's encoder is its Python one, which keeps every piece of the
    text in a list until the end (for a plan of 3,000 cells about 30 MB of pieces beside the 9 MB text, the
    peak of a collect at that size) and leaves a reference cycle per call. Taken apart, the pieces held at
    once are one cell's."""
    inner = "\n" + " " * (indent * (level + 1))
    if isinstance(value, _Streamed):
        first = True
        for item in value.items:
            yield ("[" if first else ",") + inner
            yield from _indented(dump(item), indent, level + 1, depth - 1)
            first = False
        yield "[]" if first else "\n" + " " * (indent * level) + "]"
        return
    if depth and isinstance(value, dict) and value and all(type(k) is str for k in value):  # json words other keys
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ("," if i else "") + inner + jsontext.dumps(key) + ": "
            yield from _indented(item, indent, level + 1, depth - 1)
        yield "\n" + " " * (indent * level) + "}"
    elif depth and isinstance(value, (list, tuple)) and value:
        yield "["
        for i, item in enumerate(value):
            yield ("," if i else "") + inner
            yield from _indented(item, indent, level + 1, depth - 1)
        yield "\n" + " " * (indent * level) + "]"
    else:
        yield jsontext.dumps(value, indent, level)


def _format_problem(exc: BaseException, type_) -> str:
    if isinstance(exc, KeyError):
        return "required field missing"
    if isinstance(exc, TypeError) and str(exc).startswith("expected "):
        return str(exc)
    return cattrs.v.format_exception(exc, type_)


def load(cls: type[T], data: Any, *, source: str = "<data>") -> T:
    """Plain data -> model, or BenchError naming the source and the JSON path of each problem."""
    if attrs.has(cls) and not isinstance(data, dict):
        raise BenchError(source, f"is not a JSON object (found {type(data).__name__}): it does not match the "
                         f"{cls.__name__} format", fix="compare it with docs/run-format.md and correct it")
    if getattr(cls, "__origin__", None) is list and not isinstance(data, list):
        raise BenchError(source, f"is not a JSON list (found {type(data).__name__})",
                         fix="compare it with docs/run-format.md and correct it")
    try:
        return converter.structure(data, cls)
    except Exception as exc:  # cattrs raises ClassValidationError / ValueError / TypeError
        problems = (cattrs.transform_error(exc, format_exception=_format_problem)
                    if isinstance(exc, cattrs.BaseValidationError) else [str(exc)])
        problems = [p.replace(".passed", ".pass") for p in problems]  # the wire name
        name = getattr(cls, "__name__", str(cls))
        if getattr(cls, "__origin__", None) is list and getattr(cls, "__args__", None):
            name = f"list of {cls.__args__[0].__name__}"
        raise BenchError(source, f"does not match the {name} format: " + "; ".join(problems),
                         fix="compare it with docs/run-format.md and correct the named fields") from None


def loads(cls: type[T], text: str, *, source: str = "<data>") -> T:
    """JSON text -> model; bad JSON names the line and column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchError(source, f"is not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno,
                         fix="repair the JSON or re-create the file with the command that writes it") from None
    return load(cls, data, source=source)



def wire_problems(cls: type, data: Any, path: str = "$") -> list[str]:
    """What ``load`` lets through but a file read back from a shared folder must not hold: fields the format
    does not know (``load`` ignores them, so a reader could be shown what the model never says) and numbers
    that are not finite (NaN, Infinity, 1e999)."""
    import math
    import types
    import typing

    out: list[str] = []
    if isinstance(data, float):
        return [] if math.isfinite(data) else [f"{path} is {data!r}, not a finite number"]
    origin = typing.get_origin(cls)
    args = typing.get_args(cls)
    if attrs.has(cls) and isinstance(data, dict):
        hints = typing.get_type_hints(cls)
        fields = {_WIRE_NAMES.get((cls, f.name), f.name): f.name for f in attrs.fields(cls)}
        for key, value in data.items():
            if key not in fields:
                out.append(f"{path}.{key} is not a field of {cls.__name__}")
            else:
                out += wire_problems(hints[fields[key]], value, f"{path}.{key}")
    elif origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            out += wire_problems(inner[0], data, path)
    elif origin in (list, tuple) and isinstance(data, list):
        for i, item in enumerate(data):
            item_type = args[0] if origin is list or (len(args) == 2 and args[1] is Ellipsis) else \
                (args[i] if i < len(args) else Any)
            out += wire_problems(item_type, item, f"{path}[{i}]")
    elif origin is dict and isinstance(data, dict):
        for key, value in data.items():
            out += wire_problems(args[1] if len(args) == 2 else Any, value, f"{path}.{key}")
    elif isinstance(data, (dict, list)):  # untyped (Any): only the numbers are checked
        items = data.items() if isinstance(data, dict) else enumerate(data)
        for key, value in items:
            out += wire_problems(Any, value, f"{path}[{key}]" if isinstance(data, list) else f"{path}.{key}")
    return out
