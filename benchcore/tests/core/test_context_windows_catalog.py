"""context_windows.json against the model catalog built into the Claude Code binary (as test_prices_catalog.py
holds prices.json to it): every catalog model with a context entry, its first-party id and its
``context.window``, at the CLI version the file names. Skipped without the binary; CI installs it."""

from __future__ import annotations

import json
from importlib import resources

from benchcore.harness.claude import tokens
from test_prices_catalog import built_in  # noqa: F401  (the fixture: the binary and its catalog)


def test_context_windows_json_is_the_catalog_of_its_claude_code_version(built_in):  # noqa: F811
    path, found = built_in
    data = json.loads(resources.files("benchcore").joinpath("data/context_windows.json").read_text())
    ours = {m["id"]: (m["first_party_id"], m["window"]) for m in data["models"]}
    theirs = {m["id"]: (m["provider_ids"]["first_party"], int(m["context"]["window"]))
              for m in found["catalog"]["models"] if m.get("context")}
    assert data["claude_code_version"] == tokens.price_table().claude_code_version  # the binary read
    assert ours == theirs, f"context_windows.json differs from the catalog in {path}"
    assert theirs["claude-opus-5-5"][1] == 1_000_000
