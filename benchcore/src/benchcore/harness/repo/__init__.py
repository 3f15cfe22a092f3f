"""The user's repository, as a run needs it.

- ``tree``   skills and their ``tests/`` cases: discovery and validation
- ``options`` a skill's ``benchmark.yaml``, each option checked
- ``roots``  where the repository keeps skills (``skills/``, ``.claude/skills/``, plugins) and their tests paths
- ``git``    the default branch, and a skill folder at two points in time
"""
