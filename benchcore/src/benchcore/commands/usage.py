"""``benchcore usage <transcript.jsonl>... [--json]``: token usage, cost-equivalent tokens and dollars.

Reads each Claude Code transcript (on-disk or stream-json), counts each API
response once (docs/run-format.md, usage and cost) and prints one table per file and the total.
A missing file is bad input (exit 2, nothing printed on stdout).
"""

from __future__ import annotations

import argparse
import json
import sys

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcripts", nargs="+", metavar="transcript.jsonl",
                        help="Claude Code transcript files (JSON lines)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def run(args: argparse.Namespace) -> int:
    from attrs import asdict  # not serde: cattrs costs more to import than a corpus costs to read

    from .. import usage
    from ..harness.claude import tokens

    prices = tokens.price_table()
    files = [(path, *tokens.transcript_usage(path, prices)) for path in args.transcripts]
    total = usage.sum_usage(u for _, u, _ in files)
    skipped = sum(n for _, _, n in files)
    if args.json:
        doc = {"files": [{"path": path, **asdict(u), "skipped_lines": n} for path, u, n in files],
               "total": {**asdict(total), "skipped_lines": skipped}}
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
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


def _table(title: str, u, skipped: int) -> str:
    rows = [(label, f"{getattr(u, key):,}") for label, key in _ROWS]
    rows.append(("cost-equivalent tokens", f"{u.cost_equivalent_tokens:,.1f}"))
    rows.append(("dollars (imputed)", _dollars(u)))
    rows.append(("models", ", ".join(u.models) or "none"))
    rows.append(("skipped lines", f"{skipped:,}"))
    width = max(len(label) for label, _ in rows)
    return "\n".join([title] + [f"  {label:<{width}}  {value}" for label, value in rows])


def _dollars(u) -> str:
    if u.cost_usd is None:
        names = ", ".join(u.unpriced_models)
        return f"unknown: no price for model{'s' if len(u.unpriced_models) > 1 else ''} {names}"
    return f"${u.cost_usd:,.4f}" if u.cost_usd >= 0.01 or u.cost_usd == 0 else f"${u.cost_usd:.6f}"
