"""The skill's stored calibrations, ``<skill>.calibration.json`` beside its history in the reports folder.

Written atomically by a calibration run's render; read by every later render of the skill, which uses the one
that applies to it (:func:`benchcore.calibration.choose`). Since issue 38 the file keeps every calibration
(:class:`~benchcore.model.CalibrationStore`): a partial or empty one never replaces a complete one. A file written
before (one bare calibration) is read as a store of one. A file that cannot be read is reported and treated as no
calibration: the verdicts never depend on it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from ... import serde
from ...calibration import keep
from ...errors import BenchError
from ...model import Calibration, CalibrationStore
from ..store.files import not_regular, read_text, write_atomic


def calibration_path(reports: Path, skill: str) -> Path:
    return reports / f"{skill}.calibration.json"


def read_calibration(reports: Path, skill: str, warnings: list[str]) -> Optional[CalibrationStore]:
    """The stored calibrations of ``skill``, or None (none yet, or unreadable: then a warning says why)."""
    path = calibration_path(reports, skill)
    if not path.exists() and not path.is_symlink():
        return None
    why = not_regular(path)
    if why:
        warnings.append(f"{path} is {why}, so it is not read as the judges' calibration; move it away and "
                        f"calibrate again")
        return None
    try:
        text = read_text(path)
        try:
            many = isinstance(json.loads(text), dict) and "calibrations" in json.loads(text)
        except ValueError:
            many = False
        if many:
            return serde.loads(CalibrationStore, text, source=str(path))
        return CalibrationStore(calibrations=(serde.loads(Calibration, text, source=str(path)),))
    except BenchError as e:
        warnings.append(f"{path} is not a calibration ({e.message}); it is ignored: run the calibration again "
                        f"to replace it")
        return None


def write_calibration(reports: Path, cal: Calibration, warnings: Optional[list[str]] = None) -> Path:
    """Add the calibration to the skill's store in one rename (an unreadable store is replaced, with a warning).
    One with no judgments is not kept: it would say nothing."""
    path = calibration_path(reports, cal.skill)
    reports.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    existing = read_calibration(reports, cal.skill, notes)
    if warnings is not None:
        warnings.extend(notes)
    if not cal.pooled.judgments:
        if warnings is not None:
            warnings.append(f"calibration {cal.run_id} holds no judgments, so it is not kept in {path}")
        return path
    write_atomic(path, serde.dumps(keep(existing, cal)))
    return path


def skill_version(folder: Path) -> str:
    """sha256 over every file under ``folder``: its path (relative, '/'-separated) and its bytes, in path order."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).as_posix()):
        if p.is_symlink():
            h.update(b"L" + p.relative_to(folder).as_posix().encode() + b"\x00" + str(p.readlink()).encode())
        elif p.is_file():
            h.update(b"F" + p.relative_to(folder).as_posix().encode() + b"\x00" + p.read_bytes())
        h.update(b"\x01")
    return h.hexdigest()
