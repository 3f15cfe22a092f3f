# homeManagerModules.default: the module of ./default.nix with availableSkills
# set to every skill of this repository, built with the user's pkgs (so it
# follows their nixpkgs and works on any system they run).
{
  pkgs,
  lib,
  ...
}:
let
  built = import ../packages { inherit pkgs; };
in
{
  imports = [ ./default.nix ];
  # A default per name, not for the whole set: a user's
  # `availableSkills.<name> = ...` then adds a skill or replaces that one
  # only (a default on the whole set would be dropped by any definition).
  programs.claude-skills.availableSkills = lib.mapAttrs (_: lib.mkDefault) built.skills;
  programs.claude-skills.benchmarkPlugin = lib.mkDefault built.benchmarkPlugin;
  programs.claude-skills.availableAgents = lib.mapAttrs (
    _: a:
    lib.mkDefault {
      inherit (a) skill source;
    }
  ) built.agents;
}
