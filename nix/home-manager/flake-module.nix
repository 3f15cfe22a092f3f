# homeManagerModules.default: the module of ./default.nix with availableSkills
# set to every skill of this repository, built with the user's pkgs (so it
# follows their nixpkgs and works on any system they run).
{
  pkgs,
  lib,
  ...
}:
{
  imports = [ ./default.nix ];
  programs.claude-skills.availableSkills = lib.mkDefault (import ../packages { inherit pkgs; }).skills;
}
