"""What ``--help`` tells a new user: the order of the commands, the exit codes, one spelling, the defaults."""

from __future__ import annotations

import pytest

from benchcore.cli import COMMANDS, main


def help_of(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_top_level_help_gives_the_order_of_the_commands_and_the_exit_codes(capsys):
    # Bug: no help text said in which order the commands run or what the exit codes mean.
    text = help_of(capsys)
    steps = [text.index(f"  benchcore {name} ") for name in ("validate", "plan", "collect", "render", "clean")]
    assert steps == sorted(steps)
    assert "  0  done" in text
    assert "  1  render only: done, but a verdict is red or the run is incomplete" in text
    assert "collect: work done, the next: line names what is left" in text and "  3  internal error" in text
    assert "  2  bad input" in text


@pytest.mark.parametrize("name", ["collect", "render", "clean"])
def test_every_command_spells_its_run_directory_run_dir(capsys, name):
    # Bug: render showed 'run_dir' where collect and clean said 'run-dir'.
    text = help_of(capsys, name)
    assert "run-dir" in text and "run_dir" not in text


def test_collect_help_shows_the_assertion_time_limit(capsys):
    # Bug: --assert-timeout showed no default.
    assert "seconds per hard assertion (default: 60)" in " ".join(help_of(capsys, "collect").split())


def test_every_command_has_help(capsys):
    for name in COMMANDS:
        assert help_of(capsys, name).startswith(f"usage: benchcore {name}")
