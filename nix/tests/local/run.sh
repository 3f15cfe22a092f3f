#!/usr/bin/env bash
# Review-time evaluation of the whole flake without nixpkgs (see
# flake-eval.nix for what is real and what stands in). Not run by CI, which
# cannot fetch these sources.
#
#   bash nix/tests/local/run.sh <nixpkgs.lib checkout> <home-manager checkout>
#
# Checkouts: the nix-community/nixpkgs.lib and nix-community/home-manager
# trees (e.g. `git archive <rev> | tar -x`; home-manager at the revision
# flake.lock pins), outside this repository. Needs nix-instantiate (2.8 is
# enough) and lndir (Debian: xutils-dev; home-manager's home-files script
# links a skill folder given to programs.claude-code.skills file by file).
#
# What it evaluates: every flake output; this module alone (chosen skills,
# their agent types, unknown names, targetDir); and this module beside
# home-manager's own programs.claude-code (modules/programs/claude-code.nix
# at the pinned revision), with and without a moved configDir: the skills and
# agent types go through its skills and agents options and land in its
# configDir, and a skill set in both modules gives one assertion, not a file
# conflict.
set -euo pipefail
# The benchmark's agent types (every .md in skills/benchmark-skill/agents), as the modules install them.
agent_types="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../skills/benchmark-skill/agents" && ls -- *.md | sed 's/\.md$//' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
nixpkgs_lib="$(cd "${1:?nixpkgs.lib checkout}" && pwd)"
home_manager="$(cd "${2:?home-manager checkout}" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."

T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT

ev() { # ev <attribute>: JSON of flake-eval.nix's attribute
  nix-instantiate --read-write-mode --eval --strict --json nix/tests/local/flake-eval.nix \
    --arg nixpkgsLib "$nixpkgs_lib" --arg homeManager "$home_manager" -A "$1"
}
str() { ev "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin))'; }
words() { ev "$1" | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)))'; }

for a in outputs inputNames packageNames skillsFolder benchcore skillScripts checkNames formatter \
  devShell home.chosenFiles home.unknownRefused home.unknownMessages home.targetDirOverride home.extended home.tildeMessages home.disabled checkScripts packagesChecked apps; do
  # An assignment, so that `set -e` stops the run when an attribute fails to
  # evaluate (inside printf's arguments the failure was printed and ignored).
  v="$(ev "$a")"
  printf '%s = %s\n' "$a" "$v"
done

echo
echo "== nix flake check builds every package; nix run . runs benchcore"
test "$(ev packagesChecked)" = true
ev apps | python3 -c '
import json, sys
apps, exe = json.load(sys.stdin), json.loads(sys.argv[1])["exe"]
assert apps["default"] == {"type": "app", "program": exe}, apps
print("ok")' "$(ev benchcore)"

echo
echo "== a skill the user adds, and one they replace, leave the flake's others in place"
ev home.extended | python3 -c '
import json, sys
files, names = json.load(sys.stdin), sys.argv[1].split()
agents = {f".claude/agents/{a}" for a in sys.argv[2].split()}
want = {f".claude/skills/{n}" for n in names + ["my-own-skill"]} | agents
assert set(files) == want, f"home.file holds {sorted(files)}, expected {sorted(want)}"
assert files[f".claude/skills/{names[0]}"].endswith(f"-my-{names[0]}"), files
print("ok")' "$(words home.all)" "$(cd skills/benchmark-skill/agents && echo *.md)"

echo
echo "== the dev shell's shellHook, through checks/shell-hook.sh"
str devShell.shellHook >"$T/hook"
SHELL_HOOK_FILE="$T/hook" SKILL_LINKS="$(str skillLinks)" AGENT_LINKS="$(str agentLinks)" GC_ROOT="$(str gcRoot)" \
  STORE_DIR=/nix/store bash checks/shell-hook.sh

for which in chosen all; do
  echo
  echo "== home-manager's home-files script for skills = $which, through checks/home-manager-module.sh"
  if [ "$which" = chosen ]; then
    script=home.chosenScript chosen="$(words home.chosen)" unchosen="$(words home.unchosen)"
  else
    script=home.allScript chosen="$(words home.all)" unchosen=""
  fi
  str "$script" >"$T/home-files.sh"
  rm -rf "$T/home-files"
  out="$T/home-files" bash "$T/home-files.sh"
  HOME_FILES="$T/home-files" CHOSEN="$chosen" UNCHOSEN="$unchosen" AGENTS="$agent_types" AGENTS_DIR=.claude/agents \
    UNKNOWN_NAME=no-such-skill UNKNOWN_FAILS="$([ "$(ev home.unknownRefused)" = true ] && echo 1 || echo 0)" \
    UNKNOWN_MESSAGE="$(str home.unknownMessages)" \
    bash checks/home-manager-module.sh
done

echo
echo "== beside home-manager's programs.claude-code: skills and agent types go through its options"
test "$(words claudeCode.skills)" = "$(words home.chosen)"
test "$(words claudeCode.agents)" = "$agent_types"
echo ok
for which in script movedScript; do
  if [ "$which" = script ]; then dir=.claude; else dir=.config/claude; fi
  echo
  echo "== programs.claude-code enabled, configDir = ~/$dir: its home files, through checks/home-manager-module.sh"
  str "claudeCode.$which" >"$T/home-files.sh"
  rm -rf "$T/home-files"
  out="$T/home-files" bash "$T/home-files.sh"
  HOME_FILES="$T/home-files" CHOSEN="$(words home.chosen)" UNCHOSEN="$(words home.unchosen)" \
    TARGET_DIR="$dir/skills" AGENTS="$agent_types" AGENTS_DIR="$dir/agents" \
    bash checks/home-manager-module.sh
done
ev claudeCode.movedVariables | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v == {"CLAUDE_CONFIG_DIR": "/home/check/.config/claude"}, v
print("ok   CLAUDE_CONFIG_DIR follows configDir (Claude Code and benchcore read it)")'

echo
echo "== the same skill named in both modules: one assertion naming it, not a file conflict"
test "$(ev claudeCode.clashRefused)" = true
ev claudeCode.clashMessages | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert len(m) == 1, m
assert "both install the skill `commit-message`" in m[0] and "programs.claude-code.skills.commit-message" in m[0], m
assert "Conflicting managed target files" not in m[0], m
print("ok   " + m[0])'
test "$(words claudeCode.clashFiles)" = ".claude/skills/commit-message"
echo "ok   home.file holds commit-message once"
ev claudeCode.agentsDirMessages | python3 -c '
import json, sys
m = json.load(sys.stdin)
assert len(m) == 1 and "programs.claude-code.agentsDir" in m[0], m
print("ok   agentsDir: " + m[0][:80] + "...")'
ev claudeCode.movedTargetWarnings | python3 -c '
import json, sys
w = json.load(sys.stdin)
assert len(w) == 1 and "targetDir" in w[0], w
print("ok   targetDir set beside programs.claude-code: a warning")'

echo
echo "== benchmarkAsPlugin: benchmark-skill and its agent types as one plugin, through programs.claude-code.plugins"
ev claudeCode.plugin | python3 -c '
import json, sys
p = json.load(sys.stdin)
assert p["plugins"] == ["claude-plugin-benchmark-skill"], p["plugins"]
assert "benchmark-skill" not in p["skills"] and p["agents"] == [], p
assert "--plugin-dir /nix/store/" in p["wrapper"] and "-claude-plugin-benchmark-skill" in p["wrapper"], p["wrapper"]
assert len(p["withoutClaudeCode"]) == 1 and "programs.claude-code.enable" in p["withoutClaudeCode"][0], p
print("ok   the plugin replaces the skill and its agent types, and the claude wrapper passes it to --plugin-dir")'
# The plugin folder, built by its own script; with the real CLI (BENCH_CLAUDE_BIN), validated and loaded.
plugin="$T/plugin"
ev claudeCode.plugin | python3 -c 'import json,sys; print(json.load(sys.stdin)["pluginScript"])' >"$T/plugin.sh"
out="$plugin" bash "$T/plugin.sh"
test -f "$plugin/skills/benchmark-skill/SKILL.md" && test -f "$plugin/skills/benchmark-skill/agents/bench-arm.md"
echo "ok   the plugin folder holds the skill and its agent types at the paths its manifest names"
if [ -n "${BENCH_CLAUDE_BIN:-}" ]; then
  chmod -R u+w "$plugin"
  HOME="$T/claude-home" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$BENCH_CLAUDE_BIN" plugin validate --strict "$plugin" >"$T/validate.log" 2>&1 ||
    { cat "$T/validate.log"; exit 1; }
  grep -E "agents: .*benchmark-skill:bench-arm" "$T/validate.log"
  (cd "$T" && HOME="$T/claude-home" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    ANTHROPIC_BASE_URL=http://127.0.0.1:9 ANTHROPIC_API_KEY=offline timeout 20 \
    "$BENCH_CLAUDE_BIN" -p hello --plugin-dir "$plugin" --debug-file "$T/session.log" >/dev/null 2>&1) || true
  grep -q "Loaded agent from plugin benchmark-skill .*/agents/bench-arm.md" "$T/session.log"
  echo "ok   claude --plugin-dir loads it: agent type benchmark-skill:bench-arm"
fi
