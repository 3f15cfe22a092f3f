"""What the benchmark knows of Claude Code, and reads or writes in its folders.

- ``transcript``  one transcript file: its records, tool calls and final answer, with its subagents'
- ``projects``    the projects folder: scanning it, and looking a transcript up by world or packet id
- ``tokens``      transcript files -> token usage (through the pure :mod:`benchcore.usage`), the price table
- ``provenance``  which agents the orchestrating session launched (its journals and Agent results)
- ``settings``    the benchmark's permissions and guard hook in ``.claude/settings.local.json``
- ``agents``      the name Claude Code knows each benchmark agent type by, from what is installed
- ``session``     the orchestrating session's own transcript: the git status it (and every subagent) was
                  given, Claude Code's version, its model and context window (recorded, else Claude Code's
                  catalog's for the model); the versions declared tested
"""
