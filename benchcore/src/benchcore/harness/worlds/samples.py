"""A case's samples: run its hard assertions on them the way collect runs them, to prove they can pass and fail (I/O).

A case with hard assertions may commit, beside case.md, samples of what an arm might leave behind::

    samples/<name>/output.md    the arm's final message ($OUTPUT)
    samples/<name>/world/       optional: files the arm wrote, copied over a fresh world
    samples/<name>/act.sh       optional: what else the arm did (run with sh in the world, after the copy)

A sample named ``good`` or ``good-*`` must pass every predicate, one named ``bad-*`` must fail at least one, and
every predicate must fail on some bad sample. A case with hard assertions and no samples still runs; its
predicates are reported as unproven.

A sample's setup, its ``act.sh`` and the predicates run the way a run runs them (``worlds/shell.py``): in the OS
sandbox the arms' Bash calls get (:func:`samples_sandbox`, smoke-run once per validate, with each skill's
benchmark.yaml ``network``), so a predicate that passes here does not depend on anything of the session the
arms and the gate do not have. Where no sandbox runs, they run unconfined and validate says so.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Optional

from ...errors import BenchError, CaseError
from ...model import Case
from .assertions import run_assertions
from ..confine import sandbox as box
from ..store.files import read_text
from ..claude.agents import config_dir
from ..store.planfile import Sandbox
from ..repo.options import load_options
from ..repo.tree import SkillInfo, case_dirs, fixture_path, load_case, sample_dirs
from .shell import run_shell
from .temp import default_temp_base, make_world, run_setup

ASSERTION_TIMEOUT = 60
ACT_TIMEOUT = 60


def _rel(root: Path, p: Path) -> str:
    return p.relative_to(root).as_posix()


def _heading_line(case_dir: Path, case: Case) -> int:
    lines = read_text(case_dir / "case.md").splitlines()
    return next((i + 1 for i, l in enumerate(lines) if l.strip().lower().startswith("## hard assertions")),
                case.hard_assertions[0].line)


def _run_sample(root: Path, case_dir: Path, case: Case, sample: Path, tmp: Path,
                sandbox: Optional[Sandbox] = None) -> tuple:
    """Exit (None when timed out) and last stderr line of each predicate on one sample, in case order."""
    world = make_world(tmp, case.id, 1, fixture_path(root, case_dir, case))
    if case.setup:
        run_setup(world, case.setup, _rel(root, case_dir / "case.md"), sandbox)
    if (sample / "world").is_dir():
        shutil.copytree(sample / "world", world, dirs_exist_ok=True, symlinks=True)
    act = sample / "act.sh"
    if act.is_file():
        # its text, not its path: the sample's folder (in the repository) is not in the sandbox
        done = run_shell(f"sh -c {shlex.quote(read_text(act))} act.sh", str(world), sandbox=sandbox,
                         timeout=ACT_TIMEOUT, env={"WORLD": str(world)})
        if done.timed_out:
            raise BenchError(_rel(root, act), f"timed out after {ACT_TIMEOUT}s",
                             fix="make the sample's act.sh quick: it only stands for what the arm did")
        if done.exit != 0:
            why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no stderr"
            raise BenchError(_rel(root, act), f"exited {done.exit} ({why})",
                             fix="make act.sh succeed in a fresh world of this case (it runs with sh, cwd = the world)")
    results = run_assertions(case.hard_assertions, sample / "output.md", world, timeout=ASSERTION_TIMEOUT,
                             sandbox=sandbox)
    return tuple((None if r.timed_out else r.exit,
                  r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "") for r in results)


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _failed(code: Optional[int]) -> bool:
    return code is None or code != 0


def _what(code: Optional[int], stderr: str) -> str:
    return ("timed out" if code is None else f"exited {code}") + (f": {stderr}" if stderr else "")


def case_sample_problems(root: Path, case_dir: Path, case: Case,
                         sandbox: Optional[Sandbox] = None) -> list[BenchError]:
    """Every way the case's samples fail to show that its predicates can pass and fail; [] when they do, or when
    the case has no hard assertions or no samples."""
    samples = sample_dirs(case_dir)
    if not case.hard_assertions or not samples:
        return []
    md = _rel(root, case_dir / "case.md")
    problems: list[BenchError] = []
    good = [s for s in samples if s.name == "good" or s.name.startswith("good-")]
    bad = [s for s in samples if s.name.startswith("bad-")]
    for s in samples:
        if s not in good and s not in bad:
            problems.append(BenchError(_rel(root, s), "is a sample named neither good, good-* nor bad-*",
                                       fix="rename it good-<what> (passes every predicate) or bad-<what> (fails one)"))
        elif not (s / "output.md").is_file():
            problems.append(BenchError(_rel(root, s), "is a sample with no output.md",
                                       fix=f"write {_rel(root, s)}/output.md: the arm's final message ($OUTPUT)"))
    if not good:
        problems.append(CaseError(md, "has samples but no good one to show its hard assertions can pass",
                                  line=_heading_line(case_dir, case),
                                  fix="add samples/good/output.md (and world/ if the predicates read $WORLD): an "
                                      "answer that passes every predicate"))
    if not bad:
        problems.append(CaseError(md, "has samples but no bad one to show its hard assertions can fail",
                                  line=_heading_line(case_dir, case),
                                  fix="add samples/bad-<what>/output.md: an answer that fails a predicate"))
    failed_somewhere = [False] * len(case.hard_assertions)
    with tempfile.TemporaryDirectory(prefix="benchcore-samples-") as tmp:
        for s in good + bad:
            if not (s / "output.md").is_file():
                continue
            try:
                codes = _run_sample(root, case_dir, case, s, Path(tmp) / s.name, sandbox)
            except BenchError as err:
                problems.append(err)
                continue
            where = _rel(root, s)
            if s in good:
                for a, (code, err) in zip(case.hard_assertions, codes):
                    if _failed(code):
                        problems.append(CaseError(md, f"the good sample {where} fails this predicate "
                                                      f"({_what(code, err)})",
                                                  line=a.line, fix=f"fix the predicate, or {where} (output.md, world/) "
                                                  "so it shows an answer that should pass"))
            else:
                if not any(_failed(code) for code, _ in codes):
                    problems.append(BenchError(where, "is a bad sample that passes every hard assertion",
                                               fix="make it fail the predicate it is named for, or add the "
                                                   "predicate that catches it to case.md"))
                failed_somewhere = [f or _failed(code) for f, (code, _) in zip(failed_somewhere, codes)]
    if bad and all((s / "output.md").is_file() for s in bad):
        for a, failed in zip(case.hard_assertions, failed_somewhere):
            if not failed:
                problems.append(CaseError(md, f"no bad sample makes this predicate fail: {a.command}", line=a.line,
                                          fix="add samples/bad-<what>/ whose output fails it (can it fail at all?), "
                                              "or remove the predicate"))
    return problems


def _forbidden(root: Path) -> list[str]:
    """What the sandbox never binds: the repository, the runs' temp folder, Claude Code's config (as plan)."""
    return [str(root), str(default_temp_base()), str(config_dir())]


def samples_sandbox(root: Path, environ: Optional[dict] = None) -> box.Found:
    """The sandbox validate runs the samples in: the one plan would choose here (same smoke run, the repository
    and Claude Code's config hidden), no network; ``Found.sandbox`` None (with the problem) where none runs."""
    config = config_dir()
    return box.prepare(False, _forbidden(root), hidden=[str(root)] + ([str(config)] if config.exists() else []),
                       environ=environ)


def cases_with_samples(root: Path, skills: list[SkillInfo]) -> list[tuple[SkillInfo, Path, Case]]:
    """(skill, case folder, case) of every case of these skills with hard assertions and samples; a case that does
    not load is skipped (validate already names its problem)."""
    todo = []
    for skill in skills:
        for d in case_dirs(root, skill):
            try:
                case = load_case(root, d)
            except BenchError:
                continue
            if case.hard_assertions and sample_dirs(d):
                todo.append((skill, d, case))
    return todo


def tree_sample_problems(root: Path, skills: list[SkillInfo],
                         progress: Optional[Callable[[str], None]] = None,
                         sandbox: Optional[Sandbox] = None) -> list[BenchError]:
    """Run the samples of every case of these skills that has hard assertions and samples, in ``sandbox`` (with
    the network when the skill's benchmark.yaml says ``network: true``), or unconfined when it is None.
    ``progress`` hears one line per case as it starts."""
    todo = cases_with_samples(root, skills)
    if not todo:
        return []
    with tempfile.TemporaryDirectory(prefix="benchcore-samples-etc-") as tmp:  # /etc as a run binds it
        view = os.path.join(tmp, box.ETC_VIEW)
        try:
            return _tree_sample_problems(root, todo, progress, box.with_etc_view(sandbox, view), view)
        finally:
            box.release_etc_view(view)


def _tree_sample_problems(root: Path, todo: list, progress: Optional[Callable[[str], None]],
                          sandbox: Optional[Sandbox], view: str) -> list[BenchError]:
    problems: list[BenchError] = []
    networked: dict[str, Optional[Sandbox]] = {}
    for k, (skill, d, case) in enumerate(todo, start=1):
        if progress is not None:
            progress(f"checking samples {k}/{len(todo)}: {skill.name}/{d.name} "
                     f"({_n(len(sample_dirs(d)), 'sample')} x {_n(len(case.hard_assertions), 'predicate')})")
        chosen = sandbox
        if sandbox is not None:
            if skill.name not in networked:
                try:
                    net = bool(load_options(root, skill).get("network"))
                except BenchError:  # validate names the mistake; the samples run as the default (no network)
                    net = False
                networked[skill.name] = (box.with_etc_view(box.build(sandbox.kind, sandbox.program, True,
                                                                     _forbidden(root)), view, make=False)
                                         if net and not sandbox.network else sandbox)
            chosen = networked[skill.name]
        problems += case_sample_problems(root, d, case, chosen)
    return problems
