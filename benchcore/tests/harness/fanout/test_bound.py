"""Every fan-out script plan and collect write can be approved in Claude Code's dialog, and launches the exact prompts.

Claude Code (default permission mode) withholds approval of a workflow script its
dialog cannot show in full: over 200,000 characters, a line over 4,096, or lines
past its two budgets of squared lengths (harness/fanout/bound.py quotes the rule
from the CLI's code, the same in 2.1.328 and 2.1.332). The realistic size
checked here is a 20-case three-arm run of the commit-message skill (300
cells, 200 judge packets), its prompts built from the real cases and its
packets showing 1-2 KB answers; the largest is what one workflow can run.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from benchcore.casefile import parse_case
from benchcore.harness.fanout import bound
from benchcore.harness.fanout import scripts as fanout
from benchcore.harness.store.planfile import Cell, Packet
from benchcore.harness.fanout.prompts import Templates
from standin.agent import read_bound, run_in_node
from standin.repo import SKILL_DIR
from places import REPO

REPO = REPO
CASES = REPO / "tests" / "git" / "commit-message"
NODE = shutil.which("node")
RUN = "20261204T061500Z-3f2a"
TEMP = f"/home/alice/.cache/benchcore/benchcore-{RUN}-k2j8x0qa"
COPIES = {"new": f"{TEMP}/skills/5d1c9e0a/commit-message", "previous": f"{TEMP}/skills/b7e41f22/commit-message"}
WORDS = ("the rounding totals invoice amount provider charged line exact half-even summed once drift "
         "regression test billing currency cents customer statement mismatch fix refs branch staged "
         "message header body footer because previously now payment ledger reconcile").split()


def cases(n: int = 20):
    """The real commit-message cases, replicated to ``n`` (ids 01.. n)."""
    real = [parse_case((d / "case.md").read_text(), str(d / "case.md")) for d in sorted(CASES.iterdir())
            if (d / "case.md").is_file()]
    assert len(real) >= 5
    return [parse_case((CASES / real[i % len(real)].id / "case.md").read_text(), "case.md",
                       case_id=f"{i + 1:02d}-{real[i % len(real)].id[3:]}") for i in range(n)]


def answer(cell_id: str) -> str:
    """A commit-message answer of 1-2 KB, different for every cell: prose, a fenced message, a long line."""
    rnd = random.Random(cell_id)
    words = lambda k: " ".join(rnd.choice(WORDS) for _ in range(k))  # noqa: E731
    body = "\n".join(words(11) for _ in range(rnd.randint(6, 12)))
    return (f"Here is a commit message for the staged change:\n\n```\nfix(billing): {words(6)}\n\n{body}\n\n"
            f"Refs: #{rnd.randint(100, 999)}\n```\n\n{words(rnd.randint(60, 120))}.\n")


def plan_of(n_cases: int = 20, trials: int = 5):
    t = Templates(SKILL_DIR)
    cells, packets = [], []
    for case in cases(n_cases):
        for trial in range(1, trials + 1):
            for arm in ("new", "baseline", "previous"):
                world = f"{TEMP}/worlds/{random.Random(f'{case.id}{trial}{arm}').getrandbits(32):08x}"
                cells.append(Cell(id=f"{case.id}/t{trial}/{arm}", case=case.id, trial=trial, arm=arm, world=world,
                                  skill_dir=COPIES.get(arm), prompt=t.arm_prompt(case, world, COPIES.get(arm)),
                                  agent_type="bench-arm"))
            for comp, other in (("efficacy", "baseline"), ("regression", "previous")):
                pid = f"{case.id}/t{trial}/{comp}"
                a, b = answer(f"{case.id}/t{trial}/new"), answer(f"{case.id}/t{trial}/{other}")
                text = t.packet(case, f"{RUN}:{pid}", *((a, b) if trial % 2 else (b, a)))
                packets.append(Packet(id=pid, case=case.id, trial=trial, comparison=comp, path=f"/x/{comp}.packet.md",
                                      prompt=t.judge_prompt_inline(text, f"{RUN}:{pid}"), ref=f"{RUN}:{pid}",
                                      agent_type="bench-judge"))
    return cells, packets


def test_what_the_dialog_shows_in_full():
    # As measured on the real CLI (test_realcli_dialog.py): 200,000 characters at most; of 3,000-character
    # lines, eight or nine were refused, seven approved. Lines split on "\n"; JavaScript counts UTF-16 units.
    assert not bound.fits("\n".join(["x" * 3000] * 8)) and bound.fits("\n".join(["x" * 3000] * 7))
    assert bound.fits("\n".join(["y" * 79] * 2499)) and not bound.fits("\n".join(["y" * 79] * 2551))
    assert bound.dialog_cost("ab\ncde\n") == 4 + 9 and bound.short_cost("ab\ncde\n") == 0
    assert bound.line_width("a\U0001F600") == 3


def test_the_clis_rule_a_line_over_4096_characters_and_two_budgets():
    # Claude Code's own rule (read from its code, the same in 2.1.328 and 2.1.332): one line over 4,096
    # characters withholds approval whatever the total, though its square is well within the first budget.
    assert not bound.fits("x" * 5000) and 5000 ** 2 < bound.DIALOG_BUDGET
    assert bound.fits("x" * 4096) and not bound.fits("x" * 4097)
    assert not bound.fits("\n".join(["short"] * 10 + ["x" * 5000] + ["short"] * 10))
    # Lines go in order: each takes its square from the first budget while it has room; a line of at most
    # 1,024 characters it has no room for takes it from the second. Seven 3,000-character lines and 43 of
    # 1,024, summing to 1.6x the first budget in squares, are approved: three short lines fill the first
    # budget's rest, forty go to the second.
    mixed = ["x" * 3000] * 7 + ["y" * 1024] * 43
    squares = sum(len(line) ** 2 for line in mixed)
    assert squares > 1.6 * bound.DIALOG_BUDGET and bound.fits("\n".join(mixed))
    assert bound.line_budgets("\n".join(mixed)) == (7 * 3000 ** 2 + 3 * 1024 ** 2, 40 * 1024 ** 2, 0)
    # A line over 1,024 characters has no second budget: once the first is spent, it is cut.
    assert not bound.fits("\n".join(mixed + ["z" * 1025]))
    assert bound.line_budgets("\n".join(mixed + ["z" * 1025]))[2] == 1
    # So order matters: the same lines with the short ones first spend the first budget before the long
    # ones come, and the 3,000-character lines are cut.
    assert not bound.fits("\n".join(["y" * 1024] * 43 + ["x" * 3000] * 7))
    # The second budget is 64 x 1024^2: 64 lines of 1,024 past a full first budget fit, a 65th does not.
    full = ["x" * 4096] * 4
    assert bound.fits("\n".join(full + ["y" * 1024] * 64)) and not bound.fits("\n".join(full + ["y" * 1024] * 65))
    # 480 lines of 400 characters (77M in squares) were approved: 419 from the first budget, 61 from the second.
    assert bound.fits("\n".join(["w" * 400] * 480)) and 480 * 400 ** 2 > bound.DIALOG_BUDGET
    assert bound.line_budgets("\n".join(["w" * 400] * 480)) == (419 * 400 ** 2, 61 * 400 ** 2, 0)
    # What the dialog's sanitizer does to a line before measuring it: tabs to stops of 8, U+FE0F dropped.
    assert bound.fits("\t" * 512) and not bound.fits("\t" * 513)
    assert bound.fits("x" * 4096 + "\ufe0f" * 10)
    # It also marks a run of more than eight combining marks, and its own cut mark in the text.
    assert bound.fits("e" + "\u0301" * 8) and not bound.fits("e" + "\u0301" * 9)
    assert not bound.fits("an answer quoting \u2026 [+12 graphemes] from a terminal")
    assert bound.within(bound.measure("ok")) and len(bound.measure("ok")) == len(bound.limits())


def test_pieces_and_shared_texts_give_back_every_prompt_exactly():
    prompts = ["Same preamble.\nLine two.\n\nown text " + "z" * 100 + "\u2028 \"q\" \\ \U0001F600\n",
               "Same preamble.\nLine two.\n\nother text", "", "\n\n", "Line two.\n"]
    texts, encoded = bound.encode(prompts)
    assert [bound.decode_prompt(e, texts) for e in encoded] == prompts
    assert texts and encoded[0][0] == encoded[1][0] == [0, 2]  # the shared opening: written once, one reference
    # A task's hole (here a world path, named twice in its first line) stands as HOLE: that line is shared.
    tasks = [{"id": str(n), "hole": f"/w/{n}", "prompt": f"Work in /w/{n} (cd /w/{n} &&).\nSay hi {n % 2}.\n"}
             for n in range(4)] + [{"id": "x", "hole": "/none", "prompt": "No hole \u0001 here.\n"}]
    texts, encoded = bound.encode_tasks(tasks)
    assert [t["prompt"] for t in bound.decoded_tasks({"texts": texts, "tasks": encoded})] == [t["prompt"] for t in tasks]
    assert encoded[0]["prompt"] == encoded[2]["prompt"] == [[0, 1]] and "hole" not in encoded[-1]
    assert all(bound.line_width(p) <= bound.PIECE for t in texts for p in t)
    assert all(bound.line_width(p) <= bound.PIECE for e in encoded for p in e if isinstance(p, str))


def test_an_answer_the_dialog_would_mark_is_bound_so_it_does_not(tmp_path):
    # A packet shows the arms' answers as they wrote them: a run of combining marks, or text that reads as
    # the dialog's own cut mark, would withhold approval of the judges' script. The script writes those
    # characters as \u escapes: the same prompt to the script, nothing the dialog marks.
    prompt = "Judge this.\nAnswer A: Z" + "\u0301\u0302" * 6 + "algo\nAnswer B: see \u2026 [+12 graphemes] \U0001D165\n"
    tasks = [{"id": "p1", "prompt": prompt}, {"id": "p2", "prompt": "Plain \u00e9t\u00e9 \u2014 caf\u00e9.\n"}]
    template = (SKILL_DIR / fanout.SCRIPT).read_text()
    text = fanout.bound_script(template, "Judges", tasks)
    assert not bound.fits("\n".join(t["prompt"] for t in tasks)) and bound.fits(text)
    assert "\\u0301" in text and "\\u2026" in text and "\u00e9t\u00e9 \u2014" in text  # only marks and U+2026
    path = tmp_path / "bench-fanout.js"
    path.write_text(text, encoding="utf-8")
    assert [t["prompt"] for t in read_bound(path)["tasks"]] == [t["prompt"] for t in tasks]
    if NODE is not None:
        assert run_in_node(path)["calls"] == [t["prompt"] for t in tasks]


def scripts_and_costs(tmp_path: Path, cells, packets):
    schema = Templates(SKILL_DIR).answer_schema
    arms = fanout.write_bound_scripts(SKILL_DIR, tmp_path / "arms", "Arms", fanout.arm_tasks(cells))
    judges = fanout.write_bound_scripts(SKILL_DIR, tmp_path / "judges", "Judges", fanout.judge_tasks(packets), schema)
    for s in arms + judges:
        assert bound.fits(s.read_text(encoding="utf-8")), s
        # Walked line by line as the CLI does: no line cut, both budgets within their limits.
        first, second, cut = bound.line_budgets(s.read_text(encoding="utf-8"))
        assert cut == 0 and first <= bound.DIALOG_BUDGET and second <= bound.SHORT_BUDGET, (s, first, second, cut)
    return arms, judges, [(s.stat().st_size, bound.dialog_cost(s.read_text(encoding="utf-8"))) for s in arms + judges]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_every_script_of_a_20_case_three_arm_run_is_approvable(tmp_path):
    cells, packets = plan_of()
    assert len(cells) == 300 and len(packets) == 200
    assert 500 < min(len(c.prompt) for c in cells) and 3000 < min(len(p.prompt) for p in packets)
    arms, judges, figures = scripts_and_costs(tmp_path, cells, packets)
    print(f"\nscripts (bytes, dialog cost): arms {figures[:len(arms)]}, judges {figures[len(arms):]}; budget "
          f"{bound.DIALOG_BUDGET:,}, {bound.MAX_SCRIPT_CHARS:,} characters; one-line prompts would cost "
          f"{sum(len(c.prompt) ** 2 for c in cells):,} and {sum(len(p.prompt) ** 2 for p in packets):,}")
    # The arms are one approval. The 200 packets hold about 540,000 characters of distinct text (each shows two
    # answers of 1-2 KB), more than the dialog shows (200,000), so the judges are four, one after the other.
    assert len(arms) == 1 and len(judges) == 4
    assert all(bound.dialog_cost(s.read_text()) < bound.DIALOG_BUDGET and s.stat().st_size < 205_000
               for s in arms + judges)
    # The script launches every planned prompt, byte for byte (run in Node, as the Workflow runtime would).
    for scripts, planned in ((arms, [c.prompt for c in cells]), (judges, [p.prompt for p in packets])):
        assert [call for s in scripts for call in run_in_node(s)["calls"]] == planned
        assert [t["prompt"] for s in scripts for t in read_bound(s)["tasks"]] == planned


def test_at_the_largest_size_a_workflow_runs_every_script_is_approvable(tmp_path):
    # 1,000 agents is all one workflow runs: 334 cases' arms, or 1,000 judge packets (split where one script's
    # dialog would refuse it, in order, so the launches are the same).
    cells, packets = plan_of(n_cases=100, trials=10)
    cells, packets = cells[:fanout.MAX_AGENTS], packets[:fanout.MAX_AGENTS]
    assert len(packets) == len({p.prompt for p in packets}) == fanout.MAX_AGENTS
    arms, judges, figures = scripts_and_costs(tmp_path, cells, packets)
    print(f"\n1,000 arms: {len(arms)} script(s); 1,000 judges: {len(judges)} script(s); (bytes, cost): {figures}")
    assert len(arms) <= 2 and len(judges) <= 20
    assert [t["prompt"] for s in judges for t in read_bound(s)["tasks"]] == [p.prompt for p in packets]


def test_a_fan_out_too_big_for_one_dialog_is_split_in_order(tmp_path, monkeypatch):
    cells, _ = plan_of(n_cases=2)
    tasks = fanout.arm_tasks(cells)
    template = (SKILL_DIR / fanout.SCRIPT).read_text()
    whole, one = (len(fanout.bound_script(template, "Arms", ts)) for ts in (tasks, tasks[:1]))
    monkeypatch.setattr(bound, "MAX_SCRIPT_CHARS", (whole + one) // 2)
    scripts = fanout.write_bound_scripts(SKILL_DIR, tmp_path / "arms", "Arms", tasks)
    assert len(scripts) > 1 and all(bound.fits(s.read_text()) for s in scripts)
    assert [t["id"] for s in scripts for t in read_bound(s)["tasks"]] == [c.id for c in cells]
    assert "Claude Code takes a script only up to a size its dialog can show" in fanout.workflow_calls(scripts)
