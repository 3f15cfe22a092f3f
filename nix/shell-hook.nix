# The dev shell's shellHook text: runs nix/shell-hook.sh with every skill as
# NAME=STORE-PATH. checks/shell-hook.nix runs this same text.
{
  lib,
  runtimeShell,
  skills,
}:
lib.concatStringsSep " " (
  [
    runtimeShell
    "${./shell-hook.sh}"
    "--store"
    builtins.storeDir
  ]
  ++ map lib.escapeShellArg (lib.mapAttrsToList (name: pkg: "${name}=${pkg}") skills)
)
