"""On the real CLI in a terminal (default permission mode): the "Run a dynamic workflow?" dialog offers "Yes" exactly
for the scripts harness/fanout/bound.py says fit, the fan-out scripts benchcore writes at a realistic size among them.

Claude Code shows the script in the dialog and withholds approval ("script of
N characters cannot be shown in full — approval is unavailable", "No" the only
option) when it cannot: past 200,000 characters, or with long lines. Checked
here: a judges' script of a 20-case three-arm run (200 packets) as benchcore
writes it, and packets bound the old way (one line a prompt); scripts of short
lines just under and over 200,000 characters; seven and nine lines of 3,000
characters; and a file over 512 KiB, which the Workflow tool refuses. And the
rule bound.py reads from the CLI's code, at its edges: one 5,000-character line
(its square well within the budget) refused; 3,000- and 1,024-character lines
summing to 1.6x the first budget approved, and the same lines with the short ones
first refused (they spend the first budget before the long ones come); a run of
nine combining marks refused, and a judge packet showing one bound so it is not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from attrs import evolve


from interactive import InteractiveRig  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli("tmux")

from benchcore.harness.fanout import bound
from benchcore.harness.fanout import scripts as fanout  # noqa: E402
from benchcore.harness.fanout.prompts import Templates  # noqa: E402
from standin.repo import SKILL_DIR  # noqa: E402
from test_bound import plan_of  # noqa: E402

TEMPLATE = (SKILL_DIR / fanout.SCRIPT).read_text(encoding="utf-8")


def one_line_script(tasks: list[dict], schema: dict) -> str:
    """How scripts were bound before: the object as indented JSON, each prompt one line."""
    data = {"phase": "Judges", "tasks": tasks, "schema": schema}
    return TEMPLATE.replace(fanout.BOUND_LINE, f"const BOUND = {json.dumps(data, ensure_ascii=False, indent=1)}")


def padded_script(chars: int, width: int) -> str:
    """A small bound script followed by comment lines of ``width`` characters, about ``chars`` in all."""
    base = fanout.bound_script(TEMPLATE, "Arms", [{"id": "01-a/t1/new", "prompt": "Say hello.\n"}])
    n = max(0, (chars - len(base)) // (width + 1))
    return base + "\n" + "\n".join(["// " + "x" * (width - 3)] * n)


def lines_script(widths: list[int]) -> str:
    """A small bound script followed by comment lines of these widths, in this order."""
    base = fanout.bound_script(TEMPLATE, "Arms", [{"id": "01-a/t1/new", "prompt": "Say hello.\n"}])
    return base + "\n" + "\n".join("// " + "x" * (w - 3) for w in widths)


def dialog(tmp: Path, name: str, text: str) -> tuple[list[str], str, int]:
    rig = Rig(tmp / name, edited=False)
    script = rig.repo / "scripts" / name / "bench-fanout.js"
    script.parent.mkdir(parents=True)
    script.write_text(text, encoding="utf-8")
    options, screen = InteractiveRig(rig).workflow_dialog(script)
    return [label for _, label in options], screen, bound.dialog_cost(text)


def approvable(options: list[str]) -> bool:
    return any(o.startswith("Yes") for o in options)


def test_the_dialog_approves_benchmarks_scripts_and_refuses_past_the_budget(tmp_path):
    _, packets = plan_of()
    tasks = fanout.judge_tasks(packets)
    schema = Templates(SKILL_DIR).answer_schema
    first = fanout.fitted_chunks(TEMPLATE, "Judges", tasks, schema)[0]
    cases = {
        # The first judges' script of a 20-case three-arm run, as benchcore writes it (about 197,000 characters).
        "judges-first": fanout.bound_script(TEMPLATE, "Judges", first, schema),
        # 60 packets bound the old way, one line a prompt.
        "judges-60-one-line": one_line_script(tasks[:60], schema),
        # Short lines: the character count decides.
        "chars-under": padded_script(199_000, 80),
        "chars-over": padded_script(202_000, 80),
        # 3,000-character lines: seven pass, nine do not.
        "long-lines-7": padded_script(len(TEMPLATE) + 7 * 3001 + 900, 3000),
        "long-lines-9": padded_script(len(TEMPLATE) + 9 * 3001 + 900, 3000),
        # The CLI's rule at its edges: one line over 4,096 characters, its square a third of the budget.
        "one-line-5000": lines_script([5000]),
        # 3,000- and 1,024-character lines, 1.6x the first budget in squares: approved in this order...
        "mixed-long-first": lines_script([3000] * 7 + [1024] * 43),
        # ...and refused with the short lines first.
        "mixed-short-first": lines_script([1024] * 43 + [3000] * 7),
        # A run of nine combining marks in a comment: the dialog marks it and withholds approval...
        "marks-raw": lines_script([40]) + "\n// Z" + "\u0301" * 9 + "algo",
        # ...while a judge packet showing such an answer is bound with them escaped, and approved.
        "marks-bound": fanout.bound_script(TEMPLATE, "Judges", [{"id": "p1", "prompt": (
            "Answer A: Z" + "\u0301" * 9 + "algo; answer B: \u2026 [+3 graphemes]\n")}], schema),
        # Cheap lines but a file over 512 KiB: the Workflow tool refuses it, no dialog.
        "file-over": padded_script(bound.MAX_SCRIPT_BYTES + 2000, 40),
    }
    seen = {}
    for name, text in cases.items():
        options, screen, cost = dialog(tmp_path, name, text)
        size = len(text.encode("utf-8"))
        seen[name] = options
        reason = next((l.strip() for l in screen.splitlines() if "cannot be shown" in l or "Error:" in l), "")
        print(f"\n{name}: {size:,} bytes, cost {cost:,} ({cost / bound.DIALOG_BUDGET:.2f} of the budget), fits: "
              f"{bound.fits(text)}; options {options} {reason}")
        assert approvable(options) == bound.fits(text), (name, options, reason)
    assert seen["judges-60-one-line"] and seen["chars-over"] and seen["long-lines-9"]  # a dialog, "No" only
    assert approvable(seen["mixed-long-first"]) and not approvable(seen["mixed-short-first"])
    assert seen["one-line-5000"] and not approvable(seen["one-line-5000"])
    assert seen["marks-raw"] and not approvable(seen["marks-raw"]) and approvable(seen["marks-bound"])
    assert not seen["file-over"]  # no dialog: the tool refused the file


def test_each_fan_out_dialog_names_the_skill_the_phase_and_the_count_and_shows_no_code(tmp_path):
    # Issue 26.4: the arms' and the judges' dialogs were identical, with the code "promptOf(task)" in them.
    cells, packets = plan_of(n_cases=2, trials=5)
    schema = Templates(SKILL_DIR).answer_schema
    panel = [evolve(p, id=p.id + "#2", round=2) for p in packets[:4]]
    cases = {
        # Issue 39.3: the arms' dialog shows what they are estimated to cost (plan's figure; rough on a first run).
        "arms": (fanout.bound_script(TEMPLATE, "Arms", fanout.arm_tasks(cells),
                                     about=("greet", "arms", "about $1.23 estimated (rough: a first run)")),
                 "benchmark-skill greet: arms, 30 agents, about $1.23 estimated (rough: a first run)",
                 "Arms — 30 agents for greet: one fresh subagent per case"),
        "judges": (fanout.bound_script(TEMPLATE, "Judges", fanout.judge_tasks(packets), schema,
                                       about=("greet", "judges")),
                   "benchmark-skill greet: judges, 20 agents", "Judges — 20 agents for greet: one blind judge per"),
        "panel": (fanout.bound_script(TEMPLATE, "Judges", fanout.judge_tasks(panel), schema, about=("greet", "panel")),
                  "benchmark-skill greet: panel, 4 agents", "Judges — 4 agents for greet: two more blind judges"),
    }
    for name, (text, description, phase) in cases.items():
        options, screen, _ = dialog(tmp_path, name, text)
        print(f"\n{name}:\n" + "\n".join(l for l in screen.splitlines() if l.strip())[:1500])
        flat = " ".join(screen.split())
        assert approvable(options), (name, options)
        assert description in flat and phase in flat, (name, flat)
        assert "promptOf" not in flat and "(task)" not in flat, (name, flat)
