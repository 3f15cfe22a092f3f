#!/usr/bin/env bash
# Inspects the home files the home-manager module produces.
#
# From checks/home-manager-module.nix (a real home-manager evaluation):
#   HOME_FILES=<home-files tree> CHOSEN="a b" UNCHOSEN="c" \
#   [TARGET_DIR=.claude/skills] [BIN_CHECK="benchmark-skill/bin/benchcore"] \
#   [AGENTS="bench-arm ..." AGENTS_DIR=.claude/agents] \
#   [UNKNOWN_NAME=x UNKNOWN_MESSAGE="..." UNKNOWN_FAILS=1] \
#   bash checks/home-manager-module.sh
#
# Without HOME_FILES (CI, no nixpkgs): the tree is built here from the same
# builtins-only functions the module calls (nix/lib: discover, homeFiles,
# unknownSkillMessage), evaluated with nix-instantiate on the repository's
# skills/, linking each home.file target to its source as home-manager does
# for a folder. All skills but the last (by name) are chosen.
#
# Asserts: every chosen skill is at <TARGET_DIR>/<name> with its SKILL.md;
# no unchosen skill is there; nothing else is; each BIN_CHECK program runs
# (`--help`); each of AGENTS is at <AGENTS_DIR>/<name>.md naming itself, and
# nothing else is there;
# an unknown name fails with a message naming it.
set -euo pipefail

TARGET_DIR="${TARGET_DIR:-.claude/skills}"
failures=0
pass() { printf 'ok   %s\n' "$1"; }
fail() {
  printf 'FAIL %s\n' "$1"
  failures=$((failures + 1))
}
check() {
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

if [ -z "${HOME_FILES:-}" ]; then
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  repo="$(cd "$here/.." && pwd)"
  T="$(mktemp -d)"
  trap 'rm -rf "$T"' EXIT
  names_json="$(cd "$repo" && nix-instantiate --eval --strict --json -E \
    'builtins.attrNames ((import ./nix/lib).discover ./.)')"
  read -r -a names <<<"$(python3 -c 'import json,sys; print(" ".join(json.loads(sys.argv[1])))' "$names_json")"
  if [ "${#names[@]}" -eq 0 ]; then
    echo "no skills under $repo/skills"
    exit 1
  fi
  if [ "${#names[@]}" -ge 2 ]; then
    CHOSEN="${names[*]:0:${#names[@]}-1}"
    UNCHOSEN="${names[${#names[@]}-1]}"
  else
    CHOSEN="${names[0]}"
    UNCHOSEN=""
  fi
  # shellcheck disable=SC2086 # CHOSEN is a list of names
  chosen_nix="[ $(printf '"%s" ' $CHOSEN)]"
  AGENTS_DIR="${AGENTS_DIR:-.claude/agents}"
  # The module's home.file: homeFiles for the skills, and the agent types the chosen skills bring.
  files_json="$(cd "$repo" && nix-instantiate --eval --strict --json -E "
    let l = import ./nix/lib; found = l.discover ./.; chosen = $chosen_nix; in
    builtins.mapAttrs (_: f: toString f.source) (l.homeFiles {
      skills = builtins.mapAttrs (_: s: s.path) found;
      inherit chosen;
      targetDir = \"$TARGET_DIR\";
    }) // builtins.listToAttrs (map (n: { name = \"$AGENTS_DIR/\${n}.md\"; value = toString (l.agents found).\${n}.source; })
      (builtins.filter (n: builtins.elem (l.agents found).\${n}.skill chosen) (builtins.attrNames (l.agents found))))")"
  AGENTS="$(cd "$repo" && nix-instantiate --eval --strict --json -E "
    let l = import ./nix/lib; found = l.discover ./.; chosen = $chosen_nix; in
    builtins.concatStringsSep \" \" (builtins.filter (n: builtins.elem (l.agents found).\${n}.skill chosen)
      (builtins.attrNames (l.agents found)))" | python3 -c 'import json,sys; print(json.load(sys.stdin))')"
  HOME_FILES="$T/home-files"
  mkdir -p "$HOME_FILES"
  python3 - "$files_json" "$HOME_FILES" <<'EOF'
import json, os, sys
files, root = json.loads(sys.argv[1]), sys.argv[2]
for target, source in sorted(files.items()):
    path = os.path.join(root, target)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(source, path)
    print(f"home.file {target} -> {source}")
EOF
  UNKNOWN_NAME="no-such-skill"
  # The module turns each name select reports as unknown into a failing assertion.
  UNKNOWN_FAILS="$(cd "$repo" && nix-instantiate --eval --strict -E "
    let l = import ./nix/lib; in if (l.select {
      available = builtins.attrNames (l.discover ./.); chosen = [ \"$UNKNOWN_NAME\" ]; }).unknown
      == [ \"$UNKNOWN_NAME\" ] then 1 else 0")"
  UNKNOWN_MESSAGE="$(cd "$repo" && nix-instantiate --eval --strict --json -E "
    let l = import ./nix/lib; in l.unknownSkillMessage {
      option = \"programs.claude-skills.skills\"; name = \"$UNKNOWN_NAME\";
      available = builtins.attrNames (l.discover ./.); }")"
fi

echo "home files: $HOME_FILES"
echo "chosen: ${CHOSEN:-}"
echo "unchosen: ${UNCHOSEN:-}"
dir="$HOME_FILES/$TARGET_DIR"

for n in ${CHOSEN:-}; do
  check "$TARGET_DIR/$n is present" test -e "$dir/$n"
  check "$TARGET_DIR/$n/SKILL.md is there" test -f "$dir/$n/SKILL.md"
  check "$TARGET_DIR/$n/SKILL.md names $n" grep -Eq "^name:[[:space:]]*[\"']?${n}[\"']?[[:space:]]*\$" "$dir/$n/SKILL.md"
done
for n in ${UNCHOSEN:-}; do
  check "$TARGET_DIR/$n is absent (not chosen)" test ! -e "$dir/$n" -a ! -L "$dir/$n"
done

expected="$(for n in ${CHOSEN:-}; do echo "$n"; done | LC_ALL=C sort)"
actual="$(if [ -d "$dir" ]; then ls -A "$dir"; fi | LC_ALL=C sort)"
check "$TARGET_DIR holds the chosen skills and nothing else" test "$expected" = "$actual"

if [ -n "${AGENTS_DIR:-}" ]; then
  echo "agent types: ${AGENTS:-} (in $AGENTS_DIR)"
  adir="$HOME_FILES/$AGENTS_DIR"
  for a in ${AGENTS:-}; do
    check "$AGENTS_DIR/$a.md is there" test -f "$adir/$a.md"
    check "$AGENTS_DIR/$a.md names $a" grep -Eq "^name:[[:space:]]*[\"']?${a}[\"']?[[:space:]]*\$" "$adir/$a.md"
  done
  expected="$(for a in ${AGENTS:-}; do echo "$a.md"; done | LC_ALL=C sort)"
  actual="$(if [ -d "$adir" ]; then ls -A "$adir"; fi | LC_ALL=C sort)"
  check "$AGENTS_DIR holds the chosen skills' agent types and nothing else" test "$expected" = "$actual"
fi

for rel in ${BIN_CHECK:-}; do
  check "$TARGET_DIR/$rel is executable" test -x "$dir/$rel"
  check "$TARGET_DIR/$rel --help runs" "$dir/$rel" --help
done

if [ -n "${UNKNOWN_NAME:-}" ]; then
  check "choosing an unknown skill fails the configuration" test "${UNKNOWN_FAILS:-0}" = 1
  check "the assertion names the unknown skill" grep -qF "\`$UNKNOWN_NAME\`" <<<"${UNKNOWN_MESSAGE:-}"
  check "the assertion names the option to fix" grep -qF "programs.claude-skills.skills" <<<"${UNKNOWN_MESSAGE:-}"
fi

if [ "$failures" -ne 0 ]; then
  echo "home-manager-module check: $failures failure(s)"
  exit 1
fi
echo "home-manager-module check: passed"
