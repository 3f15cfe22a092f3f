"""A skill holding a link to a folder gets one clear error from validate and plan (issue 18, item 7).

Regression: validate said ok, and plan stopped on git's own message ("git hash-object --stdin-paths failed:
fatal: Unable to hash skills/foo/refs") with a fix about the repository having no commit.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchcore.cli import main


def _repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "skills" / "foo").mkdir(parents=True)
    (r / "shared").mkdir()
    (r / "shared" / "r.md").write_text("a shared reference\n")
    (r / "skills" / "foo" / "SKILL.md").write_text("---\nname: foo\ndescription: Foo things.\n---\nDo foo.\n")
    (r / "skills" / "foo" / "refs").symlink_to("../../shared")
    (r / "skills" / "foo" / "one.md").symlink_to("../../shared/r.md")  # a link to a file is copied as the file
    (r / "tests" / "foo" / "01-a").mkdir(parents=True)
    (r / "tests" / "foo" / "01-a" / "case.md").write_text(
        "---\ndescription: a\n---\n\n## Prompt\nDo a.\n\n## Soft criteria\n- good\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"],
                ["-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(r), *cmd], check=True, capture_output=True, env=env)
    return r


def test_validate_and_plan_name_the_link_and_the_fix(tmp_path, monkeypatch, capsys):
    r = _repo(tmp_path)
    monkeypatch.chdir(r)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["validate"]) == 2
    out = capsys.readouterr().out
    assert "skills/foo/refs: is a link to a folder inside a skill" in out and "fix: replace the link" in out
    assert "skills/foo/one.md" not in out
    assert main(["plan", "foo", "--seed", "1", "--temp-dir", str(tmp_path / "tmp")]) == 2
    err = capsys.readouterr().err
    assert "skills/foo/refs: is a link to a folder inside a skill" in err and "hash-object" not in err
    assert not (r / "tests" / ".reports" / "runs").exists() or not any((r / "tests" / ".reports" / "runs").iterdir())
