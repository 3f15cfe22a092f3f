# devShells.<system>.default: benchcore on PATH, and every skill linked into
# the project's .claude/skills/<name> on entry (see nix/shell-hook.sh for the
# rules: project root, which links it owns, idempotence).
{
  lib,
  mkShell,
  runtimeShell,
  benchcore,
  skills,
}:
mkShell {
  name = "claude-skills";
  packages = [ benchcore ];
  shellHook = import ./shell-hook.nix { inherit lib runtimeShell skills; };
}
