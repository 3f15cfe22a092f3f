"""The vocabulary of a benchmark run: frozen attrs classes, no behaviour, no I/O.

Wire names follow docs/run-format.md exactly; the one place an
attribute name differs from its wire name (``passed`` <-> ``"pass"``) is
handled by the single converter in :mod:`benchcore.serde`.

One module per file the run writes (every name is re-exported here: ``from benchcore.model import X``):

- :mod:`.case`      case.md: Case, Turn, HardAssertion
- :mod:`.run`       run.json: RunInfo, SkillRef, Temperature, BranchRef; the outcome words, ARMS, COMPARISONS
- :mod:`.trial`     a trial's files (Judgment, ComparisonRecord, AssertionResult, Audit) and what render reads
                    (TrialData, RunData)
- :mod:`.estimate`  plan's estimate and budget, an arm's usage summary
- :mod:`.results`   results.json: verdicts, case results, the judges' noise floor (Calibration, NoiseFloor)
- :mod:`.history`   a history line
"""

from __future__ import annotations

import attrs

from ..armusage import ArmUsage  # noqa: F401  (defined apart so `benchcore usage` need not import the rest)
from ..environment import NOT_SANDBOXED, EnvironmentCard, EnvironmentEvidence  # noqa: F401 (re-exported)
from .case import Case, HardAssertion, Turn  # noqa: F401
from .estimate import ArmEstimate, Budget, CellCost, Estimate, UsageSummary  # noqa: F401
from .history import AxisSummary, HistoryEntry  # noqa: F401
from ..nosignal import CaseCounts, NoSignal  # noqa: F401  (issue 41: defined beside the rule that fills them)
from .results import (AxisResult, AxisVerdict, Calibration, CalibrationStore, CaseResult, Escalation,  # noqa: F401
                      NoiseCount, NoiseFloor, NoiseRed, PositionBias, Ratios, SkillResult, Verdicts)
from .run import (ARMS, COMPARISONS, LOSS, PILOT_TRIALS, TIE, TRIALS, WIN, BranchRef, Outcome, RunInfo,  # noqa: F401
                  SkillRef, Temperature)
from .trial import (AssertionResult, Audit, AuditProblem, ComparisonRecord, Judgment, RunData,  # noqa: F401
                    TrialData)


def evolve(inst, **changes):
    """attrs.evolve, re-exported so callers need not import attrs."""
    return attrs.evolve(inst, **changes)
