# devShells.<system>.default: benchcore on PATH, every skill linked into the
# project's .claude/skills/<name> and every agent type a skill brings (the
# benchmark's bench-arm, bench-judge) into .claude/agents/<name>.md on
# entry, with a garbage-collector root (.claude/.nix-skills-gcroot) for what
# the links point at. See nix/shell-hook.sh for the rules: project root, which
# links it owns, idempotence.
{
  lib,
  mkShell,
  runtimeShell,
  benchcore,
  skills,
  agents ? { },
  all ? null,
}:
mkShell {
  name = "claude-skills";
  packages = [ benchcore ];
  shellHook = import ./shell-hook.nix {
    inherit lib runtimeShell skills agents;
    gcRoot = all;
  };
}
