"""Render a pilot run (``plan --pilot``): ``pilot.json`` in its run folder, nothing else. No results.json, no
report page, no history line, no leaderboard row: a pilot is never a verdict (:mod:`benchcore.pilot`)."""

from __future__ import annotations

from pathlib import Path

from ... import serde
from ...pilot import build_pilot
from ..store.files import write_atomic
from .signal import baseline_results


def render_pilot(data, run_dir: Path, warnings: list[str]):
    """(the report, the file written, the exit code, the next step); ``warnings`` gets what is still missing."""
    report = build_pilot(data, baseline_results(run_dir, data))
    path = run_dir / "pilot.json"
    write_atomic(path, serde.dumps(report))
    waiting = any(c.outcome is None and not c.gated for p in report.cases for c in p.comparisons)
    if waiting:
        warnings.append("some cases are not judged yet: collect again and launch the judges it names, then render")
    has_temp = (run_dir / "plan.json").is_file()
    next_step = (f"benchcore clean {run_dir}   (removes the pilot's temp worlds; a full run plans fresh arms), then "
                 f"rewrite the cases worth a look, or run the full benchmark" if has_temp else f"cat {path}")
    return report, path, 1 if waiting else 0, next_step
