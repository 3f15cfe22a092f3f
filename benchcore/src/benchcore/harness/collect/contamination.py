"""Contamination and engagement audit of one trial, from its cells' transcripts.

The audit judges what happened, not what was asked for: a tool call counts as
a read only when it ran (its result came back, not an error, not a permission
refusal), and every tool result, whatever path spelling or command produced
it, is checked for what an arm must not have seen. A trial is invalid (re-run,
not scored) when:

- the baseline used a skill (a Skill call that ran, or a skill body Claude
  Code loaded into its conversation: the ``isMeta`` record naming a tool call
  in ``sourceToolUseID``), read any SKILL.md, anything under the
  repository's ``skills/``, ``tests/`` or ``.claude/skills/`` (or any
  ``.claude/skills/``), or a skill copy; or any tool result shows it the
  skill's text;
- a with-skill arm never read its own copy's SKILL.md (a refused read is no
  read), invoked an installed skill instead of its copy, read the other
  arm's copy (by path, or its text in a result), the repository's or an
  installed copy of the skill, the skill's tests or the run directory;
- any arm read its case (``case.md`` by path, or its criteria or hard
  assertions in a result), another case of the skill, or the run folder
  (``plan.json``, ``run.json``, packets, bound scripts: recognised by their
  content);
- Claude Code refused one of an arm's tool calls (a permission it lacked): the
  arm did not do what it set out to do, so its answer measures the
  permissions, not the skill. The refusal is named;
- any arm's first message does not hold its planned prompt (whitespace
  aside): the arms were not given the same task.

``attributionSkill`` on a subagent's records says nothing about the subagent:
Claude Code copies it from the parent's turn (every subagent launched during
``/benchmark-skill`` carries ``benchmark-skill``), so it is not read.
"""

from __future__ import annotations

import base64
import re
import sys
from bisect import bisect_right
from functools import lru_cache
from typing import Iterable, Iterator

from attrs import field, frozen

from ..claude.transcript import ToolCall, Transcript

MIN_LINE = 20  # shorter lines are too common to identify a file by

try:  # one pass of Aho-Corasick over a result finds exactly the lines it shows (a dependency: see _Index)
    from ahocorasick_rs import BytesAhoCorasick as _Automaton
except ImportError:  # not installed: the windows' prefilter below, with the same findings
    _Automaton = None
try:  # the automaton as a full table, where the installed ahocorasick_rs offers it: about 3x its default's speed
    from ahocorasick_rs import Implementation as _Implementation
    _DFA = _Implementation.DFA
except (ImportError, AttributeError):
    _DFA = None


@frozen
class Fingerprints:
    """What must not show in an arm's tool results, as lines (or tokens) of text.

    ``skill``: arm -> the distinctive lines of that arm's skill copy; ``case``: the trial's case
    (criteria, hard assertions, description); ``tests``: the other cases of the skill and their folder
    names; ``run``: strings only the run folder's files hold."""

    skill: dict[str, tuple[str, ...]] = field(factory=dict)
    skill_md: dict[str, tuple[str, ...]] = field(factory=dict)  # arm -> the distinctive lines of its SKILL.md
    case: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    run: tuple[str, ...] = ()
    # Every line the fingerprints of the run's cases hold in ``run``, ``case`` and ``tests`` (a superset; the
    # same tuple for every case of a run): indexed once per run, not once per case with every other case's lines.
    universe: tuple[str, ...] = field(default=(), eq=False, repr=False)


def distinctive_lines(text: str, allowed: Iterable[str] = ()) -> tuple[str, ...]:
    """The lines of ``text`` long enough to identify it, stripped, that are not in ``allowed`` texts (what
    the arm may legitimately see: its prompt, its world's files). Each line is one string for the whole process
    (``sys.intern``): every case's fingerprints hold the skill copies' lines, and with a copy per case, 200 cases of
    a 180-line skill raised collect's peak memory by about 7 MB (94 to 87 MB at 3,000 cells)."""
    seen = " \n ".join(allowed)
    out = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*> ").strip()
        if len(line) >= MIN_LINE and line not in seen and line not in out:
            out.append(sys.intern(line))
    return tuple(out)


def _strings(value) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _blob(use: ToolCall) -> str:
    values = use.input.values()
    if all(type(v) is str for v in values):  # most calls (Bash, Read, Grep): no nesting to walk
        return "\n".join(values)
    return "\n".join(_strings(use.input))


def _where(use: ToolCall, main_id: str) -> str:
    return "" if use.agent_id == main_id else f" (in its subagent {use.agent_id})"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prompt_problem(planned: str, actual: str) -> str | None:
    """A problem when the subagent did not receive the planned prompt (it may be wrapped, not changed)."""
    if " ".join(planned.split()) in " ".join(actual.split()):
        return None
    return "its first message is not the planned prompt (the prompt was changed before launch)"


def _names_relative(blob: str, rel: str) -> bool:
    """``blob`` names the repository-relative path ``rel`` (as a path of its own, or inside a longer one)."""
    return rel in blob and _path_pattern(rel).search(blob) is not None


@lru_cache(maxsize=256)
def _path_pattern(rel: str) -> re.Pattern:
    return re.compile(r"(?<![A-Za-z0-9_.-])" + re.escape(rel) + r"(?![A-Za-z0-9_.-])")


_SPACE = re.compile(r"\s+")
_WHITE = b" \t\n\r\x0b\x0c"
KEY = 12  # bytes of each needle the automaton holds (see _Index)
FAN = 8  # needles a key may start before the bytes after it sort them (_keyed)
DFA_KEY_BYTES = 32_000  # the automaton is a full table up to this many bytes of keys (about 10 MB), else compact
_GRAM = 8  # bytes: the window the prefilter compares, as one 64-bit integer
_STRIDES = (32, 8)  # a result's windows every 32 bytes for long needles, every 8 for shorter ones


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _folded(data: bytes) -> bytes:
    """``data`` without white space (line breaks, blanks, tabs): what ``fold``, a wrapped terminal or
    ``base64 -w N`` changed is undone, at C speed."""
    return data.translate(None, _WHITE)


def _needles(line: str) -> tuple[bytes, ...]:
    """What shows ``line`` in a folded result: the line without white space, and the base64 of the line
    at each of the three byte alignments it may have in an encoded file (the whole 3-byte groups inside
    it, so the encoding does not depend on its neighbours)."""
    data = _bytes(line)
    out = [_folded(data)]
    for skip in range(3):
        body = data[skip:]
        body = body[: len(body) - len(body) % 3]
        if len(body) >= 6:
            out.append(base64.b64encode(body))
    return tuple(out)


def _keyed(needles: list[tuple[bytes, int]]) -> dict[bytes, tuple[list, dict | None]]:
    """The automaton's keys: each needle's first KEY bytes (a needle of KEY bytes or fewer whole) -> the (needle,
    line) pairs it starts, as ``(few, more)``. When more than FAN needles begin with a key ("description:
    001-case ...", "description: 002-case ...": a line per case), those of two keys' length or more are in
    ``more`` by the KEY bytes after the key, so a match is checked for the needles that go on as the result
    does, not for every case's line; ``few`` holds the rest (all of them, when FAN or fewer share the key)."""
    shared: dict[bytes, list[tuple[bytes, int]]] = {}
    for needle, i in needles:
        shared.setdefault(needle[:KEY], []).append((needle, i))
    out: dict[bytes, tuple[list, dict | None]] = {}
    for key, held in shared.items():
        if len(held) <= FAN:
            out[key] = (held, None)
            continue
        more: dict[bytes, list[tuple[bytes, int]]] = {}
        for needle, i in held:
            if len(needle) >= 2 * KEY:
                more.setdefault(needle[KEY:2 * KEY], []).append((needle, i))
        out[key] = ([(needle, i) for needle, i in held if len(needle) < 2 * KEY], more)
    return out


def _grams(needle: bytes) -> list[int]:
    """The 8-byte windows of ``needle`` at every offset, as integers."""
    return [memoryview(needle[j:j + _GRAM]).cast("Q")[0] for j in range(len(needle) - _GRAM + 1)]


class _Index:
    """Fingerprint lines prepared once for many results: each line's needles, and an Aho-Corasick automaton of
    them (ahocorasick_rs, a dependency) or, where it is not installed, a prefilter of 8-byte windows.

    The windows: a needle of ``stride + 7`` bytes or more holds, wherever it occurs, the result's window that
    starts at a multiple of ``stride`` (a multiple of a finer stride too), so a result sharing no such window
    with a line cannot show it; needles too short for the smallest stride are always searched. The result's
    windows are taken at the finest stride any needle needs, and looked up once for every needle.

    Any ``stride`` consecutive offsets of a needle serve (as long as the last window fits in it); each needle
    is indexed at the run of offsets whose windows the fewest other lines share. Lines with a common part
    ("description: 001-case ...", "description: 002-case ...") are then told apart by their own parts: a
    result showing "description" is a candidate for none of them, not for every case's line (which made the
    audit's cost per result grow with the number of cases)."""

    def __init__(self, lines: tuple[str, ...]):
        self.lines = lines
        self.at = {line: i for i, line in enumerate(lines)}
        self.needles = [_needles(line) for line in lines]
        self.by_gram: dict[int, set[int]] = {}
        self.always: set[int] = set()
        # A line in ``always`` -> its needles too short for a window: the line is a candidate when the folded
        # result holds one of them (one C pass each) or shares a window with one of its other needles (those are
        # indexed as any line's). Exact: a result that shows the line as it came holds it folded too.
        self.short: dict[int, list[bytes]] = {}
        self.stride, self.keys = _STRIDES[-1], frozenset()
        # With ahocorasick_rs: every needle in one automaton, run once over the folded result (every match, the
        # overlapping ones too), finds the lines whose needles the result holds, exactly, where the windows give a
        # superset for first_of to sift; both end in first_of, so the findings are the same. On the 226 MB of tool
        # results of the bench's realistic corpus it took 0.33 s of CPU where the windows took 1.41 s.
        #
        # The automaton holds each needle's first KEY bytes, not the whole needle, and each place a key matches is
        # checked for the needles it starts (a C comparison): a needle shows only where its first bytes do, so the
        # lines found are the same. Short keys keep the automaton small enough to run as a full table (a DFA):
        # on 239 MB of folded tool results, the lines of a 109-line skill took 0.36 s as a table of 12-byte keys
        # (2 MB) against 1.10 s in the library's default form; a run whose keys pass DFA_KEY_BYTES (about 650
        # lines) keeps the default form, whose memory does not grow as the table's (about 330 bytes a key byte).
        # Keys many lines begin with are followed by the bytes after them (_keyed): a result naming "description:"
        # a hundred times is not checked for every case's line at each.
        self.automaton = None
        self.exact = _Automaton is not None  # how candidates() finds them: the automaton, or the windows
        if self.exact:
            keyed = _keyed([(needle, i) for i, needles in enumerate(self.needles) for needle in needles if needle])
            self.keyed = list(keyed.values())
            if keyed:
                table = _DFA is not None and sum(map(len, keyed)) <= DFA_KEY_BYTES
                self.automaton = _Automaton(list(keyed), implementation=_DFA) if table else _Automaton(list(keyed))
            # An empty needle (no line the fingerprints give has one) is in every result, as the windows find it.
            self.always = {i for i, needles in enumerate(self.needles) if not all(needles)}
            return  # no windows to index
        strides = {_STRIDES[0]}
        grams = [[_grams(needle) for needle in needles] for needles in self.needles]
        lines_of: dict[int, set[int]] = {}  # window -> the lines whose needles hold it anywhere
        for i, per in enumerate(grams):
            for gs in per:
                for gram in gs:
                    lines_of.setdefault(gram, set()).add(i)
        for i, needles in enumerate(self.needles):
            for needle, gs in zip(needles, grams[i]):
                stride = next((st for st in _STRIDES if len(needle) >= st + _GRAM - 1), None)
                if stride is None:
                    self.always.add(i)
                    self.short.setdefault(i, []).append(needle)
                    continue
                strides.add(stride)
                shared = [len(lines_of[g]) for g in gs]
                # The run of ``stride`` offsets whose windows the fewest lines share (the first, on a tie).
                cost = sum(shared[:stride])
                best, at = cost, 0
                for a in range(1, len(gs) - stride + 1):
                    cost += shared[a + stride - 1] - shared[a - 1]
                    if cost < best:
                        best, at = cost, a
                for gram in gs[at:at + stride]:
                    self.by_gram.setdefault(gram, set()).add(i)
        self.stride = min(strides)
        self.keys = frozenset(self.by_gram)

    def matches(self, folded: bytes) -> Iterator[tuple[int, int]]:
        """(where, line) of each needle the automaton finds in ``folded`` bytes, the overlapping ones too: each place
        a key matches, checked for the needles it starts (and, for a shared key, that go on as ``folded`` does)."""
        keyed = self.keyed
        for k, start, end in self.automaton.find_matches_as_indexes(folded, overlapping=True):
            held, more = keyed[k]  # most keys start one needle; a needle of KEY bytes or fewer is its key
            if more is not None:
                held = held + more.get(folded[end:end + KEY], [])
            for needle, i in held:
                if len(needle) == end - start or folded.startswith(needle, start):
                    yield start, i

    def candidates(self, shown: "Shown", grams: Iterable[int] | None = None) -> list[int]:
        """The lines ``shown`` may show; ``grams``: its windows (at ``stride`` or finer) that are keys of
        this index or of another, when the caller looked them up once for several indexes."""
        if self.exact:  # the lines whose needles the folded result holds
            found = set(self.always)
            if self.automaton is not None:
                found.update(i for _, i in self.matches(shown.folded()))
            return sorted(found)
        folded = shown.folded() if self.always else b""
        hit = {i for i in self.always if any(needle in folded for needle in self.short[i])}
        if grams is None:
            grams = self.keys.intersection(shown.windows(self.stride))  # each window looked up, no set built
        for gram in grams:
            if (ids := self.by_gram.get(gram)) is not None:
                hit |= ids
        return sorted(hit)


class Shown:
    """What one tool result showed, in every form the audit compares: the text as it came, the text with all
    white space and line breaks removed (``fold -w 15``, a wrapped terminal), and base64 (``base64 -w 76``),
    so a reshaped read of a file is caught as the plain one is.

    Rather than decoding every run of letters that could be base64, each fingerprint line is encoded (at
    its three alignments) and looked for in the folded result; a prefilter of 8-byte windows leaves the
    substring searches to the few lines that share one with the result. Every step is a C pass over the
    result (encode, delete white space, windows as integers, set lookups)."""

    def __init__(self, result: str, data: bytes | None = None):
        self.result = result
        self._data = data  # the result's UTF-8, when the caller has it
        self._folded: bytes | None = None
        self._windows: dict[int, memoryview] = {}

    def folded(self) -> bytes:
        if self._folded is None:
            self._folded = _folded(self._data if self._data is not None else _bytes(self.result))
        return self._folded

    def windows(self, stride: int) -> memoryview:
        """The folded result's 8-byte windows at every multiple of ``stride``, as integers (a view, kept for the
        next index: looking each up in an index's set costs less than building a set of them, and iterating the
        view makes each integer as it is looked up, where a list of them all cost a pass more)."""
        if stride not in self._windows:
            folded = self.folded()
            self._windows[stride] = memoryview(folded)[: len(folded) - len(folded) % _GRAM].cast("Q")[
                ::stride // _GRAM]
        return self._windows[stride]

    def first_of(self, index: _Index, found: Iterable[int]) -> str | None:
        """The first line of ``index`` among ``found`` (candidates, in order) that this result shows."""
        found = list(found)
        for i in found:  # as it came first, then reshaped, as a reader would name it
            if index.lines[i] in self.result:
                return index.lines[i]
        if found:
            folded = self.folded()
            for i in found:
                if any(needle in folded for needle in index.needles[i]):
                    return index.lines[i]
        return None


# The results remembered, in all (their text is kept), before the memory starts again. Each text it keeps holds on
# to a parsed transcript's string past that transcript, and collect's peak grew with it: at 8 million characters,
# stage 1's peak was 46.9 MB at 300 cells and 77.9 MB at 3,000; at 2 million, 41.1 and 67.1 MB (1 million: 39.9
# and 65.6). Two million characters still hold the recent cells' results, which an arm's rereads and the other
# arms of its trial (the cells before it) repeat.
MEMO_BYTES = 2_000_000
MEMO_FROM = 1024  # shorter results are searched again rather than remembered
MEMO_ENDS = 32  # characters of each end of a result in its key
# (a result's length, its first and last MEMO_ENDS characters) -> (the result's text, matcher -> what it showed)
_MEMO: dict[tuple[int, str, str], tuple[str, dict[int, tuple[str | None, ...]]]] = {}
_MEMO_HELD = [0]  # the characters of the results _MEMO holds


def _memo_key(text: str) -> tuple[int, str, str]:
    """A result's key in the memory: its length and ends, not its whole text (hashing every result cost more
    than the memory saved where results rarely repeat); a hit is then compared whole, so it is exact."""
    return len(text), text[:MEMO_ENDS], text[-MEMO_ENDS:]


def _remembered(text: str) -> dict[int, tuple[str | None, ...]]:
    """What each matcher found in ``text`` when it was checked before (compared whole once for all of them)."""
    kept = _MEMO.get(_memo_key(text))
    return kept[1] if kept is not None and (kept[0] is text or kept[0] == text) else {}


def _remember(text: str, serial: int, out: tuple[str | None, ...]) -> None:
    _remember_all(text, [(serial, out)])


def _remember_all(text: str, outs: list[tuple[int, tuple[str | None, ...]]]) -> None:
    """Remember what each matcher (by serial) found in ``text``."""
    key = _memo_key(text)
    kept = _MEMO.get(key)
    if kept is None or not (kept[0] is text or kept[0] == text):  # new (or another text under its key: replaced)
        if _MEMO_HELD[0] + len(text) > MEMO_BYTES:
            _MEMO.clear()
            _MEMO_HELD[0] = 0
        kept = _MEMO[key] = (text, {})
        _MEMO_HELD[0] += len(text)
    kept[1].update(outs)


class _Matcher:
    """Groups of fingerprint lines a cell's tool results are checked against, in one index, so each result's
    windows are looked up once for all of them. A result identical to one already checked (a file read
    twice, the same listing in another arm) is not searched again: what it showed is remembered by its
    length and ends, with its text, which a hit is compared with whole (exact, and no hash of every result),
    at most MEMO_BYTES of text in all."""

    _serials = iter(range(1 << 62))

    def __init__(self, groups: tuple[tuple[str, ...], ...], index: "_Index | None" = None):
        self.groups = groups
        self.serial = next(_Matcher._serials)  # the memory's key: never reused, as an id() could be
        if index is None or any(line not in index.at for lines in groups for line in lines):
            index = _Index(tuple(dict.fromkeys(line for lines in groups for line in lines)))
        self.index = index  # its own, or the run's (shared by every case: see Fingerprints.universe)
        # Each group's lines as index ids -> place in the group: a result's few candidates are looked up in it,
        # so a result costs its candidates, not the size of the group (the other cases' lines).
        self.places = [{} for _ in groups]
        self.nones = tuple(None for _ in groups)
        for place, lines in zip(self.places, groups):
            for line in lines:
                place.setdefault(index.at[line], len(place))

    def shown(self, shown: Shown, key: str | None, grams: Iterable[int] | None = None,
              hit: list[int] | None = None) -> tuple[str | None, ...]:
        """Per group, the first of its lines the result shows (as it came, reshaped or base64-encoded), or
        None; ``key``: the result's text, to remember it by (None: not remembered); ``grams`` as for
        ``_Index.candidates``, or ``hit``: the candidates themselves (matchers sharing an index find them
        once). ``_checked`` looks the memory up first."""
        if hit is None:
            hit = self.index.candidates(shown, grams)
        out = tuple(shown.first_of(self.index, sorted((i for i in hit if i in place), key=place.__getitem__))
                    for place in self.places) if hit else self.nones  # most results: no candidate
        if key is not None:
            _remember(key, self.serial, out)
        return out


def _checked(result: str, matchers: tuple[_Matcher, ...]) -> tuple[str | None, ...]:
    """What ``result`` shows of each group of each matcher, in order: the result folded once for all, and
    its windows looked up once in all their keys."""
    if not result:
        return tuple(None for m in matchers for _ in m.groups)
    key = result if len(result) >= MEMO_FROM else None
    seen = _remembered(key) if key is not None else {}
    kept = [seen.get(m.serial) for m in matchers]
    if all(k is not None for k in kept):
        return tuple(hit for k in kept for hit in k)
    shown = Shown(result, _bytes(result))
    windowed = [m.index.stride for m in matchers if m.index.keys]
    windows = shown.windows(min(windowed)) if windowed else None  # one pass, at the finest stride any needs
    hits: dict[int, list[int]] = {}  # index -> its candidates: once per index (the run's is shared)
    out = []
    for m, k in zip(matchers, kept):
        if k is None:
            if id(m.index) not in hits:
                hits[id(m.index)] = m.index.candidates(
                    shown, m.index.keys.intersection(windows) if m.index.keys else ())
            k = m.shown(shown, key, hit=hits[id(m.index)])
        out.extend(k)
    return tuple(out)


BATCH_BYTES = 1 << 20  # folded bytes of results searched in one pass of an automaton (_checked_all)


def _checked_all(results: list[str], matchers: tuple[_Matcher, ...]) -> list[tuple[str | None, ...]]:
    """:func:`_checked` of each of ``results`` (one transcript's), in order, with one pass of each automaton over
    many results at once: their folded forms joined by a line break, which no needle holds (a needle is a
    folded line or base64), so no match spans two results, and each match is the result's that holds its
    start. The same findings as one result at a time; a result remembered (or too small to remember) is
    handled as there. Where a matcher's index has no automaton, or lines in every result, one at a time."""
    if not all(m.index.automaton is not None and not m.index.always for m in matchers):
        return [_checked(r, matchers) for r in results]
    nones = tuple(None for m in matchers for _ in m.groups)
    out: list = [nones] * len(results)
    todo: list[int] = []
    for n, result in enumerate(results):
        if not result:
            continue
        if len(result) >= MEMO_FROM:
            seen = _remembered(result)
            if seen:
                kept = [seen.get(m.serial) for m in matchers]
                if all(k is not None for k in kept):
                    out[n] = tuple(hit for k in kept for hit in k)
                    continue
        todo.append(n)
    indexes = list({id(m.index): m.index for m in matchers}.values())
    at = 0
    while at < len(todo):
        batch, folds, starts, size = [], [], [], 0
        while at < len(todo) and size < BATCH_BYTES:
            n = todo[at]
            folded = _folded(_bytes(results[n]))
            batch.append(n)
            folds.append(folded)
            starts.append(size)
            size += len(folded) + 1
            at += 1
        joined = b"\n".join(folds)
        del folds  # the joined bytes hold them (a result with a candidate is folded again: few are)
        found: dict[int, dict[int, set[int]]] = {}  # place in the batch -> index id -> its candidate lines
        for index in indexes:
            for start, i in index.matches(joined):
                found.setdefault(bisect_right(starts, start) - 1, {}).setdefault(id(index), set()).add(i)
        for place, n in enumerate(batch):
            result = results[n]
            key = result if len(result) >= MEMO_FROM else None
            hits = found.get(place)
            if hits is None:
                if key is not None:
                    _remember_all(key, [(m.serial, m.nones) for m in matchers])
                continue
            shown = Shown(result)
            out[n] = tuple(hit for m in matchers
                           for hit in m.shown(shown, key, hit=sorted(hits.get(id(m.index), ()))))
    return out


@lru_cache(maxsize=8)  # a cell asks for two (its case's, its arm's skill lines): collect meets them case by case
def _matcher(groups: tuple[tuple[str, ...], ...], universe: tuple[str, ...] = ()) -> _Matcher:
    return _Matcher(groups, _universe(universe) if universe else None)


@lru_cache(maxsize=4)
def _universe(lines: tuple[str, ...]) -> _Index:
    """An index of many lines asked about again and again (the run's case lines: Fingerprints.universe, and
    the case files' lines in shown_lines), built once per run."""
    return _Index(tuple(dict.fromkeys(lines)))


def shown_lines(lines: tuple[str, ...], text: str) -> frozenset:
    """The lines of ``lines`` that ``text`` holds as they are (``line in text``), found with one index of them
    (kept for the next text) rather than each line searched for in ``text``."""
    index = _universe(lines)
    shown = Shown(text)
    found = index.candidates(shown)
    return frozenset(index.lines[i] for i in found if index.lines[i] in text)


def guard_problems(records: Iterable[dict], cells: Iterable) -> list[dict]:
    """The guard's refusals (guard.jsonl records) of a trial's cells, as audit problems: an arm that tried to
    reach outside its world is named with what it tried, whether or not the attempt shows in its transcript.
    A record counts for the cell's current attempt only (a re-run gets a fresh world)."""
    from ..confine.guard import attempted

    arms = {(c.id, c.world): c.arm for c in cells}
    return [{"arm": arms[(r.get("cell"), r.get("world"))],
             "problem": f"the benchmark's guard refused ({r.get('decision')}) its {attempted(r, 160)}: {r.get('reason')}"}
            for r in records if (r.get("cell"), r.get("world")) in arms]


def audit_cell(arm: str, t: Transcript, *, repo: str, run_dir: str, skill_copies: dict[str, str],
               own_copy: str | None, case_files: Iterable[str], skill_rel: str = "", tests_rel: str = "",
               run_rel: str = "", world: str = "", fingerprints: Fingerprints = Fingerprints()) -> list[str]:
    """The problems of one cell's transcript, in words (empty when clean).

    ``case_files`` are matched as substrings (give them absolute and repository-relative).
    ``skill_rel``, ``tests_rel`` and ``run_rel`` are the skill's folder, its tests folder and the run
    directory relative to the repository: a subagent starts in the repository, so it can read them
    without naming the repository. A tool call that names the cell's ``world`` is taken to work there,
    so its relative paths are the world's (a fixture may hold a ``tests/<name>`` of its own)."""
    problems: list[str] = []
    repo = repo.rstrip("/")
    watched_repo = [f"{repo}/skills/", f"{repo}/tests/", f"{repo}/.claude/skills/", f"{repo}/skills", f"{repo}/tests"]
    skill_rel, tests_rel, run_rel = (r.strip("/") for r in (skill_rel, tests_rel, run_rel))
    relative = [r for r in (skill_rel, tests_rel, run_rel) if r]
    leaf = skill_rel.rsplit("/", 1)[-1]

    def names(rel: str) -> bool:
        return bool(rel) and (f"{repo}/{rel}" in blob or (not in_world and _names_relative(blob, rel)))
    copies = [c for c in skill_copies.values() if c]
    case_files = [c for c in case_files if c]
    own_lines = fingerprints.skill.get(arm, ())
    own_md = fingerprints.skill_md.get(arm, ())
    other_lines = tuple(l for a, lines in fingerprints.skill.items() if a != arm for l in lines if l not in own_lines)
    skill_lines = tuple(l for ls in fingerprints.skill.values() for l in ls) if arm == "baseline" else other_lines
    # The case's lines (one matcher per case) apart from the skill's (one per arm: the largest, kept once).
    matchers = (_matcher((fingerprints.run, fingerprints.case, fingerprints.tests), fingerprints.universe),
                _matcher((skill_lines, own_md[:3]), fingerprints.universe))
    read_own = False

    calls = t.tool_calls()
    for use, seen in zip(calls, _checked_all([use.result for use in calls], matchers)):
        blob = _blob(use)
        in_world = bool(world) and world in blob
        where = _where(use, t.main_id)
        said = lambda: f"{use.name} {_short(blob)}{where}"  # noqa: E731 - worded only for a problem (most calls have none)
        if use.refused:
            problems.append(f"Claude Code refused its tool call {said()}: {_short(use.result, 400)}")
        # What the result showed, whatever the call looked like (an error's output may still show a file).
        result = use.result
        run_hit, case_hit, tests_hit, skill_hit, own_hit = seen
        if use.name != "StructuredOutput" and result:
            if (hit := run_hit) is not None:
                problems.append(f"saw the run folder's files (the result of {said()} holds {_short(hit, 60)!r})")
            elif (hit := case_hit) is not None:
                problems.append(f"saw its case's criteria or assertions (the result of {said()} holds "
                                f"{_short(hit, 80)!r})")
            elif (hit := tests_hit) is not None:
                problems.append(f"saw the skill's tests (the result of {said()} holds {_short(hit, 80)!r})")
            elif arm == "baseline" and (hit := skill_hit) is not None:
                problems.append(f"saw the skill's text (the result of {said()} holds {_short(hit, 80)!r})")
            elif arm != "baseline" and (hit := skill_hit) is not None:
                problems.append(f"saw another arm's skill copy (the result of {said()} holds {_short(hit, 80)!r})")
        if not use.ok:
            continue  # asked for, never seen: the path checks below are about what ran
        if use.name == "Skill":
            name = use.input.get("skill") or use.input.get("command") or "?"
            if arm == "baseline":
                problems.append(f"invoked the skill {name!r}{where}")
            else:
                problems.append(f"invoked the installed skill {name!r} instead of its copy{where}")
            continue
        if any(c in blob for c in case_files):
            problems.append(f"read its case's case.md: {said()}")
            continue
        if own_copy and use.agent_id == t.main_id and (
                f"{own_copy}/SKILL.md" in blob or own_hit is not None):
            read_own = True
        if arm != "baseline":
            if any(c in blob for c in copies if c != own_copy):
                problems.append(f"read another arm's skill copy: {said()}")
            elif names(skill_rel) or (leaf and f".claude/skills/{leaf}" in blob):
                # For previous that is the edited version; for new, a skill outside the run.
                problems.append(f"read the repository's or an installed copy of the skill instead of its own: {said()}")
            elif names(tests_rel) or names(run_rel) or (run_dir and _names_relative(blob, run_dir.rstrip("/"))):
                problems.append(f"read the benchmark's tests or run files: {said()}")
        if arm == "baseline":
            if "SKILL.md" in blob:
                problems.append(f"read a SKILL.md: {said()}")
            elif any(c in blob for c in copies):
                problems.append(f"read a skill copy: {said()}")
            elif ".claude/skills" in blob or any(w in blob for w in watched_repo) or \
                    any(names(r) for r in relative):
                problems.append(f"read the repository's skills or tests: {said()}")

    loads = t.skill_loads()
    if arm == "baseline":
        if loads:
            problems.append("loaded a skill's body (an isMeta record after a Skill call)")
        else:
            for r in t.records:
                att = r.get("attachment")
                if isinstance(att, dict) and att.get("type") in ("invoked_skills", "dynamic_skill"):
                    problems.append(f"loaded a skill ({att.get('type')} attachment)")
                    break
    elif own_copy and not read_own:
        problems.append(f"never read its skill copy's SKILL.md ({own_copy}/SKILL.md), so the skill under test did not run")
    return problems
