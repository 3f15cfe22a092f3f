"""``benchcore usage <transcript.jsonl>... [--json]``: token usage, cost-equivalent tokens and dollars.

Reads each Claude Code transcript (on-disk or stream-json), counts each API
response once (docs/run-format.md, usage and cost) and prints one table per file and the total.
A missing file is bad input (exit 2, nothing printed on stdout).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

HELP = "token usage and cost of Claude Code transcripts"

NEXT_STEP = ("Next: compare arms with 'benchcore render <run-dir>' (it sums every cell's transcript per arm); "
             "the trustworthy figures are the ratios of cost-equivalent tokens.")

_ROWS = (
    ("turns", "turns"),
    ("input", "input"),
    ("output", "output"),
    ("cache write 5m", "cache_write_5m"),
    ("cache write 1h", "cache_write_1h"),
    ("cache read", "cache_read"),
    ("raw tokens", "raw_tokens"),
)


def add_arguments(parser: "argparse.ArgumentParser") -> None:
    parser.add_argument("transcripts", nargs="+", metavar="transcript.jsonl",
                        help="Claude Code transcript files (JSON lines)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


class _Args:
    def __init__(self, transcripts: list[str], json: bool) -> None:
        self.transcripts = transcripts
        self.json = json


def parse_simple(argv: list[str]) -> "_Args | None":
    """What :func:`add_arguments`' parser gives for the plain forms, ``FILE... `` with ``--json`` before or
    after them, without importing argparse (with re, a tenth of a run over 300 MB); None for any other
    form, which argparse parses (with its messages). A name starting with '-' is never taken here."""
    files = [a for a in argv if a != "--json"]
    if not files or any(a.startswith("-") for a in files):
        return None
    first = argv.index(files[0])
    if argv[first:first + len(files)] != files:
        return None  # --json between two names: argparse's own message
    return _Args(files, len(files) < len(argv))


def run(args: "argparse.Namespace") -> int:
    from ..usage import plain as usage_plain
    from ..harness.claude import tokens
    from ..usage.lines import LineReducer

    # Plain figures (usage.plain) where they apply, else the attrs path (usage.arm_usage): the same numbers,
    # but attrs alone costs more to import than 300 MB of transcripts cost to read.
    prices = usage_plain.plain_prices(tokens.price_data())
    files = []
    for path in args.transcripts:
        reducer = LineReducer()
        tokens.read_into(path, reducer)
        groups, result, skipped = reducer.close()
        figures = usage_plain.arm_figures(groups, result, prices)
        if figures is None:
            figures = _arm_usage(groups, result, skipped, tokens.price_table())
        files.append((path, figures, skipped))
    total = usage_plain.sum_figures(u for _, u, _ in files)
    skipped = sum(n for _, _, n in files)
    if args.json:
        doc = {"files": [{"path": path, **_lists(u), "skipped_lines": n} for path, u, n in files],
               "total": {**_lists(total), "skipped_lines": skipped}}
        sys.stdout.write(usage_plain.dumps(doc) + "\n")
    else:
        blocks = [_table(path, u, n) for path, u, n in files]
        if len(files) > 1:
            blocks.append(_table(f"total of {len(files)} transcripts", total, skipped))
        print("\n\n".join(blocks))
        print()
        print(NEXT_STEP)
    if skipped:
        print(f"benchcore usage: warning: {skipped} line(s) could not be read and were skipped "
              "(a transcript cut off mid-write ends in a truncated line)", file=sys.stderr)
    return 0


def _arm_usage(groups: dict, result, skipped: int, prices) -> dict:
    """The attrs path: a transcript's figures as :func:`benchcore.usage.arm_usage` gives them."""
    from attrs import asdict  # not serde: cattrs costs more to import than a corpus costs to read

    from .. import usage

    return asdict(usage.arm_usage(usage.finish_state(groups, result, skipped), prices))


def _lists(u: dict) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in u.items()}


def _table(title: str, u: dict, skipped: int) -> str:
    rows = [(label, f"{u[key]:,}") for label, key in _ROWS]
    rows.append(("cost-equivalent tokens", f"{u['cost_equivalent_tokens']:,.1f}"))
    rows.append(("dollars (imputed)", _dollars(u)))
    rows.append(("models", ", ".join(u["models"]) or "none"))
    rows.append(("skipped lines", f"{skipped:,}"))
    width = max(len(label) for label, _ in rows)
    return "\n".join([title] + [f"  {label:<{width}}  {value}" for label, value in rows])


def _dollars(u: dict) -> str:
    usd, unpriced = u["cost_usd"], u["unpriced_models"]
    if usd is None:
        return f"unknown: no price for model{'s' if len(unpriced) > 1 else ''} {', '.join(unpriced)}"
    return f"${usd:,.4f}" if usd >= 0.01 or usd == 0 else f"${usd:.6f}"
