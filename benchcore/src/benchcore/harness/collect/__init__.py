"""``benchcore collect``: transcripts in, a run's cells, audits, packets and judgments out (``run.collect_runs``).

Per run, a ``state.RunState`` goes through the stages in order: ``cells`` (find each cell's transcript,
copy it; ``kept`` holds what later stages ask of it; ``firstread`` refuses a transcript changed since collect
first took an answer from it), ``rerun`` (fresh worlds for invalid trials), ``audit`` (``contamination``
checks one trial, ``rewrites`` that every Bash call ran sandboxed), ``gate`` (hard assertions), ``packets``
(blind judge packets),
``answers`` (judgments, escalation to a panel; ``duplicates`` names and keeps, for their cost, the arms and
judges the run's sessions launched twice for one cell or packet), ``environment`` (what each arm shared).
Then over all runs:
``budget`` and ``launch`` (what runs next), and ``status`` (``collect.json`` and what the command prints).
"""
