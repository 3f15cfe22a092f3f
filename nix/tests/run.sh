#!/usr/bin/env bash
# shellcheck disable=SC2016 # expected messages hold literal backquotes
# Runs the builtins-only library's unit tests with nix-instantiate (no nixpkgs
# needed), then checks that each bad fixture fails evaluation with the message
# that tells the author what to fix.
#
#   bash nix/tests/run.sh        (from anywhere; needs nix-instantiate)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."

fail=0
echo "+ nix-instantiate --eval --strict nix/tests"
if ! nix-instantiate --eval --strict nix/tests; then fail=1; fi

# expect_error <fixture> <text the message must contain>
expect_error() {
  local fixture="$1" want="$2" err rc=0
  echo "+ discover nix/tests/fixtures/$fixture  (must fail naming: $want)"
  err="$(nix-instantiate --eval --strict -E "(import ./nix/lib).discover ./nix/tests/fixtures/$fixture" 2>&1 >/dev/null)" || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "FAIL: $fixture evaluated, expected an error"; fail=1
  elif [[ "$err" != *"$want"* ]]; then
    printf 'FAIL: %s error lacks %s; it said:\n%s\n' "$fixture" "$want" "$err"; fail=1
  else
    echo "ok"
  fi
}
expect_error duplicate 'skills: 2 skills are named `same`: skills/a/same, skills/b/same.'
expect_error mismatch 'skills/tools/foo/SKILL.md: frontmatter says `name: bar` but the folder is `foo`.'
expect_error noname 'skills/plain/SKILL.md: no `name:` in its frontmatter.'
expect_error rootskill 'skills/SKILL.md: a skill needs its own folder'

echo "+ agents names both files of a clashing agent type"
err="$(nix-instantiate --eval --strict -E 'let l = import ./nix/lib; in l.agents (l.discover ./nix/tests/fixtures/agent-clash)' 2>&1 >/dev/null)" || true
if [[ "$err" == *'the agent type `same` is brought by 2 skills (skills/one/agents/same.md, skills/two/agents/same.md)'* ]]; then
  echo ok
else
  echo "FAIL: $err"; fail=1
fi

echo "+ checkReserved names the clash"
err="$(nix-instantiate --eval --strict -E '(import ./nix/lib).checkReserved [ "skills" ]' 2>&1 >/dev/null)" || true
if [[ "$err" == *'a skill may not be named `skills`'* ]]; then echo ok; else echo "FAIL: $err"; fail=1; fi

if [ "$fail" -ne 0 ]; then echo "nix library tests: FAILED"; exit 1; fi
echo "nix library tests: passed"
