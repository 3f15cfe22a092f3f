"""Errors that reach the user: each names the file, the line (when there is one) and the fix."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # not at run time: typing costs `benchcore usage` ~8 ms of imports
    from typing import Optional


class BenchError(Exception):
    """Bad input. The CLI prints ``str(err)`` and exits 2."""

    def __init__(self, path: Optional[str], message: str, *, line: Optional[int] = None,
                 fix: Optional[str] = None):
        self.path = path
        self.line = line
        self.message = message
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        text = f"{where}{self.message}"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "message": self.message, "fix": self.fix}


class CaseError(BenchError):
    """A case.md that does not follow the contract."""


class Problems(BenchError):
    """Several problems found in one pass (every problem of a file, or of a tree), most important first. It reads
    as its first problem (``path``, ``line``, ``message``, ``fix``) and renders every one, each with its file:line
    and fix, so one run names everything to mend."""

    def __init__(self, problems):
        self.problems = tuple(problems)
        first = self.problems[0]
        super().__init__(first.path, first.message, line=first.line, fix=first.fix)

    def render(self) -> str:
        return "\n".join(p.render() for p in self.problems)


class CaseProblems(Problems, CaseError):
    """Several problems in one case.md."""


def each(err: BenchError) -> tuple:
    """The problems an error stands for: its ``problems`` when it holds several, else itself."""
    return tuple(getattr(err, "problems", (err,)))


def raise_all(problems, kind=None) -> None:
    """Raise nothing for no problems, the problem itself for one, a Problems (``kind``) holding all for several."""
    problems = [q for p in problems for q in each(p)]
    if not problems:
        return
    if len(problems) == 1:
        raise problems[0]
    raise (kind or Problems)(problems)
