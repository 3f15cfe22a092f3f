#!/usr/bin/env bash
# CI's Nix steps. nixpkgs cannot be fetched on the build machines, so this
# does what Debian's nix-bin (Nix 2.8) allows:
#   1. install nix-bin when nix-instantiate is missing (apt-get),
#   2. parse every .nix file in the repository,
#   3. unit-test the builtins-only library (nix/tests/run.sh),
#   4. check that the repository's own skills/ discovers cleanly,
#   5. run each flake check's shell logic directly: checks/shell-hook.sh and
#      checks/home-manager-module.sh (checks/benchmark-core.sh is run by .ci/run).
# Full `nix flake check` needs nixpkgs and runs on a machine with Nix >= 2.18.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n== %s\n' "$*"; }

if ! command -v nix-instantiate >/dev/null 2>&1; then
  step "installing Debian's nix-bin"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nix-bin >/dev/null
fi
nix-instantiate --version

step "parsing every .nix file (nix-instantiate --parse)"
count=0
while IFS= read -r -d '' f; do
  nix-instantiate --parse "$f" >/dev/null
  echo "parsed $f"
  count=$((count + 1))
done < <(git ls-files -z --cached --others --exclude-standard -- '*.nix')
echo "$count file(s) parsed"

step "library unit tests (nix-instantiate --eval --strict)"
bash nix/tests/run.sh

step "discovering the repository's skills"
nix-instantiate --eval --strict -E \
  'builtins.mapAttrs (_: s: "skills/" + s.relPath) ((import ./nix/lib).discover ./.)'
echo

step "checks/shell-hook.sh"
bash checks/shell-hook.sh

step "checks/home-manager-module.sh"
bash checks/home-manager-module.sh

step "nix steps passed"
