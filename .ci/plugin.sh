#!/usr/bin/env bash
# CI's plugin steps, with the pinned Claude Code CLI run offline in a throwaway HOME:
#   1. `claude plugin validate --strict` on the repository (the marketplace) and
#      on each plugin the marketplace lists; a plugin folder made of symlinks
#      (plugins/benchmark-skill/: links into the repository, which the
#      validator does not follow) is validated as installed, where the CLI has
#      copied each link's target;
#   2. the install a user does: `claude plugin marketplace add <path>` and
#      `claude plugin install <plugin>@claude-skills` for each plugin, then what
#      Claude Code reports it loads (`claude plugin details`: the skills and
#      the namespaced agent types) and the installed copy on disk: what the
#      plugin runs and nothing else, under 2 MB;
#   3. the installed skill's wrapper with no benchcore on PATH: it installs
#      benchcore from the plugin's copy into the plugin's data folder (pip,
#      the exact versions of benchcore/requirements.lock, from PyPI) and says
#      so; the marketplace's plugin folder run in place (links into the
#      marketplace) uses the same environment; `validate` checks a
#      repository's cases, and `plan` there gives
#      every arm's cells the plugin's sealed agent type, benchmark-skill:bench-arm
#      (plan's JSON still names it baseline_agent_type, its old key);
#   4. a plugin copy missing its lock file: the wrapper's fix line, run as
#      printed (uninstall and install with the CLI), repairs it.
# The CLI: $BENCH_CLAUDE_BIN, else what benchcore/tests/realcli/install-cli.sh
# installs (the version is pinned there, in CLI_VERSION).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; exit 1; }

claude=${BENCH_CLAUDE_BIN:-}
if [ -z "$claude" ]; then
  installer=benchcore/tests/realcli/install-cli.sh
  [ -f "$installer" ] || fail "no Claude Code CLI: set BENCH_CLAUDE_BIN or add $installer"
  claude=$(bash "$installer")
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
unset CLAUDE_CONFIG_DIR
mkdir -p "$HOME"
"$claude" --version

plugins=$(python3 -c 'import json; print("\n".join(p["name"] + "=" + p["source"] for p in json.load(open(".claude-plugin/marketplace.json"))["plugins"]))')

step "claude plugin validate --strict: the repository, then each plugin"
"$claude" plugin validate --strict .
while IFS== read -r name source; do
  echo "-- $name ($source)"
  if [ -n "$(find "$source" -type l)" ]; then
    echo "   links into the repository: validated as installed, below"
    continue
  fi
  "$claude" plugin validate --strict "$source"
done <<<"$plugins"

step "claude plugin marketplace add <path>; claude plugin install <plugin>@claude-skills"
# A copy of what git would hand a user (committed and new files, nothing ignored).
market="$T/marketplace"
mkdir -p "$market"
git ls-files -z -co --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$market"
(cd "$T" && "$claude" plugin marketplace add "$market")
while IFS== read -r name source; do
  (cd "$T" && "$claude" plugin install "$name@claude-skills")
done <<<"$plugins"
"$claude" plugin list

step "what a session loads from them (its debug log; no model is reached)"
# `claude plugin details` counts only an agents/ folder, not the agent files a manifest lists, so the
# session's own log is the evidence: a headless session pointed at a closed port, stopped after start-up.
(cd "$T" && ANTHROPIC_BASE_URL=http://127.0.0.1:9 ANTHROPIC_API_KEY=offline timeout 20 \
  "$claude" -p hello --debug-file "$T/session.log" >/dev/null 2>&1) || true
grep -E "Loaded (agent|[0-9]+ skills) from plugin" "$T/session.log" | sed 's/^[^ ]* //' || fail "no plugin loaded in the session"
for agent in skills/benchmark-skill/agents/*.md; do
  grep -qE "Loaded agent from plugin benchmark-skill .*/$agent\$" "$T/session.log" ||
    fail "the session did not load agent type $(basename "$agent" .md) from the benchmark-skill plugin"
  echo "ok   agent type benchmark-skill:$(basename "$agent" .md)"
done
grep -qE "Loaded 1 skills from plugin benchmark-skill" "$T/session.log" || fail "the session did not load /benchmark-skill"
echo "ok   skill benchmark-skill:benchmark-skill"
for s in git/commit-message docs/adr-writer release/changelog-entry python/fix-failing-test; do
  grep -qE "Loaded 1 skills from plugin example-skills custom path: .*/skills/$s\$" "$T/session.log" ||
    fail "the session did not load $s from the example-skills plugin"
  echo "ok   skill example-skills:${s#*/}"
done

step "the installed copy on disk"
installed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plugins"]["benchmark-skill@claude-skills"][0]["installPath"])' \
  "$HOME/.claude/plugins/installed_plugins.json")
echo "benchmark-skill@claude-skills: $installed"
for f in .claude-plugin/plugin.json skills/benchmark-skill/SKILL.md skills/benchmark-skill/scripts/benchcore \
  skills/benchmark-skill/templates/arm-baseline.md benchcore/pyproject.toml benchcore/requirements.lock \
  benchcore/src/benchcore/cli.py; do
  [ -e "$installed/$f" ] || fail "$installed/$f is missing"
  echo "ok   $f"
done
for agent in skills/benchmark-skill/agents/*.md; do
  [ -f "$installed/$agent" ] || fail "$installed/$agent is missing"
  echo "ok   $agent"
done

for d in tests checks docs nix .venv; do
  [ ! -e "$installed/$d" ] && [ ! -e "$installed/benchcore/$d" ] || fail "the plugin copy holds $d/, which it does not run"
done
[ -z "$(find "$installed" -type l)" ] || fail "the plugin copy holds links: $(find "$installed" -type l)"
size=$(find "$installed" -type f -exec cat {} + | wc -c)
[ "$size" -lt 2000000 ] || fail "the plugin copy is $size bytes (limit 2 MB)"
echo "ok   the copy holds only what the plugin runs: $(find "$installed" -type f | wc -l) files, $size bytes"
"$claude" plugin validate --strict "$installed"

step "first use without benchcore on PATH: the wrapper installs it into the plugin's data folder"
clean_path=/usr/local/bin:/usr/bin:/bin
if PATH=$clean_path command -v benchcore >/dev/null 2>&1; then
  fail "benchcore is on $clean_path already; this step needs a PATH without it"
fi
wrapper="$installed/skills/benchmark-skill/scripts/benchcore"
first=$(PATH=$clean_path "$wrapper" --version 2>&1)
echo "$first"
grep -q "^benchmark-skill: first use: installing benchcore .*: about 20 s on an idle machine" <<<"$first" || fail "no start line: $first"
grep -q "^benchmark-skill:   3/3 benchcore itself ([0-9]* s so far)" <<<"$first" || fail "no progress line: $first"
grep -q "^benchmark-skill: first use: benchcore .* installed in [0-9]* s$" <<<"$first" || fail "no done line: $first"
data="$HOME/.claude/plugins/data/benchmark-skill-claude-skills"
ls -d "$data"/benchcore-venv-* || fail "no environment in the plugin's data folder $data"
# A second call reuses it (no install message).
second=$(PATH=$clean_path "$wrapper" --version 2>&1)
grep -q "installing" <<<"$second" && fail "the second call installed again: $second"
echo "ok   reused: $second"
# The marketplace's own plugin folder, run in place as Claude Code runs a directory marketplace's plugin (its
# benchcore/ is relative links into the marketplace): the same content, so the same environment, no install.
inplace=$(PATH=$clean_path "$market/plugins/benchmark-skill/skills/benchmark-skill/scripts/benchcore" --version 2>&1)
grep -q "installing" <<<"$inplace" && fail "the plugin folder run in place installed again: $inplace"
[ "$(ls -d "$data"/benchcore-venv-* | wc -l)" -eq 1 ] || fail "more than one environment in $data: $(ls "$data")"
echo "ok   in place: $inplace, from the same environment"

step "validate, then plan in a repository: every arm's cells get the plugin's agent type"
proj="$T/project"
mkdir -p "$proj"
(cd "$market" && tar -cf - skills tests) | tar -xf - -C "$proj"
rm -rf "$proj/skills/.claude-plugin"
(cd "$proj" && git init -q -b main && git -c user.name=ci -c user.email=ci@example.com add -A &&
  git -c user.name=ci -c user.email=ci@example.com commit -q -m fixture)
(cd "$proj" && PATH=$clean_path:$(dirname "$(command -v git)") "$wrapper" validate) || fail "validate failed in $proj"
echo "ok   validate through the plugin's wrapper"
summary=$(cd "$proj" && PATH=$clean_path:$(dirname "$(command -v git)") "$wrapper" plan commit-message --seed 1 --json)
agent=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["baseline_agent_type"])' "$summary")
[ "$agent" = "benchmark-skill:bench-arm" ] || fail "plan chose arm agent type '$agent'"
run_dir=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["runs"][0]["run_dir"])' "$summary")
types=$(cd "$proj" && python3 -c 'import json,sys; print(sorted({c["agent_type"] for c in json.load(open(sys.argv[1] + "/plan.json"))["cells"]}))' "$run_dir")
[ "$types" = "['benchmark-skill:bench-arm']" ] || fail "plan.json's cells run as $types"
echo "ok   every cell's agent type = $agent"
(cd "$proj" && PATH=$clean_path "$wrapper" clean "$run_dir" >/dev/null)

step "a damaged plugin copy: the wrapper's fix line, run as printed, repairs it"
rm "$installed/benchcore/requirements.lock"
said=$(PATH=$clean_path "$wrapper" --version 2>&1) && fail "the wrapper ran without its lock file: $said"
fix=$(sed -n 's/.*  fix: //p' <<<"$said")
echo "fix: $fix"
shim="$T/shim"
mkdir -p "$shim" && ln -sf "$claude" "$shim/claude"
(cd "$T" && PATH="$shim:$clean_path" sh -c "$fix") || fail "the fix line failed: $fix"
again=$(PATH=$clean_path "$wrapper" --version 2>&1) || fail "after the fix: $again"
echo "ok   repaired: $again"

step "plugin steps passed"
