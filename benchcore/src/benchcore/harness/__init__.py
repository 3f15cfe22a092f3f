"""The I/O shell: everything that touches files, git, the clock or a subprocess, one package per concern.

Shared below the stages (each may import only the packages listed before it, and the pure core):

- ``store/``    safe writes and locks, ``plan.json``
- ``repo/``     the user's repository: its skills and ``tests/`` tree, their roots, the default branch in git
- ``worlds/``   the temp worlds arms work in, their setup, the hard assertions and case samples run in them
- ``claude/``   what the benchmark knows of Claude Code: transcripts and the projects folder, token usage,
  settings, agent types, which agents a session launched (provenance)
- ``fanout/``   what the session launches: the prompts and packets, the Workflow scripts and Agent-tool
  tasks, the parts a conversation can hold, the approval bound a script must fit
- ``confine/``  keeping each arm inside its world: the guard hook and its rules
- ``runs/``     a run folder read whole (``RunData`` for render, ``RunInfo``), every skill's history and spend

The stages of a run, each driven from its ``run.py``:

- ``collect/``  transcripts -> cells, audit, gate, packets, judgments, next launch (``collect_runs``)
- ``plan/``     skills and cases -> decisions, worlds, estimate, launch scripts (``plan_runs``); it resumes
  an unfinished run through ``collect``, so ``plan`` may import ``collect`` and never the reverse
- ``render/``   a collected run -> results.json, the report, history and the leaderboard on disk

``docs/architecture.md`` draws the flow; ``tests/test_layers.py`` holds the import rule.
"""
