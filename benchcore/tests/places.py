"""Where the test suite's files are, for tests in any folder below ``tests/``."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent        # benchcore/tests: fixtures/, report_golden/, the helpers
BENCHCORE = TESTS.parent                       # benchcore/: pyproject.toml, src/
REPO = BENCHCORE.parent                        # the repository: skills/, tests/, checks/, README.md
