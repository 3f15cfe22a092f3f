"""What a closed session left behind, picked up by the next plan (I/O).

The skill runs ``benchcore clean`` in the background after the verdict; when Claude Code is closed before it ends,
the rendered run's temp worlds (and, while any run is registered, the guard hook) stay. A rendered run's worlds
are of no more use, so the next ``plan`` removes them, as ``benchcore clean`` would, and says so; an unfinished
run is left for ``plan`` to resume or for ``benchcore clean`` to give up.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import BenchError
from ..claude.provenance import mark_cleaned
from ..claude.settings import remove_grant
from ..store.files import shown_path
from ..worlds.temp import remove_temp_root
from .open_runs import run_folders


def clean_rendered(root: Path) -> list[str]:
    """Remove the temp worlds of every rendered run whose clean never ran; the lines that say so (one per run)."""
    lines = []
    for r in run_folders(root):
        if not (r.open and r.rendered):
            continue
        try:
            remove_temp_root(Path(r.plan.temp_root), r.plan.run_id, r.plan.temp_nonce, root)
        except BenchError:
            continue  # not provably the run's own folder: left for 'benchcore clean', which names why
        remove_grant(root, Path(r.plan.temp_root))
        mark_cleaned(r.run_dir)
        lines.append(f"note: removed the temp worlds of run {r.plan.run_id} ({r.plan.skill}; rendered, but its "
                     f"clean never ran, as when Claude Code is closed first): {shown_path(r.plan.temp_root)}")
    return lines
