"""The user's repository, as a run needs it.

- ``tree``   skills and their ``tests/`` cases: discovery and validation
- ``roots``  where the repository keeps skills (``skills/``, ``.claude/skills/``, plugins) and their tests paths
- ``git``    the default branch, and a skill folder at two points in time
"""
