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
