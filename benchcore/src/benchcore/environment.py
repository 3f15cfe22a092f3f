"""The environment card: what each arm shared with the session and what was sealed, from transcript evidence."""

from __future__ import annotations

import re

from typing import Iterable, Optional

from attrs import frozen

GUARD_COMMAND = "benchcore guard"  # the benchmark's own PreToolUse hook, told apart from the user's
SHARED, SEALED, INFO = "shared", "sealed", "info"
# run.json ``sandbox`` when the user opted out of the OS sandbox (plan --no-sandbox).
NOT_SANDBOXED = "none: plan --no-sandbox"


@frozen
class CellEvidence:
    """What one arm cell's transcript shows of its environment (``environment.json`` ``cells``)."""

    cell: str
    arm: str
    agent_type: Optional[str] = None
    versions: tuple[str, ...] = ()  # the records' ``version``
    models: tuple[str, ...] = ()  # assistant ``message.model``
    efforts: tuple[str, ...] = ()  # api-request ``params.output_config.effort``
    permission_modes: tuple[str, ...] = ()  # a record's ``permissionMode``; ``auto_mode`` with ``bypass``
    claude_md: tuple[str, ...] = ()  # ``instructions`` attachment files, "<type>: <path>"
    hooks: tuple[str, ...] = ()  # ``hook_*`` attachments, "<event>: <command>"
    mcp_tools: tuple[str, ...] = ()  # ``mcp__`` tools offered (deferred_tools_delta, api-request-shape)
    git_status: Optional[str] = None  # ``session_context`` gitStatus's "Status:" lines; None: not in context
    skills: tuple[str, ...] = ()  # ``skill_listing`` names
    session: Optional[str] = None  # the records' ``sessionId``: the orchestrating session


@frozen
class SessionEvidence:
    """The orchestrating session's own transcript: the permission modes its records carry."""

    session: str
    permission_modes: tuple[str, ...] = ()


@frozen
class SettingsFile:
    """What one settings file Claude Code loads says about the arms' environment, as read at collect."""

    path: str  # as shown: ".claude/settings.json", "~/.claude/settings.json"
    hooks: tuple[str, ...] = ()  # "<event>: <command>"
    default_mode: Optional[str] = None  # permissions.defaultMode
    mcp_servers: tuple[str, ...] = ()  # enabledMcpjsonServers
    include_git_instructions: Optional[bool] = None


@frozen
class EnvironmentEvidence:
    """``environment.json`` in the run folder, written by collect."""

    cells: tuple[CellEvidence, ...] = ()
    settings: tuple[SettingsFile, ...] = ()
    schema: int = 1
    sessions: tuple[SessionEvidence, ...] = ()  # the sessions the cells name whose transcript was found


@frozen
class CardLine:
    """One fact of the card: its value (per arm where arms differ), where it was read, and whether the arms
    shared it with the session (``shared``), had it kept from them (``sealed``), or it is a plain fact (``info``)."""

    key: str
    label: str
    value: str
    source: str
    status: str = INFO


@frozen
class EnvironmentCard:
    lines: tuple[CardLine, ...] = ()


# --------------------------------------------------------------------------
# evidence from one transcript's records


def _git_status_lines(text: str) -> str:
    """The "Status:" section of Claude Code's gitStatus text ("(clean)" or the porcelain lines)."""
    if "Status:\n" not in text:
        return text.strip("\n")
    section = text.split("Status:\n", 1)[1]
    return section.split("\n\nRecent commits", 1)[0].strip("\n")  # porcelain lines keep their leading space


def _attachment(a: dict, found: dict) -> None:
    kind = a.get("type")
    if kind == "instructions":
        for f in a.get("files") or ():
            if isinstance(f, dict) and isinstance(f.get("path"), str):
                found["claude_md"].add(f"{f.get('type') or 'file'}: {f['path']}")
    elif isinstance(kind, str) and kind.startswith("hook_") and isinstance(a.get("hookEvent"), str):
        command = a.get("command")
        if isinstance(command, str) and command:
            found["hooks"].add(f"{a['hookEvent']}: {command}")
        else:  # hook_additional_context and the like: the hook's own record names its command
            found["hook_events"].add(a["hookEvent"])
    elif kind == "deferred_tools_delta":
        found["mcp"].update(n for n in a.get("addedNames") or () if isinstance(n, str) and n.startswith("mcp__"))
    elif kind == "session_context":
        git = (a.get("context") or {}).get("gitStatus")
        if isinstance(git, str) and found["git"] is None:
            found["git"] = _git_status_lines(git)
    elif kind == "skill_listing":
        found["skills"].update(n for n in a.get("names") or () if isinstance(n, str))
    elif kind == "auto_mode" and a.get("bypass") is True:
        found["modes"].add("bypassPermissions")


def cell_evidence(cell: str, arm: str, agent_type: Optional[str], records: Iterable[dict]) -> CellEvidence:
    """One cell's evidence from its transcript's records, read once in order (a stream, never a list)."""
    found: dict = {k: set() for k in ("versions", "models", "efforts", "modes", "claude_md", "hooks", "mcp",
                                      "skills", "hook_events")}
    found["git"] = found["session"] = None
    for rec in records:
        if found["session"] is None and isinstance(rec.get("sessionId"), str):
            found["session"] = rec["sessionId"]
        if isinstance(rec.get("version"), str):
            found["versions"].add(rec["version"])
        if isinstance(rec.get("permissionMode"), str):
            found["modes"].add(rec["permissionMode"])
        kind = rec.get("type")
        if kind == "assistant":
            model = (rec.get("message") or {}).get("model")
            if isinstance(model, str) and model != "<synthetic>":
                found["models"].add(model)
        elif kind == "api-request":
            effort = ((rec.get("params") or {}).get("output_config") or {}).get("effort")
            if isinstance(effort, str):
                found["efforts"].add(effort)
        elif kind == "api-request-shape":
            for tool in (rec.get("shape") or {}).get("tools") or ():
                name = tool.get("name") if isinstance(tool, dict) else None
                if isinstance(name, str) and name.startswith("mcp__"):
                    found["mcp"].add(name)
        elif kind == "attachment" and isinstance(rec.get("attachment"), dict):
            _attachment(rec["attachment"], found)
    hooks = found["hooks"] | {e for e in found["hook_events"] if not any(h.startswith(e + ": ") for h in found["hooks"])}
    s = lambda k: tuple(sorted(found[k]))  # noqa: E731
    return CellEvidence(cell=cell, arm=arm, agent_type=agent_type, versions=s("versions"), models=s("models"),
                        efforts=s("efforts"), permission_modes=s("modes"), claude_md=s("claude_md"),
                        hooks=tuple(sorted(hooks)), mcp_tools=s("mcp"), git_status=found["git"], skills=s("skills"),
                        session=found["session"])


def session_evidence(session: str, records: Iterable[dict]) -> SessionEvidence:
    """The permission modes the orchestrating session's records carry (its prompt records have them)."""
    modes = {r["permissionMode"] for r in records if isinstance(r.get("permissionMode"), str)}
    return SessionEvidence(session=session, permission_modes=tuple(sorted(modes)))


# --------------------------------------------------------------------------
# the card (pure: evidence in, lines out)

MAX_LISTED = 8


def is_guard(hook: str) -> bool:
    """The benchmark's own hook, not one of the user's: ``sh '<benchmark-skill>/scripts/guard' '<temp base>'`` as
    plan installs it, or ``benchcore guard`` run by hand."""
    return (GUARD_COMMAND in hook or ("benchcore" in hook and hook.rstrip().endswith(" guard"))
            or re.search(r"benchmark-skill/scripts/guard'? ", hook) is not None)


def _listed(items, empty: str = "none") -> str:
    items = list(items)
    if not items:
        return empty
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def _cells(n: int) -> str:
    return f"{n} cell" if n == 1 else f"{n} cells"


def _from_transcripts(k: int, n: int) -> str:
    return f"transcripts: {k} of {_cells(n)}"


def _per_arm(by_arm: dict, value) -> str:
    """One value when every arm has the same, else "arm: value" for each arm in order."""
    values = {arm: value(cells) for arm, cells in by_arm.items()}
    if len(set(values.values())) == 1:
        one = next(iter(values.values()))
        # A count ("in 4 of 5") is the arm's own: said once for all, it is said of each.
        return f"each arm: {one}" if len(values) > 1 and " of " in one else one
    return "; ".join(f"{arm}: {v}" for arm, v in values.items())


def _union(cells, field: str) -> list[str]:
    return sorted({x for c in cells for x in getattr(c, field)})


def _in_some(cells, field: str, what: str, name=lambda x: x) -> str:
    """What the arm's cells show (their union, each as ``name`` words it), with how many of them show it when not
    all do."""
    have = [c for c in cells if getattr(c, field)]
    if not have:
        return "not recorded"
    listed = _listed(sorted({name(x) for x in _union(have, field)}))
    return listed if len(have) == len(cells) else f"{listed} ({what} {len(have)} of {len(cells)})"


def _settings_source(files) -> str:
    return "settings: " + ", ".join(f.path for f in files)


def _status(shared: bool) -> str:
    return SHARED if shared else SEALED


def _git_paths(status: str) -> list[str]:
    return [line[3:].strip() for line in status.splitlines() if len(line) > 3 and line[2] == " "]


def git_status_lines(text: str) -> str:
    """The "Status:" lines of Claude Code's gitStatus text (``session_context``), as the card shows them."""
    return _git_status_lines(text)


def paths_naming_skill(status: str, skill_path: str) -> list[str]:
    """The paths of git status lines (the "Status:" section) that lie in the skill's folder, so name it."""
    prefix = skill_path.rstrip("/") + "/"
    return sorted({p for p in _git_paths(status) if p.rstrip("/") == skill_path.rstrip("/") or p.startswith(prefix)})


def baseline_caveats(evidence: Optional["EnvironmentEvidence"], skill_path: str, planned: Iterable[str],
                     baseline_types: Iterable[str]) -> tuple[str, ...]:
    """Why the baseline arm may not have been blind to the skill under test, in words: its transcripts' git
    status named the skill's files (else what plan found before launch, ``planned``), or it ran as an agent
    type that is not the benchmark's (which keeps the Skill tool and the user's CLAUDE.md)."""
    out: list[str] = []
    seen = sorted({p for c in (evidence.cells if evidence else ()) if c.arm == "baseline" and c.git_status
                   for p in paths_naming_skill(c.git_status, skill_path)})
    if seen:
        out.append(f"the baseline's git status named {_listed(seen)}")
    else:
        out.extend(planned)
    other = sorted({t for t in baseline_types if t != "unknown" and not t.rsplit(":", 1)[-1].startswith("bench-")})
    if other:
        out.append(f"the baseline ran as {', '.join(other)}, not the benchmark's agent type (so with the Skill "
                   f"tool and CLAUDE.md)")
    return tuple(out)


def _git_value(cells, skill_path: str) -> str:
    shown = [c for c in cells if c.git_status is not None]
    if not shown:
        return "not in context"
    paths = sorted({p for c in shown for p in _git_paths(c.git_status)})
    prefix = skill_path.rstrip("/") + "/"
    names_skill = [p for p in paths if p == skill_path or p.startswith(prefix) or prefix.startswith(p.rstrip("/") + "/")]
    what = "clean" if not paths else _listed(paths)
    count = "" if len(shown) == len(cells) else f" in {len(shown)} of {len(cells)}"
    tail = f", naming the edited skill ({', '.join(names_skill)})" if names_skill else ""
    return f"in context{count}: {what}{tail}"


def _hooks_value(cells) -> str:
    guard = sum(1 for c in cells if any(is_guard(h) for h in c.hooks))
    others = sorted({h for c in cells for h in c.hooks if not is_guard(h)})
    parts = []
    if guard:
        parts.append(f"the benchmark's guard in {guard} of {_cells(len(cells))}")
    if others or guard:
        parts.append(f"others: {_listed(others)}" if others else "no others")
    return ", ".join(parts) or "none recorded"


# Claude Code's own names for its permission modes, as its status line and /permissions show them (2.1.328:
# "default mode is shown as 'manual mode'"); the transcripts and settings hold the ids on the left.
MODE_NAMES = {"default": "manual mode", "auto": "auto mode", "acceptEdits": "accept edits mode", "plan": "plan mode",
              "bypassPermissions": "bypass permissions mode", "dontAsk": "don't ask mode"}


def mode_name(mode: str) -> str:
    """A permission mode as Claude Code names it to the user ("manual mode" for ``default``); an id it does not
    know, as recorded."""
    return MODE_NAMES.get(mode, mode)


def _permission_line(by_arm: dict, cells, evidence: EnvironmentEvidence) -> CardLine:
    have = [c for c in cells if c.permission_modes]
    if have:
        return CardLine("permission_mode", "Permission mode",
                        _per_arm(by_arm, lambda cs: _in_some(cs, "permission_modes", "in", mode_name)),
                        _from_transcripts(len(have), len(cells)))
    sessions = [s for s in evidence.sessions if s.permission_modes]
    if sessions:
        named = {c.session for c in cells if c.session}
        modes = _listed(sorted({mode_name(m) for s in sessions for m in s.permission_modes}))
        return CardLine("permission_mode", "Permission mode", f"{modes} (the orchestrating session's; the arm "
                        "transcripts do not record it)", f"session transcripts: {len(sessions)} of {len(named)}")
    # Claude Code's precedence: local project settings, then shared project settings, then the user's.
    for f in evidence.settings:
        if f.default_mode:
            return CardLine("permission_mode", "Permission mode", f"{mode_name(f.default_mode)} (the settings' default; "
                            "the transcripts do not record it)", f"settings: {f.path}")
    return CardLine("permission_mode", "Permission mode", "not recorded", _from_transcripts(0, len(cells)))


def sandbox_card(card: Optional[EnvironmentCard], sandbox: Optional[str]) -> Optional[EnvironmentCard]:
    """The card with its OS sandbox line (run.json ``sandbox``: what plan found and smoke-ran, or the user's
    opt-out); unchanged for a run planned before the sandbox."""
    if sandbox is None:
        return card
    off = sandbox == NOT_SANDBOXED
    line = CardLine("sandbox", "OS sandbox for arms' commands",
                    "not sandboxed (plan --no-sandbox): the arms were not confined; their commands ran as you and "
                    "could reach anything you can, checked only by parsing" if off
                    else f"{sandbox}; it replaces your permission mode's per-call check for the arms' commands "
                    "(auto mode's safety check included)", "run.json", SHARED if off else SEALED)
    return EnvironmentCard(((card.lines if card else ()) + (line,)))


def toolchain_card(card: Optional[EnvironmentCard], toolchain: Optional[str]) -> Optional[EnvironmentCard]:
    """The card with what the arms' toolchain was (run.json ``toolchain``: the interpreter and test runner plan
    found in the arms' sandbox, and the benchmark.yaml ``requires:`` commands it ran there); unchanged for a
    run planned before."""
    if toolchain is None:
        return card
    line = CardLine("toolchain", "Arms' toolchain (found in their sandbox at plan)", toolchain, "run.json", INFO)
    return EnvironmentCard(((card.lines if card else ()) + (line,)))


def environment_card(evidence: Optional[EnvironmentEvidence], arms: tuple[str, ...], skill: str,
                     skill_path: str) -> Optional[EnvironmentCard]:
    """The card's lines from every collected cell's evidence and the settings files read at collect; None
    when there is no evidence (a run collected before environment.json, or no cell collected)."""
    if evidence is None:
        return None
    cells = [c for c in evidence.cells if c.arm in arms]
    by_arm = {arm: [c for c in cells if c.arm == arm] for arm in arms if any(c.arm == arm for c in cells)}
    n = len(cells)
    if not n:
        return None
    count = lambda field: sum(1 for c in cells if getattr(c, field))  # noqa: E731
    settings = evidence.settings
    lines = [
        CardLine("cli_version", "Claude Code version", _listed(_union(cells, "versions"), "not recorded"),
                 _from_transcripts(count("versions"), n)),
        CardLine("agent_type", "Agent type", _per_arm(by_arm, lambda cs: _listed(
            sorted({c.agent_type for c in cs if c.agent_type}), "not recorded")),
            f"meta.json: {count('agent_type')} of {_cells(n)}"),
        CardLine("model", "Model", _per_arm(by_arm, lambda cs: _in_some(cs, "models", "in")),
                 _from_transcripts(count("models"), n)),
        CardLine("effort", "Effort", _per_arm(by_arm, lambda cs: _in_some(cs, "efforts", "in")),
                 _from_transcripts(count("efforts"), n)),
        _permission_line(by_arm, cells, evidence),
        CardLine("claude_md", "CLAUDE.md", _per_arm(by_arm, lambda cs: "omitted" if not any(c.claude_md for c in cs)
                                                    else "loaded: " + _in_some(cs, "claude_md", "in")),
                 _from_transcripts(count("claude_md"), n), _status(count("claude_md") > 0)),
        CardLine("hooks", "Hooks that ran", _per_arm(by_arm, _hooks_value), _from_transcripts(count("hooks"), n),
                 _status(any(not is_guard(h) for c in cells for h in c.hooks))),
    ]
    if settings:
        configured = sorted({f"{h} ({f.path})" for f in settings for h in f.hooks if not is_guard(h)})
        guard = any(is_guard(h) for f in settings for h in f.hooks)
        lines.append(CardLine("hooks_configured", "Hooks configured (a hook that prints nothing leaves no record)",
                              _listed(configured, "only the benchmark's guard" if guard else "none"),
                              _settings_source(settings), _status(bool(configured))))
    mcp = _per_arm(by_arm, lambda cs: _listed(_union(cs, "mcp_tools")))
    servers = sorted({f"{s} ({f.path})" for f in settings for s in f.mcp_servers})
    if servers:
        mcp += f"; servers enabled in settings: {_listed(servers)}"
    lines.append(CardLine("mcp_tools", "MCP tools offered", mcp,
                          _from_transcripts(count("mcp_tools"), n) + ("; " + _settings_source(settings) if servers else ""),
                          _status(count("mcp_tools") > 0)))
    shown = sum(1 for c in cells if c.git_status is not None)
    git_source = _from_transcripts(shown, n)
    for f in settings:
        if f.include_git_instructions is not None:
            git_source += f"; settings: {f.path} includeGitInstructions {str(f.include_git_instructions).lower()}"
            break
    lines.append(CardLine("git_status", "Repository git status", _per_arm(by_arm, lambda cs: _git_value(cs, skill_path)),
                          git_source, _status(shown > 0)))

    def skills_value(cs) -> str:
        names = _union(cs, "skills")
        return _listed(names) + (f" (including {skill} itself)" if skill in names else "")
    lines.append(CardLine("skills", "Other skills visible", _per_arm(by_arm, skills_value),
                          _from_transcripts(count("skills"), n), _status(count("skills") > 0)))
    return EnvironmentCard(lines=tuple(lines))
