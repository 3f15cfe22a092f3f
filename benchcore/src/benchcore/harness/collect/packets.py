"""Collect stage 4, the judge packets: one blind packet per valid trial and comparison, listed in plan.json."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from attrs import evolve

from ... import serde
from ...model import Case, ComparisonRecord
from .state import RunState, file_sha256, write_if_changed
from ..store.files import read_text
from ...judging import draw_order
from ..store.planfile import Packet, agent_tool_model
from ..fanout.prompts import redact


def _now() -> str:
    """Now in UTC, to the millisecond (Claude Code's transcript timestamps are to the millisecond)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _packet_text(run: RunState, case: Case, trial: int, comp: str, order: dict[str, str]) -> str:
    outs = {letter: redact(read_text(run.tdir(case.id, trial) / order[letter] / "output.md"), run.redactions)
            for letter in ("A", "B")}
    return run.templates.packet(case, run.ref(f"{case.id}/t{trial}/{comp}"), outs["A"], outs["B"])


def _order(run: RunState, key: str, keys: dict[str, str], other: str) -> dict[str, str]:
    if run.plan.order_rule == "plan" and key in run.plan.orders:
        return dict(run.plan.orders[key])
    return draw_order(run.plan.seed, key, keys, other)


def add_packet(run: RunState, packets: dict[str, Packet], case: str, trial: int, comp: str, round_: int) -> None:
    base = f"{case}/t{trial}/{comp}"
    pid = base if round_ == 1 else f"{base}#{round_}"
    if pid in packets:
        return
    first = packets[base]
    path = Path(first.path)
    text = read_text(path)
    packets[pid] = evolve(first, id=pid, ref=run.ref(pid), round=round_, written_at=_now(),
                          model=run.plan.judge_model, agent_model=agent_tool_model(run.plan.judge_model),
                          prompt=run.templates.judge_prompt_inline(text, run.ref(pid)))


CONFIRM_TAILS = ("#c", "#2c", "#3c")  # the swapped second reading of round 1, 2 and 3


def confirm_id(pid: str) -> str:
    """The id of the packet that confirms packet ``pid``: '<base>#c', '<base>#2c', '<base>#3c'."""
    return f"{pid}c" if "#" in pid else f"{pid}#c"


def add_confirmation(run: RunState, packets: dict[str, Packet], pid: str) -> None:
    """The swapped second reading of packet ``pid``'s decisive judgment: the same two outputs, the letters
    swapped, for a fresh judge (benchmark.yaml confirm_judgments)."""
    cid = confirm_id(pid)
    if cid in packets:
        return
    judged = packets[pid]
    base = pid.split("#", 1)[0]
    order = run.plan.orders[base]
    text = _packet_text(run, run.cases[judged.case], judged.trial, judged.comparison,
                        {"A": order["B"], "B": order["A"]})
    path = Path(judged.path).with_name(f"{judged.comparison}.confirm.packet.md")
    write_if_changed(path, text)
    packets[cid] = evolve(judged, id=cid, ref=run.ref(cid), path=str(path), written_at=_now(),
                          model=run.plan.judge_model, agent_model=agent_tool_model(run.plan.judge_model),
                          prompt=run.templates.judge_prompt_inline(text, run.ref(cid)), invalid_answers=())


def write_packets(run: RunState, audits: dict, gated: dict, unchecked: set) -> dict[str, Packet]:
    """One packet per valid trial and comparison where the gate passed (a gated trial is lost on both), each keyed to the
    bytes of the two outputs it shows. A packet whose outputs changed is written afresh (new time, new
    prompt), its escalation rounds dropped and its judgments file removed: its trial goes back to the
    judges. Packets of trials that no longer qualify leave the plan."""
    old = {p.id: p for p in run.plan.packets}
    packets: dict[str, Packet] = {}
    orders = dict(run.plan.orders)
    for (case_id, trial), problems in audits.items():
        if problems:
            continue
        tdir = run.tdir(case_id, trial)
        keys_all = {c.arm: file_sha256(tdir / c.arm / "output.md")
                    for c in run.cells_by_trial().get((case_id, trial), ())}
        for comp, (_, other) in run.info.comparisons.items():
            if gated.get((case_id, trial)) or (case_id, trial) in unchecked or (case_id, trial) not in gated:
                continue
            base = f"{case_id}/t{trial}/{comp}"
            keys = {"new": keys_all["new"], other: keys_all[other]}
            order = _order(run, base, keys, other)
            orders[base] = order
            text = _packet_text(run, run.cases[case_id], trial, comp, order)
            path = tdir / f"{comp}.packet.md"
            write_if_changed(path, text)
            prompt = run.templates.judge_prompt_inline(text, run.ref(base))
            prev = old.get(base)
            if prev is not None and prev.outputs_sha256 == keys and prev.prompt == prompt:
                packets[base] = prev
                for tail in ("#2", "#3", *CONFIRM_TAILS):
                    if f"{base}{tail}" in old:
                        packets[f"{base}{tail}"] = old[f"{base}{tail}"]
            else:
                packets[base] = Packet(id=base, case=case_id, trial=trial, comparison=comp, path=str(path),
                                       prompt=prompt, ref=run.ref(base), round=1, written_at=_now(),
                                       outputs_sha256=keys, agent_type=run.plan.judge_agent_type,
                                       model=run.plan.judge_model,
                                       agent_model=agent_tool_model(run.plan.judge_model))
            _drop_stale_record(run, tdir / f"{comp}.json", keys)
    run.plan = evolve(run.plan, orders=orders)
    return packets


def _drop_stale_record(run: RunState, path: Path, keys: dict[str, str]) -> None:
    """Remove a judgments file that judged other output bytes than the packet now shows."""
    if not path.is_file():
        return
    record = serde.loads(ComparisonRecord, read_text(path), source=str(path))
    legacy = record.outputs_sha256 is None and run.plan.order_rule == "plan"
    if not legacy and record.outputs_sha256 != keys:
        path.unlink()
