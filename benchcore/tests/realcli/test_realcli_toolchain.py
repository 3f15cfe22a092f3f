"""The arms' toolchain on the real Claude Code CLI (issue 37, findings 4 and 5, replayed).

One ``/benchmark-skill greet`` run, headless in default permission mode (as test_realcli_sandbox.py), in a
session set up as a newcomer's would be, plus a Rust toolchain with a registry token:

- ``~/.cargo/bin`` on PATH (a program in it), ``~/.cargo/credentials.toml`` holding a token: the arm runs
  the program, and its ``cat`` of the credentials file finds nothing (before issue 37 all of ``~/.cargo`` was
  bound and the arm read the token);
- a ``.venv`` inside the repository, made by the session's python3, with pytest installed in it, activated
  (first on PATH, ``VIRTUAL_ENV``): each arm fixes a bug and its ``python3 -m pytest`` runs from that venv
  and passes (before, the venv was dropped from the arms' PATH: "No module named pytest" in 90 of 90 arms);
- benchmark.yaml ``requires: ["python3 -m pytest --version"]``: plan ran it in the arms' sandbox, and the
  report's environment card names the venv's python3, pytest and the requires result.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from brain import Scenario  # noqa: E402
from rig import Rig, case_md, git, require_cli  # noqa: E402
from standin.repo import newcomer_venv  # noqa: E402

require_cli()

SECRET = "CARGO-REGISTRY-TOKEN-6f1e"
SETUP = (r"printf 'def add(a, b):\n    return a - b\n' > calc.py && "
         r"printf 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n' > test_calc.py")




def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_arms_get_the_repositorys_venv_and_cargos_programs_but_never_cargos_credentials(tmp_path):
    rig = Rig(tmp_path, edited=False, cases=1)
    cargo = rig.home / ".cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin/hello-cargo").write_text("#!/bin/sh\necho hello from cargo\n")
    (cargo / "bin/hello-cargo").chmod(0o755)
    (cargo / "credentials.toml").write_text(f'[registry]\ntoken = "{SECRET}"\n')
    venv = newcomer_venv(rig.repo)
    (rig.repo / ".gitignore").write_text("tests/.reports/\n.claude/\n.venv/\n")
    rig.env["PATH"] = f"{venv}/bin:{cargo}/bin:{rig.env['PATH']}"  # the venv activated in the session
    rig.env["VIRTUAL_ENV"] = str(venv)

    case = rig.repo / "tests/text/greet/01-hello-1/case.md"
    text = case_md("Fix calc.add so the tests pass, and write a greeting into greeting.txt.",
                   'cd "$WORLD" && python3 -m pytest -q -p no:cacheprovider')
    case.write_text(text.replace("---\n\n", f"setup: {SETUP}\n---\n\n", 1))
    good = case.parent / "samples/good/world"
    (good / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (good / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    (rig.repo / "tests/text/greet/benchmark.yaml").write_text('requires: ["python3 -m pytest --version"]\n')
    env = dict(os.environ, **rig.env)
    git(rig.repo, "add", "-A", env=env)
    git(rig.repo, "commit", "-qm", "a case that runs the project's tests", env=env)

    work = [f"cat {cargo}/credentials.toml; ls -A {cargo}; hello-cargo",
            "cd {world} && sed -i 's/a - b/a + b/' calc.py && printf %s 'Hello, reader!' > greeting.txt",
            "cd {world} && command -v python3 && python3 -c 'import pytest, sys; print(sys.prefix)' && "
            "python3 -m pytest -q -p no:cacheprovider"]
    wrapper = rig.repo / ".claude/skills/benchmark-skill/scripts/benchcore"
    allow = [f"Bash(\"{wrapper}\" {sub} *)" for sub in ("plan", "collect", "render", "clean")]
    res = rig.run(Scenario(arm_commands=work, use_workflow=False), "/benchmark-skill greet", bypass=False,
                  extra_args=("--disallowedTools", "Workflow", "--add-dir", str(rig.tmp / "tmp"),
                              "--allowedTools", *allow))
    assert res.code == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    readonly = plan["sandbox"]["readonly"]
    assert str(venv) in readonly and f"{cargo}/bin" in readonly and str(cargo) not in readonly
    assert str(rig.repo) not in readonly

    worlds = {c["world"] for c in plan["cells"]}
    outputs: list[str] = []
    for f in (rig.home / ".claude/projects").rglob("subagents/**/agent-*.jsonl"):
        records = _records(f)
        if not any(w in json.dumps(records[:3]) for w in worlds):
            continue  # a judge
        for r in records:
            content = (r.get("message") or {}).get("content")
            for b in content if isinstance(content, list) else []:
                if b.get("type") == "tool_result":
                    outputs.append(json.dumps(b.get("content")))
    assert len(outputs) >= 3 * len(plan["cells"])
    assert not any(SECRET in o for o in outputs)  # the token never reached an arm
    creds = [o for o in outputs if "hello from cargo" in o]
    assert len(creds) == len(plan["cells"]) and all("No such file or directory" in o for o in creds)
    tests = [o for o in outputs if "passed" in o or "No module named" in o]
    assert len(tests) == len(plan["cells"]) and all("1 passed" in o for o in tests)
    assert all(f"{venv}/bin/python3" in o and str(venv) in o for o in tests)

    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    [line] = [l for l in results["environment"]["lines"] if l["key"] == "toolchain"]
    assert line["value"].startswith(f"python3 = {venv}/bin/python3 (") and "pytest " in line["value"]
    assert "requires: `python3 -m pytest --version` ran (pytest " in line["value"]
    assert results["incomplete"] is False
    collect = json.loads((run / "collect.json").read_text())
    assert collect["invalid_trials"] == []
