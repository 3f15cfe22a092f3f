"""The OS sandbox around an arm's Bash call (harness/confine/sandbox.py): run for real with bubblewrap where it
works here, and the macOS Seatbelt profile as text."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from require import missing

from benchcore.harness.confine import sandbox
from benchcore.harness.plan.sandboxing import keep_out
from places import REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")


@pytest.fixture(scope="module")
def box():
    # As plan prepares it for a run on this repository: the repository's own toolchain on PATH (a clone's
    # .venv, where the README's quick start installs pytest) is bound, its tests tree and skills are not.
    found = sandbox.prepare(False, [str(REPO)], hidden=[str(REPO)], repo=str(REPO), keep_out=keep_out(REPO))
    if found.sandbox is None:
        missing("sandbox", f"no working bubblewrap here: {found.problem}")  # CI: BENCH_REQUIRE_SANDBOX fails it
    return found.sandbox


@pytest.fixture()
def place(tmp_path):
    world, copy, other = tmp_path / "world", tmp_path / "copy", tmp_path / "other-world"
    for d in (world, copy, other):
        d.mkdir()
    (copy / "SKILL.md").write_text("skill\n")
    (other / "answer.md").write_text("the other arm's work\n")
    pkg = world / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("def add(a, b):\n    return a - b\n")
    (world / "test_add.py").write_text("from pkg import add\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    return world, copy, other


def run(box, command, world, copy, env=None):
    return subprocess.run(["/bin/bash", "-c", sandbox.wrap(box, command, str(world), str(copy))],
                          capture_output=True, text=True, timeout=120, env=env)


def test_an_arm_runs_code_in_its_world_and_edits_commit_and_tests_work(box, place):
    world, copy, _ = place
    # -B: the first run writes no bytecode, which the second could read as fresh (same size, same second)
    p = run(box, "python3 -B -m pytest -q 2>&1 | tail -1; sed -i 's/a - b/a + b/' pkg/__init__.py && "
                 "python3 -m pytest -q 2>&1 | tail -1; git init -q . && git add -A && git commit -qm fix && "
                 "git log --format='%an <%ae>'; cat " + str(copy / "SKILL.md"), world, copy)
    out = p.stdout.splitlines()
    assert "1 failed" in out[0] and "1 passed" in out[1], p.stdout + p.stderr
    assert out[2] == "Benchmark Arm <arm@benchmark.invalid>" and out[3] == "skill"
    assert "a + b" in (world / "pkg" / "__init__.py").read_text()  # the edit landed in the real world


def test_nothing_outside_is_reachable(box, place, tmp_path):
    world, copy, other = place
    home = os.path.expanduser("~")
    probes = {"repo": str(REPO / "README.md"), "other world": str(other / "answer.md"),
              "claude config": os.path.join(home, ".claude"), "home file": os.path.join(home, ".bashrc")}
    for what, path in probes.items():
        p = run(box, f"cat {path} || ls {path}", world, copy)
        assert p.returncode != 0 and "other arm" not in p.stdout and "benchcore" not in p.stdout.lower(), what
    assert run(box, f"echo x > {copy}/SKILL.md", world, copy).returncode != 0  # the copy is read-only
    assert (copy / "SKILL.md").read_text() == "skill\n"
    assert run(box, "echo x > /usr/evil", world, copy).returncode != 0
    # a private /tmp: what it writes there is gone, and the host's /tmp is not seen
    marker = Path("/tmp") / f"benchcore-sandbox-probe-{os.getpid()}"
    marker.write_text("host")
    try:
        assert run(box, f"cat {marker}", world, copy).returncode != 0
        assert run(box, "echo arm > /tmp/arm-wrote", world, copy).returncode == 0
        assert not Path("/tmp/arm-wrote").exists()
    finally:
        marker.unlink()


def test_no_network_and_no_session_secrets(box, place):
    world, copy, _ = place
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-secret-123", GITHUB_TOKEN="ghp-secret")
    p = run(box, "env; python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), 2)\" && echo NET",
            world, copy, env=env)
    assert "secret" not in p.stdout and "ANTHROPIC" not in p.stdout and "NET" not in p.stdout
    assert "HOME=/tmp/home" in p.stdout


def test_a_detached_process_does_not_outlive_the_command(box, place):
    world, copy, _ = place
    tag = f"benchcore-outlive-{os.getpid()}"
    # Durations no other process has (issue 39, item 12: another run of the suite on the machine started the
    # same "sleep 30" and failed this test): what is looked for in the process table is this test's alone.
    late, nohup = (f"{30 + n}.{os.getpid()}{time.monotonic_ns() % 1000:03d}" for n in (0, 1))
    p = run(box, f"(setsid sh -c 'sleep {late}; echo late > {tag}' &) ; nohup sleep {nohup} >/dev/null 2>&1 & "
                 "echo started", world, copy)
    assert p.stdout.strip() == "started"
    time.sleep(0.5)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    running = {line.strip() for line in ps.splitlines()}
    assert f"sleep {late}" not in running and f"sleep {nohup}" not in running and tag not in ps


def test_a_bwrap_that_cannot_run_is_named_with_its_fix(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    found = sandbox.prepare(False, [], environ=dict(os.environ, **{sandbox.PROGRAM_KNOB: str(fake)}))
    assert found.sandbox is None and "uid map: Permission denied" in found.problem
    assert "apt-get install bubblewrap" in found.fix and "apparmor_restrict_unprivileged_userns" in found.fix


def test_the_toolchain_on_path_is_bound_but_never_the_home_secrets_or_the_repository(tmp_path):
    home = tmp_path / "home"
    for d in (".pyenv/shims", ".pyenv/libexec", ".ssh", ".local/bin", "proj/bin", ".claude/bin"):
        (home / d).mkdir(parents=True)
    (home / ".pyenv/libexec/pyenv").write_text("")
    path = os.pathsep.join(str(home / d) for d in (".pyenv/shims", ".local/bin", "proj/bin", ".claude/bin")) + ":/usr/bin"
    chain = sandbox.toolchain(path, str(home), [str(home / "proj")])
    assert chain.binds == (str(home / ".pyenv/libexec"), str(home / ".pyenv/shims"), str(home / ".local/bin"))
    assert str(home / "proj/bin") not in chain.path and chain.path[-1] == "/bin"
    # A virtual environment's python3 is a link into the interpreter's own prefix: that is bound too.
    (home / ".pyenv/versions/3.11/bin").mkdir(parents=True)
    (home / ".pyenv/versions/3.11/lib").mkdir(parents=True)
    (home / ".pyenv/versions/3.11/bin/python3.11").write_text("")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = x\n")
    (venv / "bin/python3").symlink_to(home / ".pyenv/versions/3.11/bin/python3.11")
    chain = sandbox.toolchain(str(venv / "bin"), str(home / "elsewhere"), [])
    assert chain.binds == (str(venv), str(home / ".pyenv/versions/3.11"))


def test_the_network_is_shared_only_when_benchmark_yaml_allows_it(box):
    off = sandbox.build("bwrap", box.program, False, [])
    on = sandbox.build("bwrap", box.program, True, [])
    assert "--unshare-all" in off.args and "--share-net" not in off.args
    assert on.args[:3] == ("--die-with-parent", "--new-session", "--unshare-all") and on.network
    assert "--share-net" in on.args and "--as-pid-1" in on.args and "--as-pid-1" in off.args


def test_every_command_reaches_the_sandboxs_shell_word_for_word():
    # The part of the bwrap command line that is the same for an arm's commands is quoted once; the shell
    # that runs the line still hands bwrap the arm's command exactly, whatever it holds.
    import shlex

    box = sandbox.Sandbox(kind="bwrap", program="/opt/b wrap/bwrap", args=("--ro-bind", "/usr", "/usr"),
                          shell="/bin/sh")
    for command in ("", "make test", "echo 'a b' \"c\" $HOME `id`", "x\ny\tz", "é ü 中", "'", "a\\b"):
        for copy in (None, "/w/it's copy"):
            words = shlex.split(sandbox.wrap(box, command, "/w/my world", copy))
            assert words[:4] == ["/opt/b wrap/bwrap", "--ro-bind", "/usr", "/usr"]
            assert ("--ro-bind" in words[4:6]) == bool(copy)
            assert words[-3:] == ["/bin/sh", "-c", command]
            assert words[-9:-3] == ["--setenv", "PWD", "/w/my world", "--chdir", "/w/my world", "--"]
