"""Collect at scale with the stand-in: time and peak memory of each collect, from a few cases to many (a script).

    python benchcore/bench/collect_scale.py [--cases 20,50,200] [--mb 0] [--tools] [--repeat 1]
    python benchcore/bench/collect_scale.py --cases 4 --mb 6.5 --tools --ab <src> <src> [--rounds 9]
    python benchcore/bench/collect_scale.py --pairs --cases 4 --mb 6.5 [--rounds 7]
    python benchcore/bench/collect_scale.py --passes --cases 4 --mb 6.5 [--rounds 7]

For each case count it builds a temp repository with one edited, released
skill (a three-arm run of 5 trials) whose text is a real skill's (this
repository's commit-message skill and its references, ``REAL_SKILL``: the
audit looks for each of its lines in every tool result), plans it, plays the arms with the stand-in
(tests/standin), then times three collects, each in a fresh process:
``first`` (every transcript new), ``again`` (nothing new) and ``judged``
(after the stand-in judges answered), then measures the plan alone: a fresh
process that imports collect and reads plan.json as they left it, whose peak
is what the memory target lets a collect's grow with the cells (printed
beside each peak, and subtracted from it). ``--mb`` pads every arm transcript to
about that many MB with a tool result, to measure memory against transcript
size. ``--tools`` pads instead with what a coding agent's tool calls bring
back: Bash calls whose output is this repository's ``git log --stat``,
``ls -lR`` and ``grep -rn`` listings, and Read calls of its Python sources
and Markdown (numbered lines, as Claude Code shows a read), 30 KB a result
at most, each result owned by its tool call, so the audit reads every one.
Model time is excluded: the stand-in writes transcripts directly. Each arm's
final message and each judge's rationale is its own text of a user's size
(about 0.8 KB and 560 characters; ``--short-answers``: the stand-in's one
line each, as before stop 51), so what a collect holds per answer shows.

With ``--mb``, the first collect is set beside ``plain``: the same
transcripts read and every line parsed with ``json.loads`` in a fresh
process (the least a collect can do, and the anchor of the 1.5x target),
then the same with msgspec's decoder, the parser collect uses (how much of
the ratio is collect's own work), and the audit's own rate is reported
(MB of transcripts over the CPU seconds spent in ``audit_cell``). Beside
them, ``copy``: the same transcripts read and copied again as a new file
each, in a folder beside the run folder, as collect keeps its copies (each
written from the bytes read, past the page cache where the system allows it;
for a version before stop 52, copied by the kernel from the transcript and
compared, as that version did). The folder
the run is built in follows TMPDIR.
Each benchcore source run is compiled to bytecode first, as installing
does (``compiled``): with PYTHONDONTWRITEBYTECODE set and an editable
install, a collect would otherwise compile changed modules on every run.

``--pairs`` adds ``floor``: in a fresh process, only the passes over the
bytes that a first collect cannot skip, each done in C: read, SHA-256, the
copy written, msgspec's parse of every line, and every
tool result encoded, folded and searched by the automaton of the skill's
lines. What a collect costs above the floor is its Python.

``--passes`` times each of those passes alone (and two that are not collect's: the copy written
into the page cache, as before stop 53, and msgspec decoding into typed records that leave tool
results undecoded), beside a first collect: what each pass adds to reading the bytes, over plain
reading.

``--ab SRC [SRC ...]`` times only the first collect, of each src folder in
turns on the same files, ``--rounds`` times (plain reading once each round),
and prints medians and ratios to plain reading: paired runs for telling one
change from the version before it on a machine whose speed drifts.

Prints per collect: seconds, seconds per cell, peak RSS (MB), and between the
smallest and the largest case count the growth exponent
log(t2 / t1) / log(n2 / n1) (1.0 = linear in cells).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

TESTS = Path(__file__).resolve().parents[1] / "tests"
SKILL = "demo/greet"
COLLECTS = ("first", "again", "judged")
# Peak memory of the collect itself: VmHWM (ru_maxrss would keep the parent's size across fork and exec).
_CHILD = ("import resource, sys\nfrom benchcore.cli import main\n"
          "rc = main(sys.argv[1:])\n"
          "try:\n"
          "    kb = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
          "except (OSError, StopIteration):\n"
          "    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
          "print('maxrss', kb, rc, file=sys.stderr)\n")
# The audit's CPU seconds inside a collect: audit_cell timed where the trial audit calls it, on its own thread
# (collect's copy thread runs beside it: process-wide CPU time would count that thread's writes as the audit's).
_AUDITED = ("import time, atexit, sys\n"
            "import benchcore.harness.collect.audit as _a\n"
            "_spent = [0.0]\n"
            "_cell = _a.audit_cell\n"
            "def _timed(*args, **kw):\n"
            "    t = time.thread_time()\n"
            "    try:\n"
            "        return _cell(*args, **kw)\n"
            "    finally:\n"
            "        _spent[0] += time.thread_time() - t\n"
            "_a.audit_cell = _timed\n"
            "atexit.register(lambda: print('audit', _spent[0], file=sys.stderr))\n")
# Plain reading: every transcript read and each line parsed, nothing else (the floor a collect stands on).
_PLAIN = ("import json, sys, time\nfrom pathlib import Path\n"
          "t = time.process_time()\n"
          "for p in Path(sys.argv[1]).rglob('*.jsonl'):\n"
          "    with open(p, 'rb') as fh:\n"
          "        for line in fh:\n"
          "            if line.strip():\n"
          "                json.loads(line)\n"
          "print('maxrss 0 0', file=sys.stderr)\n"
          "print('cpu', time.process_time() - t, file=sys.stderr)\n")

# The same with msgspec's decoder, which collect parses with (where installed): how much of the ratio to plain is
# the parser and how much is collect's own work.
_PLAIN_FAST = _PLAIN.replace("import json, sys, time\n", "import sys, time\nfrom msgspec.json import decode\n"
                             ).replace("json.loads(line)", "decode(line)")

# Writing the copies alone: every transcript's bytes written to a new file in a folder beside the run folder
# (the same file system), as collect keeps its copies (a temp file renamed into place, no fsync), nothing else.
# On a disk whose writes cost much CPU this is a floor of its own: collect keeps a copy of each transcript.
_COPY = ("import inspect, sys, time\nfrom pathlib import Path\n"
         "from benchcore.harness.store.files import write_atomic\n"
         "params = inspect.signature(write_atomic).parameters\nkw = {'uncached': True} if 'uncached' in params else {}  # a version whose copies go past the page cache\nkernel = 'source' in params  # a version whose kernel copied\n"
         "out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)\n"
         "t = time.process_time()\n"
         "for n, p in enumerate(Path(sys.argv[1]).rglob('*.jsonl')):\n"
         "    data = p.read_bytes()\n"
         "    write_atomic(out / f'{n}.jsonl', data, durable=False, **kw, **({'source': p} if kernel else {}))\n"
         "print('maxrss 0 0', file=sys.stderr)\n"
         "print('cpu', time.process_time() - t, file=sys.stderr)\n")

# The audit's passes over one transcript's ``data`` (after msgspec's parse of each line): every tool result encoded,
# folded, and the results searched together by the automaton of the skill's lines (``index``), as the audit does.
_AUDIT_PASSES = ("    folds = []\n"
                 "    for line in data.splitlines():\n"
                 "        rec = decode(line) if line.strip() else None\n"
                 "        content = (rec.get('message') or {}).get('content') if isinstance(rec, dict) else None\n"
                 "        for block in content if isinstance(content, list) else ():\n"
                 "            if isinstance(block, dict) and block.get('type') == 'tool_result':\n"
                 "                c = block.get('content')\n"
                 "                text = c if isinstance(c, str) else '\\n'.join(\n"
                 "                    b.get('text', '') for b in (c or ()) if isinstance(b, dict))\n"
                 "                folds.append(_folded(_bytes(text)))\n"
                 "    if folds:\n"
                 "        index.automaton.find_matches_as_indexes(b'\\n'.join(folds), overlapping=True)\n")

# The floor: the passes over the bytes a first collect cannot skip, each in C, and nothing else: every transcript
# read, its SHA-256 (transcripts-read.json), its copy (written as collect keeps it), every line parsed
# with msgspec, and every tool result encoded, folded and searched by the automaton of the skill's lines (the
# audit's passes, results joined as the audit joins them). What is left of a collect above it is Python's.
_FLOOR = ("import hashlib, inspect, sys, time\nfrom pathlib import Path\nfrom msgspec.json import decode\n"
          "from benchcore.harness.store.files import write_atomic\n"
          "params = inspect.signature(write_atomic).parameters\nkw = {'uncached': True} if 'uncached' in params else {}  # a version whose copies go past the page cache\nkernel = 'source' in params  # a version whose kernel copied\n"
          "from benchcore.harness.collect.contamination import _Index, _bytes, _folded, distinctive_lines\n"
          "lines = [l for p in sorted(Path(sys.argv[3]).rglob('*.md')) for l in distinctive_lines(p.read_text())]\n"
          "index = _Index(tuple(dict.fromkeys(lines)))\n"
          "out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)\n"
          "for n, p in enumerate(sorted(Path(sys.argv[1]).rglob('*.jsonl'))):\n"
          "    data = p.read_bytes()\n"
          "    hashlib.sha256(data).hexdigest()\n"
          "    write_atomic(out / f'{n}.jsonl', data, durable=False, **kw, **({'source': p} if kernel else {}))\n"
          + _AUDIT_PASSES + "print('maxrss 0 0', file=sys.stderr)\n")

# The plan alone: a fresh process that imports collect and reads the run's plan.json as the collects left it (the
# judges' packets in it), nothing else. The memory target lets a collect's peak grow with the cells as much as this.
_PLAN_ALONE = ("import sys\nfrom pathlib import Path\nimport benchcore.harness.collect.run\n"
               "from benchcore.harness.store.planfile import read_plan\n"
               "plan = read_plan(Path(sys.argv[1]))\n"
               "kb = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
               "print('maxrss', kb, 0, file=sys.stderr)\n")


def _standin():
    for folder in (TESTS, TESTS / "e2e"):  # the stand-in, and the e2e helpers (next_scripts)
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    from standin import agent, repo
    return agent, repo


# The skill under test has a real skill's text: the body and references of this repository's commit-message skill
# (180 lines), as a user's skill has, not one sentence. The audit looks for every distinctive line of the skill
# copies in every tool result, so the size of the skill is part of what a collect costs.
REAL_SKILL = Path(__file__).resolve().parents[2] / "skills" / "git" / "commit-message"


def _real_skill(R, repo: Path, edit: str) -> None:
    """The bench's skill: the real skill's body and references, then ``edit`` (the released and edited versions)."""
    text = (REAL_SKILL / "SKILL.md").read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
    R.skill(repo, SKILL, body.rstrip("\n") + "\n\n" + edit)
    for ref in sorted((REAL_SKILL / "references").glob("*.md")):
        R.write(repo / "skills" / SKILL / "references" / ref.name, ref.read_text(encoding="utf-8"))


def build_repo(root: Path, cases: int) -> dict:
    """A git repository whose skill is released on main and edited since, with ``cases`` cases; the env to run in."""
    _, R = _standin()
    env = dict(os.environ, **R.env_for(root))
    os.environ.update(R.env_for(root))
    repo = root / "repo"
    R.init(repo, "main")
    _real_skill(R, repo, "Greet the reader by name.")
    for n in range(1, cases + 1):
        R.case(repo, SKILL, f"{n:03d}-case")
    R.commit_all(repo, "release")
    _real_skill(R, repo, "Greet the reader by name, warmly.")
    return env


# A user's answers are kilobytes: an arm's final message (a commit message with its body, what it did, what it
# checked) and a judge's rationale. The stand-in's one-line answers let a collect that holds every answer look
# flat; these are each cell's own text, of a real answer's size.
_ANSWER_LINES = (
    "Round each line item before summing, not the total: the invoice's cents no longer drift on long orders.",
    "The failing test in tests/test_billing.py now passes; the other 41 tests still pass.",
    "I read billing/invoice.py, billing/tax.py and their tests before changing anything.",
    "Kept the public signature of total() as it was, so no caller changes.",
    "Added a test with 37 line items at 0.105 each, the case the report named.",
    "Checked the staged diff: only billing/invoice.py and tests/test_billing.py are in it.",
    "Left the currency helper alone: its rounding mode is already half-even.",
    "No new dependency; the change is eleven lines and a test.",
)


def arm_answer(case: str, trial: int, arm: str, world: str) -> str:
    """An arm's final message of about 0.8 KB, its own for each cell."""
    lines = [f"fix(billing): round each line item in {case}, trial {trial} ({arm})", ""]
    lines += [_ANSWER_LINES[(trial + i) % len(_ANSWER_LINES)] for i in range(len(_ANSWER_LINES))]
    lines += ["", f"Everything I wrote is under {world}/, and greeting.txt holds the greeting the case asks for."]
    return "\n".join(lines) + "\n"


SHORT_ANSWERS = [False]  # --short-answers: the stand-in's one-line answers (the corpus before stop 51)


def answers() -> dict:
    """The stand-in Script's answers: a user's size, or with --short-answers its own one-line ones."""
    return {} if SHORT_ANSWERS[0] else {"output": arm_answer, "rationale": judge_rationale}


def judge_rationale(task_id: str) -> str:
    """A judge's rationale of about 560 characters, its own for each packet."""
    return (f"For {task_id}: A rounds each line item and says so in its subject; B rounds the total and its body "
            "does not name the drift it fixes. Both keep the subject under 72 characters and use the imperative. "
            "A names the test it added and what it covers; B says tests pass without saying which. A's body "
            "explains why (the cents drift on long orders) where B's repeats the diff. Neither names an issue "
            "number, which the case does not ask for. A is clearly better on the criteria that matter here: the "
            "why, the scope and the test; on tone and length they are even.")


PROFILE: list[Path] = []  # with --py-spy: the folder for each collect's collapsed stacks
# With --no-memo: the audit searches every tool result, even one byte-identical to a result it checked (the
# --tools pool repeats a few dozen results, so the audit's memory of them flatters its rate there).
NO_MEMO = "import benchcore.harness.collect.contamination as _c\n_c.MEMO_FROM = float('inf')\n"
MEMO: list[str] = [""]
AGAINST: list[Path] = []  # with --against: another version's src folder, its first collect run on the same files
AB: list[Path] = []  # with --ab: the src folders whose first collects are timed in turns
AB_ROUNDS = [9]


def _run(env: dict, cwd: Path, *argv: str, name: str = "", code: str = "") -> tuple[float, float, str, dict]:
    """(seconds, peak RSS in MB, stdout, {"cpu": CPU seconds, "audit": audit CPU seconds}) of one benchcore
    command in a fresh process (``code``: another child program than the benchcore command)."""
    cmd = [sys.executable, "-c", code or (MEMO[0] + _AUDITED + _CHILD), *argv]
    if PROFILE and name:
        cmd = ["py-spy", "record", "-f", "raw", "-r", "200", "-o", str(PROFILE[0] / f"{name}.txt"), "--"] + cmd
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = os.times()
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("maxrss ")]
    if not line:
        raise SystemExit(f"benchcore {' '.join(argv)} failed:\n{proc.stderr}")
    extra = {"cpu": (after.children_user - before.children_user) + (after.children_system - before.children_system)}
    for ln in proc.stderr.splitlines():
        if ln.startswith(("audit ", "cpu ")):
            extra[ln.split()[0]] = float(ln.split()[1])
    return elapsed, int(line[-1].split()[1]) / 1024, proc.stdout, extra


def pad(config: Path, mb: float) -> float:
    """Pad every arm transcript to about ``mb`` MB with one tool result before its final line; the MB read."""
    total = 0
    for path in config.rglob("agent-*.jsonl"):
        lines = path.read_bytes().splitlines(keepends=True)
        size = sum(map(len, lines))
        want = int(mb * 1_000_000) - size
        if want > 0 and len(lines) > 2:
            body = ("x" * 99 + "\n") * (want // 100)
            rec = {"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_pad", "content": body}]}}
            lines.insert(len(lines) - 1, (json.dumps(rec) + "\n").encode())
            path.write_bytes(b"".join(lines))
        total += path.stat().st_size
    return total / 1e6


REPEAT_AT_MOST = 0.10  # the share of tool results that may repeat one already in the corpus (a user's run: few)
READ_LINES = 2000  # lines a Read shows at a time (Claude Code's default): a longer file is read in windows
BASH_CUT = 30000  # characters: Claude Code keeps the last 30,000 of a Bash call's output


def _sources() -> list[tuple[Path, Path]]:
    """(root, file) of the text files a coding agent could read here: Python's standard library and this
    machine's C headers, in a fixed order (never benchcore's own files: those hold the run folder's formats,
    which the audit rightly flags)."""
    import sysconfig
    from itertools import chain, zip_longest

    per_root = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for root, pattern in ((stdlib, "*.py"), (Path("/usr/include"), "*.h"), (stdlib / "site-packages", "*.py"),
                          (Path("/usr/lib/python3/dist-packages"), "*.py"), (Path("/usr/share/perl"), "*.pm"),
                          (Path("/usr/lib/node_modules"), "*.js"), (Path("/usr/share/doc"), "*")):
        if root.is_dir():
            per_root.append([(root, f) for f in sorted(root.rglob(pattern)) if f.is_file()
                             and "benchcore" not in f.parts and (root != stdlib or "site-packages" not in f.parts)
                             and f.suffix != ".gz"])
    # One file of each root in turn: a small run and a large one get the same mix of file kinds and sizes (taken
    # root after root, 300 cells read only Python sources and 3,000 mostly C headers, with twice as many results
    # per MB: a growth exponent then measured the corpus, not collect).
    return [f for f in chain.from_iterable(zip_longest(*per_root)) if f is not None]


def _numbered(lines: list[str], first: int) -> str:
    """What the Read tool returns: each line after its number and a tab (standin.agent.read_result)."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, first))


def tool_results(world: str):
    """An endless stream of (tool name, input, result) as a coding agent's calls bring them back in ``world``:
    Read windows of a file (numbered lines, ``offset``/``limit`` past the first READ_LINES), a Bash ``grep``
    of it and an ``ls -la`` of its folder, an Edit of one of its lines (Claude Code's snippet of the edited
    file); every result distinct until the sources run out, then they come round again (counted as repeats)."""
    for root, f in _sources():
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines = text.splitlines()
        if len(lines) < 5:
            continue
        rel = f.relative_to(root)
        path = f"{world}/src/{rel}"
        for off in range(0, len(lines), READ_LINES):
            inp = {"file_path": path} if off == 0 else {"file_path": path, "offset": off + 1, "limit": READ_LINES}
            yield "Read", inp, _numbered(lines[off:off + READ_LINES], off + 1)
        word = "def " if f.suffix == ".py" else "#define"
        hits = [f"{n}:{line}" for n, line in enumerate(lines, 1) if word in line]
        if hits:
            out = "\n".join(hits)
            yield "Bash", {"command": f"cd {world} && grep -n '{word}' src/{rel}",
                           "description": f"Find the definitions in {f.name}"}, out[-BASH_CUT:]
        if f.name == "__init__.py":
            listing = []
            for g in sorted(f.parent.iterdir())[:200]:
                try:
                    st = g.stat()
                except OSError:
                    continue
                listing.append(f"{'d' if g.is_dir() else '-'}rw-r--r-- 1 user user {st.st_size:>8} Jan  1 12:00 {g.name}")
            yield "Bash", {"command": f"cd {world} && ls -la src/{rel.parent}",
                           "description": "List the folder"}, f"total {len(listing)}\n" + "\n".join(listing)
        at = next((i for i, line in enumerate(lines) if len(line.strip()) > 20), None)
        if at is not None and len(lines) % 3 == 0:  # an edit of one file in three read
            old = lines[at]
            new = old.rstrip() + "  # checked"
            shown = lines[max(0, at - 4):at] + [new] + lines[at + 1:at + 6]
            yield "Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}, (
                f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the "
                f"edited file:\n" + _numbered(shown, max(0, at - 4) + 1))


class Corpus:
    """The tool results padded into a run's transcripts: one stream for all (so they are distinct across
    cells, as different arms read different things), with what was given counted."""

    def __init__(self) -> None:
        self.stream = None
        self.world = "{world}"
        self.given = 0
        self.seen: set[int] = set()
        self.repeats = 0
        self.calls: dict[str, int] = {}
        self.guarded = 0
        self.round = 0

    def next(self, world: str) -> tuple[str, dict, str]:
        while True:
            if self.stream is None:
                self.stream = tool_results("{world}")
            try:
                name, inp, text = next(self.stream)
            except StopIteration:  # the sources ran out: round again (repeats, counted)
                self.stream = None
                self.round += 1
                continue
            if self.round or hash(text) not in self.seen:  # the same file twice in the sources: taken once
                break
        fix = lambda s: s.replace("{world}", world) if isinstance(s, str) else s  # noqa: E731
        key = hash(text)
        text = fix(text)
        self.repeats += key in self.seen
        self.seen.add(key)
        self.given += 1
        self.calls[name] = self.calls.get(name, 0) + 1
        return name, {k: fix(v) for k, v in inp.items()}, text


CORPUS: list[Corpus] = []


def _guard_for(repo: Path, world: str):
    """The benchmark's guard as it answered the arm's calls in this run (its hook record's stdout and command
    line), or None when the run is not sandboxed: what Claude Code records beside each call it ran."""
    from benchcore.harness.confine import guard

    for plan_path in sorted((repo / "tests/.reports/runs").glob("*/plan.json")):
        plan = json.loads(plan_path.read_text(encoding="utf-8"))
        cell = next((c for c in plan.get("cells") or [] if c.get("world") == world), None)
        if cell is None:
            continue
        base = Path(plan["temp_root"]).parent
        command = f"sh {repo}/.claude/skills/benchmark-skill/scripts/guard {base}"

        def says(name: str, inp: dict):
            decision, updated = guard.decide_arm(name, inp, plan, cell)
            return None if decision is None else (guard.answer(decision, updated), command)
        return says
    return None


def pad_tools(config: Path, mb: float, repo: Optional[Path] = None) -> float:
    """Pad every arm transcript to about ``mb`` MB with a coding agent's tool calls and their results
    (:func:`tool_results`: distinct Read, Bash and Edit results of realistic sizes, each owned by its call),
    inserted before the arm's first Bash call, each a copy of that call's records: the call, the guard's
    hook record beside it (recomputed by the guard for the new call, as Claude Code records it) and the
    result; the MB read."""
    corpus = CORPUS[0] if CORPUS else Corpus()
    if not CORPUS:
        CORPUS.append(corpus)
    total = 0
    worlds = re.compile(r"(/\S+/worlds/[0-9a-f]+)")
    for path in sorted(config.rglob("agent-*.jsonl")):
        lines = path.read_bytes().splitlines(keepends=True)
        recs = [json.loads(ln) for ln in lines]
        at = next((i for i, r in enumerate(recs) if r.get("type") == "assistant" and any(
            isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash"
            for b in r["message"]["content"])), None)
        want = int(mb * 1_000_000) - sum(map(len, lines))
        if at is None or want <= 0:
            total += path.stat().st_size
            continue
        use_rec = recs[at]
        use_id = next(b["id"] for b in use_rec["message"]["content"] if b.get("type") == "tool_use")
        res_at = next(i for i, r in enumerate(recs) if r.get("type") == "user" and isinstance(
            r["message"]["content"], list) and any(isinstance(b, dict) and b.get("tool_use_id") == use_id
                                                   for b in r["message"]["content"]))
        res_rec = recs[res_at]
        hook_rec = next((r for r in recs if r.get("type") == "attachment" and isinstance(r.get("attachment"), dict)
                         and r["attachment"].get("toolUseID") == use_id), None)
        first = next(r for r in recs if r.get("type") == "user")
        content = first["message"]["content"]
        m = worlds.search(content if isinstance(content, str) else json.dumps(content))
        world = m.group(1) if m else "/tmp/world"
        says = _guard_for(repo, world) if repo is not None and hook_rec is not None else None
        added, n = [], 0
        while want > 0:
            name, inp, text = corpus.next(world)
            tid = f"toolu_pad{n:05d}{use_id[-6:]}"
            u = json.loads(json.dumps(use_rec))
            u["uuid"] = f"{use_rec['uuid'][:-8]}{n:08d}"
            u["message"]["content"] = [{"type": "tool_use", "id": tid, "name": name, "input": inp}]
            r = json.loads(json.dumps(res_rec))
            r["uuid"] = f"{res_rec['uuid'][:-8]}{n:08d}"
            r["sourceToolAssistantUUID"] = u["uuid"]
            block = {"tool_use_id": tid, "type": "tool_result", "content": text}
            if name == "Bash":
                block["is_error"] = False
            else:
                r.pop("sandboxed", None)
            r["message"]["content"] = [block]
            r.pop("toolUseResult", None)
            group = [u]
            said = says(name, inp) if says is not None else None
            if said is not None:
                h = json.loads(json.dumps(hook_rec))
                h["uuid"] = f"{hook_rec['uuid'][:-8]}{n:08d}"
                h["parentUuid"] = u["uuid"]
                h["attachment"].update({"hookName": f"PreToolUse:{name}", "toolUseID": tid, "stdout": said[0] + "\n",
                                        "command": said[1]})
                group.append(h)
                corpus.guarded += 1
            r["parentUuid"] = group[-1]["uuid"]
            group.append(r)
            pair = [(json.dumps(x) + "\n").encode() for x in group]
            added += pair
            want -= sum(map(len, pair))
            n += 1
        lines[at:at] = added
        path.write_bytes(b"".join(lines))
        total += path.stat().st_size
    return total / 1e6


def compiled() -> None:
    """Compile every benchcore source this script runs collects with (this tree's, --src, --against, --ab) to
    bytecode, as installing benchcore does (pip and Nix write each module's .pyc): with PYTHONDONTWRITEBYTECODE
    set (as in this project's shells) and an editable install, each collect would otherwise compile the modules
    changed since their last .pyc again (70-80 ms of a first collect here), which no installed benchcore does."""
    import importlib.util

    here = os.environ.get("PYTHONPATH") or str(Path(importlib.util.find_spec("benchcore").origin).parents[1])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for src in dict.fromkeys([Path(here), *AGAINST, *AB]):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(src) / "benchcore")], env=env,
                       check=True, stdout=subprocess.DEVNULL)


def one_size(cases: int, mb: float, tools: bool = False) -> dict:
    """Plan, play the arms, collect three times; the figures of each collect."""
    compiled()
    agent, _ = _standin()
    with tempfile.TemporaryDirectory(prefix="benchcore-scale-") as tmp:
        root = Path(tmp)
        env, repo, run_dir, plan_s, script = played(root, cases)
        from test_e2e_benchmark import next_scripts  # the judges' scripts, below (tests/ is on the path)

        read_mb = (pad_tools(root / "claude", mb, repo) if tools else pad(root / "claude", mb)) if mb else 0.0
        if tools and mb:
            c = CORPUS[0]
            print(f"  the corpus: {c.given} tool results ({', '.join(f'{k} {v}' for k, v in sorted(c.calls.items()))}), "
                  f"{c.repeats / max(c.given, 1):.1%} repeats, {c.guarded} guard records, {read_mb:.0f} MB of "
                  f"transcripts", flush=True)
            if c.repeats > REPEAT_AT_MOST * c.given:
                raise SystemExit(f"the corpus repeats {c.repeats} of {c.given} results: more than "
                                 f"{REPEAT_AT_MOST:.0%}, not what a user's run leaves (use fewer MB)")
            CORPUS.clear()
        cells = len(json.loads((run_dir / "plan.json").read_text())["cells"])
        figures = {"cells": cells, "transcripts_mb": read_mb, "plan_s": plan_s}
        if mb:
            plain = _run(env, repo, str(root / "claude"), code=_PLAIN)
            figures["plain"] = (plain[0], plain[1], plain[3]["cpu"])
            try:
                fast = _run(env, repo, str(root / "claude"), code=_PLAIN_FAST)
                figures["plain_msgspec"] = (fast[0], fast[1], fast[3]["cpu"])
            except SystemExit:  # no msgspec where the collect runs (a version before it, run with --src)
                figures["plain_msgspec"] = (float("nan"),) * 3
            copy = _run(env, repo, str(root / "claude"), str(run_dir.parent / "copy-floor"), code=_COPY)
            figures["copy"] = (copy[0], copy[1], copy[3]["cpu"])
            figures["copy_dir"] = str(run_dir.parent)
            import shutil

            shutil.rmtree(run_dir.parent / "copy-floor")
        if AB:  # paired: each version's first collect on the same files, in turns, plain reading each round
            import shutil

            keep = root / "run-before-collect"
            shutil.copytree(run_dir, keep, symlinks=True)
            rounds = []
            for _ in range(AB_ROUNDS[0]):
                row = {}
                for src in AB:
                    shutil.rmtree(run_dir)
                    shutil.copytree(keep, run_dir, symlinks=True)
                    sec, rss, _, extra = _run(dict(env, PYTHONPATH=str(src)), repo, "collect", str(run_dir))
                    invalid = len(json.loads((run_dir / "collect.json").read_text()).get("invalid_trials", []))
                    row[str(src)] = (sec, extra["cpu"], invalid)
                again = _run(env, repo, str(root / "claude"), code=_PLAIN)
                row["plain"] = (again[0], again[3]["cpu"], 0)
                rounds.append(row)
            figures["ab"] = rounds
            return figures
        if AGAINST:  # the other version's first collect on the same files, then the run folder as it was
            import shutil

            keep = root / "run-before-collect"
            shutil.copytree(run_dir, keep, symlinks=True)
            sec, rss, _, extra = _run(dict(env, PYTHONPATH=str(AGAINST[0])), repo, "collect", str(run_dir))
            figures["against"] = (sec, rss, extra["cpu"])
            figures["against_audit"] = extra.get("audit", 0.0)
            shutil.rmtree(run_dir)
            shutil.copytree(keep, run_dir, symlinks=True)
        first_out = ""
        for key in COLLECTS:
            if key == "judged":  # the judges the first collect asked for (in parts, at many cases)
                for path in next_scripts(first_out):
                    agent.run_script(path, root / "claude", script, repo)
            sec, rss, out, extra = _run(env, repo, "collect", str(run_dir), name=f"{cases}-{key}")
            first_out = out if key == "first" else first_out
            figures[key] = (sec, rss, extra["cpu"])
            if key == "first":
                figures["audit_cpu"] = extra.get("audit", 0.0)
                figures["invalid"] = len(json.loads((run_dir / "collect.json").read_text()).get("invalid_trials", []))
                if tools:
                    valid_run(run_dir)
        figures["plan_alone"] = _run(env, repo, str(run_dir), code=_PLAN_ALONE)[1]
        return figures


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def played(root: Path, cases: int) -> tuple[dict, Path, Path, float, object]:
    """A repository of ``cases`` cases in ``root``, planned, its arms played by the stand-in (transcripts where
    Claude Code writes them, under ``root``/claude): (env, repo, run_dir, plan's seconds, the stand-in's script,
    which plays the judges too)."""
    agent, _ = _standin()
    env = build_repo(root, cases)
    repo = root / "repo"
    plan_s, _, out, _ = _run(env, repo, "plan", "greet", "--seed", "1", "--temp-dir", str(root / "t"))
    [run_dir] = sorted((repo / "tests/.reports/runs").iterdir())
    script = agent.Script(files={f"{n:03d}-case": {"greeting.txt": "Hello!\n"} for n in range(1, cases + 1)},
                          tiny=False, **answers())
    from test_e2e_benchmark import next_scripts  # the scripts plan printed (tests/ is on the path)

    for path in next_scripts(out):
        agent.run_script(path, root / "claude", script, repo)
    return env, repo, run_dir, plan_s, script


def realistic(root: Path, cases: int, mb: float) -> tuple[dict, Path, Path, float, Path]:
    """The realistic corpus in ``root``: a repository of ``cases`` cases planned, its arms played by the stand-in
    (transcripts where Claude Code writes them, under ``root``/claude) and padded with tool calls (``pad_tools``)
    to about ``mb`` MB each. (env, repo, run_dir, MB of arm transcripts, a copy of the run folder as plan left it:
    each first collect starts from it); what the corpus is like is printed."""
    env, repo, run_dir, _, _ = played(root, cases)
    read_mb = pad_tools(root / "claude", mb, repo)
    c = CORPUS.pop()
    print(f"corpus: {cases} cases, {read_mb:.0f} MB of arm transcripts where Claude Code writes them, {c.given} tool "
          f"results ({', '.join(f'{k} {v}' for k, v in sorted(c.calls.items()))}), {c.repeats / c.given:.1%} "
          f"repeats, a guard record beside each of the {c.guarded} calls; {_load()}", flush=True)
    if c.repeats > REPEAT_AT_MOST * c.given:
        raise SystemExit(f"the corpus repeats more than {REPEAT_AT_MOST:.0%} of its results: use fewer MB")
    import shutil

    keep = root / "run-before-collect"
    shutil.copytree(run_dir, keep, symlinks=True)
    return env, repo, run_dir, read_mb, keep


# Each pass of a first collect over the bytes alone (``--passes``), in a fresh process: argv is the folder of
# transcripts, a folder for copies, the repository's skills. Every program reads each transcript; what it adds
# to plain reading is what that pass costs.
_PASS_HEAD = ("import hashlib, os, sys\nfrom pathlib import Path\n"
              "files = sorted(Path(sys.argv[1]).rglob('*.jsonl'))\n"
              "out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)\n")
_PASS_TAIL = "print('maxrss 0 0', file=sys.stderr)\n"
_DECODE = ("    for line in data.splitlines():\n"
           "        if line.strip():\n"
           "            decode(line)\n")
PASSES = {
    "read": "for p in files:\n    data = p.read_bytes()\n",
    "read + SHA-256": "for p in files:\n    hashlib.sha256(p.read_bytes()).hexdigest()\n",
    # The copy as collect keeps it (files.write_atomic: a temp file renamed into place, no fsync; past the page
    # cache where the system allows it, in a version that writes so).
    "read + copy": ("import inspect\nfrom benchcore.harness.store.files import write_atomic\n"
                    "kw = {'uncached': True} if 'uncached' in inspect.signature(write_atomic).parameters else {}\n"
                    "for n, p in enumerate(files):\n"
                    "    write_atomic(out / f'{n}.jsonl', p.read_bytes(), durable=False, **kw)\n"),
    # The same copy written into the page cache, as collect wrote it before stop 53.
    "read + copy, cached": ("from benchcore.harness.store.files import write_atomic\n"
                            "for n, p in enumerate(files):\n"
                            "    write_atomic(out / f'{n}.jsonl', p.read_bytes(), durable=False)\n"),
    "read + json.loads": "from json import loads as decode\nfor p in files:\n    data = p.read_bytes()\n" + _DECODE,
    "read + msgspec": "from msgspec.json import decode\nfor p in files:\n    data = p.read_bytes()\n" + _DECODE,
    # msgspec into typed records whose tool results stay undecoded (msgspec.Raw): the least a parse can build.
    "read + msgspec, typed": (
        "import msgspec\nfrom typing import Any, Union, Optional\n"
        "class Block(msgspec.Struct):\n    type: Any = None\n    id: Any = None\n    name: Any = None\n"
        "    input: Any = None\n    tool_use_id: Any = None\n    content: msgspec.Raw = msgspec.Raw(b'')\n"
        "    is_error: Any = None\n    text: Any = None\n"
        "class Message(msgspec.Struct):\n    content: Union[list[Block], str, None] = None\n    model: Any = None\n"
        "    id: Any = None\n    usage: Any = None\n"
        "class Record(msgspec.Struct):\n    type: Any = None\n    agentId: Any = None\n"
        "    message: Optional[Message] = None\n    isMeta: Any = None\n    sourceToolUseID: Any = None\n"
        "    attachment: Any = None\n    requestId: Any = None\n    uuid: Any = None\n"
        "    toolUseResult: msgspec.Raw = msgspec.Raw(b'')\n"
        "decode = msgspec.json.Decoder(Record).decode\n"
        "for p in files:\n    data = p.read_bytes()\n" + _DECODE),
    # The audit's passes as the floor does them (after msgspec's parse): every tool result encoded, folded and
    # searched by the automaton of the skill's lines.
    "read + msgspec + audit's passes": (
        "from msgspec.json import decode\n"
        "from benchcore.harness.collect.contamination import _Index, _bytes, _folded, distinctive_lines\n"
        "lines = [l for p in sorted(Path(sys.argv[3]).rglob('*.md')) for l in distinctive_lines(p.read_text())]\n"
        "index = _Index(tuple(dict.fromkeys(lines)))\n"
        "for p in files:\n    data = p.read_bytes()\n" + _AUDIT_PASSES),
}


def passes(cases: int, mb: float, rounds: int) -> int:
    """Each pass of a first collect over the bytes alone (PASSES), and the first collect itself, on the realistic
    corpus: each in a fresh process, in a rotating order, ``rounds`` rounds; medians of CPU (the reaped child's
    user + system) and wall, and each figure over plain reading with json.loads (the 1.5x target's anchor). What a
    pass adds to "read" is its own cost: the sum of those a first collect cannot skip is its floor."""
    import shutil

    compiled()
    with tempfile.TemporaryDirectory(prefix="benchcore-passes-") as tmp:
        root = Path(tmp)
        env, repo, run_dir, read_mb, keep = realistic(root, cases, mb)
        steps = ["first collect", *PASSES]
        rows = []
        for n in range(rounds):
            row = {}
            for step in steps[n % len(steps):] + steps[:n % len(steps)]:
                shutil.rmtree(root / "copies", ignore_errors=True)
                if step == "first collect":
                    shutil.rmtree(run_dir)
                    shutil.copytree(keep, run_dir, symlinks=True)
                    sec, _, _, extra = _run(env, repo, "collect", str(run_dir))
                    valid_run(run_dir)
                else:
                    try:
                        sec, _, _, extra = _run(env, repo, str(root / "claude"), str(root / "copies"),
                                                str(repo / "skills"), code=_PASS_HEAD + PASSES[step] + _PASS_TAIL)
                    except SystemExit as failed:
                        raise SystemExit(f"{step}: {failed}") from None
                row[step] = (extra["cpu"], sec)
            rows.append(row)
            print(f"round {n + 1}: " + "; ".join(f"{k} {v[0]:.2f} s CPU" for k, v in row.items()) + f"; {_load()}",
                  flush=True)
        med = lambda f: statistics.median(f(r) for r in rows)  # noqa: E731
        anchor = med(lambda r: r["read + json.loads"][0])
        read = med(lambda r: r["read"][0])
        print(f"medians of {rounds} rounds ({read_mb:.0f} MB, {cases} cases); CPU / plain reading with json.loads "
              f"({anchor:.2f} s); what each adds to reading alone:")
        for k in steps:
            cpu = med(lambda r: r[k][0])
            print(f"  {k:32} {cpu:.2f} s CPU ({med(lambda r: r[k][0] / r['read + json.loads'][0]):.2f}x), "
                  f"{med(lambda r: r[k][1]):.2f} s wall" + ("" if k in ("read", "first collect") else
                                                           f"; adds {cpu - read:.2f} s"))
        print(_load())
    return 0


def paired(cases: int, mb: float, rounds: int) -> int:
    """The first collect against plain reading, paired and interleaved on one realistic corpus (``pad_tools``):
    each round runs, in a rotating order, a first collect (on a fresh copy of the run folder as plan left it,
    then a second collect with nothing new on it), plain reading with ``json.loads`` and plain reading with
    msgspec, each in a fresh single-thread process; CPU (the reaped child's user + system) and wall. Prints
    each round with the load average, then the medians of each figure and of each round's ratios."""
    import shutil

    compiled()
    with tempfile.TemporaryDirectory(prefix="benchcore-pairs-") as tmp:
        root = Path(tmp)
        env, repo, run_dir, read_mb, keep = realistic(root, cases, mb)
        steps = ("collect", "json", "msgspec", "floor")
        rows = []
        for n in range(rounds):
            row = {}
            for step in steps[n % len(steps):] + steps[:n % len(steps)]:
                if step == "collect":
                    shutil.rmtree(run_dir)
                    shutil.copytree(keep, run_dir, symlinks=True)
                    sec, rss, _, extra = _run(env, repo, "collect", str(run_dir))
                    packets = valid_run(run_dir)
                    row["collect"] = (extra["cpu"], sec, rss)
                    row["audit"] = (extra.get("audit", 0.0), 0.0, 0.0)
                    sec, rss, _, extra = _run(env, repo, "collect", str(run_dir))
                    row["again"] = (extra["cpu"], sec, rss)
                elif step == "floor":
                    shutil.rmtree(root / "floor-copies", ignore_errors=True)
                    sec, rss, _, extra = _run(env, repo, str(root / "claude"), str(root / "floor-copies"),
                                              str(repo / "skills"), code=_FLOOR)
                    row[step] = (extra["cpu"], sec, rss)
                else:
                    sec, rss, _, extra = _run(env, repo, str(root / "claude"),
                                              code=_PLAIN if step == "json" else _PLAIN_FAST)
                    row[step] = (extra["cpu"], sec, rss)
            rows.append(row)
            print(f"round {n + 1}: " + "; ".join(f"{k} {v[0]:.2f} s CPU, {v[1]:.2f} s" for k, v in row.items()
                                                if k != "audit")
                  + f"; audit {row['audit'][0]:.2f} s CPU; {packets} packets, every trial valid; {_load()}", flush=True)
        med = lambda f: statistics.median(f(r) for r in rows)  # noqa: E731
        print(f"medians of {rounds} rounds ({read_mb:.0f} MB, {cases} cases):")
        for k in ("collect", "again", "json", "msgspec", "floor"):
            print(f"  {k:8} {med(lambda r: r[k][0]):.2f} s CPU, {med(lambda r: r[k][1]):.2f} s wall, "
                  f"peak {med(lambda r: r[k][2]):.0f} MB" if k in ("collect", "again") else
                  f"  {k:8} {med(lambda r: r[k][0]):.2f} s CPU, {med(lambda r: r[k][1]):.2f} s wall")
        print(f"  audit    {med(lambda r: r['audit'][0]):.2f} s CPU ({read_mb / med(lambda r: r['audit'][0]):.0f} MB/s)")
        for anchor in ("json", "msgspec", "floor"):
            print(f"  first collect / {'the floor' if anchor == 'floor' else 'plain reading with ' + anchor}: {med(lambda r: r['collect'][0] / r[anchor][0]):.2f}x CPU, "
                  f"{med(lambda r: r['collect'][1] / r[anchor][1]):.2f}x wall (median of the rounds' ratios)")
        print(f"  the floor (the C passes a first collect cannot skip) / plain reading with json: "
              f"{med(lambda r: r['floor'][0] / r['json'][0]):.2f}x CPU, {med(lambda r: r['floor'][1] / r['json'][1]):.2f}x wall")
        print(f"  collect with nothing new / plain reading with json: {med(lambda r: r['again'][0] / r['json'][0]):.2f}x CPU")
        print(_load())
    return 0


def valid_run(run_dir: Path) -> int:
    """Every trial valid after the first collect (audit.json clean) and a judge packet written for each
    trial and comparison, as in a user's run: a corpus whose trials are invalid never reaches the judges, and
    times a collect no user runs. The packets written."""
    status = json.loads((run_dir / "collect.json").read_text())
    audits = sorted(run_dir.glob("cases/*/t*/audit.json"))
    bad = [str(a) for a in audits if json.loads(a.read_text()).get("invalid")]
    plan = json.loads((run_dir / "plan.json").read_text())
    trials = {(c["case"], c["trial"]) for c in plan["cells"]}
    packets = sorted(run_dir.glob("cases/*/t*/packets/*")) or plan.get("packets") or []
    if status.get("invalid_trials") or bad or len(audits) != len(trials) or not packets:
        raise SystemExit(f"the corpus does not leave every trial valid: invalid {status.get('invalid_trials')} "
                         f"{bad[:3]}, {len(audits)} audits for {len(trials)} trials, {len(packets)} packets")
    return len(packets)


def growth(small: dict, large: dict, key: str, i: int = 2) -> float:
    """The growth exponent log(c2 / c1) / log(n2 / n1) of figure ``i`` (2: CPU seconds, the default; 0: wall)."""
    a, b = (small[key][i], large[key][i]) if isinstance(small[key], tuple) else (small[key], large[key])
    return math.log(b / a) / math.log(large["cells"] / small["cells"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="20,50,200", help="case counts, comma-separated")
    parser.add_argument("--mb", type=float, default=0.0, help="pad each transcript to about this many MB")
    parser.add_argument("--tools", action="store_true",
                        help="pad with realistic tool calls and results (Bash output, file reads) instead")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size; medians are reported")
    parser.add_argument("--src", type=Path, default=None,
                        help="run the collects with the benchcore package under this src folder (another version)")
    parser.add_argument("--against", type=Path, default=None,
                        help="also time another version's first collect (its src folder) on the same files")
    parser.add_argument("--ab", type=Path, nargs="+", default=None, metavar="SRC",
                        help="paired: only the first collect, of each of these src folders in turns on the same "
                             "files (--rounds times, plain reading each round); medians and ratios to plain")
    parser.add_argument("--rounds", type=int, default=9, help="rounds of --ab and --pairs")
    parser.add_argument("--pairs", action="store_true",
                        help="the realistic corpus (--tools), first collect paired and interleaved with plain reading "
                             "(json.loads, msgspec) and with the floor (the C passes a collect cannot skip), --rounds rounds, "
                             "load average printed")
    parser.add_argument("--passes", action="store_true",
                        help="the realistic corpus (--tools): each pass of a first collect over the bytes alone (read, "
                             "SHA-256, the copy, parses, the audit's passes), and the first collect, --rounds rounds")
    parser.add_argument("--no-memo", action="store_true", dest="no_memo",
                        help="the audit searches every tool result, even one identical to a result already checked "
                             "(the rate on output that never repeats)")
    parser.add_argument("--short-answers", action="store_true", dest="short_answers",
                        help="the stand-in's one-line arm answers and judge rationales, not a user's size (about 0.8 KB "
                             "and 560 characters): the corpus of the figures before stop 51")
    parser.add_argument("--py-spy", type=Path, default=None, dest="py_spy",
                        help="profile each collect with py-spy into this folder (<cases>-<collect>.txt)")
    args = parser.parse_args(argv)
    SHORT_ANSWERS[0] = args.short_answers
    if args.passes:
        return passes(int(args.cases.split(",")[0]), args.mb or 6.5, args.rounds)
    if args.pairs:
        return paired(int(args.cases.split(",")[0]), args.mb or 6.5, args.rounds)
    if args.py_spy is not None:
        args.py_spy.mkdir(parents=True, exist_ok=True)
        PROFILE.append(args.py_spy.resolve())
    if args.no_memo:
        MEMO[0] = NO_MEMO
    if args.against is not None:
        AGAINST.append(args.against.resolve())
    if args.ab:
        AB.extend(src.resolve() for src in args.ab)
        AB_ROUNDS[0] = args.rounds
        for n in [int(c) for c in args.cases.split(",")]:
            f = one_size(n, args.mb or 6.5, args.tools)
            med = lambda key, i: statistics.median(r[key][i] for r in f["ab"])  # noqa: E731
            print(f"{n} cases ({f['cells']} cells, {f['transcripts_mb']:.0f} MB), {args.rounds} rounds: plain reading "
                  f"+ json.loads {med('plain', 0):.2f} s ({med('plain', 1):.2f} s CPU)", flush=True)
            for src in AB:
                invalid = sorted({r[str(src)][2] for r in f["ab"]})
                print(f"  {src}: first collect {med(str(src), 0):.2f} s, {med(str(src), 1):.2f} s CPU; / plain "
                      f"{med(str(src), 0) / med('plain', 0):.2f}x wall, {med(str(src), 1) / med('plain', 1):.2f}x CPU; "
                      f"invalid trials {invalid}", flush=True)
        return 0
    if args.src is not None:
        os.environ["PYTHONPATH"] = str(args.src.resolve())
    sizes = [int(c) for c in args.cases.split(",")]
    results = {}
    for n in sizes:
        runs = [one_size(n, args.mb, args.tools) for _ in range(args.repeat)]
        med = {"cells": runs[0]["cells"], "transcripts_mb": runs[0]["transcripts_mb"],
               "audit_cpu": statistics.median(r["audit_cpu"] for r in runs),
               "plan_alone": statistics.median(r["plan_alone"] for r in runs)}
        for key in COLLECTS + (("plain", "copy") if args.mb else ()):
            med[key] = tuple(statistics.median(r[key][i] for r in runs) for i in range(3))
        results[n] = med
        print(f"{n} cases ({med['cells']} cells"
              + (f", {med['transcripts_mb']:.0f} MB of transcripts" if args.mb else "") + "): "
              + "; ".join(f"{k} {med[k][0]:.2f} s, {med[k][2]:.2f} s CPU ({med[k][0] / med['cells'] * 1000:.1f} "
                          f"ms/cell, peak {med[k][1]:.0f} MB)" for k in COLLECTS)
              + f"; the plan alone (imports and plan.json read, judges' packets in) peak {med['plan_alone']:.0f} MB",
              flush=True)
        if args.mb:
            audit = statistics.median(r["audit_cpu"] for r in runs)
            print(f"  plain reading + json.loads {med['plain'][2]:.2f} s CPU, {med['plain'][0]:.2f} s; first collect / "
                  f"plain {med['first'][2] / med['plain'][2]:.2f}x (CPU), {med['first'][0] / med['plain'][0]:.2f}x "
                  f"(wall: collect writes its copies and hashes in a second thread); audit {audit:.2f} s CPU, "
                  f"{med['transcripts_mb'] / audit if audit else float('inf'):.0f} MB/s; "
                  f"invalid trials {runs[0]['invalid']}", flush=True)
            fast = tuple(statistics.median(r["plain_msgspec"][i] for r in runs) for i in range(3))
            print(f"  plain reading + msgspec.json.decode (the parser collect uses) {fast[2]:.2f} s CPU, {fast[0]:.2f} s; "
                  f"first collect / that {med['first'][2] / fast[2]:.2f}x (CPU), {med['first'][0] / fast[0]:.2f}x (wall)",
                  flush=True)
            floor = med["plain"][2] + med["copy"][2]
            print(f"  copying each transcript alone, as collect does {med['copy'][2]:.2f} s CPU "
                  f"({med['copy'][2] / med['plain'][2]:.2f}x plain; {med['transcripts_mb'] / med['copy'][2]:.0f} MB/s "
                  f"in {runs[0]['copy_dir']}); first collect / (plain + copy) "
                  f"{med['first'][2] / floor:.2f}x (CPU)", flush=True)
        if AGAINST:
            cpu = statistics.median(r["against"][2] for r in runs)
            audit = statistics.median(r["against_audit"] for r in runs)
            wall = statistics.median(r["against"][0] for r in runs)
            print(f"  against {AGAINST[0]}: first {wall:.2f} s, "
                  f"{cpu:.2f} s CPU, peak {statistics.median(r['against'][1] for r in runs):.0f} MB; "
                  f"first collect / plain {cpu / med['plain'][2]:.2f}x (CPU), {wall / med['plain'][0]:.2f}x (wall); "
                  f"audit {audit:.2f} s CPU, "
                  f"{med['transcripts_mb'] / audit if audit else float('inf'):.0f} MB/s", flush=True)
    if len(sizes) > 1:
        small, large = results[sizes[0]], results[sizes[-1]]
        print(f"growth exponent {sizes[0]} -> {sizes[-1]} cases, CPU seconds (1.0 = linear in cells): "
              + ", ".join(f"{k} {growth(small, large, k):.2f}" for k in COLLECTS)
              + (f", audit {growth(small, large, 'audit_cpu'):.2f}" if small["audit_cpu"] else "")
              + "; wall: " + ", ".join(f"{k} {growth(small, large, k, 0):.2f}" for k in COLLECTS)
              + "; peak memory " + ", ".join(f"{k} {small[k][1]:.0f} -> {large[k][1]:.0f} MB" for k in COLLECTS)
              + "; beyond the plan alone " + ", ".join(
                  f"{k} {small[k][1] - small['plan_alone']:.0f} -> {large[k][1] - large['plan_alone']:.0f} MB"
                  for k in COLLECTS))
        if args.mb:
            # The machine's speed drifts between the two sizes' runs (minutes apart): each figure divided by plain
            # reading's CPU per MB measured beside it (linear by construction) takes the drift out.
            speed = {n: results[n]["plain"][2] / results[n]["transcripts_mb"] for n in (sizes[0], sizes[-1])}
            drift = speed[sizes[-1]] / speed[sizes[0]]
            fix = lambda k: growth(small, large, k) - math.log(drift) / math.log(large["cells"] / small["cells"])  # noqa: E731
            print(f"the same, corrected for the machine's drift (plain reading's CPU per MB {drift:.2f}x at "
                  f"{sizes[-1]} cases what it was at {sizes[0]}): "
                  + ", ".join(f"{k} {fix(k):.2f}" for k in COLLECTS)
                  + (f", audit {fix('audit_cpu'):.2f}" if small["audit_cpu"] else "")
                  + f"; transcripts per cell {small['transcripts_mb'] / small['cells'] * 1000:.0f} KB and "
                  f"{large['transcripts_mb'] / large['cells'] * 1000:.0f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
