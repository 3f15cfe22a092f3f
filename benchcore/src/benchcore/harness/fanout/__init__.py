"""What the orchestrating session launches, and the shape Claude Code needs it in.

- ``prompts``  the words every arm and judge reads (filled from the benchmark-skill's templates), redaction
- ``scripts``  the Workflow fan-out scripts and the Agent-tool task files, bound to their tasks
- ``parts``    whether the Agent-tool path fits one conversation, and its parts when it does not
- ``bound``    a script's data in short lines, so the "Run a dynamic workflow?" dialog can approve it

The names below are the face ``plan`` and ``collect`` use; ``from benchcore.harness import fanout``.
"""

from .scripts import (BUDGET_REACHED, agent_tasks_phrase, arm_tasks, batch_dir, judge_tasks, launches,
                      workflow_calls, write_agent_path, write_bound_scripts)

__all__ = ["BUDGET_REACHED", "agent_tasks_phrase", "arm_tasks", "batch_dir", "judge_tasks", "launches",
           "workflow_calls", "write_agent_path", "write_bound_scripts"]
