"""case.md as data: the parsed case, its seed turns and hard assertions (frozen attrs, no I/O)."""

from __future__ import annotations

from typing import Literal, Optional

from attrs import frozen


@frozen
class Turn:
    """One role-tagged turn of a seed conversation."""

    role: Literal["user", "assistant"]
    text: str


@frozen
class HardAssertion:
    """One predicate from a ```sh block: a shell command; ``line`` is 1-based in case.md."""

    command: str
    line: int
    # The '#' comment lines right above the predicate (what it checks, in words); the report shows it
    # above a failed command.
    comment: Optional[str] = None


@frozen
class Case:
    """A parsed ``case.md``.

    ``id`` is the case folder's name; ``path`` is the case.md path as given to
    the parser (used in messages only). ``fixture`` is the frontmatter value
    as written (relative to the case folder), or None.
    """

    id: str
    path: str
    description: str
    prompt: str
    soft_criteria: tuple[str, ...]
    fixture: Optional[str] = None
    setup: Optional[str] = None
    seed: tuple[Turn, ...] = ()
    hard_assertions: tuple[HardAssertion, ...] = ()
