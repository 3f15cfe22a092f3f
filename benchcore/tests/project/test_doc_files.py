"""Every file the user's docs name exists (issue 39, item 11).

Bug: docs/writing-cases.md's checklist named tests/test_example_cases.py, which does not exist. This reads the
README, docs/*.md and benchcore/README.md, takes each inline code span (split at white space, so a path inside a
command counts) and each link target, and checks those that name a file of this project: a pytest node id
(``file::test``: the file and the test both), a link's target, a ``.py`` file, or a path under benchcore/, skills/benchmark-skill/,
docs/, nix/, checks/ or .ci/. A path is looked for from the repository, the doc's folder and the folders the docs
speak from (benchcore/, its package, harness/, report/, bench/, the skill's folder). Placeholders (``<skill>``,
``*``, ``...``) and paths in the user's own repository or home (``~/``, ``.claude/``) are not files of ours.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DOCS = sorted([REPO / "README.md", REPO / "benchcore" / "README.md", *(REPO / "docs").glob("*.md")])
OURS = ("benchcore/", "skills/benchmark-skill/", "docs/", "nix/", "checks/", ".ci/")
BASES = ("", "benchcore", "benchcore/src/benchcore", "benchcore/src/benchcore/harness",
         "benchcore/src/benchcore/report", "benchcore/bench", "benchcore/tests", "skills/benchmark-skill")
_SPAN = re.compile(r"`([^`\n]+)`|\]\(([^)#\s]+)(?:#[^)]*)?\)")
_PLACEHOLDER = re.compile(r"[<>*{}$|…\[\]]|\.\.\.")


def named_files(text: str):
    """(line, the path as written) for every file of ours the text names."""
    for m in _SPAN.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        link = m.group(2) is not None  # a link's target is a file of ours unless it leaves the project
        for token in (m.group(1) or m.group(2)).split():
            token = token.strip("'\"(),;:.") if "::" not in token else token.strip("'\"(),;")
            path, _, test = token.partition("::")
            if not path or path.startswith(("http", "mailto", "~", "/", "-")) or _PLACEHOLDER.search(token):
                continue
            if link or test or path.endswith(".py") or path.startswith(OURS):
                yield line, token


def missing(doc: Path, token: str) -> bool:
    path, _, test = token.partition("::")
    if "/" not in path:  # a bare file name (`run.py`): some file of the project has it
        hits = [p for p in REPO.glob(f"**/{path}") if ".git" not in p.parts]
    else:
        hits = [REPO / b / path for b in BASES if (REPO / b / path).exists()]
        hits += [doc.parent / path] if (doc.parent / path).exists() else []
    if not hits:
        return True
    if test:
        name = re.escape(test.split("[")[0])
        return not any(re.search(rf"^\s*(?:async\s+)?def {name}\(", h.read_text(encoding="utf-8"), re.M)
                       for h in hits if h.is_file())
    return False


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(REPO)) for d in DOCS])
def test_every_file_a_doc_names_exists(doc):
    gone = [f"{doc.relative_to(REPO)}:{line}: {token}" for line, token in named_files(doc.read_text(encoding="utf-8"))
            if missing(doc, token)]
    assert not gone, "files named that do not exist:\n" + "\n".join(gone)


def test_the_check_finds_what_it_should():
    # The bug's own line, a test that is not in its file, and what is no file of ours.
    doc = REPO / "docs" / "writing-cases.md"
    text = ("`cd benchcore && python -m pytest -q tests/test_example_cases.py` and "
            "`benchcore/tests/core/test_casefile.py::test_no_such_test` and "
            "`benchcore/tests/core/test_casefile.py::test_a_full_case_parses` and `tests/<skill>/<case>/case.md` "
            "and `.claude/settings.local.json` and [the format](case-format.md) and [gone](no-such-page.md)")
    assert [t for _, t in named_files(text) if missing(doc, t)] == [
        "tests/test_example_cases.py", "benchcore/tests/core/test_casefile.py::test_no_such_test", "no-such-page.md"]
