#!/usr/bin/env bash
# Render the committed three-arm and two-arm fixture runs with the benchcore under
# test, compare each results.json with the hand-derived expected file, and assert
# on what the HTML report shows. Runs with or without Nix:
#
#   bash checks/benchmark-core.sh                         # benchcore on PATH
#   BENCHCORE=/nix/store/...-benchcore/bin/benchcore bash checks/benchmark-core.sh
#
# Environment: BENCHCORE (the program), PYTHON (for the JSON diff; default python3),
# FIXTURES (default: checks/fixtures/benchmark-core beside this script).
# Exits non-zero on any difference and prints a unified diff of the results.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fixtures=${FIXTURES:-$here/fixtures/benchmark-core}
benchcore=${BENCHCORE:-benchcore}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1796313600  # a fixed "generated at", so the HTML is reproducible

failures=0
ok() { printf '  ok    %s\n' "$1"; }
bad() { printf '  FAIL  %s\n' "$1"; failures=$((failures + 1)); }

# contains FILE TEXT DESCRIPTION / lacks FILE TEXT DESCRIPTION / count FILE TEXT N DESCRIPTION
contains() { if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3 (missing: $2)"; fi; }
lacks() { if grep -qF -- "$2" "$1"; then bad "$3 (found: $2)"; else ok "$3"; fi; }
count() {
  local n
  n=$(grep -oF -- "$2" "$1" | wc -l | tr -d ' ')
  if [ "$n" = "$3" ]; then ok "$4"; else bad "$4 (expected $3 of '$2', found $n)"; fi
}

# canonical JSON (sorted keys, indented) so the diff reads well
canon() { "$python" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), indent=2, sort_keys=True))' "$1"; }
field() { "$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); exec("print(" + sys.argv[2] + ")")' "$1" "$2"; }

render_fixture() {  # shape expected_exit
  local shape=$1 want=$2 run out skill code
  run=$fixtures/$shape/run
  out=$work/$shape
  mkdir -p "$out"
  skill=$(field "$run/run.json" 'd["skill"]["name"]')
  cp "$fixtures/$shape/history.jsonl" "$out/$skill.history.jsonl"
  echo "== $shape: $skill"
  set +e
  "$benchcore" render "$run" --reports "$out" >"$out/stdout" 2>"$out/stderr"
  code=$?
  set -e
  if [ "$code" = "$want" ]; then ok "render exits $want"; else bad "render exits $want (got $code)"; cat "$out/stderr"; return; fi
  if diff -u <(canon "$fixtures/$shape/expected.results.json") <(canon "$out/$skill.results.json") >"$out/results.diff"; then
    ok "results.json equals expected.results.json"
  else
    bad "results.json differs from expected.results.json:"
    cat "$out/results.diff"
  fi
  local lines
  lines=$(wc -l <"$out/$skill.history.jsonl" | tr -d ' ')
  local before
  before=$(wc -l <"$fixtures/$shape/history.jsonl" | tr -d ' ')
  if [ "$lines" = $((before + 1)) ]; then ok "history has one new line ($lines)"; else bad "history has $lines lines, expected $((before + 1))"; fi
  for f in "$skill.html" index.html "$skill.results.json"; do
    if [ -s "$out/$f" ]; then ok "wrote $f"; else bad "did not write $f"; fi
  done
  if grep -qiE '<(script|link|img|iframe)[ >]|src="https?:|href="https?:|url\(https?:' "$out/$skill.html" "$out/index.html"; then
    bad "the pages load nothing from the network and run no script"
  else
    ok "the pages load nothing from the network and run no script"
  fi
}

render_fixture three-arm 1
h=$work/three-arm/commit-message.html
contains "$h" '<span class="badge fail"><span class="badge-axis">Efficacy</span><span class="badge-status">fail</span>' "efficacy badge is red"
contains "$h" '<span class="badge fail"><span class="badge-axis">Regression</span><span class="badge-status">fail</span>' "regression badge is red"
contains "$h" 'Jump to the first failure: 02-breaking-api-change' "jump-to-failure link goes to the first failing case"
count "$h" '<div class="ribbon ribbon-' 2 "two trend ribbons"
count "$h" '<circle class="ring"' 2 "the current run is ringed on both ribbons"
contains "$h" '<th scope="row">new skill</th>' "cost row: new skill"
contains "$h" '<th scope="row">previous version</th>' "cost row: previous version"
contains "$h" '<th scope="row">no skill</th>' "cost row: no skill"
contains "$h" 'shared-context cache overhead' "cost footnote"
# every case the expected results mark expanded is an open panel, and no other
expanded=$(field "$fixtures/three-arm/expected.results.json" 'sum(1 for c in d["cases"] if c["expanded"])')
count "$h" '<details class="case" id="case-' 5 "one panel per case"
count "$h" ' open>' "$expanded" "$expanded panels open (the expanded cases)"
contains "$h" 'failed the hard-assertion gate' "the gated trial shows its failed command"
contains "$h" 'judges split' "the split comparison is named for escalation"
contains "$h" '&lt;script&gt;alert(1)&lt;/script&gt;' "hostile output is escaped"
lacks "$h" '<script>alert(1)</script>' "no raw script from a model output"
contains "$h" '{{ 7*7 }}' "Jinja syntax in model text is shown as text"

render_fixture two-arm 0
h=$work/two-arm/adr-writer.html
contains "$h" '<span class="badge pass"><span class="badge-axis">Efficacy</span><span class="badge-status">pass</span>' "efficacy badge is green"
contains "$h" '<span class="badge na"><span class="badge-axis">Regression</span><span class="badge-status">n/a</span>' "regression reads n/a"
contains "$h" '<a class="chip"' "the green badge carries its fragility chip"
lacks "$h" 'Jump to the first failure' "no jump link on a green run"
lacks "$h" '<th scope="row">previous version</th>' "no previous-version row on a two-arm run"
lacks "$h" 'Regression: n/a</span>' "no empty regression half in the case panels of a two-arm run"
lacks "$h" 'new / previous' "the cost note of a two-arm run speaks of new / no-skill only"
count "$h" '<span class="so-what so-what-pass">' 4 "every case says its result while collapsed"
count "$h" '<div class="ribbon ribbon-' 2 "two trend ribbons"
expanded=$(field "$fixtures/two-arm/expected.results.json" 'sum(1 for c in d["cases"] if c["expanded"])')
count "$h" ' open>' "$expanded" "$expanded panels open (the flagged cases)"

echo
if [ "$failures" -gt 0 ]; then
  echo "benchmark-core: $failures check(s) failed"
  exit 1
fi
echo "benchmark-core: all checks passed"
