"""Keeping each arm inside its own world and skill copy.

- ``guard``  the PreToolUse hook ``benchcore guard`` answers, and its log of refusals
- ``registry`` the runs the guard confines (written by plan, gone with clean), and taking its hook out after
- ``rules``  may an arm's tool call run, given its world and skill copy (path rules; the parse-and-refuse command
  filter of an unsandboxed run, which confines nothing)
- ``sandbox`` the OS sandbox (bubblewrap, Seatbelt) every Bash call of an arm runs in: found by a smoke run,
  and the exact wrapped command line
"""
