"""What of the session's toolchain an arm's command gets (harness/confine/sandbox.py ``toolchain``, ``etc_entries``):
the folders programs need, never a home folder's top folder, credentials inside them masked, /etc reduced to what
programs read, and the repository's own ``.venv`` (issue 37, deliverables 4 and 5). Bind selection on fake home
trees; then the same commands in the real bubblewrap."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchcore.harness.confine import sandbox
from standin.repo import newcomer_venv


def tree(root: Path, *files: str, text: str = "") -> None:
    for f in files:
        p = root / f
        if f.endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text or f"{f}\n")


def bound(chain, path: Path) -> bool:
    """Whether ``path`` is visible inside: under a bind and not masked."""
    p = str(path)
    return (any(p == b or p.startswith(b + "/") for b in chain.binds)
            and not any(p == m or p.startswith(m + "/") for m in chain.masked))


# ---------------------------------------------------------------------- which folders
def test_cargo_bin_brings_its_programs_and_rustup_toolchains_never_cargo_credentials(tmp_path):
    home = tmp_path / "home"
    tree(home, ".cargo/bin/cargo", ".cargo/bin/rustup", ".cargo/credentials.toml", ".cargo/registry/index/x",
         ".rustup/settings.toml", ".rustup/toolchains/stable/bin/cargo", ".rustup/downloads/d")
    chain = sandbox.toolchain(str(home / ".cargo/bin"), str(home), [])
    assert chain.binds == (str(home / ".cargo/bin"), str(home / ".rustup/toolchains"),
                           str(home / ".rustup/settings.toml"))
    assert not bound(chain, home / ".cargo/credentials.toml") and not bound(chain, home / ".cargo/registry")
    assert chain.env == {"RUSTUP_HOME": str(home / ".rustup")}


def test_a_link_into_documents_brings_that_tools_folder_not_documents(tmp_path):
    home = tmp_path / "home"
    tree(home, "Documents/tools/bin/tool", "Documents/tools/lib/tool.so", "Documents/taxes.pdf", ".local/bin/",
         ".local/lib/python3.11/site-packages/m.py", ".local/share/keyrings/login.keyring", "Documents/notes/x")
    (home / ".local/bin/tool").symlink_to(home / "Documents/tools/bin/tool")
    chain = sandbox.toolchain(str(home / ".local/bin"), str(home), [])
    # ~/.local is a home top folder: its program parts only (pip --user's lib, never share/)
    assert chain.binds == (str(home / ".local/bin"), str(home / ".local/lib"), str(home / "Documents/tools"))
    assert not bound(chain, home / "Documents/taxes.pdf") and not bound(chain, home / ".local/share/keyrings")
    assert chain.env == {"PYTHONUSERBASE": str(home / ".local")}  # pip --user's packages, though HOME differs
    # a link straight into a home top folder brings nothing
    tree(home, "Documents/run-me")
    (home / ".local/bin/run").symlink_to(home / "Documents/run-me")
    assert str(home / "Documents") not in sandbox.toolchain(str(home / ".local/bin"), str(home), []).binds


def test_a_venv_on_pyenv_brings_that_version_not_all_of_pyenv(tmp_path):
    home = tmp_path / "home"
    tree(home, ".pyenv/libexec/pyenv", ".pyenv/.git/config", ".pyenv/versions/3.11.7/bin/python3.11",
         ".pyenv/versions/3.11.7/lib/python3.11/os.py", ".pyenv/versions/3.12.1/bin/python3.12", ".pyenv/version",
         "work/venv/pyvenv.cfg", "work/venv/lib/python3.11/site-packages/pytest/__init__.py")
    (home / "work/venv/bin").mkdir()
    (home / "work/venv/bin/python3").symlink_to(home / ".pyenv/versions/3.11.7/bin/python3.11")
    chain = sandbox.toolchain(str(home / "work/venv/bin"), str(home), [])
    assert chain.binds == (str(home / "work/venv"), str(home / ".pyenv/versions/3.11.7"))
    assert not bound(chain, home / ".pyenv/.git") and not bound(chain, home / ".pyenv/versions/3.12.1")


def test_pyenv_shims_bring_pyenvs_program_parts_and_the_selected_version(tmp_path):
    home = tmp_path / "home"
    tree(home, ".pyenv/libexec/pyenv", ".pyenv/bin/", ".pyenv/shims/python3", ".pyenv/plugins/p/bin/x",
         ".pyenv/.git/config", ".pyenv/test/t", ".pyenv/versions/3.11.7/bin/python3.11",
         ".pyenv/versions/3.12.1/bin/python3.12")
    (home / ".pyenv/version").write_text("3.11.7\n")
    chain = sandbox.toolchain(f"{home}/.pyenv/shims:{home}/.pyenv/bin", str(home), [])
    names = sorted(os.path.relpath(b, home / ".pyenv") for b in chain.binds)
    assert names == ["bin", "libexec", "plugins", "shims", "version", "versions/3.11.7"]
    assert chain.env == {"PYENV_ROOT": str(home / ".pyenv")}
    picked = sandbox.toolchain(f"{home}/.pyenv/shims", str(home), [], environ={"PYENV_VERSION": "3.12.1"})
    assert str(home / ".pyenv/versions/3.12.1") in picked.binds
    assert str(home / ".pyenv/versions/3.11.7") not in picked.binds


def test_secret_folders_the_home_folder_and_forbidden_folders_are_left_out_with_why(tmp_path):
    home = tmp_path / "home"
    tree(home, ".aws/bin/aws", ".config/tool/bin/t", ".ssh/bin/x", "proj/bin/p")
    path = ":".join([str(home / ".aws/bin"), str(home / ".config/tool/bin"), str(home), str(home / "proj/bin")])
    chain = sandbox.toolchain(path, str(home), [str(home / "proj")])
    assert chain.binds == () and len(chain.dropped) == 4
    assert all(str(home) in d for d in chain.dropped)
    assert "repository, the run folder" in chain.dropped[-1]


# ---------------------------------------------------------------------- credentials inside what is bound
@pytest.mark.parametrize("name", ["credentials", "credentials.toml", ".npmrc", "etc/npmrc", ".pypirc", ".netrc",
                                  ".git-credentials", ".docker/config.json", ".yarnrc", ".yarnrc.yml", "auth.json",
                                  ".env", "id_ed25519", "lib/.aws/credentials", ".credentials.json",
                                  ".env.production", "id_rsa.pub", "lib/login.keychain", ".yarnrc.yaml"])
def test_a_credential_file_in_a_bound_toolchain_is_masked(tmp_path, name):
    prefix = tmp_path / "opt/node-v20"
    tree(prefix, "bin/node", "lib/node_modules/npm/index.js", name)
    chain = sandbox.toolchain(str(prefix / "bin"), str(tmp_path / "home"), [])
    assert chain.binds == (str(prefix),)
    assert not bound(chain, prefix / name) and bound(chain, prefix / "bin/node")


def test_names_that_only_resemble_a_credential_file_are_not_masked(tmp_path):
    prefix = tmp_path / "opt/node-v20"
    tree(prefix, "bin/node", "credentials.txt", "my.env", "keychain", "lib/xcredentials", "lib/netrc.md")
    assert sandbox.toolchain(str(prefix / "bin"), str(tmp_path / "home"), []).masked == ()


def test_pip_conf_is_masked_when_it_holds_a_password_only(tmp_path):
    venv = tmp_path / "venv"
    tree(venv, "pyvenv.cfg", "bin/python3")
    (venv / "pip.conf").write_text("[global]\nindex-url = https://me:s3cret@pypi.example/simple\n")
    assert sandbox.toolchain(str(venv / "bin"), "", []).masked == (str(venv / "pip.conf"),)
    (venv / "pip.conf").write_text("[global]\nindex-url = https://pypi.example/simple\n")
    assert sandbox.toolchain(str(venv / "bin"), "", []).masked == ()


# ---------------------------------------------------------------------- the repository's own toolchain
def repo_tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    tree(repo, ".venv/pyvenv.cfg", ".venv/bin/python3", ".venv/lib/python3.11/site-packages/pytest/__init__.py",
         "node_modules/.bin/jest", "node_modules/jest/bin/jest.js", "bin/tool", "scripts/s", "skills/x/SKILL.md",
         "skills/x/bin/helper", "tests/x/01-case/case.md", "README.md")
    return repo


def test_a_repository_venv_node_modules_and_bin_reach_the_arms_and_nothing_else_of_it(tmp_path):
    repo = repo_tree(tmp_path)
    path = ":".join(str(repo / d) for d in (".venv/bin", "node_modules/.bin", "bin", "skills/x/bin", "tests", ""))
    chain = sandbox.toolchain(path, str(tmp_path / "home"), [str(repo)], repo=str(repo),
                              keep_out=[str(repo / "tests"), str(repo / "skills")])
    assert chain.binds == (str(repo / ".venv"), str(repo / "node_modules"), str(repo / "bin"))
    assert chain.path[:3] == tuple(str(repo / d) for d in (".venv/bin", "node_modules/.bin", "bin"))
    dropped = "\n".join(chain.dropped)
    assert "skills/x/bin: it holds the repository's tests or skills" in dropped
    assert f"{repo}: it is the repository itself" in dropped and "tests: it holds the repository's" in dropped
    for hidden in ("README.md", "skills/x/SKILL.md", "tests/x/01-case/case.md", "scripts/s"):
        assert not bound(chain, repo / hidden)
    # without ``repo``, the repository is forbidden whole, as before
    assert sandbox.toolchain(path, "", [str(repo)]).binds == ()


def test_a_repository_folder_holding_a_skill_is_not_bound(tmp_path):
    repo = repo_tree(tmp_path)
    tree(repo, ".venv/share/skill/SKILL.md")
    chain = sandbox.toolchain(str(repo / ".venv/bin"), "", [str(repo)], repo=str(repo))
    assert chain.binds == () and "it holds a skill" in chain.dropped[0]


# ---------------------------------------------------------------------- /etc
def test_etc_is_reduced_to_what_programs_read():
    etc = sandbox.etc_entries()
    assert all(e.startswith("/etc/") for e in etc) and "/etc" not in etc
    for secret in ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/environment", "/etc/apt",
                   "/etc/ssh", "/etc/ssl/private", "/etc/pip.conf", "/etc/npmrc", "/etc/gitconfig", "/etc/security"):
        assert not any(secret == e or secret.startswith(e + "/") for e in etc), secret
    if sys.platform == "linux":
        assert "/etc/passwd" in etc and "/etc/ld.so.cache" in etc and "/etc/ssl/certs" in etc


def fake_etc(root: Path) -> Path:
    """An /etc of a few entries, a mask's folder inside one, a link inside and a link as an entry."""
    etc = root / "etc"
    tree(etc, "passwd", "hosts", "ssl/certs/ca.pem", "ssl/private/key.pem", "shadow", text="x\n")
    (etc / "ssl/certs/link.pem").symlink_to("ca.pem")
    (etc / "real-resolv.conf").write_text("nameserver 10.0.0.1\n")
    (etc / "resolv.conf").symlink_to(etc / "real-resolv.conf")
    return etc


def ops(args, *etc: str) -> list[tuple]:
    """bwrap's options as (option, its words), those naming an /etc path or the view left out."""
    out, i = [], 0
    while i < len(args):
        n = sandbox._ARITY.get(args[i], 0)
        words = tuple(args[i:i + 1 + n])
        if not any(w == "/etc" or w.startswith("/etc/") or w.startswith(etc) for w in words[1:]):
            out.append(words)
        i += 1 + n
    return out


def test_the_etc_view_is_a_copy_of_the_entries_without_masks(tmp_path, monkeypatch):
    etc = fake_etc(tmp_path)
    monkeypatch.setattr(sandbox, "ETC", str(etc))
    assert sandbox.etc_entries() == [str(etc / e) for e in ("passwd", "hosts", "resolv.conf", "ssl/certs")]
    view = tmp_path / "temp-root" / sandbox.ETC_VIEW
    view.parent.mkdir()
    assert sandbox.make_etc_view(str(view))
    assert sorted(str(p.relative_to(view)) for p in view.rglob("*")) == [
        "hosts", "passwd", "resolv.conf", "ssl", "ssl/certs", "ssl/certs/ca.pem", "ssl/certs/link.pem"]
    assert (view / "resolv.conf").read_text() == "nameserver 10.0.0.1\n" and not (view / "resolv.conf").is_symlink()
    assert os.readlink(view / "ssl/certs/link.pem") == "ca.pem"  # a link inside a folder stays a link, as bound
    assert all(p.stat().st_mode & 0o777 == 0o555 for p in [view, view / "ssl", view / "ssl/certs"])  # read-only
    assert not sandbox.make_etc_view(str(view))  # never into a folder that is there already
    sandbox.release_etc_view(str(view))
    shutil.rmtree(view)  # removable, as clean removes the temp root


def test_a_run_binds_its_view_at_etc_in_place_of_each_entry(tmp_path, monkeypatch):
    etc = fake_etc(tmp_path)
    monkeypatch.setattr(sandbox, "ETC", str(etc))
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")}
    for network in (False, True):
        box = sandbox.build("bwrap", "/usr/bin/bwrap", network, [], environ)
        assert ["--ro-bind", str(etc / "passwd"), str(etc / "passwd")] == \
            list(box.args[box.args.index(str(etc / "passwd")) - 1:][:3])  # as built: each entry on its own
        view = tmp_path / f"root-{network}" / sandbox.ETC_VIEW
        view.parent.mkdir()
        viewed = sandbox.with_etc_view(box, str(view))
        args = list(viewed.args)
        assert args[args.index("/etc") - 2:args.index("/etc") + 1] == ["--ro-bind", str(view), "/etc"]
        assert not any(a.startswith(str(etc)) for a in args if a not in (str(etc / "resolv.conf"), str(etc / "hosts")))
        live = args[args.index("/etc") + 1:args.index("/etc") + 7]
        # with the network, name resolution stays live over the copy (another network during the run)
        assert live == (["--ro-bind", str(etc / "resolv.conf"), "/etc/resolv.conf", "--ro-bind", str(etc / "hosts"),
                         "/etc/hosts"] if network else live) and (network or str(etc / "hosts") not in args)
        # everything else as it was, in the same order: only the /etc part differs
        assert ops(args, str(etc), str(view)) == ops(box.args, str(etc), str(view))
        assert viewed.readonly == box.readonly and viewed.env == box.env and viewed.tail == box.tail
        # a second sandbox of the same run (a networked skill in validate) binds the view made already
        again = sandbox.with_etc_view(box, str(view), make=False)
        assert again.args == viewed.args


def test_a_view_that_cannot_be_made_or_a_sandbox_not_made_here_keeps_each_entry_bound(tmp_path, monkeypatch):
    etc = fake_etc(tmp_path)
    monkeypatch.setattr(sandbox, "ETC", str(etc))
    box = sandbox.build("bwrap", "/usr/bin/bwrap", False, [], {"PATH": "/usr/bin"})
    assert sandbox.with_etc_view(box, str(tmp_path / "no-such-folder" / "etc")) == box  # the copy failed
    assert not (tmp_path / "no-such-folder").exists()
    older = sandbox.Sandbox(kind="bwrap", program="/usr/bin/bwrap", args=("--unshare-all", "--ro-bind", "/usr", "/usr"))
    assert sandbox.with_etc_view(older, str(tmp_path / "view")) == older and not (tmp_path / "view").exists()
    mac = sandbox.Sandbox(kind="seatbelt", program="/usr/bin/sandbox-exec")
    assert sandbox.with_etc_view(mac, str(tmp_path / "view")) == mac and sandbox.with_etc_view(None, "x") is None


# ---------------------------------------------------------------------- in the real bubblewrap
needs_bwrap = pytest.mark.skipif(sys.platform != "linux" or not os.path.exists("/usr/bin/bwrap"),
                                 reason="bubblewrap is Linux's")


def run_in(box, command: str, world: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", "-c", sandbox.wrap(box, command, str(world), None)], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module", params=["etc-view", "etc-entries"])
def session(tmp_path_factory, request):
    """A session whose PATH has ~/.cargo/bin (credentials.toml beside it), a tool in ~/opt/tool (credential
    files inside it), this test run's python3 (with pytest) and the system's; the run's sandbox built from it."""
    tmp = tmp_path_factory.mktemp("session")
    home = tmp / "home"
    tree(home, ".cargo/credentials.toml", "Documents/taxes.txt", ".cargo/bin/", text="SECRET-TOKEN\n")
    tree(home, "opt/tool/bin/", "opt/tool/lib/x", "opt/tool/.npmrc", "opt/tool/etc/npmrc",
         "opt/tool/.docker/config.json", "opt/tool/.pypirc", "opt/tool/lib/credentials.js", text="SECRET-TOKEN\n")
    for prog in (home / ".cargo/bin/hello", home / "opt/tool/bin/hi"):
        prog.write_text("#!/bin/sh\necho hello from $0\n")
        prog.chmod(0o755)
    world = tmp / "world"
    world.mkdir()
    environ = {"HOME": str(home), "PATH": f"{home}/.cargo/bin:{home}/opt/tool/bin:{Path(sys.executable).parent}:"
                                          f"{os.environ['PATH']}"}
    box = sandbox.build("bwrap", "/usr/bin/bwrap", False, [str(world)], environ)
    if request.param == "etc-view":  # as a run binds /etc: its own copy, one bind
        box = sandbox.with_etc_view(box, str(tmp / sandbox.ETC_VIEW))
        assert box.args[box.args.index("/etc") - 1] == str(tmp / sandbox.ETC_VIEW)
    return box, home, world


# One per class: a toolchain's credential file beside its bin, inside a bound prefix (dot file, etc/, a folder),
# a home folder a link does not reach, and /etc's secrets (passwords, sudo, the login environment, apt's auth,
# ssh host keys, TLS keys, package managers' and git's system settings).
SECRETS = ["~/.cargo/credentials.toml", "~/Documents/taxes.txt", "~/opt/tool/.npmrc", "~/opt/tool/etc/npmrc",
           "~/opt/tool/.docker", "~/opt/tool/.pypirc", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
           "/etc/sudoers.d", "/etc/environment", "/etc/apt/auth.conf.d", "/etc/ssh", "/etc/ssl/private",
           "/etc/pip.conf", "/etc/npmrc", "/etc/gitconfig", "/etc/security"]


@needs_bwrap
@pytest.mark.parametrize("secret", SECRETS)
def test_inside_bwrap_a_secret_is_gone(session, secret):
    box, home, world = session
    secret = secret.replace("~", str(home), 1)
    p = run_in(box, f"if [ -d {secret} ]; then ls -A {secret}; else cat {secret}; fi 2>/dev/null", world)
    assert p.stdout == ""  # gone, or an empty file or folder in its place


@needs_bwrap
def test_inside_bwrap_ordinary_programs_still_run(session):
    box, home, world = session
    assert run_in(box, "hello; hi", world).stdout.count("hello from") == 2  # the toolchains' own programs
    # a program's own module named like a credential file stays (only settings files are masked)
    assert run_in(box, f"cat {home}/opt/tool/lib/credentials.js", world).stdout == "SECRET-TOKEN\n"
    checks = {"python3": "python3 -c 'import ssl, getpass, socket; print(getpass.getuser(), "
                         "socket.gethostbyname(\"localhost\"), ssl.create_default_context().cert_store_stats())'",
              "pytest": "python3 -m pytest --version",
              "git": "git init -q . && git commit -q --allow-empty -m x && git log --format=%an",
              "certificates": "ls /etc/ssl/certs | head -1", "users": "id -un; getent passwd 0 | cut -d: -f1"}
    for program, command in (("node", "node -e 'console.log(1+1)'"), ("npm", "npm --version"),
                             ("cargo", "cargo --version"), ("perl", "perl -e 'print 1'"), ("java", "java -version")):
        if shutil.which(program):
            checks[program] = command
    for what, command in checks.items():
        p = run_in(box, command, world)
        assert p.returncode == 0 and (p.stdout + p.stderr).strip(), (what, p.stderr)




@needs_bwrap
def test_a_repository_venv_gives_the_arm_a_working_python3_m_pytest(tmp_path):
    repo = tmp_path / "repo"
    tree(repo, "README.md", "skills/fix/SKILL.md", "tests/fix/01-case/case.md")
    venv = newcomer_venv(repo)
    world = tmp_path / "runs" / "world"
    tree(world, "test_add.py", text="def test_add():\n    assert 1 + 1 == 2\n")
    # activated in the session: its bin first on PATH, and nothing else on PATH has pytest
    environ = {"HOME": str(tmp_path / "home"), "PATH": f"{venv}/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(venv)}
    box = sandbox.build("bwrap", "/usr/bin/bwrap", False, [str(repo), str(tmp_path / "runs")], environ,
                        repo=str(repo), keep_out=[str(repo / "tests"), str(repo / "skills")])
    p = run_in(box, "command -v python3; python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -1; "
                    f"ls -A {repo}; cat {repo}/README.md", world)
    lines = p.stdout.splitlines()
    assert lines[0] == f"{venv}/bin/python3" and "1 passed" in lines[1], p.stdout + p.stderr
    assert lines[2:] == [".venv"] and "README" not in p.stdout  # nothing else of the repository
    assert run_in(box, f"touch {venv}/bin/x", world).returncode != 0  # read-only


@needs_bwrap
def test_benchcore_sandbox_names_what_the_arms_get_and_what_it_left_out(tmp_path):
    repo = tmp_path / "repo"
    tree(repo, "skills/fix/SKILL.md", "tests/fix/01-case/case.md")
    venv = newcomer_venv(repo)
    home = tmp_path / "home"
    tree(home, ".aws/bin/aws", ".cargo/credentials.toml", ".cargo/bin/")
    env = dict(os.environ, HOME=str(home), VIRTUAL_ENV=str(venv),
               PATH=f"{venv}/bin:{home}/.aws/bin:{home}/.cargo/bin:/usr/bin:/bin")
    p = subprocess.run([sys.executable, "-m", "benchcore", "sandbox", "--repo", str(repo)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert f"arms get python3 = {venv}/bin/python3 (" in p.stdout and "pytest " in p.stdout
    assert f"toolchain folders from PATH, read-only: {venv}, " in p.stdout and f"{home}/.cargo/bin" in p.stdout
    assert f"left out of the arms' PATH: {home}/.aws/bin: it is the home folder or holds secrets" in p.stdout


def test_the_smoke_run_checks_the_rest_of_a_repository_whose_venv_is_bound(tmp_path):
    repo = repo_tree(tmp_path)
    config = tmp_path / "claude"
    hidden = sandbox.hidden_around([str(repo), str(config)], [str(repo / ".venv"), str(repo / "node_modules")])
    assert hidden == [str(repo / d) for d in ("README.md", "bin", "scripts", "skills", "tests")] + [str(config)]
    deep = sandbox.hidden_around([str(repo)], [str(repo / "skills/x/bin")])
    assert str(repo / "skills/x/SKILL.md") in deep and str(repo / "skills") not in deep


@needs_bwrap
def test_with_the_network_name_resolution_is_the_live_file_over_the_runs_copy_of_etc(tmp_path):
    world = tmp_path / "world"
    world.mkdir()
    box = sandbox.build("bwrap", "/usr/bin/bwrap", True, [str(world)], {"PATH": "/usr/bin:/bin", "HOME": "/none"})
    box = sandbox.with_etc_view(box, str(tmp_path / sandbox.ETC_VIEW))
    if not os.path.isfile("/etc/resolv.conf"):
        pytest.skip("this machine has no /etc/resolv.conf")
    p = run_in(box, "cat /etc/resolv.conf; grep -c ' /etc/resolv.conf ' /proc/self/mountinfo; ls /etc/shadow", world)
    lines = p.stdout.splitlines()
    assert lines[:-1] == Path("/etc/resolv.conf").read_text().splitlines() and int(lines[-1]) >= 1, p.stdout + p.stderr
    assert "No such file" in p.stderr  # the rest is the run's copy: no secret
