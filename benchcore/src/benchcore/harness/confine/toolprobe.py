"""What the arms' toolchain is, asked inside their sandbox before launch (I/O: runs commands there).

plan runs, with the run's :class:`Sandbox` around a scratch world (as the smoke run does):

- one probe that names the interpreter and the test runner an arm gets (``python3`` and its version,
  ``pytest``, ``node``, ``npm``), for plan's output and the report's environment card;
- each command benchmark.yaml ``requires:`` lists (e.g. ``python3 -m pytest --version``): plan refuses to
  launch when one fails, naming it and the fix;
- when benchmark.yaml lists none, the cases' hard assertions and prompts are read for ``python3``,
  ``pytest``, ``node`` and ``npm``: one that does not run in the sandbox is a warning (plan still launches).

With ``--no-sandbox`` the same commands run on this machine with the session's environment, as the arms'
commands then do.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from typing import Optional, Sequence

from attrs import frozen

from ..store.planfile import Sandbox
from .sandbox import wrap

REQUIRE_TIMEOUT = 60.0
PROBE = r"""for t in python3 pytest node npm; do printf '%s\t%s\n' "$t" "$(command -v "$t")"; done
python3 - <<'EOF' 2>/dev/null
import importlib.util, platform
print("python3-version\t" + platform.python_version())
if importlib.util.find_spec("pytest"):
    try:
        from importlib.metadata import version
        print("pytest-module\t" + version("pytest"))
    except Exception:  # no distribution metadata (copied in by hand): ask the module
        import pytest
        print("pytest-module\t" + getattr(pytest, "__version__", "installed"))
EOF
command -v node >/dev/null && printf 'node-version\t%s\n' "$(node --version 2>/dev/null)"
exit 0"""
# The programs a case's shell or prompt may count on, and how to read a mention of each.
MENTIONS = {"python3": re.compile(r"(?<![\w.-])python3?(?![\w-])"), "pytest": re.compile(r"(?<![\w.-])pytest\b"),
            "node": re.compile(r"(?<![\w.-])(node|npx)(?![\w-])"), "npm": re.compile(r"(?<![\w.-])npm(?![\w-])")}

# The command that shows each of them works, for a benchmark.yaml ``requires:`` line.
EXAMPLES = {"python3": "python3 --version", "pytest": "python3 -m pytest --version", "node": "node --version",
            "npm": "npm --version"}


@frozen
class Ran:
    """One command run in the sandbox: its exit status and the last line it printed."""

    command: str
    exit: int
    said: str = ""

    @property
    def ok(self) -> bool:
        return self.exit == 0


@frozen
class Toolset:
    """What an arm gets: each program's path inside ("" when absent) and version ("" when unknown)."""

    paths: dict
    versions: dict

    def has(self, program: str) -> bool:
        if program == "pytest":
            return bool(self.versions.get("pytest") or self.paths.get("pytest"))
        return bool(self.paths.get(program))

    def words(self) -> str:
        """e.g. "python3 = /repo/.venv/bin/python3 (3.11.7), pytest 8.3.2 (python3 -m pytest), node = ..."."""
        out = []
        for name in ("python3", "pytest", "node", "npm"):
            path, version = self.paths.get(name, ""), self.versions.get(name, "")
            if name == "pytest" and version:
                out.append(f"pytest {version} (python3 -m pytest)")  # run as a module: no script path needed
            elif path:
                out.append(f"{name} = {path}" + (f" ({version})" if version else ""))
            else:
                out.append(f"no {name}")
        return ", ".join(out)


def _in_scratch(sandbox: Optional[Sandbox], command: str, environ: Optional[dict],
                timeout: float) -> subprocess.CompletedProcess:
    """``command`` run as an arm's Bash call would be, in a fresh scratch world removed after: in ``sandbox``,
    or, with none (--no-sandbox), by ``/bin/bash -c`` with the session's environment. Raises
    subprocess.TimeoutExpired and OSError."""
    with tempfile.TemporaryDirectory(prefix="benchcore-probe-") as scratch:
        world = os.path.join(scratch, "world")
        os.mkdir(world)
        argv = (["/bin/sh", "-c", wrap(sandbox, command, world, None)] if sandbox is not None
                else ["/bin/bash", "-c", command])
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=world,
                              stdin=subprocess.DEVNULL, env=None if sandbox is not None else environ)


def run(sandbox: Optional[Sandbox], command: str, environ: Optional[dict] = None,
        timeout: float = REQUIRE_TIMEOUT) -> Ran:
    """``command`` in ``sandbox`` around a fresh scratch world (removed after), or, with no sandbox
    (--no-sandbox), by ``/bin/bash -c`` in a scratch folder with the session's environment."""
    try:
        proc = _in_scratch(sandbox, command, environ, timeout)
    except subprocess.TimeoutExpired:
        return Ran(command, 124, f"did not finish within {timeout:g} s")
    except OSError as exc:
        return Ran(command, 126, f"could not start ({exc})")
    lines = [line.strip() for line in (proc.stdout + "\n" + proc.stderr).splitlines() if line.strip()]
    if proc.returncode != 0:  # the error is what says why
        err = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
        lines = err or lines
    return Ran(command, proc.returncode, lines[-1][:300] if lines else "")


_probed: dict = {}


def probe(sandbox: Optional[Sandbox], environ: Optional[dict] = None) -> Toolset:
    """The interpreter and test runner an arm gets (one run in the sandbox; asked once per sandbox in a
    process)."""
    key = (sandbox.program, sandbox.args, sandbox.shell, sandbox.readonly, tuple(sorted(sandbox.env.items()))
           ) if sandbox is not None else ("", tuple(sorted(
        (environ or os.environ).items())), "")
    if key not in _probed:
        _probed[key] = _probe(sandbox, environ)
    return _probed[key]


def _probe(sandbox: Optional[Sandbox], environ: Optional[dict] = None) -> Toolset:
    try:
        out = _in_scratch(sandbox, PROBE, environ, REQUIRE_TIMEOUT).stdout
    except (subprocess.TimeoutExpired, OSError):
        out = ""
    paths: dict[str, str] = {}
    versions: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition("\t")
        if key in ("python3", "pytest", "node", "npm"):
            paths[key] = value.strip()
        elif key == "python3-version":
            versions["python3"] = value.strip()
        elif key == "pytest-module":
            versions["pytest"] = value.strip()
        elif key == "node-version":
            versions["node"] = value.strip()
    return Toolset(paths, versions)


def mentioned(texts: Sequence[str]) -> list[str]:
    """The programs of MENTIONS that ``texts`` (hard assertions, prompts) name, in MENTIONS' order."""
    return [name for name, rx in MENTIONS.items() if any(rx.search(t) for t in texts)]


def fix_for(command: str) -> str:
    """The fix for a required command that does not run in the arms' sandbox."""
    if re.search(r"\bpython3?\b|\bpytest\b|\bpip\b", command):
        return ("activate the virtual environment that has it in the shell you start claude from (source "
                ".venv/bin/activate: a .venv inside the repository reaches the arms), or install it there "
                "(python3 -m pip install pytest); then start Claude Code again and plan again "
                "(benchcore sandbox shows what the arms get)")
    if re.search(r"\b(node|npm|npx|yarn|pnpm)\b", command):
        return ("install it on the PATH of the shell you start claude from (npm install in the repository gives "
                "node_modules/.bin, which reaches the arms); then start Claude Code again and plan again")
    return ("make the command work from the PATH of the shell you start claude from (benchcore sandbox shows "
            "what the arms get), or remove it from requires")
