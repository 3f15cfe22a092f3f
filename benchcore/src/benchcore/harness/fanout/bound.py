"""A fan-out's data in short lines and few characters, so Claude Code's "Run a dynamic workflow?" dialog can approve it.

In default permission mode Claude Code shows a workflow script before it runs
and withholds approval ("script of N characters cannot be shown in full —
approval is unavailable", "No" the only choice) when it cannot show it in full:
measured on 2.1.328, past 200,000 characters, or with long lines (the rule is below).
The Workflow tool also refuses a script file over 512 KiB outright. One planned
prompt on one line is about 1 KB for an arm and 3-5 KB for a judge, so a few
packets were enough to lose the dialog. Here each prompt becomes a list of
short pieces; each line that occurs more than once (the judge's instructions,
a case's request, an answer two packets show) is written once, in ``texts``,
and named by its number, a run of them by ``[first, last]``; and what a prompt
names several times and no other prompt does (an arm's world path, a packet's
id) stands as HOLE, so the lines naming it are shared too:

    {"texts": [["shared ", "line\n"], ...],
     "tasks": [{"id": ..., "hole": "/w/1", "prompt": [[0, 7], "own ", "text\n", 3]}]}

``bench-fanout.js`` joins the pieces back into the exact prompt;
:func:`decoded_tasks` is the same rule in Python. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Union

# What the approval dialog shows in full. Measured on 2.1.328 in a 220-column terminal: at most 200,000
# characters (199,993 approved, 203,962 refused, with lines of 40, 80 or 400 characters); of lines of 3,000
# characters, seven were approved, eight and nine refused. The CLI's rule (its code, unchanged in 2.1.332):
# a line over MAX_LINE characters withholds approval whatever the total; lines longer than SHORT_LINE count,
# by the sum of their squared lengths, against DIALOG_BUDGET (4 x 4096^2: seven 3,000-character lines fit,
# eight do not); lines up to SHORT_LINE count against a second budget, SHORT_BUDGET, not the first (so
# 3,000- and 1,024-character lines summing to 1.6 x DIALOG_BUDGET were approved). SHORT_BUDGET is the
# most short lines within MAX_SCRIPT_CHARS can weigh: the character cap is what bounds them.
MAX_SCRIPT_CHARS = 200_000
MAX_LINE = 4096
SHORT_LINE = 1024
DIALOG_BUDGET = 4 * 4096 ** 2
SHORT_BUDGET = SHORT_LINE * MAX_SCRIPT_CHARS
# The longest piece of text on one line, JSON-escaped: a line is the piece, its quotes and a comma, so a
# short line (SHORT_BUDGET): a script of 200,000 characters in such lines weighs about 17M of the 205M
# budget; each line adds 4 characters to it.
PIECE = 80

# Where a task's hole stands in its bound prompt: a control character; a prompt that holds it keeps its hole
# written out (encode_tasks checks).
HOLE = "\u0001"
# The Workflow tool reads no larger script file ("Workflow script file ... exceeds 524288 bytes").
MAX_SCRIPT_BYTES = 524288
# A shorter shared line is written in place unless it continues a run: a reference takes about as much.
MIN_SHARED = 8

Piece = Union[str, int, list]  # a piece of text, texts[n], or texts[a..b] as [a, b]


def line_width(line: str) -> int:
    """A line's length as JavaScript counts it (UTF-16 code units), which is how Claude Code measures it."""
    return len(line) if line.isascii() else len(line.encode("utf-16-le", "surrogatepass")) // 2


def dialog_cost(script: str) -> int:
    """What the approval dialog weighs against DIALOG_BUDGET: the sum of the squared lengths of ``script``'s
    lines longer than SHORT_LINE."""
    return sum(w * w for w in map(line_width, script.split("\n")) if w > SHORT_LINE)


def short_cost(script: str) -> int:
    """What the approval dialog weighs against SHORT_BUDGET: the sum of the squared lengths of ``script``'s
    lines of at most SHORT_LINE characters."""
    return sum(w * w for w in map(line_width, script.split("\n")) if w <= SHORT_LINE)


def measure(script: str) -> tuple[int, ...]:
    """(characters as the dialog counts them, bytes, dialog cost of long lines, of short lines, the longest
    line) of ``script``."""
    widths = [line_width(line) for line in script.split("\n")]
    long_cost = sum(w * w for w in widths if w > SHORT_LINE)
    return (line_width(script), len(script.encode("utf-8")), long_cost,
            sum(w * w for w in widths if w <= SHORT_LINE), max(widths))


def limits() -> tuple[int, ...]:
    """What each figure of :func:`measure` may reach."""
    return MAX_SCRIPT_CHARS, MAX_SCRIPT_BYTES, DIALOG_BUDGET, SHORT_BUDGET, MAX_LINE


def within(figures: tuple[int, ...]) -> bool:
    """Whether a script of these :func:`measure` figures is one the Workflow tool takes and its dialog can
    offer "Yes" for."""
    return all(m <= limit for m, limit in zip(figures, limits()))


def fits(script: str) -> bool:
    """Whether the Workflow tool takes ``script`` and its dialog can offer "Yes"."""
    return within(measure(script))


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


# The characters whose escaped width is not 1: what JSON escapes (quote, backslash, control characters) and
# those outside the BMP (two UTF-16 units). Every other character is one, so a run of them is cut by slicing.
_WIDE = re.compile(r'["\\\x00-\x1f\U00010000-\U0010ffff]')


def pieces(text: str) -> list[str]:
    """``text`` in pieces of at most PIECE escaped characters (a newline is two: ``\\n``)."""
    out: list[str] = []
    start, width = 0, 0  # the current piece's start and escaped width so far
    i, n = 0, len(text)
    while i < n:
        m = _WIDE.search(text, i)
        stop = m.start() if m else n
        # text[i:stop] is all width 1: fill the piece, cut, and go on by whole pieces.
        while i < stop:
            room = PIECE - width
            if stop - i < room:
                width += stop - i
                i = stop
                break
            if room <= 0 and i > start:
                out.append(text[start:i])
                start, width = i, 0
                continue
            i += room
            width = PIECE
            out.append(text[start:i])
            start, width = i, 0
        if m is None:
            break
        w = _escaped_width(text[i])
        if width + w > PIECE and i > start:
            out.append(text[start:i])
            start, width = i, 0
        width += w
        i += 1
    if start < n:
        out.append(text[start:])
    return out


def encode(prompts: list[str]) -> tuple[list[list[str]], list[list[Piece]]]:
    """(texts, one piece list per prompt). A line (up to and with its newline) that occurs more than once
    in all the prompts is written once, in ``texts``, and named by its number; a run of numbers a..b by
    ``[a, b]``, so a shared preamble or answer is one reference. Texts are numbered in the order first met,
    and a line met right after a shared one is numbered next (a blank line too, though one was numbered
    before), so runs stay runs. Lines met once, and short ones out of a run, are written in place."""
    split = [_lines(p) for p in prompts]
    seen = Counter(line for lines in split for line in lines)
    index: dict[str, int] = {}
    texts: list[str] = []
    out: list[list[Piece]] = []
    for lines in split:
        items: list = []
        own = ""  # lines written in place, not yet cut into pieces
        last = None  # the number of the previous line when it was shared
        for line in lines:
            if last is not None and last + 1 < len(texts) and texts[last + 1] == line:
                n = last + 1  # the run goes on
            elif seen[line] < 2 or (len(line) < MIN_SHARED and last is None):
                own += line
                last = None
                continue
            elif (last is not None and last + 1 == len(texts)) or line not in index:
                n = len(texts)  # a new text, next to the one before when this is a run
                texts.append(line)
                index.setdefault(line, n)
            else:
                n = index[line]
            if own:
                items.extend(pieces(own))
                own = ""
            if last is not None and n == last + 1:
                prev = items[-1]
                items[-1] = [prev if isinstance(prev, int) else prev[0], n]
            else:
                items.append(n)
            last = n
        items.extend(pieces(own))
        out.append(items)
    return [pieces(t) for t in texts], out


def decode_prompt(prompt: Union[str, list], texts: list[list[str]]) -> str:
    """The prompt a task's pieces make (as bench-fanout.js joins them); a plain string is itself."""
    if isinstance(prompt, str):
        return prompt
    joined = ["".join(t) for t in texts]
    out = []
    for p in prompt:
        if isinstance(p, int):
            out.append(joined[p])
        elif isinstance(p, list):
            out.extend(joined[p[0]:p[1] + 1])
        else:
            out.append(p)
    return "".join(out)


def encode_tasks(tasks: list[dict]) -> tuple[list[list[str]], list[dict]]:
    """(texts, the tasks with each prompt as pieces). A task's ``hole`` (an arm's world, a packet's id: a
    string its prompt names several times) stands as HOLE in its bound prompt, so the lines naming it are
    the same for every task and written once; the script puts it back."""
    prompts, out = [], []
    for t in tasks:
        hole = t.get("hole")
        if hole and HOLE not in t["prompt"] and hole in t["prompt"]:
            prompts.append(t["prompt"].replace(hole, HOLE))
            out.append(t)
        else:
            prompts.append(t["prompt"])
            out.append({k: v for k, v in t.items() if k != "hole"})
    texts, encoded = encode(prompts)
    return texts, [{**t, "prompt": p} for t, p in zip(out, encoded)]


def decoded_tasks(data: dict) -> list[dict]:
    """A bound script's tasks with their prompts joined again (what the script hands each agent)."""
    texts = data.get("texts") or []
    out = []
    for t in data.get("tasks", []):
        prompt = decode_prompt(t["prompt"], texts)
        if t.get("hole"):
            prompt = prompt.replace(HOLE, t["hole"])
        out.append({**t, "prompt": prompt})
    return out


def render(data: dict) -> str:
    """The bound object as the script holds it: one JSON value a line, no indentation."""
    return json.dumps(data, ensure_ascii=False, indent=0)
