"""The HTML report of a run and the leaderboard of every skill (pure).

- :func:`build_report_view` (``view.py``): SkillResult + RunData + history -> ReportView.
- :func:`build_index_view` (``index.py``): LeaderboardEntry per skill -> IndexView.
- ``render.py``: ``render_report(view)`` / ``render_index(view)`` -> one self-contained
  HTML page. It imports Jinja2, so import it only when rendering:
  ``from benchcore.report.render import render_report, render_index``.
"""

from .index import IndexView, LeaderboardEntry, build_index_view
from .view.page import ReportView, build_report_view

__all__ = ["IndexView", "LeaderboardEntry", "ReportView", "build_index_view", "build_report_view"]
