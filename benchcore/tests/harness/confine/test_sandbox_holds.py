"""The sandbox holds as root and as an unprivileged user (issue 37, 2), and an arm's /tmp and HOME last across its
calls (issue 37, 6): bubblewrap run for real (harness/confine/sandbox.py).

As root, bwrap keeps every capability unless told: an arm remounted the read-only binds writable (the skill copy,
~/.cargo/bin/cargo), made /usr writable and unmounted the /etc/shadow mask. Each attack below is made inside the
sandbox, once as root (this machine and CI run as root) and once as an unprivileged user (``nobody``, through
setpriv, when run as root; the user running the tests otherwise), and must fail with nothing changed outside.
"""

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchcore.harness.confine import sandbox
from benchcore.harness.worlds.temp import make_temp_root, make_world, remove_temp_root

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's")

# One line per attack: its name, then the command. Each prints "<name> <exit status>".
ATTACKS = {
    "remount-copy": "mount -o remount,rw {copy}",
    "remount-usr": "mount -o remount,rw /usr",
    "remount-root": "mount -o remount,rw /",
    "bind-over-ro": "mount --bind {world} {copy}",
    "umount-mask": "umount /etc/shadow",
    "unshare-user": "unshare -U true",
    "unshare-user-root": "unshare -Ur true",
    "write-usr": "touch /usr/benchcore-attack",
    "write-root": "touch /benchcore-attack",
    "write-dev": "touch /dev/benchcore-attack",
    "write-copy": "touch {copy}/benchcore-attack",
    # /etc is the run's one copy, shared by every cell: no arm may change what the next one reads there
    "write-etc": "touch /etc/benchcore-attack",
    "edit-etc": "echo 10.0.0.1 attacker >> /etc/hosts",
    "remount-etc": "mount -o remount,rw /etc",
    "umount-etc": "umount /etc",
}


def _script(world: str, copy: str) -> str:
    lines = [f"{{ {cmd.format(world=world, copy=copy)}; }} >/dev/null 2>&1; echo \"{name} $?\""
             for name, cmd in ATTACKS.items()]
    # what an arm is meant to do still works: its world and its /tmp are writable, no capability is held
    lines += ["echo ok > in-world && echo 'world 0'", "echo ok > /tmp/in-tmp && echo 'tmp 0'",
              "grep '^CapEff' /proc/self/status", "touch /benchcore-attack 2>&1 | tail -1",
              "echo ok > /dev/null && echo ok > /dev/shm/x && echo 'dev 0'",
              "python3 -c 'import multiprocessing as m; m.Lock()' && echo 'shm 0'"]
    return "\n".join(lines)


def _place(owner: int = -1):
    """A world, its scratch folders and a skill copy in a fresh folder readable by ``owner``."""
    base = Path(tempfile.mkdtemp(prefix="benchcore-holds-"))
    base.chmod(0o755)
    world, copy = base / "worlds" / "w0rld", base / "skills" / "copy"
    world.mkdir(parents=True)
    copy.mkdir(parents=True)
    (copy / "SKILL.md").write_text("skill\n")
    sandbox.make_scratch(str(world))
    if owner >= 0:
        for p in [base, *base.rglob("*")]:
            os.chown(p, owner, owner)
    return base, str(world), str(copy)


def _attack(box: sandbox.Sandbox, world: str, copy: str, prefix: list[str]) -> tuple[dict, str]:
    p = subprocess.run([*prefix, "/bin/bash", "-c", sandbox.wrap(box, _script(world, copy), world, copy)],
                       capture_output=True, text=True, timeout=120)
    if "No permissions to create new namespace" in p.stderr or "setting up uid map" in p.stderr:
        pytest.skip(f"bubblewrap cannot make a user namespace for this user here: {p.stderr.strip()[-200:]}")
    out = p.stdout.splitlines()
    status = dict(line.rsplit(" ", 1) for line in out if line.rsplit(" ", 1)[-1].isdigit())
    return status, p.stdout + p.stderr


def _box(environ: dict) -> sandbox.Sandbox:
    program = shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.path.exists(program):
        pytest.skip("no bwrap on this machine")
    box = sandbox.build("bwrap", program, False, [], environ, sandbox.disables_userns(program))
    # /etc as a run binds it (its own copy), in a folder any user may read (the attacks run as nobody too)
    home = tempfile.mkdtemp(prefix="benchcore-holds-etc-")
    os.chmod(home, 0o755)
    box = sandbox.with_etc_view(box, os.path.join(home, sandbox.ETC_VIEW))
    assert "/etc" in box.args
    why = sandbox.smoke(box)
    if why and os.geteuid() != 0:
        pytest.skip(f"bubblewrap does not run for this user here: {why}")
    assert not why, why
    return box


def _view(box: sandbox.Sandbox) -> str:
    """The run's /etc copy the sandbox binds."""
    return box.args[box.args.index("/etc") - 1]


def _drop_view(box: sandbox.Sandbox) -> None:
    sandbox.release_etc_view(_view(box))
    shutil.rmtree(Path(_view(box)).parent)


def _check(status: dict, said: str, base: Path, copy: str, box: sandbox.Sandbox) -> None:
    for name in ATTACKS:
        assert status.get(name) not in (None, "0"), f"{name} succeeded inside the sandbox:\n{said}"
    assert all(status.get(k) == "0" for k in ("world", "tmp", "dev", "shm")), said
    assert "CapEff:\t0000000000000000" in said, said
    assert "Read-only file system" in said  # the arm is told its write outside failed
    assert not Path("/usr/benchcore-attack").exists() and not Path("/benchcore-attack").exists()
    assert sorted(os.listdir(copy)) == ["SKILL.md"] and Path(copy, "SKILL.md").read_text() == "skill\n"
    view = Path(_view(box))
    assert not (view / "benchcore-attack").exists() and "attacker" not in (view / "hosts").read_text()
    assert Path(sandbox.scratch_dirs(str(base / "worlds/w0rld"))[0], "in-tmp").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the root case needs root (CI and this project's machine are root)")
def test_as_root_every_remount_mount_unmount_userns_and_outside_write_fails():
    box = _box(dict(os.environ))
    base, world, copy = _place()
    try:
        status, said = _attack(box, world, copy, [])
        _check(status, said, base, copy, box)
        # bwrap's arguments say why: no capability, no user namespace of the command's own, the root read-only
        line = sandbox.wrap(box, "true", world, copy)
        assert "--cap-drop ALL" in line and "--disable-userns" in line and "--remount-ro / " in line
    finally:
        shutil.rmtree(base)
        _drop_view(box)


def test_as_an_unprivileged_user_every_attack_fails_the_same_way():
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("setpriv (util-linux) is missing, so no unprivileged user can be run from root")
        user = pwd.getpwnam("nobody")
        prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]
        owner = user.pw_uid
    else:
        prefix, owner = [], -1
    # Only system folders on PATH: the session's toolchain may be unreadable to the other user.
    box = _box({"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    base, world, copy = _place(owner)
    try:
        status, said = _attack(box, world, copy, prefix)
        _check(status, said, base, copy, box)
    finally:
        shutil.rmtree(base)
        _drop_view(box)


def test_an_old_bubblewrap_without_disable_userns_runs_hardened_otherwise_and_plan_is_told(tmp_path):
    # A bwrap whose --help lacks --disable-userns (older than 0.8.0): the same program, with that line cut.
    real = shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.path.exists(real):
        pytest.skip("no bwrap on this machine")
    old = tmp_path / "bwrap"
    old.write_text(f"#!/bin/sh\nif [ \"$1\" = --help ]; then {real} --help | grep -v -- --disable-userns; "
                   f"exit 0; fi\nexec {real} \"$@\"\n")
    old.chmod(0o755)
    found = sandbox.prepare(False, [], environ=dict(os.environ, **{sandbox.PROGRAM_KNOB: str(old)}))
    assert found.sandbox is not None, found.problem
    assert "--disable-userns" not in found.sandbox.args and "--cap-drop" in found.sandbox.args
    assert found.sandbox.tail == sandbox.READ_ONLY_TAIL
    assert "bubblewrap 0.8.0 or later" in found.warning and str(old) in found.warning
    # the current one: no warning
    ok = sandbox.prepare(False, [], environ=dict(os.environ, **{sandbox.PROGRAM_KNOB: real}))
    assert ok.sandbox is not None and ok.warning == "" and "--disable-userns" in ok.sandbox.args


# ---------------------------------------------------------------------- scratch across calls
@pytest.fixture(scope="module")
def box():
    found = sandbox.prepare(False, [])
    if found.sandbox is None:
        pytest.skip(f"no working bubblewrap here: {found.problem}")
    return found.sandbox


def _run(box, command, world):
    return subprocess.run(["/bin/bash", "-c", sandbox.wrap(box, command, str(world), None)],
                          capture_output=True, text=True, timeout=120)


def test_tmp_and_home_last_across_an_arms_calls_and_no_other_cell_sees_them(box, tmp_path):
    worlds = tmp_path / "worlds"
    mine, other = make_world(worlds, "c", 1, None), make_world(worlds, "c", 1, None)
    first = _run(box, "d=$(mktemp -d) && echo kept > \"$d/f\" && echo home > ~/.note && echo \"$d\"", mine)
    made = first.stdout.strip()
    assert first.returncode == 0 and made.startswith("/tmp/"), first.stderr
    later = _run(box, f"cat {made}/f ~/.note", mine)
    assert later.stdout.split() == ["kept", "home"], later.stderr
    # the other cell's /tmp and HOME are its own
    assert _run(box, f"cat {made}/f", other).returncode != 0 and _run(box, "cat ~/.note", other).returncode != 0
    # on disk: in the cell's scratch folders beside its world, not the host's /tmp
    tmp, home = sandbox.scratch_dirs(str(mine))
    assert Path(tmp, made[len("/tmp/"):], "f").read_text() == "kept\n" and Path(home, ".note").exists()
    assert os.path.dirname(os.path.dirname(tmp)) == str(worlds) and not Path(made).exists()


def test_a_venv_made_in_tmp_in_one_call_runs_in_the_next(box, tmp_path):
    world = make_world(tmp_path / "worlds", "c", 1, None)
    made = _run(box, "python3 -m venv --without-pip /tmp/venv && echo made", world)
    assert made.stdout.strip() == "made", made.stderr
    used = _run(box, "/tmp/venv/bin/python -c 'import sys; print(sys.prefix)'", world)
    assert used.stdout.strip() == "/tmp/venv", used.stderr


def test_the_wrapped_command_is_a_function_of_plan_and_world_only(box, tmp_path):
    # collect recomputes each call's command line from plan.json's Sandbox, the world and the copy.
    world = str(tmp_path / "worlds" / "ab12")
    a, b = sandbox.wrap(box, "ls", world, "/c"), sandbox.wrapper(box, world, "/c")("ls")
    assert a == b and f"--bind-try {tmp_path}/worlds/.scratch-ab12/tmp /tmp" in a
    # a plan written before scratch folders existed recomputes its command lines as they were
    from attrs import evolve
    old = evolve(box, scratch=False, tail=())
    assert ".scratch-" not in sandbox.wrap(old, "ls", world, None) and "--remount-ro" not in sandbox.wrap(old, "ls", world, None)


def test_plan_makes_the_scratch_with_the_world_and_clean_removes_it(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    root = make_temp_root("r1", repo, tmp_path / "base", "n0nce")
    world = make_world(root / "worlds", "c", 1, None)
    tmp, home = sandbox.scratch_dirs(str(world))
    assert Path(tmp).is_dir() and Path(home).is_dir() and oct(Path(tmp).stat().st_mode & 0o777) == "0o700"
    Path(tmp, "left-by-the-arm").write_text("x")
    assert remove_temp_root(root, "r1", "n0nce", repo) and not Path(tmp).exists() and not root.exists()


def test_benchcore_plan_makes_each_cells_scratch_and_clean_stale_removes_it(tmp_path, monkeypatch):
    from test_attacks import small_repo
    from test_e2e_benchmark import Bench

    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    rc, _, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    [run_dir] = b.runs()
    plan = b.plan_json(run_dir)
    scratch = [Path(p) for c in plan["cells"] for p in sandbox.scratch_dirs(c["world"])]
    assert scratch and all(p.is_dir() for p in scratch)
    assert all(p.parent.parent == Path(plan["world_root"]) for p in scratch)
    rc, out, err = b.run("clean", "--stale", "--older-than", "0")
    assert rc == 0, err
    assert not any(p.exists() for p in scratch) and not Path(plan["temp_root"]).exists() and run_dir.is_dir()


def test_a_bwrap_that_cannot_make_its_own_user_namespace_here_runs_without_and_plan_is_told(tmp_path):
    # E.g. a container whose seccomp profile refuses user namespaces while bwrap as root still runs.
    real = shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.path.exists(real):
        pytest.skip("no bwrap on this machine")
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = --unshare-user ]; then "
                    "echo 'bwrap: Creating new namespace failed: Operation not permitted' >&2; exit 1; fi; done\n"
                    f"exec {real} \"$@\"\n")
    fake.chmod(0o755)
    found = sandbox.prepare(False, [], environ=dict(os.environ, **{sandbox.PROGRAM_KNOB: str(fake)}))
    assert found.sandbox is not None, found.problem
    assert "--unshare-user" not in found.sandbox.args and ("--cap-drop", "ALL") == tuple(
        found.sandbox.args[found.sandbox.args.index("--cap-drop"):][:2])
    assert "Creating new namespace failed" in found.warning and "seccomp=unconfined" in found.warning


def test_an_old_system_bwrap_gives_way_to_a_newer_one_that_holds_fully(tmp_path, monkeypatch):
    # The system's bwrap is tried first; one without --disable-userns is kept only if nothing better runs.
    real = shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.path.exists(real) or not sandbox.disables_userns(real):
        pytest.skip("no bwrap with --disable-userns on this machine")
    old = tmp_path / "bwrap"
    old.write_text(f"#!/bin/sh\nif [ \"$1\" = --help ]; then {real} --help | grep -v -- --disable-userns; "
                   f"exit 0; fi\nexec {real} \"$@\"\n")
    old.chmod(0o755)
    monkeypatch.setattr(sandbox, "candidates", lambda environ=None: [str(old), real])
    found = sandbox.prepare(False, [])
    assert found.sandbox.program == real and found.warning == "" and found.tried == (str(old), real)


def test_a_toolchain_under_tmp_still_reaches_the_arm_over_its_scratch_tmp(tmp_path):
    """A virtual environment in /tmp (CI makes its own there) is bound by the fixed part, then hidden by the
    cell's scratch /tmp bound over it: wrap binds it again, with its masked credential file, after the scratch."""
    tool = Path(tempfile.mkdtemp(prefix="benchcore-tool-", dir="/tmp"))
    box = None
    try:
        (tool / "bin").mkdir()
        (tool / "bin" / "hello-tool").write_text("#!/bin/sh\necho hello from the tool\n")
        (tool / "bin" / "hello-tool").chmod(0o755)
        (tool / "bin" / ".npmrc").write_text("//registry/:_authToken=SECRET\n")
        environ = {"HOME": str(tmp_path / "home"), "PATH": f"{tool}/bin:/usr/bin:/bin"}
        box = _box(environ)
        assert str(tool / "bin") in box.readonly and str(tool / "bin" / ".npmrc") in box.masked
        world = make_world(tmp_path / "worlds", "c", 1, None)
        p = subprocess.run(["/bin/sh", "-c", sandbox.wrap(box, "hello-tool; cat " + str(tool / "bin" / ".npmrc")
                                                             + "; touch /tmp/mine && echo tmp-ok", str(world), None)],
                           capture_output=True, text=True, timeout=60)
        assert "hello from the tool" in p.stdout and "tmp-ok" in p.stdout, p.stdout + p.stderr
        assert "SECRET" not in p.stdout
        assert Path(sandbox.scratch_dirs(str(world))[0], "mine").exists()  # /tmp is still the cell's scratch
    finally:
        shutil.rmtree(tool, ignore_errors=True)
        if box is not None:
            _drop_view(box)
