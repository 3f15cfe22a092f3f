"""The wrapper's first-use tests, made cheap where their point is not ``python -m venv`` itself.

The wrapper makes its environment with ``<python3 on PATH> -m venv <env>``; ensurepip then installs pip into it,
about 2.5 s of CPU per environment, and these tests make about twenty. ``venv_path`` gives a PATH whose
``python3`` is the real one for everything but ``-m venv <folder>``, which copies an environment that same Python
made once per session with ``-m venv`` (what it would have made again: the copy's ``pyvenv.cfg`` names the same
``home``, and its python is the same link). Everything after (the lock, pip's hash-checked install from the local
wheel folder, the build, the checks, the stamps) runs for real. The test of a first use as a user meets it
(test_first_use_installs_the_locked_wheel_runs_benchcore_once_says_so_and_is_reused) and the clone's own fix line
keep the real ``-m venv``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable

import pytest


@pytest.fixture(scope="session")
def venv_path(tmp_path_factory) -> Callable[[Path | str, str], str]:
    """``venv_path(python, rest)``: a PATH of a folder whose ``python3`` is ``python`` with ``-m venv`` served
    from a template, then ``rest``."""
    made: dict[str, str] = {}

    def path(python: Path | str, rest: str) -> str:
        key = str(python)
        if key not in made:
            top = tmp_path_factory.mktemp("venv-template")
            template = top / "template"
            subprocess.run([key, "-m", "venv", str(template)], check=True, capture_output=True, timeout=300)
            shim = top / "bin"
            shim.mkdir()
            (shim / "python3").write_text(
                "#!/bin/sh\n"
                f'if [ "$#" -eq 3 ] && [ "$1" = -m ] && [ "$2" = venv ]; then\n'
                f'  mkdir -p "$(dirname -- "$3")" && exec cp -a "{template}" "$3"\n'
                "fi\n"
                f'exec "{key}" "$@"\n')
            (shim / "python3").chmod(0o755)
            made[key] = str(shim)
        return f"{made[key]}:{rest}"

    return path
