"""A run folder read whole, for the stages that decide from it.

- ``folder``  a run folder -> :class:`benchcore.model.RunData` (what ``render`` reads) and its ``RunInfo``
- ``costs``   every skill's history and what a run has spent, for the estimate and the budget
- ``calibration``  the skill's stored calibrations, ``<skill>.calibration.json`` beside its history
"""
