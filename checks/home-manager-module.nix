# checks.<system>.home-manager-module: evaluates home configurations that use
# homeManagerModules.default with home-manager itself, then inspects the
# produced home files with checks/home-manager-module.sh: the chosen skills
# are present with their SKILL.md, the others absent; "all" places every
# skill, and a skill the user adds comes on top of the flake's; an unknown
# name fails with an assertion that names it.
{
  lib,
  pkgs,
  runCommandLocal,
  home-manager,
  module,
}:
let
  mkHome =
    skills:
    home-manager.lib.homeManagerConfiguration {
      inherit pkgs;
      modules = [
        module
        {
          home = {
            username = "check";
            homeDirectory = "/home/check";
            stateVersion = "26.05";
          };
          programs.claude-skills = {
            enable = true;
            inherit skills;
          };
        }
      ];
    };

  allHome = mkHome "all";
  names = lib.attrNames allHome.config.programs.claude-skills.availableSkills;
  # All but the last skill by name (or the only one).
  chosen = if lib.length names > 1 then lib.init names else names;
  unchosen = lib.subtractLists chosen names;
  someHome = mkHome chosen;

  # Bug this covers: the flake's skills were one mkDefault for the whole set,
  # so a user adding a skill of their own lost every skill of the flake.
  extraName = "my-own-skill";
  extraHome = home-manager.lib.homeManagerConfiguration {
    inherit pkgs;
    modules = [
      module
      {
        home = {
          username = "check";
          homeDirectory = "/home/check";
          stateVersion = "26.05";
        };
        programs.claude-skills = {
          enable = true;
          availableSkills.${extraName} = runCommandLocal extraName { } ''
            mkdir -p "$out"
            printf -- '---\nname: ${extraName}\ndescription: a user skill\n---\n' >"$out/SKILL.md"
          '';
        };
      }
    ];
  };

  binCheck = names: lib.optional (lib.elem "benchmark-skill" names) "benchmark-skill/bin/benchcore";

  # home-manager refuses a configuration with a failed assertion; the message
  # is read from the module's own assertions.
  unknownName = "no-such-skill";
  unknownFails = !(builtins.tryEval (mkHome [ unknownName ]).activationPackage.drvPath).success;
  unknownMessages =
    (lib.evalModules {
      modules = [
        ../nix/home-manager/default.nix
        {
          options.assertions = lib.mkOption { type = lib.types.listOf lib.types.unspecified; };
          options.home.file = lib.mkOption { type = lib.types.attrsOf lib.types.unspecified; };
          options.home.homeDirectory = lib.mkOption { type = lib.types.str; };
          config.home.homeDirectory = "/home/check";
          config.programs.claude-skills = {
            enable = true;
            skills = [ unknownName ];
            inherit (allHome.config.programs.claude-skills) availableSkills;
          };
        }
      ];
    }).config.assertions;
  unknownMessage = lib.concatMapStringsSep "\n" (a: a.message) (
    lib.filter (a: !a.assertion) unknownMessages
  );

  run =
    {
      home,
      chosen,
      unchosen,
    }:
    ''
      HOME_FILES=${home.config.home-files} \
      CHOSEN=${lib.escapeShellArg (toString chosen)} \
      UNCHOSEN=${lib.escapeShellArg (toString unchosen)} \
      BIN_CHECK=${lib.escapeShellArg (toString (binCheck chosen))} \
      UNKNOWN_NAME=${unknownName} \
      UNKNOWN_FAILS=${if unknownFails then "1" else "0"} \
      UNKNOWN_MESSAGE=${lib.escapeShellArg unknownMessage} \
      bash ${./home-manager-module.sh}
    '';
in
runCommandLocal "check-home-manager-module" { } ''
  echo "== a list of skills"
  ${run {
    home = someHome;
    inherit chosen unchosen;
  }}
  echo "== all skills"
  ${run {
    home = allHome;
    chosen = names;
    unchosen = [ ];
  }}
  echo "== all skills, plus one the user added"
  ${run {
    home = extraHome;
    chosen = names ++ [ extraName ];
    unchosen = [ ];
  }}
  touch "$out"
''
