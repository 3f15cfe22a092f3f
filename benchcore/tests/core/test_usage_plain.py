"""`benchcore usage`'s plain path gives exactly what the attrs path gives, and declines what it does not handle.

The plain path (usage/plain.py, modelid, usage/lines.py, the command's own argument and JSON forms) exists only
to start fast; every figure, model id, argument and byte of output it produces is checked here against
the path it stands in for: usage.arm_usage / sum_usage, re, argparse, json.dumps.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys

import pytest
from attrs import asdict

from benchcore import usage
from benchcore.usage import plain as usage_plain
from benchcore.commands import usage as usage_cmd
from benchcore.harness.claude import tokens
from benchcore.modelid import normalize_model_id
from benchcore.usage.lines import LineReducer
from places import TESTS

FIXTURES = TESTS / "fixtures"
MODELS = ["claude-sonnet-4-6", "claude-opus-4-5-20251101", "us.anthropic.claude-haiku-4-5-20251001-v1:0",
          "claude-haiku-5-5", "claude-haiku-5-5@20260101", "claude-nova-1", "<unknown>"]


def _attrs_figures(groups, result, skipped) -> dict:
    return asdict(usage.arm_usage(usage.finish_state(groups, result, skipped), tokens.price_table()))


def _plain(groups, result) -> dict | None:
    return usage_plain.arm_figures(groups, result, usage_plain.plain_prices(tokens.price_data()))


def test_the_plain_figures_are_the_attrs_figures_on_every_committed_transcript():
    paths = sorted(FIXTURES.rglob("*.jsonl"))
    assert len(paths) > 10
    plain = 0
    for path in paths:
        reducer = LineReducer()
        tokens.read_into(path, reducer)
        groups, result, skipped = reducer.close()
        mine = _plain(groups, result)
        if mine is not None:
            plain += 1
            assert mine == _attrs_figures(groups, result, skipped), path
    assert plain > 5  # most transcripts take the plain path


def _group(rng: random.Random) -> list:
    cc = rng.choice([0, rng.randint(0, 300_000)])
    e1 = rng.choice([0, rng.randint(0, cc + 1)])
    return [rng.choice(MODELS), rng.randint(0, 90_000), rng.randint(0, 9_000), cc,
            rng.choice([0, rng.randint(0, cc + 1)]), e1, rng.choice([0, rng.randint(0, 150_000)]),
            rng.choice([0, 0, 0, rng.randint(1, 5)]), None, rng.choice([None, "standard"]), ()]


def test_the_plain_figures_are_the_attrs_figures_on_random_responses():
    # Long prompts (haiku-5-5's tier above 100k), web searches, unpriced models and provider spellings.
    rng = random.Random(29)
    for _ in range(400):
        groups = {f"msg_{i}": _group(rng) for i in range(rng.randint(0, 12))}
        mine = _plain(groups, None)
        assert mine == _attrs_figures(groups, None, 0), groups


@pytest.mark.parametrize("change", [
    lambda g: g.__setitem__(8, "us"),                  # an inference_geo multiplier
    lambda g: g.__setitem__(9, "fast"),                # fast-mode prices
    lambda g: g.__setitem__(10, ((1, 1, 0, 0, 0, 0),)),  # iterations
])
def test_what_the_plain_path_does_not_price_it_declines(change):
    rng = random.Random(3)
    groups = {"a": _group(rng), "b": _group(rng)}
    change(groups["b"])
    assert _plain(groups, None) is None
    assert _plain({"a": _group(rng)}, {"type": "result", "usage": {}}) is None  # a result line


def test_the_plain_sum_is_sum_usage():
    rng = random.Random(5)
    for _ in range(200):
        items = [{"m": _group(rng)} for _ in range(rng.randint(0, 6))]
        attrs_items = [usage.arm_usage(usage.finish_state(g, None, 0), tokens.price_table()) for g in items]
        want = asdict(usage.sum_usage(attrs_items))
        assert usage_plain.sum_figures([asdict(u) for u in attrs_items]) == want


@pytest.mark.parametrize("bad", [
    {"models": "no"}, [], {"models": [{"id": "x", "prices": {"input": 1}}]},
    {"models": [{"id": "x", "prices": dict.fromkeys(usage_plain.COMPONENTS, -1)}]},
    {"models": [{"id": "x", "prices": dict.fromkeys(usage_plain.COMPONENTS, 1e-12)}]},  # finer than 1e-10
    {"models": [{"id": "x", "prices": dict.fromkeys(usage_plain.COMPONENTS, 1)},
                {"id": "x-20250101", "prices": dict.fromkeys(usage_plain.COMPONENTS, 1)}]},  # one id twice
    {"models": [{"id": "x", "prices": dict.fromkeys(usage_plain.COMPONENTS, 1), "long_prompt": {}}]},
])
def test_a_price_table_not_plainly_well_formed_is_declined(bad):
    assert usage_plain.plain_prices(bad) is None


_B = re.compile(r"^(?:[a-z][a-z0-9-]*\.)?anthropic\.")
_V = re.compile(r"@\d{8}$")
_BV = re.compile(r"-v\d+(?::\d+)?$")
_D = re.compile(r"-\d{8}$")


def _normalize_by_re(model: str) -> str:
    """benchcore.pricing's normalize_model_id as it was written, with regular expressions."""
    name = model.strip().lower()
    return _D.sub("", _BV.sub("", _V.sub("", _B.sub("", name))))


def test_model_ids_are_normalized_as_the_regular_expressions_did():
    parts = ["anthropic.", "us.", "eu-1.", "a.", "1a.", "A.", "-", "-v", "v", ":", "@", "1", "20251001", "\u0663",
             "claude", "-haiku", ".", " ", "\n", "K", "\u212a", "-v1:0", "@20251001", "-20251001", "\u00e9"]
    rng = random.Random(7)
    for _ in range(20_000):
        model = "".join(rng.choice(parts) for _ in range(rng.randint(0, 7)))
        assert normalize_model_id(model) == _normalize_by_re(model), model


def test_the_json_written_is_json_dumps():
    rng = random.Random(1)
    for _ in range(200):
        doc = {"files": [{"path": rng.choice(['a "b"\\c', "é\u2028\x01", "p"]), "n": rng.randint(-5, 10**12),
                          "f": rng.choice([0.0, 1e-7, 11425.0, 0.1 + 0.2, 1e22]), "none": None, "t": True,
                          "models": rng.choice([[], ["x"], ["x", "y\n"]]), "empty": {}}
                         for _ in range(rng.randint(1, 3))], "total": {"k": [1, [2, {}]]}}
        assert usage_plain.dumps(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def _argparse(argv: list[str]):
    parser = argparse.ArgumentParser(prog="benchcore usage", exit_on_error=False)
    usage_cmd.add_arguments(parser)
    try:
        ns, extra = parser.parse_known_args(argv)
    except (argparse.ArgumentError, SystemExit):
        return None
    return None if extra else (ns.transcripts, ns.json)


@pytest.mark.parametrize("argv", [
    ["a"], ["a", "b"], ["--json", "a"], ["a", "--json"], ["a", "b", "--json"], ["--json", "a", "b", "--json"],
    ["--json", "--json", "a"], ["a", "--json", "b"], ["--json"], [], ["-"], ["a", "-x"], ["--", "a"],
    ["a", "--js"], ["a", "--json=1"], [""], ["a", ""],
])
def test_the_plain_argument_forms_read_as_argparse_reads_them(argv):
    mine = usage_cmd.parse_simple(argv)
    if mine is not None:  # anything else goes to argparse itself
        assert (mine.transcripts, mine.json) == _argparse(argv), argv


def test_a_transcript_the_plain_path_declines_is_reported_by_the_attrs_path(capsys):
    from benchcore.cli import main

    stream = FIXTURES / "transcripts" / "stream-json.jsonl"
    plain = FIXTURES / "transcripts" / "two-models.jsonl"
    assert main(["usage", "--json", str(stream), str(plain)]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = [usage.arm_usage(tokens.read_transcript(p), tokens.price_table()) for p in (stream, plain)]
    assert [{k: v for k, v in f.items() if k not in ("path", "skipped_lines")} for f in doc["files"]] == \
        [json.loads(json.dumps(asdict(u))) for u in want]
    assert {k: v for k, v in doc["total"].items() if k != "skipped_lines"} == \
        json.loads(json.dumps(asdict(usage.sum_usage(want))))


def _usage_in_a_fresh_process(transcript) -> tuple[int, list, dict]:
    """`benchcore usage --json` in a fresh interpreter: its exit code, the heavy modules it imported, its JSON."""
    code = ("import sys, io\nfrom benchcore.cli import main\nout, sys.stdout = sys.stdout, io.StringIO()\n"
            f"code = main(['usage', '--json', {str(transcript)!r}])\ntext, sys.stdout = sys.stdout.getvalue(), out\n"
            "heavy = ('attr', 'attrs', 'cattrs', 'yaml', 'jinja2', 're', 'json', 'typing', 'argparse', 'pathlib',"
            " 'fractions', 'decimal', 'enum')\n"
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\nprint(text)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, _, rest = proc.stdout.partition("\n")
    code, _, modules = first.partition(" ")
    return int(code), eval(modules), json.loads(rest)  # noqa: S307 - our own printed list


def test_the_usage_path_imports_only_the_interpreter_s_own_modules(tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(
        {"parentUuid": None, "message": {"id": f"m{i}", "model": "claude-sonnet-4-6", "content": [],
                                         "usage": {"input_tokens": 3, "output_tokens": 5}}, "type": "assistant"},
        separators=(",", ":")) + "\n" for i in range(3)))
    code, heavy, doc = _usage_in_a_fresh_process(transcript)
    assert (code, heavy, doc["total"]["input"], doc["total"]["output"]) == (0, [], 9, 15)


def test_a_damaged_line_is_skipped_in_a_fresh_process():
    # The JSON error of a cut line is named by json.decoder, which the usage path imports only then
    # (Python 3.11's C scanner raises SystemError without it): the line is skipped, the figures stand.
    code, heavy, doc = _usage_in_a_fresh_process(FIXTURES / "transcripts" / "subagent-on-disk.jsonl")
    assert (code, doc["total"]["skipped_lines"], doc["total"]["cost_usd"]) == (0, 1, 0.034275)
    assert "attrs" not in heavy and "attr" not in heavy
