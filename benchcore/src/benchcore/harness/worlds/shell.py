"""The one way a case's own shell runs: its ``setup:``, its hard assertions, a sample's ``act.sh`` (I/O).

Each of them can run code an arm wrote (a predicate that runs ``python3 -m
unittest discover`` imports every ``tests/test_*.py`` in the world, the arm's
too), so each runs where the arm's Bash calls ran:

- **Sandboxed** (``sandbox`` given: the run's, from plan.json, or the one
  ``validate`` smoke-runs): ``confine/sandbox.case_argv``, the same bubblewrap or
  Seatbelt sandbox with the same fixed parts as the arms' Bash: the world
  read-write, ``$OUTPUT`` a read-only copy, the sandbox's fixed environment (no
  session secrets), no network unless benchmark.yaml says ``network: true``, no
  capabilities; the home folder, the repository, the run folder and collect's
  own files are not there, and the toolchain on the session's PATH (which may
  hold the installed benchcore) is read-only.
- **Unconfined** (``sandbox`` None: ``plan --no-sandbox``, a run planned before
  the sandbox, ``validate`` where no sandbox runs): ``bash -c`` in the world with
  the session's environment, as the user's own shell would; the caller says so
  in its output.

Either way: cwd the world, standard input closed, its own session, and at the
time limit the whole process tree is killed (under bwrap the command is pid 1
of its own pid namespace, so every process it started goes with it, a
``setsid`` one too; unconfined, its process group). Only the tail of its
stdout and stderr is kept.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from typing import Iterator, Mapping, Optional

from attrs import frozen

from ..confine import sandbox as box
from ..store.sandboxentry import Sandbox

TAIL = 8000
_STOPS = (signal.SIGINT, signal.SIGTERM)


@frozen
class Ran:
    """How a case's shell command ended: its exit (None when it timed out) and the tails of its output."""

    exit: Optional[int]
    timed_out: bool
    stdout: str
    stderr: str


class Stopped(Exception):
    """A command stopped by its :class:`Stop` (or not started because of it): it has no result."""


class Stop:
    """Lets one thread stop the commands other threads run with it (collect's checks, several worlds at once):
    :meth:`stop` kills each running command's process group, and a command stopped, or asked to start after it,
    raises :class:`Stopped` rather than return an exit no command really gave."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen] = set()
        self.stopped = False

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            running = list(self._running)
        for proc in running:
            _kill(proc)

    def _started(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._running.add(proc)
            stopped = self.stopped
        if stopped:  # stopped while it was being started
            _kill(proc)

    def _ended(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._running.discard(proc)


def terminated(signum, frame):
    """A SIGTERM handler that stops the command as Ctrl-C does (KeyboardInterrupt in the main thread), so its
    cleanup runs: the commands it started are killed with their groups, its temp files removed."""
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the code inside as Ctrl-C does (:func:`terminated`); the handler before is put back after.
    Left at its default, SIGTERM ends the process at once: a check running unconfined (``plan --no-sandbox``)
    would run on to its time limit with no collect left to kill it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def where(sandbox: Optional[Sandbox]) -> str:
    """Where a case's shell runs, in words for a command's output."""
    if sandbox is None:
        return "unconfined (no OS sandbox): on this machine with your session's environment"
    name = "bubblewrap" if sandbox.kind == "bwrap" else "Seatbelt (sandbox-exec)"
    return f"in the arms' sandbox ({name}: the world read-write, nothing of your home folder, no session secrets)"


def _tail(stream, out: list) -> None:
    buf = b""
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        buf = (buf + chunk)[-TAIL:]
    out.append(buf.decode("utf-8", errors="replace"))


def _kill(proc: subprocess.Popen) -> None:
    """Kill the command's whole process group (under bwrap: bwrap, and with it the sandbox's pid namespace)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_shell(command: str, world: str, *, sandbox: Optional[Sandbox], timeout: float,
              env: Optional[Mapping[str, str]] = None, output: Optional[str] = None,
              base: Optional[Mapping[str, str]] = None, stop: Optional[Stop] = None) -> Ran:
    """Run ``command`` with bash in ``world`` (see the module's docstring for where).

    ``env``: variables set on top of the base environment (the sandbox's fixed one, or, unconfined, ``base``,
    default the session's); ``output``: a file the command reads as ``$OUTPUT`` (read-only in the sandbox; pass a
    copy, the unconfined command can write it); ``stop``: another thread may stop the command with it (then
    :class:`Stopped` is raised). Raises OSError when the program cannot start."""
    if stop is not None and stop.stopped:
        raise Stopped(command)
    world = str(world)
    scratch = None
    extra = dict(env or {})
    if sandbox is None:
        full = dict(os.environ if base is None else base, **extra)
        if output:
            full["OUTPUT"] = str(output)
        argv, cwd = ["bash", "-c", command], world
    else:
        if sandbox.kind == "seatbelt":
            scratch = tempfile.mkdtemp(prefix="benchcore-case-tmp-")
        argv = box.case_argv(sandbox, command, world, str(output) if output else None, extra, scratch)
        full, cwd = None, "/"
    # A stop (Ctrl-C, SIGTERM) that comes while the command is being started is held until it has started and
    # is known, then raised where it is killed with its group: raised inside Popen, it left the command running
    # (a setup went on writing into its world after plan removed it; seen under load).
    held: list[int] = []
    hold = threading.current_thread() is threading.main_thread()
    before = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in _STOPS} if hold else {}
    try:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        finally:
            for s, handler in before.items():
                signal.signal(s, handler)
        if stop is not None:
            stop._started(proc)
        tails: tuple[list, list] = ([], [])
        readers = [threading.Thread(target=_tail, args=(s, t), daemon=True)
                   for s, t in zip((proc.stdout, proc.stderr), tails)]
        for r in readers:
            r.start()
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            _kill(proc)
        # A timer, not wait(timeout=...), whose polling (up to 50 ms a step) would add to every check's time.
        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            for signum in held:
                signal.raise_signal(signum)  # as it would have been, with the handler it would have met
            proc.wait()
        finally:  # also on Ctrl-C: nothing the command started outlives this call
            timer.cancel()
            _kill(proc)
            proc.wait()
            if stop is not None:
                stop._ended(proc)
        if stop is not None and stop.stopped:
            raise Stopped(command)
        timed_out = expired.is_set() and proc.returncode < 0
        for r in readers:
            r.join(timeout=5)
        out, err = (t[0] if t else "" for t in tails)
        return Ran(exit=None if timed_out else proc.returncode, timed_out=timed_out, stdout=out, stderr=err)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
