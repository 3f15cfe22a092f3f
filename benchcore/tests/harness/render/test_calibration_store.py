"""``<skill>.calibration.json`` keeps every calibration (issue 38): an old file (one bare calibration) is read, a
partial or empty calibration never replaces a complete one, and the skill version is the hash of its files."""

import json

from benchcore import serde
from benchcore.harness.runs.calibration import read_calibration, skill_version, write_calibration
from benchcore.model import Calibration, NoiseCount


def cal(run_id: str, at: str, judgments: int, decisive: int, **kw) -> Calibration:
    pooled = NoiseCount(case="all", judgments=judgments, decisive=decisive, first_shown_won=decisive // 2)
    return Calibration(skill="greet", run_id=run_id, at=at, judge_model=None, cases_key="k",
                       cases=(NoiseCount(case="01", judgments=judgments, decisive=decisive,
                                         first_shown_won=decisive // 2),), pooled=pooled, **kw)


def test_an_old_file_is_read_and_a_partial_then_an_empty_calibration_are_added_not_replacing_it(tmp_path):
    complete = cal("r1", "2026-12-01T00:00:00Z", 5, 2)
    (tmp_path / "greet.calibration.json").write_text(serde.dumps(complete))  # the format before issue 38
    warnings: list[str] = []
    assert read_calibration(tmp_path, "greet", warnings).calibrations == (complete,) and not warnings
    partial = cal("r2", "2026-12-02T00:00:00Z", 1, 1, trials=5, judged=1, partial=True)
    write_calibration(tmp_path, partial, warnings)
    empty = cal("r3", "2026-12-03T00:00:00Z", 0, 0, trials=5, judged=0, partial=True)
    write_calibration(tmp_path, empty, warnings)
    stored = json.loads((tmp_path / "greet.calibration.json").read_text())
    assert stored["schema"] == 2 and [c["run_id"] for c in stored["calibrations"]] == ["r2", "r1"]
    assert stored["calibrations"][0]["partial"] is True and "partial" not in stored["calibrations"][1]
    assert any("r3 holds no judgments, so it is not kept" in w for w in warnings)
    # Rendering the same calibration run again replaces its own entry, nothing else.
    write_calibration(tmp_path, cal("r2", "2026-12-02T00:00:00Z", 5, 3, trials=5, judged=5, partial=False))
    got = read_calibration(tmp_path, "greet", [])
    assert [(c.run_id, c.pooled.judgments) for c in got.calibrations] == [("r2", 5), ("r1", 5)]


def test_the_skill_version_hashes_every_file_path_and_byte(tmp_path):
    skill = tmp_path / "greet"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("Say hello.\n")
    (skill / "references" / "tone.md").write_text("warm\n")
    first = skill_version(skill)
    assert len(first) == 64 and skill_version(skill) == first
    (skill / "references" / "tone.md").write_text("warm.\n")
    assert skill_version(skill) != first
    (skill / "references" / "tone.md").write_text("warm\n")
    assert skill_version(skill) == first
    (skill / "references" / "tone.md").rename(skill / "references" / "voice.md")
    assert skill_version(skill) != first
