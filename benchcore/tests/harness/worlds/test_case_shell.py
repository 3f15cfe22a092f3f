"""A case's own shell (its setup, its hard assertions, a sample's act.sh) runs in the arms' OS sandbox
(harness/worlds/shell.py, confine/sandbox.py case_argv; issue 37, finding 1).

Run for real with bubblewrap where it works here (as root on CI and this machine). Each test plants what an
arm could plant, a secret in the home folder, a session variable, and shows the predicate, setup or act.sh
cannot reach it, write outside its world, or outlive its time limit, while the same command run unconfined
(the --no-sandbox fallback) can: the tests see the difference, not only an absence.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from processes import until_none_runs

from benchcore.errors import BenchError
from benchcore.harness.confine import sandbox
from benchcore.harness.worlds.assertions import run_assertions
from benchcore.harness.worlds.samples import case_sample_problems
from benchcore.harness.worlds.shell import run_shell
from benchcore.harness.worlds.temp import run_setup
from benchcore.model import HardAssertion
from benchcore.harness.repo.tree import load_case
from places import BENCHCORE, REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")

KEY = "sk-ant-case-shell-secret-0042"


@pytest.fixture(scope="module")
def box():
    found = sandbox.prepare(False, [str(REPO)], hidden=[str(REPO)])
    if found.sandbox is None:
        pytest.skip(f"no working bubblewrap here: {found.problem}")
    return found.sandbox


@pytest.fixture()
def home_secret():
    """A secret planted in the real home folder (removed after), and a path there nothing may write."""
    home = Path(os.path.expanduser("~"))
    secret = home / f".benchcore-case-shell-secret-{os.getpid()}"
    stolen = home / f".benchcore-case-shell-stolen-{os.getpid()}"
    secret.write_text("the user's secret\n")
    try:
        yield secret, stolen
    finally:
        secret.unlink(missing_ok=True)
        stolen.unlink(missing_ok=True)


@pytest.fixture()
def world(tmp_path):
    w = tmp_path / "world"
    (w / "tests").mkdir(parents=True)
    (w / "tests" / "__init__.py").write_text("")
    (w / "tests" / "test_ok.py").write_text("import unittest\n\nclass T(unittest.TestCase):\n"
                                            "    def test_ok(self):\n        self.assertTrue(True)\n")
    return w


def checks(*commands: str) -> list[HardAssertion]:
    return [HardAssertion(command=c, line=i) for i, c in enumerate(commands, 1)]


def plant_stealer(world: Path, secret: Path, stolen: Path) -> None:
    """What the arm of finding 1 left in its world: a test file unittest discover imports, which reads the
    home folder's secret and the session's key and writes them to the home folder and into benchcore."""
    target = BENCHCORE / "src" / "benchcore" / "__init__.py"
    (world / "tests" / "test_steal.py").write_text(f"""
import os, json
seen = {{}}
for name, act in (("read_home", lambda: open({str(secret)!r}).read()),
                  ("write_home", lambda: open({str(stolen)!r}, "w").write(os.environ.get("ANTHROPIC_API_KEY", "-"))),
                  ("patch_benchcore", lambda: open({str(target)!r}, "a").write("# patched\\n"))):
    try:
        seen[name] = ("did", act())
    except OSError as exc:
        seen[name] = ("refused", exc.strerror)
seen["key"] = os.environ.get("ANTHROPIC_API_KEY")
json.dump(seen, open("probe.json", "w"))
""")


def test_a_planted_test_file_the_predicate_imports_reaches_nothing_outside_the_world(box, world, home_secret,
                                                                                   monkeypatch, tmp_path):
    secret, stolen = home_secret
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    plant_stealer(world, secret, stolen)
    before = (BENCHCORE / "src" / "benchcore" / "__init__.py").read_bytes()
    output = tmp_path / "output.md"
    output.write_text("Fixed it.\n")
    [r] = run_assertions(checks("python3 -B -m unittest discover -s tests -t ."), output, world, timeout=60,
                         sandbox=box)
    assert r.exit == 0 and not r.timed_out, r.stderr  # the predicate itself ran as before: 2 tests, OK
    seen = json.loads((world / "probe.json").read_text())  # the world is read-write: its probe landed
    assert seen["read_home"][0] == "refused" and seen["write_home"][0] == "refused"
    assert seen["patch_benchcore"][0] == "refused"
    assert seen["key"] is None
    assert not stolen.exists() and (BENCHCORE / "src" / "benchcore" / "__init__.py").read_bytes() == before
    # The same predicate unconfined (the --no-sandbox fallback) reads and writes all of it: what the sandbox
    # keeps out is really there to be reached.
    (world / "tests" / "test_steal.py").write_text((world / "tests" / "test_steal.py").read_text().replace(
        str(BENCHCORE / "src" / "benchcore" / "__init__.py"), str(tmp_path / "stand-in-for-benchcore.py")))
    [r] = run_assertions(checks("python3 -B -m unittest discover -s tests -t ."), output, world, timeout=60)
    seen = json.loads((world / "probe.json").read_text())
    assert r.exit == 0 and seen["read_home"][0] == "did" and seen["key"] == KEY
    assert stolen.read_text() == KEY


def test_a_predicate_sees_the_sandboxs_environment_not_the_sessions(box, world, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("CLAUDE_CODE_MESSAGING_TOKEN", "tok-123")
    output = tmp_path / "output.md"
    output.write_text("answer\n")
    results = run_assertions(checks(
        'env > env.txt; cat /proc/1/environ /proc/self/environ >> env.txt 2>/dev/null; true',
        'test -z "${ANTHROPIC_API_KEY:-}" && test -z "${CLAUDE_CODE_MESSAGING_TOKEN:-}"',
        'test "$HOME" = /tmp/home && test "$WORLD" = "$PWD"'), output, world, timeout=30, sandbox=box)
    assert [r.exit for r in results] == [0, 0, 0], [r.stderr for r in results]
    env = (world / "env.txt").read_text(errors="replace")
    assert KEY not in env and "tok-123" not in env and "GIT_CONFIG_NOSYSTEM=1" in env


def test_output_is_a_read_only_copy_at_a_fixed_path(box, world, tmp_path):
    output = tmp_path / "output.md"
    output.write_text("the arm's answer\n")
    first, second, third = run_assertions(checks(
        f'test "$OUTPUT" = {sandbox.OUTPUT_INSIDE} && grep -q "the arm" "$OUTPUT"',
        'echo rewritten > "$OUTPUT"',
        'rm -f "$OUTPUT"'), output, world, timeout=30, sandbox=box)
    assert first.exit == 0, first.stderr
    assert second.exit != 0 and "Read-only file system" in second.stderr
    assert third.exit != 0 and output.read_text() == "the arm's answer\n"
    # No output.md: $OUTPUT names a path where nothing is, as unconfined.
    [none] = run_assertions(checks('test ! -e "$OUTPUT"'), tmp_path / "missing.md", world, timeout=30, sandbox=box)
    assert none.exit == 0, none.stderr


def test_a_predicate_cannot_write_outside_its_world_and_sees_the_error(box, world, tmp_path, home_secret):
    _, stolen = home_secret
    output = tmp_path / "output.md"
    output.write_text("x\n")
    outside = tmp_path / "beside-the-world.txt"
    results = run_assertions(checks(f"echo x > {stolen}", "echo x > /usr/evil", "echo x > /evil",
                                    f"echo x > {REPO / 'evil.txt'}", f"echo x > {outside}", "echo ok > in-world.txt"),
                             output, world, timeout=30, sandbox=box)
    *refused, beside, ok = results
    for r in refused:  # the home folder, the system, the root, the repository: an error the predicate sees
        assert r.exit != 0 and ("Read-only file system" in r.stderr or "No such file" in r.stderr), r
    # Beside the world is the sandbox's private scratch (the world's parents are made in its private /tmp or
    # /dev/shm): what is written there is not on this machine afterwards.
    assert ok.exit == 0 and (world / "in-world.txt").read_text() == "ok\n"
    assert not stolen.exists() and not outside.exists() and not (REPO / "evil.txt").exists()


def test_a_predicate_that_hangs_is_killed_with_everything_it_started(box, world, tmp_path):
    output = tmp_path / "output.md"
    output.write_text("x\n")
    late = world / "late.txt"
    start = time.monotonic()
    [r] = run_assertions(checks(f"(sleep 3; echo late > {late}) & setsid sh -c 'sleep 3; echo l2 > {late}2' & "
                                "sleep 60"), output, world, timeout=1, sandbox=box)
    assert r.timed_out and r.exit is None and "timed out after 1s" in r.stderr
    assert time.monotonic() - start < 10
    until_none_runs(3.5, tag=str(late))  # at once when nothing it started outlived the limit
    assert not late.exists() and not Path(f"{late}2").exists()  # nothing it started outlived the limit


def _listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    def serve():
        try:
            while True:
                srv.accept()[0].close()
        except OSError:  # closed by the test
            pass
    threading.Thread(target=serve, daemon=True).start()
    return srv


def test_no_network_unless_benchmark_yaml_allows_it(box, world, tmp_path):
    srv = _listener()
    port = srv.getsockname()[1]
    output = tmp_path / "output.md"
    output.write_text("x\n")
    probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\""
    [off] = run_assertions(checks(probe), output, world, timeout=30, sandbox=box)
    networked = sandbox.build("bwrap", box.program, True, [str(REPO)])
    [on] = run_assertions(checks(probe), output, world, timeout=30, sandbox=networked)
    srv.close()
    assert off.exit != 0 and on.exit == 0, (off.stderr, on.stderr)


def test_the_worlds_git_setup_is_still_refused_before_any_check_runs(box, world, tmp_path):
    subprocess.run(["git", "init", "-q", str(world)], check=True)
    (world / ".git" / "config").write_text("[include]\n\tpath = /etc/elsewhere\n")
    output = tmp_path / "output.md"
    output.write_text("x\n")
    [r] = run_assertions(checks("echo ran > ran.txt"), output, world, timeout=30, sandbox=box)
    assert r.exit is None and "refused before any check ran" in r.stderr and not (world / "ran.txt").exists()


def test_setup_runs_in_the_sandbox_and_commits_as_it_names(box, world, home_secret, monkeypatch):
    secret, stolen = home_secret
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    run_setup(world, 'env > setup-env.txt; git init -q && git add -A && git -c user.name="Dana Ruiz" '
                     '-c user.email=dana@example.com commit -qm init && git log --format=%an > author.txt; '
                     f'cat {secret} > got.txt 2>&1 || true', "tests/x/01-case/case.md", box)
    assert KEY not in (world / "setup-env.txt").read_text() and "WORLD=" + str(world) in (world / "setup-env.txt").read_text()
    assert (world / "author.txt").read_text() == "Dana Ruiz\n"  # not the arms' generated identity
    assert "user's secret" not in (world / "got.txt").read_text()
    with pytest.raises(BenchError) as err:
        run_setup(world, f"echo x > {stolen}", "tests/x/01-case/case.md", box)
    # The home folder is not the world's: read-only where a toolchain the sandbox binds lives under it (root's
    # pyenv in /root), absent from the sandbox otherwise (an ordinary user's, with the system's Python). The write
    # is refused either way; only the error's words differ.
    said = str(err.value)
    assert "tests/x/01-case/case.md" in said and ("Read-only file system" in said or "No such file or directory" in said)
    assert "in the arms' sandbox" in str(err.value) and not stolen.exists()


def test_run_shell_unconfined_keeps_the_old_behaviour(world, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    ran = run_shell('echo "$ANTHROPIC_API_KEY"; echo err >&2; exit 3', str(world), sandbox=None, timeout=10)
    assert ran.exit == 3 and ran.stdout.strip() == KEY and ran.stderr.strip() == "err"


def test_validate_runs_a_samples_setup_act_and_predicates_in_the_sandbox(box, tmp_path, home_secret, monkeypatch):
    """A case whose good sample passes only where nothing of the session is seen: its setup, act.sh and
    predicates each record what they saw, and the predicates require that none of it leaked."""
    secret, _ = home_secret
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    root = tmp_path / "repo"
    d = root / "tests" / "x" / "01-probe"
    (d / "fixture").mkdir(parents=True)
    (d / "fixture" / "README.md").write_text("fixture\n")
    text = ("---\ndescription: probe\nsetup: env > setup-env.txt\n---\n## Prompt\nDo it.\n## Hard assertions\n"
            "```sh\n"
            f"test ! -e {secret}\n"
            f"! grep -q {KEY} setup-env.txt act-env.txt\n"
            'grep -q done "$OUTPUT"\n'
            "```\n## Soft criteria\n- fine\n")
    (d / "case.md").write_text(text)
    for name, answer in (("good", "done\n"), ("bad-nothing", "nothing\n")):
        (d / "samples" / name).mkdir(parents=True)
        (d / "samples" / name / "output.md").write_text(answer)
        (d / "samples" / name / "act.sh").write_text("env > act-env.txt\n")
    case = load_case(root, d)
    problems = case_sample_problems(root, d, case, box)
    # Only the bad sample's output fails, on the third predicate; the first two pass on every sample.
    assert problems and all("no bad sample makes this predicate fail" in str(p) for p in problems), problems
    assert {p.line for p in problems} == {case.hard_assertions[0].line, case.hard_assertions[1].line}
    # Unconfined (validate where no sandbox runs), the same samples see the session: the good one fails.
    loose = case_sample_problems(root, d, case, None)
    failed = {p.line for p in loose if "the good sample tests/x/01-probe/samples/good fails" in str(p)}
    assert failed == {case.hard_assertions[0].line, case.hard_assertions[1].line}, loose


def test_the_case_command_line_adds_only_narrowing_to_the_arms_fixed_part():
    """bwrap: the run's fixed part first (what every arm gets), then only what narrows it or is the case's:
    capabilities dropped, the arms' git identity unset, $OUTPUT bound read-only, the world, the root read-only
    last; the command word for word. Seatbelt: the arms' profile with the output's folder read-only and a
    private scratch, the same environment without the arms' identity."""
    import shlex

    fixed = ("--unshare-all", "--ro-bind", "/usr", "/usr", "--tmpfs", "/tmp", "--clearenv",
             "--setenv", "GIT_AUTHOR_NAME", "Benchmark Arm")
    box = sandbox.Sandbox(kind="bwrap", program="/usr/bin/bwrap", args=fixed, shell="/bin/bash",
                          env={"PATH": "/usr/bin", "GIT_AUTHOR_NAME": "Benchmark Arm"})
    argv = sandbox.case_argv(box, "echo 'a b' $HOME", "/w/my world", "/s/output.md", {"WORLD": "/w/my world"})
    assert argv[:1 + len(fixed)] == ["/usr/bin/bwrap", *fixed]
    rest = argv[1 + len(fixed):]
    assert rest[:2] == ["--cap-drop", "ALL"]
    assert {rest[i + 1] for i, w in enumerate(rest) if w == "--unsetenv"} == set(sandbox.GIT_IDENTITY)
    assert "--ro-bind" not in rest  # no $OUTPUT bind for a file that is not there
    assert rest[-3:] == ["/bin/bash", "-c", "echo 'a b' $HOME"]
    world = rest.index("--bind")
    assert rest[world:world + 5] == ["--bind", "/w/my world", "/w/my world", "--remount-ro", "/"]
    env = {rest[i + 1]: rest[i + 2] for i, w in enumerate(rest) if w == "--setenv"}
    assert env == {"WORLD": "/w/my world", "PWD": "/w/my world", "OUTPUT": sandbox.OUTPUT_INSIDE,
                   "EMAIL": sandbox.CASE_EMAIL}
    # A sandbox whose fixed part ends with the read-only tail (every one planned since) remounts the root once, last
    tailed = sandbox.Sandbox(kind="bwrap", program="/usr/bin/bwrap", args=fixed, shell="/bin/bash",
                             env=box.env, tail=sandbox.READ_ONLY_TAIL)
    argv = sandbox.case_argv(tailed, "true", "/w/world")
    assert [argv[i + 1] for i, w in enumerate(argv) if w == "--remount-ro"] == ["/dev", "/"]
    assert argv[argv.index("--bind"):][:3] == ["--bind", "/w/world", "/w/world"]

    mac = sandbox.Sandbox(kind="seatbelt", program="/usr/bin/sandbox-exec", readonly=("/opt/tool",),
                          env={"PATH": "/usr/bin:/bin", "HOME": "/tmp/home", "GIT_AUTHOR_NAME": "Benchmark Arm"})
    argv = sandbox.case_argv(mac, "make test", "/w/world", "/s/check/output.md", {"WORLD": "/w/world"},
                             scratch="/s/tmp")
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"]
    profile = argv[2]
    assert '(allow file-read* file-write* (subpath "/w/world") (subpath "/s/tmp"))' in profile
    assert '(allow file-read* (subpath "/s/check"))' in profile and "(deny network*)" in profile
    assert "OUTPUT=/s/check/output.md" in argv and "HOME=/s/tmp" in argv and "WORLD=/w/world" in argv
    assert not any(w.startswith("GIT_AUTHOR") for w in argv) and f"EMAIL={sandbox.CASE_EMAIL}" in argv
    assert shlex.split(argv[-1])[-3:] == ["/bin/bash", "-c", "make test"]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("runuser"), reason="needs root to run as nobody")
def test_the_case_command_line_holds_for_an_unprivileged_user_too(box):
    """The same command line as another user (nobody): no capability, $OUTPUT and the root read-only, the world
    writable. (The other tests run as whoever runs the suite: root on CI and on this project's machines.)"""
    import tempfile

    place = Path(tempfile.mkdtemp(prefix="benchcore-nobody-", dir="/tmp"))  # a folder nobody can reach
    try:
        (place / "world").mkdir()
        (place / "output.md").write_text("answer\n")
        place.chmod(0o755)
        (place / "world").chmod(0o777)
        # the system's programs only: root's own toolchain folders (~root/.pyenv) are not nobody's to bind
        plain = sandbox.build("bwrap", box.program, False, [], environ={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
        argv = sandbox.case_argv(plain, 'id -u; grep CapEff /proc/self/status; cat "$OUTPUT"; echo x > "$OUTPUT"; '
                                      'echo y > /etc/x; echo z > ok.txt', str(place / "world"),
                                 str(place / "output.md"), {"WORLD": str(place / "world")})
        done = subprocess.run(["runuser", "-u", "nobody", "--", *argv], capture_output=True, text=True, timeout=60)
        assert done.stdout.splitlines()[:3] == ["65534", "CapEff:\t0000000000000000", "answer"], done
        assert done.stderr.count("Read-only file system") == 2, done.stderr
        assert (place / "world" / "ok.txt").read_text() == "z\n" and (place / "output.md").read_text() == "answer\n"
    finally:
        shutil.rmtree(place)


def test_validate_says_where_the_samples_ran(box, tmp_path, monkeypatch, capsys):
    from benchcore.cli import main

    root = tmp_path / "repo"
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: greets\n---\nBody.\n")
    d = root / "tests" / "greet" / "01-hello"
    d.mkdir(parents=True)
    (d / "case.md").write_text("---\ndescription: hello\n---\n## Prompt\nGreet.\n## Hard assertions\n```sh\n"
                               'grep -q Hello "$OUTPUT"\n```\n## Soft criteria\n- polite\n')
    for name, text in (("good", "Hello!\n"), ("bad-silent", "...\n")):
        (d / "samples" / name).mkdir(parents=True)
        (d / "samples" / name / "output.md").write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert main(["validate", "--repo", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["samples_ran"] == "sandboxed" and "in the arms' sandbox" in data["samples_note"]
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv(sandbox.PROGRAM_KNOB, str(broken))
    assert main(["validate", "--repo", str(root)]) == 0  # the samples still run, unconfined, and it says so
    out = capsys.readouterr().out
    assert "note: no OS sandbox runs here" in out and "No permissions to create new namespace" in out
    assert "ran unconfined (no OS sandbox): on this machine with your session's environment" in out
