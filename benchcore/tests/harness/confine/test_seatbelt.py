"""The macOS Seatbelt profile and command line (harness/confine/sandbox.py), as text: no macOS machine runs them in
this project's tests (README, docs/permissions.md). Issue 37, 9: the same boundaries as bwrap."""

import re
import shlex

from benchcore.harness.confine import sandbox

BOX = sandbox.Sandbox(kind="seatbelt", program="/usr/bin/sandbox-exec", readonly=("/opt/homebrew/bin", "/opt/tool"),
                      env={"PATH": "/opt/homebrew/bin:/usr/bin:/bin", "HOME": "/tmp/home"}, scratch=True)
WORLD, COPY = "/w/worlds/ab12", "/w/skills/cd34/greet"


def _rules(text: str, op: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"(allow {op}")]


def test_reads_and_writes_reach_the_world_its_scratch_its_copy_and_the_bound_toolchain_only():
    text = sandbox.seatbelt_profile(BOX, WORLD, COPY)
    assert text.startswith("(version 1)\n(deny default)\n")
    assert '(allow file-read* file-write* (subpath "/w/worlds/ab12") (subpath "/w/worlds/.scratch-ab12"))' in text
    assert '(allow file-read* (subpath "/w/skills/cd34/greet"))' in text
    assert '(allow file-read* (subpath "/opt/homebrew/bin") (subpath "/opt/tool"))' in text
    subpaths = set(re.findall(r'\(subpath "([^"]+)"\)', text))
    # not /Library, /opt/homebrew, /usr/local or /usr whole, no home folder, not the worlds' folder
    for whole in ("/Library", "/opt/homebrew", "/usr/local", "/usr", "/Users", "/w", "/w/worlds", "/private/var"):
        assert whole not in subpaths, whole
    assert "/usr/bin" in subpaths and "/System" in subpaths
    # the ancestors are only stat-able (file-read-metadata of the folder itself), never listed or read
    meta = _rules(text, "file-read-metadata")[0]
    assert '(literal "/w/worlds")' in meta and '(literal "/")' in meta
    assert "(deny network*)" in text and "(allow network*)" not in text


def test_private_etc_is_read_but_for_its_secrets():
    text = sandbox.seatbelt_profile(BOX, WORLD, None)
    [etc] = [r for r in _rules(text, "file-read*") if "/private/etc" in r]
    assert etc.startswith('(allow file-read* (require-all (subpath "/private/etc") (require-not (require-any ')
    for secret in ("master.passwd", "sudoers", "sudoers.d", "ssh", "kcpassword", "krb5.keytab", "ssl/private"):
        assert f'(subpath "/private/etc/{secret}")' in etc  # the folder or file and all under it


def test_a_short_list_of_mach_services_and_no_blanket_ipc():
    text = sandbox.seatbelt_profile(BOX, WORLD, None)
    assert "(allow mach-lookup)" not in text and "(allow ipc-posix-shm)" not in text
    [mach] = _rules(text, "mach-lookup")
    names = re.findall(r'\(global-name "([^"]+)"\)', mach)
    assert names == list(sandbox.SEATBELT_MACH) and len(names) <= 6
    for forbidden in ("securityd", "SecurityServer", "pasteboard", "launchservices", "lsd.", "coreservices",
                      "windowserver", "trustd", "configd"):
        assert not any(forbidden.lower() in n.lower() for n in names), forbidden
    assert '(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))' in text
    # open, osascript, launchctl and security are refused even though /usr/bin and /bin are readable
    [execs] = _rules(text, "process-exec")
    for program in ("/usr/bin/open", "/usr/bin/osascript", "/bin/launchctl", "/usr/bin/security", "/usr/bin/pbcopy"):
        assert f'(literal "{program}")' in execs
    assert execs.startswith("(allow process-exec (require-not (require-any ")


def test_with_network_the_name_and_certificate_services_come_too():
    text = sandbox.seatbelt_profile(sandbox.Sandbox(kind="seatbelt", program=BOX.program, network=True), WORLD, None)
    assert "(allow network*)" in text
    [mach] = _rules(text, "mach-lookup")
    assert "com.apple.trustd.agent" in mach and "com.apple.SystemConfiguration.configd" in mach
    assert "securityd" not in mach and "pasteboard" not in mach


def test_the_command_runs_in_its_own_process_group_which_is_killed_when_it_ends():
    line = sandbox.wrap(BOX, "make test", WORLD, COPY)
    words = shlex.split(line)
    assert words[:3] == ["/bin/bash", "-c", sandbox.SEATBELT_REAPER]
    assert 'set -m; "$@" & job=$!; set +m;' in words[2] and 'kill -KILL -- "-$job"' in words[2]
    assert words[4:6] == ["/usr/bin/sandbox-exec", "-p"] and words[6] == sandbox.seatbelt_profile(BOX, WORLD, COPY)
    env = words[words.index("-i") + 1:words.index("-i") + 1 + len(BOX.env) + 3]
    assert "HOME=/w/worlds/.scratch-ab12/home" in env and "TMPDIR=/w/worlds/.scratch-ab12/tmp" in env
    assert words[-1].endswith("exec /bin/bash -c 'make test'") and line == sandbox.wrapper(BOX, WORLD, COPY)("make test")


def test_the_process_group_reaper_ends_what_the_command_left_running(tmp_path):
    # The reaper is plain bash, so it runs here with env(1) in sandbox-exec's place.
    import os
    import subprocess
    import time

    tag = f"benchcore-reaper-{os.getpid()}"
    p = subprocess.run(["/bin/bash", "-c", sandbox.SEATBELT_REAPER, "benchcore-arm", "/usr/bin/env", "-i",
                        "/bin/bash", "-c", f"sleep 37 & nohup sh -c 'sleep 38; touch {tag}' >/dev/null 2>&1 & "
                                           "echo started; exit 3"],
                       capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert p.returncode == 3 and p.stdout == "started\n" and p.stderr == ""  # its status, no job notices
    time.sleep(0.3)
    running = {line.strip() for line in subprocess.run(["ps", "-eo", "args"], capture_output=True,
                                                        text=True).stdout.splitlines()}
    assert "sleep 37" not in running and "sleep 38" not in running


def test_paths_under_macos_links_are_named_as_seatbelt_resolves_them():
    # $TMPDIR on macOS is /var/folders/..., a link into /private: Seatbelt compares the resolved path.
    world = "/var/folders/x1/T/benchcore/benchcore-r-1/worlds/ab12"
    text = sandbox.seatbelt_profile(BOX, world, "/tmp/skills/greet")
    assert f'(subpath "/private{world}") (subpath "/private/var/folders/x1/T/benchcore/benchcore-r-1/worlds/' \
           '.scratch-ab12")' in text
    assert '(allow file-read* (subpath "/private/tmp/skills/greet"))' in text and '"/var/folders' not in text


def test_credential_files_inside_a_bound_toolchain_are_denied_after_its_allow():
    masked = sandbox.Sandbox(kind="seatbelt", program=BOX.program, readonly=("/opt/tool",),
                             masked=("/opt/tool/.npmrc", "/opt/tool/etc/credentials"), scratch=True)
    lines = sandbox.seatbelt_profile(masked, WORLD, None).splitlines()
    allow = lines.index('(allow file-read* (subpath "/opt/tool"))')
    deny = lines.index('(deny file-read* file-write* (subpath "/opt/tool/.npmrc") '
                       '(subpath "/opt/tool/etc/credentials"))')
    assert deny > allow  # Seatbelt: the last rule that matches decides
    assert not any(line.startswith("(deny file-read*") for line in sandbox.seatbelt_profile(BOX, WORLD, None)
                   .splitlines())
