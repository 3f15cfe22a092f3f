"""prices.json against the model catalog built into the Claude Code binary: the tool for updating prices.

Claude Code bills with a catalog baked into its binary (a JavaScript object
with ``pricing_tiers`` and ``models``, each model naming its tier and its
provider ids), a fast-mode price table and a 1.1 multiplier for
``inference_geo: "us"``. This test reads them from the binary and names every
difference from ``benchcore/src/benchcore/data/prices.json``.

The binary: ``BENCH_CLAUDE_BIN``, else the pinned version installed by the
real-CLI rig (``$BENCH_CLI_CACHE``, default ``~/.cache/benchcore-claude-cli``).
Skipped when neither exists, unless ``BENCH_REQUIRE_REALCLI=1``.
"""

from __future__ import annotations

import json
import mmap
import os
import platform
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from benchcore import pricing
from benchcore.harness.claude import tokens

KINDS = pricing.COMPONENTS
CATALOG_START = b'{"//":"Hand-maintained baked-in model catalog'


def _binary(version: str) -> Path | None:
    env = os.environ.get("BENCH_CLAUDE_BIN")
    if env:
        return Path(env)
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), platform.machine())
    cache = Path(os.environ.get("BENCH_CLI_CACHE", Path.home() / ".cache" / "benchcore-claude-cli"))
    path = cache / version / "node_modules" / "@anthropic-ai" / f"claude-code-linux-{arch}" / "claude"
    return path if path.exists() else None


def _js_object(text: str) -> object:
    """A JavaScript object literal of plain data (quoted strings, bare keys, !0/!1, numbers) as JSON."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        key = re.match(r"[A-Za-z_$][\w$]*(?=:)", text[i:i + 100]) if out and out[-1][-1:] in "{," else None
        if key:
            out.append(f'"{key.group(0)}"')
            i += len(key.group(0))
        elif text.startswith(("!0", "!1"), i):
            out.append("true" if text[i + 1] == "0" else "false")
            i += 2
        else:
            out.append(c)
            i += 1
    return json.loads("".join(out))


def _balanced(data: bytes, start: int) -> str:
    """The text of the object literal starting at ``start`` (braces counted outside strings)."""
    depth, j, in_string = 0, start, False
    while True:
        b = data[j:j + 1]
        if in_string:
            if b == b"\\":
                j += 2
                continue
            in_string = b != b'"'
        elif b == b'"':
            in_string = True
        elif b == b"{":
            depth += 1
        elif b == b"}":
            depth -= 1
            if depth == 0:
                return data[start:j + 1].decode()
        j += 1


def read_binary(path: Path) -> dict:
    """The catalog, fast-mode prices and inference_geo multiplier built into a Claude Code binary."""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = data.find(CATALOG_START)
        assert at != -1, f"{path}: no model catalog found (the bundle changed: update this reader)"
        catalog = _js_object(_balanced(data, at))
        # fast mode: `if(e==="claude-fable-5-2"||e==="claude-mythos-5-2")return X;if(e==="claude-opus-5-5")return Y;...`
        at = data.find(b'if(e==="claude-fable-5-2"||e==="claude-mythos-5-2")return ')
        assert at != -1, f"{path}: no fast-mode price table found (update this reader)"
        body = data[at:data.find(b"return}", at)].decode()
        fast = {}
        for cond, var in re.findall(r"if\(([^)]*)\)return ([\w$]+);", body):
            # the table is defined shortly before the function: `...,X={inputTokens:...}`
            start = data.rfind(b"," + var.encode() + b"={inputTokens:", 0, at)
            assert start != -1, f"{path}: fast-mode prices {var} not found"
            obj = _js_object(_balanced(data, start + len(var) + 2))
            for model in re.findall(r'e==="([^"]+)"', cond):
                fast[model] = obj
        # `X=1.1;function f(e){return e.inference_geo==="us"?X:1}`
        at = data.find(b'{return e.inference_geo==="')
        geo = re.search(r'([\w$]+)=([\d.]+);function [\w$]+\(e\)\{return e\.inference_geo==="(\w+)"\?\1:1\}',
                        data[at - 100:at + 60].decode("utf-8", "replace")) if at != -1 else None
        assert geo, f"{path}: no inference_geo multiplier found (update this reader)"
    return {"catalog": catalog, "fast": fast, "inference_geo": {geo.group(3): float(geo.group(2))}}


@pytest.fixture(scope="module")
def built_in():
    table = tokens.price_table()
    path = _binary(table.claude_code_version)
    if path is None or not path.exists():
        if os.environ.get("BENCH_REQUIRE_REALCLI") == "1":
            pytest.fail(f"Claude Code {table.claude_code_version} (prices.json's claude_code_version) is not "
                        "installed: install it, or set BENCH_CLAUDE_BIN to the pinned CLI and update prices.json")
        pytest.skip("no Claude Code binary: set BENCH_CLAUDE_BIN or install the pinned CLI")
    return path, read_binary(path)


def _f(x) -> Fraction:
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def _rates(obj: dict, names=KINDS) -> tuple:
    return tuple(_f(obj[n]) for n in names)


def _show(value) -> str:
    """Prices as written in prices.json (4 / 20 / 5 / 8 / 0.2), not as Fractions."""
    if isinstance(value, Fraction):
        return str(float(value)) if value.denominator != 1 else str(value.numerator)
    if isinstance(value, tuple):
        return " / ".join(_show(v) for v in value)
    return str(value)


FAST_NAMES = ("inputTokens", "outputTokens", "promptCacheWriteTokens", "promptCacheWrite1hTokens",
              "promptCacheReadTokens")


def test_prices_json_is_the_catalog_of_its_claude_code_version(built_in):
    path, found = built_in
    table = tokens.price_table()
    version = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60).stdout
    differences = []
    # The binary under test is the pinned CLI, whose catalog prices.json is, or (CI's newest-version step) the
    # one BENCH_CLAUDE_VERSION names: then its catalog must still give every price benchcore charges.
    expected = os.environ.get("BENCH_CLAUDE_VERSION", "").strip() or table.claude_code_version
    if not version.startswith(expected):
        differences.append(f"claude_code_version {expected}, binary says {version.strip()}")
    tiers = found["catalog"]["pricing_tiers"]
    ours = {m.id: m for m in table.models}
    theirs = {m["id"]: m for m in found["catalog"]["models"]}
    for model in sorted(set(ours) ^ set(theirs)):
        differences.append(f"{model}: {'only in prices.json' if model in ours else 'missing from prices.json'}")
    for model in sorted(set(ours) & set(theirs)):
        mine, cat = ours[model], theirs[model]
        tier = tiers[cat["pricing"]]
        want = {
            "prices": _rates(tier),
            "web_search": _f(tier.get("web_search", 0)),
            "long_prompt": None if "long_prompt" not in tier else (
                int(tier["long_prompt"]["above_prompt_tokens"]), _rates(tier["long_prompt"])),
            "fast": _rates(found["fast"][model], FAST_NAMES) if model in found["fast"] else None,
            "provider_ids": sorted({v for v in cat["provider_ids"].values() if v}),
        }
        have = {
            "prices": tuple(getattr(mine.rates, k) for k in KINDS),
            "web_search": mine.web_search,
            "long_prompt": None if mine.long_prompt is None else (
                mine.long_prompt.above_prompt_tokens, tuple(getattr(mine.long_prompt.rates, k) for k in KINDS)),
            "fast": None if mine.fast is None else tuple(getattr(mine.fast, k) for k in KINDS),
            "provider_ids": sorted(mine.provider_ids),
        }
        for key in want:
            if want[key] != have[key]:
                differences.append(f"{model}.{key}: prices.json {_show(have[key])}, catalog {_show(want[key])}")
    geo = {k: _f(v) for k, v in found["inference_geo"].items()}
    if dict(table.inference_geo) != geo:
        differences.append(f"inference_geo: prices.json {dict(table.inference_geo)}, binary {geo}")
    assert not differences, "prices.json differs from the catalog in " + str(path) + ":\n" + "\n".join(differences)


def test_every_catalog_id_is_priced_as_its_model(built_in):
    _, found = built_in
    table = tokens.price_table()
    for model in found["catalog"]["models"]:
        for provider_id in filter(None, model["provider_ids"].values()):
            assert pricing.model_price(table, provider_id).id == model["id"], provider_id
