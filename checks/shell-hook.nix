# checks.<system>.shell-hook: runs the dev shell's own shellHook text (skills,
# agent types, garbage-collector root) in a fixture project twice
# (checks/shell-hook.sh holds the test logic; CI runs the same script without
# Nix against a fake store).
{
  lib,
  runCommandLocal,
  writeText,
  devShell,
  skills,
  agents,
  all,
}:
runCommandLocal "check-shell-hook"
  {
    SHELL_HOOK_FILE = writeText "shell-hook" devShell.shellHook;
    SKILL_LINKS = lib.concatStringsSep " " (lib.mapAttrsToList (name: pkg: "${name}=${pkg}") skills);
    AGENT_LINKS = lib.concatStringsSep " " (lib.mapAttrsToList (name: a: "${name}.md=${a.file}") agents);
    GC_ROOT = "${all}";
    STORE_DIR = builtins.storeDir;
  }
  ''
    bash ${./shell-hook.sh}
    touch "$out"
  ''
