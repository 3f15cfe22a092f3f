"""Keeping each arm inside its own world and skill copy.

- ``guard``  the PreToolUse hook ``benchcore guard`` answers, its registry of runs and its log
- ``rules``  may an arm's tool call run, given its world and skill copy (path and command rules)
"""
