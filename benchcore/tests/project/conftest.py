"""The wrapper's first-use tests, made cheap where their point is not ``python -m venv`` itself.

The wrapper makes its environment with ``<python3 on PATH> -m venv <env>``; ensurepip then installs pip into it,
about 2.5 s of CPU per environment, and these tests make about twenty. ``venv_path`` gives a PATH whose
``python3`` is the real one for everything but ``-m venv <folder>``, which copies an environment that same Python
made once per session with ``-m venv`` (what it would have made again: the copy's ``pyvenv.cfg`` names the same
``home``, and its python links to the same interpreter, by its resolved path). Everything after (the lock, pip's hash-checked install from the local
wheel folder, the build, the checks, the stamps) runs for real. The test of a first use as a user meets it
(test_first_use_installs_the_locked_wheel_runs_benchcore_once_says_so_and_is_reused) and the clone's own fix line
keep the real ``-m venv``.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import pytest


@pytest.fixture(scope="session")
def venv_path(tmp_path_factory) -> Callable[[Path | str, str], str]:
    """``venv_path(python, rest)``: a PATH of a folder whose ``python3`` is ``python`` with ``-m venv`` served
    from a template, then ``rest``.

    One template per interpreter (``/usr/bin/python3`` and ``/usr/bin/python3.11`` are one) for the whole
    session, pytest-xdist's workers included: the first worker to need it makes it under a lock in the folder
    the workers' temp folders share, the others wait for it and copy it."""
    made: dict[str, str] = {}
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # pytest-of-<user>/pytest-<n>/, beside each worker's popen-gw<k>/

    def path(python: Path | str, rest: str) -> str:
        real = os.path.realpath(python)
        if real not in made:
            top = shared / f"venv-template-{hashlib.sha256(real.encode()).hexdigest()[:12]}"
            top.mkdir(exist_ok=True)
            template, shim = top / "template", top / "bin"
            with open(top / "lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not (shim / "python3").is_file():
                    shutil.rmtree(template, ignore_errors=True)
                    subprocess.run([real, "-m", "venv", str(template)], check=True, capture_output=True, timeout=300)
                    shim.mkdir(exist_ok=True)
                    (shim / "python3.tmp").write_text(
                        "#!/bin/sh\n"
                        f'if [ "$#" -eq 3 ] && [ "$1" = -m ] && [ "$2" = venv ]; then\n'
                        f'  mkdir -p "$(dirname -- "$3")" && exec cp -a "{template}" "$3"\n'
                        "fi\n"
                        f'exec "{real}" "$@"\n')
                    (shim / "python3.tmp").chmod(0o755)
                    (shim / "python3.tmp").rename(shim / "python3")
            made[real] = str(shim)
        return f"{made[real]}:{rest}"

    return path
