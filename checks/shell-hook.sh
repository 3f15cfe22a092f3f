#!/usr/bin/env bash
# Test of the dev shell's hook (nix/shell-hook.sh): runs it twice in a fixture
# project and asserts on the links it leaves.
#
# Without Nix (CI):   bash checks/shell-hook.sh
#   builds a fake store of three skills and runs nix/shell-hook.sh with them.
# From checks/shell-hook.nix:
#   SHELL_HOOK_FILE=<file holding the devShell's shellHook>
#   SKILL_LINKS="name=/nix/store/...-claude-skill-name ..."  (what it must link)
#   AGENT_LINKS="name.md=/nix/store/...-claude-skill-x/agents/name.md ..."
#   GC_ROOT=/nix/store/...  (the --gc-root the shellHook passes)
#   STORE_DIR=/nix/store
#   bash checks/shell-hook.sh
#
# It checks: links created from a subfolder land in the project root (whose
# path holds a space), each pointing at its skill; a second run changes
# nothing; a user's own folder, file and link (a dangling one too) are left
# alone with a warning, even a link the user re-pointed under a name the
# manifest records; the hook's stale links (recorded in its manifest with
# their target, or pointing into the store at a claude-skill path) are removed;
# an own link to an outdated target is replaced; the hook neither exits nor
# fails a shell running with `set -euo pipefail`; $PRJ_ROOT and a .git folder
# also mark the root. Agent types: each is linked as .claude/agents/<name>.md
# (readable, a user's own agent file left alone, a second run changes nothing).
# The garbage-collector root: where nix-store can write to a store, the root
# at .claude/.nix-skills-gcroot keeps its path alive (nix-store --delete of
# that one path is refused); where it cannot (the flake check's sandbox), the
# hook says the links have no root and the shell goes on.
set -euo pipefail

T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT

failures=0
pass() { printf 'ok   %s\n' "$1"; }
fail() {
  printf 'FAIL %s\n' "$1"
  failures=$((failures + 1))
}
check() { # check <description> <command...>
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

if [ -z "${SHELL_HOOK_FILE:-}" ]; then
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  hook="$here/../nix/shell-hook.sh"
  STORE_DIR="$T/store"
  SKILL_LINKS=""
  args=""
  for name in alpha beta gamma; do
    target="$STORE_DIR/$(printf '%s' "$name" | cksum | cut -d' ' -f1)aaaaaaaaaaaaaaaaaaaaaa-claude-skill-$name"
    mkdir -p "$target"
    printf -- '---\nname: %s\n---\n' "$name" >"$target/SKILL.md"
    SKILL_LINKS="$SKILL_LINKS $name=$target"
    args="$args $(printf '%q' "$name=$target")"
  done
  # alpha carries agent types, as benchmark-skill does.
  alpha="${SKILL_LINKS# }"
  alpha="${alpha%% *}"
  alpha="${alpha#alpha=}"
  AGENT_LINKS=""
  for a in bench-baseline bench-judge; do
    mkdir -p "$alpha/agents"
    printf -- '---\nname: %s\ndescription: test\n---\n' "$a" >"$alpha/agents/$a.md"
    AGENT_LINKS="$AGENT_LINKS $a.md=$alpha/agents/$a.md"
    args="$args --agent $(printf '%q' "$a.md=$alpha/agents/$a.md")"
  done
  # A real store path for the garbage-collector root, where this machine's Nix can add one.
  printf 'gc root content %s\n' "$$" >"$T/gc-root-content"
  GC_ROOT="$(nix-store --add "$T/gc-root-content" 2>/dev/null || true)"
  if [ -n "$GC_ROOT" ]; then args="$args --gc-root $(printf '%q' "$GC_ROOT")"; fi
  SHELL_HOOK_FILE="$T/hook"
  printf 'bash %q --store %q%s\n' "$hook" "$STORE_DIR" "$args" >"$SHELL_HOOK_FILE"
fi
: "${SKILL_LINKS:?SKILL_LINKS must list name=target pairs}"
STORE_DIR="${STORE_DIR:-/nix/store}"
read -r -a agent_pairs <<<"${AGENT_LINKS:-}"

read -r -a pairs <<<"$SKILL_LINKS"
names=()
for p in "${pairs[@]}"; do names+=("${p%%=*}"); done
target_of() {
  local p
  for p in "${pairs[@]}"; do
    if [ "${p%%=*}" = "$1" ]; then
      printf '%s\n' "${p#*=}"
      return
    fi
  done
}
count=${#names[@]}
echo "hook: $(cat "$SHELL_HOOK_FILE")"
echo "skills: ${names[*]}"

# The last skill's name is taken by a user's own folder; with two or more
# skills, the first starts as an outdated link of the hook's own; with three
# or more, the second is a link the hook made (the manifest records it) that
# the user then re-pointed at a folder of their own, since deleted.
owned="${names[$((count - 1))]}"
outdated=""
if [ "$count" -ge 2 ]; then outdated="${names[0]}"; fi
repointed=""
if [ "$count" -ge 3 ]; then repointed="${names[1]}"; fi

run_hook() { # run_hook <dir to run from> <output file> [VAR=value...]
  local from="$1" out="$2"
  shift 2
  (
    cd "$from"
    for kv in "$@"; do export "${kv?}"; done
    # An interactive shell runs a shellHook without -e/-u, unless STRICT=1:
    # then the options stay on, as in a user's shell that set them.
    if [ "${STRICT:-0}" != 1 ]; then set +eu; fi
    # shellcheck disable=SC1090
    . "$SHELL_HOOK_FILE"
    echo "shell still running, options: $-"
  ) >"$out" 2>&1
}

snapshot() { # the observable state of a skills folder, one line per entry
  local d="$1" e
  for e in "$d"/* "$d"/.[!.]*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    if [ -L "$e" ]; then
      printf 'link %s -> %s\n' "${e##*/}" "$(readlink "$e")"
    elif [ -d "$e" ]; then
      printf 'dir  %s\n' "${e##*/}"
    else
      printf 'file %s %s\n' "${e##*/}" "$(cksum <"$e")"
    fi
  done
}

# --- fixture project: flake.nix marks its root, the hook runs from src/deep
P="$T/my project"
S="$P/.claude/skills"
A="$P/.claude/agents"
mkdir -p "$P/src/deep" "$S/$owned" "$T/elsewhere" "$A"
printf -- '---\nname: mine\n---\nmy agent\n' >"$A/mine.md"
: >"$P/flake.nix"
printf 'my own version\n' >"$S/$owned/SKILL.md"
printf 'my notes\n' >"$S/notes.txt"
ln -s "$T/elsewhere" "$S/my-link"
# stale: a link into the store at a claude-skill path, and a manifest-listed one
stale_store="$STORE_DIR/00000000000000000000000000000000-claude-skill-old-skill"
ln -s "$stale_store" "$S/old-skill"
ln -s "$T/elsewhere" "$S/retired"
ln -s "$T/gone" "$S/my-dangling"
# Bug this covers: the manifest used to hold names only, so any link under a
# recorded name counted as the hook's own, and a link the user had re-pointed
# at their own copy was silently replaced or removed.
# retired=: recorded with its target by an earlier run; legacy: a line of an
# older manifest without its target, which proves nothing.
printf '# written by an earlier run\nretired=%s\nlegacy\n' "$T/elsewhere" >"$S/.nix-skills-manifest"
ln -s "$T/elsewhere" "$S/legacy"
if [ -n "$outdated" ]; then
  ln -s "$STORE_DIR/11111111111111111111111111111111-claude-skill-$outdated" "$S/$outdated"
fi
if [ -n "$repointed" ]; then
  printf '%s=%s\n' "$repointed" "$(target_of "$repointed")" >>"$S/.nix-skills-manifest"
  ln -s "$T/my-own-$repointed" "$S/$repointed"
fi

run_hook "$P/src/deep" "$T/out1"
echo "--- first run output"
cat "$T/out1"

for n in "${names[@]}"; do
  [ "$n" = "$owned" ] && continue
  [ "$n" = "$repointed" ] && continue
  want="$(target_of "$n")"
  check "$n is a link at the project root" test -L "$S/$n"
  check "$n points at its skill ($want)" test "$(readlink "$S/$n" 2>/dev/null)" = "$want"
  check "$n/SKILL.md is readable through the link" test -r "$S/$n/SKILL.md"
done
check "the user's folder $owned is left as it was" test "$(cat "$S/$owned/SKILL.md")" = "my own version"
check "the user's folder $owned is not a link" test ! -L "$S/$owned"
check "nothing is added inside the user's folder" test "$(ls -A "$S/$owned")" = "SKILL.md"
check "a warning names the user's folder" grep -q "left $S/$owned alone" "$T/out1"
check "the user's file is left alone" test "$(cat "$S/notes.txt")" = "my notes"
check "the user's link is left alone" test "$(readlink "$S/my-link")" = "$T/elsewhere"
check "the user's dangling link is left alone" test "$(readlink "$S/my-dangling")" = "$T/gone"
check "a link under a name an older manifest lists without its target is left alone" \
  test "$(readlink "$S/legacy")" = "$T/elsewhere"
if [ -n "$repointed" ]; then
  check "a link the user re-pointed under a recorded name is left alone" \
    test "$(readlink "$S/$repointed")" = "$T/my-own-$repointed"
  check "a warning names the re-pointed link" grep -q "left $S/$repointed alone" "$T/out1"
fi
check "a stale link into the store is removed" test ! -e "$S/old-skill" -a ! -L "$S/old-skill"
check "a stale link named in the manifest is removed" test ! -L "$S/retired"
check "nothing is created in the subfolder it ran from" test ! -e "$P/src/deep/.claude"
expected_manifest="$(for n in "${names[@]}"; do
  if [ "$n" != "$owned" ] && [ "$n" != "$repointed" ]; then printf '%s=%s\n' "$n" "$(target_of "$n")"; fi
done | LC_ALL=C sort)"
check "the manifest records each linked skill with its target, and nothing else" \
  test "$(grep -v '^#' "$S/.nix-skills-manifest")" = "$expected_manifest"
if [ -n "$outdated" ]; then
  check "an outdated own link is replaced" grep -q ", 1 replaced," "$T/out1"
fi

for p in ${agent_pairs[@]+"${agent_pairs[@]}"}; do
  n="${p%%=*}"
  check "agent type $n is a link in .claude/agents" test -L "$A/$n"
  check "agent type $n points at its file (${p#*=})" test "$(readlink "$A/$n" 2>/dev/null)" = "${p#*=}"
  check "agent type $n is readable through the link" test -r "$A/$n"
done
check "the user's own agent file is left alone" test "$(tail -n 1 "$A/mine.md")" = "my agent"
if [ -n "${GC_ROOT:-}" ]; then
  if command -v nix-store >/dev/null 2>&1 && [ -e "$GC_ROOT" ] && [ -w "$(dirname "$GC_ROOT")" ] &&
    [ -z "${NIX_BUILD_TOP:-}" ]; then
    check "the garbage-collector root points at the path given" \
      test "$(readlink "$P/.claude/.nix-skills-gcroot" 2>/dev/null)" = "$GC_ROOT"
    # Deleting that one path (never a collection of the whole store) is refused while the root holds it.
    check "the root keeps its store path alive" \
      bash -c '! nix-store --delete "$1" >/dev/null 2>&1 && test -e "$1"' _ "$GC_ROOT"
  else
    check "without a writable store the hook says the links have no garbage-collector root" \
      grep -Eq "no garbage-collector root|could not add the garbage-collector root" "$T/out1"
  fi
fi

# --- idempotence: a second run changes nothing
snapshot "$S" >"$T/state1"
snapshot "$A" >>"$T/state1"
run_hook "$P/src/deep" "$T/out2"
snapshot "$S" >"$T/state2"
snapshot "$A" >>"$T/state2"
echo "--- second run output"
cat "$T/out2"
check "a second run leaves the folder identical" cmp -s "$T/state1" "$T/state2"
left_alone=1
if [ -n "$repointed" ]; then left_alone=2; fi
check "a second run reports no change" grep -q "(0 new, 0 replaced, 0 stale removed, $left_alone left alone)" "$T/out2"

# --- a shell with `set -euo pipefail` on: the hook neither exits it nor fails it
STRICT=1 run_hook "$P/src/deep" "$T/out-strict"
snapshot "$S" >"$T/state3"
snapshot "$A" >>"$T/state3"
# Bug this covers: the summary went to stdout, into the output of
# `nix develop --command cmd >file`.
(cd "$P/src/deep" && . "$SHELL_HOOK_FILE") >"$T/stdout-only" 2>/dev/null
check "the hook writes nothing on stdout" test ! -s "$T/stdout-only"
check "a shell with set -euo pipefail keeps running after the hook" grep -q "^shell still running, options: .*e.*u" "$T/out-strict"
check "the hook changes nothing there either" cmp -s "$T/state1" "$T/state3"

# --- the root rule: $PRJ_ROOT wins, then the nearest flake.nix or .git
mkdir -p "$T/prj" "$T/gitproj/.git" "$T/gitproj/a/b"
run_hook "$P/src" "$T/out3" "PRJ_ROOT=$T/prj"
check "\$PRJ_ROOT chooses the project root" test -L "$T/prj/.claude/skills/${names[0]}"
run_hook "$T/gitproj/a/b" "$T/out4"
check "a .git folder marks the project root" test -L "$T/gitproj/.claude/skills/${names[0]}"
check "nothing lands in the folder it ran from" test ! -e "$T/gitproj/a/b/.claude"

# The store path this check added for the root: released, then deleted (that path only).
if [ -n "${GC_ROOT:-}" ] && [ -z "${NIX_BUILD_TOP:-}" ]; then
  find "$T" -name .nix-skills-gcroot -type l -exec rm -f {} +
  case "$GC_ROOT" in *-gc-root-content) nix-store --delete "$GC_ROOT" >/dev/null 2>&1 || true ;; esac
fi

if [ "$failures" -ne 0 ]; then
  echo "shell-hook check: $failures failure(s)"
  exit 1
fi
echo "shell-hook check: passed"
