# Places chosen skills in the home directory (default ~/.claude/skills/<name>),
# each as a home.file link to its package. The flake's
# homeManagerModules.default imports this with availableSkills set to its
# skills (see ./flake-module.nix).
{ config, lib, ... }:
let
  cfg = config.programs.claude-skills;
  skillsLib = import ../lib;

  available = builtins.attrNames cfg.availableSkills;
  selection = skillsLib.select {
    inherit available;
    chosen = cfg.skills;
  };
  targetDirMessage = skillsLib.targetDirMessage {
    option = "programs.claude-skills.targetDir";
    inherit (cfg) targetDir;
    home = config.home.homeDirectory;
  };
in
{
  imports = [ ./options.nix ];

  config = lib.mkIf cfg.enable {
    assertions =
      map (name: {
        assertion = false;
        message = skillsLib.unknownSkillMessage {
          option = "programs.claude-skills.skills";
          inherit name available;
        };
      }) selection.unknown
      ++ lib.optional (targetDirMessage != null) {
        assertion = false;
        message = targetDirMessage;
      };

    home.file = skillsLib.homeFiles {
      skills = cfg.availableSkills;
      chosen = cfg.skills;
      inherit (cfg) targetDir;
    };
  };
}
