"""``benchcore render``: a collected run folder in, its results, report, history and the leaderboard on disk.

- ``run``      :func:`render_run`: read the run, apply the pass rules, write under the folder's lock
- ``reports``  the files it writes, every one staged first and renamed into place together
"""

from .run import EXAMPLE_REPORTS, Rendered, render_run

__all__ = ["EXAMPLE_REPORTS", "Rendered", "render_run"]
