"""case.md text -> :class:`benchcore.model.Case`, or a CaseError naming the line and the fix.

Pure: the caller reads the file and checks the fixture on disk. The format is
docs/case-format.md::

    ---
    description: one line
    fixture: optional/path
    setup: optional shell command
    ---
    ## Prompt
    ## Seed               (optional)
    ## Hard assertions    (optional)
    ## Soft criteria
"""

from __future__ import annotations

import re
from typing import Optional

import yaml

from .errors import CaseError, CaseProblems, each, raise_all
from .model import Case, HardAssertion, Turn

SECTIONS = {
    "prompt": "Prompt",
    "seed": "Seed",
    "hard assertions": "Hard assertions",
    "soft criteria": "Soft criteria",
}
FRONTMATTER_KEYS = ("description", "fixture", "setup")

_HEADING = re.compile(r"^##\s+(?P<title>.*?)\s*#*\s*$")
_FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<info>[^\s`]*)")
_ROLE = re.compile(r"^\*\*(?P<role>User|Assistant)(?::\*\*|\*\*\s*:)\s?(?P<text>.*)$", re.IGNORECASE)
_BULLET = re.compile(r"^[-*+]\s+(?P<text>.*)$")
_SHELL_INFOS = {"sh", "bash", "shell"}


def parse_case(text: str, path: str, case_id: Optional[str] = None) -> Case:
    """Parse one case.md. ``path`` is used in messages; ``case_id`` defaults to its folder name.

    Every problem of the file is found in one pass and raised together (a CaseProblems, reading as its first),
    in the order a reader meets them. Only an unclosed frontmatter, which
    swallows the whole body, stops the reading early."""
    if case_id is None:
        parts = re.split(r"[\\/]", path)
        case_id = parts[-2] if len(parts) >= 2 else parts[-1]
    lines = text.removeprefix("\ufeff").splitlines()  # an editor's byte-order mark is not content
    errs: list[CaseError] = []

    def err(message: str, line: int, fix: str) -> CaseError:
        problem = CaseError(path, message, line=line, fix=fix)
        errs.append(problem)
        return problem

    meta, body_start = _frontmatter(lines, path, errs)
    sections = _sections(lines, body_start, path, errs)

    prompt = ""
    if "prompt" not in sections:
        err("no '## Prompt' section", len(lines) or 1,
            "add a '## Prompt' heading followed by the exact text every arm receives")
    else:
        p_line, p_body = sections["prompt"]
        prompt = _block_text(p_body)
        if not prompt:
            err("the prompt is empty", p_line, "write the exact text every arm receives under '## Prompt'")

    soft: tuple[str, ...] = ()
    if "soft criteria" not in sections:
        err("no '## Soft criteria' section", len(lines) or 1,
            "add '## Soft criteria' with at least one '- ' bullet saying what a good answer does")
    else:
        soft = _soft_criteria(*sections["soft criteria"], err)

    seed: tuple[Turn, ...] = ()
    if "seed" in sections:
        seed = _seed(*sections["seed"], err)

    hard: tuple[HardAssertion, ...] = ()
    if "hard assertions" in sections:
        hard = _hard_assertions(*sections["hard assertions"], err)

    # A fence left open is one problem, though both the body's reading and its section's see it.
    open_fences: set[int] = set()
    errs.sort(key=lambda e: e.line or 0)  # in the order a reader meets them
    raise_all([e for e in errs if "not closed" not in e.message
               or not (e.line in open_fences or open_fences.add(e.line))], CaseProblems)
    return Case(
        id=case_id,
        path=path,
        description=meta["description"],
        prompt=prompt,
        soft_criteria=soft,
        fixture=meta.get("fixture"),
        setup=meta.get("setup"),
        seed=seed,
        hard_assertions=hard,
    )


def read_frontmatter(text: str, path: str) -> dict:
    """The YAML frontmatter of a Markdown file (case.md or SKILL.md) as a dict; {} when absent."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return _load_yaml("\n".join(lines[1:i]), path, 2)
    raise CaseError(path, "the frontmatter is not closed", line=1, fix="end the frontmatter with a line '---'")


# --------------------------------------------------------------------------


# Flow brackets nested deeper than this are refused before YAML reads them: PyYAML recurses once per level and
# takes seconds to reach Python's recursion limit on a pathological line; no case needs more than a few.
MAX_NESTING = 100


def _nesting(text: str) -> int:
    """The deepest nesting of flow brackets ([ {) outside quoted scalars."""
    depth = deepest = 0
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def safe_load(text: str):
    """``yaml.safe_load``, with brackets nested past MAX_NESTING refused at once as RecursionError (what
    PyYAML raises, seconds later, on deeper ones): every YAML file benchcore reads goes through it."""
    if ("[" in text or "{" in text) and _nesting(text) > MAX_NESTING:
        raise RecursionError(f"flow brackets nested deeper than {MAX_NESTING}")
    return yaml.safe_load(text)


def _load_yaml(text: str, path: str, first_line: int) -> dict:
    try:
        data = safe_load(text) if text.strip() else {}
    except RecursionError:
        raise CaseError(path, "the frontmatter is nested too deeply to read", line=first_line,
                        fix="write flat 'key: value' lines (description, fixture, setup)") from None
    except yaml.YAMLError as exc:
        line, problem, fix = _yaml_problem(exc)
        raise CaseError(path, f"the frontmatter is not valid YAML: {problem}", line=first_line + line,
                        fix=fix) from None
    if not isinstance(data, dict):
        raise CaseError(path, "the frontmatter is not a mapping of keys to values", line=first_line,
                        fix="write 'key: value' lines between the two '---' lines")
    return data


def _yaml_problem(exc: yaml.YAMLError) -> tuple[int, str, str]:
    """(the line of the mistake, counted from the YAML's first line; what is wrong; the advice that fits it).
    PyYAML marks where it gave up, which for an unclosed quote or bracket is the end of the text, so the
    line is the one where the quote or bracket was opened (its ``context_mark``)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None) or ""
    mark = getattr(exc, "problem_mark", None)
    opened = getattr(exc, "context_mark", None)
    line = mark.line if mark is not None else 0
    if "quoted scalar" in context and opened is not None:
        return (opened.line, "a quoted value is never closed",
                "close the quote on the same line, e.g. description: \"a: b\", or remove the opening quote")
    if "flow sequence" in context or "flow mapping" in context:
        bracket = "[" if "sequence" in context else "{"
        return (opened.line if opened is not None else line, f"a '{bracket}' is never closed",
                f"close the '{bracket}' on the same line, or quote the value if it is text starting with '{bracket}'")
    if "'\\t'" in problem or "\\t" in problem:
        return line, problem, "indent with spaces, not tabs"
    if "mapping values are not allowed" in problem:
        return (line, problem + " (a ':' inside a value)",
                "quote a value that contains ': ', e.g. description: \"a: b\"")
    return (line, problem,
            "write one 'key: value' per line with no indentation; quote a value that contains ': ' or ' #'")


def _frontmatter(lines: list[str], path: str, errs: list) -> tuple[dict, int]:
    """(the frontmatter's checked values, the index of the body's first line); each problem is added to ``errs``
    (an unclosed frontmatter raises at once: the body is inside it)."""
    if not lines or lines[0].strip() != "---":
        errs.append(CaseError(path, "no frontmatter", line=1,
                              fix="start the file with '---', a 'description: <one line>' line, and '---'"))
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        errs.append(CaseError(path, "the frontmatter is not closed", line=1,
                              fix="end the frontmatter with a line '---'"))
        raise_all(errs, CaseProblems)
    try:
        data = _load_yaml("\n".join(lines[1:end]), path, 2)
    except CaseError as bad:
        errs.extend(each(bad))
        return {}, end + 1

    def key_line(key: str) -> int:
        for i in range(1, end):
            if re.match(rf"^{re.escape(key)}\s*:", lines[i]):
                return i + 1
        return 1

    for key in data:
        if key not in FRONTMATTER_KEYS:
            errs.append(CaseError(path, f"unknown frontmatter key {key!r}", line=key_line(str(key)),
                                  fix=f"use only {', '.join(FRONTMATTER_KEYS)}"))
    meta: dict = {}
    desc = data.get("description")
    if desc is not None and not isinstance(desc, (str, bool, dict, list)):
        # YAML reads `description: 2024-01-01` as a date and `description: 42` as a number: the user wrote text.
        raw = lines[key_line("description") - 1].split(":", 1)[1].strip()
        desc = raw if raw and not raw.startswith(("|", ">", "&", "*", "!")) else str(desc)
    if not isinstance(desc, str) or not desc.strip():
        errs.append(CaseError(path, "the frontmatter has no 'description'",
                              line=key_line("description") if desc is not None else 2,
                              fix="add 'description: <one line saying what the case checks>'"))
    elif "\n" in desc.strip():
        errs.append(CaseError(path, "the description spans several lines", line=key_line("description"),
                              fix="keep the description to one line"))
    else:
        meta["description"] = desc.strip()
    for key in ("fixture", "setup"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            errs.append(CaseError(path, f"'{key}' must be a non-empty string", line=key_line(key),
                                  fix=f"write '{key}: <text>' or remove the line"))
            continue
        meta[key] = value.strip()
    fixture = meta.get("fixture")
    if fixture is not None and (fixture.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", fixture)):
        errs.append(CaseError(path, f"the fixture path {fixture!r} is absolute", line=key_line("fixture"),
                              fix="give the fixture path relative to the case folder, e.g. 'fixture: ./fixture'"))
    return meta, end + 1


def _sections(lines: list[str], start: int, path: str, errs: list) -> dict[str, tuple[int, list[tuple[int, str]]]]:
    """Split the body on '## ' headings outside code fences. Values: (heading line, [(line no, text)]). Each
    problem is added to ``errs``; an unknown or repeated heading's text is set aside, not read as a section."""
    sections: dict[str, tuple[int, list[tuple[int, str]]]] = {}
    current: Optional[list[tuple[int, str]]] = None
    fence: Optional[str] = None
    fence_line = 0
    stray = False  # text before the first heading, named once
    for idx in range(start, len(lines)):
        line, no = lines[idx], idx + 1
        if fence is None:
            m = _HEADING.match(line)
            if m:
                title = m.group("title")
                key = title.lower()
                current = []
                if key not in SECTIONS:
                    errs.append(CaseError(path, f"unknown heading '## {title}'", line=no,
                                          fix="use only ## Prompt, ## Seed, ## Hard assertions, ## Soft criteria "
                                              "(a heading inside the prompt text must be '###' or inside a code "
                                              "fence)"))
                elif key in sections:
                    errs.append(CaseError(path, f"'## {title}' appears twice", line=no,
                                          fix=f"merge the two '## {SECTIONS[key]}' sections into one"))
                else:
                    sections[key] = (no, current)
                continue
        fm = _FENCE.match(line.lstrip())
        if fm:
            mark = fm.group("fence")
            if fence is None:
                fence, fence_line = mark, no
            elif line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
        if current is None:
            if line.strip() and not stray:
                stray = True
                errs.append(CaseError(path, "text before the first '##' heading", line=no,
                                      fix="start the body with '## Prompt'"))
            continue
        current.append((no, line))
    if fence is not None:
        errs.append(CaseError(path, "a code block is not closed", line=fence_line,
                              fix=f"close the block with a line '{fence}' (everything after it was swallowed)"))
    return sections


def _block_text(body: list[tuple[int, str]]) -> str:
    return "\n".join(text for _, text in body).strip("\n").rstrip()


def _soft_criteria(heading: int, body, err) -> tuple[str, ...]:
    items: list[str] = []
    bad = False
    for no, line in body:
        if not line.strip():
            continue
        m = _BULLET.match(line)
        if m:
            items.append(m.group("text").strip())
        elif items and line[:1] in (" ", "\t"):
            items[-1] = f"{items[-1]} {line.strip()}"
        else:
            bad = True
            err("a soft criterion that is not a bullet", no,
                "write each criterion as a line starting with '- ' (indent continuation lines)")
    items = [i for i in items if i]
    if not items and not bad:
        err("no soft criteria", heading, "add at least one '- ' bullet saying what a good answer does")
    return tuple(items)


def _seed(heading: int, body, err) -> tuple[Turn, ...]:
    turns: list[list] = []  # [role, [lines], line no]
    stray = False
    for no, line in body:
        m = _ROLE.match(line.strip()) if not turns or not line[:1].isspace() else None
        if m:
            turns.append([m.group("role").lower(), [m.group("text")], no])
        elif turns:
            turns[-1][1].append(line)
        elif line.strip() and not stray:
            stray = True
            err("seed text before the first role tag", no, "start each turn with '**User:**' or '**Assistant:**'")
    if not turns:
        if not stray:
            err("the seed has no turns", heading,
                "write turns as '**User:** ...' and '**Assistant:** ...', or remove '## Seed'")
        return ()
    out: list[Turn] = []
    for i, (role, text_lines, no) in enumerate(turns):
        text = "\n".join(text_lines).strip()
        if not text:
            err(f"the {role} turn is empty", no, "write the turn's text after the role tag")
        elif out and out[-1].role == role:
            err(f"two {role} turns in a row: the seed must alternate roles", no,
                "merge the two turns or add the missing turn of the other role between them")
        else:
            out.append(Turn(role=role, text=text))
    return tuple(out)


def _hard_assertions(heading: int, body, err) -> tuple[HardAssertion, ...]:
    out: list[HardAssertion] = []
    in_block = False
    fence = ""
    block_start = heading
    pending: Optional[tuple[int, str]] = None
    comment: list[str] = []  # the comment lines right above the next predicate
    skipping = False
    for no, line in body:
        stripped = line.strip()
        if not in_block:
            m = _FENCE.match(stripped)
            if m:
                info = m.group("info").lower()
                skipping = info not in _SHELL_INFOS  # named, and its lines not read as predicates
                if skipping:
                    err(f"a code block tagged {info or '(no language)'!r} under '## Hard assertions'", no,
                        "tag assertion blocks as ```sh")
                in_block, block_start, fence = True, no, m.group("fence")
            continue  # prose between blocks is allowed and ignored
        if stripped.startswith(fence) and not stripped.strip(fence[0]):  # closed by the opening fence's kind
            if pending is not None:
                err("the last predicate ends with a continuation backslash", pending[0],
                    "remove the trailing '\\' or add the continued line")
                pending = None
            in_block = False
            comment = []
            continue
        if skipping:
            continue
        if pending is not None:
            start, acc = pending
            if stripped.endswith("\\"):
                pending = (start, acc + "\n" + line)
            else:
                out.append(HardAssertion(command=acc + "\n" + line, line=start, comment="\n".join(comment) or None))
                pending, comment = None, []
            continue
        if not stripped:
            comment = []
            continue
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        if stripped.endswith("\\"):
            pending = (no, line.strip())
        else:
            out.append(HardAssertion(command=stripped, line=no, comment="\n".join(comment) or None))
            comment = []
    if in_block:
        err(f"a {fence}sh block is not closed", block_start, f"close the block with a line '{fence}'")
    return tuple(out)
