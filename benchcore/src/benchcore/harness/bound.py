"""A fan-out's data in short lines, so Claude Code's "Run a dynamic workflow?" dialog can approve its script.

Claude Code (2.1.328, default permission mode) withholds approval of a workflow
script whose line lengths, squared and summed, pass 4 x 4096^2: "script of N
characters cannot be shown in full — approval is unavailable", with "No" the
only choice. Total size does not count; long lines do. One planned prompt on
one line is about 1 KB for an arm and 3 KB for a judge, so a few packets were
enough to lose the dialog. Here each prompt becomes a list of short pieces,
and text that several prompts share (the judge's instructions, a case's
request, an output two packets show) is written once, in ``texts``, and named
by its index:

    {"texts": [["shared ", "text"], ...], "tasks": [{"id": ..., "prompt": [0, "own ", "text", 3]}]}

``bench-fanout.js`` joins the pieces back into the exact prompt;
:func:`decode_prompt` is the same rule in Python. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Union

# The dialog's budget: the sum over the script's lines (split on "\n") of the squared line length.
DIALOG_BUDGET = 4 * 4096 ** 2
# The longest piece of text on one line, JSON-escaped: a line is the piece, its quotes and a comma. The
# dialog's cost of a text is about (PIECE + 3)^2 / PIECE per character (38 at 32), so 600 KB of distinct
# text (200 judge packets) costs about 23M of the 67M budget; shorter pieces cost less but make more lines.
PIECE = 32

Piece = Union[str, int]


def line_width(line: str) -> int:
    """A line's length as JavaScript counts it (UTF-16 code units), which is how Claude Code measures it."""
    return len(line) + sum(1 for ch in line if ord(ch) > 0xFFFF)


def dialog_cost(script: str) -> int:
    """What the approval dialog weighs: the sum of the squared lengths of ``script``'s lines."""
    return sum(line_width(line) ** 2 for line in script.split("\n"))


def _lines(text: str) -> list[str]:
    """``text`` cut after each newline (joined again, they are ``text``)."""
    out = text.split("\n")
    return [p + "\n" for p in out[:-1]] + ([out[-1]] if out[-1] else [])


_ESCAPED: dict[str, int] = {}


def _escaped_width(ch: str) -> int:
    w = _ESCAPED.get(ch)
    if w is None:
        w = _ESCAPED[ch] = line_width(json.dumps(ch, ensure_ascii=False)) - 2
    return w


def pieces(text: str) -> list[str]:
    """``text`` in pieces of at most PIECE escaped characters, each ending at the latest at a newline."""
    out: list[str] = []
    for line in _lines(text):
        start, width = 0, 0
        for i, ch in enumerate(line):
            w = _escaped_width(ch)
            if width + w > PIECE and i > start:
                out.append(line[start:i])
                start, width = i, 0
            width += w
        out.append(line[start:])
    return out


def encode(prompts: list[str]) -> tuple[list[list[str]], list[list[Piece]]]:
    """(texts, one piece list per prompt). A run of lines that occur in more than one place (in several
    prompts, or twice in one) is a block; a block met more than once is written once, in ``texts``."""
    split = [_lines(p) for p in prompts]
    seen = Counter(line for lines in split for line in lines)
    runs: list[list[tuple[bool, str]]] = []  # per prompt: (shared?, text) in order
    for lines in split:
        run: list[tuple[bool, str]] = []
        for line in lines:
            shared = seen[line] > 1
            if run and run[-1][0] == shared:
                run[-1] = (shared, run[-1][1] + line)
            else:
                run.append((shared, line))
        runs.append(run)
    blocks = Counter(text for run in runs for shared, text in run if shared)
    index: dict[str, int] = {}
    texts: list[list[str]] = []
    out: list[list[Piece]] = []
    for run in runs:
        items: list[Piece] = []
        for shared, text in run:
            if shared and blocks[text] > 1:
                if text not in index:
                    index[text] = len(texts)
                    texts.append(pieces(text))
                items.append(index[text])
            else:
                items.extend(pieces(text))
        out.append(items)
    return texts, out


def decode_prompt(prompt: Union[str, list], texts: list[list[str]]) -> str:
    """The prompt a task's pieces make (as bench-fanout.js joins them); a plain string is itself."""
    if isinstance(prompt, str):
        return prompt
    return "".join("".join(texts[p]) if isinstance(p, int) else p for p in prompt)


def encode_tasks(tasks: list[dict]) -> tuple[list[list[str]], list[dict]]:
    """(texts, the tasks with each prompt as pieces)."""
    texts, prompts = encode([t["prompt"] for t in tasks])
    return texts, [{**t, "prompt": p} for t, p in zip(tasks, prompts)]


def decoded_tasks(data: dict) -> list[dict]:
    """A bound script's tasks with their prompts joined again (what the script hands each agent)."""
    texts = data.get("texts") or []
    return [{**t, "prompt": decode_prompt(t["prompt"], texts)} for t in data.get("tasks", [])]


def render(data: dict) -> str:
    """The bound object as the script holds it: one JSON value a line, no indentation."""
    return json.dumps(data, ensure_ascii=False, indent=0)
