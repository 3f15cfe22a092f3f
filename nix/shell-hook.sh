#!/usr/bin/env bash
# Places skills in a project's .claude/skills/<name>, and agent types in its
# .claude/agents/<name>.md, as links to their store paths. The dev shell's
# shellHook runs it (see nix/dev-shell.nix); the check checks/shell-hook.sh
# runs it against a fixture project.
#
#   shell-hook.sh [--store DIR] [--gc-root STORE-PATH] NAME=TARGET... [--agent NAME.md=TARGET]...
#
# Project root: $PRJ_ROOT when set; otherwise the first folder, walking up from
# the current one, that holds flake.nix or .git; otherwise the current folder.
#
# In each folder (.claude/skills, .claude/agents), a link is the hook's own
# when the folder's .nix-skills-manifest (written by the hook, one NAME=TARGET
# line per link it left) records that name with the link's current target, or
# when it points into the store (--store, default /nix/store) at a path named
# <hash>-claude-skill-<name> (a skill) or <hash>-claude-skill-<skill>/agents/<name>
# (an agent type). A link the user re-pointed elsewhere is theirs, even under
# a recorded name. Only its own links are replaced or removed:
#   - missing           -> link created
#   - own link, other target -> link replaced
#   - own link to a skill no longer offered (stale) -> link removed
#   - a folder, file or link the user made -> left alone, with a warning
# Claude Code reads agent types only at session start, so a new one is there
# from the next session on.
#
# --gc-root: a store path holding everything linked (the dev shell passes the
# folder of every skill, whose closure has the agent files and benchcore). It
# becomes an indirect garbage-collector root at .claude/.nix-skills-gcroot
# (nix-store --add-root), so a garbage collection does not break the links
# while the project keeps it; without nix-store on PATH the hook says so.
#
# Running it again with the same arguments changes nothing. It never fails the
# shell: problems are reported as warnings and it exits 0. It writes nothing
# on stdout (its summary and warnings go to stderr), so the output of
# `nix develop --command ...` is the command's alone.
set -u

store=/nix/store
gc_root=""
skill_pairs=()
agent_pairs=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --store) store="${2:?--store needs a folder}"; shift 2 ;;
    --store=*) store="${1#--store=}"; shift ;;
    --gc-root) gc_root="${2:?--gc-root needs a store path}"; shift 2 ;;
    --agent) agent_pairs+=("${2:?--agent needs NAME.md=TARGET}"); shift 2 ;;
    *) skill_pairs+=("$1"); shift ;;
  esac
done

warn() { printf 'claude-skills: warning: %s\n' "$*" >&2; }

find_root() {
  if [ -n "${PRJ_ROOT:-}" ] && [ -d "$PRJ_ROOT" ]; then
    printf '%s\n' "$PRJ_ROOT"
    return
  fi
  local dir
  dir="$(pwd -P)"
  while :; do
    if [ -e "$dir/flake.nix" ] || [ -e "$dir/.git" ]; then
      printf '%s\n' "$dir"
      return
    fi
    [ "$dir" = / ] && break
    dir="$(dirname "$dir")"
  done
  pwd -P
}

# sync <folder> <kind: skill|agent> NAME=TARGET...: the rules above, in one folder.
sync() {
  dir="$1" kind="$2"
  shift 2
  pairs=("$@")
  manifest="$dir/.nix-skills-manifest"

  if ! mkdir -p "$dir" 2>/dev/null; then
    warn "cannot create $dir; ${kind}s not linked"
    return 0
  fi

  # NAME=TARGET lines recorded by an earlier run (a line without `=`, from an
  # older manifest, proves nothing and is ignored).
  recorded=()
  if [ -f "$manifest" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in '' | '#'* | '='*) continue ;; *=*) recorded+=("$line") ;; esac
    done <"$manifest"
  fi

  is_own_link() { # is_own_link <name>: the entry is a link this hook made
    local name="$1" link="$dir/$1" target r
    [ -L "$link" ] || return 1
    target="$(readlink "$link")"
    case "$kind:$target" in
      skill:"$store"/*-claude-skill-"$name" | agent:"$store"/*-claude-skill-*/agents/"$name") return 0 ;;
    esac
    for r in ${recorded[@]+"${recorded[@]}"}; do
      [ "$r" = "$name=$target" ] && return 0
    done
    return 1
}

wanted=" "
kept=() # NAME=TARGET of each link the hook now owns, for the manifest
created=0 replaced=0 removed=0 skipped=0
for pair in ${pairs[@]+"${pairs[@]}"}; do
  name="${pair%%=*}"
  target="${pair#*=}"
  case "$name" in
    '' | */* | .* | "$pair")
      warn "ignoring malformed argument '$pair' (expected NAME=TARGET)"
      continue
      ;;
  esac
  wanted="$wanted$name "
  link="$dir/$name"
  if [ -L "$link" ]; then
    if [ "$(readlink "$link")" = "$target" ]; then
      kept+=("$name=$target")
    elif is_own_link "$name"; then
      if ln -sfn "$target" "$link"; then
        replaced=$((replaced + 1))
        kept+=("$name=$target")
      else
        warn "could not replace $link"
      fi
    else
      warn "left $link alone: it is your own link (to $(readlink "$link")); remove it to use the $kind from Nix"
      skipped=$((skipped + 1))
    fi
  elif [ -e "$link" ]; then
    warn "left $link alone: it is your own folder or file; remove or rename it to use the $kind from Nix"
    skipped=$((skipped + 1))
  else
    if ln -s "$target" "$link"; then
      created=$((created + 1))
      kept+=("$name=$target")
    else
      warn "could not create $link"
    fi
  fi
done

# Remove the hook's own links to skills no longer offered.
for entry in "$dir"/*; do
  [ -L "$entry" ] || continue
  name="${entry##*/}"
  case "$wanted" in *" $name "*) continue ;; esac
  if is_own_link "$name"; then
    if rm -f "$entry"; then removed=$((removed + 1)); fi
  fi
done

# Rewrite the manifest only when its content changes, so a second run leaves
# the folder exactly as it was.
new_manifest="# Links in this folder made by the Nix dev shell's hook (NAME=TARGET); it replaces and removes only these."
if [ "${#kept[@]}" -gt 0 ]; then
  new_manifest="$new_manifest
$(printf '%s\n' "${kept[@]}" | LC_ALL=C sort -u)"
fi
old_manifest=""
[ -f "$manifest" ] && old_manifest="$(cat "$manifest")"
if [ "$new_manifest" != "$old_manifest" ]; then
  tmp="$manifest.tmp.$$"
  if printf '%s\n' "$new_manifest" >"$tmp" && mv -f "$tmp" "$manifest"; then
    :
  else
    rm -f "$tmp"
    warn "could not write $manifest"
  fi
fi

# On stderr, like the warnings: `nix develop --command cmd >out` keeps only
# cmd's output on stdout.
printf 'claude-skills: %d %s(s) linked in %s (%d new, %d replaced, %d stale removed, %d left alone)\n' \
  "${#kept[@]}" "$kind" "$dir" "$created" "$replaced" "$removed" "$skipped" >&2
}

root="$(find_root)"
sync "$root/.claude/skills" skill ${skill_pairs[@]+"${skill_pairs[@]}"}
# Agent types only when some are offered: a project without them gets no empty .claude/agents.
if [ "${#agent_pairs[@]}" -gt 0 ] || [ -f "$root/.claude/agents/.nix-skills-manifest" ]; then
  sync "$root/.claude/agents" agent ${agent_pairs[@]+"${agent_pairs[@]}"}
fi

if [ -n "$gc_root" ]; then
  link="$root/.claude/.nix-skills-gcroot"
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$gc_root" ]; then
    :
  elif [ -e "$link" ] && [ ! -L "$link" ]; then
    warn "left $link alone: it is not a link; remove it so that the links survive a garbage collection"
  elif ! command -v nix-store >/dev/null 2>&1; then
    warn "nix-store is not on PATH, so the links have no garbage-collector root; after a garbage collection, enter the shell again"
  elif nix-store --add-root "$link" --indirect --realise "$gc_root" >/dev/null 2>&1; then
    printf 'claude-skills: garbage-collector root %s -> %s\n' "$link" "$gc_root" >&2
  else
    warn "could not add the garbage-collector root $link (nix-store --add-root failed); after a garbage collection, enter the shell again"
  fi
fi
exit 0
