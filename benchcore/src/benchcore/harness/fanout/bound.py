"""A fan-out's data in short lines and few characters, so Claude Code's "Run a dynamic workflow?" dialog can approve it.

In default permission mode Claude Code shows a workflow script before it runs
and withholds approval ("script of N characters cannot be shown in full —
approval is unavailable", "No" the only choice) when it cannot show it in full:
past 200,000 characters, or with long lines (Claude Code's rule, from its code, is below).
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
import unicodedata
from collections import Counter
from typing import Union

from ... import jsontext

# What the approval dialog shows in full, and so can offer "Yes" for: Claude Code's own rule, read from its
# code (the bundled JavaScript in the claude binary; the same code in 2.1.328 and 2.1.332, names aside).
# The Workflow permission dialog sets `u=i.length>ae||t.scriptForged` (ae=200000: MAX_SCRIPT_CHARS, UTF-16
# units) and withholds "Yes, run it" when the script, passed through the terminal sanitizer, comes back
# marked as cut (`Wnt.test(...)`, Wnt=/\u2026 \[\+\d+ graphemes\]/) or with a run of more than 8 combining
# marks (`Dy(o)!==o`, Dki=8). The sanitizer (2.1.328: Ei -> Vh -> nN; 2.1.332: na -> jl -> QR) drops U+FE0E
# and U+FE0F, expands tabs to stops of 8 (_Me, lBe=8), and cuts lines, in order, against two budgets:
#   var tN=4*jnt*jnt,rr=1024,sN=64*rr*rr;function nN(e){let o=tN,r=sN,...;return e.split(`\n`).map((l)=>{
#     if(l==="")return l;...f=m.length>jnt,y=f?eN(m):m,S=f?`\u2026 [+${...} graphemes]`:"",R=y.length+...
#     ,P=R*R;if(P<=o)return o-=P,Mh(y)+S+u;let k=jh(m,rr),B=k.length<m.length?`\u2026 [+...]`:"",
#     G=k.length+B.length+u.length,q=G*G;if(k.length>0&&q<=r)return r-=q,Mh(k)+B+u;return`\u2026 [+...]`+u})
# (jnt=4096). So, line by line: a line over MAX_LINE characters is cut (marked) whatever the budgets; a line
# whose squared length is within what is left of DIALOG_BUDGET (4 x 4096^2) is shown and takes that from it;
# otherwise a line of at most SHORT_LINE (1024) characters is shown from SHORT_BUDGET (64 x 1024^2) if its
# square fits what is left there; any other line is cut, and approval is withheld. Short lines draw on the
# first budget while it lasts: the order of the lines matters (line_budgets below walks them the same way).
# Measured on 2.1.328 and 2.1.332 in a 220-column terminal, as the rule says (realcli/test_realcli_dialog.py):
# 199,993 characters approved, 203,962 refused; seven 3,000-character lines approved, nine refused; one
# 5,000-character line refused; seven 3,000- then 43 1,024-character lines (1.6 x DIALOG_BUDGET in squares)
# approved, and the same lines with the 1,024-character ones first refused; a run of nine combining marks
# refused, the same prompt bound with them escaped (render) approved.
MAX_SCRIPT_CHARS = 200_000
MAX_LINE = 4096
SHORT_LINE = 1024
DIALOG_BUDGET = 4 * 4096 ** 2
SHORT_BUDGET = 64 * 1024 ** 2
# The dialog's tab stops (a tab counts up to the next multiple), and the longest run of combining marks it
# shows (more are cut, a withheld approval like a long line).
TAB_STOP = 8
MAX_MARKS = 8
# The mark a cut line ends with: a script that holds this text is treated as cut too.
CUT_MARK = re.compile("\u2026 \\[\\+\\d+ graphemes\\]")
# The longest piece of text on one line, JSON-escaped: a line is the piece, its quotes and a comma. A script of
# 200,000 characters in such lines weighs about 17M in squares, a quarter of DIALOG_BUDGET.
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


def _shown_width(line: str) -> int:
    """A line's length as the dialog's sanitizer measures it: U+FE0E and U+FE0F dropped, tabs expanded to
    stops of TAB_STOP, other characters in UTF-16 units (what it swaps for U+FFFD keeps its width, but for
    default-ignorable characters outside the BMP, one unit instead of two: counted as two here)."""
    if line.isascii() and "\t" not in line:
        return len(line)
    width = 0
    for ch in line:
        if ch in "\ufe0e\ufe0f":
            continue
        if ch == "\t":
            width += TAB_STOP - width % TAB_STOP
        else:
            width += 2 if ord(ch) > 0xFFFF else 1
    return width


def line_budgets(script: str) -> tuple[int, int, int]:
    """(what ``script``'s lines take of DIALOG_BUDGET, of SHORT_BUDGET, how many lines the dialog cuts), walked
    in order as Claude Code does (see the rule above). From the first line cut on, every line's square counts
    against DIALOG_BUDGET, so the first figure exceeds it exactly when a line of at most MAX_LINE characters is
    cut, and grows with the script past that (a measure of how far over it is)."""
    return _walk(_shown_width(line) for line in script.split("\n"))


def _walk(widths) -> tuple[int, int, int]:
    first = second = cut = 0
    for w in widths:
        if not w:
            continue  # an empty line (or one of only dropped characters) costs nothing
        sq = w * w
        if cut:
            first += sq
        elif w > MAX_LINE:
            cut += 1
        elif first + sq <= DIALOG_BUDGET:
            first += sq
        elif w <= SHORT_LINE and second + sq <= SHORT_BUDGET:
            second += sq
        else:
            cut += 1
            first += sq
    return first, second, cut


def marked_lines(script: str) -> int:
    """Lines the dialog would mark though their length is fine: a run of more than MAX_MARKS combining marks
    (Unicode category M; the CLI also counts characters of no width, which it mostly swaps for U+FFFD first:
    not counted here), or the text of its own cut mark."""
    n = 0
    for line in script.split("\n"):
        if CUT_MARK.search(line):
            n += 1
            continue
        if line.isascii():
            continue
        run = 0
        for ch in line:
            if ch in "\ufe0e\ufe0f":  # dropped before the marks are counted
                continue
            run = run + 1 if unicodedata.category(ch).startswith("M") else 0
            if run > MAX_MARKS:
                n += 1
                break
    return n


def dialog_cost(script: str) -> int:
    """What ``script``'s lines take of DIALOG_BUDGET (more than it when the dialog cuts one)."""
    return line_budgets(script)[0]


def short_cost(script: str) -> int:
    """What ``script``'s lines take of SHORT_BUDGET: those of at most SHORT_LINE characters the first budget
    no longer had room for."""
    return line_budgets(script)[1]


def measure(script: str) -> tuple[int, ...]:
    """(characters as the dialog counts them, bytes, what its lines take of DIALOG_BUDGET, of SHORT_BUDGET,
    the longest line, lines marked for their marks) of ``script``."""
    widths = [_shown_width(line) for line in script.split("\n")]
    first, second, _ = _walk(widths)
    return (line_width(script), len(script.encode("utf-8")), first, second, max(widths), marked_lines(script))


def limits() -> tuple[int, ...]:
    """What each figure of :func:`measure` may reach."""
    return MAX_SCRIPT_CHARS, MAX_SCRIPT_BYTES, DIALOG_BUDGET, SHORT_BUDGET, MAX_LINE, 0


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


# What the dialog would mark in a prompt (an answer a packet shows may hold anything): combining marks, of
# which it shows at most MAX_MARKS in a run, and U+2026, which begins its cut mark. Written as \u escapes in
# the script, they are the same characters to the script and nothing the dialog marks.
_MARKED = re.compile(r"[^\x00-\x7f]")


def _escape_marked(ch: str) -> str:
    if ch != "\u2026" and not unicodedata.category(ch).startswith("M"):
        return ch
    return json.dumps(ch)[1:-1]  # \uXXXX (a surrogate pair outside the BMP)


def render(data: dict) -> str:
    """The bound object as the script holds it: one JSON value a line, no indentation; combining marks and
    U+2026 escaped (see _MARKED)."""
    text = jsontext.dumps(data, 0)  # json.dumps(data, ensure_ascii=False, indent=0), no cycle left per call
    return text if text.isascii() else _MARKED.sub(lambda m: _escape_marked(m.group()), text)
