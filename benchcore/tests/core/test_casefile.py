"""case.md parsing (docs/case-format.md): what parses, and errors that name the line and the fix."""

import textwrap

import pytest

from benchcore.casefile import parse_case
from benchcore.errors import CaseError

GOOD = textwrap.dedent("""\
    ---
    description: A small diff gets a one-line conventional commit
    fixture: ./fixture
    setup: git init -q && git add -A
    ---

    ## Prompt
    Write the commit message for what I staged.

    ```
    ## this is prompt text inside a fence, not a heading
    ```

    ## Seed
    **User:** We discussed caching yesterday.
    It went long.
    **Assistant:** I remember: the TTL question.

    ## Hard assertions
    The subject must be conventional.
    ```sh
    # comments are not predicates
    head -n1 "$OUTPUT" | grep -Eq '^(feat|fix)(\\(.+\\))?: '
    test -f "$WORLD/CHANGELOG.md" && \\
      grep -q '## Unreleased' "$WORLD/CHANGELOG.md"
    ```

    ## Soft criteria
    - Names the change precisely
      and briefly.
    - Mentions the breaking change.
    """)


def test_a_full_case_parses():
    case = parse_case(GOOD, "tests/git/commit-message/01-small/case.md")
    assert case.id == "01-small"
    assert case.description == "A small diff gets a one-line conventional commit"
    assert case.fixture == "./fixture"
    assert case.setup == "git init -q && git add -A"
    assert case.prompt.startswith("Write the commit message for what I staged.")
    assert "## this is prompt text inside a fence" in case.prompt
    assert [(t.role, t.text) for t in case.seed] == [
        ("user", "We discussed caching yesterday.\nIt went long."),
        ("assistant", "I remember: the TTL question."),
    ]
    assert [a.line for a in case.hard_assertions] == [23, 24]
    assert case.hard_assertions[1].command.endswith('grep -q \'## Unreleased\' "$WORLD/CHANGELOG.md"')
    assert "\\\n" in case.hard_assertions[1].command  # the continuation is kept for sh
    assert case.soft_criteria == ("Names the change precisely and briefly.", "Mentions the breaking change.")


def test_a_seed_may_start_and_end_with_either_role():
    # The contract asks only that turns alternate; the seed is handed to the arm as prior turns.
    text = _with("## Prompt\nhi\n## Seed\n**Assistant:** What do you need?\n**User:** An ADR.\n## Soft criteria\n- x\n")
    assert [t.role for t in parse_case(text, "t/s/01/case.md").seed] == ["assistant", "user"]


def test_minimal_case_has_defaults():
    case = parse_case("---\ndescription: d\n---\n## Prompt\nhi\n## Soft criteria\n- good\n", "t/x/01/case.md")
    assert (case.fixture, case.setup, case.seed, case.hard_assertions) == (None, None, (), ())


def _with(body: str, front: str = "description: d") -> str:
    return f"---\n{front}\n---\n{body}"


BAD = [
    ("no-frontmatter", "## Prompt\nhi\n", 1, "description"),
    ("unclosed-frontmatter", "---\ndescription: d\n## Prompt\n", 1, "'---'"),
    ("bad-yaml", _with("## Prompt\nhi\n", "description: a: b"), 2, "quote"),
    ("no-description", _with("## Prompt\nhi\n## Soft criteria\n- x\n", "fixture: ./f"), 2, "description"),
    ("unknown-key", _with("## Prompt\nhi\n", "description: d\ntrials: 3"), 3, "description, fixture, setup"),
    ("absolute-fixture", _with("## Prompt\nhi\n", "description: d\nfixture: /etc"), 3, "relative"),
    ("unknown-heading", _with("## Prompt\nhi\n## Notes\nx\n"), 6, "## Prompt, ## Seed"),
    ("duplicate-heading", _with("## Prompt\nhi\n## Prompt\nagain\n"), 6, "merge"),
    ("text-before-heading", _with("hello\n## Prompt\nhi\n"), 4, "## Prompt"),
    ("no-prompt", _with("## Soft criteria\n- x\n"), 5, "## Prompt"),
    ("empty-prompt", _with("## Prompt\n\n## Soft criteria\n- x\n"), 4, "exact text"),
    ("no-soft-criteria-section", _with("## Prompt\nhi\n"), 5, "Soft criteria"),
    ("empty-soft-criteria", _with("## Prompt\nhi\n## Soft criteria\n\n"), 6, "bullet"),
    ("soft-not-bullet", _with("## Prompt\nhi\n## Soft criteria\nbe good\n"), 7, "'- '"),
    ("seed-not-alternating", _with("## Prompt\nhi\n## Seed\n**User:** a\n**User:** b\n**Assistant:** c\n## Soft criteria\n- x\n"), 8, "other role"),
    ("seed-text-before-role", _with("## Prompt\nhi\n## Seed\nhello\n## Soft criteria\n- x\n"), 7, "**User:**"),
    ("assertion-wrong-language", _with("## Prompt\nhi\n## Hard assertions\n```python\nx\n```\n## Soft criteria\n- x\n"), 7, "```sh"),
    ("assertion-unclosed", _with("## Prompt\nhi\n## Hard assertions\n```sh\ntrue\n## Soft criteria\n- x\n"), 7, "close"),
    ("assertion-dangling-backslash", _with("## Prompt\nhi\n## Hard assertions\n```sh\ntrue \\\n```\n## Soft criteria\n- x\n"), 8, "\\"),
]


@pytest.mark.parametrize("text,line,fix_hint", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_cases_name_the_line_and_the_fix(text, line, fix_hint):
    with pytest.raises(CaseError) as info:
        parse_case(text, "tests/s/01-x/case.md")
    err = info.value
    assert err.path == "tests/s/01-x/case.md"
    assert err.line == line, str(err)
    assert fix_hint in (err.fix or ""), str(err)
    assert str(err).startswith(f"tests/s/01-x/case.md:{line}: ")


def test_a_byte_order_mark_and_windows_line_endings_parse_like_the_plain_file():
    # Bug: a case.md saved with a UTF-8 BOM (some Windows editors) failed with "no frontmatter" at line 1.
    plain = parse_case(GOOD, "tests/s/01-x/case.md")
    assert parse_case("\ufeff" + GOOD.replace("\n", "\r\n"), "tests/s/01-x/case.md") == plain


def test_a_tilde_fenced_assertion_block_closes_with_its_own_fence():
    # Bug: '~~~sh' opened an assertion block, but only '```' closed it, so the case was refused as unclosed.
    case = parse_case(_with("## Prompt\nhi\n## Hard assertions\n~~~sh\ntest -s \"$OUTPUT\"\n~~~\n"
                            "## Soft criteria\n- x\n"), "tests/s/01-x/case.md")
    assert [(a.command, a.line) for a in case.hard_assertions] == [('test -s "$OUTPUT"', 8)]


def test_brackets_nested_past_the_limit_are_refused_at_once_and_quoted_ones_are_text():
    deep = "---\ndescription: " + "[" * 101 + "]" * 101 + "\n---\n## Prompt\nhi\n## Soft criteria\n- good\n"
    with pytest.raises(CaseError) as err:
        parse_case(deep, "t/s/01-x/case.md")
    assert "nested too deeply" in str(err.value) and err.value.line == 2
    quoted = "---\ndescription: \"" + "[" * 500 + "\"\n---\n## Prompt\nhi\n## Soft criteria\n- good\n"
    assert parse_case(quoted, "t/s/01-x/case.md").description == "[" * 500
    shallow = "---\ndescription: d\nsetup: [[a], {b: [c]}]\n---\n## Prompt\nhi\n## Soft criteria\n- good\n"
    with pytest.raises(CaseError) as err:  # nested but shallow: YAML reads it, and the setup check refuses it
        parse_case(shallow, "t/s/01-x/case.md")
    assert "nested too deeply" not in str(err.value)
