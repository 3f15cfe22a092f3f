"""What the benchmark sets in Claude Code for itself, so a run asks no permission per cell (I/O).

Arms work in worlds outside the repository (a world inside it would put the
arm in the user's project). In Claude Code's default permission mode every
Read, ``ls`` or ``cat`` outside the session's working directories asks the
user, so a run asked once per arm cell at least (measured on the real CLI:
"Read file · from the "bench-fanout" workflow" for each with-skill arm's copy
of the skill, "Bash command" for each look at a world). A folder listed in
``permissions.additionalDirectories`` is a working directory: reads and
read-only commands there ask nothing, and Claude Code picks a change to the
settings file up in the running session (measured: written by ``plan``, no
cell asked; the session notes "Additional working directories added").

The benchmark's own commands (``collect``, ``render``, ``clean`` after the
``plan`` the user approved) are allowed by the rule Claude Code itself writes
when the user picks "Yes, and don't ask again": ``Bash(<wrapper> <command> *)``
for the wrapper path the session runs (``$BENCHCORE_COMMAND``, which the
wrapper sets).

Both go into the project's ``.claude/settings.local.json`` (the per-user,
uncommitted file Claude Code writes such rules to), only where no settings
file has them yet, and ``plan`` says what it added. Nothing else is granted:
edits and commands that change a world, and git in a world (Claude Code flags
version control in another folder), still ask in default mode, as they would
in the project.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path
from typing import Optional, Sequence

from ...errors import BenchError
from .agents import config_dir
from ..store.files import read_json_object as _load, write_atomic

LOCAL = Path(".claude") / "settings.local.json"
GUARD_READ_WITHIN = 5.0  # seconds: the longest plan waits to see Claude Code read the settings file
UNSEEN_READ = 3.0  # seconds: where a read can be seen neither by atime nor by inotify, over twice the 1.0-1.2 s measured
COMMANDS = ("plan", "collect", "render", "clean")
# The guard hook's timeout in its settings entry, seconds: past it Claude Code would run the call undecided, so
# the guard's own deadline (guard.WAIT_SECONDS, waiting for a subagent's transcript under load) stays inside it.
HOOK_TIMEOUT = 60


def _perm_list(data: dict, key: str) -> list:
    perms = data.get("permissions")
    value = perms.get(key) if isinstance(perms, dict) else None
    return value if isinstance(value, list) else []


def _covers(dirs: list, folder: Path, repo_root: Path) -> bool:
    for d in dirs:
        if not isinstance(d, str) or not d:
            continue
        p = Path(os.path.expanduser(d))
        p = p if p.is_absolute() else repo_root / p
        try:
            p = p.resolve()
        except OSError:
            continue
        if folder == p or folder.is_relative_to(p):
            return True
    return False


def _write(target: Path, text: str) -> None:
    """A new file is written atomically (temp file + rename). An existing one is rewritten in place: Claude
    Code watches the file it loaded, and a rename puts a new file under the name, whose change the running
    session did not see (measured: every arm cell asked again)."""
    if not target.exists():
        write_atomic(target, text)
        return
    data = text.encode("utf-8")
    with open(target, "r+b") as fh:
        fh.write(data)
        fh.truncate(len(data))
        fh.flush()
        os.fsync(fh.fileno())


def command_rules(command: Optional[str]) -> list[str]:
    """The allow rules for the benchmark's own commands, as Claude Code writes them for "don't ask again"."""
    if not command or any(c in command for c in "()\n*"):
        return []
    return [f"Bash({command} {sub} *)" for sub in COMMANDS]


def guard_command(skill_dir: Optional[str], base: Path) -> Optional[str]:
    """The guard hook's command line: the skill's ``scripts/guard`` with the temp base (None without the skill
    folder, as when benchcore runs outside the skill's wrapper)."""
    if not skill_dir:
        return None
    script = Path(skill_dir) / "scripts" / "guard"
    # Run through sh: a copy that lost its executable bit (an unpacked plugin) still runs.
    return f"sh {shlex.quote(str(script))} {shlex.quote(str(Path(base).resolve()))}" if script.is_file() else None


def _hook_commands(data: dict) -> list[str]:
    out = []
    entries = (data.get("hooks") or {}).get("PreToolUse") if isinstance(data.get("hooks"), dict) else None
    for entry in entries if isinstance(entries, list) else []:
        for h in (entry.get("hooks") if isinstance(entry, dict) else None) or []:
            if isinstance(h, dict) and isinstance(h.get("command"), str):
                out.append(h["command"])
    return out


def _add_hook(data: dict, command: str) -> bool:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.setdefault("PreToolUse", []), list):
        return False
    hooks["PreToolUse"].append({"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]})
    return True


def guard_hooks(repo_root: Path, base: Path) -> list[str]:
    """The benchmark's guard hooks for ``base`` in ``.claude/settings.local.json``, whatever install's
    ``scripts/guard`` they run (``clean`` run from a shell, or from another install, still finds them)."""
    target = repo_root / LOCAL
    if target.is_symlink() or not target.is_file():
        return []
    tail = f"/scripts/guard {shlex.quote(str(Path(base).resolve()))}"
    return [c for c in _hook_commands(_load(target)) if c.startswith("sh ") and
            (c.endswith(tail) or c.replace("'", "").endswith(tail.replace("'", "")))]


def remove_guard(repo_root: Path, command: Optional[str]) -> bool:
    """Take the guard hook ``command`` out of ``.claude/settings.local.json`` (``clean``, when no run is left
    active); True when it was there. Every other setting stays."""
    target = repo_root / LOCAL
    if not command or target.is_symlink() or not target.is_file():
        return False
    data = _load(target)
    entries = (data.get("hooks") or {}).get("PreToolUse") if isinstance(data.get("hooks"), dict) else None
    if not isinstance(entries, list):
        return False
    kept = [e for e in entries if not (isinstance(e, dict) and [h.get("command") for h in e.get("hooks") or []
                                                                if isinstance(h, dict)] == [command])]
    if len(kept) == len(entries):
        return False
    if kept:
        data["hooks"]["PreToolUse"] = kept
    else:
        del data["hooks"]["PreToolUse"]
        if not data["hooks"]:
            del data["hooks"]
    _write(target, json.dumps(data, indent=2) + "\n")
    return True


def remove_grant(repo_root: Path, folder: Path) -> bool:
    """Take ``folder`` (a run's own temp root, granted under a ``--temp-dir`` of the user's) out of
    ``additionalDirectories`` in ``.claude/settings.local.json`` (``clean``); True when it was there."""
    target = repo_root / LOCAL
    if target.is_symlink() or not target.is_file():
        return False
    data = _load(target)
    perms = data.get("permissions")
    dirs = perms.get("additionalDirectories") if isinstance(perms, dict) else None
    if not isinstance(dirs, list):
        return False
    gone = {str(folder), str(Path(folder).resolve())}
    kept = [d for d in dirs if d not in gone]
    if len(kept) == len(dirs):
        return False
    perms["additionalDirectories"] = kept
    _write(target, json.dumps(data, indent=2) + "\n")
    return True


def allow_benchmark(repo_root: Path, folder: Path | Sequence[Path], command: Optional[str],
                    config: Optional[Path] = None, guard: Optional[str] = None) -> str:
    """Make ``folder`` (benchcore's own temp base holding every run's worlds; or, under a ``--temp-dir`` of the
    user's, each run's own temp root, never the whole folder) a working directory and allow the benchmark's own
    commands, in ``.claude/settings.local.json``, where no settings file has them yet; return the line to print
    (empty when nothing was missing). A settings file Claude Code could not read is left alone: the line then
    says what to add by hand. Every other setting stays as it was."""
    config = config_dir() if config is None else config
    folders = [Path(f).resolve() for f in ([folder] if isinstance(folder, (str, Path)) else folder)]
    files = [repo_root / LOCAL, repo_root / ".claude" / "settings.json", config / "settings.json"]
    loaded = [_load(f) for f in files]
    need_dirs = [f for f in folders
                 if not any(_covers(_perm_list(d, "additionalDirectories"), f, repo_root) for d in loaded)]
    need_dir = bool(need_dirs)
    have = {r for d in loaded for r in _perm_list(d, "allow") if isinstance(r, str)}
    need_rules = [r for r in command_rules(command) if r not in have]
    need_guard = bool(guard) and not any(guard in _hook_commands(d) for d in loaded)
    if not need_dir and not need_rules and not need_guard:
        return ""
    wanted = ([f'"additionalDirectories": {json.dumps([str(f) for f in need_dirs])}'] if need_dir else []) + \
             ([f'"allow": {json.dumps(need_rules)}'] if need_rules else []) + \
             ([f'a "PreToolUse" hook running {guard}'] if need_guard else [])
    by_hand = (f"add {', '.join(wanted)} under \"permissions\" in {LOCAL} yourself, or expect permission dialogs "
               "for each arm's reads and for benchcore's commands")
    target = repo_root / LOCAL
    data: dict = {}
    if target.exists() or target.is_symlink():
        if target.is_symlink() or not target.is_file():
            return f"note: {LOCAL} is not a plain file, so benchcore left it alone; {by_hand}"
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return f"note: {LOCAL} is not valid JSON ({exc}), so benchcore left it alone; {by_hand}"
        perms = data.get("permissions", {}) if isinstance(data, dict) else None
        if not isinstance(perms, dict) or not all(isinstance(perms.get(k, []), list)
                                                  for k in ("additionalDirectories", "allow")):
            return f"note: {LOCAL} does not have the shape Claude Code reads, so benchcore left it alone; {by_hand}"
    perms = data.setdefault("permissions", {})
    if need_dir:
        perms.setdefault("additionalDirectories", []).extend(str(f) for f in need_dirs)
    if need_rules:
        perms.setdefault("allow", []).extend(need_rules)
    if need_guard and not _add_hook(data, guard):
        return f"note: {LOCAL} has \"hooks\" of a shape Claude Code does not read, so benchcore left it alone; {by_hand}"
    with OpenWatch(target) as opened:  # watching before the write: a re-read right after it is seen too
        _write(target, json.dumps(data, indent=2) + "\n")
        opened.start()  # _write rewrote the file in place: its own open is no re-read
        if need_guard:
            await_reread(target, opened=opened)
    what = ([f"the worlds folder{'s' if len(need_dirs) > 1 else ''} {', '.join(map(str, need_dirs))} to "
              "additionalDirectories"] if need_dir else []) + \
           ([f"allow rules for benchcore {'/'.join(COMMANDS)}"] if need_rules else []) + \
           (["a hook confining each arm to its world"] if need_guard else [])
    return (f"note: added {' and '.join(what)} in {LOCAL}, so cells ask no permission "
            "(plan --keep-settings skips this)")


def _atime_moves(folder: Path) -> bool:
    """Whether reading a file just written here moves its access time (relatime and strictatime mounts do;
    noatime does not), so a reader's visit can be seen without being one."""
    probe = folder / f".benchcore-atime-{os.getpid()}"
    try:
        probe.write_bytes(b"x")
        before = probe.stat().st_atime_ns
        os.utime(probe, ns=(before - 10_000_000_000, probe.stat().st_mtime_ns))  # atime well before mtime
        before = probe.stat().st_atime_ns
        probe.read_bytes()
        return probe.stat().st_atime_ns != before
    except OSError:
        return False
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


class OpenWatch:
    """Linux's inotify on a file's folder, telling when the file is opened (by any process, on any mount:
    noatime hides a read from the access time, not from inotify). Set up before the file is written (the
    write replaces the file, so its folder is watched, for the file's name); ``seen(timeout)`` says whether an
    open of it came. Where inotify cannot be had (not Linux, no watches left) ``ok`` is false."""

    IN_OPEN = 0x20
    IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000

    def __init__(self, target: Path):
        self.target = target
        self.fd = -1
        self.ok = False
        self.opened = False

    def __enter__(self) -> "OpenWatch":
        if os.environ.get("CLAUDECODE"):  # only a Claude Code session re-reads the file: nothing to watch for else
            try:
                import ctypes
                import ctypes.util

                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                fd = libc.inotify_init1(self.IN_NONBLOCK | self.IN_CLOEXEC)
                if fd >= 0:
                    if libc.inotify_add_watch(fd, os.fsencode(self.target.parent), self.IN_OPEN) >= 0:
                        self.fd, self.ok = fd, True
                    else:
                        os.close(fd)
            except (OSError, AttributeError):
                pass
        return self

    def start(self) -> None:
        """Forget the opens so far (the writer's own)."""
        self._drain()
        self.opened = False

    def _drain(self) -> None:
        import struct

        name = os.fsencode(self.target.name)
        while self.ok:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self.ok = False
                return
            at = 0
            while at + 16 <= len(data):  # struct inotify_event: wd, mask, cookie, len, then name
                _, mask, _, size = struct.unpack_from("iIII", data, at)
                if mask & self.IN_OPEN and data[at + 16:at + 16 + size].rstrip(b"\0") == name:
                    self.opened = True
                at += 16 + size

    def seen(self, timeout: float) -> bool:
        """Whether the file was opened since ``start``, waiting up to ``timeout`` seconds for it."""
        import select

        end = time.monotonic() + timeout
        while self.ok:
            self._drain()
            if self.opened:
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            select.select([self.fd], [], [], left)
        return False

    def __exit__(self, *exc) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd, self.ok = -1, False


def await_reread(target: Path, within: float = GUARD_READ_WITHIN, opened: Optional[OpenWatch] = None
                 ) -> Optional[float]:
    """Return once the running Claude Code session has read ``target`` again after plan changed it, so the
    guard hook is in force before plan's output lets any arm start; the seconds waited, or None when there
    was nothing to wait for or nothing to observe.

    Measured on the real CLI (2.1.328): a hook added to ``.claude/settings.local.json`` mid-session does not
    apply at once; Claude Code re-reads the changed file 1.0-1.2 s after the write, and tool calls made
    before that ran unguarded. The re-read is observed as the file's access time moving past the write
    (the first read after a write moves it on relatime mounts, Linux's default), polled every 20 ms.
    Outside Claude Code (no ``CLAUDECODE`` in the environment: a terminal, a test) no session will read the
    file, so nothing is waited for. Where access times do not move (a noatime mount) the re-read is seen by
    inotify instead (``opened``: an :class:`OpenWatch` set up before the write), with the same bound: no fixed
    wait on Linux, whatever the mount. Only where neither can be had (a noatime mount without inotify) does
    plan wait ``UNSEEN_READ`` seconds, over twice the measured delay."""
    if not os.environ.get("CLAUDECODE"):
        return None
    start = time.monotonic()
    if not _atime_moves(target.parent):
        if opened is None or not opened.ok:
            time.sleep(UNSEEN_READ)
            return None
        return time.monotonic() - start if opened.seen(within) else None
    try:
        st = target.stat()
        if st.st_atime_ns > st.st_mtime_ns:  # a write leaves the access time at or before it: read already
            return time.monotonic() - start
        seen = st.st_atime_ns
        while time.monotonic() - start < within:
            if target.stat().st_atime_ns != seen:
                return time.monotonic() - start
            time.sleep(0.02)
    except OSError:
        return None
    return None


def git_status_reaches_subagents(repo_root: Path, config: Optional[Path] = None) -> bool:
    """Whether Claude Code gives subagents its git status (a system reminder listing changed files, so an
    edited skill's path, and with it the skill's name, reaches every baseline arm; measured on 2.1.328).
    ``CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS`` or ``"includeGitInstructions": false`` turns it off; the
    settings files are read in Claude Code's order (local, project, user), the first that sets it decides."""
    if os.environ.get("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "").lower() in ("1", "true", "yes"):
        return False
    config = config_dir() if config is None else config
    for f in (repo_root / LOCAL, repo_root / ".claude" / "settings.json", config / "settings.json"):
        value = _load(f).get("includeGitInstructions")
        if isinstance(value, bool):
            return value
    return True


def hide_git_status(repo_root: Path) -> str:
    """Set ``"includeGitInstructions": false`` in ``.claude/settings.local.json`` (every other setting kept), so a
    session started afterwards gives no subagent the git status; the line to print."""
    target = repo_root / LOCAL
    if target.is_symlink():
        raise BenchError(str(target), "is a link; benchcore does not write through it",
                         fix='add "includeGitInstructions": false to the file it points to by hand')
    data = _load(target) if target.is_file() else {}
    if data.get("includeGitInstructions") is False:
        return f'{LOCAL} already has "includeGitInstructions": false'
    data["includeGitInstructions"] = False
    target.parent.mkdir(parents=True, exist_ok=True)
    _write(target, json.dumps(data, indent=2) + "\n")
    return f'wrote "includeGitInstructions": false to {LOCAL}'
