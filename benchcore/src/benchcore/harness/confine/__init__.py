"""Keeping each arm inside its own world and skill copy.

- ``guard``  the PreToolUse hook ``benchcore guard`` answers, its registry of runs and its log
- ``rules``  may an arm's tool call run, given its world and skill copy (path rules; command rules for an
  unsandboxed run)
- ``sandbox`` the OS sandbox (bubblewrap, Seatbelt) every Bash call of an arm runs in: found by a smoke run,
  and the exact wrapped command line
"""
