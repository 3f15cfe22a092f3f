"""The skill's stored calibration, ``<skill>.calibration.json`` beside its history in the reports folder.

Written atomically by a calibration run's render; read by every later render of the skill. A file that cannot
be read is reported and treated as no calibration: the verdicts never depend on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ... import serde
from ...errors import BenchError
from ...model import Calibration
from ..store.files import not_regular, read_text, write_atomic


def calibration_path(reports: Path, skill: str) -> Path:
    return reports / f"{skill}.calibration.json"


def read_calibration(reports: Path, skill: str, warnings: list[str]) -> Optional[Calibration]:
    """The stored calibration of ``skill``, or None (none yet, or unreadable: then a warning says why)."""
    path = calibration_path(reports, skill)
    if not path.exists() and not path.is_symlink():
        return None
    why = not_regular(path)
    if why:
        warnings.append(f"{path} is {why}, so it is not read as the judges' calibration; move it away and "
                        f"calibrate again")
        return None
    try:
        return serde.loads(Calibration, read_text(path), source=str(path))
    except BenchError as e:
        warnings.append(f"{path} is not a calibration ({e.message}); it is ignored: run the calibration again "
                        f"to replace it")
        return None


def write_calibration(reports: Path, cal: Calibration) -> Path:
    """Replace the skill's calibration in one rename."""
    path = calibration_path(reports, cal.skill)
    reports.mkdir(parents=True, exist_ok=True)
    write_atomic(path, serde.dumps(cal))
    return path
