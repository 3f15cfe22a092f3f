"""`benchcore usage`: exit codes, the --json shape, human tables, errors naming the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchcore.cli import main
from places import TESTS

FIXTURES = TESTS / "fixtures" / "transcripts"
SUBAGENT = str(FIXTURES / "subagent-on-disk.jsonl")
TWO_MODELS = str(FIXTURES / "two-models.jsonl")
UNKNOWN = str(FIXTURES / "unknown-model.jsonl")

ARM_FIELDS = ["turns", "input", "output", "cache_write_5m", "cache_write_1h", "cache_read", "raw_tokens",
              "cost_equivalent_tokens", "cost_usd", "models", "unpriced_models"]


def test_json_shape_and_total(capsys):
    assert main(["usage", SUBAGENT, TWO_MODELS, "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert list(doc) == ["files", "total"]
    assert [f["path"] for f in doc["files"]] == [SUBAGENT, TWO_MODELS]
    for entry in doc["files"]:
        assert list(entry) == ["path", *ARM_FIELDS, "skipped_lines"]
    assert list(doc["total"]) == [*ARM_FIELDS, "skipped_lines"]
    # subagent-on-disk: turns 3, in 10, out 380, 5m 700, 1h 1200, read 62400, cost-eq 11425, $0.034275, skipped 1
    # two-models:       turns 2, in 10, out 160, 5m 2000, 1h 0,  read 1000,  cost-eq 3410,  $0.005826, skipped 1
    # total: turns 5, in 20, out 540, 5m 2700, 1h 1200, read 63400; raw 20+540+2700+1200+63400 = 67860
    #        cost-eq 11425 + 3410 = 14835; $0.034275 + $0.005826 = $0.040101; skipped 2
    assert doc["total"] == {
        "turns": 5, "input": 20, "output": 540, "cache_write_5m": 2700, "cache_write_1h": 1200,
        "cache_read": 63400, "raw_tokens": 67860, "cost_equivalent_tokens": 14835.0, "cost_usd": 0.040101,
        "models": ["claude-haiku-4-5-20251001", "claude-opus-4-5-20251101", "claude-sonnet-4-6"],
        "unpriced_models": [], "skipped_lines": 2}
    assert doc["files"][0]["skipped_lines"] == 1
    assert doc["files"][0]["cost_usd"] == 0.034275
    assert "2 line(s) could not be read" in err


def test_human_output_tables_and_next_step(capsys):
    assert main(["usage", SUBAGENT, UNKNOWN]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(SUBAGENT + "\n")
    assert "  cost-equivalent tokens  11,425.0\n" in out
    assert "  dollars (imputed)       $0.0343\n" in out
    assert "total of 2 transcripts" in out
    # the unknown model makes both its file and the total dollar-less, and says why
    assert out.count("unknown: no price for model claude-nova-1") == 2
    assert "$0.0000" not in out
    assert out.rstrip().splitlines()[-1].startswith("Next: ")


def test_single_file_has_no_total_block(capsys):
    assert main(["usage", UNKNOWN]) == 0
    out, err = capsys.readouterr()
    assert "total of" not in out
    assert err == ""


def test_missing_file_exits_2_naming_it(capsys, tmp_path):
    missing = str(tmp_path / "nope.jsonl")
    assert main(["usage", SUBAGENT, missing, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert missing in err and "not found" in err


def test_no_transcript_is_a_usage_error():
    proc = subprocess.run([sys.executable, "-m", "benchcore", "usage"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "transcript.jsonl" in proc.stderr


def test_help_does_not_import_jinja2_or_yaml():
    code = ("import sys, contextlib, io\nfrom benchcore.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['usage', '--help'])\n"
            "print(sorted(m for m in ('jinja2', 'yaml') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_usage_reads_the_price_table_from_the_package_folder(tmp_path):
    """An installed package is a folder: the price table is read from it directly, so `benchcore usage`
    imports neither importlib.resources (the fallback for a zipped package) nor anything that writes."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    code = ("import sys, contextlib, io\nfrom benchcore.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['usage', '--json', {str(transcript)!r}])\n"
            "print(code, sorted(m for m in ('importlib.resources', 'tempfile', 'cattrs', 'yaml') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "0 []"
