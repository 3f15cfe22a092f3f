"""``benchcore``: parse arguments, dispatch to one command module.

Each command lives in ``benchcore/commands/<name>.py`` and exposes
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``, and may expose
``parse_simple(argv)``: the arguments of its plain forms without argparse, or None (then argparse parses).
Modules are imported only when their command runs, so ``benchcore --help``
starts fast (Jinja2 is imported by render alone), and argparse only when it parses.

Exit codes (README, Exit codes): 0 done (collect: its work done and the next step named, work left
included); 1 only from render, for a red or incomplete verdict; 2 bad input,
nothing written; 3 internal error or a broken install (a one-line message and
where to report it, never a verdict); 130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys

from . import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

COMMANDS = {
    "validate": "check the tests/ tree against skills/; exit 2 on any problem",
    "plan": "plan a run: run dir, worlds, skill copies, plan.json",
    "collect": "transcripts -> outputs, usage, assertions, judge packets, judgments",
    "render": "results.json, <skill>.html, history and index.html from a run dir",
    "clean": "remove a run's temp worlds and skill copies (no run dir: every stale run's)",
    "usage": "token usage and cost of Claude Code transcripts",
    "guard": "Claude Code PreToolUse hook: confine benchmark arms to their worlds (stdin: hook JSON)",
    "sandbox": "check that the arms' OS sandbox (bubblewrap, sandbox-exec) runs here; exit 2 with the fix if not",
    "draft": "write a session's drafted cases under a skill's tests folder once they validate (never overwrites)",
}


EPILOG = """\
order of a benchmark run (the /benchmark-skill protocol runs it for you):
  benchcore draft <skill> --from F  no cases yet: write a session's drafted cases once they validate (--draft)
  benchcore validate                check the cases first
  benchcore plan --pilot <skill>    a first look: one trial per arm per case, no verdict (then as below)
  benchcore plan <skill>            then launch the arm subagents it names (again: resumes the unfinished run)
  benchcore collect <run-dir>       after the arms, and again after the judges it names
  benchcore render <run-dir>        the report, tests/.reports/<skill>.html
  benchcore clean <run-dir>         remove the run's temp worlds and skill copies
  benchcore clean [--dry-run]       list, then remove, the worlds of stale runs (left unfinished or not cleaned)

exit codes:
  0  done (render: both verdicts green or n/a; collect: work done, the next: line names what is left)
  1  render only: done, but a verdict is red or the run is incomplete (a result, not an error)
  2  bad input: the message names the file, the line and the fix
  3  internal error or broken install: a bug in benchcore, not a result (report it with the message)
  130  interrupted (Ctrl-C; plan and collect: SIGTERM too)
  (the skill's wrapper exits 127 when it cannot find or install benchcore)

Run 'benchcore <command> --help' for a command's options."""


def build_parser(load_all: bool) -> "argparse.ArgumentParser":
    import argparse

    parser = argparse.ArgumentParser(
        prog="benchcore",
        description="The mechanical core of a Claude Code skill benchmark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"benchcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if load_all:
            module = importlib.import_module(f"benchcore.commands.{name}")
            module.add_arguments(p)
            p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Import only the chosen command's module.
    name = next((a for a in argv if not a.startswith("-")), None)
    if name not in COMMANDS:
        parser = build_parser(load_all=False)
        if name is not None:
            parser.error(f"unknown command {name!r}; choose one of: {', '.join(COMMANDS)}")
        parser.parse_args(argv)
        parser.print_help()
        return 2 if not argv else 0
    try:
        module = importlib.import_module(f"benchcore.commands.{name}")
    except Exception as exc:  # noqa: BLE001 - a broken install (a dependency too old or missing) is not bad input
        return _internal_error(name, exc, what="benchcore cannot start (a broken install)")
    rest = list(argv)
    rest.remove(name)
    # A command may read its plain forms itself (`usage`: argparse and re are a tenth of its run); argparse
    # parses every other form, with its messages.
    args = module.parse_simple(rest) if hasattr(module, "parse_simple") else None
    if args is None:
        import argparse

        parser = argparse.ArgumentParser(prog=f"benchcore {name}", description=COMMANDS[name])
        module.add_arguments(parser)
        args = parser.parse_args(rest)
    from .errors import BenchError

    try:
        code = int(module.run(args))
        sys.stdout.flush()
        return code
    except BenchError as err:
        many = getattr(err, "problems", ())  # every problem found in one pass, most important first
        text = (f"{len(many)} problems, most important first:\n" + "\n".join(f"- {p.render()}" for p in many)
                if len(many) > 1 else str(err))
        print(f"benchcore {name}: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"benchcore {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `benchcore render RUN | head`: the reader left; what was written stays written
        _quiet_stdout()
        return 0
    except RecursionError:
        print(f"benchcore {name}: error: an input file is nested too deeply to read (YAML or JSON nested thousands "
              "of levels)\n  fix: run 'benchcore validate', which names the file; flatten its front matter",
              file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the one place a bug becomes a message and exit 3, never exit 1
        return _internal_error(name, exc)


INTERNAL_ERROR = 3


def _internal_error(name: str, exc: BaseException, what: str = "internal error") -> int:
    """Print one line naming the error and where it happened (the whole traceback with BENCHCORE_TRACEBACK set)
    and return 3: an internal error is never a verdict (1) nor bad input (2)."""
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    at = f" at {os.path.basename(where.tb_frame.f_code.co_filename)}:{where.tb_lineno}" if where else ""
    if os.environ.get("BENCHCORE_TRACEBACK"):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    print(f"benchcore {name}: {what}: {type(exc).__name__}: {exc}{at}\n"
          f"  this is a bug or a broken install, not a result: reinstall benchcore (the skill's wrapper rebuilds its "
          f"environment), or report it with this message and the command you ran"
          + ("" if os.environ.get("BENCHCORE_TRACEBACK") else " (set BENCHCORE_TRACEBACK=1 for the full traceback)"),
          file=sys.stderr)
    return INTERNAL_ERROR


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so Python's exit flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
