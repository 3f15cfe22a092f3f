# The dev shell's shellHook text: runs nix/shell-hook.sh with every skill as
# NAME=STORE-PATH, every agent type a skill brings as --agent NAME.md=FILE,
# and the folder of every skill as the garbage-collector root.
# checks/shell-hook.nix runs this same text.
{
  lib,
  runtimeShell,
  skills,
  agents ? { },
  gcRoot ? null,
}:
lib.concatStringsSep " " (
  [
    runtimeShell
    "${./shell-hook.sh}"
    "--store"
    builtins.storeDir
  ]
  ++ lib.optionals (gcRoot != null) [
    "--gc-root"
    (lib.escapeShellArg "${gcRoot}")
  ]
  ++ map lib.escapeShellArg (lib.mapAttrsToList (name: pkg: "${name}=${pkg}") skills)
  ++ lib.concatLists (
    lib.mapAttrsToList (name: a: [
      "--agent"
      (lib.escapeShellArg "${name}.md=${a.file}")
    ]) agents
  )
)
