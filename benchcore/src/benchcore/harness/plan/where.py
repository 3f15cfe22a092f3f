"""Where the session runs, against where the run's files will be (I/O: the session's own transcript).

Claude Code's Workflow tool runs a script only from a path it may read: "a script path this tool returned, or a
file you can already read ... the working directory or a directory you have added" (2.1.328, issue 39). A session
started in a subfolder of the repository (``tests/<skill>/``) cannot read the run's scripts under
``<root>/tests/.reports/runs/``, so the launch would be refused after plan had built the run. plan reads the
session's working directory from its transcript (every record carries ``cwd``) and stops before anything is built.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Optional

from ...errors import BenchError
from ..claude.session import current_cwd


def require_session_at_root(root: Path, command: str, cwd: Optional[str] = None) -> None:
    """Stop (BenchError, nothing built, nothing to clean) when the session running plan was started in a folder
    that does not hold the repository: its Workflow tool could not read the run's scripts. Outside a session, or
    when its transcript records no working directory, nothing is checked."""
    cwd = cwd if cwd is not None else current_cwd()
    if not cwd:
        return
    here, root = Path(cwd).resolve(), Path(root).resolve()
    if root == here or root.is_relative_to(here):
        return
    where = "inside the repository" if here.is_relative_to(root) else "outside the repository"
    raise BenchError(
        None, f"Claude Code was started in {here}, {where} {root} but not at its root: its Workflow tool reads a "
              f"script only from the folder it was started in (or one added to it), so it would refuse the run's "
              f"scripts under {root / 'tests/.reports/runs'}; nothing was planned, so there is nothing to clean",
        fix=f"exit Claude Code, start it at the repository root (cd {shlex.quote(str(root))} && claude) and type "
            f"{command} again")
