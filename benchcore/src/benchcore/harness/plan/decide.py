"""Plan stage 1, the decision: which skills, their tests checked, and each one's shape (docs/run-format.md)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Optional

from attrs import evolve, frozen

from ...errors import BenchError, raise_all
from ...model import Budget, Case
from ..claude import agents
from ..fanout.prompts import find_skill_dir
from ..repo import git
from ..store.planfile import Sandbox
from ..repo.options import load_options
from ..repo.roots import skill_roots
from ..repo.tree import SkillInfo, case_dirs, discover_skills, load_cases, validate_tree

BASELINE_AGENT = agents.ARM_AGENT  # every arm runs as it, the baseline included
JUDGE_AGENT = agents.JUDGE_AGENT


@frozen
class Decision:
    skill: SkillInfo
    cases: tuple[Case, ...]
    temperature: float
    shape: str
    why: str
    models: tuple[Optional[str], ...] = (None,)
    judge_model: Optional[str] = None
    budget: Optional[Budget] = None
    # benchmark.yaml ``network`` (arms' commands may reach the network in their sandbox) and ``tools`` (tools
    # arms may use beyond the guard's table).
    network: bool = False
    tools: tuple[str, ...] = ()
    pilot: bool = False  # plan --pilot: one trial per arm per case (issue 41)

    @property
    def trials(self) -> int:
        """Trials per case: 5, or 1 for a pilot."""
        from ...model import PILOT_TRIALS, TRIALS
        return PILOT_TRIALS if self.pilot else TRIALS

    # The OS sandbox the arms' commands run in (plan's smoke run found it; None when the user opted out), and
    # it in words for run.json (NOT_SANDBOXED for the opt-out; None until plan chose).
    sandbox: Optional[Sandbox] = None
    sandbox_words: Optional[str] = None
    confirm: bool = False  # benchmark.yaml confirm_judgments
    # benchmark.yaml ``requires`` (commands the arms need, run in their sandbox before launch), and what the
    # arms' toolchain was found to be there, in words for run.json (issue 37).
    requires: tuple[str, ...] = ()
    toolchain_words: Optional[str] = None


def choose_skills(root: Path, names: list[str], every: bool) -> tuple[list[SkillInfo], list[str]]:
    """(the skills to plan, the names of skills with no tests that ``--all`` leaves out), their tests checked;
    an error that names the fix when a name is unknown or a skill has no tests."""
    skills = discover_skills(root)
    if not every and not names:
        tested = [s.name for s in skills.values() if case_dirs(root, s)]
        raise BenchError(None, "which skill? plan needs a skill name, or --all"
                         + (f"; skills with tests: {', '.join(tested)}" if tested else "; no skill has tests yet"),
                         fix=(f"benchcore plan {tested[0]}   (or: benchcore plan --all)" if tested else
                              "write cases in tests/<skill path>/01-<case>/case.md first (see docs/case-format.md)"))
    untested: list[str] = []
    if every:
        chosen = [s for s in skills.values() if case_dirs(root, s)]
        untested = [s.name for s in skills.values() if not case_dirs(root, s)]
        if not chosen:
            raise BenchError(str(root / "tests"), "no skill has tests", fix="add tests/<skill path>/<case>/case.md")
    else:
        chosen = _pick(root, skills, names)
        for s in chosen:
            if not case_dirs(root, s):
                raise BenchError(s.tests_path, f"the skill {s.name!r} has no tests",
                                 fix=f"add {s.tests_path}/01-<case>/case.md (see docs/case-format.md)")
    _check_tree(root, chosen, whole=every)
    return chosen, untested


def _pick(root: Path, skills: dict[str, SkillInfo], wanted: list[str]) -> list[SkillInfo]:
    out: list[SkillInfo] = []
    for name in wanted:
        key = name.strip("/").removeprefix("skills/")
        if key in skills:
            hit = skills[key]
        else:
            by_path = [s for s in skills.values() if s.path in (f"skills/{key}", name.strip("/"))]
            if not by_path:
                raise unknown_skill(root, skills, name)
            hit = by_path[0]
        if hit not in out:
            out.append(hit)
    return out


KNOWN_SHOWN = 20  # names listed after "known skills:" (validate lists every one)


def unknown_skill(root: Path, skills: dict[str, SkillInfo], name: str) -> BenchError:
    """A name that is no skill: the closest names (never resolved silently: a near name may be the wrong skill),
    the skills there are, and where this repository keeps them."""
    import difflib

    key = name.strip("/").rsplit("/", 1)[-1]
    names = list(skills)
    near = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    near += [n for n in names if key.lower() in n.lower() and n not in near][:3 - len(near)]
    known = ", ".join(names[:KNOWN_SHOWN]) or "none"
    if len(names) > KNOWN_SHOWN:
        known += f" ... ({len(names) - KNOWN_SHOWN} more: benchcore validate lists them)"
    roots = [r.path + "/" for r in skill_roots(root)] or ["skills/"]
    where = " or ".join(roots)
    if near:
        return BenchError(None, f"no skill is named {name!r}; did you mean " + " or ".join(repr(n) for n in near)
                          + f"? (known skills: {known})",
                          fix=f"name the skill exactly, e.g. 'benchcore plan {near[0]}' (a skill's name is its "
                              f"folder's name under {where})")
    return BenchError(None, f"no skill is named {name!r}; known skills: {known}",
                      fix=f"name a skill by its folder name under {where}"
                          + ("" if names else f"; this repository has none yet: write {roots[0]}<name>/SKILL.md"))


def _check_tree(root: Path, chosen: list[SkillInfo], whole: bool) -> None:
    report = validate_tree(root)
    mine = []
    for p in report.problems:
        path = p.path or ""
        if whole or any(path == s.tests_path or path.startswith(s.tests_path + "/") or
                        path.startswith(s.path + "/") or path == s.path for s in chosen):
            mine.append(p)
    raise_all(mine)  # every problem, most important first, each with its file:line and fix


def decide(root: Path, skill: SkillInfo, branch: git.DefaultBranch, calibrate: bool = False) -> Decision:
    """The run to plan for ``skill``: its shape from the default branch, or a calibration when asked."""
    cases = load_cases(root, skill)
    opts = load_options(root, skill)
    if calibrate:
        return _decision(skill, cases, opts, "calibration",
                         f"calibration: two independent copies of {skill.path} as it is now, judged against each "
                         "other, measure how often the judges pick a winner between equal outputs")
    exists, changed = git.skill_changed(root, branch.commit, skill.path)
    at = f"{branch.name} ({branch.commit[:7]})"
    held = git.previous_contents(root, branch.commit, skill.path) if not exists else []
    if not exists and held == [""]:
        shape, why = "two-arm", (f"no previous version: {skill.path} is a file, not a skill folder, on the default "
                                 f"branch {at}")
    elif not exists and held:
        shape, why = "two-arm", (f"no previous version: {skill.path} on the default branch {at} has no SKILL.md "
                                 f"(it holds only {', '.join(held[:3])}{' ...' if len(held) > 3 else ''}), "
                                 f"so there is no released skill to compare against")
    elif not exists:
        shape, why = "two-arm", f"new skill: {skill.path} is not on the default branch {at}, so there is no previous version"
    elif not changed:
        shape, why = "two-arm", f"unchanged: {skill.path} is the same as on the default branch {at}, so previous would equal new"
    else:
        shape, why = "three-arm", f"edited released skill: {skill.path} differs from the default branch {at}"
    return _decision(skill, cases, opts, shape, why)


def _decision(skill: SkillInfo, cases, opts: dict, shape: str, why: str) -> Decision:
    models = tuple(opts.get("models") or (None,))
    budget = None
    if "budget_tokens" in opts or "budget_usd" in opts:
        budget = Budget(raw_tokens=opts.get("budget_tokens"), usd=opts.get("budget_usd"),
                        source=f"{skill.tests_path}/benchmark.yaml")
    return Decision(skill, cases, float(opts["temperature"]), shape, why, models, opts.get("judge_model"), budget,
                    bool(opts.get("network")), tuple(opts.get("tools") or ()),
                    confirm=bool(opts.get("confirm_judgments")),  # a calibration confirms too: measured, not assumed
                    requires=tuple(opts.get("requires") or ()))


def baseline_agent(root: Path, override: Optional[str]) -> Optional[str]:
    if override is not None:
        return override or None
    return installed_agent(root, BASELINE_AGENT)


def missing_agent_types(root: Path, baseline_override: Optional[str]) -> tuple[str, ...]:
    """The benchmark's agent types a new run would launch that Claude Code has not loaded: ``bench-arm`` (unless
    the user named the arms' type with --baseline-agent) and ``bench-judge``. An agent file written now is not
    read until Claude Code starts again, so plan cannot put them in place for this session."""
    wanted = ([] if baseline_override is not None else [BASELINE_AGENT]) + [JUDGE_AGENT]
    return tuple(name for name in wanted if installed_agent(root, name) is None)


def require_agent_types(root: Path, baseline_override: Optional[str], command: str) -> None:
    """Stop before anything is built when the benchmark's agent types are not installed: Claude Code reads an agent
    file only when a session starts, so they must be put in place, and Claude Code restarted, before the run."""
    missing = missing_agent_types(root, baseline_override)
    if not missing:
        return
    agents_dir = shlex.quote(str(find_skill_dir(root) / "agents"))
    names = " and ".join(missing)
    who = "every arm, the baseline included," if BASELINE_AGENT in missing else "the judges"
    what = ("with the Skill tool and your CLAUDE.md" if BASELINE_AGENT in missing
            else "with tools, which collect then re-asks")
    raise BenchError(
        None, f"the benchmark's agent type{'s' if len(missing) > 1 else ''} {names} "
              f"{'are' if len(missing) > 1 else 'is'} not installed (not in .claude/agents/, the user's agents "
              f"folder or an enabled plugin), so {who} would run as Claude Code's default type, {what}; "
              f"nothing was planned",
        fix=f"mkdir -p .claude/agents && cp {agents_dir}/*.md .claude/agents/ ; then restart Claude Code (it reads "
            f"agent types only when a session starts) and type {command} again. To run as the default type "
            f"anyway: plan with --default-agent-type (the verdict then says the baseline may have known of the skill)")


def installed_agent(root: Path, name: str) -> Optional[str]:
    """Claude Code's name for the agent type ``name`` as installed (``bench-baseline``, or
    ``<plugin>:bench-baseline`` from a plugin; the rule is in harness/claude/agents.py), or None."""
    used = os.environ.get("BENCHMARK_SKILL_DIR")  # the skill folder the wrapper ran from
    return agents.installed_agent_type(name, root, Path(used) if used else None)


def with_budget_flag(decisions: list[Decision], tokens: Optional[int], usd: Optional[float]) -> list[Decision]:
    """The decisions with plan's ``--budget-tokens`` / ``--budget-usd`` in place of benchmark.yaml's budget."""
    if tokens is None and usd is None:
        return decisions
    if (tokens is not None and tokens <= 0) or (usd is not None and not usd > 0):
        raise BenchError(None, "a budget must be a positive number",
                         fix="pass e.g. --budget-tokens 2000000 or --budget-usd 5")
    flag = Budget(raw_tokens=tokens, usd=usd, source="plan flag")
    return [evolve(d, budget=flag) for d in decisions]
