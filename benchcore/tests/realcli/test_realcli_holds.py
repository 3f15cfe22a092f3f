"""Issue 37 on the real Claude Code CLI: the sandbox holds as root (2), and an arm's /tmp and HOME last across its
calls (6).

``/benchmark-skill greet`` runs headless in default permission mode, as in test_realcli_sandbox.py (a call that
would ask is refused there). Every arm, in its sandboxed Bash calls (the machine and CI run as root):

1. tries what an arm did as root before: remount every read-only mount writable and write into it (its skill
   copy, the toolchain folders, /usr), bind its world over /usr/bin, unmount the /etc/shadow mask, make a user
   namespace of its own, write to /usr and to /; every one fails, and the writes fail with "Read-only file
   system", which the arm reads;
2. makes a folder with ``mktemp -d``, writes into it, notes it in its home folder, and makes a virtual
   environment in /tmp;
3. in its next call reads that folder back, runs the virtual environment's python, and writes its answer.

collect recomputes every call's wrapped command (scratch binds, ``--remount-ro /``) and finds each one: every
trial valid. Nothing changed on the host: the skill copies and /usr are as plan left them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from brain import Scenario  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli()

ATTACK = ("cd {world} && grep CapEff /proc/self/status; "
          "for m in $(awk '$4 ~ /(^|,)ro(,|$)/ {{print $2}}' /proc/self/mounts); do "
          "mount -o remount,rw,bind \"$m\" 2>/dev/null && echo \"REMOUNTED $m\"; "
          "touch \"$m/.benchcore-pwned\" 2>/dev/null && echo \"WROTE $m\"; done; "
          "mount --bind {world} /usr/bin 2>/dev/null && echo BOUND; "
          "umount /etc/shadow 2>/dev/null && echo UNMOUNTED; "
          "unshare -Ur true 2>/dev/null && echo USERNS; unshare -U true 2>/dev/null && echo USERNS; "
          "touch /usr/.benchcore-pwned; touch /.benchcore-pwned; touch /dev/.benchcore-pwned; echo attacks-done")
KEEP = ("cd {world} && d=$(mktemp -d) && echo kept > \"$d/f\" && echo \"$d\" > ~/where && "
        "python3 -m venv --without-pip /tmp/venv && echo made")
USE = ("cd {world} && cat \"$(cat ~/where)/f\" && /tmp/venv/bin/python -c 'import sys; print(sys.prefix)' && "
       "printf %s 'Hello, reader!' > greeting.txt")


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _results(f: Path) -> list[str]:
    """The arm's Bash calls' results, in order."""
    out = []
    for r in _records(f):
        content = (r.get("message") or {}).get("content")
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_result":
                body = b.get("content")
                text = body if isinstance(body, str) else "".join(x.get("text", "") for x in body or [])
                out.append(text)
    return out


def test_as_root_an_arm_cannot_remount_or_write_outside_and_its_tmp_and_home_last_across_calls(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)
    seen: dict[str, bool] = {}

    def on_step(cid: str, step: int, world: str) -> None:
        # On the host, while the arm runs: its folder and venv are in the cell's scratch folder beside its
        # world, not in the machine's /tmp.
        scratch = Path(world).parent / f".scratch-{Path(world).name}"
        seen[cid] = seen.get(cid, False) or ((scratch / "tmp/venv/bin/python").exists()
                                              and (scratch / "home/where").is_file())

    wrapper = rig.repo / ".claude/skills/benchmark-skill/scripts/benchcore"
    allow = [f"Bash(\"{wrapper}\" {sub} *)" for sub in ("plan", "collect", "render", "clean")]
    res = rig.run(Scenario(arm_commands=[ATTACK, KEEP, USE], use_workflow=False, on_step=on_step),
                  "/benchmark-skill greet", bypass=False,
                  extra_args=("--disallowedTools", "Workflow", "--add-dir", str(rig.tmp / "tmp"),
                              "--allowedTools", *allow))
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    assert res.result.get("permission_denials", []) == []
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    box = plan["sandbox"]
    assert box["kind"] == "bwrap" and box["scratch"] is True and box["tail"][-2:] == ["--remount-ro", "/"]
    assert "--cap-drop" in box["args"]

    worlds = {c["world"]: c for c in plan["cells"]}
    arms = 0
    for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl"):
        head = json.dumps(_records(f)[:3])
        if not any(w in head for w in worlds):
            continue  # a judge
        arms += 1
        attack, keep, use = _results(f)[-3:]
        assert "attacks-done" in attack and "CapEff:\t0000000000000000" in attack, attack
        for word in ("REMOUNTED", "WROTE", "BOUND", "UNMOUNTED", "USERNS"):
            assert word not in attack, attack
        # the writes outside failed, and the arm was told so
        assert attack.count("Read-only file system") >= 3, attack
        assert keep.strip().endswith("made"), keep
        assert use.split()[:2] == ["kept", "/tmp/venv"], use
    assert arms == len(plan["cells"]) and sorted(seen) == sorted(c["id"] for c in plan["cells"])
    assert all(seen.values()), seen

    # nothing changed on the host
    for copy in plan["skill_copies"].values():
        assert not os.path.exists(copy) or not list(Path(copy).rglob(".benchcore-pwned"))
    assert not Path("/usr/.benchcore-pwned").exists() and not Path("/.benchcore-pwned").exists()
    assert not list(Path(rig.home).glob(".benchcore-pwned"))

    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == []  # collect recomputed every wrapped call, scratch binds included
    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["incomplete"] is False and results["sandboxed"] is True
    # clean removed the worlds and their scratch folders with the run's temp folder
    assert not Path(plan["temp_root"]).exists() or not list(Path(plan["world_root"]).glob(".scratch-*"))
